// agrid::hits and agrid::is_valid(Segment): hand-computed cases, and a randomized comparison
// with an independent double-precision slab test wherever the answer is not borderline.

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

#include "agrid/segment.h"
#include "oracle/oracle.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

const Box kUnit{{0, 0, 0}, {1, 1, 1}};

Segment ray(Vec3 from, Vec3 to) { return Segment{from, to, Box{}}; }

// hits() must be symmetric in the direction of travel: report both ways.
::testing::AssertionResult hits_both_ways(const Segment& s, const Box& b) {
  const bool forward = hits(s, b);
  const bool backward = hits(Segment{s.to, s.from, s.extent}, b);
  if (forward && backward) return ::testing::AssertionSuccess();
  if (forward != backward) {
    return ::testing::AssertionFailure() << "hits differs by direction: forward " << forward
                                         << ", backward " << backward;
  }
  return ::testing::AssertionFailure() << "no hit";
}

TEST(SegmentValidity, HandCases) {
  EXPECT_TRUE(is_valid(ray({0, 0, 0}, {1, 1, 1})));
  EXPECT_TRUE(is_valid(ray({0, 0, 0}, {0, 0, 0})));
  EXPECT_TRUE(is_valid(ray({-1e18f, 0, 0}, {1e18f, 0, 0})));
  EXPECT_TRUE(is_valid(ray({-FLT_MAX, -FLT_MAX, -FLT_MAX}, {FLT_MAX, FLT_MAX, FLT_MAX})));
  EXPECT_TRUE(is_valid(Segment{{0, 0, 0}, {1, 1, 1}, Box{{2, 3, 4}, {5, 6, 7}}}));
  EXPECT_TRUE(is_valid(Segment{{0, 0, 0}, {1, 1, 1}, Box{{-2, -3, -4}, {-2, -3, -4}}}));
  EXPECT_FALSE(is_valid(ray({kNaN, 0, 0}, {1, 1, 1})));
  EXPECT_FALSE(is_valid(ray({0, 0, 0}, {1, 1, kNaN})));
  EXPECT_FALSE(is_valid(ray({-kInf, 0, 0}, {1, 1, 1})));
  EXPECT_FALSE(is_valid(ray({0, 0, 0}, {1, kInf, 1})));
  EXPECT_FALSE(is_valid(Segment{{0, 0, 0}, {1, 1, 1}, Box{{1, 0, 0}, {0, 1, 1}}}));
  EXPECT_FALSE(is_valid(Segment{{0, 0, 0}, {1, 1, 1}, Box{{0, kNaN, 0}, {1, 1, 1}}}));
  EXPECT_FALSE(is_valid(Segment{{0, 0, 0}, {1, 1, 1}, Box{{-kInf, 0, 0}, {1, 1, 1}}}));
  EXPECT_FALSE(is_valid(Segment{{0, 0, 0}, {1, 1, 1}, Box{{0, 0, 0}, {1, 1, kInf}}}));
  // The library's validity agrees with the oracle's on every generated segment.
  const auto scene = random_scene(100, Density::kMedium, 1);
  for (const Segment& s : query_segments(scene, 50, 1)) {
    EXPECT_EQ(is_valid(s), oracle::valid(s)) << ::testing::PrintToString(s);
  }
}

TEST(Hits, ThroughAndPast) {
  EXPECT_TRUE(hits_both_ways(ray({-1, 0.5f, 0.5f}, {2, 0.5f, 0.5f}), kUnit));
  EXPECT_FALSE(hits(ray({-1, 1.5f, 0.5f}, {2, 1.5f, 0.5f}), kUnit));
  EXPECT_FALSE(hits(ray({-1, 0.5f, -0.5f}, {2, 0.5f, -0.5f}), kUnit));
  EXPECT_TRUE(hits_both_ways(ray({-1, -1, -1}, {2, 2, 2}), kUnit));        // main diagonal
  EXPECT_TRUE(hits_both_ways(ray({-1, 0.5f, -1}, {2, 0.5f, 2}), kUnit));
  EXPECT_FALSE(hits(ray({5, 5, 5}, {6, 7, 8}), kUnit));                    // far away
  EXPECT_FALSE(hits(ray({2, 0.5f, 0.5f}, {5, 0.5f, 0.5f}), kUnit));        // pointing away
}

