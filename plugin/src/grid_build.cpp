// Building the grid: fit the lattice to the data, then split cells level by level.

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "grid_impl.h"

namespace agrid {
namespace {

using detail::LatticeBox;
using detail::Node;

/// Boxes sampled to fit the lattice: enough for a stable typical size and for bounds that
/// cover all but a sliver of the boxes, few enough to cost nothing beside the build.
constexpr std::uint32_t kLatticeSamples = 1024;
/// Sampled boxes larger than this many typical boxes do not pull the root's bounds: a static
/// plane or a terrain must not stretch the cells of everything else.
constexpr float kOutlierExtentFactor = 1024.0f;
/// Smallest root size, so that the lattice scale stays a finite float.
constexpr double kMinRootSize = 1e-30;
/// Multiplier that spreads the sample over the input without aliasing with regular layouts
/// (2^32 / golden ratio, odd).
constexpr std::uint64_t kSampleStride = 2654435761u;

[[nodiscard]] float largest_extent(const Box& b) noexcept {
  const float e = std::max({b.max.x - b.min.x, b.max.y - b.min.y, b.max.z - b.min.z});
  return std::isnan(e) ? std::numeric_limits<float>::infinity() : e;  // NaN for [inf, inf] boxes
}

// Indices of up to kLatticeSamples valid boxes, spread over the input, deterministic.
std::uint32_t sample_boxes(std::span<const Box> boxes, std::array<std::uint32_t, kLatticeSamples>& sample) {
  const std::size_t n = boxes.size();
  std::uint32_t count = 0;
  if (n <= kLatticeSamples) {
    for (std::uint32_t i = 0; i < n; ++i) {
      if (is_valid(boxes[i])) sample[count++] = i;
    }
    return count;
  }
  for (std::uint64_t k = 0; k < kLatticeSamples; ++k) {
    const auto i = static_cast<std::uint32_t>((k * kSampleStride) % n);
    if (is_valid(boxes[i])) sample[count++] = i;
  }
  return count;
}

// The root cell: a cube around the centres of a sample of the valid boxes of ordinary size.
// Boxes outside it are clamped into its border cells, which is always correct (quantisation
// stays monotone) and costs only if very many boxes lie outside; so far-away outliers neither
// stretch the cells nor are dropped.
[[nodiscard]] detail::Lattice fit_lattice(std::span<const Box> boxes) {
  std::array<std::uint32_t, kLatticeSamples> sample{};
  const std::uint32_t count = sample_boxes(boxes, sample);
  detail::Lattice lattice;
  if (count == 0) return lattice;  // nothing valid: any lattice will do

  std::array<float, kLatticeSamples> extents{};
  for (std::uint32_t k = 0; k < count; ++k) extents[k] = largest_extent(boxes[sample[k]]);
  auto middle = extents.begin() + count / 2;
  std::nth_element(extents.begin(), middle, extents.begin() + count);
  const float typical = *middle;
  const float limit = typical * kOutlierExtentFactor;

  float lo[3] = {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity(),
                 std::numeric_limits<float>::infinity()};
  float hi[3] = {-lo[0], -lo[1], -lo[2]};
  for (std::uint32_t k = 0; k < count; ++k) {
    const Box& b = boxes[sample[k]];
    if (!(largest_extent(b) <= limit)) continue;
    // Halves first: the sum of two large coordinates would overflow.
    const float c[3] = {b.min.x * 0.5f + b.max.x * 0.5f, b.min.y * 0.5f + b.max.y * 0.5f,
                        b.min.z * 0.5f + b.max.z * 0.5f};
    if (!std::isfinite(c[0]) || !std::isfinite(c[1]) || !std::isfinite(c[2])) continue;
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], c[a]);
      hi[a] = std::max(hi[a], c[a]);
    }
  }
  if (!(lo[0] <= hi[0])) return lattice;  // no sampled box of ordinary size
  double size = 0.0;
  for (int a = 0; a < 3; ++a) {
    // Half a typical box of margin, so that the sample's extreme boxes are not clamped.
    const double margin = std::isfinite(typical) ? 0.5 * typical : 0.0;
    lattice.origin[a] = static_cast<float>(std::max<double>(lo[a] - margin, -std::numeric_limits<float>::max()));
    size = std::max(size, static_cast<double>(hi[a]) - static_cast<double>(lo[a]) + 2 * margin);
  }
  if (!std::isfinite(size) || !(size > 0.0)) size = 1.0;
  size = std::max(size, kMinRootSize);
  lattice.scale = static_cast<float>(detail::kLatticeSteps / size);
  lattice.cell_size_root = detail::kLatticeSteps / static_cast<double>(lattice.scale);
  return lattice;
}

