#pragma once
// Doubles to agrid's floats, rounded outward, so that a box converted from doubles holds the
// double box and no overlap or hit is lost (the Bullet adapter for double btScalar, Python).

#include <cstdint>
#include <cstring>
#include <limits>

namespace agrid {
namespace detail {

/// The float next to f toward +inf (`up`) or -inf; f is not NaN, nor the infinity it steps away
/// from. The bits of a float count its magnitude: one more steps away from zero, one less toward
/// it (std::nextafter does the same through a call into libm, a fifth of a box's conversion).
[[nodiscard]] inline float step_float(float f, bool up) noexcept {
  if (f == 0.0f) return up ? std::numeric_limits<float>::denorm_min() : -std::numeric_limits<float>::denorm_min();
  std::uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof bits);
  bits = (f > 0.0f) == up ? bits + 1u : bits - 1u;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace detail

/// The largest float <= x; -inf, +inf and NaN stay what they are (beyond the floats' range a
/// finite x gives +-FLT_MAX or -inf).
[[nodiscard]] inline float round_down_to_float(double x) noexcept {
  const auto f = static_cast<float>(x);  // to nearest: at most one float off
  const float below = detail::step_float(f, false);  // both ways, then a select: no branch to mispredict
  return static_cast<double>(f) > x ? below : f;
}

/// The smallest float >= x; as round_down_to_float.
[[nodiscard]] inline float round_up_to_float(double x) noexcept {
  const auto f = static_cast<float>(x);
  const float above = detail::step_float(f, true);
  return static_cast<double>(f) < x ? above : f;
}

}  // namespace agrid
