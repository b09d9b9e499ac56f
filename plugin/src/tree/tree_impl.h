#pragma once
// Tree::Impl: the coarse cells, the task grids, and the scratch memory kept between frames.

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "agrid/tree.h"
#include "common/per_thread.h"
#include "grid/grid_core.h"
#include "grid/split_engine.h"
#include "tree/key_run_sort.h"

namespace agrid {

namespace detail {

/// A task: consecutive handed-out coarse cells [first_cell, end_cell) of one level, built into
/// one grid.
struct TreeTask {
  std::uint32_t first_cell;
  std::uint32_t end_cell;
  std::uint64_t entries;
  std::uint64_t cost;  ///< Estimated work, for load balancing.
};

/// The grid of a coarse cell that no task grid holds.
inline constexpr std::uint32_t kNotInAGrid = std::numeric_limits<std::uint32_t>::max();

/// For a handed-out coarse cell: the task grid that holds it and its subtree's root node there.
/// Made by value-initialising (a constant, not a copy of one: copying gcc's stored constant into
/// every new element stalled on store forwarding, measured).
struct CellPlace {
  std::uint32_t grid = kNotInAGrid;
  std::uint32_t root = 0;
};

/// Pairs of the staying entries [begin, end) of a coarse node: among all its staying entries
/// (`self`), or against the node's subtree.
struct StayWork {
  std::uint32_t node;
  std::uint32_t begin;
  std::uint32_t end;
  bool self;
};

}  // namespace detail

struct Tree::Impl {
  Config config;
  detail::SplitEngine coarse;                    ///< Splits on all threads; hands out small cells.
  GridStats stats;
  std::span<const Box> input;                    ///< The boxes of the build under way.
  std::vector<detail::CellPlace> places;         ///< Per coarse node.
  std::vector<detail::GridCore> grids;           ///< One per task, kept between builds.
  std::vector<std::uint8_t> oversized;           ///< Per grid: give its memory back before reuse.
  std::uint32_t tasks_used = 0;
  std::vector<detail::TreeTask> level_tasks;
  std::vector<std::uint32_t> task_order;

  // Pair scratch.
  std::vector<detail::StayWork> stay_work;
  std::vector<detail::KeyBuffer> stay_keys;
  detail::PerThread<detail::SweepScratch> sweep_scratch;
  std::vector<std::span<const std::uint64_t>> key_runs;  ///< Each task's and stay unit's sorted-key run.
  detail::KeyRunSortScratch sort_scratch;

  explicit Impl(const Config& c);

  void build(std::span<const Box> boxes);
  void clear() noexcept;
  /// Builds the cells handed out by the last split into task grids, in parallel, and finds
  /// their pairs.
  void run_level_tasks();
  /// Builds task t of this level into its grid and finds its pairs.
  void run_task(std::uint32_t t);
  void finish_stats();

  /// Appends the keys of staying box `s` of coarse node `node` with everything below the node.
  void stay_pairs_below(std::uint32_t node, std::uint32_t s, detail::KeyBuffer& keys) const;
  void find_pairs(std::vector<Pair>& out);

  [[nodiscard]] std::size_t bytes_held() const;
};

}  // namespace agrid
