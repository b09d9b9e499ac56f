// Config validation: problem() names every unusable configuration, and both entry points
// refuse one with std::invalid_argument.

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <vector>

#include "agrid/agrid.h"
#include "oracle/oracle.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

std::vector<Config> unusable_configs() {
  constexpr std::uint32_t kMax = std::numeric_limits<std::uint32_t>::max();
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  return {make_config(0, 2, 64),          make_config(16, 0, 64),          make_config(16, 3, 64),
          make_config(16, 4, 64),         make_config(16, 5, 64),          make_config(16, kMax, 64),
          make_config(16, 2, 0),          make_config(16, 2, 1),           make_config(0, 0, 0),
          make_config(0, 5, 1),           make_config(1, 1, 1),            make_config(1000, 2, 1),
          make_config(16, 2, 64, -0.01f), make_config(16, 2, 64, 1.01f),   make_config(16, 2, 64, kNaN),
          make_config(16, 2, 64, kInf),   make_config(16, 2, 64, 0.25f, 0.99f),
          make_config(16, 2, 64, 0.25f, 8.01f), make_config(16, 2, 64, 0.25f, kNaN),
          make_config(16, 2, 64, 0.25f, kInf),  make_config(16, 2, 64, 0.25f, -1.0f)};
}

TEST(Config, DefaultIsUsable) {
  const Config c;
  EXPECT_EQ(c.problem(), nullptr) << c.problem();
  const Grid grid;
  EXPECT_EQ(grid.config().leaf_capacity, c.leaf_capacity);
  EXPECT_EQ(grid.config().big_span, c.big_span);
  EXPECT_EQ(grid.config().sweep_threshold, c.sweep_threshold);
}

// == compares every field: changing any one makes configs differ. (Its size stands for the list
// of fields: a new field fails the static_assert until it is compared and listed here.)
TEST(Config, EqualityComparesEveryField) {
  static_assert(sizeof(Config) == 14 * 4, "a field was added to Config: compare it in operator== and here");
  const Config base;
  EXPECT_TRUE(base == Config{});
  EXPECT_FALSE(base != Config{});
  const std::vector<void (*)(Config&)> changes = {
      [](Config& c) { ++c.leaf_capacity; },          [](Config& c) { c.big_span = 1; },
      [](Config& c) { c.max_staying_share /= 2; },   [](Config& c) { c.max_copies_per_box += 1; },
      [](Config& c) { ++c.sweep_threshold; },       [](Config& c) { c.sweep_window += 1; },
      [](Config& c) { c.kernel = Kernel::scalar; },  [](Config& c) { ++c.tree_task_entries; },
      [](Config& c) { ++c.tree_min_boxes; },        [](Config& c) { c.fat_margin /= 2; },
      [](Config& c) { ++c.rest_after; },            [](Config& c) { ++c.rest_after_querying; },
      [](Config& c) { ++c.rest_after_unchanged; },
      [](Config& c) { ++c.resting_query_cost; }};
  for (std::size_t i = 0; i < changes.size(); ++i) {
    Config changed;
    changes[i](changed);
    EXPECT_FALSE(changed == base) << "field " << i;
    EXPECT_TRUE(changed != base) << "field " << i;
  }
}

TEST(Config, ProblemNamesEachUnusableConfig) {
  for (const Config& c : unusable_configs()) {
    EXPECT_NE(c.problem(), nullptr) << name(c);
  }
}

TEST(Config, UnusableConfigThrows) {
  const std::vector<Box> none;
  const std::vector<Box> some = random_scene(50, Density::kDense, 1);
  for (const Config& c : unusable_configs()) {
    SCOPED_TRACE(name(c));
    EXPECT_THROW(Grid{c}, std::invalid_argument);
    EXPECT_THROW((void)find_all_pairs(none, c), std::invalid_argument);
    EXPECT_THROW((void)find_all_pairs(some, c), std::invalid_argument);
  }
}

TEST(Config, SweepWindowOutsideItsRangeIsRefused) {
  for (const float window : {-1.0f, 2e6f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    Config c;
    c.sweep_window = window;
    EXPECT_NE(c.problem(), nullptr) << window;
    EXPECT_THROW(Grid{c}, std::invalid_argument) << window;
  }
  for (const float window : {0.0f, 48.0f, 1e6f}) {
    Config c;
    c.sweep_window = window;
    EXPECT_EQ(c.problem(), nullptr) << window;
  }
}

TEST(Config, FatMarginOutsideZeroToOneIsRefused) {
  for (const float margin : {-0.01f, 1.01f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    Config c;
    c.fat_margin = margin;
    EXPECT_NE(c.problem(), nullptr) << margin;
    EXPECT_THROW(Broadphase{c}, std::invalid_argument) << margin;
  }
  for (const float margin : {0.0f, 1.0f}) {
    Config c;
    c.fat_margin = margin;
    EXPECT_EQ(c.problem(), nullptr) << margin;
  }
}

TEST(Config, BroadphaseWaitsAndQueryCostOfZeroAreRefused) {
  for (std::uint32_t Config::*knob :
       {&Config::rest_after, &Config::rest_after_querying, &Config::rest_after_unchanged, &Config::resting_query_cost}) {
    Config c;
    c.*knob = 0;
    EXPECT_NE(c.problem(), nullptr);
    EXPECT_THROW(Broadphase{c}, std::invalid_argument);
    c.*knob = 1;
    EXPECT_EQ(c.problem(), nullptr) << c.problem();
    c.*knob = std::numeric_limits<std::uint32_t>::max();
    EXPECT_EQ(c.problem(), nullptr) << c.problem();
  }
}

TEST(Config, BoundaryValuesAreUsable) {
  constexpr std::uint32_t kMax = std::numeric_limits<std::uint32_t>::max();
  const auto boxes = random_scene(800, Density::kDense, 2);
  const auto expected = oracle::pairs(boxes);
  for (const Config& c : {make_config(1, 1, 2), make_config(1, 2, 2), make_config(kMax, 2, kMax),
                          make_config(kMax, 1, 2), make_config(1, 2, kMax), make_config(3, 2, 3),
                          make_config(16, 2, 64, 0.0f, 1.0f), make_config(16, 2, 64, 1.0f, 8.0f),
                          make_config(1, 1, 2, 0.0f, 8.0f), make_config(1, 2, 2, 1.0f, 1.0f)}) {
    SCOPED_TRACE(name(c));
    EXPECT_EQ(c.problem(), nullptr) << c.problem();
    Grid grid(c);
    EXPECT_EQ(grid.config().leaf_capacity, c.leaf_capacity);
    EXPECT_EQ(grid.config().big_span, c.big_span);
    EXPECT_EQ(grid.config().sweep_threshold, c.sweep_threshold);
    EXPECT_EQ(grid.config().max_staying_share, c.max_staying_share);
    EXPECT_EQ(grid.config().max_copies_per_box, c.max_copies_per_box);
    grid.build(boxes);
    EXPECT_TRUE(grid_pairs_match(grid, boxes, expected));
    EXPECT_TRUE(same_pairs(expected, find_all_pairs(boxes, c), boxes));
  }
}

TEST(Config, EveryCombinationIsUsable) {
  const auto configs = all_config_combinations();
  EXPECT_EQ(configs.size(), 72u);
  for (const Config& c : configs) EXPECT_EQ(c.problem(), nullptr) << name(c);
}

}  // namespace
}  // namespace agrid::test
