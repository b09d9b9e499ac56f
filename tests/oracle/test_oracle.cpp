// Self-test of the oracle: its two all-pairs methods agree, and hand-computed cases hold.

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cstring>
#include <cmath>
#include <limits>
#include <vector>

#include "oracle/oracle.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

Box cube(float x0, float y0, float z0, float x1, float y1, float z1) {
  return Box{{x0, y0, z0}, {x1, y1, z1}};
}

TEST(Oracle, TouchingBoxesIntersect) {
  const Box a = cube(0, 0, 0, 1, 1, 1);
  EXPECT_TRUE(oracle::intersect(a, cube(1, 0, 0, 2, 1, 1)));   // shared face
  EXPECT_TRUE(oracle::intersect(a, cube(1, 1, 0, 2, 2, 1)));   // shared edge
  EXPECT_TRUE(oracle::intersect(a, cube(1, 1, 1, 2, 2, 2)));   // shared corner
  EXPECT_TRUE(oracle::intersect(a, cube(1, 1, 1, 1, 1, 1)));   // a point on the corner
  EXPECT_TRUE(oracle::intersect(a, a));
  EXPECT_TRUE(oracle::intersect(a, cube(-0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f)));
  EXPECT_FALSE(oracle::intersect(a, cube(std::nextafter(1.0f, 2.0f), 0, 0, 2, 1, 1)));
  EXPECT_FALSE(oracle::intersect(a, cube(0, 0, 1.5f, 1, 1, 2)));
  EXPECT_FALSE(oracle::intersect(a, cube(-2, -2, -2, -1, 5, 5)));
}

TEST(Oracle, InvalidBoxesNeverIntersect) {
  const Box a = cube(0, 0, 0, 1, 1, 1);
  const Box everything = cube(-kInf, -kInf, -kInf, kInf, kInf, kInf);
  for (const Box& bad : scenes::invalid_boxes()) {
    EXPECT_FALSE(oracle::valid(bad));
    EXPECT_FALSE(oracle::intersect(bad, a));
    EXPECT_FALSE(oracle::intersect(a, bad));
    EXPECT_FALSE(oracle::intersect(bad, everything));
    EXPECT_FALSE(oracle::intersect(bad, bad));
  }
  EXPECT_FALSE(oracle::intersect(cube(kNaN, 0, 0, 1, 1, 1), a));
  EXPECT_FALSE(oracle::intersect(cube(0.5f, 0, 0, 0.25f, 1, 1), a));
}

TEST(Oracle, InfiniteBoxes) {
  const Box everything = cube(-kInf, -kInf, -kInf, kInf, kInf, kInf);
  EXPECT_TRUE(oracle::valid(everything));
  EXPECT_TRUE(oracle::intersect(everything, everything));
  EXPECT_TRUE(oracle::intersect(everything, cube(1e30f, 1e30f, 1e30f, 1e30f, 1e30f, 1e30f)));
  const Box at_inf = cube(kInf, kInf, kInf, kInf, kInf, kInf);
  EXPECT_TRUE(oracle::valid(at_inf));
  EXPECT_TRUE(oracle::intersect(at_inf, everything));
  EXPECT_TRUE(oracle::intersect(at_inf, cube(0, 0, 0, kInf, kInf, kInf)));
  EXPECT_FALSE(oracle::intersect(at_inf, cube(0, 0, 0, FLT_MAX, FLT_MAX, FLT_MAX)));
  const Box ground = cube(-1e18f, -1e18f, -1e18f, 1e18f, 0, 1e18f);
  EXPECT_TRUE(oracle::intersect(ground, cube(5, 0, 5, 6, 1, 6)));
  EXPECT_FALSE(oracle::intersect(ground, cube(5, 0.001f, 5, 6, 1, 6)));
  EXPECT_TRUE(oracle::intersect(cube(-kInf, 0, 0, 0, 1, 1), cube(0, 0, 0, kInf, 1, 1)));
}

TEST(Oracle, SegmentValidity) {
  const Box ray{};
  EXPECT_TRUE(oracle::valid(Segment{{0, 0, 0}, {1, 1, 1}, ray}));
  EXPECT_TRUE(oracle::valid(Segment{{-1e18f, 0, 0}, {FLT_MAX, 1, 1}, ray}));
  EXPECT_FALSE(oracle::valid(Segment{{kNaN, 0, 0}, {1, 1, 1}, ray}));
  EXPECT_FALSE(oracle::valid(Segment{{0, 0, 0}, {1, kInf, 1}, ray}));
  EXPECT_FALSE(oracle::valid(Segment{{0, 0, 0}, {1, 1, 1}, cube(1, 0, 0, 0, 1, 1)}));
  EXPECT_FALSE(oracle::valid(Segment{{0, 0, 0}, {1, 1, 1}, cube(-kInf, 0, 0, 0, 1, 1)}));
  EXPECT_FALSE(oracle::valid(Segment{{0, 0, 0}, {1, 1, 1}, cube(0, 0, kNaN, 0, 1, 1)}));
}

