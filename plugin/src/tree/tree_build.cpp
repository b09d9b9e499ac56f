// Building the tree of grids: the coarse cells level by level on all threads (the split
// engine); the small cells each level hands out become task grids as soon as it is scattered.

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "common/agrid_assert.h"
#include "common/parallel_for.h"
#include "grid/cell_invariants.h"
#include "tree/tree_impl.h"

namespace agrid {
namespace {

using detail::FinishedCell;

// A task's estimated work, relative: a cell that splits tests each of its entries against
// about leaf_capacity others; one that cannot split tests each against all the others.
[[nodiscard]] std::uint64_t estimated_cost(const Config& config, const FinishedCell& cell) noexcept {
  return std::uint64_t{cell.count} * (cell.small ? config.leaf_capacity : cell.count);
}

/// A task grid's memory is given back when it holds more than kSlotSlackFactor times what its
/// task used (entries of ~32 bytes in the build and the leaves, keys of 8 bytes plus their
/// sort), plus kSlotSlackBytes: enough that a steady scene never reallocates.
constexpr std::size_t kSlotSlackFactor = 4;
constexpr std::size_t kSlotSlackBytes = std::size_t{1} << 18;
constexpr std::size_t kBytesPerEntryUsed = 3 * sizeof(detail::WorkEntry);
constexpr std::size_t kBytesPerKeyUsed = 2 * sizeof(std::uint64_t);

/// Stats are 32-bit; a sum over many task grids stops at the largest value instead of wrapping.
[[nodiscard]] std::uint32_t saturating_add(std::uint32_t a, std::uint32_t b) noexcept {
  return a > std::numeric_limits<std::uint32_t>::max() - b ? std::numeric_limits<std::uint32_t>::max() : a + b;
}

}  // namespace

Tree::Impl::Impl(const Config& c)
    : config(c), coarse(c, c.tree_task_entries, detail::Finish::hand_out, detail::Execution::parallel) {}

void Tree::Impl::clear() noexcept {
  coarse.clear();
  places.clear();
  tasks_used = 0;
  stats = GridStats{};
}

void Tree::Impl::build(std::span<const Box> boxes) {
  clear();  // a refused build leaves an empty tree too, not the last frame's
  if (boxes.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("agrid::Tree::build: at most 2^32 - 2 boxes are supported");
  }
  input = boxes;
  try {
    coarse.set_lattice(detail::fit_lattice(boxes));
    coarse.split_root(boxes);
    for (;;) {  // each level's finished cells become tasks; the others split again
      run_level_tasks();
      coarse.advance();
      if (!coarse.has_pending()) break;
      coarse.split_level();
    }
    coarse.pad();
    AGRID_ASSERT_NO_PROBLEM(detail::broken_cell_invariant(detail::view_of(coarse), static_cast<std::uint32_t>(boxes.size())));
    finish_stats();
  } catch (...) {
    clear();  // out of memory, or too many box copies: an empty tree, never a half-built one
    input = {};
    throw;
  }
  input = {};
}

void Tree::Impl::run_level_tasks() {
  places.resize(coarse.nodes().size());
  const std::span<const FinishedCell> cells = coarse.finished_cells();
  // Consecutive cells make a task until it holds about tree_task_entries entries.
  level_tasks.clear();
  for (std::uint32_t i = 0; i < cells.size(); ++i) {
    if (level_tasks.empty() || level_tasks.back().entries >= config.tree_task_entries) level_tasks.push_back({i, i, 0, 0});
    detail::TreeTask& task = level_tasks.back();
    task.end_cell = i + 1;
    task.entries += cells[i].count;
    task.cost += estimated_cost(config, cells[i]);
  }
  const auto count = static_cast<std::uint32_t>(level_tasks.size());
  while (grids.size() < tasks_used + count) grids.emplace_back(config);
  if (oversized.size() < grids.size()) oversized.resize(grids.size(), 0);

  // The costliest tasks first, so that none is left alone at the end.
  task_order.resize(count);
  std::iota(task_order.begin(), task_order.end(), 0u);
  std::sort(task_order.begin(), task_order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return level_tasks[a].cost != level_tasks[b].cost ? level_tasks[a].cost > level_tasks[b].cost : a < b;
  });
  detail::parallel_for(std::uint32_t{0}, count, [&](std::uint32_t i) { run_task(task_order[i]); }, tbb::simple_partitioner());
  tasks_used += count;
}

void Tree::Impl::run_task(std::uint32_t t) {
  const detail::TreeTask& task = level_tasks[t];
  const std::span<const FinishedCell> cells = coarse.finished_cells();
  const std::uint32_t grid_index = tasks_used + t;
  // Which slot gets a heavy cell changes between frames; a slot that held far more than its
  // last task needed gives its memory back, so that what the tree keeps follows the current
  // frame instead of adding up every slot's worst one.
  if (oversized[grid_index]) {
    grids[grid_index] = detail::GridCore(config);
    oversized[grid_index] = 0;
  }
  detail::GridCore& grid = grids[grid_index];
  if (cells[task.first_cell].source == detail::CellSource::input) {
    grid.build(input);
    places[cells[task.first_cell].node] = {grid_index, 0};
  } else {
    grid.start_forest(coarse.lattice());
    for (std::uint32_t i = task.first_cell; i < task.end_cell; ++i) {
      const FinishedCell& cell = cells[i];
      const detail::Node& node = coarse.nodes()[cell.node];
      places[cell.node] = {grid_index, grid.add_subtree(std::span(coarse.records(cell), cell.count), node.cell, node.level)};
    }
    grid.finish(static_cast<std::uint32_t>(input.size()));
  }
  grid.collect_pair_keys();
  const GridStats& used_stats = grid.stats();
  const std::size_t used = std::size_t{used_stats.leaf_entries + used_stats.staying_entries} * kBytesPerEntryUsed +
                           grid.pair_keys().size() * kBytesPerKeyUsed;
  oversized[grid_index] = grid.bytes_held() > kSlotSlackFactor * used + kSlotSlackBytes;
}

void Tree::Impl::finish_stats() {
  const std::vector<detail::Node>& nodes = coarse.nodes();
  stats.boxes = static_cast<std::uint32_t>(input.size());
  stats.tasks = tasks_used;
  stats.nodes = static_cast<std::uint32_t>(nodes.size());
  stats.depth = coarse.depth();
  stats.staying_entries = coarse.stay_entries().size() - detail::kKernelPadding;
  stats.invalid_boxes = coarse.invalid_boxes();
  stats.oversize_boxes = coarse.oversize_boxes();
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    if (places[n].grid != detail::kNotInAGrid) --stats.nodes;  // counted as its grid's root
  }
  for (std::uint32_t t = 0; t < tasks_used; ++t) {
    const GridStats& g = grids[t].stats();
    stats.nodes = saturating_add(stats.nodes, g.nodes);
    stats.leaves = saturating_add(stats.leaves, g.leaves);
    stats.depth = std::max(stats.depth, g.depth);
    stats.leaf_entries = saturating_add(stats.leaf_entries, g.leaf_entries);
    stats.staying_entries = saturating_add(stats.staying_entries, g.staying_entries);
  }
  stats.bytes_held = bytes_held();
}

}  // namespace agrid
