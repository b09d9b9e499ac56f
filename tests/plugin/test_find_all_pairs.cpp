// find_all_pairs and Grid::find_pairs against the oracle, exactly: same pairs,
// each once as (i, j) with i < j, in ascending order.

#include <gtest/gtest.h>

#include <tbb/task_arena.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define AGRID_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AGRID_TEST_ASAN 1
#endif
#endif
#if defined(AGRID_TEST_ASAN)
#include <sanitizer/lsan_interface.h>
#endif

#include <cfloat>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "agrid/agrid.h"
#include "agrid_scenes/scenes.h"
#include "common/parallel_for.h"  // agrid's loops, whose fork and join ThreadSanitizer sees
#include "common/recent_peak.h"
#include "oracle/oracle.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

Box cube(float x0, float y0, float z0, float x1, float y1, float z1) {
  return Box{{x0, y0, z0}, {x1, y1, z1}};
}

// Every way of asking for all pairs gives exactly the oracle's answer.
void expect_all_pair_paths_match(std::span<const Box> boxes, const std::vector<Pair>& expected,
                                 const Config& config = {}) {
  EXPECT_TRUE(same_pairs(expected, find_all_pairs(boxes, config), boxes)) << name(config);
  PairFinder finder(config);
  std::vector<Pair> found;
  finder.find_pairs(boxes, found);
  EXPECT_TRUE(same_pairs(expected, found, boxes)) << name(config);
  Grid grid(config);
  grid.build(boxes);
  EXPECT_TRUE(grid_pairs_match(grid, boxes, expected)) << name(config);
}

TEST(FindAllPairs, HandCases) {
  const std::vector<Box> none;
  EXPECT_TRUE(find_all_pairs(none).empty());
  const std::vector<Box> one = {cube(0, 0, 0, 1, 1, 1)};
  EXPECT_TRUE(find_all_pairs(one).empty());

  // Touching on a face, an edge, a corner: all overlap (closed boxes).
  const std::vector<Box> touching = {cube(0, 0, 0, 1, 1, 1), cube(1, 0, 0, 2, 1, 1),
                                     cube(2, 1, 0, 3, 2, 1), cube(3, 2, 1, 4, 3, 2)};
  EXPECT_EQ(find_all_pairs(touching), (std::vector<Pair>{{0, 1}, {1, 2}, {2, 3}}));

  // One ulp apart: no overlap.
  const float gap = std::nextafter(1.0f, 2.0f);
  const std::vector<Box> apart = {cube(0, 0, 0, 1, 1, 1), cube(gap, 0, 0, 2, 1, 1),
                                  cube(0, gap, 0, 1, 2, 1), cube(0, 0, gap, 1, 1, 2)};
  EXPECT_TRUE(find_all_pairs(apart).empty());

  // Nested and identical boxes, listed in reverse order: pairs still come out as (i < j), sorted.
  const std::vector<Box> nested = {cube(0, 0, 0, 10, 10, 10), cube(1, 1, 1, 2, 2, 2),
                                   cube(1, 1, 1, 2, 2, 2), cube(5, 5, 5, 5, 5, 5)};
  EXPECT_EQ(find_all_pairs(nested), (std::vector<Pair>{{0, 1}, {0, 2}, {0, 3}, {1, 2}}));

  // A NaN box identical to a valid one except for the NaN, and an inverted one: nothing.
  const std::vector<Box> bad = {cube(0, 0, 0, 1, 1, 1), cube(0, 0, 0, 1, kNaN, 1),
                                cube(1, 0, 0, 0, 1, 1), cube(0.5f, 0.5f, 0.5f, 2, 2, 2)};
  EXPECT_EQ(find_all_pairs(bad), (std::vector<Pair>{{0, 3}}));

  // Zero-size boxes at the same point overlap each other; -0 and +0 are the same point.
  const std::vector<Box> points = {cube(0, 0, 0, 0, 0, 0), cube(-0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f),
                                   cube(0, 0, 0, 0, 0, 0)};
  EXPECT_EQ(find_all_pairs(points), (std::vector<Pair>{{0, 1}, {0, 2}, {1, 2}}));
  for (const auto* boxes : {&touching, &apart, &nested, &bad, &points}) {
    expect_all_pair_paths_match(*boxes, oracle::brute_force_pairs(*boxes));
  }
}

