// GridStats: counts that describe the build are consistent, and memory stays linear in the
// input and output (O(N + K)) on every scene, pathological ones included.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "agrid/agrid.h"
#include "agrid/limits.h"
#include "agrid_scenes/scenes.h"
#include "oracle/oracle.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

std::uint32_t count_valid(std::span<const Box> boxes) {
  return static_cast<std::uint32_t>(boxes.size()) - oracle::count_invalid(boxes);
}

// Checks every property of the stats of `grid`, built over `boxes`.
void check_stats(const Grid& grid, std::span<const Box> boxes, std::size_t pair_count) {
  const GridStats s = grid.stats();
  const Config& c = grid.config();
  const std::uint64_t n = boxes.size();
  const std::uint64_t valid = count_valid(boxes);
  EXPECT_EQ(s.boxes, n);
  EXPECT_EQ(s.invalid_boxes, n - valid);
  EXPECT_LE(s.oversize_boxes, valid);
  EXPECT_LE(s.depth, kMaxDepth);
  EXPECT_GE(s.nodes, s.leaves);
  if (valid > 0) {
    EXPECT_GE(s.leaves, 1u);
    EXPECT_GT(s.bytes_held, 0u);
    // Nothing is dropped: every valid box is in a cell, stays at a node, or is oversize.
    EXPECT_GE(std::uint64_t{s.leaf_entries} + s.staying_entries + s.oversize_boxes, valid);
  }
  const std::uint64_t entries = std::uint64_t{s.leaf_entries} + s.staying_entries;
  // Copies of a box: a box descends into a node's children only while it spans at most
  // big_span child cells per axis, so it has at most big_span^3 copies (config.h) -- at most
  // 64 for any usable config. Generous linear bound first (any config, any scene) ...
  EXPECT_LE(entries, 64 * valid) << "box copies are not linear in the box count";
  // ... then the bound the big_span rule documents.
  const std::uint64_t per_box = std::uint64_t{c.big_span} * c.big_span * c.big_span;
  EXPECT_LE(entries, per_box * valid) << "more than big_span^3 copies per box";
  // Nodes: children exist only where occupied, so every leaf holds an entry and every chain of
  // single-child nodes is at most kMaxDepth long: nodes <= (kMaxDepth + 1) * (entries + 1).
  EXPECT_LE(s.nodes, (kMaxDepth + 1) * (entries + 1));
  // Memory held is linear in boxes and pairs: a generous constant per box (the entry arrays,
  // their copies and the level scratch), per pair (keys and sort scratch)
  // and a fixed amount. A quadratic blow-up on the pathological scenes breaks it at once.
  EXPECT_LE(s.bytes_held, (std::size_t{1} << 20) + 4096 * n + 64 * pair_count)
      << s.bytes_held << " bytes for " << n << " boxes and " << pair_count << " pairs";
}

struct StatsParam {
  std::string scene;
  Config config;
};

void PrintTo(const StatsParam& p, std::ostream* os) { *os << p.scene << " " << name(p.config); }

std::vector<Box> stats_scene(const std::string& label) {
  if (label == "random_1000") return random_scene(1000, Density::kMedium, 1);
  if (label == "random_20000_dense") return random_scene(20000, Density::kDense, 2);
  if (label == "random_2") return random_scene(2, Density::kMedium, 3);
  std::string scene = label;
  std::replace(scene.begin(), scene.end(), '_', '-');
  for (std::string_view n : scenes::benchmark_scene_names()) {
    if (n == scene) return scenes::make_scene(n, 0.02, 1).boxes;
  }
  return scenes::make_scene(scene, 1.0, 1).boxes;
}

std::vector<StatsParam> stats_params() {
  std::vector<std::string> labels = {"random_1000", "random_20000_dense", "random_2"};
  for (auto names : {scenes::benchmark_scene_names(), scenes::adversarial_scene_names()}) {
    for (std::string_view n : names) {
      std::string s(n);
      std::replace(s.begin(), s.end(), '-', '_');
      labels.push_back(s);
    }
  }
  std::vector<StatsParam> out;
  for (const auto& l : labels) {
    for (const Config& c : some_configs()) out.push_back({l, c});
  }
  return out;
}

