// Bad and extreme input: invalid boxes (NaN, min > max) take part in nothing and change
// nothing; infinite, +-1e18, +-FLT_MAX and denormal coordinates are valid and handled exactly.

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "agrid/agrid.h"
#include "agrid/limits.h"
#include "agrid_scenes/scenes.h"
#include "oracle/oracle.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// `count` invalid boxes cycling through every kind, some placed inside the scene's bounds.
std::vector<Box> many_invalid(std::size_t count, const Box& bounds, std::uint64_t seed) {
  const auto kinds = scenes::invalid_boxes();
  Rng rng(seed);
  std::vector<Box> out;
  for (std::size_t i = 0; i < count; ++i) {
    Box b = kinds[i % kinds.size()];
    if (rng.chance(0.5)) {
      // Same defect, but sitting where the scene is: an inverted copy of a real region.
      const float x = static_cast<float>(rng.uniform(bounds.min.x, bounds.max.x));
      const float y = static_cast<float>(rng.uniform(bounds.min.y, bounds.max.y));
      const float z = static_cast<float>(rng.uniform(bounds.min.z, bounds.max.z));
      // Inverted by one ulp on x, or a NaN max y.
      b = rng.chance(0.5) ? Box{{std::nextafter(x, kInf), y, z}, {x, y + 1, z + 1}}
                          : Box{{x, y, z}, {x + 1, std::numeric_limits<float>::quiet_NaN(), z + 1}};
    }
    out.push_back(b);
  }
  return out;
}

// oversize_boxes counts the boxes too large for the root's cells. When the root is itself a
// leaf (few boxes, or a config under which splitting never pays) it has no cells, and every box
// is tested all against all there: then nothing is oversize.
void expect_oversize_counted(const Grid& grid) {
  if (grid.stats().nodes > 1) {
    EXPECT_GT(grid.stats().oversize_boxes, 0u) << "infinite / 1e18 boxes present, root split";
  }
}

std::vector<Pair> remap(const std::vector<Pair>& pairs, const Mixed& m, std::size_t mixed_size,
                        bool* touched_invalid) {
  std::vector<std::uint32_t> back(mixed_size, UINT32_MAX);
  for (std::uint32_t i = 0; i < m.position_of_good.size(); ++i) back[m.position_of_good[i]] = i;
  std::vector<Pair> out;
  out.reserve(pairs.size());
  for (const Pair& p : pairs) {
    if (p.first >= mixed_size || p.second >= mixed_size || back[p.first] == UINT32_MAX ||
        back[p.second] == UINT32_MAX) {
      *touched_invalid = true;
      continue;
    }
    out.push_back(Pair{back[p.first], back[p.second]});
  }
  return out;
}

std::vector<std::uint32_t> remap(const std::vector<std::uint32_t>& indices, const Mixed& m,
                                 std::size_t mixed_size, bool* touched_invalid) {
  std::vector<std::uint32_t> back(mixed_size, UINT32_MAX);
  for (std::uint32_t i = 0; i < m.position_of_good.size(); ++i) back[m.position_of_good[i]] = i;
  std::vector<std::uint32_t> out;
  for (std::uint32_t i : indices) {
    if (i >= mixed_size || back[i] == UINT32_MAX) {
      *touched_invalid = true;
      continue;
    }
    out.push_back(back[i]);
  }
  return out;
}

std::vector<Box> base_scene(const std::string& label) {
  if (label == "random_1000") return random_scene(1000, Density::kMedium, 1);
  if (label == "random_20000") return random_scene(20000, Density::kSparse, 2);
  if (label == "random_300_very_dense") return random_scene(300, Density::kVeryDense, 3);
  if (label == "random_with_extremes") {
    auto boxes = random_scene(2000, Density::kDense, 4);
    const auto extremes = scenes::extreme_boxes(core_bounds(boxes));
    boxes.insert(boxes.end(), extremes.begin(), extremes.end());
    return boxes;
  }
  if (label == "long_rods") return scenes::make_scene("long-rods", 0.5, 1).boxes;
  if (label == "huge_and_infinite") return scenes::make_scene("huge-and-infinite", 0.5, 1).boxes;
  if (label == "far_offsets") return scenes::make_scene("far-offsets", 0.5, 1).boxes;
  return {};
}

