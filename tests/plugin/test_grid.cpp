// Grid as an object: reuse across frames, the callback forms and early stop, moves, the copy
// of the input, re-entrant const queries.

#include <gtest/gtest.h>


#include <atomic>
#include <utility>
#include <vector>

#include "agrid/agrid.h"
#include "agrid_scenes/scenes.h"
#include "common/parallel_for.h"  // agrid's loops, whose fork and join ThreadSanitizer sees
#include "oracle/oracle.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

TEST(Grid, FreshGridReportsNothing) {
  const Grid grid;
  std::vector<std::uint32_t> out = {1, 2, 3};
  grid.query(Box{{-1, -1, -1}, {1, 1, 1}}, out);
  EXPECT_TRUE(out.empty());
  out = {4};
  grid.query(Segment{{-1, -1, -1}, {1, 1, 1}, {}}, out);
  EXPECT_TRUE(out.empty());
  int calls = 0;
  grid.for_each_overlap(Box{{-1, -1, -1}, {1, 1, 1}}, [&](std::uint32_t) { ++calls; });
  grid.for_each_hit(Segment{{-1, -1, -1}, {1, 1, 1}, {}}, [&](std::uint32_t) { ++calls; });
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(grid.stats().boxes, 0u);

  Grid unbuilt;
  std::vector<Pair> pairs = {{0, 1}};
  unbuilt.find_pairs(pairs);
  EXPECT_TRUE(pairs.empty());
}

