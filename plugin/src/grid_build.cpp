// Building the grid: fit the lattice to the data, then split cells level by level.

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "grid_impl.h"
#include "split_rules.h"

namespace agrid {
namespace {

using detail::kSkipFlag;
using detail::kSpreadShift;
using detail::kStartShift;
using detail::kStayFlag;
using detail::Node;
using detail::BoxSource;
using detail::RecordSource;
using detail::TwoLevelCopies;
using detail::kSpread;
using detail::kGrandchildren;
using detail::kGrandchildIndexMask;
using detail::kTwoLevelFactor;
using detail::kTwoLevelSamples;
using detail::grandchild_offset;
using detail::worth_splitting;

}  // namespace

void Grid::Impl::build(std::span<const Box> boxes) {
  clear();  // a refused build leaves an empty grid too, not the last frame's
  if (boxes.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("agrid::Grid::build: at most 2^32 - 2 boxes are supported");
  }
  try {
    build_levels(boxes);
  } catch (...) {
    clear();  // out of memory, or too many box copies: an empty grid, never a half-built one
    throw;
  }
}

void Grid::Impl::clear() noexcept {
  nodes.clear();
  leaf.clear();
  stay.clear();
  stay_lattice.clear();
  leaf_cells.clear();
  stats = GridStats{};
}

void Grid::Impl::build_levels(std::span<const Box> boxes) {
  const auto count = static_cast<std::uint32_t>(boxes.size());
  stats.boxes = count;

  lattice = detail::fit_lattice(boxes);
  // A first frame sizes the arrays for the common case at once (every box in a leaf, a quarter
  // of them copied into a second cell) instead of growing them step by step.
  const auto expected_entries = static_cast<std::uint32_t>(std::min<std::uint64_t>(
      std::uint64_t{count} + count / 4, std::numeric_limits<std::uint32_t>::max() - 1 - detail::kKernelPadding));
  if (level_entries.size() < expected_entries) level_entries.resize(expected_entries);  // grow only
  if (next_entries.size() < expected_entries) next_entries.resize(expected_entries);
  leaf.reserve(expected_entries + detail::kKernelPadding);

  static_assert(sizeof(Box) == 6 * sizeof(float), "a Box is min x, y, z, max x, y, z");
  if (child_codes.size() < count) child_codes.resize(count);
  nodes.push_back(Node{{0, 0, 0}, 0, 0, 0, 0, 0, 0, 0});
  next_count = 0;
  next_pending.clear();
  // Many boxes: the root's children would all split again, so distribute the boxes straight to
  // the root's grandchildren (one pass less over every box), unless some are too large for them.
  if (count <= kTwoLevelFactor * config.leaf_capacity || !split_root_in_two_levels(boxes)) split_root(boxes);
  std::swap(level_entries, next_entries);
  std::swap(pending, next_pending);

  split_pending_levels();
  finish();
}

void Grid::Impl::split_pending_levels() {
  // Pending nodes hold more than leaf_capacity entries above the deepest level: a split makes
  // every other child a leaf at once.
  while (!pending.empty()) {
    next_count = 0;
    next_pending.clear();
    const RecordSource records{level_entries.data()};
    for (const detail::PendingNode& p : pending) split(p, records);
    std::swap(level_entries, next_entries);
    std::swap(pending, next_pending);
  }
}

std::uint32_t Grid::Impl::add_subtree(std::span<const detail::WorkEntry> records, const std::uint32_t cell[3],
                                      std::uint32_t level) {
  const auto root = static_cast<std::uint32_t>(nodes.size());
  const auto count = static_cast<std::uint32_t>(records.size());
  nodes.push_back(Node{{cell[0], cell[1], cell[2]}, level, 0, 0, 0, 0, 0, 0});
  stats.boxes += count;
  stats.depth = std::max(stats.depth, level);
  next_count = 0;
  next_pending.clear();
  const detail::PendingNode p{root, 0, count};
  const RecordSource source{records.data()};
  if (count <= config.leaf_capacity || level == kMaxDepth) {
    make_leaf(p, source);
  } else {
    split(p, source);
  }
  std::swap(level_entries, next_entries);
  std::swap(pending, next_pending);
  split_pending_levels();
  return root;
}

void Grid::Impl::finish() {
  leaf.pad(detail::kKernelPadding);
  stay.pad(detail::kKernelPadding);

  stats.tasks = 1;
  stats.nodes = static_cast<std::uint32_t>(nodes.size());
  stats.leaves = static_cast<std::uint32_t>(
      std::count_if(nodes.begin(), nodes.end(), [](const Node& n) { return n.is_leaf(); }));
  stats.leaf_entries = leaf.size() - detail::kKernelPadding;
  stats.staying_entries = stay.size() - detail::kKernelPadding;
  stats.bytes_held = bytes_held();
}

void Grid::Impl::split_root(std::span<const Box> boxes) {
  // The root's split codes, straight from the caller's boxes.
  const auto count = static_cast<std::uint32_t>(boxes.size());
  const std::uint32_t root_base[3] = {0, 0, 0};
  const detail::ChildCoder root_coder(lattice, detail::level_shift(1), root_base, config.big_span);
  std::uint32_t valid = 0;
  std::uint32_t oversize = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    const Box& b = boxes[i];
    const bool ok = is_valid(b);
    const std::uint16_t code = ok ? root_coder.code(&b.min.x) : kSkipFlag;
    child_codes[i] = code;
    valid += ok;
    oversize += (code & kStayFlag) != 0;
  }
  stats.invalid_boxes = count - valid;
  // Boxes too large for the root's children count as oversize even when the root stays a leaf.
  stats.oversize_boxes = oversize;

