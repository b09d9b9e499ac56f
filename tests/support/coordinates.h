#pragma once
// Coordinates for the test generators: computed in double, rounded once to float.

#include <algorithm>
#include <cfloat>

#include "agrid/box.h"

namespace agrid::test {

/// v rounded to float.
[[nodiscard]] inline float f(double v) { return static_cast<float>(v); }

/// v rounded to float, clamped first so that it stays finite.
[[nodiscard]] inline float finite_f(double v) {
  return f(std::clamp(v, -static_cast<double>(FLT_MAX), static_cast<double>(FLT_MAX)));
}

/// The box of centre c and half-extents h. Rounding to float is monotone, so min <= max
/// survives it.
[[nodiscard]] inline Box make_box(double cx, double cy, double cz, double hx, double hy, double hz) {
  return Box{{f(cx - hx), f(cy - hy), f(cz - hz)}, {f(cx + hx), f(cy + hy), f(cz + hz)}};
}

/// The point (x, y, z), kept finite.
[[nodiscard]] inline Vec3 vec(double x, double y, double z) { return Vec3{finite_f(x), finite_f(y), finite_f(z)}; }

/// v's coordinate on `axis`, as a double.
[[nodiscard]] inline double axis_of(const Vec3& v, int axis) { return static_cast<double>(v[axis]); }

/// Sets v's coordinate on `axis` (0 x, 1 y, 2 z).
inline void set_axis(Vec3& v, int axis, float value) {
  if (axis == 0) v.x = value;
  if (axis == 1) v.y = value;
  if (axis == 2) v.z = value;
}

}  // namespace agrid::test
