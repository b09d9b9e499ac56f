// The tree of grids against the oracle, exactly, and against itself on 1, 2, 3, 4 and 8
// threads: the same pairs, element for element, whatever the thread count.

#include <gtest/gtest.h>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <limits>
#include <string>
#include <vector>

#include "agrid/agrid.h"
#include "agrid_scenes/scenes.h"
#include "oracle/oracle.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

constexpr int kThreadCounts[] = {1, 2, 3, 4, 8};

// A config whose tree splits while cells hold more than `tree_task_entries` copies.
Config with_tree_task_entries(std::uint32_t tree_task_entries, Config config = {}) {
  config.tree_task_entries = tree_task_entries;
  return config;
}

// The tree's pairs, built and searched in an arena of `threads` threads.
std::vector<Pair> tree_pairs(std::span<const Box> boxes, const Config& config, int threads) {
  std::vector<Pair> out;
  in_arena(threads, [&] {
    Tree tree(config);
    tree.build(boxes);
    tree.find_pairs(out);
  });
  return out;
}

// The tree matches `expected` on every thread count, for each of the configs.
void expect_tree_matches(std::span<const Box> boxes, const std::vector<Pair>& expected, std::span<const Config> configs) {
  for (const Config& config : configs) {
    for (const int threads : kThreadCounts) {
      EXPECT_TRUE(same_pairs(expected, tree_pairs(boxes, config, threads), boxes))
          << name(config) << " tree_task_entries " << config.tree_task_entries << ", " << threads << " threads";
    }
  }
}

std::string test_name(std::string_view scene) {
  std::string n(scene);
  for (char& ch : n) ch = ch == '-' ? '_' : ch;
  return n;
}

// ---- the shared scene library, on every thread count ---------------------------------------

class TreeBenchmarkScenes : public ::testing::TestWithParam<std::string_view> {};

TEST_P(TreeBenchmarkScenes, SameOnAnyThreadCountAndMatchesOracle) {
  const auto scene = scenes::make_scene(GetParam(), 0.03, 1);
  ASSERT_FALSE(scene.boxes.empty());
  const auto expected = oracle::pairs(scene.boxes);
  // The default, and small tasks so that the coarse tree goes deep and has many tasks.
  const Config configs[] = {Config{}, with_tree_task_entries(200), with_tree_task_entries(1, make_config(1, 1, 2))};
  expect_tree_matches(scene.boxes, expected, configs);
}

INSTANTIATE_TEST_SUITE_P(Scale3Percent, TreeBenchmarkScenes,
                         ::testing::ValuesIn(scenes::benchmark_scene_names().begin(),
                                             scenes::benchmark_scene_names().end()),
                         [](const ::testing::TestParamInfo<std::string_view>& p) { return test_name(p.param); });

class TreeAdversarialScenes : public ::testing::TestWithParam<std::string_view> {};

TEST_P(TreeAdversarialScenes, SameOnAnyThreadCountAndMatchesOracle) {
  for (std::uint64_t seed : {1u, 2u}) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    const auto scene = scenes::make_scene(GetParam(), 1.0, seed);
    ASSERT_FALSE(scene.boxes.empty());
    const auto expected = oracle::pairs(scene.boxes);
    const Config configs[] = {Config{}, with_tree_task_entries(64), with_tree_task_entries(1, make_config(2, 2, 64, 1.0f, 8.0f))};
    expect_tree_matches(scene.boxes, expected, configs);
  }
}

INSTANTIATE_TEST_SUITE_P(FullScale, TreeAdversarialScenes,
                         ::testing::ValuesIn(scenes::adversarial_scene_names().begin(),
                                             scenes::adversarial_scene_names().end()),
                         [](const ::testing::TestParamInfo<std::string_view>& p) { return test_name(p.param); });

// ---- seeded random scenes and every configuration -------------------------------------------

TEST(Tree, RandomScenesMatchOracle) {
  for (const std::uint32_t count : {0u, 1u, 2u, 33u, 1000u, 6000u, 20000u}) {
    for (const Density density : {Density::kVerySparse, Density::kMedium, Density::kVeryDense}) {
      const auto boxes = random_scene(count, density, count + 7);
      const auto expected = oracle::pairs(boxes);
      for (const std::uint32_t tree_task_entries : {1u, 50u, 4096u}) {
        for (const int threads : {1, 3}) {
          EXPECT_TRUE(same_pairs(expected, tree_pairs(boxes, with_tree_task_entries(tree_task_entries), threads), boxes))
              << count << " boxes, " << name(density) << ", tree_task_entries " << tree_task_entries << ", " << threads
              << " threads";
        }
      }
    }
  }
}

