// Fitting the lattice to a set of boxes.

#include "grid/lattice.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>

#include "common/agrid_assert.h"

namespace agrid::detail {
namespace {

/// Multiplier that spreads the sample over the input without aliasing with regular layouts
/// (2^32 / golden ratio, odd).
constexpr std::uint64_t kSampleStride = 2654435761u;

[[nodiscard]] float largest_extent(const Box& b) noexcept {
  const float e = std::max({b.max.x - b.min.x, b.max.y - b.min.y, b.max.z - b.min.z});
  return std::isnan(e) ? std::numeric_limits<float>::infinity() : e;  // NaN for [inf, inf] boxes
}

/// What the fit reads of each sampled box: its largest extent and its centre, in sample order.
struct Sample {
  std::array<float, kLatticeSamples> extents;
  std::array<std::array<float, kLatticeSamples>, 3> centres;
  std::uint32_t count = 0;

  void add(const Box& b) noexcept {
    extents[count] = largest_extent(b);
    // Halves first: the sum of two large coordinates would overflow.
    centres[0][count] = b.min.x * 0.5f + b.max.x * 0.5f;
    centres[1][count] = b.min.y * 0.5f + b.max.y * 0.5f;
    centres[2][count] = b.min.z * 0.5f + b.max.z * 0.5f;
    ++count;
  }
};

// Up to kLatticeSamples valid boxes, spread over the input, deterministic.
void take_sample(std::span<const Box> boxes, Sample& sample) {
  const std::size_t n = boxes.size();
  if (n <= kLatticeSamples) {
    for (const Box& b : boxes) {
      if (is_valid(b)) sample.add(b);
    }
    return;
  }
  // Every kSampleStride-th box, modulo n: (k * kSampleStride) % n, a step at a time (a division
  // a sample would cost more than the rest of the fit).
  const std::uint64_t step = kSampleStride % n;
  std::uint64_t i = 0;
  for (std::uint32_t k = 0; k < kLatticeSamples; ++k) {
    if (is_valid(boxes[i])) sample.add(boxes[i]);
    i += step;
    if (i >= n) i -= n;
  }
}

/// The least few of a sample's values in some order: the rank + 1 first, in that order.
struct FirstValues {
  std::array<float, kLatticeSamples / kTrimDivisor + 1> values{};
  std::uint32_t rank = 0;