TEST(Hits, FacesEdgesCornersAreClosed) {
  EXPECT_TRUE(hits_both_ways(ray({-1, 1, 0.5f}, {2, 1, 0.5f}), kUnit));    // along the top face
  EXPECT_TRUE(hits_both_ways(ray({-1, 0, 0.5f}, {2, 0, 0.5f}), kUnit));    // along the bottom face
  EXPECT_TRUE(hits_both_ways(ray({-1, 1, 1}, {2, 1, 1}), kUnit));          // along an edge
  EXPECT_TRUE(hits_both_ways(ray({0.5f, 0, -3}, {0.5f, 0, 3}), kUnit));     // along a face in z
  EXPECT_TRUE(hits_both_ways(ray({0, 2, 0.5f}, {2, 0, 0.5f}), kUnit));     // grazing the corner (1, 1)
  EXPECT_TRUE(hits_both_ways(ray({-1, -1, -1}, {0, 0, 0}), kUnit));        // ending on a corner
  const float above = std::nextafter(1.0f, 2.0f);
  EXPECT_FALSE(hits(ray({-1, above, 0.5f}, {2, above, 0.5f}), kUnit));     // one ulp above the face
  EXPECT_FALSE(hits(ray({0, 2.5f, 0.5f}, {2.5f, 0, 0.5f}), kUnit));         // passes beyond the corner
  // The segment's bounding box meets the box, the segment does not.
  EXPECT_FALSE(hits(ray({-1, 0.5f, 0.5f}, {0.5f, -1, 0.5f}), kUnit));
  EXPECT_FALSE(hits(ray({0.5f, 2, 0.5f}, {2, 0.5f, 0.5f}), kUnit));  // x + y = 2.5
}

TEST(Hits, EndpointsAndZeroLength) {
  EXPECT_TRUE(hits_both_ways(ray({0.5f, 0.5f, 0.5f}, {5, 5, 5}), kUnit));  // starting inside
  EXPECT_TRUE(hits_both_ways(ray({0.2f, 0.5f, 0.5f}, {0.7f, 0.5f, 0.5f}), kUnit));  // inside
  EXPECT_TRUE(hits_both_ways(ray({-1, 0.5f, 0.5f}, {0, 0.5f, 0.5f}), kUnit));  // ending on a face
  EXPECT_TRUE(hits_both_ways(ray({1, 0.5f, 0.5f}, {3, 0.5f, 0.5f}), kUnit));   // starting on a face
  EXPECT_FALSE(hits(ray({-1, 0.5f, 0.5f}, {-0x1p-20f, 0.5f, 0.5f}), kUnit));   // stopping short
  EXPECT_FALSE(hits(ray({-1, 0.5f, 0.5f}, {-std::numeric_limits<float>::denorm_min(), 0.5f, 0.5f}), kUnit));
  EXPECT_TRUE(hits(ray({0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}), kUnit));       // a point inside
  EXPECT_TRUE(hits(ray({1, 1, 1}, {1, 1, 1}), kUnit));                         // a point on the corner
  EXPECT_TRUE(hits(ray({0, 0.5f, 1}, {0, 0.5f, 1}), kUnit));                   // a point on an edge
  EXPECT_FALSE(hits(ray({1.5f, 0.5f, 0.5f}, {1.5f, 0.5f, 0.5f}), kUnit));      // a point outside
  // A zero-size box is hit by a segment passing through it, and by one ending on it.
  const Box point{{0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}};
  EXPECT_TRUE(hits_both_ways(ray({0, 0, 0}, {1, 1, 1}), point));
  EXPECT_TRUE(hits_both_ways(ray({0, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}), point));
  EXPECT_FALSE(hits(ray({0, 0.5f, 0.5f}, {0.25f, 0.5f, 0.5f}), point));
  EXPECT_FALSE(hits(ray({0, 0.5f, 0.5f}, {1, 0.75f, 0.5f}), point));
}