TEST(Tree, EveryConfigurationMatchesOracle) {
  const auto boxes = random_scene(4000, Density::kDense, 99);
  const auto expected = oracle::pairs(boxes);
  for (const Config& config : all_config_combinations()) {
    for (const std::uint32_t tree_task_entries : {1u, 300u}) {
      EXPECT_TRUE(same_pairs(expected, tree_pairs(boxes, with_tree_task_entries(tree_task_entries, config), 3), boxes))
          << name(config) << " tree_task_entries " << tree_task_entries;
    }
  }
}

// ---- reuse, bad input, stats -------------------------------------------------------------

TEST(Tree, ReusedAcrossFramesOfChangingSize) {
  // Scratch kept between frames (per task and per worker) must never leak into the next one.
  Tree tree(with_tree_task_entries(100));
  for (const std::uint32_t count : {20000u, 50u, 0u, 8000u, 20000u, 3u}) {
    const auto boxes = random_scene(count, Density::kDense, count);
    std::vector<Pair> found = {Pair{1, 2}};  // replaced, not appended to
    in_arena(2, [&] {
      tree.build(boxes);
      tree.find_pairs(found);
    });
    EXPECT_TRUE(same_pairs(oracle::pairs(boxes), found, boxes)) << count << " boxes";
  }
}

TEST(Tree, BadAndExtremeBoxesChangeNothingElse) {
  // Invalid boxes pair with nothing; infinite, huge and far boxes pair with what they overlap.
  const auto good = random_scene(20000, Density::kMedium, 5);
  const Mixed mixed = mix_in(good, scenes::invalid_boxes(), 6);
  const auto expected = oracle::pairs(mixed.boxes);
  const Config configs[] = {Config{}, with_tree_task_entries(64)};
  expect_tree_matches(mixed.boxes, expected, configs);

  auto extreme = good;
  for (const Box& b : scenes::extreme_boxes(finite_bounds(good))) extreme.push_back(b);
  expect_tree_matches(extreme, oracle::pairs(extreme), configs);
}

TEST(Tree, TooManyBoxesIsAClearErrorNotACrash) {
  const std::vector<Box> few(4);
  const std::span<const Box> too_many(few.data(), std::size_t{std::numeric_limits<std::uint32_t>::max()});
  Tree tree;
  tree.build(few);
  EXPECT_THROW(tree.build(too_many), std::length_error);
  std::vector<Pair> none = {Pair{0, 1}};
  tree.find_pairs(none);
  EXPECT_TRUE(none.empty()) << "a refused build leaves an empty tree, not the last frame's";
  tree.build(few);  // still usable
  std::vector<Pair> pairs;
  tree.find_pairs(pairs);
  EXPECT_EQ(pairs.size(), 6u);
}

TEST(Tree, MemoryFollowsTheCurrentFrame) {
  // A heavy cell (2,000 identical boxes) lands in a different task slot each frame; the memory
  // the tree keeps must not add up every slot's heaviest frame.
  auto boxes = random_scene(60000, Density::kMedium, 11);
  const Box bounds = finite_bounds(boxes);
  const std::size_t base = boxes.size();
  boxes.resize(base + 2000);
  Rng rng(12);
  Tree tree;
  std::vector<Pair> pairs;
  std::size_t early = 0;
  std::size_t late = 0;
  for (int frame = 0; frame < 24; ++frame) {
    const float x = static_cast<float>(rng.uniform(bounds.min.x, bounds.max.x));
    const float y = static_cast<float>(rng.uniform(bounds.min.y, bounds.max.y));
    const float z = static_cast<float>(rng.uniform(bounds.min.z, bounds.max.z));
    for (std::size_t i = base; i < boxes.size(); ++i) boxes[i] = Box{{x, y, z}, {x + 0.1f, y + 0.1f, z + 0.1f}};
    in_arena(2, [&] {
      tree.build(boxes);
      tree.find_pairs(pairs);
    });
    ASSERT_GE(pairs.size(), 2000u * 1999u / 2);
    if (frame < 4) early = std::max(early, tree.stats().bytes_held);
    if (frame >= 20) late = std::max(late, tree.stats().bytes_held);
  }
  EXPECT_LT(late, 2 * early) << "early frames held " << early << " bytes, late ones " << late;
}

