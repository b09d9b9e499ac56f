// Building the tree of grids: the coarse tree level by level, each level's work in parallel;
// its small cells become task grids as soon as their level is scattered.

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

#include <tbb/task_arena.h>

#include "parallel_for.h"
#include "split_rules.h"
#include "tree_impl.h"

namespace agrid {
namespace {

using detail::BoxSource;
using detail::ChildCoder;
using detail::kOwnAllAxes;
using detail::kSpread;
using detail::Node;
using detail::RecordSource;

/// Entries coded and scattered as one unit of parallel work: each thread gets about this many
/// chunks of a level, so that a slow one can be balanced by the others ...
constexpr std::uint32_t kChunksPerThread = 4;
/// ... but no chunk is smaller than this, or the per-chunk counters of the children would cost
/// more than the entries. Fewer, larger chunks scatter faster: each chunk writes its own slice
/// of every child, and slices cut the children's write streams. The layout of the entries does
/// not depend on the chunks: a child's entries are in ascending order of the level's entries.
constexpr std::uint32_t kMinChunkEntries = 16384;

// The offset, among cells x + s*y + s*s*z of side s, of the next cell on the given axes.
template <std::uint32_t kSide>
[[nodiscard]] constexpr std::uint32_t next_cell_offset(std::uint32_t axes) noexcept {
  return (axes & 1u) + kSide * ((axes >> 1) & 1u) + kSide * kSide * (axes >> 2);
}

// A split of a node into its 64 children, coded by ChildCoder::code.
struct OneLevel {
  static constexpr std::uint32_t kBuckets = 64;
  static constexpr std::uint16_t kInvalid = detail::kSkipFlag;
  std::uint32_t big_span;

  [[nodiscard]] ChildCoder coder(const detail::Lattice& lattice, const Node& node) const noexcept {
    const std::uint32_t base[3] = {node.cell[0] << 2, node.cell[1] << 2, node.cell[2] << 2};
    return ChildCoder(lattice, detail::level_shift(node.level + 1), base, big_span);
  }
  [[nodiscard]] static std::uint16_t code(const ChildCoder& c, const float* bounds) noexcept { return c.code(bounds); }
  [[nodiscard]] static bool is_invalid(std::uint16_t c) noexcept { return (c & detail::kSkipFlag) != 0; }
  [[nodiscard]] static bool stays(std::uint16_t c) noexcept { return (c & detail::kStayFlag) != 0; }
  // At the root, boxes that stay are the oversize ones.
  [[nodiscard]] static bool oversize(std::uint16_t c, const float*) noexcept { return stays(c); }
  [[nodiscard]] static std::uint32_t first(std::uint16_t c) noexcept { return c & 63u; }
  [[nodiscard]] static std::uint32_t spread(std::uint16_t c) noexcept { return (c >> detail::kSpreadShift) & 7u; }
  [[nodiscard]] static std::uint32_t start(std::uint16_t c) noexcept { return (c >> detail::kStartShift) & 7u; }
  [[nodiscard]] static std::uint32_t offset(std::uint32_t axes) noexcept { return next_cell_offset<4>(axes); }
};

// The root's split straight into its 4,096 grandchildren, coded by ChildCoder::grandchild_code.
// Invalid boxes are coded as refused; the scatter tells them from staying ones.
struct TwoLevels {
  static constexpr std::uint32_t kBuckets = detail::kGrandchildren;
  static constexpr std::uint16_t kInvalid = detail::kGrandchildRefused;
  ChildCoder root_children;  ///< Tells the oversize boxes among those that stay.
  std::uint32_t big_span;

