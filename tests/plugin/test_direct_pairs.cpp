// DirectPairs, the all-against-all path that pairs up to kDirectPairsMaxBoxes boxes instead of a
// grid, against the oracle's brute force: random scenes of every size up to the limit (across the
// kernels' register widths), with invalid, huge, tiny and far boxes mixed in, on every kernel this
// CPU runs, one DirectPairs reused from call to call, all pairs or those with a probing member;
// and the Broadphase's pairs when its boxes are just below, at and just above the limit, all
// moving, or a few moving among resting ones.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "agrid/agrid.h"
#include "agrid_scenes/adversarial.h"
#include "common/pair_key.h"
#include "grid/direct_pairs.h"
#include "oracle/broadphase_model.h"
#include "oracle/oracle.h"
#include "support/kernels.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

constexpr std::uint32_t kLimit = detail::kDirectPairsMaxBoxes;

/// `count` random boxes of edge up to `edge` in [0, 20]^3, some snapped to a lattice so that
/// faces touch exactly.
std::vector<Box> random_boxes(Rng& rng, std::uint32_t count, float edge) {
  std::vector<Box> boxes;
  for (std::uint32_t i = 0; i < count; ++i) {
    float x = rng.uniform(0.0f, 20.0f);
    float y = rng.uniform(0.0f, 20.0f);
    float z = rng.uniform(0.0f, 20.0f);
    float e = rng.uniform(0.0f, edge);
    if (i % 5 == 0) {  // on a lattice of 1: faces meet exactly
      x = static_cast<float>(static_cast<int>(x));
      y = static_cast<float>(static_cast<int>(y));
      z = static_cast<float>(static_cast<int>(z));
      e = 1.0f;
    }
    boxes.push_back({{x, y, z}, {x + e, y + e, z + e}});
  }
  return boxes;
}

/// `boxes` with hard ones mixed in, up to `count` in all: invalid, huge, tiny and far.
std::vector<Box> with_hard_boxes(std::vector<Box> boxes, std::uint32_t count, Rng& rng) {
  const Box bounds{{0, 0, 0}, {20, 20, 20}};
  std::vector<Box> hard = scenes::invalid_boxes();
  const std::vector<Box> extreme = scenes::extreme_boxes(bounds);
  hard.insert(hard.end(), extreme.begin(), extreme.end());
  while (boxes.size() < count) {
    const Box& b = hard[rng.below(static_cast<std::uint32_t>(hard.size()))];
    boxes.insert(boxes.begin() + rng.below(static_cast<std::uint32_t>(boxes.size() + 1)), b);
  }
  return boxes;
}

TEST(DirectPairs, MatchBruteForceOnEveryKernelAndSize) {
  std::vector<Kernel> kernels = kernels_this_cpu_runs();
  kernels.push_back(Kernel::automatic);
  for (const Kernel kernel : kernels) {
    SCOPED_TRACE(name(kernel));
    detail::DirectPairs direct;  // reused: its scratch must not carry anything over
    std::vector<Pair> found = {{7, 3}, {1, 1}};  // junk, replaced
    Rng rng(31);
    for (const std::uint32_t n : {0u, 1u, 2u, 3u, 15u, 16u, 17u, 31u, 32u, 33u, 48u, 64u, 65u, 91u, 127u, kLimit}) {
      for (const float edge : {0.5f, 4.0f, 25.0f}) {  // few pairs, many, nearly all
        SCOPED_TRACE(::testing::Message() << n << " boxes of edge up to " << edge);
        const std::vector<Box> plain = random_boxes(rng, n, edge);
        direct.find_pairs(plain, kernel, found);
        EXPECT_TRUE(same_pairs(oracle::brute_force_pairs(plain), found, plain));
        const std::vector<Box> hard = with_hard_boxes(random_boxes(rng, n / 2, edge), n, rng);
        direct.find_pairs(hard, kernel, found);
        EXPECT_TRUE(same_pairs(oracle::brute_force_pairs(hard), found, hard)) << "with hard boxes";
      }
    }
  }
}

// find_keys: ids ascending with gaps (as handles are), some boxes probing; the keys are those of
// the brute force's pairs with a probing member, in ascending order.
TEST(DirectPairs, KeysOfThePairsWithAProbingMember) {
  std::vector<Kernel> kernels = kernels_this_cpu_runs();
  kernels.push_back(Kernel::automatic);
  for (const Kernel kernel : kernels) {
    SCOPED_TRACE(name(kernel));
    detail::DirectPairs direct;
    Rng rng(37);
    for (const std::uint32_t n : {0u, 1u, 2u, 17u, 33u, 91u, kLimit}) {
      for (const double share : {0.0, 0.05, 0.3, 1.0}) {  // of the boxes probing
        SCOPED_TRACE(::testing::Message() << n << " boxes, " << share << " of them probing");
        const std::vector<Box> boxes = with_hard_boxes(random_boxes(rng, n - n / 8, 4.0f), n, rng);
        std::vector<std::uint32_t> ids;
        std::vector<std::uint8_t> probing;
        for (std::uint32_t i = 0, id = 0; i < n; ++i, id += 1 + rng.below(3)) {
          ids.push_back(id);
          probing.push_back(rng.chance(share) ? 1 : 0);
        }
        std::vector<std::uint64_t> expected;
        for (const Pair p : oracle::brute_force_pairs(boxes)) {
          if (probing[p.first] != 0 || probing[p.second] != 0) expected.push_back(detail::pair_key(ids[p.first], ids[p.second]));
        }
        std::vector<std::uint64_t> keys;
        direct.find_keys(boxes, ids, probing, kernel, keys);
        EXPECT_EQ(keys, expected);
      }
    }
  }
}

