// The re-test of candidate pairs when resting objects move inside their fat boxes, by every path:
// list by list (few moved), one pass over all candidates with a moved flag per object (many
// moved), and one pass testing every candidate (all moved: a settling stack). The pairs and the
// changes each update reports match the brute force's, step by step, while hits flip.

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "agrid/agrid.h"
#include "oracle/broadphase_model.h"
#include "oracle/oracle.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

/// The i-th of `count` boxes of edge 1 on a lattice of spacing 0.98: neighbours overlap by a
/// hair, so a nudge of a few hundredths makes and breaks many pairs, inside the fat boxes.
Box lattice_box(std::uint32_t i, std::uint32_t count) {
  constexpr float kSpacing = 0.98f;
  return scenes::box_from(scenes::cube_lattice_point(i, count, kSpacing), {1.0f, 1.0f, 1.0f});
}

/// How far a nudge moves a box on each axis, at most: inside its fat box.
constexpr float kNudge = 0.03f;

TEST(BroadphaseRetest, ExactForFewManyAndAllMovedAtRest) {
  constexpr std::uint32_t kSide = 8;
  constexpr std::uint32_t kObjects = kSide * kSide * kSide;
  for (const std::uint32_t moved_per_step : {kObjects / 20, kObjects / 2, kObjects}) {
    SCOPED_TRACE(::testing::Message() << moved_per_step << " of " << kObjects << " moved a step");
    Broadphase bp;
    Rng rng(moved_per_step);
    std::vector<Box> home;
    std::vector<Box> boxes;
    for (std::uint32_t i = 0; i < kObjects; ++i) {
      home.push_back(lattice_box(i, kObjects));
      boxes.push_back(home.back());
      bp.create(boxes.back());
    }
    std::vector<Pair> previous;
    std::uint64_t began = 0;
    std::uint64_t ended = 0;
    for (int step = 0; step < 24; ++step) {
      if (step >= 4) {  // all at rest by now: then each step a share nudged around its home
        for (std::uint32_t k = 0; k < moved_per_step; ++k) {
          const Handle h = moved_per_step == kObjects ? k : rng.below(kObjects);
          boxes[h] = scenes::nudged(rng, home[h], kNudge);
          bp.set_box(h, boxes[h]);
        }
      }
      const PairChanges changes = bp.update();
      const std::vector<Pair> expected = oracle::brute_force_pairs(boxes);
      const std::span<const Pair> pairs = bp.pairs();
      ASSERT_TRUE(same_pairs(expected, std::vector<Pair>(pairs.begin(), pairs.end()), boxes)) << "step " << step;
      ASSERT_TRUE(same_pairs(oracle::difference(expected, previous), changes.began)) << "step " << step;
      ASSERT_TRUE(same_pairs(oracle::difference(previous, expected), changes.ended)) << "step " << step;
      if (step >= 4) {
        EXPECT_EQ(bp.stats().moving, 0u) << "step " << step << ": the nudges stay inside the fat boxes";
        began += changes.began.size();
        ended += changes.ended.size();
      }
      previous = expected;
    }
    EXPECT_GT(began, 0u);
    EXPECT_GT(ended, 0u);
  }
}

}  // namespace
}  // namespace agrid::test
