// Fitting the lattice to a set of boxes.

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>

#include "grid/lattice.h"

namespace agrid::detail {
namespace {

/// Boxes sampled to fit the lattice: enough for a stable typical size and for bounds that
/// cover all but a sliver of the boxes, few enough to cost nothing beside the build.
constexpr std::uint32_t kLatticeSamples = 1024;
/// Sampled boxes larger than this many typical boxes do not pull the root's bounds: a static
/// plane or a terrain must not stretch the cells of everything else.
constexpr float kOutlierExtentFactor = 1024.0f;
/// The root's bounds on each axis come from the sample's centres between the 1/kTrimDivisor
/// and 1 - 1/kTrimDivisor quantiles, widened by kFenceFactor times their spread: a few far boxes
/// (under 1/kTrimDivisor of the sample, like the article scenes' three teapots) are left out
/// even when the sample holds every box, while a uniform or clustered scene keeps all its
/// centres (its tails lie well within the fence).
constexpr std::uint32_t kTrimDivisor = 128;
constexpr double kFenceFactor = 0.5;
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
  const bool all = n <= kLatticeSamples;  // else every kSampleStride-th box, modulo n
  std::uint32_t count = 0;
  for (std::uint64_t k = 0; k < (all ? n : kLatticeSamples); ++k) {
    const auto i = static_cast<std::uint32_t>(all ? k : (k * kSampleStride) % n);
    if (is_valid(boxes[i])) sample[count++] = i;
  }
  return count;
}

// The value of rank `rank` (0: the first) of values[0, count) in the order `before`, for a
// small rank below count: one pass keeping the rank + 1 first in a short sorted buffer.
template <class Before>
float nth_smallest(const float* values, std::uint32_t count, std::uint32_t rank, Before before) {
  constexpr std::uint32_t kMaxRank = kLatticeSamples / kTrimDivisor;
  std::array<float, kMaxRank + 1> first{};
  std::copy(values, values + rank + 1, first.begin());
  std::sort(first.begin(), first.begin() + rank + 1, before);
  float last = first[rank];  // a local: the loop keeps it in a register
  for (std::uint32_t k = rank + 1; k < count; ++k) {
    const float v = values[k];
    if (!before(v, last)) continue;
    std::uint32_t i = rank;
    for (; i > 0 && before(v, first[i - 1]); --i) first[i] = first[i - 1];
    first[i] = v;
    last = first[rank];
  }
  return last;
}

}  // namespace

// Boxes outside the root are clamped into its border cells, which is always correct
// (quantisation stays monotone) and costs only if very many boxes lie outside; so far-away
// outliers neither stretch the cells nor are dropped.
Lattice fit_lattice(std::span<const Box> boxes) {
  std::array<std::uint32_t, kLatticeSamples> sample{};
  const std::uint32_t count = sample_boxes(boxes, sample);
  Lattice lattice;
  if (count == 0) return lattice;  // nothing valid: any lattice will do

  std::array<float, kLatticeSamples> extents{};
  for (std::uint32_t k = 0; k < count; ++k) extents[k] = largest_extent(boxes[sample[k]]);
  auto middle = extents.begin() + count / 2;
  std::nth_element(extents.begin(), middle, extents.begin() + count);
  const float typical = *middle;
  lattice.typical_extent = std::isfinite(typical) ? typical : 0.0f;
  const float limit = typical * kOutlierExtentFactor;

  // Centres of the sampled boxes of ordinary size, axis by axis.
  std::array<std::array<float, kLatticeSamples>, 3> centres;
  std::uint32_t kept = 0;
  for (std::uint32_t k = 0; k < count; ++k) {
    const Box& b = boxes[sample[k]];
    if (!(largest_extent(b) <= limit)) continue;
    // Halves first: the sum of two large coordinates would overflow.
    const float c[3] = {b.min.x * 0.5f + b.max.x * 0.5f, b.min.y * 0.5f + b.max.y * 0.5f,
                        b.min.z * 0.5f + b.max.z * 0.5f};
    if (!std::isfinite(c[0]) || !std::isfinite(c[1]) || !std::isfinite(c[2])) continue;
    for (int a = 0; a < 3; ++a) centres[a][kept] = c[a];
    ++kept;
  }
  if (kept == 0) return lattice;  // no sampled box of ordinary size

  float lo[3];
  float hi[3];
  const std::uint32_t trim = kept / kTrimDivisor;  // at most kLatticeSamples / kTrimDivisor
  for (int a = 0; a < 3; ++a) {
    const float* const c = centres[a].data();
    double fence_lo = -std::numeric_limits<double>::infinity();
    double fence_hi = std::numeric_limits<double>::infinity();
    if (trim > 0) {
      const double q_lo = nth_smallest(c, kept, trim, std::less<>{});
      const double q_hi = nth_smallest(c, kept, trim, std::greater<>{});
      fence_lo = q_lo - kFenceFactor * (q_hi - q_lo);
      fence_hi = q_hi + kFenceFactor * (q_hi - q_lo);
    }
    // Locals, not lo[a] and hi[a]: the loop then keeps them in registers.
    float low = std::numeric_limits<float>::infinity();
    float high = -std::numeric_limits<float>::infinity();
    for (std::uint32_t k = 0; k < kept; ++k) {
      const bool inside = c[k] >= fence_lo && c[k] <= fence_hi;  // the quantiles are: low <= high
      low = std::min(low, inside ? c[k] : low);
      high = std::max(high, inside ? c[k] : high);
    }
    lo[a] = low;
    hi[a] = high;
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