TEST(Hits, ZeroDirectionComponents) {
  // Parallel to x: decided on y and z alone, including exactly on the slab boundaries, where a
  // naive slab test computes 0 * inf = NaN.
  EXPECT_TRUE(hits_both_ways(ray({-5, 0, 0}, {5, 0, 0}), kUnit));
  EXPECT_TRUE(hits_both_ways(ray({-5, 1, 1}, {5, 1, 1}), kUnit));
  EXPECT_FALSE(hits(ray({-5, 2, 0.5f}, {5, 2, 0.5f}), kUnit));
  EXPECT_FALSE(hits(ray({-5, -0.5f, 0.5f}, {5, -0.5f, 0.5f}), kUnit));
  // Parallel to y and z at once, moving only in x, starting exactly on the min face.
  EXPECT_TRUE(hits_both_ways(ray({0, 0.5f, 0.5f}, {-3, 0.5f, 0.5f}), kUnit));
  // Moving in y only, at x = 1 (the max face) and z = 0 (the min face).
  EXPECT_TRUE(hits_both_ways(ray({1, -4, 0}, {1, 4, 0}), kUnit));
  EXPECT_FALSE(hits(ray({1.25f, -4, 0}, {1.25f, 4, 0}), kUnit));
  // -0 direction components and -0 coordinates.
  EXPECT_TRUE(hits_both_ways(ray({-0.0f, -5, -0.0f}, {0.0f, 5, 0.0f}), kUnit));
}

TEST(Hits, InfiniteBoxes) {
  const Box slab_x{{-kInf, 0, 0}, {kInf, 1, 1}};
  EXPECT_TRUE(hits_both_ways(ray({5, 0.5f, 0.5f}, {6, 0.5f, 0.5f}), slab_x));
  EXPECT_TRUE(hits_both_ways(ray({1e30f, 0.5f, 0.5f}, {-1e30f, 0.5f, 0.5f}), slab_x));
  EXPECT_TRUE(hits(ray({-FLT_MAX, 1, 1}, {-FLT_MAX, 1, 1}), slab_x));
  EXPECT_FALSE(hits(ray({5, 2, 0.5f}, {6, 2, 0.5f}), slab_x));
  EXPECT_TRUE(hits_both_ways(ray({5, 2, 0.5f}, {6, -2, 0.5f}), slab_x));
  const Box half{{-kInf, 0, 0}, {0, 1, 1}};
  EXPECT_FALSE(hits(ray({5, 0.5f, 0.5f}, {1, 0.5f, 0.5f}), half));
  EXPECT_TRUE(hits_both_ways(ray({5, 0.5f, 0.5f}, {0, 0.5f, 0.5f}), half));
  EXPECT_TRUE(hits(ray({-1e30f, 0.5f, 0.5f}, {-1e30f, 0.5f, 0.5f}), half));
  const Box all{{-kInf, -kInf, -kInf}, {kInf, kInf, kInf}};
  EXPECT_TRUE(hits_both_ways(ray({1, 2, 3}, {4, 5, 6}), all));
  EXPECT_TRUE(hits(ray({FLT_MAX, -FLT_MAX, 0}, {FLT_MAX, -FLT_MAX, 0}), all));
  const Box at_infinity{{kInf, 0, 0}, {kInf, 1, 1}};
  EXPECT_FALSE(hits(ray({0, 0.5f, 0.5f}, {FLT_MAX, 0.5f, 0.5f}), at_infinity));
  const Box octant{{0, 0, 0}, {kInf, kInf, kInf}};
  EXPECT_TRUE(hits_both_ways(ray({-1, -1, -1}, {1e20f, 1e20f, 1e20f}), octant));
  EXPECT_FALSE(hits(ray({-1, -1, -1}, {-1, 5, 5}), octant));
}

