#include "grid/cell_invariants.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "common/agrid_assert.h"

namespace agrid::detail {

void invariant_broken(const char* what, const char* file, int line) noexcept {
  std::fprintf(stderr, "agrid: invariant broken at %s:%d: %s\n", file, line, what);
  std::abort();
}

CellsView view_of(const SplitEngine& engine) {
  return {engine.lattice(),      engine.nodes(),        engine.leaf_entries(),
          engine.leaf_cells(),   engine.stay_entries(), engine.stay_lattice(),
          engine.config().sweep_threshold};
}

namespace {

// The first broken invariant of the entries `range` of `node`; `held` are their lattice
// boxes as stored (for staying entries), or null.
const char* broken_entry(const CellsView& cells, const EntryArrays& entries, CellRange range, const Node& node,
                         std::uint32_t id_limit, const LatticeBox* held) {
  const std::uint32_t shift = level_shift(node.level);
  for (std::uint32_t i = range.begin; i < range.end; ++i) {
    const Box box = entries.box(i);
    if (!is_valid(box)) return "an entry's box is invalid";
    if (entries.id[i] >= id_limit) return "an entry's id is out of range";
    const LatticeBox q = cells.lattice.quantize(box);
    for (int a = 0; a < 3; ++a) {
      const std::uint32_t lo = q.lo[a] >> shift;
      const std::uint32_t hi = q.hi[a] >> shift;
      if (lo > node.cell[a] || hi < node.cell[a]) return "an entry does not overlap its node's cell";
      const bool owns_min = ((entries.owner[i] >> a) & 1u) != 0;
      if (owns_min != (lo == node.cell[a])) return "an entry's owner bits do not say where its min corner is";
    }
    if (held != nullptr && !(std::equal(q.lo, q.lo + 3, held[i].lo) && std::equal(q.hi, q.hi + 3, held[i].hi))) {
      return "a staying entry's lattice box is not its box's";
    }
  }
  return nullptr;
}

// The first broken invariant of node n's ranges and children.
const char* broken_node(const CellsView& cells, std::uint32_t n, std::uint32_t leaf_size, std::uint32_t stay_size) {
  const Node& node = cells.nodes[n];
  if (node.stay.begin > node.stay.end || node.stay.end > stay_size) return "a node's staying range is out of bounds";
  if (node.leaf.begin > node.leaf.end || node.leaf.end > leaf_size) return "a node's leaf range is out of bounds";
  if (node.is_leaf()) return nullptr;
  if (node.leaf.size() != 0) return "an inner node holds leaf entries";
  if (node.first_child <= n || std::uint64_t{node.first_child} + count_bits(node.child_mask) > cells.nodes.size()) {
    return "a node's children are not after it in the node array";
  }
  std::uint32_t child = node.first_child;
  for (std::uint32_t index = 0; index < 64; ++index) {
    if (!node.has_child(index)) continue;
    const Node& c = cells.nodes[child++];
    if (c.level != node.level + 1 || c.cell != child_cell(node.cell, index)) {
      return "a child is not at the cell its index says";
    }
  }
  return nullptr;
}

}  // namespace

const char* broken_cell_invariant(const CellsView& cells, std::uint32_t id_limit) {
  if (cells.leaf.size() < kKernelPadding || cells.stay.size() < kKernelPadding) return "the entry arrays lack their padding";
  const std::uint32_t leaf_size = cells.leaf.size() - kKernelPadding;
  const std::uint32_t stay_size = cells.stay.size() - kKernelPadding;
  if (cells.stay_lattice.size() < stay_size) return "a staying entry has no lattice box";
  // Per entry, how many nodes hold it. Kept per thread, so that a warm frame's check allocates
  // nothing (the allocation tests run in checking builds too).
  thread_local std::vector<std::uint8_t> leaf_held;
  thread_local std::vector<std::uint8_t> stay_held;
  leaf_held.assign(leaf_size, 0);
  stay_held.assign(stay_size, 0);
  const auto hold = [](std::vector<std::uint8_t>& held, CellRange range) {
    bool once = true;
    for (std::uint32_t i = range.begin; i < range.end; ++i) once &= held[i]++ == 0;
    return once;
  };
  std::uint32_t cells_of_two = 0;
  for (std::uint32_t n = 0; n < cells.nodes.size(); ++n) {
    if (const char* problem = broken_node(cells, n, leaf_size, stay_size)) return problem;
    const Node& node = cells.nodes[n];
    const char* problem = broken_entry(cells, cells.stay, node.stay, node, id_limit, cells.stay_lattice.data());
    if (problem == nullptr) problem = broken_entry(cells, cells.leaf, node.leaf, node, id_limit, nullptr);
    if (problem != nullptr) return problem;
    if (!hold(stay_held, node.stay)) return "two nodes' staying ranges overlap";
    if (!hold(leaf_held, node.leaf)) return "two leaves' ranges overlap";
    if (node.leaf.size() > cells.sweep_threshold &&
        !std::is_sorted(cells.leaf.lo[0].data() + node.leaf.begin, cells.leaf.lo[0].data() + node.leaf.end)) {
      return "a leaf to sweep is not in order of min x";
    }
    cells_of_two += node.leaf.size() >= 2;
  }
  const auto all_held = [](const std::vector<std::uint8_t>& held) {
    return std::find(held.begin(), held.end(), std::uint8_t{0}) == held.end();
  };
  if (!all_held(leaf_held)) return "a leaf entry is in no leaf";
  if (!all_held(stay_held)) return "a staying entry is in no node";
  if (cells.leaf_cells.size() != cells_of_two) return "leaf_cells does not list every leaf of two entries or more";
  for (const CellRange& c : cells.leaf_cells) {
    if (c.end > leaf_size || c.size() < 2) return "leaf_cells lists a range that is no leaf of two entries";
  }
  return nullptr;
}

}  // namespace agrid::detail
