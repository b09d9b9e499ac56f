// Box and segment queries against brute force: Grid::query (sorted) and the callback forms
// (each index once, early stop, deterministic order).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "agrid/agrid.h"
#include "agrid_scenes/scenes.h"
#include "oracle/oracle.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

// Scenes are made lazily inside the tests (the parameter only names them), so that listing
// the tests stays instant.
std::vector<Box> make_query_scene(const std::string& label) {
  if (label == "n0") return {};
  if (label == "n1") return random_scene(1, Density::kMedium, 1);
  if (label == "n10_dense") return random_scene(10, Density::kDense, 2);
  if (label == "n1000_sparse") return random_scene(1000, Density::kSparse, 3);
  if (label == "n1000_very_dense") return random_scene(1000, Density::kVeryDense, 4);
  if (label == "n20000_medium") return random_scene(20000, Density::kMedium, 5);
  std::string scene = label;
  std::replace(scene.begin(), scene.end(), '_', '-');
  // Benchmark scenes at 2%, adversarial ones at 50%: thousands of boxes each.
  for (std::string_view n : scenes::benchmark_scene_names()) {
    if (n == scene) return scenes::make_scene(n, 0.02, 1).boxes;
  }
  return scenes::make_scene(scene, 0.5, 1).boxes;
}

std::vector<std::string> query_scene_labels() {
  std::vector<std::string> out = {"n0", "n1", "n10_dense", "n1000_sparse", "n1000_very_dense",
                                  "n20000_medium"};
  for (auto names : {scenes::benchmark_scene_names(), scenes::adversarial_scene_names()}) {
    for (std::string_view n : names) {
      std::string s(n);
      std::replace(s.begin(), s.end(), '-', '_');
      out.push_back(s);
    }
  }
  return out;
}

struct QueryParam {
  std::string scene;
  Config config;
};

void PrintTo(const QueryParam& p, std::ostream* os) { *os << p.scene << " " << name(p.config); }

std::vector<QueryParam> query_params() {
  std::vector<QueryParam> out;
  for (const std::string& s : query_scene_labels()) {
    for (const Config& c : some_configs()) out.push_back({s, c});
  }
  return out;
}

std::string param_name(const ::testing::TestParamInfo<QueryParam>& p) {
  return p.param.scene + "_" + name(p.param.config);
}

// `run` reports through the callback it is given. Stopping after k results (k = 1, 2, half,
// all) gives exactly k distinct expected indices; never stopping gives every expected one once.
template <class Run>
void expect_early_stop(const std::vector<std::uint32_t>& expected, Run&& run) {
  for (std::size_t stop_after : {std::size_t{1}, std::size_t{2}, expected.size() / 2, expected.size()}) {
    if (stop_after == 0 || stop_after > expected.size()) continue;
    std::vector<std::uint32_t> seen;
    run([&](std::uint32_t i) {
      seen.push_back(i);
      return seen.size() < stop_after;
    });
    ASSERT_EQ(seen.size(), stop_after);
    ASSERT_TRUE(no_duplicates(seen));
    for (std::uint32_t i : seen) ASSERT_TRUE(std::binary_search(expected.begin(), expected.end(), i)) << i;
  }
  std::size_t calls = 0;
  run([&](std::uint32_t) { return ++calls, true; });
  EXPECT_EQ(calls, expected.size());
}

class BoxQueries : public ::testing::TestWithParam<QueryParam> {};

TEST_P(BoxQueries, MatchBruteForce) {
  const auto boxes = make_query_scene(GetParam().scene);
  Grid grid(GetParam().config);
  grid.build(boxes);
  const auto queries = query_boxes(boxes, 150, 17);
  std::size_t reported = 0;
  for (const Box& q : queries) {
    SCOPED_TRACE(::testing::PrintToString(q));
    const auto expected = oracle::query(boxes, q);
    std::vector<std::uint32_t> out = {123456789u};  // replaced, not appended to
    grid.query(q, out);
    ASSERT_TRUE(same_indices(expected, out, boxes));
    std::vector<std::uint32_t> visited;
    grid.for_each_overlap(q, [&](std::uint32_t i) { visited.push_back(i); });
    ASSERT_TRUE(no_duplicates(visited));
    std::vector<std::uint32_t> again;
    grid.for_each_overlap(q, [&](std::uint32_t i) { again.push_back(i); });
    ASSERT_EQ(visited, again) << "for_each_overlap order must be deterministic";
    std::sort(visited.begin(), visited.end());
    ASSERT_TRUE(same_indices(expected, visited, boxes));
    reported += expected.size();
  }
  if (!boxes.empty()) {
    EXPECT_GT(reported, 0u);  // the queries do find something
  }
}

