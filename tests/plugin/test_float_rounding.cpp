// round_down_to_float and round_up_to_float (agrid/float_rounding.h) against std::nextafter's
// definition of the neighbouring float: on the special values (zeros, subnormals, the largest
// float and just beyond it, infinities, NaN) and on doubles of every exponent. And what "exact"
// means for double boxes, which every adapter taking doubles (Python's float64 arrays, Bullet's
// double btScalar, FCL's double) rounds outward so: double boxes that overlap are always paired;
// apart, they are paired iff no two floats lie between them (so always when less than a float step
// apart: a superset of the double pairs by at most float rounding, never a miss).

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "agrid/agrid.h"
#include "agrid/float_rounding.h"
#include "agrid_scenes/random.h"

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
  agrid::scenes::Random random(5);
  constexpr int kLeastExponent = -160;
  constexpr std::uint32_t kExponents = 301;  // -160 to 140
  for (int i = 0; i < 200000; ++i) {
    const double mantissa = random.uniform(0.5, 1.0);
    const int exponent = kLeastExponent + static_cast<int>(random.below(kExponents));
    const double x = std::ldexp(mantissa, exponent) * (i % 2 == 0 ? 1 : -1);
    expect_rounded_outward(x);
  }
}

/// A double box, as an adapter is given it.
struct DoubleBox {
  double min[3];
  double max[3];
};

/// The box agrid stores for a double one: each min rounded down, each max rounded up.
agrid::Box stored(const DoubleBox& b) {
  return {{agrid::round_down_to_float(b.min[0]), agrid::round_down_to_float(b.min[1]), agrid::round_down_to_float(b.min[2])},
          {agrid::round_up_to_float(b.max[0]), agrid::round_up_to_float(b.max[1]), agrid::round_up_to_float(b.max[2])}};
}

/// True iff agrid pairs the two double boxes.
bool paired(const DoubleBox& a, const DoubleBox& b) {
  const std::vector<agrid::Box> boxes = {stored(a), stored(b)};
  return !agrid::find_all_pairs(boxes).empty();
}

/// A unit-high box from lo to hi on the x axis.
DoubleBox slab(double lo, double hi) { return {{lo, 0.0, 0.0}, {hi, 1.0, 1.0}}; }

/// A box that starts at x and reaches past every face drawn.
DoubleBox starting_at(double x) { return slab(x, 1e9); }

TEST(FloatRounding, DoubleBoxesArePairedIffNoTwoFloatsLieBetween) {
  agrid::scenes::Random random(42);
  const auto share = [&random] { return random.uniform(); };
  constexpr int kLeastExponent = -20;
  constexpr std::uint32_t kExponents = 41;  // -20 to 20: faces from 1e-6 to 2e6
  constexpr int kFaces = 20000;
  for (int i = 0; i < kFaces; ++i) {
    // The first box ends at `face`, a double between two floats; above it lie the floats
    // `first_float` and `second_float`.
    const double mantissa = random.uniform(1.0, 2.0);
    const int exponent = kLeastExponent + static_cast<int>(random.below(kExponents));
    const double face = std::ldexp(mantissa, exponent) * (i % 2 == 0 ? 1 : -1);
    const float first_float = agrid::round_up_to_float(face);
    const float second_float = std::nextafter(first_float, Floats::infinity());
    ASSERT_LT(face, static_cast<double>(first_float)) << face;
    const DoubleBox ending = slab(-1e9, face);
    // Overlapping or touching as doubles: paired.
    EXPECT_TRUE(paired(ending, starting_at(face - share()))) << face;
    EXPECT_TRUE(paired(ending, starting_at(face))) << face;
    // Apart, with one float between (less than a float step apart, or nearly two): paired.
    const double one_float_between =
        static_cast<double>(first_float) + share() * (static_cast<double>(second_float) - static_cast<double>(first_float));
    EXPECT_TRUE(paired(ending, starting_at(std::nextafter(face, Doubles::infinity())))) << face;
    EXPECT_TRUE(paired(ending, starting_at(std::nextafter(static_cast<double>(second_float), -Doubles::infinity())))) << face;
    if (one_float_between < static_cast<double>(second_float)) {
      EXPECT_TRUE(paired(ending, starting_at(one_float_between))) << face;
    }
    // Apart, with two floats between: never paired.
    EXPECT_FALSE(paired(ending, starting_at(static_cast<double>(second_float)))) << face;
    EXPECT_FALSE(paired(ending, starting_at(static_cast<double>(second_float) + share()))) << face;
  }
}

}  // namespace