  [[nodiscard]] ChildCoder coder(const detail::Lattice& lattice, const Node&) const noexcept {
    const std::uint32_t base[3] = {0, 0, 0};
    return ChildCoder(lattice, detail::level_shift(2), base, big_span);
  }
  [[nodiscard]] static std::uint16_t code(const ChildCoder& c, const float* bounds) noexcept {
    return c.grandchild_code(bounds);
  }
  [[nodiscard]] static bool is_invalid(std::uint16_t) noexcept { return false; }
  [[nodiscard]] static bool stays(std::uint16_t c) noexcept { return (c & detail::kGrandchildRefused) != 0; }
  [[nodiscard]] bool oversize(std::uint16_t, const float* bounds) const noexcept {
    return (root_children.code(bounds) & detail::kStayFlag) != 0;
  }
  [[nodiscard]] static std::uint32_t first(std::uint16_t c) noexcept { return c & detail::kGrandchildIndexMask; }
  [[nodiscard]] static std::uint32_t spread(std::uint16_t c) noexcept {
    return (c >> detail::kGrandchildSpreadShift) & 7u;
  }
  [[nodiscard]] static std::uint32_t start(std::uint16_t) noexcept { return kOwnAllAxes; }  // nothing is clipped at the root
  [[nodiscard]] static std::uint32_t offset(std::uint32_t axes) noexcept { return next_cell_offset<16>(axes); }
};

// A task's estimated work, relative: a cell that splits tests each of its entries against
// about leaf_capacity others; one that cannot split tests each against all the others.
[[nodiscard]] std::uint64_t estimated_cost(const Config& config, std::uint32_t entries, bool splits) noexcept {
  return std::uint64_t{entries} * (splits ? config.leaf_capacity : entries);
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

template <class T>
void grow_to(T& v, std::size_t n) {
  if (v.size() < n) v.resize(std::max(n, 2 * v.size()));
}

}  // namespace

void Tree::Impl::clear() noexcept {
  nodes.clear();
  places.clear();
  stay.clear();
  stay_lattice.clear();
  pending.clear();
  leaves.clear();
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
    lattice = detail::fit_lattice(boxes);
    nodes.push_back(Node{{0, 0, 0}, 0, 0, 0, 0, 0, 0, 0});
    places.push_back(detail::kNotALeaf);
    split_root();
    while (!pending.empty()) split_pending();
    stay.pad(detail::kKernelPadding);
    finish_stats();
  } catch (...) {
    clear();  // out of memory, or too many box copies: an empty tree, never a half-built one
    tasks_used = 0;
    throw;
  }
  input = {};
}

void Tree::Impl::make_chunks(std::uint32_t buckets) {
  chunks.clear();
  const std::uint64_t entries = pending.empty() ? 0 : pending.back().end;
  const auto threads = static_cast<std::uint64_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
  const auto size = static_cast<std::uint32_t>(
      std::max<std::uint64_t>(kMinChunkEntries, entries / (threads * kChunksPerThread) + 1));
  for (std::uint32_t p = 0; p < pending.size(); ++p) {
    for (std::uint32_t at = pending[p].begin; at < pending[p].end; at += std::min(size, pending[p].end - at)) {
      chunks.push_back({p, at, at + std::min(size, pending[p].end - at)});
    }
  }
  grow_to(chunk_counts, chunks.size() * std::size_t{buckets});
  chunk_stays.assign(chunks.size(), 0);
  chunk_invalid.assign(chunks.size(), 0);
  chunk_oversize.assign(chunks.size(), 0);
}

template <class Coding, class Source>
void Tree::Impl::code_chunks(const Coding& coding, const Source& source) {
  const std::uint32_t end = pending.empty() ? 0 : pending.back().end;
  grow_to(codes, end);
  detail::parallel_for(std::size_t{0}, chunks.size(), [&](std::size_t c) {
    const detail::Chunk chunk = chunks[c];
    const ChildCoder coder = coding.coder(lattice, nodes[pending[chunk.pending].node]);
    std::uint32_t* __restrict counts = chunk_counts.data() + c * Coding::kBuckets;
    std::fill(counts, counts + Coding::kBuckets, 0u);
    std::uint16_t* __restrict out = codes.data();
    std::uint32_t staying = 0;
    std::uint32_t invalid = 0;
    std::uint32_t oversize = 0;
    for (std::uint32_t k = chunk.begin; k < chunk.end; ++k) {
      if (!source.present(k)) {
        out[k] = Coding::kInvalid;
        ++invalid;
        continue;
      }
      const std::uint16_t code = Coding::code(coder, source.bounds(k));
      out[k] = code;
      if (Coding::stays(code)) {
        ++staying;
        oversize += coding.oversize(code, source.bounds(k));
        continue;
      }
      const std::uint32_t first = Coding::first(code);
      const std::uint32_t spread = Coding::spread(code);
      for (std::uint32_t i = 0; i < kSpread.count[spread]; ++i) ++counts[first + Coding::offset(kSpread.axes[spread][i])];
    }
    chunk_stays[c] = staying;
    chunk_invalid[c] = invalid;
    chunk_oversize[c] = oversize;
  });
}

template <class Coding, class Source>
void Tree::Impl::scatter_chunks(const Coding& coding, const Source& source) {
  (void)coding;
  grow_to(next_entries, next_count);
  detail::parallel_for(std::size_t{0}, chunks.size(), [&](std::size_t c) {
    const detail::Chunk chunk = chunks[c];
    std::uint32_t* __restrict at = chunk_counts.data() + c * Coding::kBuckets;
    detail::WorkEntry* __restrict dst = next_entries.data();
    const std::uint16_t* __restrict in = codes.data();
    const detail::EntryWriter stay_writer(stay);
    std::uint32_t stay_at = chunk_stays[c];
    for (std::uint32_t k = chunk.begin; k < chunk.end; ++k) {
      const std::uint16_t code = in[k];
      if (Coding::is_invalid(code)) continue;
      if (Coding::stays(code)) {
        if (!source.present(k)) continue;
        const detail::WorkEntry r = source.entry(k);
        stay_writer.write(stay_at, r.box(), r.id, r.start);
        stay_lattice[stay_at++] = lattice.quantize(r.box());
        continue;
      }
      const detail::WorkEntry r = source.entry(k);
      const std::uint32_t first = Coding::first(code);
      const std::uint32_t spread = Coding::spread(code);
      const std::uint32_t start = Coding::start(code);
      for (std::uint32_t i = 0; i < kSpread.count[spread]; ++i) {
        const std::uint32_t axes = kSpread.axes[spread][i];
        dst[at[first + Coding::offset(axes)]++] =
            detail::WorkEntry{{r.lo[0], r.lo[1], r.lo[2]}, {r.hi[0], r.hi[1], r.hi[2]}, r.id, start & ~axes};
      }
    }
  });
}

template <class Coding>
void Tree::Impl::place_children(const Coding& coding, std::uint32_t p, std::uint32_t first_chunk,
                                std::uint32_t end_chunk) {
  (void)coding;
  const detail::PendingNode node = pending[p];
  const Node parent = nodes[node.node];
  totals.assign(Coding::kBuckets, 0);
  std::uint32_t staying = 0;
  std::uint32_t invalid = 0;
  for (std::uint32_t c = first_chunk; c < end_chunk; ++c) {
    const std::uint32_t* counts = chunk_counts.data() + std::size_t{c} * Coding::kBuckets;
    for (std::uint32_t b = 0; b < Coding::kBuckets; ++b) totals[b] += counts[b];
    staying += chunk_stays[c];
    invalid += chunk_invalid[c];
  }
  const std::uint64_t copies = std::accumulate(totals.begin(), totals.end(), std::uint64_t{0});
  const std::uint32_t entries = node.end - node.begin - invalid;
  const bool two_levels = Coding::kBuckets == detail::kGrandchildren;  // decided by the caller
  if (!two_levels && !detail::worth_splitting(config, entries, staying, detail::checked_entry_count(copies))) {
    const auto source = parent.level == 0 ? detail::LeafSource::input : detail::LeafSource::level;
    leaves.push_back({node.node, source, node.begin, node.end - node.begin, estimated_cost(config, entries, false)});
    for (std::uint32_t c = first_chunk; c < end_chunk; ++c) chunks[c].end = chunks[c].begin;  // nothing to scatter
    return;
  }

  // Staying entries: a slice of `stay`, each chunk writing its own part in order.
  nodes[node.node].stay_begin = stay.grow(staying);
  nodes[node.node].stay_end = stay.size();
  stay_lattice.resize(stay.size());
  for (std::uint32_t c = first_chunk, at = nodes[node.node].stay_begin; c < end_chunk; ++c) {
    at += std::exchange(chunk_stays[c], at);
  }

  // A child gets a slice of the next level's entries; it is split again if it is large, else it
  // is a coarse leaf. Each chunk writes its part of every slice, in order.
  auto add_child = [&](std::uint32_t bucket, const std::uint32_t cell[3], std::uint32_t level) {
    const auto child = static_cast<std::uint32_t>(nodes.size());
    nodes.push_back(Node{{cell[0], cell[1], cell[2]}, level, 0, 0, 0, 0, 0, 0});
    places.push_back(detail::kNotALeaf);
    stats.depth = std::max(stats.depth, level);
    const std::uint32_t count = totals[bucket];
    const std::uint32_t begin = next_count;
    next_count = detail::checked_entry_count(std::uint64_t{next_count} + count);
    if (count > config.task_entries && level < kMaxDepth) {
      next_pending.push_back({child, begin, next_count});
    } else {
      // A large cell at the deepest level cannot split: its grid tests all against all.
      const bool splits = count <= config.task_entries;
      leaves.push_back({child, detail::LeafSource::next_level, begin, count, estimated_cost(config, count, splits)});
    }
    for (std::uint32_t c = first_chunk, at = begin; c < end_chunk; ++c) {
      at += std::exchange(chunk_counts[std::size_t{c} * Coding::kBuckets + bucket], at);
    }
  };

  if (!two_levels) {
    std::uint64_t mask = 0;
    nodes[node.node].first_child = static_cast<std::uint32_t>(nodes.size());
    for (std::uint32_t b = 0; b < 64; ++b) {
      if (totals[b] == 0) continue;
      mask |= std::uint64_t{1} << b;
      const std::uint32_t cell[3] = {(parent.cell[0] << 2) + (b & 3u), (parent.cell[1] << 2) + ((b >> 2) & 3u),
                                     (parent.cell[2] << 2) + (b >> 4)};
      add_child(b, cell, parent.level + 1);
    }
    nodes[node.node].child_mask = mask;
    return;
  }

  // The root's children that hold grandchildren, then the grandchildren grouped by parent, each
  // group in ascending order: breadth first, as a one-level split at a time would make them.
  std::array<std::uint64_t, 64> grandchild_masks{};
  std::uint64_t child_mask = 0;
  for (std::uint32_t g = 0; g < detail::kGrandchildren; ++g) {
    if (totals[g] == 0) continue;
    const std::uint32_t x = g & 15u, y = (g >> 4) & 15u, z = g >> 8;
    const std::uint32_t child = detail::child_index(x >> 2, y >> 2, z >> 2);
    child_mask |= std::uint64_t{1} << child;
    grandchild_masks[child] |= std::uint64_t{1} << detail::child_index(x & 3u, y & 3u, z & 3u);
  }
  nodes[node.node].child_mask = child_mask;
  nodes[node.node].first_child = static_cast<std::uint32_t>(nodes.size());
  for (std::uint32_t c = 0; c < 64; ++c) {
    if ((child_mask >> c) & 1u) {
      nodes.push_back(Node{{c & 3u, (c >> 2) & 3u, c >> 4}, 1, grandchild_masks[c], 0, 0, 0, 0, 0});
      places.push_back(detail::kNotALeaf);
    }
  }
  std::uint32_t middle = nodes[node.node].first_child;
  for (std::uint32_t c = 0; c < 64; ++c) {
    if (!((child_mask >> c) & 1u)) continue;
    nodes[middle++].first_child = static_cast<std::uint32_t>(nodes.size());
    for (std::uint32_t local = 0; local < 64; ++local) {
      if (!((grandchild_masks[c] >> local) & 1u)) continue;
      const std::uint32_t cell[3] = {4 * (c & 3u) + (local & 3u), 4 * ((c >> 2) & 3u) + ((local >> 2) & 3u),
                                     4 * (c >> 4) + (local >> 4)};
      add_child(cell[0] + 16 * cell[1] + 256 * cell[2], cell, 2);
    }
  }
}

void Tree::Impl::split_root() {
  const auto count = static_cast<std::uint32_t>(input.size());
  const BoxSource source{input.data()};
  pending.assign(1, detail::PendingNode{0, 0, count});
  next_pending.clear();
  next_count = 0;
  if (count <= config.task_entries) {
    // Too few boxes to share out: the root is the one task's grid.
    leaves.push_back({0, detail::LeafSource::input, 0, count, estimated_cost(config, count, true)});
    pending.clear();
    run_level_tasks();
    return;
  }

  const std::uint32_t origin[3] = {0, 0, 0};
  const ChildCoder root_children(lattice, detail::level_shift(1), origin, config.big_span);
  const TwoLevels two_levels{root_children, config.big_span};
  bool split_two_levels = false;
  if (count > detail::kTwoLevelFactor * config.leaf_capacity &&
      detail::sample_says_two_levels_pay(config, two_levels.coder(lattice, nodes[0]), input)) {
    make_chunks(TwoLevels::kBuckets);
    code_chunks(two_levels, source);
    const auto sum = [](const std::vector<std::uint32_t>& v) { return std::accumulate(v.begin(), v.end(), std::uint64_t{0}); };
    const auto valid = static_cast<float>(count - sum(chunk_invalid));
    split_two_levels = static_cast<float>(sum(chunk_stays)) <= config.max_staying_share * valid;
  }
  const OneLevel one_level{config.big_span};
  if (!split_two_levels) {
    make_chunks(OneLevel::kBuckets);
    code_chunks(one_level, source);
  }
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    stats.invalid_boxes += chunk_invalid[c];
    stats.oversize_boxes += chunk_oversize[c];
  }
  const auto chunk_count = static_cast<std::uint32_t>(chunks.size());
  if (split_two_levels) {
    place_children(two_levels, 0, 0, chunk_count);
    scatter_chunks(two_levels, source);
  } else {
    place_children(one_level, 0, 0, chunk_count);
    scatter_chunks(one_level, source);
  }
  run_level_tasks();
  std::swap(level_entries, next_entries);
  std::swap(pending, next_pending);
}

