// agrid::is_valid and agrid::overlaps (box.h) agree with the oracle on special values.

#include <gtest/gtest.h>

#include <cfloat>
#include <limits>
#include <vector>

#include "agrid/box.h"
#include "oracle/oracle.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

TEST(Box, ValidityAndOverlapOnSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<Box> boxes = scenes::invalid_boxes();
  const auto extremes = scenes::extreme_boxes(Box{{-10, -10, -10}, {10, 10, 10}});
  boxes.insert(boxes.end(), extremes.begin(), extremes.end());
  const auto normal = random_scene(60, Density::kVeryDense, 3);
  boxes.insert(boxes.end(), normal.begin(), normal.end());
  boxes.push_back(Box{{0, 0, 0}, {1, 1, 1}});
  boxes.push_back(Box{{1, 1, 1}, {2, 2, 2}});
  boxes.push_back(Box{{-inf, 0, 0}, {inf, 0, 0}});
  std::size_t valid = 0;
  std::size_t overlapping = 0;
  for (const Box& a : boxes) {
    ASSERT_EQ(is_valid(a), oracle::valid(a)) << ::testing::PrintToString(a);
    valid += oracle::valid(a) ? 1 : 0;
    for (const Box& b : boxes) {
      ASSERT_EQ(overlaps(a, b), oracle::intersect(a, b))
          << ::testing::PrintToString(a) << " " << ::testing::PrintToString(b);
      ASSERT_EQ(overlaps(a, b), overlaps(b, a));
      overlapping += overlaps(a, b) ? 1 : 0;
    }
  }
  EXPECT_EQ(boxes.size() - valid, scenes::invalid_boxes().size());
  EXPECT_GT(overlapping, boxes.size());
}

TEST(Box, ConstexprAndComponentAccess) {
  constexpr Box a{{0, 0, 0}, {1, 2, 3}};
  static_assert(is_valid(a));
  static_assert(overlaps(a, Box{{1, 2, 3}, {4, 4, 4}}));
  static_assert(!overlaps(a, Box{{1.5f, 0, 0}, {4, 4, 4}}));
  static_assert(!is_valid(Box{{1, 0, 0}, {0, 1, 1}}));
  EXPECT_EQ(a.max[0], 1.0f);
  EXPECT_EQ(a.max[1], 2.0f);
  EXPECT_EQ(a.max[2], 3.0f);
}

}  // namespace
}  // namespace agrid::test
