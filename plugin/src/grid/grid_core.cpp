// Building the grid: fit the lattice to the boxes, then split cells level by level.

#include "grid/grid_core.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "common/agrid_assert.h"
#include "common/pair_sort.h"
#include "grid/cell_invariants.h"

namespace agrid::detail {

GridCore::GridCore(const Config& config)
    : config_(config), cells_(config, config.leaf_capacity, Finish::leaf, Execution::sequential) {}

void GridCore::build(std::span<const Box> boxes) {
  start_forest(Lattice{});  // a refused build leaves an empty grid too, not the last frame's
  if (boxes.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("agrid::Grid::build: at most 2^32 - 2 boxes are supported");
  }
  try {
    cells_.set_lattice(fit_lattice(boxes));
    cells_.split_root(boxes);
    cells_.split_all_levels();
    finish(static_cast<std::uint32_t>(boxes.size()));
  } catch (...) {
    start_forest(Lattice{});  // out of memory, or too many box copies: empty, never half-built
    throw;
  }
  stats_.boxes = static_cast<std::uint32_t>(boxes.size());
  stats_.invalid_boxes = cells_.invalid_boxes();
  stats_.oversize_boxes = cells_.oversize_boxes();
}

void GridCore::start_forest(const Lattice& lattice) noexcept {
  cells_.clear();
  cells_.set_lattice(lattice);
  stats_ = GridStats{};
}

std::uint32_t GridCore::add_subtree(std::span<const WorkEntry> records, const CellCoords& cell,
                                    std::uint32_t level) {
  const std::uint32_t root = cells_.split_subtree_root(records, cell, level);
  cells_.split_all_levels();
  stats_.boxes += static_cast<std::uint32_t>(records.size());
  return root;
}

void GridCore::finish(std::uint32_t id_limit) {
  cells_.pad();
  AGRID_ASSERT_NO_PROBLEM(broken_cell_invariant(view_of(cells_), id_limit));
  const std::vector<Node>& nodes = cells_.nodes();
  stats_.tasks = 1;
  stats_.depth = cells_.depth();
  stats_.nodes = static_cast<std::uint32_t>(nodes.size());
  stats_.leaves = static_cast<std::uint32_t>(std::count_if(nodes.begin(), nodes.end(), [](const Node& n) { return n.is_leaf(); }));
  stats_.leaf_entries = cells_.leaf_entries().size() - kKernelPadding;
  stats_.staying_entries = cells_.stay_entries().size() - kKernelPadding;
  stats_.bytes_held = bytes_held();
}

void GridCore::find_pairs(std::vector<Pair>& out) {
  collect_pair_keys();
  out.resize(pair_keys_.keys().size());
  sort_pairs(pair_keys_.keys(), pair_keys_scratch_, stats_.boxes, out);
  stats_.bytes_held = bytes_held();  // with the pair buffers this search may have grown
}

std::size_t GridCore::bytes_held() const noexcept {
  return cells_.bytes_held() + pair_keys_.bytes_held() + pair_keys_scratch_.capacity() * sizeof(std::uint64_t) +
         sweep_scratch_.bytes_held();
}

}  // namespace agrid::detail