void Tree::Impl::split_pending() {
  const RecordSource source{level_entries.data()};
  const OneLevel one_level{config.big_span};
  make_chunks(OneLevel::kBuckets);
  code_chunks(one_level, source);
  next_pending.clear();
  next_count = 0;
  for (std::uint32_t c = 0; c < chunks.size();) {
    const std::uint32_t p = chunks[c].pending;
    std::uint32_t end = c + 1;
    while (end < chunks.size() && chunks[end].pending == p) ++end;
    place_children(one_level, p, c, end);
    c = end;
  }
  scatter_chunks(one_level, source);
  run_level_tasks();
  std::swap(level_entries, next_entries);
  std::swap(pending, next_pending);
}

void Tree::Impl::run_level_tasks() {
  // Consecutive coarse leaves make a task until it holds about task_entries entries.
  level_tasks.clear();
  for (std::uint32_t i = 0; i < leaves.size(); ++i) {
    if (level_tasks.empty() || level_tasks.back().entries >= config.task_entries) {
      level_tasks.push_back({i, i, 0, 0});
    }
    detail::TreeTask& task = level_tasks.back();
    task.end_leaf = i + 1;
    task.entries += leaves[i].count;
    task.cost += leaves[i].cost;
  }
  const auto count = static_cast<std::uint32_t>(level_tasks.size());
  while (grids.size() < tasks_used + count) grids.push_back(std::make_unique<Grid>(config));
  if (oversized.size() < grids.size()) oversized.resize(grids.size(), 0);

  // The costliest tasks first, so that none is left alone at the end.
  task_order.resize(count);
  std::iota(task_order.begin(), task_order.end(), 0u);
  std::sort(task_order.begin(), task_order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return level_tasks[a].cost != level_tasks[b].cost ? level_tasks[a].cost > level_tasks[b].cost : a < b;
  });
  detail::parallel_for_each_task(std::uint32_t{0}, count, [&](std::uint32_t i) { run_task(task_order[i]); });
  tasks_used += count;
  leaves.clear();
}

