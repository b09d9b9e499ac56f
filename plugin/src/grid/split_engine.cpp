// The split engine: code, count, place and scatter, over chunks of a level's entries.

#include "grid/split_engine.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <type_traits>
#include <utility>

#include <tbb/task_arena.h>

#include "common/agrid_assert.h"
#include "common/parallel_for.h"
#include "grid/child_coder.h"

namespace agrid::detail {
namespace {

// The rules of a split: where entries go, when a split pays, the root's two levels.

// The children an entry with spread bits s overlaps, as offsets from its lowest child.
struct SpreadTable {
  std::uint8_t count[8];
  std::uint8_t offset[8][8];
  std::uint8_t axes[8][8];  ///< Axes on which that child is above the lowest one.
};

constexpr SpreadTable make_spread_table() {
  SpreadTable t{};
  for (std::uint32_t s = 0; s < 8; ++s) {
    std::uint8_t n = 0;
    for (std::uint32_t dz = 0; dz <= ((s >> 2) & 1u); ++dz) {
      for (std::uint32_t dy = 0; dy <= ((s >> 1) & 1u); ++dy) {
        for (std::uint32_t dx = 0; dx <= (s & 1u); ++dx) {
          t.axes[s][n] = static_cast<std::uint8_t>(dx | (dy << 1) | (dz << 2));
          t.offset[s][n++] = static_cast<std::uint8_t>(child_index(dx, dy, dz));
        }
      }
    }
    t.count[s] = n;
  }
  return t;
}
inline constexpr SpreadTable kSpread = make_spread_table();

// Splitting a cell pays when its boxes are small beside the children: few stay behind and few
// are copied into several children. Otherwise the cell is finished as a leaf.
[[nodiscard]] inline bool worth_splitting(const Config& config, std::uint32_t entries, std::uint32_t staying,
                                   std::uint32_t copies) noexcept {
  return static_cast<float>(staying) <= config.max_staying_share * static_cast<float>(entries) &&
         static_cast<float>(copies) <= config.max_copies_per_box * static_cast<float>(entries);
}

/// Whether a child of `count` entries at `level` is finished now (a leaf of the grid, a task of
/// the tree) rather than split at the next level: it holds at most `capacity` entries, or it
/// is at the deepest level.
[[nodiscard]] constexpr bool child_is_finished(std::uint32_t count, std::uint32_t capacity, std::uint32_t level) noexcept {
  return count <= capacity || level >= kMaxDepth;
}

/// Most entries a leaf finished for the sweep may hold: the sweep sorts them, and a cell whose
/// boxes all share one x (a stack) costs all against all.
inline constexpr std::uint32_t kSweepLeafMaxEntries = 512;
/// Whether a cell of `count` entries at `level` is cheaper swept than split (Config::sweep_window):
/// the entries a box meets in the sweep are about count x (typical box width / cell width).
/// Splitting would copy every box into the children it overlaps, write them out and test small
/// leaves.
[[nodiscard]] inline bool sweep_pays(const Config& config, const Lattice& lattice, std::uint32_t count,
                                     std::uint32_t level) noexcept {
  if (count > kSweepLeafMaxEntries || config.sweep_window <= 0.0f) return false;
  const double cell_width = lattice.cell_size_root / static_cast<double>(std::uint64_t{1} << (2 * level));
  return static_cast<double>(count) * static_cast<double>(lattice.typical_extent) <=
         static_cast<double>(config.sweep_window) * cell_width;
}

// Where a split or a leaf reads its entries: the records of a level ...
struct RecordSource {
  const WorkEntry* records;

  [[nodiscard]] static constexpr bool present(std::uint32_t) noexcept { return true; }
  [[nodiscard]] const float* bounds(std::uint32_t k) const noexcept { return records[k].lo; }
  [[nodiscard]] const WorkEntry& entry(std::uint32_t k) const noexcept { return records[k]; }
};

// ... or, at the root, the caller's boxes themselves, which saves copying every box once.
struct BoxSource {
  const Box* boxes;