// ---- seeded random scenes ----------------------------------------------------------------

struct RandomCase {
  std::uint32_t count;
  Density density;
  std::uint64_t seed;
};

void PrintTo(const RandomCase& c, std::ostream* os) {
  *os << c.count << " boxes, " << name(c.density) << ", seed " << c.seed;
}

std::vector<RandomCase> random_cases() {
  std::vector<RandomCase> out;
  const Density all[] = {Density::kVerySparse, Density::kSparse, Density::kMedium, Density::kDense,
                         Density::kVeryDense};
  for (std::uint32_t n : {0u, 1u, 2u, 3u, 10u, 100u, 1000u}) {
    for (Density d : all) {
      for (std::uint64_t seed : {1u, 2u, 3u}) out.push_back({n, d, seed});
    }
  }
  for (Density d : all) {
    out.push_back({20000, d, 1});
    out.push_back({5000, d, 2});
  }
  return out;
}

class RandomScenes : public ::testing::TestWithParam<RandomCase> {};

TEST_P(RandomScenes, MatchOracle) {
  const RandomCase& c = GetParam();
  const auto boxes = random_scene(c.count, c.density, c.seed);
  ASSERT_EQ(boxes.size(), c.count);
  const auto expected = oracle::pairs(boxes);
  expect_all_pair_paths_match(boxes, expected);
  // Plus two non-default configurations, rotating with the case so that all get used.
  const auto configs = some_configs();
  const std::size_t k = (c.seed + c.count + static_cast<std::size_t>(c.density)) % (configs.size() - 1);
  expect_all_pair_paths_match(boxes, expected, configs[1 + k]);
  expect_all_pair_paths_match(boxes, expected, configs[1 + (k + 1) % (configs.size() - 1)]);
}

INSTANTIATE_TEST_SUITE_P(Seeded, RandomScenes, ::testing::ValuesIn(random_cases()),
                         [](const ::testing::TestParamInfo<RandomCase>& p) {
                           // Appended piece by piece: GCC 12 warns falsely (-Wrestrict)
                           // on "literal" + std::string.
                           std::string s("n");
                           s += std::to_string(p.param.count);
                           s += '_';
                           s += name(p.param.density);
                           s += "_seed";
                           s += std::to_string(p.param.seed);
                           return s;
                         });

// ---- every configuration gives the same answer ------------------------------------------

class ConfigCombinations : public ::testing::TestWithParam<Config> {};

TEST_P(ConfigCombinations, MatchOracle) {
  const Config& config = GetParam();
  ASSERT_EQ(config.problem(), nullptr);
  std::vector<std::vector<Box>> scenes = {
      random_scene(1000, Density::kMedium, 5), random_scene(1000, Density::kVeryDense, 6),
      random_scene(2500, Density::kDense, 7), random_scene(150, Density::kVeryDense, 8),
      random_scene(3, Density::kDense, 9)};
  for (const char* adversarial : {"touching-lattice", "zero-size", "far-offsets", "long-rods",
                                  "huge-and-infinite", "tiny-cluster"}) {
    scenes.push_back(scenes::make_scene(adversarial, 0.1, 3).boxes);
  }
  for (const auto& boxes : scenes) {
    SCOPED_TRACE(::testing::Message() << boxes.size() << " boxes");
    expect_all_pair_paths_match(boxes, oracle::pairs(boxes), config);
  }
}

INSTANTIATE_TEST_SUITE_P(All, ConfigCombinations, ::testing::ValuesIn(all_config_combinations()),
                         [](const ::testing::TestParamInfo<Config>& p) { return name(p.param); });

// ---- the shared scene library ------------------------------------------------------------

class BenchmarkScenes : public ::testing::TestWithParam<std::string_view> {};

TEST_P(BenchmarkScenes, MatchOracle) {
  const auto scene = scenes::make_scene(GetParam(), 0.03, 1);
  ASSERT_FALSE(scene.boxes.empty());
  const auto expected = oracle::pairs(scene.boxes);
  for (const Config& config : some_configs()) expect_all_pair_paths_match(scene.boxes, expected, config);
}