struct BadParam {
  std::string scene;
  Config config;
};

void PrintTo(const BadParam& p, std::ostream* os) { *os << p.scene << " " << name(p.config); }

std::vector<BadParam> bad_params() {
  std::vector<BadParam> out;
  for (const char* s : {"random_1000", "random_20000", "random_300_very_dense", "random_with_extremes",
                        "long_rods", "huge_and_infinite", "far_offsets"}) {
    for (const Config& c : some_configs()) out.push_back({s, c});
  }
  return out;
}

class InvalidBoxes : public ::testing::TestWithParam<BadParam> {};

TEST_P(InvalidBoxes, ChangeNoResult) {
  const auto good = base_scene(GetParam().scene);
  ASSERT_FALSE(good.empty());
  ASSERT_EQ(oracle::count_invalid(good), 0u);
  const Box bounds = core_bounds(good);
  const auto bad = many_invalid(good.size() / 8 + 40, bounds, 5);
  const Mixed m = mix_in(good, bad, 7);
  const Config& config = GetParam().config;

  // Pairs: the mixed scene's pairs, renumbered, are the good scene's pairs.
  const auto expected = oracle::pairs(good);
  const auto mixed_pairs = find_all_pairs(m.boxes, config);
  bool touched_invalid = false;
  EXPECT_TRUE(same_pairs(expected, remap(mixed_pairs, m, m.boxes.size(), &touched_invalid), good));
  EXPECT_FALSE(touched_invalid) << "an invalid box appears in a pair";
  EXPECT_TRUE(same_pairs(oracle::pairs(m.boxes), mixed_pairs, m.boxes));

  Grid grid(config);
  grid.build(m.boxes);
  EXPECT_TRUE(grid_pairs_match(grid, m.boxes, oracle::pairs(m.boxes)));
  EXPECT_EQ(grid.stats().invalid_boxes, bad.size());
  EXPECT_EQ(grid.stats().boxes, m.boxes.size());

  // Queries: no invalid box is ever reported, and the others are exactly the good scene's.
  Grid clean(config);
  clean.build(good);
  for (const Box& q : query_boxes(good, 40, 3)) {
    std::vector<std::uint32_t> with_bad;
    std::vector<std::uint32_t> without;
    grid.query(q, with_bad);
    clean.query(q, without);
    touched_invalid = false;
    ASSERT_TRUE(same_indices(oracle::query(good, q), remap(with_bad, m, m.boxes.size(), &touched_invalid), good))
        << ::testing::PrintToString(q);
    ASSERT_FALSE(touched_invalid) << ::testing::PrintToString(q);
    ASSERT_TRUE(same_indices(oracle::query(good, q), without, good));
  }
  for (const Segment& s : query_segments(good, 40, 3)) {
    std::vector<std::uint32_t> with_bad;
    grid.query(s, with_bad);
    touched_invalid = false;
    ASSERT_TRUE(same_indices(oracle::query(good, s), remap(with_bad, m, m.boxes.size(), &touched_invalid), good))
        << ::testing::PrintToString(s);
    ASSERT_FALSE(touched_invalid) << ::testing::PrintToString(s);
  }
}

INSTANTIATE_TEST_SUITE_P(Scenes, InvalidBoxes, ::testing::ValuesIn(bad_params()),
                         [](const ::testing::TestParamInfo<BadParam>& p) {
                           return p.param.scene + "_" + name(p.param.config);
                         });

