#pragma once
// Grid::Impl: the grid's flat arrays and the scratch memory kept between frames.

#include <array>
#include <cstdint>
#include <vector>

#include "agrid/grid.h"
#include "entries.h"
#include "key_buffer.h"
#include "lattice.h"
#include "leaf_kernel.h"
#include "split_rules.h"

namespace agrid {

namespace detail {

/// One cell of the grid. Nodes are stored breadth first; the children of a node are
/// contiguous, in ascending order of their index x + 4y + 16z within the parent.
struct Node {
  std::uint32_t cell[3];        ///< Cell coordinates at `level` (lattice >> level_shift).
  std::uint32_t level;          ///< 0 for the root.
  std::uint64_t child_mask;     ///< Bit x + 4y + 16z set iff that child exists; 0 for a leaf.
  std::uint32_t first_child;    ///< Index of the lowest existing child.
  std::uint32_t stay_begin;     ///< Staying entries: too large to descend, tested against
  std::uint32_t stay_end;       ///< the whole subtree.
  std::uint32_t leaf_begin;     ///< Leaf entries (empty for inner nodes).
  std::uint32_t leaf_end;

  [[nodiscard]] bool is_leaf() const noexcept { return child_mask == 0; }
};

/// A node of the level being split, with its entries in the level's work array.
struct PendingNode {
  std::uint32_t node;
  std::uint32_t begin;
  std::uint32_t end;
};

}  // namespace detail

struct Grid::Impl {
  Config config;
  detail::Lattice lattice;
  std::vector<detail::Node> nodes;
  detail::EntryArrays leaf;                     ///< Entries of all leaves, then kernel padding.
  std::vector<detail::CellRange> leaf_cells;    ///< Leaves holding two entries or more.
  detail::EntryArrays stay;                     ///< Staying entries of all nodes, then padding.
  std::vector<detail::LatticeBox> stay_lattice; ///< Lattice boxes of the staying entries.
  GridStats stats;

  // Build scratch, reused between frames.
  detail::UninitializedVector<detail::WorkEntry> level_entries;  ///< Boxes of the level being split.
  detail::UninitializedVector<detail::WorkEntry> next_entries;   ///< Boxes of the level below ...
  std::uint32_t next_count = 0;                  ///< ... of which this many are in use.
  detail::UninitializedVector<std::uint16_t> child_codes;        ///< Per entry: its ChildCoder code for the split.
  detail::UninitializedVector<std::uint32_t> grandchild_counts;   ///< Per grandchild of the root.
  std::array<std::uint32_t, 4096> grandchild_offsets{};           ///< Scatter positions.
  std::vector<detail::PendingNode> pending;
  std::vector<detail::PendingNode> next_pending;

  // Pair scratch, reused between frames.
  detail::KeyBuffer pair_keys;
  detail::UninitializedVector<std::uint64_t> pair_keys_scratch;
  detail::SweepScratch sweep_scratch;
  std::vector<Pair> pairs_for_visit;             ///< for_each_pair's sorted pairs.

  explicit Impl(const Config& c) : config(c) {}

  void build(std::span<const Box> boxes);
  void build_levels(std::span<const Box> boxes);
  /// Splits the root one level, from the caller's boxes.
  void split_root(std::span<const Box> boxes);
  /// Splits the root straight into its 4,096 grandchildren; false (having changed nothing but
  /// scratch) if a box is too large for them or they would hold too many copies.
  bool split_root_in_two_levels(std::span<const Box> boxes);
  /// The two-level split's scatter of every box to its grandchildren.
  void scatter_to_grandchildren(std::span<const Box> boxes, const std::array<std::uint64_t, 64>& leaf_grandchildren);
  /// Empties the grid, keeping its memory.
  void clear() noexcept;
  /// Makes node p a leaf of the entries `source` holds in [p.begin, p.end).
  template <class Source>
  void make_leaf(const detail::PendingNode& p, const Source& source);
  /// Splits node p, or makes it a leaf if splitting does not pay.
  template <class Source>
  void split(const detail::PendingNode& p, const Source& source);
  /// Child codes of the records [begin, end) (the root's codes are computed as the boxes are
  /// first read).
  void compute_child_codes(const detail::WorkEntry* entries, std::uint32_t begin, std::uint32_t end,
                           std::uint32_t child_shift, const std::uint32_t base[3]);
  /// Splits the pending nodes level by level until every node is a leaf or inner node.
  void split_pending_levels();
  /// Pads the entry arrays for the kernels and fills in the stats.
  void finish();

  /// Adds the subtree of the cell at (cell, level), holding `records` (with owner bits relative
  /// to that cell), to the grid, which becomes a forest; returns its root's node index. Call
  /// clear() before the first and finish() after the last.
  std::uint32_t add_subtree(std::span<const detail::WorkEntry> records, const std::uint32_t cell[3], std::uint32_t level);
  void collect_pair_keys();
  void sort_pairs(std::vector<Pair>& out);

  /// What for_each_range calls: entries, a range of them, and the query's owner bits there.
  using RangeVisitor = FunctionRef<const detail::EntryArrays&, detail::CellRange, std::uint8_t>;

  /// Calls `visit` with every non-empty range of entries in the subtree of `node` that may
  /// overlap a box of lattice range `q`: the staying entries of each node entered (the first
  /// node's own only when `include_node_stays`) and the entries of each leaf entered. Stops
  /// when visit returns false.
  bool for_each_range(std::uint32_t node, const detail::LatticeBox& q, bool include_node_stays,
                      RangeVisitor visit) const;

  /// Calls `visit` with the entries of the subtree of `node` that the segment hits.
  bool segment_subtree(std::uint32_t node, const Segment& segment, FunctionRef<std::uint32_t> visit) const;

  [[nodiscard]] std::size_t bytes_held() const noexcept;
};

}  // namespace agrid