TEST(Grid, EmptyBuildAfterFullOne) {
  const auto boxes = random_scene(1000, Density::kDense, 1);
  Grid grid;
  grid.build(boxes);
  std::vector<Pair> pairs;
  grid.find_pairs(pairs);
  ASSERT_FALSE(pairs.empty());
  grid.build(std::span<const Box>{});
  grid.find_pairs(pairs);
  EXPECT_TRUE(pairs.empty());
  std::vector<std::uint32_t> out = {9};
  grid.query(Box{{-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 1e30f}}, out);
  EXPECT_TRUE(out.empty());
  grid.query(Segment{{-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 1e30f}, {}}, out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(grid.stats().boxes, 0u);
}

// One Grid, many different frames: each frame's answer depends on that frame's boxes only.
class ReusedGrid : public ::testing::TestWithParam<Config> {};

TEST_P(ReusedGrid, ResultsIndependentOfHistory) {
  std::vector<std::vector<Box>> frames = {
      random_scene(1000, Density::kMedium, 1),
      random_scene(20000, Density::kSparse, 2),
      random_scene(10, Density::kVeryDense, 3),
      {},
      scenes::make_scene("bad-input", 0.5, 1).boxes,
      random_scene(1000, Density::kMedium, 1),  // the first frame again
      scenes::make_scene("huge-and-infinite", 0.5, 1).boxes,
      random_scene(3000, Density::kVeryDense, 4),
      scenes::make_scene("tiny-cluster", 0.3, 1).boxes,
      random_scene(1, Density::kMedium, 5),
      random_scene(5000, Density::kDense, 6),
  };
  // The same frames slightly moved: the typical frame-to-frame change of a simulation.
  std::vector<Box> moved = frames[0];
  for (Box& b : moved) {
    b.min.x += 0.75f;
    b.max.x += 0.75f;
  }
  frames.push_back(moved);
  frames.push_back(frames[0]);

  Grid grid(GetParam());
  for (std::size_t f = 0; f < frames.size(); ++f) {
    SCOPED_TRACE(::testing::Message() << "frame " << f << ", " << frames[f].size() << " boxes");
    const auto& boxes = frames[f];
    grid.build(boxes);
    EXPECT_EQ(grid.stats().boxes, boxes.size());
    EXPECT_TRUE(grid_pairs_match(grid, boxes, oracle::pairs(boxes)));
    // A few queries per frame too: stale cells of an earlier frame must not leak into them.
    for (const Box& q : query_boxes(boxes, 5, f)) {
      std::vector<std::uint32_t> out;
      grid.query(q, out);
      ASSERT_TRUE(same_indices(oracle::query(boxes, q), out, boxes)) << ::testing::PrintToString(q);
    }
    for (const Segment& s : query_segments(boxes, 5, f)) {
      std::vector<std::uint32_t> out;
      grid.query(s, out);
      ASSERT_TRUE(same_indices(oracle::query(boxes, s), out, boxes)) << ::testing::PrintToString(s);
    }
    // And the result of a fresh grid is the same vector.
    Grid fresh(GetParam());
    fresh.build(boxes);
    std::vector<Pair> a;
    std::vector<Pair> b;
    grid.find_pairs(a);
    fresh.find_pairs(b);
    EXPECT_EQ(a, b);
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, ReusedGrid, ::testing::ValuesIn(some_configs()),
                         [](const ::testing::TestParamInfo<Config>& p) { return name(p.param); });

TEST(Grid, BuildCopiesTheInput) {
  auto boxes = random_scene(2000, Density::kDense, 8);
  const auto expected = oracle::pairs(boxes);
  const auto original = boxes;
  Grid grid;
  grid.build(boxes);
  // Scribble over and free the caller's array: the grid must not look at it again.
  for (Box& b : boxes) b = Box{{0, 0, 0}, {1e9f, 1e9f, 1e9f}};
  boxes.clear();
  boxes.shrink_to_fit();
  EXPECT_TRUE(grid_pairs_match(grid, original, expected));
  const Box q{{-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 1e30f}};
  std::vector<std::uint32_t> out;
  grid.query(q, out);
  EXPECT_TRUE(same_indices(oracle::query(original, q), out));
}

TEST(Grid, BuildFromASubspan) {
  // Indices are positions in the span given to build, not in some larger array around it.
  const auto all = random_scene(3000, Density::kDense, 12);
  const std::span<const Box> part = std::span<const Box>(all).subspan(700, 1500);
  const std::vector<Box> copy(part.begin(), part.end());
  Grid grid;
  grid.build(part);
  EXPECT_TRUE(grid_pairs_match(grid, copy, oracle::pairs(copy)));
  EXPECT_TRUE(same_pairs(oracle::pairs(copy), find_all_pairs(part), copy));
  for (const Box& q : query_boxes(copy, 20, 4)) {
    std::vector<std::uint32_t> out;
    grid.query(q, out);
    EXPECT_TRUE(same_indices(oracle::query(copy, q), out, copy));
  }
}

TEST(Grid, MoveKeepsContentsAndConfig) {
  const auto boxes = random_scene(1000, Density::kMedium, 9);
  const auto expected = oracle::pairs(boxes);
  const Config config = make_config(3, 1, 5, 0.5f, 2.0f);
  Grid a(config);
  a.build(boxes);
  Grid b(std::move(a));
  EXPECT_EQ(b.config().leaf_capacity, 3u);
  EXPECT_EQ(b.config().big_span, 1u);
  EXPECT_EQ(b.config().sweep_threshold, 5u);
  EXPECT_EQ(b.config().max_staying_share, 0.5f);
  EXPECT_EQ(b.config().max_copies_per_box, 2.0f);
  EXPECT_TRUE(grid_pairs_match(b, boxes, expected));
  Grid c;
  c = std::move(b);
  EXPECT_EQ(c.config().leaf_capacity, 3u);
  EXPECT_TRUE(grid_pairs_match(c, boxes, expected));
  // The moved-to grid keeps working for new frames.
  const auto next = random_scene(500, Density::kDense, 10);
  c.build(next);
  EXPECT_TRUE(grid_pairs_match(c, next, oracle::pairs(next)));
}

TEST(Grid, QueriesAreReentrant) {
  // A query may be issued from inside another query's callback, and from many threads at once.
  const auto boxes = random_scene(3000, Density::kDense, 11);
  Grid grid;
  grid.build(boxes);
  const Grid& view = grid;
  const auto queries = query_boxes(boxes, 60, 1);
  std::size_t nested = 0;
  const Box outer{{-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 1e30f}};
  view.for_each_overlap(outer, [&](std::uint32_t i) {
    std::vector<std::uint32_t> inner;
    view.query(boxes[i], inner);
    EXPECT_EQ(inner, oracle::query(boxes, boxes[i])) << "box " << i;
    return ++nested < 200;
  });
  EXPECT_EQ(nested, 200u);

  std::vector<std::vector<std::uint32_t>> parallel(queries.size());
  detail::parallel_for(std::size_t{0}, queries.size(), [&](std::size_t q) { view.query(queries[q], parallel[q]); });
  for (std::size_t q = 0; q < queries.size(); ++q) {
    EXPECT_TRUE(same_indices(oracle::query(boxes, queries[q]), parallel[q], boxes)) << q;
  }
}

}  // namespace
}  // namespace agrid::test