  [[nodiscard]] bool present(std::uint32_t k) const noexcept { return is_valid(boxes[k]); }
  [[nodiscard]] const float* bounds(std::uint32_t k) const noexcept { return &boxes[k].min.x; }
  [[nodiscard]] WorkEntry entry(std::uint32_t k) const noexcept {
    const Box& b = boxes[k];
    return {{b.min.x, b.min.y, b.min.z}, {b.max.x, b.max.y, b.max.z}, k, kOwnAllAxes};
  }
};

/// The root's grandchildren: 16 x 16 x 16 cells of level 2.
inline constexpr std::uint32_t kGrandchildren = 4096;
/// The root is split straight into its grandchildren when it holds more than this many times
/// leaf_capacity boxes (as many as its children): then its children would split too.
inline constexpr std::uint32_t kTwoLevelFactor = 64;

/// Boxes whose grandchild codes are tried before committing to the two-level split.
inline constexpr std::uint32_t kTwoLevelSamples = 1024;

/// Whether a deterministic sample of the boxes says the root's two-level split pays: few boxes
/// would stay with the root, and copies stay within the one-level rule. `coder` codes the
/// root's grandchildren. A sample decides first, so that scenes where it does not pay do not
/// pay for a pass over every box that is then refused.
[[nodiscard]] inline bool sample_says_two_levels_pay(const Config& config, const ChildCoder& coder,
                                                     std::span<const Box> boxes) noexcept {
  const auto count = static_cast<std::uint32_t>(boxes.size());
  std::uint64_t sampled = 0, staying = 0, children = 0, grandchildren = 0;  // copies among each
  for (std::uint32_t i = 0; i < count; i += std::max<std::uint32_t>(1, count / kTwoLevelSamples)) {
    if (!is_valid(boxes[i])) continue;
    const GrandchildCode code = coder.grandchild_code(&boxes[i].min.x);
    ++sampled;
    if (code.stays()) {
      ++staying;
      continue;
    }
    // Axes on which the box also reaches the next child: it spreads from a lowest cell that is
    // the last of its child (low two bits of that axis's 4-bit coordinate set).
    const std::uint32_t spread = code.spread();
    const std::uint32_t last = code.first() & (code.first() >> 1) & 0x111u;
    const std::uint32_t child_axes = spread & ((last & 1u) | ((last >> 3) & 2u) | ((last >> 6) & 4u));
    children += kSpread.count[child_axes];
    grandchildren += kSpread.count[spread];
  }
  // Splitting the root and then every child must pay by the rule a one-level split applies.
  const double limit = config.max_copies_per_box;
  return static_cast<double>(children) <= limit * static_cast<double>(sampled - staying) &&
         static_cast<double>(grandchildren) <= limit * static_cast<double>(children) &&
         static_cast<float>(staying) <= config.max_staying_share * static_cast<float>(sampled);
}

/// Entries coded and scattered as one unit of parallel work: each thread gets about this many
/// chunks of a level, so that a slow one can be balanced by the others ...
constexpr std::uint32_t kChunksPerThread = 4;
/// ... but no chunk is smaller than this, or the per-chunk counters of the children would cost
/// more than the entries. Fewer, larger chunks scatter faster: each chunk writes its own slice
/// of every child, and slices cut the children's write streams. The layout of the entries does
/// not depend on the chunks: a child's entries are in ascending order of the level's entries.
constexpr std::uint32_t kMinChunkEntries = 16384;

/// Bits in one word of a batch's leaf-bucket set.
constexpr std::uint32_t kBucketsPerWord = 64;

// The offsets, among the root's grandchildren x + 16y + 256z, of the cells an entry with spread
// bits s overlaps, from its lowest one: a table, as kSpread.offset is for children (computing
// them in the counting loop cost a store-forwarding stall per copy, measured).
struct GrandchildSpread {
  std::uint16_t offset[8][8];
};

constexpr GrandchildSpread make_grandchild_spread() {
  GrandchildSpread t{};
  for (std::uint32_t s = 0; s < 8; ++s) {
    for (std::uint32_t i = 0; i < kSpread.count[s]; ++i) {
      const std::uint32_t axes = kSpread.axes[s][i];
      t.offset[s][i] = static_cast<std::uint16_t>((axes & 1u) + 16 * ((axes >> 1) & 1u) + 256 * (axes >> 2));
    }
  }
  return t;
}
inline constexpr GrandchildSpread kGrandchildSpread = make_grandchild_spread();

// A split of a cell into its 64 children, coded by ChildCoder::code.
struct OneLevel {
  using Code = ChildCode;
  static constexpr std::uint32_t kBuckets = 64;
  static constexpr bool kTwoLevels = false;
  std::uint32_t big_span;