TEST(BadInput, OnlyInvalidBoxes) {
  const auto bad = many_invalid(500, Box{{-5, -5, -5}, {5, 5, 5}}, 1);
  for (const Config& config : some_configs()) {
    EXPECT_TRUE(find_all_pairs(bad, config).empty());
    Grid grid(config);
    grid.build(bad);
    EXPECT_TRUE(grid_pairs_match(grid, bad, {}));
    EXPECT_EQ(grid.stats().invalid_boxes, bad.size());
    EXPECT_EQ(grid.stats().boxes, bad.size());
    std::vector<std::uint32_t> out;
    grid.query(Box{{-kInf, -kInf, -kInf}, {kInf, kInf, kInf}}, out);
    EXPECT_TRUE(out.empty());
    grid.query(Segment{{-10, -10, -10}, {10, 10, 10}, Box{{-1, -1, -1}, {1, 1, 1}}}, out);
    EXPECT_TRUE(out.empty());
  }
}

TEST(BadInput, BadInputSceneStats) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto boxes = scenes::make_scene("bad-input", 1.0, seed).boxes;
    Grid grid;
    grid.build(boxes);
    EXPECT_EQ(grid.stats().invalid_boxes, oracle::count_invalid(boxes));
    EXPECT_GT(grid.stats().invalid_boxes, 0u);
    EXPECT_EQ(grid.stats().boxes, boxes.size());
  }
}

// Valid extreme boxes: compared with the oracle, alone and inside scenes.
TEST(ExtremeBoxes, AloneMatchOracle) {
  const auto boxes = scenes::extreme_boxes(Box{{-3, -3, -3}, {3, 3, 3}});
  ASSERT_EQ(oracle::count_invalid(boxes), 0u);
  for (const Config& config : some_configs()) {
    SCOPED_TRACE(name(config));
    const auto expected = oracle::pairs(boxes);
    EXPECT_TRUE(same_pairs(expected, find_all_pairs(boxes, config), boxes));
    Grid grid(config);
    grid.build(boxes);
    EXPECT_TRUE(grid_pairs_match(grid, boxes, expected));
    expect_oversize_counted(grid);
    EXPECT_EQ(grid.stats().invalid_boxes, 0u);
    for (const Box& q : query_boxes(boxes, 30, 1)) {
      std::vector<std::uint32_t> out;
      grid.query(q, out);
      ASSERT_TRUE(same_indices(oracle::query(boxes, q), out, boxes)) << ::testing::PrintToString(q);
    }
    for (const Segment& s : query_segments(boxes, 30, 1)) {
      std::vector<std::uint32_t> out;
      grid.query(s, out);
      ASSERT_TRUE(same_indices(oracle::query(boxes, s), out, boxes)) << ::testing::PrintToString(s);
    }
  }
}

TEST(ExtremeBoxes, OneInfiniteBoxAmongMany) {
  // Each kind of huge box on its own with a normal scene: it overlaps the right boxes, and it
  // is counted as oversize.
  const auto scene = random_scene(3000, Density::kMedium, 6);
  const Box bounds = core_bounds(scene);
  const std::vector<Box> huge = {
      Box{{-kInf, -kInf, -kInf}, {kInf, kInf, kInf}},
      Box{{-1e18f, -1e18f, -1e18f}, {1e18f, bounds.min.y + 100, 1e18f}},
      Box{{-FLT_MAX, -FLT_MAX, -FLT_MAX}, {FLT_MAX, FLT_MAX, bounds.min.z + 300}},
      Box{{bounds.min.x + 500, -kInf, -kInf}, {kInf, kInf, kInf}},
      Box{{-1e18f, bounds.min.y + 200, bounds.min.z + 200}, {1e18f, bounds.min.y + 210, bounds.min.z + 210}},
  };
  for (const Box& h : huge) {
    SCOPED_TRACE(::testing::PrintToString(h));
    for (std::size_t at : {std::size_t{0}, scene.size() / 2, scene.size()}) {
      std::vector<Box> boxes = scene;
      boxes.insert(boxes.begin() + static_cast<std::ptrdiff_t>(at), h);
      Grid grid;
      grid.build(boxes);
      EXPECT_TRUE(grid_pairs_match(grid, boxes, oracle::pairs(boxes)));
      ASSERT_GT(grid.stats().nodes, 1u);  // 3000 boxes: the default config splits the root
      expect_oversize_counted(grid);
      EXPECT_EQ(grid.stats().invalid_boxes, 0u);
    }
  }
}