TEST(Hits, PlanesAt1e18) {
  const Box ground{{-1e18f, -1e18f, -1e18f}, {1e18f, 0, 1e18f}};  // Bullet's static plane
  EXPECT_TRUE(hits_both_ways(ray({0, 10, 0}, {0, -10, 0}), ground));
  EXPECT_TRUE(hits_both_ways(ray({0, 10, 0}, {0, 0, 0}), ground));          // ending on the surface
  EXPECT_FALSE(hits(ray({0, 10, 0}, {5, 1, 5}), ground));
  EXPECT_TRUE(hits_both_ways(ray({1e17f, 1, 3}, {1e17f, -1, 3}), ground));
  EXPECT_TRUE(hits_both_ways(ray({-5, 0, 0}, {5, 0, 0}), ground));          // along the surface
  EXPECT_FALSE(hits(ray({2e18f, -1, 0}, {3e18f, -1, 0}), ground));          // beyond the plane's end
  EXPECT_TRUE(hits_both_ways(ray({0, 1, 0}, {1e18f, -1e18f, 0}), ground));
  EXPECT_TRUE(hits_both_ways(ray({-FLT_MAX, -5, 0}, {FLT_MAX, -5, 0}), ground));
  EXPECT_TRUE(hits(ray({1e18f, -1e18f, 1e18f}, {1e18f, -1e18f, 1e18f}), ground));  // corner point
}

TEST(Hits, SweptExtents) {
  // A unit box grown by a [-0.5, 0.5]^3 extent is [-0.5, 1.5]^3, closed.
  const Box around{{-0.5f, -0.5f, -0.5f}, {0.5f, 0.5f, 0.5f}};
  EXPECT_TRUE(hits_both_ways(Segment{{-5, 1.4f, 0.5f}, {5, 1.4f, 0.5f}, around}, kUnit));
  EXPECT_TRUE(hits_both_ways(Segment{{-5, 1.5f, 0.5f}, {5, 1.5f, 0.5f}, around}, kUnit));
  EXPECT_FALSE(hits(Segment{{-5, 1.6f, 0.5f}, {5, 1.6f, 0.5f}, around}, kUnit));
  EXPECT_TRUE(hits_both_ways(Segment{{-5, 0.5f, 0.5f}, {-0.5f, 0.5f, 0.5f}, around}, kUnit));
  EXPECT_FALSE(hits(Segment{{-5, 0.5f, 0.5f}, {-0.75f, 0.5f, 0.5f}, around}, kUnit));
  // An extent entirely to the +x side of the moving point: grown x range [0 - 3, 1 - 2] = [-3, -1].
  const Box ahead{{2, 0, 0}, {3, 0, 0}};
  EXPECT_TRUE(hits(Segment{{-2, 0.5f, 0.5f}, {-2, 0.5f, 0.5f}, ahead}, kUnit));
  EXPECT_FALSE(hits(Segment{{0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}, ahead}, kUnit));  // point inside, box not
  EXPECT_FALSE(hits(Segment{{-10, 0.5f, 0.5f}, {-3.5f, 0.5f, 0.5f}, ahead}, kUnit));
  EXPECT_TRUE(hits_both_ways(Segment{{-10, 0.5f, 0.5f}, {-3, 0.5f, 0.5f}, ahead}, kUnit));
  EXPECT_FALSE(hits(Segment{{0.5f, 0.5f, 0.5f}, {5, 0.5f, 0.5f}, ahead}, kUnit));
  EXPECT_TRUE(hits_both_ways(Segment{{5, 0.5f, 0.5f}, {-5, 0.5f, 0.5f}, ahead}, kUnit));
  EXPECT_FALSE(hits(Segment{{-2, 1.25f, 0.5f}, {-2, 1.25f, 0.5f}, ahead}, kUnit));
  // An extent entirely below the moving point in y: grown y range [0 + 2, 1 + 3] = [2, 4].
  const Box below{{0, -3, 0}, {0, -2, 0}};
  EXPECT_TRUE(hits(Segment{{0.5f, 3, 0.5f}, {0.5f, 3, 0.5f}, below}, kUnit));
  EXPECT_TRUE(hits(Segment{{0.5f, 4, 0.5f}, {0.5f, 4, 0.5f}, below}, kUnit));
  EXPECT_FALSE(hits(Segment{{0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}, below}, kUnit));
  EXPECT_TRUE(hits_both_ways(Segment{{0.5f, -9, 0.5f}, {0.5f, 9, 0.5f}, below}, kUnit));
  // Sweeping a box along a face: the swept box's min y sits exactly on the unit box's max y.
  const Box cube{{0, 0, 0}, {1, 1, 1}};
  EXPECT_TRUE(hits_both_ways(Segment{{-5, 1, 0}, {5, 1, 0}, cube}, kUnit));
  EXPECT_FALSE(hits(Segment{{-5, 1.0625f, 0}, {5, 1.0625f, 0}, cube}, kUnit));
  // Swept against an infinite plane and a 1e18 plane.
  const Box ground{{-1e18f, -1e18f, -1e18f}, {1e18f, 0, 1e18f}};
  EXPECT_TRUE(hits_both_ways(Segment{{0, 5, 0}, {0, 1, 0}, Box{{-1, -1, -1}, {1, 1, 1}}}, ground));
  EXPECT_FALSE(hits(Segment{{0, 5, 0}, {0, 1.5f, 0}, Box{{-1, -1, -1}, {1, 1, 1}}}, ground));
  const Box floor_inf{{-kInf, -kInf, -kInf}, {kInf, 0, kInf}};
  EXPECT_TRUE(hits_both_ways(Segment{{0, 5, 0}, {0, 1, 0}, Box{{-1, -1, -1}, {1, 1, 1}}}, floor_inf));
  EXPECT_FALSE(hits(Segment{{0, 5, 0}, {0, 1.5f, 0}, Box{{-1, -1, -1}, {1, 1, 1}}}, floor_inf));
}