  const detail::PendingNode root{0, 0, count};
  if (valid <= config.leaf_capacity) {
    make_leaf(root, BoxSource{boxes.data()});
  } else {
    split(root, BoxSource{boxes.data()});
  }
}

bool Grid::Impl::split_root_in_two_levels(std::span<const Box> boxes) {
  const auto count = static_cast<std::uint32_t>(boxes.size());
  const std::uint32_t root_base[3] = {0, 0, 0};
  const detail::ChildCoder coder(lattice, detail::level_shift(2), root_base, config.big_span);
  // Boxes too large for the grandchildren stay with the root (planes, terrain), where they are
  // tested against everything; if that would be more than max_staying_share of the boxes, or
  // the copies would be too many by the rule a one-level split applies, the root splits one
  // level at a time instead.
  if (!detail::sample_says_two_levels_pay(config, coder, boxes)) return false;

  grandchild_counts.assign(kGrandchildren, 0);
  std::uint32_t valid = 0;
  std::uint32_t staying = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    const Box& b = boxes[i];
    if (!is_valid(b)) {
      child_codes[i] = detail::kGrandchildRefused;
      continue;
    }
    ++valid;
    const std::uint16_t code = coder.grandchild_code(&b.min.x);
    child_codes[i] = code;
    if (code & detail::kGrandchildRefused) {
      ++staying;
      continue;
    }
    const std::uint32_t first = code & kGrandchildIndexMask;
    const std::uint32_t spread = (code >> detail::kGrandchildSpreadShift) & 7u;
    for (std::uint32_t k = 0; k < kSpread.count[spread]; ++k) {
      ++grandchild_counts[first + grandchild_offset(kSpread.axes[spread][k])];
    }
  }
  if (static_cast<float>(staying) > config.max_staying_share * static_cast<float>(valid)) return false;
  stats.invalid_boxes = count - valid;

  // The staying boxes, in ascending order; the oversize ones among them are those too large
  // even for the root's children, as when the root splits one level.
  const detail::ChildCoder child_coder(lattice, detail::level_shift(1), root_base, config.big_span);
  stats.oversize_boxes = 0;
  nodes[0].stay_begin = stay.size();
  for (std::uint32_t i = 0; staying > 0 && i < count; ++i) {
    const Box& b = boxes[i];
    if (!(child_codes[i] & detail::kGrandchildRefused) || !is_valid(b)) continue;
    stay.set(stay.grow(1), detail::WorkEntry{{b.min.x, b.min.y, b.min.z}, {b.max.x, b.max.y, b.max.z}, i, detail::kOwnAllAxes});
    stay_lattice.push_back(lattice.quantize(b));
    stats.oversize_boxes += (child_coder.code(&b.min.x) & kStayFlag) != 0;
  }
  nodes[0].stay_end = stay.size();

  // Which children of the root, and which of their children, hold boxes.
  std::array<std::uint64_t, 64> grandchild_masks{};
  std::uint64_t child_mask = 0;
  for (std::uint32_t g = 0; g < kGrandchildren; ++g) {
    if (grandchild_counts[g] == 0) continue;
    const std::uint32_t x = g & 15u, y = (g >> 4) & 15u, z = g >> 8;
    const std::uint32_t child = detail::child_index(x >> 2, y >> 2, z >> 2);
    child_mask |= std::uint64_t{1} << child;
    grandchild_masks[child] |= std::uint64_t{1} << detail::child_index(x & 3u, y & 3u, z & 3u);
  }
  nodes[0].child_mask = child_mask;
  nodes[0].first_child = 1;
  for (std::uint32_t c = 0; c < 64; ++c) {
    if ((child_mask >> c) & 1u) nodes.push_back(Node{{c & 3u, (c >> 2) & 3u, c >> 4}, 1, grandchild_masks[c], 0, 0, 0, 0, 0});
  }
  // The grandchildren, breadth first: grouped by parent, each group in ascending order. Small
  // ones are leaves at once; the others are split further, level by level.
  std::array<std::uint64_t, kGrandchildren / 64> leaf_grandchildren{};
  std::uint32_t parent = 1;
  for (std::uint32_t c = 0; c < 64; ++c) {
    if (!((child_mask >> c) & 1u)) continue;
    nodes[parent].first_child = static_cast<std::uint32_t>(nodes.size());
    for (std::uint32_t local = 0; local < 64; ++local) {
      if (!((grandchild_masks[c] >> local) & 1u)) continue;
      const std::uint32_t x = 4 * (c & 3u) + (local & 3u);
      const std::uint32_t y = 4 * ((c >> 2) & 3u) + ((local >> 2) & 3u);
      const std::uint32_t z = 4 * (c >> 4) + (local >> 4);
      const std::uint32_t g = x + 16 * y + 256 * z;
      const std::uint32_t n = grandchild_counts[g];
      const auto node = static_cast<std::uint32_t>(nodes.size());
      nodes.push_back(Node{{x, y, z}, 2, 0, 0, 0, 0, 0, 0});
      if (n <= config.leaf_capacity) {
        leaf_grandchildren[g >> 6] |= std::uint64_t{1} << (g & 63u);
        grandchild_offsets[g] = leaf.grow(n);
        nodes[node].leaf_begin = grandchild_offsets[g];
        nodes[node].leaf_end = grandchild_offsets[g] + n;
        if (n >= 2) leaf_cells.push_back({nodes[node].leaf_begin, nodes[node].leaf_end});
      } else {
        grandchild_offsets[g] = next_count;
        const std::uint32_t end = detail::checked_entry_count(std::uint64_t{next_count} + n);
        next_pending.push_back({node, next_count, end});
        next_count = end;
      }
    }
    ++parent;
  }
  stats.depth = 2;

  scatter_to_grandchildren(boxes, leaf_grandchildren);
  return true;
}