void Tree::Impl::run_task(std::uint32_t t) {
  const detail::TreeTask& task = level_tasks[t];
  const std::uint32_t grid_index = tasks_used + t;
  // Which slot gets a heavy cell changes between frames; a slot that held far more than its
  // last task needed gives its memory back, so that what the tree keeps follows the current
  // frame instead of adding up every slot's worst one.
  if (oversized[grid_index]) {
    grids[grid_index] = std::make_unique<Grid>(config);
    oversized[grid_index] = 0;
  }
  Grid::Impl& grid = grid_impl(*grids[grid_index]);
  if (leaves[task.first_leaf].source == detail::LeafSource::input) {
    grid.build(input);
    places[leaves[task.first_leaf].node] = {grid_index, 0};
  } else {
    grid.clear();
    grid.lattice = lattice;
    for (std::uint32_t i = task.first_leaf; i < task.end_leaf; ++i) {
      const detail::CoarseLeaf& leaf = leaves[i];
      const detail::WorkEntry* records =
          (leaf.source == detail::LeafSource::level ? level_entries.data() : next_entries.data()) + leaf.begin;
      const Node& node = nodes[leaf.node];
      places[leaf.node] = {grid_index, grid.add_subtree(std::span(records, leaf.count), node.cell, node.level)};
    }
    grid.finish();
  }
  grid.collect_pair_keys();
  const std::size_t used = std::size_t{grid.stats.leaf_entries + grid.stats.staying_entries} * kBytesPerEntryUsed +
                           grid.pair_keys.size() * kBytesPerKeyUsed;
  oversized[grid_index] = grid.bytes_held() > kSlotSlackFactor * used + kSlotSlackBytes;
}