// Scenes whose coordinates sit at the ends of the float range.
std::vector<Box> denormal_scene(std::uint32_t n, std::uint64_t seed) {
  // Every coordinate is a denormal or zero: the scene's extent is below FLT_MIN.
  Rng rng(seed);
  const float step = std::numeric_limits<float>::denorm_min();
  std::vector<Box> boxes;
  for (std::uint32_t i = 0; i < n; ++i) {
    float lo[3];
    float hi[3];
    for (int a = 0; a < 3; ++a) {
      lo[a] = step * static_cast<float>(static_cast<int>(rng.below(2000)) - 1000);
      hi[a] = lo[a] + step * static_cast<float>(rng.below(60));
    }
    boxes.push_back(Box{{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}});
  }
  return boxes;
}

std::vector<Box> full_range_scene(std::uint32_t n, std::uint64_t seed) {
  // Boxes spread over [-FLT_MAX, FLT_MAX]: the scene's extent overflows a float.
  Rng rng(seed);
  std::vector<Box> boxes;
  for (std::uint32_t i = 0; i < n; ++i) {
    double c[3];
    double h[3];
    for (int a = 0; a < 3; ++a) {
      c[a] = rng.uniform(-1.0, 1.0) * static_cast<double>(FLT_MAX);
      h[a] = static_cast<double>(FLT_MAX) * rng.uniform(0.0, 0.2);
    }
    const auto clampf = [](double v) {
      return static_cast<float>(std::clamp(v, -static_cast<double>(FLT_MAX), static_cast<double>(FLT_MAX)));
    };
    boxes.push_back(Box{{clampf(c[0] - h[0]), clampf(c[1] - h[1]), clampf(c[2] - h[2])},
                        {clampf(c[0] + h[0]), clampf(c[1] + h[1]), clampf(c[2] + h[2])}});
  }
  boxes.push_back(Box{{FLT_MAX, FLT_MAX, FLT_MAX}, {FLT_MAX, FLT_MAX, FLT_MAX}});
  boxes.push_back(Box{{-FLT_MAX, -FLT_MAX, -FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}});
  boxes.push_back(Box{{-FLT_MAX, -FLT_MAX, -FLT_MAX}, {FLT_MAX, -FLT_MAX, FLT_MAX}});
  return boxes;
}

std::vector<Box> offset_cluster(std::uint32_t n, float offset, std::uint64_t seed) {
  // Unit-ish boxes at a large offset, where a float's step is 1 or more.
  Rng rng(seed);
  std::vector<Box> boxes;
  for (std::uint32_t i = 0; i < n; ++i) {
    float lo[3];
    for (float& v : lo) v = offset + static_cast<float>(rng.uniform(0.0, 60.0));
    const float s = static_cast<float>(rng.uniform(0.0, 3.0));
    boxes.push_back(Box{{lo[0], lo[1], lo[2]}, {lo[0] + s, lo[1] + s, lo[2] + s}});
  }
  return boxes;
}