TEST(Hits, ExtremeEndpointsStayExact) {
  // From -FLT_MAX to +FLT_MAX the direction overflows a float: the answer must still be the
  // exact one for the segment (a valid segment: its endpoints are finite).
  const Segment diagonal = ray({-FLT_MAX, -FLT_MAX, 0}, {FLT_MAX, FLT_MAX, 0});  // the line y = x
  EXPECT_FALSE(hits(diagonal, Box{{0.5f, 0, -1}, {1, 0.25f, 1}}));
  EXPECT_TRUE(hits_both_ways(diagonal, Box{{0.5f, 0.5f, -1}, {1, 1, 1}}));
  EXPECT_TRUE(hits_both_ways(ray({-FLT_MAX, 0.5f, 0.5f}, {FLT_MAX, 0.5f, 0.5f}), kUnit));
  EXPECT_TRUE(hits_both_ways(ray({-FLT_MAX, 1, 0}, {FLT_MAX, 1, 0}), kUnit));
  EXPECT_FALSE(hits(ray({-FLT_MAX, 1.5f, 0}, {FLT_MAX, 1.5f, 0}), kUnit));
  // Huge, but without overflow: from -1e18 to 1e18 on the line y = x.
  EXPECT_FALSE(hits(ray({-1e18f, -1e18f, 0}, {1e18f, 1e18f, 0}), Box{{0.5f, 0, -1}, {1, 0.25f, 1}}));
}

// An independent slab test in double precision on the box grown by the extent (every value
// involved here is exact in double). Returns +1 for a robust hit, -1 for a robust miss, 0 when
// a small perturbation of the grown box could change the answer.
int robust_reference(const Segment& s, const Box& b) {
  const auto hit_with_margin = [&](double margin) {
    double t0 = 0.0;
    double t1 = 1.0;
    for (int a = 0; a < 3; ++a) {
      const double lo = static_cast<double>(b.min[a]) - static_cast<double>(s.extent.max[a]) - margin;
      const double hi = static_cast<double>(b.max[a]) - static_cast<double>(s.extent.min[a]) + margin;
      const double p = static_cast<double>(s.from[a]);
      const double d = static_cast<double>(s.to[a]) - p;
      if (lo > hi) return false;  // shrunk to nothing
      if (d == 0.0) {
        if (p < lo || p > hi) return false;
        continue;
      }
      double ta = (lo - p) / d;
      double tb = (hi - p) / d;
      if (ta > tb) std::swap(ta, tb);
      t0 = std::max(t0, ta);
      t1 = std::min(t1, tb);
    }
    return t0 <= t1;
  };
  if (hit_with_margin(-1e-3)) return 1;
  if (!hit_with_margin(1e-3)) return -1;
  return 0;
}

