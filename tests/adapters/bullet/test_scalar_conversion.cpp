// btScalar to agrid's floats (adapters/bullet/src/scalar_conversion.h), compiled twice: with
// Bullet's default float btScalar, where every conversion must be exact, and with
// BT_USE_DOUBLE_PRECISION, where boxes must round outward and a ray's swept box must cover what
// rounding moved its ends, so that no overlap and no hit is ever lost. Tests of rounding that
// only double has are compiled for double only.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "agrid/box.h"
#include "agrid/segment.h"
#include "agrid_scenes/random.h"
#include "scalar_conversion.h"
#include "segment_reference.h"

namespace {

using agrid::bullet_detail::roundDown;
using agrid::bullet_detail::roundUp;
using agrid::bullet_detail::toBox;
using agrid::bullet_detail::toSegment;
using agrid::scenes::Random;
using agrid::test::segment_meets;

constexpr bool kDouble = sizeof(btScalar) == sizeof(double);
constexpr float kFloatInf = std::numeric_limits<float>::infinity();
constexpr float kFloatMax = std::numeric_limits<float>::max();
constexpr float kFloatDenormMin = std::numeric_limits<float>::denorm_min();
const btScalar kInf = std::numeric_limits<btScalar>::infinity();
const btScalar kNaN = std::numeric_limits<btScalar>::quiet_NaN();

#if defined(BT_USE_DOUBLE_PRECISION)
// x lies in [down, up], and down and up are the same float (x is one) or adjacent floats.
void expect_tight(btScalar x, float down, float up) {
  SCOPED_TRACE(testing::Message() << "x = " << static_cast<double>(x));
  EXPECT_LE(static_cast<double>(down), static_cast<double>(x));
  EXPECT_GE(static_cast<double>(up), static_cast<double>(x));
  EXPECT_TRUE(down == up || std::nextafter(down, kFloatInf) == up);
}
#endif

TEST(ScalarConversion, ExactValuesStayExact) {
  for (const btScalar x : {btScalar(0), btScalar(-0.0), btScalar(0.5), btScalar(-3), btScalar(1e-3f), btScalar(kFloatMax),
                           btScalar(-kFloatMax), btScalar(kFloatDenormMin), kInf, -kInf}) {
    EXPECT_EQ(roundDown(x), static_cast<float>(x));
    EXPECT_EQ(roundUp(x), static_cast<float>(x));
  }
}

TEST(ScalarConversion, NanStaysNan) {
  EXPECT_TRUE(std::isnan(roundDown(kNaN)));
  EXPECT_TRUE(std::isnan(roundUp(kNaN)));
  EXPECT_FALSE(agrid::is_valid(toBox(btVector3(kNaN, 0, 0), btVector3(1, 1, 1))));
  EXPECT_FALSE(agrid::is_valid(toBox(btVector3(0, 0, 0), btVector3(1, kNaN, 1))));
}

#if defined(BT_USE_DOUBLE_PRECISION)
TEST(ScalarConversion, ValuesBetweenTwoFloatsRoundOutward) {
  const double one_and_a_bit = 1.0 + std::ldexp(1.0, -30);  // between 1 and the next float
  EXPECT_EQ(roundDown(btScalar(one_and_a_bit)), 1.0f);
  EXPECT_EQ(roundUp(btScalar(one_and_a_bit)), std::nextafter(1.0f, 2.0f));
  EXPECT_EQ(roundDown(btScalar(-one_and_a_bit)), -std::nextafter(1.0f, 2.0f));
  EXPECT_EQ(roundUp(btScalar(-one_and_a_bit)), -1.0f);
  for (const double x : {0.1, -0.1, 1e30, -1e30, 1e-30, -1e-30, 3.141592653589793, 123456789.123}) {
    expect_tight(btScalar(x), roundDown(btScalar(x)), roundUp(btScalar(x)));
  }
}
#endif

#if defined(BT_USE_DOUBLE_PRECISION)
TEST(ScalarConversion, BeyondTheFloatsRangeRoundsToTheLargestFloatOrInfinity) {
  EXPECT_EQ(roundDown(btScalar(1e300)), kFloatMax);
  EXPECT_EQ(roundUp(btScalar(1e300)), kFloatInf);
  EXPECT_EQ(roundDown(btScalar(-1e300)), -kFloatInf);
  EXPECT_EQ(roundUp(btScalar(-1e300)), -kFloatMax);
  // Just past FLT_MAX, where rounding to nearest already gives infinity.
  const double past = static_cast<double>(kFloatMax) * (1.0 + std::ldexp(1.0, -25));
  EXPECT_EQ(roundDown(btScalar(past)), kFloatMax);
  EXPECT_EQ(roundUp(btScalar(past)), kFloatInf);
}
#endif

#if defined(BT_USE_DOUBLE_PRECISION)
TEST(ScalarConversion, DenormalsAndValuesBelowThemRoundOutward) {
  const double tiny = 1e-50;  // far below the smallest float denormal
  EXPECT_EQ(roundDown(btScalar(tiny)), 0.0f);
  EXPECT_EQ(roundUp(btScalar(tiny)), kFloatDenormMin);
  EXPECT_EQ(roundDown(btScalar(-tiny)), -kFloatDenormMin);
  EXPECT_EQ(roundUp(btScalar(-tiny)), -0.0f);
  const double denormal = 1e-40;  // a float denormal's range, not a float
  expect_tight(btScalar(denormal), roundDown(btScalar(denormal)), roundUp(btScalar(denormal)));
  expect_tight(btScalar(-denormal), roundDown(btScalar(-denormal)), roundUp(btScalar(-denormal)));
}
#endif

TEST(ScalarConversion, RandomValuesOfEveryMagnitudeAreBracketedTightly) {
  // Binary exponents from below the float denormals to beyond FLT_MAX.
  constexpr int kLowestExponent = -160;
  constexpr int kHighestExponent = 140;
  constexpr auto kExponents = static_cast<std::uint32_t>(kHighestExponent - kLowestExponent + 1);
  Random rng(20261123);
  for (int i = 0; i < 20000; ++i) {
    const double mantissa = rng.uniform(-1.0, 1.0);
    const int exponent = kLowestExponent + static_cast<int>(rng.below(kExponents));
    const auto x = static_cast<btScalar>(std::ldexp(mantissa, exponent));
    const float down = roundDown(x);
    const float up = roundUp(x);
    ASSERT_LE(static_cast<double>(down), static_cast<double>(x)) << static_cast<double>(x);
    ASSERT_GE(static_cast<double>(up), static_cast<double>(x)) << static_cast<double>(x);
    // Adjacent floats (or equal when x is a float); beyond the range, FLT_MAX and infinity.
    ASSERT_TRUE(down == up || std::nextafter(down, kFloatInf) == up) << static_cast<double>(x);
    if (!kDouble) {
      ASSERT_EQ(down, up);
    }
  }
}

TEST(ScalarConversion, BoxesThatTouchInBtScalarStillOverlapAsFloats) {
  // Two boxes sharing a face at a coordinate no float holds (with float btScalar, one that is).
  const btScalar face = kDouble ? btScalar(0.1) : btScalar(0.1f);
  const agrid::Box a = toBox(btVector3(-1, -1, -1), btVector3(face, 1, 1));
  const agrid::Box b = toBox(btVector3(face, -1, -1), btVector3(2, 1, 1));
  EXPECT_TRUE(agrid::overlaps(a, b));
  // And every float box holds its btScalar box.
  Random rng(7);
  const auto coordinate = [&rng] { return static_cast<btScalar>(rng.uniform(-1e3, 1e3)); };
  for (int i = 0; i < 5000; ++i) {
    btVector3 lo{coordinate(), coordinate(), coordinate()};
    btVector3 hi = lo + btVector3(btScalar(static_cast<double>(coordinate()) * 1e-3 + 1e-3), btScalar(1e-9), btScalar(0));
    const agrid::Box f = toBox(lo, hi);
    for (int axis = 0; axis < 3; ++axis) {
      ASSERT_LE(static_cast<double>(f.min[axis]), static_cast<double>(lo[axis]));
      ASSERT_GE(static_cast<double>(f.max[axis]), static_cast<double>(hi[axis]));
    }
  }
}

TEST(ScalarConversion, InfiniteBoxesStayInfinite) {
  const agrid::Box all = toBox(btVector3(-kInf, -kInf, -kInf), btVector3(kInf, kInf, kInf));
  EXPECT_EQ(all.min.x, -kFloatInf);
  EXPECT_EQ(all.max.z, kFloatInf);
  EXPECT_TRUE(agrid::is_valid(all));
  // Bullet's static plane reports +-1e18 on every axis: a float holds nearly that.
  const agrid::Box plane = toBox(btVector3(-1e18f, -1e18f, -1e18f), btVector3(1e18f, 1e18f, 1e18f));
  EXPECT_LE(static_cast<double>(plane.min.x), -1e18 * (1 - 1e-7));
  EXPECT_GE(static_cast<double>(plane.max.x), 1e18 * (1 - 1e-7));
}

TEST(ScalarConversion, SegmentsNeverMissWhatTheyHitInBtScalar) {
  Random rng(11);
  const auto coordinate = [&rng] { return static_cast<btScalar>(rng.uniform(-10.0, 10.0)); };
  const auto size = [&rng] { return static_cast<btScalar>(rng.uniform(1e-9, 1.0)); };
  int hits = 0;
  for (int i = 0; i < 20000; ++i) {
    const btVector3 from{coordinate(), coordinate(), coordinate()};
    const btVector3 to{coordinate(), coordinate(), coordinate()};
    // Boxes near the segment: centred on a point of it, moved by about their size.
    const double t = rng.uniform();
    const btScalar half = size();
    const btVector3 centre = from + (to - from) * btScalar(t) +
                             btVector3{coordinate(), coordinate(), coordinate()} *
                                 (half * btScalar(0.2));
    const btVector3 lo = centre - btVector3(half, half, half);
    const btVector3 hi = centre + btVector3(half, half, half);
    if (!segment_meets(from, to, lo, hi)) continue;
    ++hits;
    ASSERT_TRUE(agrid::hits(toSegment(from, to, btVector3(0, 0, 0), btVector3(0, 0, 0)), toBox(lo, hi)))
        << "segment " << i << " misses a box it meets";
  }
  EXPECT_GT(hits, 5000);  // the scene is mostly hits, so the check has teeth
}

TEST(ScalarConversion, ASegmentGrazingABoxEdgeStillHitsIt) {
  // The ray runs along the box's top face, at a height no float holds (with double).
  const btScalar top = kDouble ? btScalar(0.3) : btScalar(0.3f);
  const btVector3 lo(-1, -1, -1);
  const btVector3 hi(1, top, 1);
  const btVector3 from(-5, top, 0);
  const btVector3 to(5, top, 0);
  ASSERT_TRUE(segment_meets(from, to, lo, hi));
  EXPECT_TRUE(agrid::hits(toSegment(from, to, btVector3(0, 0, 0), btVector3(0, 0, 0)), toBox(lo, hi)));
}

#if defined(BT_USE_DOUBLE_PRECISION)
TEST(ScalarConversion, ADiagonalThroughABoxEdgeStillHitsItWhenRoundingMovesItsEnds) {
  // In the z = 0.5 plane, a segment of slope 1 through the box's edge x = 1, y = 0, and nowhere
  // else in the box [0, 1]^3. Both ends round to nearest floats further along +x (from by
  // 3 * 2^-30, to by 2^-30), so the float segment passes just outside the edge: only the swept
  // box's growth keeps the hit.
  const double u = std::ldexp(1.0, -30);
  const btVector3 from(btScalar(1 - 3 * u), btScalar(-3 * u), btScalar(0.5));
  const btVector3 to(btScalar(1 + 128 * u - u), btScalar(128 * u - u), btScalar(0.5));
  const btVector3 lo(0, 0, 0);
  const btVector3 hi(1, 1, 1);
  ASSERT_TRUE(segment_meets(from, to, lo, hi));
  const agrid::Segment plain{agrid::bullet_detail::toVec3(from), agrid::bullet_detail::toVec3(to), {}};
  ASSERT_FALSE(agrid::hits(plain, toBox(lo, hi))) << "the ends no longer round away from the edge";
  EXPECT_TRUE(agrid::hits(toSegment(from, to, btVector3(0, 0, 0), btVector3(0, 0, 0)), toBox(lo, hi)));
}
#endif

#if !defined(BT_USE_DOUBLE_PRECISION)
TEST(ScalarConversion, SingleSegmentsAreExactInFloat) {
  const agrid::Segment s = toSegment(btVector3(1, 2, 3), btVector3(4, 5, 6), btVector3(-1, -2, -3), btVector3(1, 2, 3));
  EXPECT_EQ(s.from.x, 1.0f);
  EXPECT_EQ(s.to.z, 6.0f);
  EXPECT_EQ(s.extent.min.y, -2.0f);
  EXPECT_EQ(s.extent.max.z, 3.0f);
}
#endif

}  // namespace