TEST(Grid, RefusedBuildLeavesAnEmptyGrid) {
  const std::vector<Box> few(4);
  const std::span<const Box> too_many(few.data(), std::size_t{std::numeric_limits<std::uint32_t>::max()});
  Grid grid;
  grid.build(few);
  EXPECT_THROW(grid.build(too_many), std::length_error);
  std::vector<Pair> none = {Pair{0, 1}};
  grid.find_pairs(none);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(grid.stats().boxes, 0u);
}

TEST(Tree, NothingBuiltNothingFound) {
  Tree tree;
  std::vector<Pair> pairs = {Pair{0, 1}};
  tree.find_pairs(pairs);
  EXPECT_TRUE(pairs.empty());
  EXPECT_EQ(tree.stats().boxes, 0u);
}

TEST(Tree, RefusesAnUnusableConfig) {
  EXPECT_THROW(Tree(with_tree_task_entries(0)), std::invalid_argument);
}

TEST(Tree, StatsAgreeWithTheGrid) {
  const auto good = random_scene(30000, Density::kMedium, 8);
  const Mixed mixed = mix_in(good, scenes::invalid_boxes(), 9);
  auto boxes = mixed.boxes;
  for (const Box& b : scenes::extreme_boxes(finite_bounds(good))) boxes.push_back(b);
  Grid grid;
  grid.build(boxes);
  Tree tree;
  in_arena(2, [&] { tree.build(boxes); });
  const GridStats g = grid.stats();
  const GridStats t = tree.stats();
  EXPECT_EQ(t.boxes, g.boxes);
  EXPECT_EQ(t.invalid_boxes, g.invalid_boxes);
  EXPECT_EQ(t.oversize_boxes, g.oversize_boxes);
  EXPECT_GT(t.tasks, 1u);
  EXPECT_EQ(g.tasks, 1u);
  EXPECT_GE(t.leaf_entries, g.boxes - g.invalid_boxes - g.oversize_boxes);
  EXPECT_GT(t.nodes, t.leaves);
  EXPECT_GT(t.bytes_held, 0u);
}

TEST(Tree, StructureDoesNotDependOnTheThreadCount) {
  // Nodes, tasks and entries are fixed by the input and the config; only bytes_held may differ
  // (per-worker scratch).
  const auto boxes = scenes::make_scene("teapot-stadium-500k", 0.1, 2).boxes;
  const auto stats_on = [&](int threads) {
    Tree tree;
    in_arena(threads, [&] { tree.build(boxes); });
    return tree.stats();
  };
  const GridStats one = stats_on(1);
  EXPECT_GT(one.tasks, 1u);
  for (const int threads : kThreadCounts) {
    const GridStats s = stats_on(threads);
    EXPECT_EQ(s.tasks, one.tasks) << threads << " threads";
    EXPECT_EQ(s.nodes, one.nodes) << threads << " threads";
    EXPECT_EQ(s.leaves, one.leaves) << threads << " threads";
    EXPECT_EQ(s.depth, one.depth) << threads << " threads";
    EXPECT_EQ(s.leaf_entries, one.leaf_entries) << threads << " threads";
    EXPECT_EQ(s.staying_entries, one.staying_entries) << threads << " threads";
  }
}

TEST(Tree, HonoursGlobalControl) {
  // Limited to one thread by the application, the tree still finds every pair.
  const auto boxes = random_scene(20000, Density::kDense, 3);
  tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
  Tree tree;
  std::vector<Pair> found;
  tree.build(boxes);
  tree.find_pairs(found);
  EXPECT_TRUE(same_pairs(oracle::pairs(boxes), found, boxes));
}

// ---- find_all_pairs picks the tree for large inputs ----------------------------------------

TEST(Tree, FindAllPairsUsesTheTreeAboveItsThreshold) {
  const auto boxes = random_scene(5000, Density::kDense, 13);
  const auto expected = oracle::pairs(boxes);
  Config config;
  for (const std::uint32_t threshold : {0u, 4999u, 5000u, 5001u, std::numeric_limits<std::uint32_t>::max()}) {
    config.tree_min_boxes = threshold;
    for (const int threads : kThreadCounts) {
      std::vector<Pair> found;
      in_arena(threads, [&] { found = find_all_pairs(boxes, config); });
      EXPECT_TRUE(same_pairs(expected, found, boxes)) << "threshold " << threshold << ", " << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace agrid::test