void Grid::Impl::scatter_to_grandchildren(std::span<const Box> boxes,
                                          const std::array<std::uint64_t, 64>& leaf_grandchildren) {
  const auto count = static_cast<std::uint32_t>(boxes.size());
  // Scatter, in ascending box order within every grandchild. The lowest copy on an axis holds
  // the box's min corner there (nothing is clipped at the root), the higher one does not.
  if (next_entries.size() < next_count) next_entries.resize(std::max<std::size_t>(next_count, 2 * next_entries.size()));
  detail::WorkEntry* __restrict dst = next_entries.data();
  const detail::EntryWriter leaf_writer(leaf);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint16_t code = child_codes[i];
    if (code & detail::kGrandchildRefused) continue;
    const Box& b = boxes[i];
    const std::uint32_t first = code & kGrandchildIndexMask;
    const std::uint32_t spread = (code >> detail::kGrandchildSpreadShift) & 7u;
    for (std::uint32_t k = 0; k < kSpread.count[spread]; ++k) {
      const std::uint32_t axes = kSpread.axes[spread][k];
      const std::uint32_t g = first + grandchild_offset(axes);
      const std::uint32_t at = grandchild_offsets[g]++;
      const std::uint32_t start = detail::kOwnAllAxes & ~axes;
      if ((leaf_grandchildren[g >> 6] >> (g & 63u)) & 1u) {
        leaf_writer.write(at, b, i, start);
      } else {
        dst[at] = detail::WorkEntry{{b.min.x, b.min.y, b.min.z}, {b.max.x, b.max.y, b.max.z}, i, start};
      }
    }
  }
}

