// agrid::Broadphase's filters when an engine decides the pairs with a moving member itself
// (Config::filter_moving_pairs = false, the Bullet adapter's setting), and the resting objects
// it lists as refused a pair among resting objects (refused_at_rest), against brute force.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "agrid/broadphase.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

/// A box of edges 0.5 to 1.5 with its min corner in [0, side)^3.
Box random_box(Rng& rng, float side) { return scenes::box_in_cube(rng, side, {0.5f, 1.5f}); }

/// One of four filters: groups 1 and 2, masks that accept one or both.
Filter random_filter(Rng& rng) {
  const std::uint32_t group = 1u << rng.below(2);
  return {group, rng.chance(0.5) ? 3u : group};
}

/// Objects at rest (created once, never changed) and objects moving (given a new box anywhere
/// every update, so they leave their fat boxes), with random filters.
struct Scene {
  std::vector<Handle> resting;
  std::vector<Handle> moving;
  std::vector<Box> boxes;  ///< By handle.
  std::vector<Filter> filters;

  /// Creates an object with a random box in [0, side]^3 and a random filter, listed in `into`.
  void add(Broadphase& bp, Rng& rng, float side, std::vector<Handle>& into) {
    const Box box = random_box(rng, side);
    const Filter filter = random_filter(rng);
    const Handle h = bp.create(box, filter);
    if (boxes.size() <= h) {
      boxes.resize(h + 1);
      filters.resize(h + 1);
    }
    boxes[h] = box;
    filters[h] = filter;
    into.push_back(h);
  }
};

Scene make_scene(Broadphase& bp, Rng& rng, std::uint32_t resting, std::uint32_t moving, float side) {
  Scene s;
  const auto add = [&](std::vector<Handle>& into) {
    s.add(bp, rng, side, into);
  };
  for (std::uint32_t i = 0; i < resting; ++i) add(s.resting);
  for (std::uint32_t i = 0; i < moving; ++i) add(s.moving);
  return s;
}

// Pairs of two resting objects are filtered; pairs with a moving member are all reported.
TEST(BroadphaseFilters, MovingPairsLeftToTheEngine) {
  Config config;
  config.filter_moving_pairs = false;
  Broadphase bp(config);
  Rng rng(71);
  Scene s = make_scene(bp, rng, 1500, 150, 25);
  std::set<Handle> is_moving(s.moving.begin(), s.moving.end());
  std::size_t refused_moving_pairs = 0;
  for (int u = 0; u < 4; ++u) bp.update();  // the objects left alone rest from here on
  for (int update = 0; update < 12; ++update) {
    for (const Handle h : s.moving) {
      s.boxes[h] = random_box(rng, 25);
      bp.set_box(h, s.boxes[h]);
    }
    bp.update();
    std::vector<Pair> expected;
    for (Handle a = 0; a < s.boxes.size(); ++a) {
      for (Handle b = a + 1; b < s.boxes.size(); ++b) {
        if (!overlaps(s.boxes[a], s.boxes[b])) continue;
        const bool with_moving = is_moving.count(a) + is_moving.count(b) > 0;
        if (with_moving || passes(s.filters[a], s.filters[b])) expected.push_back({a, b});
        refused_moving_pairs += with_moving && !passes(s.filters[a], s.filters[b]);
      }
    }
    const std::span<const Pair> got = bp.pairs();
    ASSERT_EQ(std::vector<Pair>(got.begin(), got.end()), expected) << "update " << update;
  }
  EXPECT_GT(refused_moving_pairs, 100u) << "no moving pair the filters refuse: the test lost its teeth";
}

// With the default, the same scene's pairs all pass the filters.
TEST(BroadphaseFilters, FiltersDecideEveryPairByDefault) {
  Broadphase bp;
  Rng rng(72);
  Scene s = make_scene(bp, rng, 800, 80, 20);
  for (const Handle h : s.moving) bp.set_box(h, s.boxes[h] = random_box(rng, 20));
  bp.update();
  for (const Pair& p : bp.pairs()) EXPECT_TRUE(passes(s.filters[p.first], s.filters[p.second]));
  EXPECT_GT(bp.pairs().size(), 50u);
}

// Every resting object with an overlapping resting neighbour that the filters refuse is listed,
// after the objects join in bulk (the first update) and one by one (later ones); and a listed
// object that moves away and back, or is removed, leaves no wrong entry behind.
TEST(BroadphaseFilters, RefusedAtRestListsEveryRestingObjectARestingNeighbourRefused) {
  for (const bool filter_moving : {true, false}) {
    Config config;
    config.filter_moving_pairs = filter_moving;
    Broadphase bp(config);
    Rng rng(73);
    Scene s = make_scene(bp, rng, 1200, 0, 22);
    const auto check = [&](const char* when) {
      const std::span<const Handle> listed_span = bp.refused_at_rest();
      const std::set<Handle> listed(listed_span.begin(), listed_span.end());
      std::size_t needed = 0;
      for (std::size_t i = 0; i < s.resting.size(); ++i) {
        for (std::size_t j = i + 1; j < s.resting.size(); ++j) {
          const Handle a = s.resting[i];
          const Handle b = s.resting[j];
          if (!overlaps(s.boxes[a], s.boxes[b]) || passes(s.filters[a], s.filters[b])) continue;
          ++needed;
          ASSERT_TRUE(listed.count(a) && listed.count(b)) << when << ": " << a << " and " << b << " refuse each other";
        }
      }
      EXPECT_GT(needed, 50u) << when << ": no refused resting pair: the test lost its teeth";
    };
    // New objects rest at once, or (filter_moving_pairs false) once unchanged for a few updates.
    for (int u = 0; u < 4; ++u) bp.update();
    ASSERT_NO_FATAL_FAILURE(check("after the bulk join"));
    // Some objects leave (moved far), some are removed, new ones come, then all rest again.
    for (int round = 0; round < 3; ++round) {
      for (int k = 0; k < 100; ++k) {
        const std::size_t i = rng.below(static_cast<std::uint32_t>(s.resting.size()));
        const Handle h = s.resting[i];
        if (rng.chance(0.5)) {
          bp.remove(h);
          s.resting[i] = s.resting.back();
          s.resting.pop_back();
        } else {
          bp.set_box(h, s.boxes[h] = random_box(rng, 22));
        }
      }
      for (int k = 0; k < 50; ++k) s.add(bp, rng, 22, s.resting);
      for (int u = 0; u < 40; ++u) bp.update();  // everything rests again
      ASSERT_NO_FATAL_FAILURE(check("after churn"));
    }
  }
}

}  // namespace
}  // namespace agrid::test
