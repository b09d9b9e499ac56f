// Fitting the lattice to a set of boxes.

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "lattice.h"

namespace agrid::detail {
namespace {

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
  const bool all = n <= kLatticeSamples;  // else every kSampleStride-th box, modulo n
  std::uint32_t count = 0;
  for (std::uint64_t k = 0; k < (all ? n : kLatticeSamples); ++k) {
    const auto i = static_cast<std::uint32_t>(all ? k : (k * kSampleStride) % n);
    if (is_valid(boxes[i])) sample[count++] = i;
  }
  return count;
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
  lattice.scale = static_cast<float>(kLatticeSteps / size);
  lattice.cell_size_root = kLatticeSteps / static_cast<double>(lattice.scale);
  return lattice;
}

}  // namespace agrid::detail