// A split gives each entry a code: the index of the lowest child it overlaps (6 bits), the
// axes on which it also overlaps the next child (3 bits), and whether it stays instead ...
constexpr std::uint32_t kSpreadShift = 6;
constexpr std::uint16_t kStayFlag = 1u << 9;
// ... and the axes on which its min corner lies in that lowest child (owner bits, 3 bits).
constexpr std::uint32_t kStartShift = 10;
// At the root, an invalid box's code: it takes part in nothing.
constexpr std::uint16_t kSkipFlag = 1u << 13;

// Computes codes for the children (at `child_shift`) of the cell whose first child is `base`,
// from six floats: min x, y, z, max x, y, z (the layout of a Box and of a WorkEntry).
class ChildCoder {
 public:
  ChildCoder(const detail::Lattice& lattice, std::uint32_t child_shift, const std::uint32_t base[3],
             std::uint32_t big_span) noexcept
      : lattice_(lattice), child_shift_(child_shift), base_{base[0], base[1], base[2]}, big_span_(big_span) {
#if defined(__SSE2__)
    origin_ = _mm_setr_ps(lattice.origin[0], lattice.origin[1], lattice.origin[2], 0.0f);
    scale_ = _mm_set1_ps(lattice.scale);
    lattice_max_ = _mm_set1_ps(detail::kLatticeMaxF);
    shift_ = _mm_cvtsi32_si128(static_cast<int>(child_shift));
    bases_ = _mm_setr_epi32(static_cast<int>(base[0]), static_cast<int>(base[1]), static_cast<int>(base[2]), 0);
    span_limit_ = _mm_set1_epi32(static_cast<int>(big_span) - 1);
#endif
  }

  [[nodiscard]] std::uint16_t code(const float* bounds) const noexcept {
#if defined(__SSE2__)
    // The three axes in the lanes of SSE2 registers (plain x86-64), with the same float
    // operations as Lattice::quantize, so the same lattice coordinates.
    const __m128i g_lo = cells(_mm_loadu_ps(bounds));  // min x, y, z and (unused) max x
    const __m128 tail = _mm_loadu_ps(bounds + 2);       // min z, max x, y, z
    const __m128i g_hi = cells(_mm_shuffle_ps(tail, tail, _MM_SHUFFLE(3, 3, 2, 1)));
    const std::uint32_t stays = lanes(_mm_cmpgt_epi32(_mm_sub_epi32(g_hi, g_lo), span_limit_));
    // Clip to this node: the box may reach beyond it (it entered through a copy).
    const __m128i c_lo = _mm_and_si128(_mm_cmpgt_epi32(g_lo, bases_), _mm_sub_epi32(g_lo, bases_));
    const __m128i three = _mm_set1_epi32(3);
    const __m128i hi_rel = _mm_sub_epi32(g_hi, bases_);
    const __m128i below_three = _mm_cmplt_epi32(hi_rel, three);
    const __m128i c_hi = _mm_or_si128(_mm_and_si128(below_three, hi_rel), _mm_andnot_si128(below_three, three));
    const std::uint32_t spread = lanes(_mm_cmpgt_epi32(c_hi, c_lo));
    const std::uint32_t starts = lanes(_mm_cmpgt_epi32(g_lo, _mm_sub_epi32(bases_, _mm_set1_epi32(1))));
    __m128i index = _mm_madd_epi16(c_lo, _mm_setr_epi32(1, 4, 16, 0));  // x + 4y + 16z
    index = _mm_add_epi32(index, _mm_shuffle_epi32(index, _MM_SHUFFLE(1, 0, 3, 2)));
    index = _mm_add_epi32(index, _mm_shuffle_epi32(index, _MM_SHUFFLE(2, 3, 0, 1)));
    return static_cast<std::uint16_t>(static_cast<std::uint32_t>(_mm_cvtsi128_si32(index)) | (spread << kSpreadShift) |
                                      (stays != 0 ? kStayFlag : 0u) | (starts << kStartShift));
#else
    std::uint32_t code = 0;
    for (int a = 0; a < 3; ++a) {
      const std::uint32_t g_lo = lattice_.quantize(bounds[a], a) >> child_shift_;
      const std::uint32_t g_hi = lattice_.quantize(bounds[3 + a], a) >> child_shift_;
      // Clip to this node: the box may reach beyond it (it entered through a copy).
      const std::uint32_t c_lo = g_lo > base_[a] ? g_lo - base_[a] : 0;
      const std::uint32_t c_hi = std::min(g_hi - base_[a], 3u);
      code |= c_lo << (2 * a);
      code |= static_cast<std::uint32_t>(c_hi > c_lo) << (kSpreadShift + a);
      code |= static_cast<std::uint32_t>(g_lo >= base_[a]) << (kStartShift + a);
      code |= static_cast<std::uint32_t>(g_hi - g_lo >= big_span_) * kStayFlag;
    }
    return static_cast<std::uint16_t>(code);
#endif
  }