INSTANTIATE_TEST_SUITE_P(Scale3Percent, BenchmarkScenes,
                         ::testing::ValuesIn(scenes::benchmark_scene_names().begin(),
                                             scenes::benchmark_scene_names().end()),
                         [](const ::testing::TestParamInfo<std::string_view>& p) {
                           std::string n(p.param);
                           for (char& ch : n) ch = ch == '-' ? '_' : ch;
                           return n;
                         });

class AdversarialScenes : public ::testing::TestWithParam<std::string_view> {};

TEST_P(AdversarialScenes, MatchOracle) {
  for (std::uint64_t seed : {1u, 2u}) {
    const auto scene = scenes::make_scene(GetParam(), 1.0, seed);
    ASSERT_FALSE(scene.boxes.empty());
    const auto expected = oracle::pairs(scene.boxes);
    for (const Config& config : some_configs()) {
      SCOPED_TRACE(::testing::Message() << "seed " << seed);
      expect_all_pair_paths_match(scene.boxes, expected, config);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(FullScale, AdversarialScenes,
                         ::testing::ValuesIn(scenes::adversarial_scene_names().begin(),
                                             scenes::adversarial_scene_names().end()),
                         [](const ::testing::TestParamInfo<std::string_view>& p) {
                           std::string n(p.param);
                           for (char& ch : n) ch = ch == '-' ? '_' : ch;
                           return n;
                         });

// ---- determinism ------------------------------------------------------------------------

TEST(Determinism, SameInputSameOutput) {
  for (const auto& boxes : {random_scene(20000, Density::kDense, 4),
                            scenes::make_scene("bad-input", 1.0, 5).boxes,
                            scenes::make_scene("huge-and-infinite", 1.0, 5).boxes}) {
    const auto first = find_all_pairs(boxes);
    EXPECT_TRUE(same_pairs(first, find_all_pairs(boxes), boxes));
    Grid grid;
    grid.build(boxes);
    std::vector<Pair> a;
    grid.find_pairs(a);
    grid.build(boxes);
    std::vector<Pair> b;
    grid.find_pairs(b);
    EXPECT_TRUE(same_pairs(first, a, boxes));
    EXPECT_TRUE(same_pairs(first, b, boxes));
    EXPECT_TRUE(same_pairs(oracle::pairs(boxes), first, boxes));
  }
}

TEST(Determinism, AnyThreadCountSameOutput) {
  // The output must not depend on how many threads run the build and the pair search.
  const auto boxes = random_scene(20000, Density::kDense, 12);
  const auto expected = oracle::pairs(boxes);
  for (int threads : {1, 2, 3, 4, 8}) {
    std::vector<Pair> found;
    std::vector<Pair> from_grid;
    in_arena(threads, [&] {
      found = find_all_pairs(boxes);
      Grid grid;
      grid.build(boxes);
      grid.find_pairs(from_grid);
    });
    EXPECT_TRUE(same_pairs(expected, found, boxes)) << threads << " threads";
    EXPECT_TRUE(same_pairs(expected, from_grid, boxes)) << threads << " threads";
  }
}

// ---- the per-thread workspace ------------------------------------------------------------
// find_all_pairs keeps its grid or tree per thread between calls; nothing of one call may leak
// into the next: sizes, configs, grid and tree, threads, calls nested in tasks.

TEST(FindAllPairsWorkspace, CallsOfChangingSizesAndConfigsMatchTheOracle) {
  Config small_leaves;
  small_leaves.leaf_capacity = 4;
  Config tree_early;
  tree_early.tree_min_boxes = 500;
  const Config configs[] = {Config{}, small_leaves, tree_early};
  const std::vector<Box> scenes_in_turn[] = {random_scene(3000, Density::kDense, 31), random_scene(10, Density::kDense, 32),
                                            {}, random_scene(25000, Density::kMedium, 33),
                                            scenes::make_scene("bad-input", 1.0, 34).boxes,
                                            random_scene(700, Density::kVeryDense, 35)};
  for (int threads : {1, 2}) {
    in_arena(threads, [&] {
      for (int round = 0; round < 2; ++round) {
        for (const Config& config : configs) {
          for (const auto& boxes : scenes_in_turn) {
            ASSERT_TRUE(same_pairs(oracle::pairs(boxes), find_all_pairs(boxes, config), boxes))
                << threads << " threads, " << boxes.size() << " boxes, leaf_capacity " << config.leaf_capacity
                << ", tree_min_boxes " << config.tree_min_boxes;
          }
        }
      }
    });
  }
}

TEST(FindAllPairsWorkspace, CallsFromTasksOnManyThreadsMatchTheOracle) {
  // Each task calls find_all_pairs, and calls of 20,000 boxes run the tree, whose waiting thread
  // may pick up another task of this loop while its own call is under way.
  std::vector<std::vector<Box>> scenes_by_task;
  for (int i = 0; i < 12; ++i) scenes_by_task.push_back(random_scene(i % 3 == 0 ? 20000 : 800, Density::kDense, 40 + i));
  std::vector<std::vector<Pair>> found(scenes_by_task.size());
  in_arena(4, [&] {
    detail::parallel_for(std::size_t{0}, scenes_by_task.size(), [&](std::size_t i) { found[i] = find_all_pairs(scenes_by_task[i]); });
  });
  for (std::size_t i = 0; i < scenes_by_task.size(); ++i) {
    EXPECT_TRUE(same_pairs(oracle::pairs(scenes_by_task[i]), found[i], scenes_by_task[i])) << "task " << i;
  }
}

#if defined(AGRID_TEST_ASAN)
// While find_all_pairs' per-thread workspaces are alive, LeakSanitizer must find a pointer to
// every block they own. oneTBB's default per-thread storage lives in tbbmalloc's memory, which
// LeakSanitizer does not scan: libFuzzer's leak check after each input reported the workspace's
// sweep buffers as leaked until the per-thread elements moved to the ordinary heap.
TEST(FindAllPairsWorkspace, LeakCheckerSeesWhatKeptWorkspacesOwn) {
  // Enough boxes to run the tree, with large ones staying in coarse cells, whose sweeps use
  // per-thread buffers; sorting the tasks' keys uses per-thread buffers too.
  std::vector<Box> boxes = random_scene(20000, Density::kDense, 52);
  constexpr float kLargeSide = 300.0f;  // of the scene's 1,000
  for (std::size_t i = 0; i < 400; ++i) {
    const Vec3 at = boxes[i].min;
    boxes.push_back(Box{at, {at.x + kLargeSide, at.y + kLargeSide, at.z + kLargeSide}});
  }
  Config config;
  config.sweep_threshold = 2;  // cells of more than two entries sweep
  in_arena(2, [&] { (void)find_all_pairs(boxes, config); });
  EXPECT_EQ(__lsan_do_recoverable_leak_check(), 0) << "a kept workspace's memory looks leaked";
}
#endif

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
// Heap bytes in use (glibc; the sanitizers' allocators do not report here).
std::size_t heap_in_use() { return mallinfo2().uordblks; }

TEST(FindAllPairsWorkspace, MemoryOfABigCallIsFreedAfterASeriesOfSmallOnes) {
  const std::vector<Box> big = random_scene(300000, Density::kMedium, 50);
  const std::vector<Box> small = random_scene(1000, Density::kMedium, 51);
  in_arena(1, [&] {
    (void)find_all_pairs(small);
    const std::size_t before = heap_in_use();
    (void)find_all_pairs(big);
    const std::size_t held = heap_in_use() - std::min(heap_in_use(), before);
    ASSERT_GT(held, std::size_t{10} << 20) << "the big call's structure should be kept for the next call";
    // The thread's PairFinder remembers the big call for at least kRecentUses calls, itself
    // included, and at most twice that (RecentPeak), then makes its grid afresh.
    for (std::uint64_t call = 1; call < detail::kRecentUses; ++call) (void)find_all_pairs(small);
    EXPECT_GT(heap_in_use(), before + held / 2) << "freed within kRecentUses calls";
    for (std::uint64_t call = 0; call < detail::kRecentUses; ++call) (void)find_all_pairs(small);
    EXPECT_LT(heap_in_use(), before + held / 10) << "still held after 2 * kRecentUses calls";
  });
}
#endif

// Many boxes let the root split straight into its grandchildren, after a sample says that pays.
// Boxes too large for the grandchildren stay with the root; if the sample missed that they are
// too many, the build falls back midway to splitting one level at a time. Same pairs throughout.
TEST(FindAllPairs, TwoLevelRootSplitAndItsFallback) {
  // Boxes of one small size: the two-level split is taken for them.
  const std::vector<Box> boxes = scenes::make_scene("article-20k-sparse", 0.2, 21).boxes;
  ASSERT_GT(boxes.size(), 64u * Config{}.leaf_capacity);
  // The scene is the cube: the article's three far teapots, last, are clamped into the root's
  // border cells and do not size it.
  const Box bounds = finite_bounds(std::span<const Box>(boxes).first(boxes.size() - 3));
  const auto check = [](const std::vector<Box>& scene, const char* what) {
    Grid grid;
    grid.build(scene);
    std::vector<Pair> pairs;
    grid.find_pairs(pairs);
    EXPECT_TRUE(same_pairs(oracle::pairs(scene), pairs, scene)) << what;
    return grid.stats();
  };
  EXPECT_EQ(check(boxes, "small boxes").staying_entries, 0u);

  // One box spanning the scene, off the sample's stride: it stays with the root.
  std::vector<Box> one_large = boxes;
  one_large[1] = bounds;
  const GridStats stats = check(one_large, "one large box");
  EXPECT_EQ(stats.oversize_boxes, 1u);
  EXPECT_GE(stats.staying_entries, 1u);

  // A third of the boxes a quarter of the scene wide, none where the sample looks: too many to
  // stay with the root, found only midway.
  std::vector<Box> many_large = boxes;
  const std::size_t stride = boxes.size() / 1024;
  const Vec3 quarter{(bounds.max.x - bounds.min.x) / 4, (bounds.max.y - bounds.min.y) / 4, (bounds.max.z - bounds.min.z) / 4};
  for (std::size_t i = 1; i < many_large.size(); ++i) {
    if (i % stride == 0 || i % 2 == 0) continue;
    Box& b = many_large[i];
    b.max = {b.min.x + quarter.x, b.min.y + quarter.y, b.min.z + quarter.z};
  }
  EXPECT_EQ(check(many_large, "many large boxes").oversize_boxes, 0u);  // two root children wide at most
}

// Few boxes, so that fit_lattice samples them all, a few of them far away: the far ones do not
// size the root (the others would all fall into one of its cells) but are clamped into its
// border cells, where they still pair exactly with each other and with the rest.
TEST(FindAllPairs, FarOutliersAreClampedNotSizingTheRoot) {
  constexpr float kScene = 40.0f;
  constexpr float kFar = 9000.0f;
  Rng rng(17);
  std::vector<Box> boxes;
  for (int i = 0; i < 1000; ++i) {
    const Vec3 c{rng.uniform(0.0f, kScene), rng.uniform(0.0f, kScene), rng.uniform(0.0f, kScene)};
    boxes.push_back(cube(c.x - 1, c.y - 1, c.z - 1, c.x + 1, c.y + 1, c.z + 1));
  }
  // Three overlapping boxes far out on every axis, like the article scenes' teapots.
  for (int k = 0; k < 3; ++k) {
    const float c = kFar + static_cast<float>(k);
    boxes.push_back(cube(c - 2, c - 2, c - 2, c + 2, c + 2, c + 2));
  }
  // One far below on x alone, one far out on y alone overlapping a box at the scene's edge
  // after clamping but not in space, and one rod from the scene to the far ones.
  boxes.push_back(cube(-kFar, 10, 10, -kFar + 2, 12, 12));
  boxes.push_back(cube(20, kFar, 20, 22, kFar + 2, 22));
  boxes.push_back(cube(kScene / 2, kScene / 2, kScene / 2, kFar, kFar, kFar));
  const std::vector<Pair> expected = oracle::pairs(boxes);
  expect_all_pair_paths_match(boxes, expected);

  Grid grid;
  grid.build(boxes);
  float root_size = 0.0f;
  grid.for_each_cell([&](const GridCell& c) {
    root_size = c.bounds.max.x - c.bounds.min.x;
    return false;  // the root comes first
  });
  EXPECT_LT(root_size, 2 * kScene);
  EXPECT_GE(grid.stats().depth, 1u);
}

}  // namespace
}  // namespace agrid::test
