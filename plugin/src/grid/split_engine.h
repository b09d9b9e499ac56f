#pragma once
// SplitEngine: the one builder of cells. It splits cells into 4 x 4 x 4 children level by
// level, for the grid (one thread, small cells become leaves) and for the tree of grids (all
// threads, small cells are handed out as tasks).

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "agrid/box.h"
#include "agrid/config.h"
#include "common/uninitialized_vector.h"
#include "grid/child_code.h"
#include "grid/entries.h"
#include "grid/lattice.h"
#include "grid/leaf_kernel.h"
#include "grid/min_x_order.h"

namespace agrid::detail {

/// Set bits of x. Plain x86-64 has no popcount instruction and std::popcount would call into
/// libgcc; this is the branch-free bit-slicing count, inlined.
[[nodiscard]] constexpr std::uint32_t count_bits(std::uint64_t x) noexcept {
  x -= (x >> 1) & 0x5555555555555555ull;
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<std::uint32_t>((x * 0x0101010101010101ull) >> 56);
}

/// One cell. Nodes are stored breadth first; the children of a node are contiguous, in
/// ascending order of their index x + 4y + 16z within the parent.
struct Node {
  CellCoords cell;              ///< Cell coordinates at `level`.
  std::uint32_t level;          ///< 0 for the root.
  std::uint64_t child_mask;     ///< Bit x + 4y + 16z set iff that child exists; 0 for a leaf.
  std::uint32_t first_child;    ///< Index of the lowest existing child.
  CellRange stay;               ///< Staying entries: too large to descend, tested against the whole subtree.
  CellRange leaf;               ///< Leaf entries (empty for inner nodes).

  [[nodiscard]] bool is_leaf() const noexcept { return child_mask == 0; }
  [[nodiscard]] bool has_child(std::uint32_t index) const noexcept { return ((child_mask >> index) & 1u) != 0; }
  /// The node index of child `index`, which exists.
  [[nodiscard]] std::uint32_t child(std::uint32_t index) const noexcept {
    return first_child + count_bits(child_mask & ((std::uint64_t{1} << index) - 1));
  }
};

/// A node waiting to be split, with its entries [begin, end) in the level's records.
struct PendingNode {
  std::uint32_t node;
  std::uint32_t begin;
  std::uint32_t end;
};

/// What the engine does with a cell it stops splitting.
enum class Finish : std::uint8_t {
  leaf,      ///< It becomes a leaf: its entries are written to the leaf arrays (the grid).
  hand_out,  ///< It is listed in finished_cells(), its entries left where they are (the tree).
};

/// How the passes of a split run over their chunks of entries.
enum class Execution : std::uint8_t { sequential, parallel };

/// Where a handed-out cell's entries are.
enum class CellSource : std::uint8_t {
  level,       ///< The current level's records: a cell that split would not pay for.
  next_level,  ///< The next level's records: a child small enough, or at the deepest level.
  input,       ///< The caller's boxes: the root, which would not split.
};

/// A cell the engine stopped splitting (Finish::hand_out).
struct FinishedCell {
  std::uint32_t node;
  CellSource source;
  std::uint32_t begin;
  std::uint32_t count;
  bool small;  ///< At most the engine's capacity: it splits well; else all its entries meet.
};

/// Entries [begin, end) of one pending node: the unit of coding and scattering.
struct Chunk {
  std::uint32_t pending;
  std::uint32_t begin;
  std::uint32_t end;
  std::uint32_t staying = 0;   ///< Staying entries, then where the first of them is written.
  std::uint32_t invalid = 0;   ///< Invalid boxes.
  std::uint32_t oversize = 0;  ///< Boxes too large for the root's children.
};

/// Builds cells from boxes: the root from the caller's boxes (split into its children, or
/// straight into its grandchildren when that pays), then every pending cell, one level at a
/// time. Each split codes its entries (ChildCoder), counts them per child, places the children
/// and scatters the entries, in chunks run by the chosen Execution.
class SplitEngine {
 public:
  /// Cells of more than `capacity` entries are split (leaf_capacity for the grid,
  /// tree_task_entries for the tree).
  SplitEngine(const Config& config, std::uint32_t capacity, Finish finish, Execution execution);

  /// Forgets every cell, keeping the memory.
  void clear() noexcept;
  /// Sets the lattice the cells live on (fit_lattice, or a tree's for its task grids).
  void set_lattice(const Lattice& lattice) noexcept { lattice_ = lattice; }

  /// Makes the root (node 0) and splits it once, from the caller's boxes, which must outlive
  /// the next advance().
  void split_root(std::span<const Box> boxes);
  /// Adds the cell at (cell, level) holding `records` (owner bits relative to it) as the root of
  /// a new subtree and splits it once; returns the root's node index. `records` must outlive
  /// the next advance().
  std::uint32_t split_subtree_root(std::span<const WorkEntry> records, const CellCoords& cell, std::uint32_t level);
  /// Splits every pending cell once.
  void split_level();
  /// Makes the level just split the current one: its children are the pending cells.
  void advance() noexcept;
  /// Splits and advances until no cell is pending.
  void split_all_levels();
  [[nodiscard]] bool has_pending() const noexcept { return !pending_.empty(); }

  /// Cells handed out by the splits since the last advance().
  [[nodiscard]] std::span<const FinishedCell> finished_cells() const noexcept { return finished_; }
  /// The entries of a handed-out cell (null for CellSource::input).
  [[nodiscard]] const WorkEntry* records(const FinishedCell& cell) const noexcept;

  /// Appends kernel padding to the leaf and staying entry arrays; call when the build is done.
  void pad();