TEST(Oracle, HandCountedPairs) {
  // A row of unit cubes each touching the next, a NaN box and an inverted box in between.
  std::vector<Box> boxes = {cube(0, 0, 0, 1, 1, 1), cube(kNaN, 0, 0, 9, 9, 9), cube(1, 0, 0, 2, 1, 1),
                            cube(3, 0, 0, 2, 1, 1), cube(2, 0, 0, 3, 1, 1), cube(10, 10, 10, 11, 11, 11)};
  const std::vector<Pair> expected = {{0, 2}, {2, 4}};
  EXPECT_EQ(oracle::brute_force_pairs(boxes), expected);
  EXPECT_EQ(oracle::sweep_pairs(boxes), expected);
  EXPECT_EQ(oracle::count_invalid(boxes), 2u);
  EXPECT_EQ(oracle::query(boxes, cube(-kInf, -kInf, -kInf, kInf, kInf, kInf)),
            (std::vector<std::uint32_t>{0, 2, 4, 5}));
  EXPECT_EQ(oracle::query(boxes, cube(kNaN, -kInf, -kInf, kInf, kInf, kInf)),
            std::vector<std::uint32_t>{});
  // n identical boxes: all n (n - 1) / 2 pairs.
  const std::vector<Box> same(40, cube(1, 2, 3, 4, 5, 6));
  EXPECT_EQ(oracle::sweep_pairs(same).size(), 40u * 39u / 2u);
  EXPECT_EQ(oracle::brute_force_pairs(same), oracle::sweep_pairs(same));
}

TEST(Oracle, SweepEqualsBruteForceOnRandomScenes) {
  std::size_t total_pairs = 0;
  for (std::uint32_t n : {0u, 1u, 2u, 3u, 10u, 100u, 700u}) {
    for (Density d : {Density::kVerySparse, Density::kSparse, Density::kMedium, Density::kDense,
                      Density::kVeryDense}) {
      for (std::uint64_t seed : {1u, 2u, 3u}) {
        const auto boxes = random_scene(n, d, seed);
        const auto brute = oracle::brute_force_pairs(boxes);
        ASSERT_TRUE(same_pairs(brute, oracle::sweep_pairs(boxes), boxes))
            << "n=" << n << " " << name(d) << " seed " << seed;
        total_pairs += brute.size();
      }
    }
  }
  EXPECT_GT(total_pairs, 10000u);  // the scenes are not all empty of pairs
}

TEST(Oracle, SweepEqualsBruteForceWithBadAndExtremeBoxes) {
  const auto good = random_scene(400, Density::kMedium, 9);
  auto extreme = scenes::extreme_boxes(finite_bounds(good));
  std::vector<Box> valid_part(good.begin(), good.end());
  valid_part.insert(valid_part.end(), extreme.begin(), extreme.end());
  const auto bad = scenes::invalid_boxes();
  const Mixed m = mix_in(valid_part, bad, 3);
  const auto brute = oracle::brute_force_pairs(m.boxes);
  EXPECT_TRUE(same_pairs(brute, oracle::sweep_pairs(m.boxes), m.boxes));
  EXPECT_EQ(oracle::count_invalid(m.boxes), bad.size());
  EXPECT_EQ(oracle::count_invalid(valid_part), 0u);
  // Remapping pairs of the mixed scene to the valid part gives the valid part's pairs.
  std::vector<std::uint32_t> back(m.boxes.size(), UINT32_MAX);
  for (std::uint32_t i = 0; i < m.position_of_good.size(); ++i) back[m.position_of_good[i]] = i;
  std::vector<Pair> remapped;
  for (const Pair& p : brute) {
    ASSERT_NE(back[p.first], UINT32_MAX);
    ASSERT_NE(back[p.second], UINT32_MAX);
    remapped.push_back(Pair{back[p.first], back[p.second]});
  }
  EXPECT_TRUE(same_pairs(oracle::brute_force_pairs(valid_part), remapped, valid_part));
}

TEST(Oracle, BoxQueryAgreesWithPairs) {
  // Box i's query result, minus i, is exactly the set of partners of i in the pair list.
  const auto boxes = random_scene(300, Density::kDense, 4);
  const auto pairs = oracle::brute_force_pairs(boxes);
  std::vector<std::vector<std::uint32_t>> partners(boxes.size());
  for (const Pair& p : pairs) {
    partners[p.first].push_back(p.second);
    partners[p.second].push_back(p.first);
  }
  for (std::uint32_t i = 0; i < boxes.size(); ++i) {
    auto q = oracle::query(boxes, boxes[i]);
    q.erase(std::remove(q.begin(), q.end(), i), q.end());
    std::sort(partners[i].begin(), partners[i].end());
    ASSERT_EQ(q, partners[i]) << "box " << i;
  }
}

TEST(Oracle, MixInKeepsOrderAndContents) {
  const auto good = random_scene(50, Density::kSparse, 2);
  const auto bad = scenes::invalid_boxes();
  const Mixed m = mix_in(good, bad, 11);
  ASSERT_EQ(m.boxes.size(), good.size() + bad.size());
  ASSERT_EQ(m.position_of_good.size(), good.size());
  for (std::size_t i = 0; i < good.size(); ++i) {
    EXPECT_EQ(std::memcmp(&m.boxes[m.position_of_good[i]], &good[i], sizeof(Box)), 0);
    if (i > 0) {
      EXPECT_LT(m.position_of_good[i - 1], m.position_of_good[i]);
    }
  }
}

}  // namespace
}  // namespace agrid::test