  [[nodiscard]] ChildCoder coder(const Lattice& lattice, const Node& node) const noexcept {
    const std::uint32_t base[3] = {node.cell[0] << 2, node.cell[1] << 2, node.cell[2] << 2};
    return ChildCoder(lattice, level_shift(node.level + 1), base, big_span);
  }
  [[nodiscard]] static Code code(const ChildCoder& c, const float* bounds) noexcept { return c.code(bounds); }
  /// An invalid box stays (the scatter tells it apart).
  [[nodiscard]] static Code invalid() noexcept { return ChildCode(ChildCode::kStayFlag); }
  // At the root, boxes that stay are the oversize ones.
  [[nodiscard]] static bool oversize(Code c, const float*) noexcept { return c.stays(); }
  [[nodiscard]] static std::uint32_t owner_bits(Code c) noexcept { return c.owner_bits(); }
  /// The bucket of copy i of an entry with this spread, relative to its lowest one.
  [[nodiscard]] static std::uint32_t offset(std::uint32_t spread, std::uint32_t i) noexcept { return kSpread.offset[spread][i]; }
};

// The root's split straight into its 4,096 grandchildren, coded by ChildCoder::grandchild_code.
struct TwoLevels {
  using Code = GrandchildCode;
  static constexpr std::uint32_t kBuckets = kGrandchildren;
  static constexpr bool kTwoLevels = true;
  ChildCoder root_children;  ///< Tells the oversize boxes among those that stay.
  std::uint32_t big_span;