TEST(DirectPairs, AllEqualAndAllInvalid) {
  detail::DirectPairs direct;
  std::vector<Pair> found;
  const std::vector<Box> equal(kLimit, Box{{1, 1, 1}, {2, 2, 2}});
  direct.find_pairs(equal, Kernel::automatic, found);
  EXPECT_EQ(found.size(), std::size_t{kLimit} * (kLimit - 1) / 2);
  EXPECT_TRUE(same_pairs(oracle::brute_force_pairs(equal), found, equal));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<Box> invalid(kLimit, Box{{nan, 0, 0}, {1, 1, 1}});
  direct.find_pairs(invalid, Kernel::automatic, found);
  EXPECT_TRUE(found.empty());
}

// The Broadphase pairs its moving boxes all against all up to the limit and with a grid above:
// every object teleported every step keeps them all moving (a busy update), some with bad boxes.
TEST(DirectPairs, BroadphaseAcrossTheLimit) {
  for (const std::uint32_t n : {kLimit - 1, kLimit, kLimit + 1, 2 * kLimit}) {
    SCOPED_TRACE(::testing::Message() << n << " objects");
    Broadphase bp;
    Rng rng(n);
    std::vector<Box> boxes = with_hard_boxes(random_boxes(rng, n - n / 8, 3.0f), n, rng);
    for (const Box& b : boxes) bp.create(b);
    for (int step = 0; step < 4; ++step) {
      if (step > 0) {
        boxes = with_hard_boxes(random_boxes(rng, n - n / 8, 3.0f), n, rng);
        for (Handle h = 0; h < n; ++h) bp.set_box(h, boxes[h]);
      }
      bp.update();
      EXPECT_EQ(bp.stats().moving, n) << "step " << step;
      const std::span<const Pair> pairs = bp.pairs();
      EXPECT_TRUE(same_pairs(oracle::brute_force_pairs(boxes), std::vector<Pair>(pairs.begin(), pairs.end()), boxes))
          << "step " << step;
    }
  }
}

// A few objects teleported each step among resting ones: the moving ones are paired with all
// (all against all from the moving side, below the limit), some refused by their filters; the
// pairs and the changes reported match the brute force's, step by step.
TEST(DirectPairs, BroadphaseFewMovingAmongResting) {
  for (const std::uint32_t n : {kLimit / 2, kLimit, kLimit + 1}) {
    SCOPED_TRACE(::testing::Message() << n << " objects");
    Broadphase bp;
    Rng rng(n + 5);
    std::vector<Box> boxes = random_boxes(rng, n, 3.0f);
    std::vector<Filter> filters;
    for (std::uint32_t i = 0; i < n; ++i) filters.push_back(i % 7 == 0 ? Filter{2, ~2u} : Filter{});  // 2 x 2 refused
    for (std::uint32_t i = 0; i < n; ++i) bp.create(boxes[i], filters[i]);
    std::vector<Pair> previous;
    for (int step = 0; step < 12; ++step) {
      if (step >= 4) {  // at rest by now; then a tenth teleported each step
        for (std::uint32_t k = 0; k < n / 10; ++k) {
          const Handle h = rng.below(n);
          boxes[h] = random_boxes(rng, 1, 3.0f)[0];
          bp.set_box(h, boxes[h]);
        }
      }
      const PairChanges changes = bp.update();
      std::vector<Pair> expected;
      for (const Pair p : oracle::brute_force_pairs(boxes)) {
        if (passes(filters[p.first], filters[p.second])) expected.push_back(p);
      }
      const std::span<const Pair> pairs = bp.pairs();
      EXPECT_TRUE(same_pairs(expected, std::vector<Pair>(pairs.begin(), pairs.end()), boxes)) << "step " << step;
      EXPECT_TRUE(same_pairs(oracle::difference(expected, previous), changes.began)) << "step " << step;
      EXPECT_TRUE(same_pairs(oracle::difference(previous, expected), changes.ended)) << "step " << step;
      if (step >= 5) {
        EXPECT_GT(bp.stats().moving, 0u) << "step " << step;
        EXPECT_GT(bp.stats().resting, n / 2) << "step " << step;
      }
      previous = expected;
    }
  }
}

}  // namespace
}  // namespace agrid::test