 private:
#if defined(__SSE2__)
  [[nodiscard]] __m128i cells(__m128 x) const noexcept {
    x = _mm_mul_ps(_mm_sub_ps(x, origin_), scale_);
    x = _mm_min_ps(_mm_max_ps(x, _mm_setzero_ps()), lattice_max_);
    return _mm_srl_epi32(_mm_cvttps_epi32(x), shift_);
  }
  [[nodiscard]] static std::uint32_t lanes(__m128i v) noexcept {
    return static_cast<std::uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(v))) & 7u;
  }
  __m128 origin_;
  __m128 scale_;
  __m128 lattice_max_;
  __m128i shift_;
  __m128i bases_;
  __m128i span_limit_;
#endif
  detail::Lattice lattice_;
  std::uint32_t child_shift_;
  std::uint32_t base_[3];
  std::uint32_t big_span_;
};

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
          t.offset[s][n++] = static_cast<std::uint8_t>(detail::child_index(dx, dy, dz));
        }
      }
    }
    t.count[s] = n;
  }
  return t;
}
constexpr SpreadTable kSpread = make_spread_table();

// Splitting a cell pays when its boxes are small beside the children: few stay behind and few
// are copied into several children. Otherwise the cell is finished as a leaf.
[[nodiscard]] bool worth_splitting(const Config& config, std::uint32_t entries, std::uint32_t staying,
                                   std::uint32_t copies) noexcept {
  return static_cast<float>(staying) <= config.max_staying_share * static_cast<float>(entries) &&
         static_cast<float>(copies) <= config.max_copies_per_box * static_cast<float>(entries);
}

// Where a split or a leaf reads its entries: the records of a level ...
struct RecordSource {
  const detail::WorkEntry* records;

  [[nodiscard]] static constexpr bool present(std::uint32_t) noexcept { return true; }
  [[nodiscard]] const detail::WorkEntry& entry(std::uint32_t k) const noexcept { return records[k]; }
};

// ... or, at the root, the caller's boxes themselves, which saves copying every box once.
struct BoxSource {
  const Box* boxes;

  [[nodiscard]] bool present(std::uint32_t k) const noexcept { return is_valid(boxes[k]); }
  [[nodiscard]] detail::WorkEntry entry(std::uint32_t k) const noexcept {
    const Box& b = boxes[k];
    return {{b.min.x, b.min.y, b.min.z}, {b.max.x, b.max.y, b.max.z}, k, detail::kOwnAllAxes};
  }
};

}  // namespace

