#pragma once
// GridCore: one grid's cells (built by the split engine), its pair search and its queries.

#include <cstdint>
#include <span>
#include <vector>

#include "agrid/box.h"
#include "agrid/callback.h"
#include "agrid/config.h"
#include "agrid/pair.h"
#include "agrid/segment.h"
#include "agrid/stats.h"
#include "grid/key_buffer.h"
#include "grid/leaf_kernel.h"
#include "grid/split_engine.h"

namespace agrid::detail {

/// The grid: a SplitEngine that turns small cells into leaves, the pair keys of its cells, and
/// its box and segment queries. Grid is its public face; the tree of grids holds one per task.
class GridCore {
 public:
  explicit GridCore(const Config& config);

  /// Rebuilds the grid over `boxes` (see Grid::build).
  void build(std::span<const Box> boxes);

  /// Empties the grid, keeping its memory; the next cells are added on `lattice`.
  void start_forest(const Lattice& lattice) noexcept;
  /// Adds the subtree of the cell at (cell, level) holding `records` (owner bits relative to
  /// it) to the forest; returns its root's node index.
  std::uint32_t add_subtree(std::span<const WorkEntry> records, const CellCoords& cell, std::uint32_t level);
  /// Ends a forest of boxes with ids below `id_limit`: pads the entry arrays for the kernels and
  /// fills in the stats.
  void finish(std::uint32_t id_limit);

  /// Finds the keys (pair_key) of every overlapping pair; pair_keys() holds them until the next call.
  void collect_pair_keys();
  [[nodiscard]] std::span<std::uint64_t> pair_keys() noexcept { return pair_keys_.keys(); }
  /// Grid::find_pairs: collects the pair keys and replaces `out` with their pairs, ascending.
  void find_pairs(std::vector<Pair>& out);

  /// What for_each_range calls: entries, a range of them, and the query's owner bits there.
  using RangeVisitor = FunctionRef<const EntryArrays&, CellRange, std::uint8_t>;
  /// Calls `visit` with every non-empty range of entries in the subtree of `node` that may
  /// overlap a box of lattice range `q`: the staying entries of each node entered (the first
  /// node's own only when `include_node_stays`) and the entries of each leaf entered. Stops
  /// when visit returns false.
  bool for_each_range(std::uint32_t node, const LatticeBox& q, bool include_node_stays, RangeVisitor visit) const;

  /// Grid::for_each_overlap and Grid::for_each_hit.
  void for_each_overlap(const Box& box, FunctionRef<std::uint32_t> visit) const;
  void for_each_hit(const Segment& segment, FunctionRef<std::uint32_t> visit) const;

  [[nodiscard]] const GridStats& stats() const noexcept { return stats_; }
  [[nodiscard]] const Config& config() const noexcept { return config_; }
  /// The cells of the last build (what Grid::for_each_cell reports).
  [[nodiscard]] const SplitEngine& cells() const noexcept { return cells_; }
  [[nodiscard]] std::size_t bytes_held() const noexcept;

 private:
  Config config_;
  SplitEngine cells_;
  GridStats stats_;
  KeyBuffer pair_keys_;
  UninitializedVector<std::uint64_t> pair_keys_scratch_;
  SweepScratch sweep_scratch_;
};

}  // namespace agrid::detail
