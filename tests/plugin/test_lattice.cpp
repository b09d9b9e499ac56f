// fit_lattice against its rule written plainly (docs/grid.md, "The lattice"): sort the sampled
// centres, take the quantiles, fence, bound. The fit finds the same numbers in a few passes over
// short lists; this checks it on inputs it samples whole (at most kWholeSample valid boxes),
// random and adversarial: clusters, ties, planes, far outliers, NaN, infinite and zero boxes.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "grid/lattice.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

using detail::kFenceFactor;
using detail::kMinRootSize;
using detail::kOutlierExtentFactor;
using detail::kTrimDivisor;
/// Inputs of up to this many boxes are sampled whole.
constexpr std::uint32_t kWholeSample = detail::kLatticeSamples;
constexpr int kScenes = 3000;

Box box(float x0, float y0, float z0, float x1, float y1, float z1) { return Box{{x0, y0, z0}, {x1, y1, z1}}; }

float largest_extent(const Box& b) {
  const float e = std::max({b.max.x - b.min.x, b.max.y - b.min.y, b.max.z - b.min.z});
  return std::isnan(e) ? std::numeric_limits<float>::infinity() : e;
}

/// The lattice by the rule, one sort per axis.
detail::Lattice plain_fit(const std::vector<Box>& boxes) {
  std::vector<Box> sample;
  for (const Box& b : boxes) {
    if (is_valid(b)) sample.push_back(b);
  }
  detail::Lattice lattice;
  if (sample.empty()) return lattice;
  std::vector<float> extents;
  for (const Box& b : sample) extents.push_back(largest_extent(b));
  std::sort(extents.begin(), extents.end());
  const float typical = extents[extents.size() / 2];
  lattice.typical_extent = std::isfinite(typical) ? typical : 0.0f;
  std::vector<float> centres[3];
  for (const Box& b : sample) {
    const float c[3] = {b.min.x * 0.5f + b.max.x * 0.5f, b.min.y * 0.5f + b.max.y * 0.5f, b.min.z * 0.5f + b.max.z * 0.5f};
    if (!(largest_extent(b) <= typical * kOutlierExtentFactor)) continue;
    if (!std::isfinite(c[0]) || !std::isfinite(c[1]) || !std::isfinite(c[2])) continue;
    for (int a = 0; a < 3; ++a) centres[a].push_back(c[a]);
  }
  if (centres[0].empty()) return lattice;
  const std::size_t trim = centres[0].size() / kTrimDivisor;
  double size = 0.0;
  const double margin = std::isfinite(typical) ? 0.5 * typical : 0.0;
  for (int a = 0; a < 3; ++a) {
    std::vector<float>& c = centres[a];
    std::sort(c.begin(), c.end());
    const double q_lo = c[trim];
    const double q_hi = c[c.size() - 1 - trim];
    const double fence_lo = trim > 0 ? q_lo - kFenceFactor * (q_hi - q_lo) : -std::numeric_limits<double>::infinity();
    const double fence_hi = trim > 0 ? q_hi + kFenceFactor * (q_hi - q_lo) : std::numeric_limits<double>::infinity();
    float lo = std::numeric_limits<float>::infinity();
    float hi = -std::numeric_limits<float>::infinity();
    for (const float v : c) {
      if (v < fence_lo || v > fence_hi) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    lattice.origin[a] = static_cast<float>(std::max<double>(lo - margin, -std::numeric_limits<float>::max()));
    size = std::max(size, static_cast<double>(hi) - static_cast<double>(lo) + 2 * margin);
  }
  if (!std::isfinite(size) || !(size > 0.0)) size = 1.0;
  size = std::max(size, kMinRootSize);
  lattice.scale = static_cast<float>(kLatticeSteps / size);
  lattice.cell_size_root = kLatticeSteps / static_cast<double>(lattice.scale);
  return lattice;
}

/// A scene of one of seven kinds, from the random and the adversarial.
std::vector<Box> scene(Rng& rng, int kind) {
  const float inf = std::numeric_limits<float>::infinity();
  const auto count = static_cast<std::uint32_t>(rng.uniform(0.0f, static_cast<float>(kWholeSample) + 0.99f));
  std::vector<Box> boxes;
  for (std::uint32_t i = 0; i < count; ++i) {
    float x = rng.uniform(-100.0f, 100.0f);
    float y = rng.uniform(-100.0f, 100.0f);
    float z = rng.uniform(-100.0f, 100.0f);
    if (kind == 1) x *= 0.01f, y *= 0.01f;                          // a cluster
    if (kind == 2) x = std::round(x), y = std::round(y), z = 0.0f;  // ties
    float ex = rng.uniform(0.0f, 3.0f);
    if (kind == 3 && rng.uniform(0.0f, 1.0f) < 0.01f) ex *= 1e6f;  // planes
    Box b = box(x, y, z, x + ex, y + rng.uniform(0.0f, 3.0f), z + rng.uniform(0.0f, 3.0f));
    const float r = rng.uniform(0.0f, 1.0f);
    if (kind == 4 && r < 0.02f) b.min.x = std::numeric_limits<float>::quiet_NaN();
    if (kind == 4 && r > 0.98f) b = box(-inf, -inf, -inf, inf, inf, inf);
    if (kind == 5 && r < 0.01f) b.min.x = 1e30f, b.max.x = 3e38f;  // far outliers
    if (kind == 6) b = box(0, 0, 0, 0, 0, 0);                      // all one point
    boxes.push_back(b);
  }
  return boxes;
}

TEST(FitLattice, IsTheRuleWrittenPlainly) {
  Rng rng(43);
  for (int s = 0; s < kScenes; ++s) {
    const std::vector<Box> boxes = scene(rng, s % 7);
    const detail::Lattice fast = detail::fit_lattice(boxes);
    const detail::Lattice plain = plain_fit(boxes);
    ASSERT_EQ(fast.typical_extent, plain.typical_extent) << "scene " << s;
    for (int a = 0; a < 3; ++a) ASSERT_EQ(fast.origin[a], plain.origin[a]) << "scene " << s << " axis " << a;
    ASSERT_EQ(fast.scale, plain.scale) << "scene " << s;
    ASSERT_EQ(fast.cell_size_root, plain.cell_size_root) << "scene " << s;
  }
}

}  // namespace
}  // namespace agrid::test