  [[nodiscard]] ChildCoder coder(const Lattice& lattice, const Node&) const noexcept {
    const std::uint32_t base[3] = {0, 0, 0};
    return ChildCoder(lattice, level_shift(2), base, big_span);
  }
  [[nodiscard]] static Code code(const ChildCoder& c, const float* bounds) noexcept { return c.grandchild_code(bounds); }
  [[nodiscard]] static Code invalid() noexcept { return GrandchildCode(GrandchildCode::kRefusedFlag); }
  [[nodiscard]] bool oversize(Code, const float* bounds) const noexcept { return root_children.code(bounds).stays(); }
  [[nodiscard]] static std::uint32_t owner_bits(Code) noexcept { return kOwnAllAxes; }  // nothing is clipped at the root
  [[nodiscard]] static std::uint32_t offset(std::uint32_t spread, std::uint32_t i) noexcept {
    return kGrandchildSpread.offset[spread][i];
  }
};

template <class T>
void grow_to(T& v, std::size_t n) {
  if (v.size() < n) v.resize(std::max(n, 2 * v.size()));
}

template <class T>
[[nodiscard]] std::size_t capacity_bytes(const T& v) noexcept {
  return v.capacity() * sizeof(typename T::value_type);
}

[[nodiscard]] std::uint32_t sum(const std::vector<Chunk>& chunks, std::uint32_t Chunk::*field) noexcept {
  std::uint32_t total = 0;
  for (const Chunk& c : chunks) total += c.*field;
  return total;
}

}  // namespace

SplitEngine::SplitEngine(const Config& config, std::uint32_t capacity, Finish finish, Execution execution)
    : config_(config), capacity_(capacity), finish_(finish), execution_(execution) {}

void SplitEngine::clear() noexcept {
  nodes_.clear();
  leaf_.clear();
  leaf_cells_.clear();
  stay_.clear();
  stay_lattice_.clear();
  finished_.clear();
  pending_.clear();
  next_pending_.clear();
  next_count_ = 0;
  depth_ = 0;
  invalid_boxes_ = 0;
  oversize_boxes_ = 0;
}

void SplitEngine::split_root(std::span<const Box> boxes) {
  const auto count = static_cast<std::uint32_t>(boxes.size());
  if (finish_ == Finish::leaf) {
    // A first frame sizes the arrays for the common case at once (every box in a leaf, a
    // quarter of them copied into a second cell) instead of growing them step by step. Only
    // the root's children's records: the next level's are sized when a level needs them (a
    // uniform scene's grandchildren are sweep leaves, so it needs none: 40 bytes a box less).
    const auto expected = static_cast<std::uint32_t>(std::min<std::uint64_t>(
        std::uint64_t{count} + count / 4, std::numeric_limits<std::uint32_t>::max() - 1 - kKernelPadding));
    grow_to(next_entries_, expected);
    leaf_.reserve(expected + kKernelPadding);
  }
  nodes_.push_back(Node{});
  pending_.assign(1, PendingNode{0, 0, count});
  const BoxSource source{boxes.data()};
  // Many boxes: the root's children would all split again, so distribute the boxes straight to
  // the root's grandchildren (one pass less over every box), unless too many are too large.
  const bool two_levels = count > kTwoLevelFactor * config_.leaf_capacity && try_two_levels(source, boxes);
  if (!two_levels) split_batch(OneLevel{config_.big_span}, source, 0, 1);
  invalid_boxes_ = sum(chunks_, &Chunk::invalid);
  oversize_boxes_ = sum(chunks_, &Chunk::oversize);
}

template <class Source>
bool SplitEngine::try_two_levels(const Source& source, std::span<const Box> boxes) {
  const std::uint32_t origin[3] = {0, 0, 0};
  const TwoLevels coding{ChildCoder(lattice_, level_shift(1), origin, config_.big_span), config_.big_span};
  // Boxes too large for the grandchildren stay with the root (planes, terrain), where they are
  // tested against everything; if they would be more than max_staying_share of the boxes, or
  // the copies too many by the rule a one-level split applies, the root splits one level.
  if (!sample_says_two_levels_pay(config_, coding.coder(lattice_, nodes_[0]), boxes)) return false;
  make_chunks(0, 1, TwoLevels::kBuckets);
  code_chunks(coding, source);
  const auto valid = static_cast<float>(static_cast<std::uint32_t>(boxes.size()) - sum(chunks_, &Chunk::invalid));
  if (static_cast<float>(sum(chunks_, &Chunk::staying)) > config_.max_staying_share * valid) return false;
  place_batch(coding, source);
  scatter_chunks(coding, source);
  return true;
}

std::uint32_t SplitEngine::split_subtree_root(std::span<const WorkEntry> records, const CellCoords& cell,
                                              std::uint32_t level) {
  const auto root = static_cast<std::uint32_t>(nodes_.size());
  const auto count = static_cast<std::uint32_t>(records.size());
  nodes_.push_back(Node{cell, level, 0, 0, {0, 0}, {0, 0}});
  depth_ = std::max(depth_, level);
  pending_.assign(1, PendingNode{root, 0, count});
  const RecordSource source{records.data()};
  if (finishes(count, level)) {
    finish_unsplit(pending_[0], source);
  } else {
    split_batch(OneLevel{config_.big_span}, source, 0, 1);
  }
  return root;
}

bool SplitEngine::finishes(std::uint32_t count, std::uint32_t level) const noexcept {
  return child_is_finished(count, capacity_, level) || (finish_ == Finish::leaf && sweep_pays(config_, lattice_, count, level));
}

void SplitEngine::split_level() {
  const RecordSource source{level_entries_.data()};
  const OneLevel coding{config_.big_span};
  const auto count = static_cast<std::uint32_t>(pending_.size());
  if (execution_ == Execution::parallel) {
    split_batch(coding, source, 0, count);
    return;
  }
  // One cell at a time: its entries are still in cache from coding when they are scattered. A
  // finished cell here is a leaf to sweep (see add_child).
  for (std::uint32_t p = 0; p < count; ++p) {
    const PendingNode& node = pending_[p];
    if (finishes(node.end - node.begin, nodes_[node.node].level)) {
      finish_unsplit(node, source);
    } else {
      split_batch(coding, source, p, p + 1);
    }
  }
}

void SplitEngine::advance() noexcept {
  std::swap(level_entries_, next_entries_);
  std::swap(pending_, next_pending_);
  next_pending_.clear();
  next_count_ = 0;
  finished_.clear();
}

void SplitEngine::split_all_levels() {
  advance();
  while (has_pending()) {
    split_level();
    advance();
  }
}

const WorkEntry* SplitEngine::records(const FinishedCell& cell) const noexcept {
  if (cell.source == CellSource::input) return nullptr;
  return (cell.source == CellSource::level ? level_entries_.data() : next_entries_.data()) + cell.begin;
}

void SplitEngine::pad() {
  leaf_.pad(kKernelPadding);
  stay_.pad(kKernelPadding);
}

template <class Coding, class Source>
void SplitEngine::split_batch(const Coding& coding, const Source& source, std::uint32_t first, std::uint32_t end) {
  make_chunks(first, end, Coding::kBuckets);
  code_chunks(coding, source);
  place_batch(coding, source);
  scatter_chunks(coding, source);
}

void SplitEngine::make_chunks(std::uint32_t first, std::uint32_t end, std::uint32_t buckets) {
  chunks_.clear();
  std::uint32_t size = std::numeric_limits<std::uint32_t>::max();  // one chunk per cell
  if (execution_ == Execution::parallel) {
    const std::uint64_t entries = pending_[end - 1].end - pending_[first].begin;
    const auto threads = static_cast<std::uint64_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
    size = static_cast<std::uint32_t>(std::max<std::uint64_t>(kMinChunkEntries, entries / (threads * kChunksPerThread) + 1));
  }
  for (std::uint32_t p = first; p < end; ++p) {
    for (std::uint32_t at = pending_[p].begin; at < pending_[p].end; at += std::min(size, pending_[p].end - at)) {
      chunks_.push_back({p, at, at + std::min(size, pending_[p].end - at)});
    }
  }
  grow_to(chunk_counts_, chunks_.size() * std::size_t{buckets});
  // A grid splits one cell a batch, so a batch's leaf children are one range (see add_child).
  AGRID_ASSERT(finish_ == Finish::hand_out || end - first == 1);
  batch_first_ = first;
  bucket_words_ = (buckets + kBucketsPerWord - 1) / kBucketsPerWord;
  leaf_buckets_.assign(std::size_t{end - first} * bucket_words_, 0);
}

template <class Body>
void SplitEngine::for_each_chunk(Body&& body) const {
  if (execution_ == Execution::parallel) {
    parallel_for(std::size_t{0}, chunks_.size(), body);
  } else {
    for (std::size_t c = 0; c < chunks_.size(); ++c) body(c);
  }
}

template <class Coding, class Source>
void SplitEngine::code_chunks(const Coding& coding, const Source& source) {
  // Codes from the batch's first record on: a grid's cell reuses the same few cache lines.
  codes_begin_ = chunks_.empty() ? 0 : chunks_.front().begin;
  grow_to(codes_, chunks_.empty() ? 0 : chunks_.back().end - codes_begin_);
  for_each_chunk([&](std::size_t c) {
    const Chunk chunk = chunks_[c];
    const ChildCoder coder = coding.coder(lattice_, nodes_[pending_[chunk.pending].node]);
    std::uint32_t* __restrict counts = chunk_counts_.data() + c * Coding::kBuckets;
    std::fill(counts, counts + Coding::kBuckets, 0u);
    std::uint16_t* __restrict out = codes_.data();
    const std::uint32_t code_at = codes_begin_;
    std::uint32_t staying = 0;
    std::uint32_t invalid = 0;
    std::uint32_t oversize = 0;
    // Coding in a loop of its own: its entries are independent, so it runs at full throughput;
    // fused with the counting it waited on the counters (measured).
    for (std::uint32_t k = chunk.begin; k < chunk.end; ++k) {
      out[k - code_at] = source.present(k) ? Coding::code(coder, source.bounds(k)).bits() : Coding::invalid().bits();
    }
    for (std::uint32_t k = chunk.begin; k < chunk.end; ++k) {
      if (!source.present(k)) {
        ++invalid;
        continue;
      }
      const typename Coding::Code code(out[k - code_at]);
      if (code.stays()) {
        ++staying;
        oversize += coding.oversize(code, source.bounds(k));
        continue;
      }
      const std::uint32_t spread = code.spread();
      if (spread == 0) {  // one copy: most entries below the root
        ++counts[code.first()];
        continue;
      }
      for (std::uint32_t i = 0; i < kSpread.count[spread]; ++i) ++counts[code.first() + Coding::offset(spread, i)];
    }
    chunks_[c].staying = staying;
    chunks_[c].invalid = invalid;
    chunks_[c].oversize = oversize;
  });
}

template <class Coding, class Source>
void SplitEngine::place_batch(const Coding& coding, const Source& source) {
  staged_leaf_begin_ = leaf_.size();
  staged_leaf_end_ = leaf_.size();
  for (std::uint32_t c = 0; c < chunks_.size();) {
    const std::uint32_t p = chunks_[c].pending;
    std::uint32_t end = c + 1;
    while (end < chunks_.size() && chunks_[end].pending == p) ++end;
    place_children(coding, source, p, c, end);
    c = end;
  }
}

template <class Coding, class Source>
void SplitEngine::place_children(const Coding&, const Source& source, std::uint32_t p, std::uint32_t first_chunk,
                                 std::uint32_t end_chunk) {
  const PendingNode node = pending_[p];
  std::uint32_t staying = 0;
  std::uint32_t invalid = 0;
  for (std::uint32_t c = first_chunk; c < end_chunk; ++c) {
    staying += chunks_[c].staying;
    invalid += chunks_[c].invalid;
  }
  // A cell of one chunk (always, for the grid) reads its chunk's counts; each is read before
  // the chunk's write position replaces it.
  const std::uint32_t* totals = chunk_counts_.data() + std::size_t{first_chunk} * Coding::kBuckets;
  if (end_chunk - first_chunk > 1) {
    totals_.assign(Coding::kBuckets, 0);
    for (std::uint32_t c = first_chunk; c < end_chunk; ++c) {
      const std::uint32_t* counts = chunk_counts_.data() + std::size_t{c} * Coding::kBuckets;
      for (std::uint32_t b = 0; b < Coding::kBuckets; ++b) totals_[b] += counts[b];
    }
    totals = totals_.data();
  }
  const std::uint64_t copies = std::accumulate(totals, totals + Coding::kBuckets, std::uint64_t{0});
  AGRID_ASSERT(invalid <= node.end - node.begin && staying <= node.end - node.begin - invalid);
  const std::uint32_t entries = node.end - node.begin - invalid;
  // The two-level split was decided by the caller; a one-level split must pay.
  if (!Coding::kTwoLevels && (finishes(entries, nodes_[node.node].level) ||
                              !worth_splitting(config_, entries, staying, checked_entry_count(copies)))) {
    finish_unsplit(node, source);
    for (std::uint32_t c = first_chunk; c < end_chunk; ++c) chunks_[c].end = chunks_[c].begin;  // nothing to scatter
    return;
  }

  // Staying entries: a slice of `stay_`, each chunk writing its own part in order.
  nodes_[node.node].stay = {stay_.grow(staying), stay_.size()};
  stay_lattice_.resize(stay_.size());
  for (std::uint32_t c = first_chunk, at = nodes_[node.node].stay.begin; c < end_chunk; ++c) {
    at += std::exchange(chunks_[c].staying, at);
  }

  // A child gets a slice of the leaf entries or of the next level's records; each chunk writes
  // its part of every slice, in order.
  std::uint64_t* leaf_bits = leaf_buckets_.data() + std::size_t{p - batch_first_} * bucket_words_;
  const auto place = [&](std::uint32_t bucket, const CellCoords& cell, std::uint32_t level) {
    bool is_leaf = false;
    std::uint32_t at = add_child(cell, level, totals[bucket], is_leaf);
    if (is_leaf) leaf_bits[bucket / kBucketsPerWord] |= std::uint64_t{1} << (bucket % kBucketsPerWord);
    for (std::uint32_t c = first_chunk; c < end_chunk; ++c) {
      at += std::exchange(chunk_counts_[std::size_t{c} * Coding::kBuckets + bucket], at);
    }
  };

  // The children of node n, in ascending index order, from their mask; child b's entries are
  // counted in bucket(b, its cell).
  const auto place_children_of = [&](std::uint32_t n, std::uint64_t mask, auto bucket) {
    const Node at = nodes_[n];
    nodes_[n].child_mask = mask;
    nodes_[n].first_child = static_cast<std::uint32_t>(nodes_.size());
    for (std::uint32_t b = 0; b < 64; ++b) {
      if (!((mask >> b) & 1u)) continue;
      const auto cell = child_cell(at.cell, b);
      place(bucket(b, cell), cell, at.level + 1);
    }
  };
  if constexpr (!Coding::kTwoLevels) {
    std::uint64_t mask = 0;
    for (std::uint32_t b = 0; b < Coding::kBuckets; ++b) mask |= std::uint64_t{totals[b] != 0} << b;
    place_children_of(node.node, mask, [](std::uint32_t b, const CellCoords&) { return b; });
  } else {
    // The root's children that hold grandchildren, then the grandchildren grouped by parent,
    // each group in ascending order: breadth first, as a one-level split at a time makes them.
    std::array<std::uint64_t, 64> grandchild_masks{};
    std::uint64_t child_mask = 0;
    for (std::uint32_t g = 0; g < kGrandchildren; ++g) {
      if (totals[g] == 0) continue;
      const std::uint32_t x = g & 15u, y = (g >> 4) & 15u, z = g >> 8;
      const std::uint32_t child = child_index(x >> 2, y >> 2, z >> 2);
      child_mask |= std::uint64_t{1} << child;
      grandchild_masks[child] |= std::uint64_t{1} << child_index(x & 3u, y & 3u, z & 3u);
    }
    nodes_[node.node].child_mask = child_mask;
    nodes_[node.node].first_child = static_cast<std::uint32_t>(nodes_.size());
    const Node root = nodes_[node.node];  // a copy: the pushes move the nodes
    for (std::uint32_t c = 0; c < 64; ++c) {
      if (root.has_child(c)) nodes_.push_back(Node{child_cell(root.cell, c), 1, 0, 0, {0, 0}, {0, 0}});
    }
    const auto grandchild = [](std::uint32_t, const CellCoords& cell) { return cell[0] + 16 * cell[1] + 256 * cell[2]; };
    for (std::uint32_t c = 0, child = root.first_child; c < 64; ++c) {
      if (root.has_child(c)) place_children_of(child++, grandchild_masks[c], grandchild);
    }
  }
}

std::uint32_t SplitEngine::add_child(const CellCoords& cell, std::uint32_t level, std::uint32_t count,
                                     bool& is_leaf) {
  const auto child = static_cast<std::uint32_t>(nodes_.size());
  nodes_.push_back(Node{cell, level, 0, 0, {0, 0}, {0, 0}});
  depth_ = std::max(depth_, level);
  // A leaf small enough for the all-against-all kernel is scattered straight into the leaf
  // entries; a larger one goes through the next level's records, to be written in order of
  // min x for the sweep (split_level finishes it).
  const bool finished = finishes(count, level);
  if (finished && finish_ == Finish::leaf && count <= config_.sweep_threshold) {
    is_leaf = true;
    const std::uint32_t begin = leaf_.grow(count);
    AGRID_ASSERT(begin == staged_leaf_end_);  // the batch's leaf children are one range
    staged_leaf_end_ = begin + count;
    nodes_[child].leaf = {begin, begin + count};
    if (count >= 2) leaf_cells_.push_back({begin, begin + count});
    return begin;
  }
  const std::uint32_t begin = next_count_;
  next_count_ = checked_entry_count(std::uint64_t{next_count_} + count);
  if (finished && finish_ == Finish::hand_out) {
    finished_.push_back({child, CellSource::next_level, begin, count, count <= capacity_});
  } else {
    next_pending_.push_back({child, begin, next_count_});
  }
  return begin;
}

template <class Source>
void SplitEngine::finish_unsplit(const PendingNode& p, const Source& source) {
  if (finish_ == Finish::hand_out) {
    const CellSource where = std::is_same_v<Source, BoxSource> ? CellSource::input : CellSource::level;
    finished_.push_back({p.node, where, p.begin, p.end - p.begin, false});
    return;
  }
  Node& node = nodes_[p.node];
  node.leaf.begin = leaf_.size();
  if (p.end - p.begin > config_.sweep_threshold) {
    // A leaf the kernel will sweep: written in order of min x.
    present_.clear();
    for (std::uint32_t k = p.begin; k < p.end; ++k) {
      if (source.present(k)) present_.push_back(k);
    }
    // Buckets over the cell's x range: entries copied in from below it fall in the first.
    const Node& cell = nodes_[p.node];
    const double width = lattice_.cell_size_root / static_cast<double>(std::uint64_t{1} << (2 * cell.level));
    const double low = lattice_.origin[0] + static_cast<double>(cell.cell[0]) * width;
    min_x_order_.sort(present_, [&](std::uint32_t k) { return source.bounds(k)[0]; }, static_cast<float>(low),
                      static_cast<float>(low + width), order_);
    const std::uint32_t at = leaf_.grow(static_cast<std::uint32_t>(order_.size()));
    const EntryWriter writer(leaf_);
    for (std::uint32_t i = 0; i < order_.size(); ++i) writer.write(at + i, source.entry(order_[i]));
  } else if constexpr (std::is_same_v<Source, RecordSource>) {
    // Records are all present: one slice, written straight.
    const std::uint32_t at = leaf_.grow(p.end - p.begin) - p.begin;
    const EntryWriter writer(leaf_);
    for (std::uint32_t k = p.begin; k < p.end; ++k) {
      const WorkEntry& r = source.entry(k);
      writer.write(at + k, r.box(), r.id, r.owner);
    }
  } else {
    for (std::uint32_t k = p.begin; k < p.end; ++k) {
      if (!source.present(k)) continue;
      const WorkEntry r = source.entry(k);
      leaf_.push(r.box(), r.id, r.owner);
    }
  }
  node.leaf.end = leaf_.size();
  if (node.leaf.size() >= 2) leaf_cells_.push_back(node.leaf);
}

template <class Coding, class Source>
void SplitEngine::scatter_chunks(const Coding& coding, const Source& source) {
  grow_to(next_entries_, next_count_);
  // A cell's 64 children stage their leaf entries (a buffer in L1 or L2); the root's 4,096
  // grandchildren, when they are leaves, hold a whole small scene: staged, it would be one more
  // pass over memory, so they are written straight.
  constexpr bool kStage = !Coding::kTwoLevels;
  if constexpr (kStage) grow_to(staged_leaf_entries_, staged_leaf_end_ - staged_leaf_begin_);
  for_each_chunk([&](std::size_t c) {
    const Chunk chunk = chunks_[c];
    std::uint32_t* __restrict at = chunk_counts_.data() + c * Coding::kBuckets;
    const std::uint64_t* __restrict leaf_bits = leaf_buckets_.data() + std::size_t{chunk.pending - batch_first_} * bucket_words_;
    WorkEntry* __restrict dst = next_entries_.data();
    const std::uint16_t* __restrict in = codes_.data();
    const std::uint32_t code_at = codes_begin_;
    WorkEntry* __restrict staged = staged_leaf_entries_.data();
    const std::uint32_t staged_begin = staged_leaf_begin_;
    const EntryWriter leaf_writer(leaf_);
    const EntryWriter stay_writer(stay_);
    std::uint32_t stay_at = chunk.staying;
    for (std::uint32_t k = chunk.begin; k < chunk.end; ++k) {
      const typename Coding::Code code(in[k - code_at]);
      if (code.stays()) {
        if (!source.present(k)) continue;
        const WorkEntry r = source.entry(k);
        AGRID_ASSERT(stay_at < stay_.size());
        stay_writer.write(stay_at, r.box(), r.id, r.owner);
        stay_lattice_[stay_at++] = lattice_.quantize(r.box());
        continue;
      }
      const WorkEntry r = source.entry(k);
      const std::uint32_t spread = code.spread();
      const std::uint32_t owner = coding.owner_bits(code);
      // A copy's owner bits: those of the lowest child, less the axes on which this one is higher.
      const auto copy = [&](std::uint32_t bucket, std::uint32_t owner_bits) {
        const std::uint32_t to = at[bucket]++;
        // Whole, not copied then patched: a store into a line just written stalls.
        const WorkEntry entry{{r.lo[0], r.lo[1], r.lo[2]}, {r.hi[0], r.hi[1], r.hi[2]}, r.id, owner_bits};
        if ((leaf_bits[bucket / kBucketsPerWord] >> (bucket % kBucketsPerWord)) & 1u) {
          AGRID_ASSERT(to >= staged_leaf_begin_ && to < staged_leaf_end_);
          if constexpr (kStage) {
            staged[to - staged_begin] = entry;
          } else {
            leaf_writer.write(to, entry.box(), entry.id, entry.owner);
          }
        } else {
          AGRID_ASSERT(to < next_count_);
          dst[to] = entry;
        }
      };
      if (spread == 0) {
        copy(code.first(), owner);
        continue;
      }
      for (std::uint32_t i = 0; i < kSpread.count[spread]; ++i) {
        copy(code.first() + Coding::offset(spread, i), owner & ~kSpread.axes[spread][i]);
      }
    }
  });
  if constexpr (kStage) unstage_leaf_entries();
}

void SplitEngine::unstage_leaf_entries() noexcept {
  const EntryWriter writer(leaf_);
  const WorkEntry* staged = staged_leaf_entries_.data();
  for (std::uint32_t i = staged_leaf_begin_; i < staged_leaf_end_; ++i) {
    writer.write(i, staged[i - staged_leaf_begin_]);
  }
}

std::size_t SplitEngine::bytes_held() const noexcept {
  return capacity_bytes(nodes_) + leaf_.bytes_held() + capacity_bytes(leaf_cells_) + stay_.bytes_held() +
         capacity_bytes(stay_lattice_) + capacity_bytes(finished_) + capacity_bytes(level_entries_) +
         capacity_bytes(next_entries_) + capacity_bytes(pending_) + capacity_bytes(next_pending_) +
         capacity_bytes(codes_) + capacity_bytes(chunks_) + capacity_bytes(chunk_counts_) +
         capacity_bytes(totals_) + capacity_bytes(leaf_buckets_) + capacity_bytes(staged_leaf_entries_) +
         capacity_bytes(present_) + capacity_bytes(order_) + min_x_order_.bytes_held();
}

}  // namespace agrid::detail
