// PairFinder against the oracle, exactly, across the sizes where it changes structure (all
// against all up to kDirectPairsMaxBoxes, the grid, the tree of grids from tree_min_boxes on more
// than one thread), calls of changing sizes on one finder, and the memory it gives back.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "agrid/pair_finder.h"
#include "common/recent_peak.h"
#include "grid/direct_pairs.h"
#include "oracle/oracle.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// `boxes` with every seventh box made invalid in turn: NaN, inverted, and NaN in max only.
std::vector<Box> with_bad_boxes(std::vector<Box> boxes) {
  for (std::size_t i = 3; i < boxes.size(); i += 7) {
    switch (i % 3) {
      case 0: boxes[i].min.x = kNaN; break;
      case 1: std::swap(boxes[i].min.y, boxes[i].max.y); boxes[i].max.y -= 1.0f; break;
      default: boxes[i].max.z = kNaN; break;
    }
  }
  return boxes;
}

std::vector<Pair> found_by(PairFinder& finder, const std::vector<Box>& boxes) {
  std::vector<Pair> out{{7, 9}};  // replaced, not appended to
  finder.find_pairs(boxes, out);
  return out;
}

TEST(PairFinder, EverySizeAroundEachSwitchMatchesTheOracle) {
  constexpr std::uint32_t kDirect = detail::kDirectPairsMaxBoxes;
  Config tree_early;
  tree_early.tree_min_boxes = 1000;
  const std::size_t sizes[] = {0, 1, 2, 3, kDirect - 1, kDirect, kDirect + 1, 999, 1000, 1001, 5000};
  for (const int threads : {1, 2}) {
    in_arena(threads, [&] {
      PairFinder finder(tree_early);  // one finder for every size, in turn and back
      for (int round = 0; round < 2; ++round) {
        for (const std::size_t n : sizes) {
          for (const Density density : {Density::kMedium, Density::kVeryDense}) {
            const std::vector<Box> boxes = with_bad_boxes(random_scene(static_cast<std::uint32_t>(n), density, 60 + n));
            ASSERT_TRUE(same_pairs(oracle::pairs(boxes), found_by(finder, boxes), boxes))
                << threads << " threads, " << n << " boxes, round " << round;
          }
        }
      }
    });
  }
}

TEST(PairFinder, EveryKernelGivesTheSamePairs) {
  const std::vector<Box> small = with_bad_boxes(random_scene(100, Density::kVeryDense, 70));
  const std::vector<Box> large = with_bad_boxes(random_scene(3000, Density::kDense, 71));
  for (const Kernel kernel : {Kernel::automatic, Kernel::scalar, Kernel::avx2, Kernel::avx512}) {
    Config config;
    config.kernel = kernel;
    PairFinder finder(config);
    EXPECT_TRUE(same_pairs(oracle::pairs(small), found_by(finder, small), small)) << static_cast<int>(kernel);
    EXPECT_TRUE(same_pairs(oracle::pairs(large), found_by(finder, large), large)) << static_cast<int>(kernel);
  }
}

TEST(PairFinder, RefusesAnUnusableConfig) {
  Config bad;
  bad.leaf_capacity = 0;
  EXPECT_THROW(PairFinder{bad}, std::invalid_argument);
}

TEST(PairFinder, MovedFromFinderCanBeAssignedAndUsedAgain) {
  const std::vector<Box> boxes = random_scene(2000, Density::kDense, 72);
  PairFinder a;
  (void)found_by(a, boxes);
  PairFinder b(std::move(a));
  EXPECT_TRUE(same_pairs(oracle::pairs(boxes), found_by(b, boxes), boxes));
  a = PairFinder();
  EXPECT_TRUE(same_pairs(oracle::pairs(boxes), found_by(a, boxes), boxes));
}

TEST(PairFinder, GivesBackWhatRecentCallsDoNotNeed) {
  const std::vector<Box> big = random_scene(200000, Density::kMedium, 73);
  const std::vector<Box> small = random_scene(500, Density::kMedium, 74);
  in_arena(1, [&] {
    PairFinder finder;
    (void)found_by(finder, small);
    const std::size_t small_bytes = finder.bytes_held();
    (void)found_by(finder, big);
    const std::size_t big_bytes = finder.bytes_held();
    ASSERT_GT(big_bytes, 20 * small_bytes) << "the big call's grid should be held for the next call";
    // Remembered for at least kRecentUses calls (the big one included) ...
    for (std::uint64_t call = 1; call < detail::kRecentUses; ++call) (void)found_by(finder, small);
    EXPECT_EQ(finder.bytes_held(), big_bytes) << "given back while the big call was recent";
    // ... and at most twice that many.
    for (std::uint64_t call = 0; call < detail::kRecentUses; ++call) (void)found_by(finder, small);
    EXPECT_LT(finder.bytes_held(), 4 * small_bytes) << "still holding the big call's memory";
    EXPECT_TRUE(same_pairs(oracle::pairs(small), found_by(finder, small), small));
  });
}

TEST(PairFinder, ShrinkToGivesBackOnlyWhatIsFarAboveTheBoxesAsked) {
  const std::vector<Box> big = random_scene(200000, Density::kMedium, 75);
  const std::vector<Box> small = random_scene(500, Density::kMedium, 76);
  in_arena(1, [&] {
    PairFinder finder;
    (void)found_by(finder, big);
    const std::size_t big_bytes = finder.bytes_held();
    finder.shrink_to(big.size() / 2);  // within 4x of what it was sized for: kept
    EXPECT_EQ(finder.bytes_held(), big_bytes);
    finder.shrink_to(small.size());
    EXPECT_LT(finder.bytes_held(), big_bytes / 20) << "the grid sized for 200,000 boxes was kept";
    EXPECT_TRUE(same_pairs(oracle::pairs(small), found_by(finder, small), small));
    EXPECT_TRUE(same_pairs(oracle::pairs(big), found_by(finder, big), big));
  });
}

}  // namespace
}  // namespace agrid::test