TEST(ExtremeBoxes, CoordinatesAtTheEndsOfTheFloatRange) {
  const std::vector<std::pair<const char*, std::vector<Box>>> cases = {
      {"denormals", denormal_scene(2000, 1)},
      {"denormals with a unit box", [] {
         auto b = denormal_scene(1500, 2);
         b.push_back(Box{{0, 0, 0}, {1, 1, 1}});
         return b;
       }()},
      {"full float range", full_range_scene(1500, 3)},
      {"offset 1e7", offset_cluster(3000, 1e7f, 4)},
      {"offset -3e7", offset_cluster(3000, -3e7f, 5)},
      {"offset 1e30", offset_cluster(600, 1e30f, 6)},
      {"two far clusters", [] {
         auto b = offset_cluster(500, -1e18f, 7);
         const auto c = offset_cluster(500, 1e18f, 8);
         b.insert(b.end(), c.begin(), c.end());
         return b;
       }()},
  };
  for (const auto& [label, boxes] : cases) {
    SCOPED_TRACE(label);
    ASSERT_EQ(oracle::count_invalid(boxes), 0u);
    const auto expected = oracle::pairs(boxes);
    for (const Config& config : some_configs()) {
      SCOPED_TRACE(name(config));
      EXPECT_TRUE(same_pairs(expected, find_all_pairs(boxes, config), boxes));
      Grid grid(config);
      grid.build(boxes);
      EXPECT_TRUE(grid_pairs_match(grid, boxes, expected));
      EXPECT_LE(grid.stats().depth, kMaxDepth);
      for (const Box& q : query_boxes(boxes, 20, 2)) {
        std::vector<std::uint32_t> out;
        grid.query(q, out);
        ASSERT_TRUE(same_indices(oracle::query(boxes, q), out, boxes)) << ::testing::PrintToString(q);
      }
      for (const Segment& s : query_segments(boxes, 20, 2)) {
        std::vector<std::uint32_t> out;
        grid.query(s, out);
        ASSERT_TRUE(same_indices(oracle::query(boxes, s), out, boxes)) << ::testing::PrintToString(s);
      }
    }
  }
}

TEST(ExtremeBoxes, EverythingMixed) {
  // A normal scene, extreme valid boxes and invalid boxes all together, in several configs.
  auto valid = random_scene(4000, Density::kDense, 9);
  const auto extremes = scenes::extreme_boxes(core_bounds(valid));
  valid.insert(valid.end(), extremes.begin(), extremes.end());
  const auto d = denormal_scene(200, 10);
  valid.insert(valid.end(), d.begin(), d.end());
  const Mixed m = mix_in(valid, many_invalid(600, core_bounds(valid), 11), 12);
  const auto expected = oracle::pairs(m.boxes);
  bool touched_invalid = false;
  EXPECT_TRUE(same_pairs(oracle::pairs(valid), remap(expected, m, m.boxes.size(), &touched_invalid), valid));
  EXPECT_FALSE(touched_invalid);  // (the oracle's own consistency)
  for (const Config& config : some_configs()) {
    SCOPED_TRACE(name(config));
    Grid grid(config);
    grid.build(m.boxes);
    EXPECT_TRUE(grid_pairs_match(grid, m.boxes, expected));
    EXPECT_EQ(grid.stats().invalid_boxes, 600u);
    expect_oversize_counted(grid);
  }
}

}  // namespace
}  // namespace agrid::test

namespace agrid::test {
namespace {

TEST(BadInput, TooManyBoxesIsAClearErrorNotACrash) {
  // Ids are 32-bit: 2^32 - 1 boxes or more must be refused before anything is read. The span
  // claims more boxes than the buffer holds; build() only looks at its size before refusing.
  const std::vector<Box> few(4);
  const std::span<const Box> too_many(few.data(), std::size_t{std::numeric_limits<std::uint32_t>::max()});
  Grid grid;
  EXPECT_THROW(grid.build(too_many), std::length_error);
  EXPECT_THROW((void)find_all_pairs(too_many), std::length_error);
  // The grid stays usable.
  grid.build(few);
  std::vector<Pair> pairs;
  grid.find_pairs(pairs);
  EXPECT_EQ(pairs.size(), 6u);  // four equal boxes {0,0,0}-{0,0,0}: every two of them touch
}

}  // namespace
}  // namespace agrid::test
