#pragma once
// Doubles to agrid's floats, rounded outward, so that a box converted from doubles holds the
// double box and no overlap or hit is lost (the Bullet adapter for double btScalar, Python).

#include <cmath>
#include <limits>

namespace agrid {

/// The largest float <= x; -inf, +inf and NaN stay what they are (beyond the floats' range a
/// finite x gives +-FLT_MAX or -inf).
[[nodiscard]] inline float round_down_to_float(double x) noexcept {
  const auto f = static_cast<float>(x);  // to nearest: at most one float off
  return static_cast<double>(f) > x ? std::nextafter(f, -std::numeric_limits<float>::infinity()) : f;
}

/// The smallest float >= x; as round_down_to_float.
[[nodiscard]] inline float round_up_to_float(double x) noexcept {
  const auto f = static_cast<float>(x);
  return static_cast<double>(f) < x ? std::nextafter(f, std::numeric_limits<float>::infinity()) : f;
}

}  // namespace agrid
