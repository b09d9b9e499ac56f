#pragma once
// Tree::Impl: the coarse tree, its task grids, and the scratch memory kept between frames.

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "per_thread.h"

#include "agrid/grid.h"
#include "agrid/tree.h"
#include "grid_impl.h"
#include "segment_sort.h"

namespace agrid {

namespace detail {

/// Where a coarse leaf's entries are: the level's records, the next level's, or (the root
/// alone, when it cannot split) the caller's boxes.
enum class LeafSource : std::uint8_t { level, next_level, input };

/// A coarse cell small enough (or impossible to split) to become one subtree of a task's grid.
struct CoarseLeaf {
  std::uint32_t node;
  LeafSource source;
  std::uint32_t begin;
  std::uint32_t count;
  std::uint64_t cost;  ///< Estimated work, for load balancing.
};

/// A task: consecutive coarse leaves [first_leaf, end_leaf) of one level, built into one grid.
struct TreeTask {
  std::uint32_t first_leaf;
  std::uint32_t end_leaf;
  std::uint64_t entries;
  std::uint64_t cost;  ///< Estimated work, for load balancing.
};

/// For a coarse leaf: the task grid that holds it and its subtree's root node there.
struct LeafPlace {
  std::uint32_t grid;
  std::uint32_t root;
};
inline constexpr LeafPlace kNotALeaf{std::numeric_limits<std::uint32_t>::max(), 0};

/// Entries [begin, end) of one pending coarse node: the unit of parallel coding and scattering.
struct Chunk {
  std::uint32_t pending;
  std::uint32_t begin;
  std::uint32_t end;
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
  detail::Lattice lattice;
  GridStats stats;
  std::span<const Box> input;                    ///< The boxes of the build under way.
  std::vector<detail::Node> nodes;               ///< The coarse tree, breadth first.
  std::vector<detail::LeafPlace> places;         ///< Per coarse node.
  detail::EntryArrays stay;                      ///< Staying entries of coarse nodes, then padding.
  std::vector<detail::LatticeBox> stay_lattice;  ///< Their lattice boxes.
  std::vector<std::unique_ptr<Grid>> grids;      ///< One per task, kept between builds.
  std::vector<std::uint8_t> oversized;           ///< Per grid: give its memory back before reuse.
  std::uint32_t tasks_used = 0;

  // Coarse level scratch, reused between frames.
  detail::UninitializedVector<detail::WorkEntry> level_entries;
  detail::UninitializedVector<detail::WorkEntry> next_entries;
  std::uint32_t next_count = 0;
  detail::UninitializedVector<std::uint16_t> codes;        ///< Per entry of the level.
  std::vector<detail::PendingNode> pending;
  std::vector<detail::PendingNode> next_pending;
  std::vector<detail::Chunk> chunks;
  detail::UninitializedVector<std::uint32_t> chunk_counts; ///< Per chunk and child: copies, then write positions.
  std::vector<std::uint32_t> chunk_stays;                  ///< Per chunk: staying entries, then write position.
  std::vector<std::uint32_t> chunk_invalid;                ///< Per chunk (root): invalid boxes.
  std::vector<std::uint32_t> chunk_oversize;               ///< Per chunk (root): oversize boxes.
  std::vector<std::uint32_t> totals;                       ///< Per child of one pending node.
  std::vector<detail::CoarseLeaf> leaves;                  ///< The coarse leaves of one level.
  std::vector<detail::TreeTask> level_tasks;
  std::vector<std::uint32_t> task_order;

  // Pair scratch.
  std::vector<detail::StayWork> stay_work;
  std::vector<detail::KeyBuffer> stay_keys;
  detail::PerThread<detail::SweepScratch> sweep_scratch;
  std::vector<std::span<const std::uint64_t>> segments;
  detail::SegmentSortScratch sort_scratch;

  explicit Impl(const Config& c) : config(c) {}

  void build(std::span<const Box> boxes);
  void clear() noexcept;
  /// The root's split: into its grandchildren if that pays, else into its children.
  void split_root();
  /// Splits the pending nodes, whose records are in level_entries.
  void split_pending();
  /// Codes and counts the entries of every chunk, in parallel.
  template <class Coding, class Source>
  void code_chunks(const Coding& coding, const Source& source);
  /// Creates the children of pending node p (or makes it a coarse leaf) from the chunk counts,
  /// and turns the counts into write positions.
  template <class Coding>
  void place_children(const Coding& coding, std::uint32_t p, std::uint32_t first_chunk, std::uint32_t end_chunk);
  /// Writes every chunk's entries to the next level and the staying ones to `stay`, in parallel.
  template <class Coding, class Source>
  void scatter_chunks(const Coding& coding, const Source& source);
  /// Cuts the pending nodes' entries into chunks.
  void make_chunks(std::uint32_t buckets);
  /// Builds this level's coarse leaves into task grids, in parallel, and finds their pairs.
  void run_level_tasks();
  /// Builds task t of this level into its grid and finds its pairs.
  void run_task(std::uint32_t t);
  void finish_stats();

  /// Appends the keys of staying box `s` of coarse node `node` with everything below the node.
  void stay_pairs_below(std::uint32_t node, std::uint32_t s, detail::KeyBuffer& keys) const;
  void find_pairs(std::vector<Pair>& out);

  [[nodiscard]] static Grid::Impl& grid_impl(Grid& grid) noexcept { return *grid.impl_; }
  [[nodiscard]] std::size_t bytes_held() const;
};

}  // namespace agrid