  /// The value of rank `rank` (0: the first).
  [[nodiscard]] float last() const noexcept { return values[rank]; }
  /// The first value for which `pred` holds, which the last does.
  template <class Pred>
  [[nodiscard]] float first_where(Pred pred) const noexcept {
    AGRID_ASSERT(pred(last()));
    return *std::find_if(values.begin(), values.begin() + rank, pred);  // the end is values[rank]
  }
};

// The rank + 1 first of values[0, count) in the order `before`, for a small rank below count:
// one pass keeping them in a short sorted buffer. Most values come after the buffer's last, so
// the pass looks at them a block at a time and inserts only from a block that holds one that
// does not.
template <class Before>
FirstValues first_values(const float* values, std::uint32_t count, std::uint32_t rank, Before before) {
  constexpr std::uint32_t kBlock = 4;
  FirstValues first;
  first.rank = rank;
  std::copy(values, values + rank + 1, first.values.begin());
  std::sort(first.values.begin(), first.values.begin() + rank + 1, before);
  float last = first.last();  // a local: the loop keeps it in a register
  const auto insert = [&](float v) {
    if (!before(v, last)) return;
    std::uint32_t i = rank;
    for (; i > 0 && before(v, first.values[i - 1]); --i) first.values[i] = first.values[i - 1];
    first.values[i] = v;
    last = first.last();
  };
  std::uint32_t k = rank + 1;
  for (; k + kBlock <= count; k += kBlock) {
    const float* v = values + k;
    int earlier = 0;  // counted, not tested one by one: four compares and no branch
    for (std::uint32_t i = 0; i < kBlock; ++i) earlier += before(v[i], last) ? 1 : 0;
    if (earlier == 0) continue;
    for (std::uint32_t i = 0; i < kBlock; ++i) insert(v[i]);
  }
  for (; k < count; ++k) insert(values[k]);
  return first;
}

}  // namespace

// Boxes outside the root are clamped into its border cells, which is always correct
// (quantisation stays monotone) and costs only if very many boxes lie outside; so far-away
// outliers neither stretch the cells nor are dropped.
Lattice fit_lattice(std::span<const Box> boxes) {
  Sample sample;
  take_sample(boxes, sample);
  const std::uint32_t count = sample.count;
  Lattice lattice;
  if (count == 0) return lattice;  // nothing valid: any lattice will do

  std::array<float, kLatticeSamples> extents;  // the median's search reorders them
  std::copy(sample.extents.begin(), sample.extents.begin() + count, extents.begin());
  auto middle = extents.begin() + count / 2;
  std::nth_element(extents.begin(), middle, extents.begin() + count);
  const float typical = *middle;
  lattice.typical_extent = std::isfinite(typical) ? typical : 0.0f;
  const float limit = typical * kOutlierExtentFactor;

  // The centres of the sampled boxes of ordinary size, moved to the front in sample order.
  auto& centres = sample.centres;
  std::uint32_t kept = 0;
  for (std::uint32_t k = 0; k < count; ++k) {
    const float c[3] = {centres[0][k], centres[1][k], centres[2][k]};
    if (!(sample.extents[k] <= limit)) continue;
    if (!std::isfinite(c[0]) || !std::isfinite(c[1]) || !std::isfinite(c[2])) continue;
    for (int a = 0; a < 3; ++a) centres[a][kept] = c[a];
    ++kept;
  }
  if (kept == 0) return lattice;  // no sampled box of ordinary size

  float lo[3];
  float hi[3];
  // On each axis the trim + 1 least and greatest centres: the trim-th of each is a quantile, and
  // every centre the fence leaves out is among them (the fence lies beyond the quantiles), so the
  // least centre inside the fence is the first of the least at or above it, and the greatest
  // likewise. Without a trim the fence lies beyond the least and greatest centre themselves.
  const std::uint32_t trim = kept / kTrimDivisor;  // at most kLatticeSamples / kTrimDivisor
  for (int a = 0; a < 3; ++a) {
    const FirstValues least = first_values(centres[a].data(), kept, trim, std::less<>{});
    const FirstValues greatest = first_values(centres[a].data(), kept, trim, std::greater<>{});
    const double q_lo = least.last();
    const double q_hi = greatest.last();
    const double fence_lo = q_lo - kFenceFactor * (q_hi - q_lo);
    const double fence_hi = q_hi + kFenceFactor * (q_hi - q_lo);
    lo[a] = least.first_where([&](float c) { return c >= fence_lo; });
    hi[a] = greatest.first_where([&](float c) { return c <= fence_hi; });
  }
  double size = 0.0;
  for (int a = 0; a < 3; ++a) {
    // Half a typical box of margin, so that the sample's extreme boxes are not clamped.
    const double margin = std::isfinite(typical) ? 0.5 * typical : 0.0;
    lattice.origin[a] = static_cast<float>(std::max<double>(lo[a] - margin, -std::numeric_limits<float>::max()));
    size = std::max(size, static_cast<double>(hi[a]) - static_cast<double>(lo[a]) + 2 * margin);
  }
  if (!std::isfinite(size) || !(size > 0.0)) size = 1.0;
  size = std::max(size, kMinRootSize);
  lattice.scale = static_cast<float>(kLatticeSteps / size);
  lattice.cell_size_root = kLatticeSteps / static_cast<double>(lattice.scale);
  return lattice;
}

}  // namespace agrid::detail