  [[nodiscard]] const Lattice& lattice() const noexcept { return lattice_; }
  [[nodiscard]] const Config& config() const noexcept { return config_; }
  [[nodiscard]] const std::vector<Node>& nodes() const noexcept { return nodes_; }
  [[nodiscard]] const EntryArrays& leaf_entries() const noexcept { return leaf_; }
  /// Leaves holding two entries or more.
  [[nodiscard]] std::span<const CellRange> leaf_cells() const noexcept { return leaf_cells_; }
  [[nodiscard]] const EntryArrays& stay_entries() const noexcept { return stay_; }
  /// Lattice boxes of the staying entries.
  [[nodiscard]] const std::vector<LatticeBox>& stay_lattice() const noexcept { return stay_lattice_; }

  [[nodiscard]] std::uint32_t depth() const noexcept { return depth_; }
  /// Boxes of the root that are invalid (they take part in nothing).
  [[nodiscard]] std::uint32_t invalid_boxes() const noexcept { return invalid_boxes_; }
  /// Boxes of the root too large for its children.
  [[nodiscard]] std::uint32_t oversize_boxes() const noexcept { return oversize_boxes_; }
  [[nodiscard]] std::size_t bytes_held() const noexcept;

 private:
  template <class Coding, class Source>
  void split_batch(const Coding& coding, const Source& source, std::uint32_t first, std::uint32_t end);
  /// The root's split into its grandchildren, if a sample and then the count say it pays.
  template <class Source>
  bool try_two_levels(const Source& source, std::span<const Box> boxes);
  void make_chunks(std::uint32_t first, std::uint32_t end, std::uint32_t buckets);
  template <class Coding, class Source>
  void code_chunks(const Coding& coding, const Source& source);
  template <class Coding, class Source>
  void place_batch(const Coding& coding, const Source& source);
  /// Creates the children of pending cell p (or finishes it unsplit) from its chunks' counts,
  /// and turns the counts into write positions.
  template <class Coding, class Source>
  void place_children(const Coding& coding, const Source& source, std::uint32_t p, std::uint32_t first_chunk,
                      std::uint32_t end_chunk);
  /// Finishes cell p unsplit: a leaf of its present entries, or a handed-out cell.
  template <class Source>
  void finish_unsplit(const PendingNode& p, const Source& source);
  /// Whether a cell of `count` entries at `level` is finished rather than split: small enough,
  /// at the deepest level, or (for the grid) cheaper to sweep than to split.
  [[nodiscard]] bool finishes(std::uint32_t count, std::uint32_t level) const noexcept;
  /// Adds a child of `count` entries; returns where its first entry goes: in the leaf entries
  /// (is_leaf set) or in the next level's records.
  std::uint32_t add_child(const CellCoords& cell, std::uint32_t level, std::uint32_t count, bool& is_leaf);
  template <class Coding, class Source>
  void scatter_chunks(const Coding& coding, const Source& source);
  /// Writes the leaf entries the last scatter staged into the leaf arrays, in one sequential pass.
  void unstage_leaf_entries() noexcept;
  template <class Body>
  void for_each_chunk(Body&& body) const;

  Config config_;
  std::uint32_t capacity_;
  Finish finish_;
  Execution execution_;

  Lattice lattice_;
  std::vector<Node> nodes_;
  EntryArrays leaf_;                    ///< Entries of all leaves, then kernel padding.
  std::vector<CellRange> leaf_cells_;
  EntryArrays stay_;                    ///< Staying entries of all nodes, then padding.
  std::vector<LatticeBox> stay_lattice_;
  std::vector<FinishedCell> finished_;
  std::uint32_t depth_ = 0;
  std::uint32_t invalid_boxes_ = 0;
  std::uint32_t oversize_boxes_ = 0;

  // Scratch, reused between builds.
  UninitializedVector<WorkEntry> level_entries_;  ///< Records of the pending cells.
  UninitializedVector<WorkEntry> next_entries_;   ///< Records of their children ...
  std::uint32_t next_count_ = 0;                  ///< ... of which this many are in use.
  std::vector<PendingNode> pending_;
  std::vector<PendingNode> next_pending_;
  UninitializedVector<std::uint16_t> codes_;      ///< Per record of the batch: its code's bits ...
  std::uint32_t codes_begin_ = 0;                 ///< ... from this record on.
  std::vector<Chunk> chunks_;
  UninitializedVector<std::uint32_t> chunk_counts_;  ///< Per chunk and child: copies, then write positions.
  std::vector<std::uint32_t> totals_;                ///< Per child of the node being placed.
  std::vector<std::uint64_t> leaf_buckets_;          ///< Per pending node of the batch: children that are leaves.
  std::uint32_t batch_first_ = 0;                    ///< The batch's first pending node.
  std::uint32_t bucket_words_ = 1;                   ///< Words of leaf_buckets_ per pending node.
  // A scatter writes leaf entries as records, one stream a child, into this buffer, then copies
  // them into the leaf arrays' eight streams in order: writing the eight streams of every child
  // at once spilled the loop's pointers and cut every stream (measured).
  UninitializedVector<WorkEntry> staged_leaf_entries_;  ///< Leaf entries [staged_leaf_begin_, staged_leaf_end_).
  std::uint32_t staged_leaf_begin_ = 0;
  std::uint32_t staged_leaf_end_ = 0;
  std::vector<std::uint32_t> present_;  ///< A leaf's present entries ...
  std::vector<std::uint32_t> order_;    ///< ... in order of min x ...
  MinXOrder min_x_order_;               ///< ... as sorted by this.
};

}  // namespace agrid::detail
