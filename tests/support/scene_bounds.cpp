#include "support/scene_bounds.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "oracle/oracle.h"
#include "support/coordinates.h"

namespace agrid::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
/// Coordinates beyond this are a scene's extreme boxes, not its ordinary ones.
constexpr float kCoreLimit = 1e6f;
/// What a scene without any box to bound is given.
constexpr Box kUnitBox{{0, 0, 0}, {1, 1, 1}};

}  // namespace

bool in_core(const Box& box) {
  if (!oracle::valid(box)) return false;
  for (int a = 0; a < 3; ++a) {
    if (!(std::fabs(box.min[a]) < kCoreLimit && std::fabs(box.max[a]) < kCoreLimit)) return false;
  }
  return true;
}

Box core_bounds(std::span<const Box> boxes) {
  Box b{{kInf, kInf, kInf}, {-kInf, -kInf, -kInf}};
  bool any = false;
  for (const Box& x : boxes) {
    if (!in_core(x)) continue;
    any = true;
    b.min = {std::min(b.min.x, x.min.x), std::min(b.min.y, x.min.y), std::min(b.min.z, x.min.z)};
    b.max = {std::max(b.max.x, x.max.x), std::max(b.max.y, x.max.y), std::max(b.max.z, x.max.z)};
  }
  return any ? b : kUnitBox;
}

Box finite_bounds(std::span<const Box> boxes) {
  Box b{{kInf, kInf, kInf}, {-kInf, -kInf, -kInf}};
  bool any = false;
  for (const Box& x : boxes) {
    if (!oracle::valid(x)) continue;
    for (int a = 0; a < 3; ++a) {
      for (float v : {x.min[a], x.max[a]}) {
        if (!std::isfinite(v)) continue;
        any = true;
        if (v < b.min[a]) set_axis(b.min, a, v);
        if (v > b.max[a]) set_axis(b.max, a, v);
      }
    }
  }
  if (!any) return kUnitBox;
  for (int a = 0; a < 3; ++a) {
    if (!(b.min[a] <= b.max[a])) {
      set_axis(b.min, a, kUnitBox.min[a]);
      set_axis(b.max, a, kUnitBox.max[a]);
    }
  }
  return b;
}

}  // namespace agrid::test