void Tree::Impl::finish_stats() {
  stats.boxes = static_cast<std::uint32_t>(input.size());
  stats.tasks = tasks_used;
  stats.nodes = static_cast<std::uint32_t>(nodes.size());
  stats.staying_entries = stay.size() - detail::kKernelPadding;
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    if (places[n].grid != detail::kNotALeaf.grid) --stats.nodes;  // counted as its grid's root
  }
  for (std::uint32_t t = 0; t < tasks_used; ++t) {
    const GridStats& g = grid_impl(*grids[t]).stats;
    stats.nodes = saturating_add(stats.nodes, g.nodes);
    stats.leaves = saturating_add(stats.leaves, g.leaves);
    stats.depth = std::max(stats.depth, g.depth);
    stats.leaf_entries = saturating_add(stats.leaf_entries, g.leaf_entries);
    stats.staying_entries = saturating_add(stats.staying_entries, g.staying_entries);
  }
  if (places[0].grid != detail::kNotALeaf.grid) {  // the root's grid saw the boxes themselves
    const GridStats& g = grid_impl(*grids[places[0].grid]).stats;
    stats.invalid_boxes = g.invalid_boxes;
    stats.oversize_boxes = g.oversize_boxes;
  }
  stats.bytes_held = bytes_held();
}

}  // namespace agrid