class Stats : public ::testing::TestWithParam<StatsParam> {};

TEST_P(Stats, ConsistentAndLinear) {
  const auto boxes = stats_scene(GetParam().scene);
  Grid grid(GetParam().config);
  grid.build(boxes);
  std::vector<Pair> pairs;
  grid.find_pairs(pairs);
  {
    SCOPED_TRACE("after the first frame");
    check_stats(grid, boxes, pairs.size());
  }
  // The same frame twice more: the same structure, and once warm (the first frame's pair
  // buffers exist only after its build was measured), no more memory.
  grid.build(boxes);
  grid.find_pairs(pairs);
  const GridStats first = grid.stats();
  grid.build(boxes);
  grid.find_pairs(pairs);
  const GridStats second = grid.stats();
  EXPECT_EQ(second.nodes, first.nodes);
  EXPECT_EQ(second.leaves, first.leaves);
  EXPECT_EQ(second.depth, first.depth);
  EXPECT_EQ(second.leaf_entries, first.leaf_entries);
  EXPECT_EQ(second.staying_entries, first.staying_entries);
  EXPECT_EQ(second.oversize_boxes, first.oversize_boxes);
  EXPECT_EQ(second.bytes_held, first.bytes_held) << "a warm frame of the same input grew the grid";
  check_stats(grid, boxes, pairs.size());
}

INSTANTIATE_TEST_SUITE_P(Scenes, Stats, ::testing::ValuesIn(stats_params()),
                         [](const ::testing::TestParamInfo<StatsParam>& p) {
                           return p.param.scene + "_" + name(p.param.config);
                         });

TEST(StatsBasics, EmptyAndSingle) {
  Grid grid;
  grid.build(std::span<const Box>{});
  EXPECT_EQ(grid.stats().boxes, 0u);
  EXPECT_EQ(grid.stats().invalid_boxes, 0u);
  EXPECT_EQ(grid.stats().leaf_entries + grid.stats().staying_entries, 0u);
  const std::vector<Box> one = {Box{{1, 2, 3}, {4, 5, 6}}};
  grid.build(one);
  EXPECT_EQ(grid.stats().boxes, 1u);
  EXPECT_GE(grid.stats().nodes, 1u);
  EXPECT_GE(grid.stats().leaves, 1u);
  EXPECT_GT(grid.stats().bytes_held, 0u);
  check_stats(grid, one, 0);
}

TEST(StatsBasics, DeepClusterStaysWithinMaxDepth) {
  // Boxes ever smaller and closer to the origin (over 13 orders of magnitude) ask for
  // unbounded subdivision; a few large boxes keep the root big.
  std::vector<Box> boxes;
  double c = 1000.0;
  for (int i = 0; i < 3000; ++i) {
    const auto lo = static_cast<float>(c);
    const auto hi = static_cast<float>(c * 1.02);
    boxes.push_back(Box{{lo, lo, lo}, {hi, hi, hi}});
    c *= 0.99;
  }
  boxes.push_back(Box{{-1000, -1000, -1000}, {-900, -900, -900}});
  boxes.push_back(Box{{-1e-12f, -1e-12f, -1e-12f}, {1e-12f, 1e-12f, 1e-12f}});
  for (std::uint32_t lc : {1u, 2u, 16u}) {
    Config config;
    config.leaf_capacity = lc;
    Grid grid(config);
    grid.build(boxes);
    EXPECT_LE(grid.stats().depth, kMaxDepth);
    EXPECT_TRUE(grid_pairs_match(grid, boxes, oracle::pairs(boxes)));
    std::vector<Pair> pairs;
    grid.find_pairs(pairs);
    check_stats(grid, boxes, pairs.size());
  }
}

}  // namespace
}  // namespace agrid::test