TEST_P(BoxQueries, EarlyStop) {
  const auto boxes = make_query_scene(GetParam().scene);
  Grid grid(GetParam().config);
  grid.build(boxes);
  const Box everything{{-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 1e30f}};
  const auto expected = oracle::query(boxes, everything);
  expect_early_stop(expected, [&](FunctionRef<std::uint32_t> visit) { grid.for_each_overlap(everything, visit); });
}

INSTANTIATE_TEST_SUITE_P(Scenes, BoxQueries, ::testing::ValuesIn(query_params()), param_name);

class SegmentQueries : public ::testing::TestWithParam<QueryParam> {};

TEST_P(SegmentQueries, MatchBruteForce) {
  const auto boxes = make_query_scene(GetParam().scene);
  Grid grid(GetParam().config);
  grid.build(boxes);
  const auto segments = query_segments(boxes, 150, 23);
  std::size_t reported = 0;
  for (const Segment& s : segments) {
    SCOPED_TRACE(::testing::PrintToString(s));
    const auto expected = oracle::query(boxes, s);
    std::vector<std::uint32_t> out = {123456789u};
    grid.query(s, out);
    ASSERT_TRUE(same_indices(expected, out, boxes));
    std::vector<std::uint32_t> visited;
    grid.for_each_hit(s, [&](std::uint32_t i) { visited.push_back(i); });
    ASSERT_TRUE(no_duplicates(visited));
    std::vector<std::uint32_t> again;
    grid.for_each_hit(s, [&](std::uint32_t i) { again.push_back(i); });
    ASSERT_EQ(visited, again) << "for_each_hit order must be deterministic";
    std::sort(visited.begin(), visited.end());
    ASSERT_TRUE(same_indices(expected, visited, boxes));
    reported += expected.size();
  }
  if (boxes.size() > 1) {
    EXPECT_GT(reported, 0u);
  }
}

TEST_P(SegmentQueries, EarlyStop) {
  const auto boxes = make_query_scene(GetParam().scene);
  Grid grid(GetParam().config);
  grid.build(boxes);
  // The segment hitting the most boxes among a few long ones.
  const Box core = finite_bounds(boxes);
  Segment best{core.min, core.max, Box{{-1, -1, -1}, {1, 1, 1}}};
  std::vector<std::uint32_t> expected = oracle::query(boxes, best);
  for (const Segment& s : query_segments(boxes, 20, 5)) {
    auto e = oracle::query(boxes, s);
    if (e.size() > expected.size()) {
      best = s;
      expected = std::move(e);
    }
  }
  expect_early_stop(expected, [&](FunctionRef<std::uint32_t> visit) { grid.for_each_hit(best, visit); });
}

INSTANTIATE_TEST_SUITE_P(Scenes, SegmentQueries, ::testing::ValuesIn(query_params()), param_name);

TEST(BoxQueries, HandCases) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<Box> boxes = {Box{{0, 0, 0}, {1, 1, 1}}, Box{{2, 0, 0}, {3, 1, 1}},
                                  Box{{0, 0, 0}, {1, std::numeric_limits<float>::quiet_NaN(), 1}},
                                  Box{{-inf, -1, -1}, {inf, -1, -1}}, Box{{5, 5, 5}, {5, 5, 5}}};
  Grid grid;
  grid.build(boxes);
  const auto ask = [&](const Box& q) {
    std::vector<std::uint32_t> out;
    grid.query(q, out);
    return out;
  };
  using V = std::vector<std::uint32_t>;
  EXPECT_EQ(ask(Box{{1, 1, 1}, {2, 2, 2}}), (V{0, 1}));          // touches 0 at a corner, 1 on a face
  EXPECT_EQ(ask(Box{{1.5f, 0, 0}, {1.75f, 1, 1}}), V{});          // in the gap
  EXPECT_EQ(ask(Box{{5, 5, 5}, {5, 5, 5}}), (V{4}));              // a point on a point
  EXPECT_EQ(ask(Box{{1e30f, -1, -1}, {1e30f, -1, -1}}), (V{3}));  // on the infinite line, far out
  EXPECT_EQ(ask(Box{{-inf, -inf, -inf}, {inf, inf, inf}}), (V{0, 1, 3, 4}));
  EXPECT_EQ(ask(Box{{-inf, -inf, -inf}, {inf, std::numeric_limits<float>::quiet_NaN(), inf}}), V{});
  EXPECT_EQ(ask(Box{{3, 1, 1}, {0, 0, 0}}), V{});                 // inverted query
}

