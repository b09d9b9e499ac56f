#include "agrid/segment.h"

#include <algorithm>
#include <cmath>

#include "segment_math.h"

namespace agrid {
namespace {

[[nodiscard]] bool is_finite(const Vec3& v) noexcept {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

}  // namespace

bool is_valid(const Segment& s) noexcept {
  return is_finite(s.from) && is_finite(s.to) && is_finite(s.extent.min) && is_finite(s.extent.max) &&
         is_valid(s.extent);
}

bool hits(const Segment& s, const Box& b) noexcept {
  if (!is_valid(s) || !is_valid(b)) return false;
  double t = 0.0;
  return detail::PreparedSegment(s).meets(b, &t);
}

namespace detail {

PreparedSegment::PreparedSegment(const Segment& s) noexcept {
  for (int a = 0; a < 3; ++a) {
    origin[a] = s.from[a];
    direction[a] = static_cast<double>(s.to[a]) - static_cast<double>(s.from[a]);
    extent_lo[a] = s.extent.min[a];
    extent_hi[a] = s.extent.max[a];
  }
}

bool PreparedSegment::meets(const double lo[3], const double hi[3], double* t_enter) const noexcept {
  double t0 = 0.0;
  double t1 = 1.0;
  for (int a = 0; a < 3; ++a) {
    // Bounds may be infinite; origin and extent are finite, so no NaN arises.
    const double grown_lo = lo[a] - extent_hi[a];
    const double grown_hi = hi[a] - extent_lo[a];
    if (direction[a] == 0.0) {
      // Parallel to this slab: a point test, no division by zero.
      if (origin[a] < grown_lo || origin[a] > grown_hi) return false;
      continue;
    }
    double ta = (grown_lo - origin[a]) / direction[a];
    double tb = (grown_hi - origin[a]) / direction[a];
    if (ta > tb) std::swap(ta, tb);
    t0 = std::max(t0, ta);
    t1 = std::min(t1, tb);
    if (t0 > t1) return false;
  }
  *t_enter = t0;
  return true;
}

bool PreparedSegment::meets(const Box& b, double* t_enter) const noexcept {
  const double lo[3] = {b.min.x, b.min.y, b.min.z};
  const double hi[3] = {b.max.x, b.max.y, b.max.z};
  return meets(lo, hi, t_enter);
}

Vec3 PreparedSegment::owner_point(const Box& b, double t) const noexcept {
  float p[3];
  for (int a = 0; a < 3; ++a) {
    const double end = origin[a] + direction[a];
    // The segment's point at t, kept on the segment despite rounding ...
    double x = std::clamp(origin[a] + t * direction[a], std::min(origin[a], end), std::max(origin[a], end));
    // ... moved to the swept box's point nearest the segment (the point itself when the
    // extent contains zero) ...
    x += std::clamp(0.0, extent_lo[a], extent_hi[a]);
    // ... and then into the box: the result lies in both the box and the swept box.
    x = std::clamp(x, static_cast<double>(b.min[a]), static_cast<double>(b.max[a]));
    p[a] = static_cast<float>(x);  // within [b.min, b.max]: both ends are floats
  }
  return {p[0], p[1], p[2]};
}

}  // namespace detail
}  // namespace agrid