void Grid::Impl::build(std::span<const Box> boxes) {
  if (boxes.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("agrid::Grid::build: at most 2^32 - 2 boxes are supported");
  }
  const auto count = static_cast<std::uint32_t>(boxes.size());
  nodes.clear();
  leaf.clear();
  stay.clear();
  stay_lattice.clear();
  leaf_cells.clear();
  stats = GridStats{};
  stats.boxes = count;

  lattice = fit_lattice(boxes);
  // A first frame sizes the arrays for the common case at once (every box in a leaf, a quarter
  // of them copied into a second cell) instead of growing them step by step.
  const std::uint32_t expected_entries = count + count / 4;
  if (level_entries.size() < expected_entries) level_entries.resize(expected_entries);  // grow only
  if (next_entries.size() < expected_entries) next_entries.resize(expected_entries);
  leaf.reserve(expected_entries + detail::kKernelPadding);

  // The root's split codes, straight from the caller's boxes.
  static_assert(sizeof(Box) == 6 * sizeof(float), "a Box is min x, y, z, max x, y, z");
  if (child_codes.size() < count) child_codes.resize(count);
  const std::uint32_t root_base[3] = {0, 0, 0};
  const ChildCoder root_coder(lattice, detail::level_shift(1), root_base, config.big_span);
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

  nodes.push_back(Node{{0, 0, 0}, 0, 0, 0, 0, 0, 0, 0});
  next_count = 0;
  next_pending.clear();
  const detail::PendingNode root{0, 0, count};
  if (valid <= config.leaf_capacity) {
    make_leaf(root, BoxSource{boxes.data()});
  } else {
    split(root, BoxSource{boxes.data()});
  }
  std::swap(level_entries, next_entries);
  std::swap(pending, next_pending);

  for (std::uint32_t level = 1; !pending.empty(); ++level) {
    stats.depth = std::max(stats.depth, level);
    next_count = 0;
    next_pending.clear();
    const RecordSource records{level_entries.data()};
    for (const detail::PendingNode& p : pending) {
      if (p.end - p.begin <= config.leaf_capacity || level == kMaxDepth) {
        make_leaf(p, records);
      } else {
        split(p, records);
      }
    }
    std::swap(level_entries, next_entries);
    std::swap(pending, next_pending);
  }

  leaf.pad(detail::kKernelPadding);
  stay.pad(detail::kKernelPadding);

  stats.nodes = static_cast<std::uint32_t>(nodes.size());
  stats.leaves = static_cast<std::uint32_t>(
      std::count_if(nodes.begin(), nodes.end(), [](const Node& n) { return n.is_leaf(); }));
  stats.leaf_entries = leaf.size() - detail::kKernelPadding;
  stats.staying_entries = stay.size() - detail::kKernelPadding;
  stats.bytes_held = bytes_held();
}

template <class Source>
void Grid::Impl::make_leaf(const detail::PendingNode& p, const Source& source) {
  Node& node = nodes[p.node];
  node.leaf_begin = leaf.size();
  for (std::uint32_t k = p.begin; k < p.end; ++k) {
    if (source.present(k)) leaf.set(leaf.grow(1), source.entry(k));
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
  if (level > 0) compute_child_codes(p.begin, p.end, child_shift, base);

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
    if (counts[i] <= config.leaf_capacity || level + 1 == kMaxDepth) {
      leaf_children |= std::uint64_t{1} << i;
      offsets[i] = leaf.grow(counts[i]);
      nodes[child].leaf_begin = offsets[i];
      nodes[child].leaf_end = offsets[i] + counts[i];
      if (counts[i] >= 2) leaf_cells.push_back({offsets[i], offsets[i] + counts[i]});
      stats.depth = std::max(stats.depth, level + 1);
    } else {
      offsets[i] = next_count;
      next_pending.push_back({child, next_count, next_count + counts[i]});
      next_count += counts[i];
    }
  }
  nodes[node_index].child_mask = mask;
  nodes[node_index].first_child = first_child;

  // Pass 3: scatter, keeping the entries' order (ascending ids) within every child.
  if (next_entries.size() < next_count) next_entries.resize(std::max<std::size_t>(next_count, 2 * next_entries.size()));
  detail::WorkEntry* __restrict dst = next_entries.data();
  const std::uint16_t* __restrict codes = child_codes.data() - p.begin;
  float* __restrict leaf_lo[3] = {leaf.lo[0].data(), leaf.lo[1].data(), leaf.lo[2].data()};
  float* __restrict leaf_hi[3] = {leaf.hi[0].data(), leaf.hi[1].data(), leaf.hi[2].data()};
  std::uint32_t* __restrict leaf_id = leaf.id.data();
  std::uint8_t* __restrict leaf_start = leaf.start.data();
  // A copy's owner bits: those of the lowest child, less the axes on which this one is higher.
  auto copy = [&](std::uint32_t child, const detail::WorkEntry& r, std::uint32_t start) {
    const std::uint32_t at = offsets[child]++;
    if ((leaf_children >> child) & 1u) {
      for (int a = 0; a < 3; ++a) {
        leaf_lo[a][at] = r.lo[a];
        leaf_hi[a][at] = r.hi[a];
      }
      leaf_id[at] = r.id;
      leaf_start[at] = static_cast<std::uint8_t>(start);
    } else {
      dst[at] = r;
      dst[at].start = start;
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

void Grid::Impl::compute_child_codes(std::uint32_t begin, std::uint32_t end, std::uint32_t child_shift,
                                     const std::uint32_t base[3]) {
  const detail::WorkEntry* __restrict entries = level_entries.data();
  std::uint16_t* __restrict codes = child_codes.data() - begin;
  const ChildCoder coder(lattice, child_shift, base, config.big_span);
  for (std::uint32_t k = begin; k < end; ++k) codes[k] = coder.code(entries[k].lo);
}

}  // namespace agrid