// Scenes mixing ordinary boxes with infinite, 1e18 and half-infinite ones, at offsets from 0 to
// 1e18, queried with segments between box corners, along axes and across 1e18: every grid
// answer equals brute force over agrid::hits (a review found misses here).
TEST(SegmentQueries, ExtremeScenesMatchBruteForce) {
  Rng rng(7);
  const float offsets[] = {0.0f, 1e7f, -1e7f, 1e18f};
  for (int scene = 0; scene < 24; ++scene) {
    const float offset = offsets[scene % 4];
    const float unit = std::max(std::pow(10.0f, static_cast<float>(scene % 5) - 2.0f), std::abs(offset) * 1e-3f);
    std::vector<Box> boxes(200 + 40 * scene);
    for (Box& b : boxes) {
      float* p = &b.min.x;
      for (int a = 0; a < 3; ++a) {
        const float c = offset + static_cast<float>(rng.below(64)) * unit;
        float e = static_cast<float>(rng.below(3)) * unit;
        if (rng.below(50) == 0) e = rng.below(2) != 0 ? std::numeric_limits<float>::infinity() : 1e18f;
        p[a] = rng.below(80) == 0 ? -std::numeric_limits<float>::infinity() : c;
        p[a + 3] = c + e;
      }
    }
    Config config;
    config.leaf_capacity = 1 + rng.below(16);
    config.big_span = 1 + rng.below(2);
    Grid grid(config);
    grid.build(boxes);
    for (int q = 0; q < 60; ++q) {
      const Box& a = boxes[rng.below(static_cast<std::uint32_t>(boxes.size()))];
      const Box& b = boxes[rng.below(static_cast<std::uint32_t>(boxes.size()))];
      Segment s{rng.below(2) != 0 ? a.min : a.max, rng.below(2) != 0 ? b.min : b.max, Box{}};
      if (q % 4 == 1) s.to = s.from;
      if (q % 4 == 2) {
        float* from = &s.from.x;
        float* to = &s.to.x;
        const auto axis = static_cast<int>(rng.below(3));
        from[axis] = -1e18f;
        to[axis] = 1e18f;
      }
      if (q % 3 == 0) {
        const float e = static_cast<float>(rng.below(3)) * unit;
        s.extent = Box{{-e, 0, -e}, {0, e, e}};
      }
      if (!is_valid(s)) continue;
      SCOPED_TRACE(::testing::PrintToString(s));
      std::vector<std::uint32_t> found;
      grid.query(s, found);
      ASSERT_TRUE(same_indices(oracle::query(boxes, s), found, boxes)) << "scene " << scene;
    }
  }
}

// Boxes none of which has a finite centre (all reach an infinity) leave the lattice at its
// default; a grid that still splits them must size its cells as it quantises (the fuzz target
// found the segment walk missing a hit when the default lattice said otherwise).
TEST(SegmentQueries, BoxesWithNoFiniteCentreMatchBruteForce) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const Box low_corner{{-4.0f, -kInf, -kInf}, {2.5f, 1.5f, 2.0f}};
  const Box flat_at_infinity{{-4.0f, -kInf, -kInf}, {2.5f, 1.5f, -kInf}};
  const Box slab{{-kInf, -3.0f, -kInf}, {kInf, 3.0f, 7.0f}};
  const std::vector<Box> scenes[] = {{low_corner, flat_at_infinity}, {flat_at_infinity, low_corner}, {low_corner},
                                     {low_corner, flat_at_infinity, slab}};
  Config config;
  config.leaf_capacity = 1;  // split as deep as the lattice goes ...
  config.big_span = 1;
  config.max_staying_share = 0.0f;
  config.max_copies_per_box = 1.0f;
  config.sweep_window = 0.0f;  // ... rather than sweep one leaf
  const Segment segments[] = {{{0.0f, -4.0f, 2.5f}, {-4.0f, -4.0f, 1.5f}, {}},
                              {{-10.0f, 0.0f, 0.0f}, {10.0f, 0.0f, 0.0f}, {}},
                              {{1e6f, -1e6f, 5.0f}, {-1e6f, 1e6f, -5.0f}, {}}};
  for (const std::vector<Box>& boxes : scenes) {
    Grid grid(config);
    grid.build(boxes);
    for (const Segment& s : segments) {
      SCOPED_TRACE(::testing::PrintToString(s));
      std::vector<std::uint32_t> found;
      grid.query(s, found);
      EXPECT_TRUE(same_indices(oracle::query(boxes, s), found, boxes)) << boxes.size() << " boxes";
    }
  }
}

}  // namespace
}  // namespace agrid::test