TEST(Hits, AgreesWithIndependentSlabTestAwayFromTheBorderline) {
  Rng rng(99);
  int robust_hits = 0;
  int robust_misses = 0;
  const auto coord = [&](double range) { return static_cast<float>(std::round(rng.uniform(-range, range) * 64) / 64); };
  for (int i = 0; i < 200000; ++i) {
    Box b;
    for (int a = 0; a < 3; ++a) {
      const float lo = coord(10);
      const float hi = lo + std::fabs(coord(rng.chance(0.3) ? 0.1 : 4));
      if (a == 0) b.min.x = lo, b.max.x = hi;
      if (a == 1) b.min.y = lo, b.max.y = hi;
      if (a == 2) b.min.z = lo, b.max.z = hi;
    }
    Segment s{{coord(15), coord(15), coord(15)}, {coord(15), coord(15), coord(15)}, Box{}};
    if (rng.chance(0.5)) {
      // Aim through a point of the box (the segment then mostly hits): to = 2 p - from.
      const auto through = [&](float lo, float hi, float from) {
        const double t = std::round(rng.uniform() * 8) / 8;
        return static_cast<float>(2 * (lo + (hi - lo) * t) - from);
      };
      s.to = {through(b.min.x, b.max.x, s.from.x), through(b.min.y, b.max.y, s.from.y),
              through(b.min.z, b.max.z, s.from.z)};
    }
    if (rng.chance(0.2)) s.to.y = s.from.y;  // some zero direction components
    if (rng.chance(0.1)) s.to = s.from;      // some zero-length segments
    if (rng.chance(0.4)) {                   // some swept boxes, some not containing the origin
      const float ex = coord(2);
      const float ey = coord(2);
      const float ez = coord(2);
      s.extent = Box{{ex, ey, ez}, {ex + std::fabs(coord(1)), ey + std::fabs(coord(1)), ez + std::fabs(coord(1))}};
    }
    const int reference = robust_reference(s, b);
    if (reference == 0) continue;
    ASSERT_EQ(hits(s, b), reference > 0) << ::testing::PrintToString(s) << " " << ::testing::PrintToString(b);
    (reference > 0 ? robust_hits : robust_misses) += 1;
  }
  EXPECT_GT(robust_hits, 5000);
  EXPECT_GT(robust_misses, 5000);
}

}  // namespace
}  // namespace agrid::test

namespace agrid::test {
namespace {

// Found by review: the cross-product tests lost all precision on boxes huge or infinite beside
// the segment (false hits, and a miss).
TEST(Hits, HugeAndInfiniteBoxesBesideShortSegments) {
  const auto ray = [](Vec3 from, Vec3 to) { return Segment{from, to, Box{}}; };
  // x + z = -0.5 < 0 on the segment: it passes 0.35 away from the box's edge.
  EXPECT_FALSE(hits(ray({-1, 0.5f, 0.5f}, {0.5f, 0.5f, -1}), Box{{0, 0, 0}, {1, 1, 1e18f}}));
  // x + z = 2 on the segment, at most 1 in the box: half-infinite and -1e18 boxes alike.
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(hits(ray({-1, 0.5f, 3}, {2, 0.5f, 0}), Box{{-inf, 0, 0}, {0, 1, 1}}));
  EXPECT_FALSE(hits(ray({-1, 0.5f, 3}, {2, 0.5f, 0}), Box{{-1e18f, 0, 0}, {0, 1, 1}}));
  // A true hit for t in [0.23396, 0.23992], with a box reaching 1e18 on y.
  const Box tall{{-0x1.312918p+23f, -0x1.312a44p+23f, -0x1.312c1p+23f}, {-0x1.312918p+23f, 0x1.bc16d6p+59f, -0x1.312c1p+23f}};
  const Segment swept{{-0x1.312874p+23f, -0x1.312908p+23f, -0x1.312ce2p+23f},
                      {-0x1.312a86p+23f, -0x1.312c24p+23f, -0x1.3128dp+23f},
                      Box{{-20, 0, -20}, {0, 20, 20}}};
  EXPECT_TRUE(hits(swept, tall));
}

}  // namespace
}  // namespace agrid::test
