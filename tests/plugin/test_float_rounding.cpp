// round_down_to_float and round_up_to_float (agrid/float_rounding.h) against std::nextafter's
// definition of the neighbouring float: on the special values (zeros, subnormals, the largest
// float and just beyond it, infinities, NaN) and on doubles of every exponent.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "agrid/float_rounding.h"

namespace {

using Floats = std::numeric_limits<float>;
using Doubles = std::numeric_limits<double>;

// The reference: the nearest float, stepped once by std::nextafter when it lies on the wrong side.
float reference_down(double x) {
  const auto f = static_cast<float>(x);
  return static_cast<double>(f) > x ? std::nextafter(f, -Floats::infinity()) : f;
}

float reference_up(double x) {
  const auto f = static_cast<float>(x);
  return static_cast<double>(f) < x ? std::nextafter(f, Floats::infinity()) : f;
}

// Same value and sign (so -0 and +0 differ), or both NaN.
bool same_float(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

void expect_rounded_outward(double x) {
  const float down = agrid::round_down_to_float(x);
  const float up = agrid::round_up_to_float(x);
  EXPECT_TRUE(same_float(down, reference_down(x))) << x;
  EXPECT_TRUE(same_float(up, reference_up(x))) << x;
  if (std::isnan(x)) return;
  EXPECT_LE(static_cast<double>(down), x);
  EXPECT_GE(static_cast<double>(up), x);
}

TEST(FloatRounding, SpecialValuesMatchNextafter) {
  const double max = Floats::max();
  const std::vector<double> specials = {
      0.0, -0.0, Floats::denorm_min(), -Floats::denorm_min(), Floats::denorm_min() / 3, -Floats::denorm_min() / 3,
      Doubles::denorm_min(), -Doubles::denorm_min(), Floats::min(), -Floats::min(), Floats::min() * (1 + 1e-9),
      max, -max, max * (1 + 1e-12), -max * (1 + 1e-12), max * 1.5, -max * 1.5, 1e300, -1e300, Doubles::max(),
      -Doubles::max(), Doubles::infinity(), -Doubles::infinity(), Doubles::quiet_NaN(), 1.0, -1.0, 0.1, -0.1,
      1.0 + 1e-12, -1.0 - 1e-12, 16777217.0, -16777217.0};
  for (double x : specials) expect_rounded_outward(x);
  EXPECT_TRUE(same_float(agrid::round_down_to_float(1e-300), 0.0f));
  EXPECT_TRUE(same_float(agrid::round_down_to_float(-1e-300), -Floats::denorm_min()));
  EXPECT_TRUE(same_float(agrid::round_up_to_float(1e-300), Floats::denorm_min()));
  EXPECT_EQ(agrid::round_down_to_float(max * 1.5), Floats::max());
  EXPECT_EQ(agrid::round_up_to_float(max * (1 + 1e-12)), Floats::infinity());
}

TEST(FloatRounding, DoublesOfEveryExponentMatchNextafter) {
  std::mt19937_64 random(5);
  std::uniform_real_distribution<double> mantissa(0.5, 1.0);
  std::uniform_int_distribution<int> exponent(-160, 140);
  for (int i = 0; i < 200000; ++i) {
    const double x = std::ldexp(mantissa(random), exponent(random)) * (i % 2 == 0 ? 1 : -1);
    expect_rounded_outward(x);
  }
}

}  // namespace