template <class Source>
void Grid::Impl::make_leaf(const detail::PendingNode& p, const Source& source) {
  Node& node = nodes[p.node];
  node.leaf_begin = leaf.size();
  if constexpr (requires { source.records; }) {
    // Records are all present: one slice, written straight.
    const std::uint32_t at = leaf.grow(p.end - p.begin) - p.begin;
    const detail::EntryWriter writer(leaf);
    for (std::uint32_t k = p.begin; k < p.end; ++k) {
      const detail::WorkEntry& r = source.entry(k);
      writer.write(at + k, r.box(), r.id, r.start);
    }
  } else {
    for (std::uint32_t k = p.begin; k < p.end; ++k) {
      if (source.present(k)) leaf.set(leaf.grow(1), source.entry(k));
    }
  }
  node.leaf_end = leaf.size();
  if (node.leaf_end - node.leaf_begin >= 2) leaf_cells.push_back({node.leaf_begin, node.leaf_end});
}

template <class Source>
void Grid::Impl::split(const detail::PendingNode& p, const Source& source) {
  const std::uint32_t node_index = p.node;
  const std::uint32_t level = nodes[node_index].level;
  const std::uint32_t shift = detail::level_shift(level);
  const std::uint32_t child_shift = shift - 2;
  std::uint32_t cell[3];
  std::uint32_t base[3];
  for (int a = 0; a < 3; ++a) {
    cell[a] = nodes[node_index].cell[a];
    base[a] = cell[a] << 2;
  }

  // Pass 1: each entry's code (the root's were computed with the first copy of the boxes).
  if (child_codes.size() < p.end - p.begin) child_codes.resize(p.end - p.begin);
  if constexpr (requires { source.records; }) compute_child_codes(source.records, p.begin, p.end, child_shift, base);

  // Pass 2: the number of entries per child and of staying entries.
  std::array<std::uint32_t, 64> counts{};
  std::uint32_t staying = 0;
  std::uint32_t skipped = 0;
  for (std::uint32_t k = p.begin; k < p.end; ++k) {
    const std::uint16_t c = child_codes[k - p.begin];
    if (c & (kStayFlag | kSkipFlag)) {
      staying += (c & kStayFlag) != 0;
      skipped += (c & kSkipFlag) != 0;
      continue;
    }
    const std::uint32_t first = c & 63u;
    const std::uint32_t spread = (c >> kSpreadShift) & 7u;
    if (spread == 0) {
      ++counts[first];
      continue;
    }
    for (std::uint32_t i = 0; i < kSpread.count[spread]; ++i) ++counts[first + kSpread.offset[spread][i]];
  }
  std::uint32_t copies = 0;
  for (const std::uint32_t c : counts) copies += c;
  if (!worth_splitting(config, p.end - p.begin - skipped, staying, copies)) {
    make_leaf(p, source);
    return;
  }

  nodes[node_index].stay_begin = stay.size();
  if (staying > 0) {
    for (std::uint32_t k = p.begin; k < p.end; ++k) {
      if (!(child_codes[k - p.begin] & kStayFlag)) continue;
      const detail::WorkEntry& r = source.entry(k);
      stay.set(stay.grow(1), r);
      stay_lattice.push_back(lattice.quantize(r.box()));
    }
  }
  nodes[node_index].stay_end = stay.size();

  // Children, in ascending index order. A child small enough to be a leaf gets its slice of
  // the leaf arrays at once and its entries are scattered straight there; the others get a
  // slice of the next level's entries.
  std::array<std::uint32_t, 64> offsets{};
  std::uint64_t mask = 0;
  std::uint64_t leaf_children = 0;
  const auto first_child = static_cast<std::uint32_t>(nodes.size());
  for (std::uint32_t i = 0; i < 64; ++i) {
    if (counts[i] == 0) continue;
    mask |= std::uint64_t{1} << i;
    const auto child = static_cast<std::uint32_t>(nodes.size());
    nodes.push_back(Node{{base[0] + (i & 3u), base[1] + ((i >> 2) & 3u), base[2] + (i >> 4)}, level + 1, 0, 0, 0, 0, 0, 0});
    stats.depth = std::max(stats.depth, level + 1);
    if (counts[i] <= config.leaf_capacity || level + 1 == kMaxDepth) {
      leaf_children |= std::uint64_t{1} << i;
      offsets[i] = leaf.grow(counts[i]);
      nodes[child].leaf_begin = offsets[i];
      nodes[child].leaf_end = offsets[i] + counts[i];
      if (counts[i] >= 2) leaf_cells.push_back({offsets[i], offsets[i] + counts[i]});
    } else {
      offsets[i] = next_count;
      const std::uint32_t end = detail::checked_entry_count(std::uint64_t{next_count} + counts[i]);
      next_pending.push_back({child, next_count, end});
      next_count = end;
    }
  }
  nodes[node_index].child_mask = mask;
  nodes[node_index].first_child = first_child;

  // Pass 3: scatter, keeping the entries' order (ascending ids) within every child.
  if (next_entries.size() < next_count) next_entries.resize(std::max<std::size_t>(next_count, 2 * next_entries.size()));
  detail::WorkEntry* __restrict dst = next_entries.data();
  const std::uint16_t* __restrict codes = child_codes.data() - p.begin;
  const detail::EntryWriter leaf_writer(leaf);
  // A copy's owner bits: those of the lowest child, less the axes on which this one is higher.
  auto copy = [&](std::uint32_t child, const detail::WorkEntry& r, std::uint32_t start) {
    const std::uint32_t at = offsets[child]++;
    if ((leaf_children >> child) & 1u) {
      leaf_writer.write(at, r.box(), r.id, start);
    } else {
      // Whole, not copied then patched: a store into a line just written stalls.
      dst[at] = detail::WorkEntry{{r.lo[0], r.lo[1], r.lo[2]}, {r.hi[0], r.hi[1], r.hi[2]}, r.id, start};
    }
  };
  for (std::uint32_t k = p.begin; k < p.end; ++k) {
    const std::uint16_t c = codes[k];
    if (c & (kStayFlag | kSkipFlag)) continue;
    const std::uint32_t first = c & 63u;
    const std::uint32_t spread = (c >> kSpreadShift) & 7u;
    const std::uint32_t start = (c >> kStartShift) & 7u;
    const auto& r = source.entry(k);
    if (spread == 0) {
      copy(first, r, start);
      continue;
    }
    for (std::uint32_t i = 0; i < kSpread.count[spread]; ++i) {
      copy(first + kSpread.offset[spread][i], r, start & ~kSpread.axes[spread][i]);
    }
  }
}

void Grid::Impl::compute_child_codes(const detail::WorkEntry* __restrict entries, std::uint32_t begin,
                                     std::uint32_t end, std::uint32_t child_shift, const std::uint32_t base[3]) {
  std::uint16_t* __restrict codes = child_codes.data() - begin;
  const detail::ChildCoder coder(lattice, child_shift, base, config.big_span);
  for (std::uint32_t k = begin; k < end; ++k) codes[k] = coder.code(entries[k].lo);
}

}  // namespace agrid
