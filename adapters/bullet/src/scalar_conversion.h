#pragma once
// Bullet's numbers as agrid's floats. With single-precision Bullet (btScalar is float, Debian's
// build) every conversion is exact. With double precision a box is rounded outward (min toward
// -inf, max toward +inf), so that the float box holds the double one and no overlap is lost; a
// ray's swept box grows by what rounding moved its ends, so that no hit is lost either.

#include <LinearMath/btScalar.h>
#include <LinearMath/btVector3.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "agrid/box.h"
#include "agrid/float_rounding.h"
#include "agrid/segment.h"

namespace agrid::bullet_detail {

/// x itself: a float needs no rounding.
[[nodiscard]] inline float roundDown(float x) noexcept { return x; }
[[nodiscard]] inline float roundUp(float x) noexcept { return x; }

/// The float nearest below (roundDown) or above (roundUp) a double (agrid/float_rounding.h).
[[nodiscard]] inline float roundDown(double x) noexcept { return round_down_to_float(x); }
[[nodiscard]] inline float roundUp(double x) noexcept { return round_up_to_float(x); }

/// The AABB [aabbMin, aabbMax] as the smallest float box that holds it.
[[nodiscard]] inline Box toBox(const btVector3& aabbMin, const btVector3& aabbMax) noexcept {
  return {{roundDown(aabbMin.x()), roundDown(aabbMin.y()), roundDown(aabbMin.z())},
          {roundUp(aabbMax.x()), roundUp(aabbMax.y()), roundUp(aabbMax.z())}};
}

/// v to the nearest floats.
[[nodiscard]] inline Vec3 toVec3(const btVector3& v) noexcept {
  return {static_cast<float>(v.x()), static_cast<float>(v.y()), static_cast<float>(v.z())};
}

/// x - by rounded down to a float, and one float further when by > 0 (x - by is itself rounded
/// in btScalar, by far less than a float step).
[[nodiscard]] inline float lowered(btScalar x, btScalar by) noexcept {
  const float f = roundDown(x - by);
  return by > 0 ? std::nextafter(f, -std::numeric_limits<float>::infinity()) : f;
}

/// x + by rounded up to a float; as lowered().
[[nodiscard]] inline float raised(btScalar x, btScalar by) noexcept {
  const float f = roundUp(x + by);
  return by > 0 ? std::nextafter(f, std::numeric_limits<float>::infinity()) : f;
}

/// The segment from `from` to `to` sweeping the box [aabbMin, aabbMax] (placed relative to the
/// moving point), in floats: its ends to the nearest floats, and its box grown on each axis by
/// what that moved either end, so that it sweeps everything the btScalar one does (a point of
/// the btScalar segment is within that distance, per axis, of the float segment's point at the
/// same parameter, since both ends are). Exact for single precision.
[[nodiscard]] inline Segment toSegment(const btVector3& from, const btVector3& to, const btVector3& aabbMin,
                                       const btVector3& aabbMax) noexcept {
  const Vec3 a = toVec3(from);
  const Vec3 b = toVec3(to);
  Box extent;
  float* const lo[3] = {&extent.min.x, &extent.min.y, &extent.min.z};
  float* const hi[3] = {&extent.max.x, &extent.max.y, &extent.max.z};
  for (int axis = 0; axis < 3; ++axis) {
    const btScalar moved = std::max(std::abs(from[axis] - btScalar(a[axis])), std::abs(to[axis] - btScalar(b[axis])));
    *lo[axis] = lowered(aabbMin[axis], moved);
    *hi[axis] = raised(aabbMax[axis], moved);
  }
  return {a, b, extent};
}

}  // namespace agrid::bullet_detail
