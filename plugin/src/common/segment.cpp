#include "agrid/segment.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "common/segment_math.h"

namespace agrid {
namespace {

/// How much may_meet() grows a box, relative to the segment's magnitude: meets() rounds by about
/// 2^-52 of the magnitudes it works with, which are the segment's near it.
constexpr double kMayMeetTolerance = 0x1p-30;

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
  size = 0.0;
  for (int a = 0; a < 3; ++a) {
    origin[a] = s.from[a];
    end[a] = s.to[a];
    direction[a] = static_cast<double>(s.to[a]) - static_cast<double>(s.from[a]);
    // Never infinite: the smallest non-zero difference of two floats is 2^-149.
    inverse[a] = direction[a] != 0.0 ? 1.0 / direction[a] : 0.0;
    extent_lo[a] = s.extent.min[a];
    extent_hi[a] = s.extent.max[a];
    size = std::max({size, std::abs(origin[a]), std::abs(end[a]), std::abs(extent_lo[a]), std::abs(extent_hi[a])});
  }
  const double tolerance = size * kMayMeetTolerance;
  for (int a = 0; a < 3; ++a) {
    slab_lo[a] = origin[a] + extent_hi[a] + tolerance;
    slab_hi[a] = origin[a] + extent_lo[a] - tolerance;
  }
}

bool PreparedSegment::meets(const Box& box, double* t_enter) const noexcept {
  const double lo[3] = {box.min.x, box.min.y, box.min.z};
  const double hi[3] = {box.max.x, box.max.y, box.max.z};
  // Separating axis test of the segment against the grown box: the box's three axes, exactly on
  // the segment's true end points, then the three cross products of the segment's direction
  // with them. The box is first clipped to the segment's own bounds, which changes nothing
  // (the segment lies inside them) but keeps every number finite and at the segment's scale:
  // huge or infinite boxes would otherwise lose all precision in the cross products.
  double grown_lo[3];
  double grown_hi[3];
  double centre[3];  // of the clipped box, relative to the segment's midpoint
  double half[3];    // of the clipped box
  double half_direction[3];
  for (int a = 0; a < 3; ++a) {
    // Bounds may be infinite; origin and extent are finite, so no NaN arises here.
    const double segment_lo = std::min(origin[a], end[a]);
    const double segment_hi = std::max(origin[a], end[a]);
    grown_lo[a] = lo[a] - extent_hi[a];
    grown_hi[a] = hi[a] - extent_lo[a];
    if (segment_hi < grown_lo[a] || segment_lo > grown_hi[a]) return false;
    grown_lo[a] = std::max(grown_lo[a], segment_lo);
    grown_hi[a] = std::min(grown_hi[a], segment_hi);
    const double midpoint = 0.5 * origin[a] + 0.5 * end[a];
    centre[a] = (0.5 * grown_lo[a] + 0.5 * grown_hi[a]) - midpoint;
    half[a] = 0.5 * grown_hi[a] - 0.5 * grown_lo[a];
    half_direction[a] = 0.5 * end[a] - 0.5 * origin[a];
  }
  for (int a = 0; a < 3; ++a) {
    const int b = (a + 1) % 3;
    const int c = (a + 2) % 3;
    // Axis direction x e_a.
    const double distance = std::abs(half_direction[b] * centre[c] - half_direction[c] * centre[b]);
    const double radius = half[b] * std::abs(half_direction[c]) + half[c] * std::abs(half_direction[b]);
    if (distance > radius) return false;
  }
  // Where the segment enters: only to choose the one cell that reports the hit, so rounding here
  // never changes whether it is reported.
  double t0 = 0.0;
  for (int a = 0; a < 3; ++a) {
    if (direction[a] == 0.0) continue;
    const double ta = (grown_lo[a] - origin[a]) / direction[a];
    const double tb = (grown_hi[a] - origin[a]) / direction[a];
    t0 = std::max(t0, std::min(ta, tb));
  }
  *t_enter = std::min(t0, 1.0);
  return true;
}

NodeSegment::NodeSegment(const PreparedSegment& s) noexcept {
  const double tolerance = s.size * kNodeTolerance;
  for (int a = 0; a < 3; ++a) {
    // Grown by twice the tolerance in double: rounding to the nearest float then moves a bound by
    // at most 2^-23 of the segment's magnitude, far less than one tolerance.
    clip_lo[a] = static_cast<float>(std::min(s.origin[a], s.end[a]) + s.extent_lo[a] - 2.0 * tolerance);
    clip_hi[a] = static_cast<float>(std::max(s.origin[a], s.end[a]) + s.extent_hi[a] + 2.0 * tolerance);
    slab_lo[a] = static_cast<float>(s.origin[a] + s.extent_hi[a] + tolerance);
    slab_hi[a] = static_cast<float>(s.origin[a] + s.extent_lo[a] - tolerance);
    const double inv = s.inverse[a];
    // A direction within the tolerance moves the segment less than the clip bounds were grown;
    // so does one whose inverse is beyond the floats (a segment of denormal size).
    still[a] = !(std::abs(s.direction[a]) > tolerance) || !(std::abs(inv) < static_cast<double>(FLT_MAX));
    inverse[a] = still[a] ? 0.0f : static_cast<float>(inv);
  }
}

Vec3 PreparedSegment::owner_point(const Box& b, double t) const noexcept {
  float p[3];
  for (int a = 0; a < 3; ++a) {
    // The segment's point at t, kept on the segment despite rounding ...
    double x = std::clamp(origin[a] + t * direction[a], std::min(origin[a], end[a]), std::max(origin[a], end[a]));
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
