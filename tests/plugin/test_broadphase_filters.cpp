// agrid::Broadphase's filters decide every pair, of resting and moving objects alike, through
// churn and filter changes, against brute force.

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

/// The overlapping pairs of the live objects of `s` that their filters accept, sorted.
std::vector<Pair> brute_force(const Scene& s, const std::vector<bool>& live) {
  std::vector<Pair> expected;
  for (Handle a = 0; a < s.boxes.size(); ++a) {
    for (Handle b = a + 1; b < s.boxes.size(); ++b) {
      if (live[a] && live[b] && overlaps(s.boxes[a], s.boxes[b]) && passes(s.filters[a], s.filters[b])) {
        expected.push_back({a, b});
      }
    }
  }
  return expected;
}

// Resting objects (joined in bulk, then one by one), moving ones, removals, new objects and
// filter changes on objects of both kinds: the pairs are exactly the overlaps the filters
// accept, after every update.
TEST(BroadphaseFilters, ExactThroughChurnAndFilterChanges) {
  Broadphase bp;
  Rng rng(73);
  Scene s = make_scene(bp, rng, 1200, 60, 22);
  std::vector<bool> live(s.boxes.size(), true);
  std::size_t refused = 0;
  for (int update = 0; update < 40; ++update) {
    for (const Handle h : s.moving) bp.set_box(h, s.boxes[h] = random_box(rng, 22));
    for (int k = 0; k < 20; ++k) {
      const Handle h = s.resting[rng.below(static_cast<std::uint32_t>(s.resting.size()))];
      if (!live[h]) continue;
      switch (rng.below(4)) {
        case 0: bp.set_filter(h, s.filters[h] = random_filter(rng)); break;
        case 1: bp.set_box(h, s.boxes[h] = random_box(rng, 22)); break;
        case 2: bp.remove(h); live[h] = false; break;
        default: {
          // Inside its fat box, by a hair: the exact re-test of its candidates.
          Box b = s.boxes[h];
          b.min.x += 0.01f;
          bp.set_box(h, s.boxes[h] = b);
        }
      }
    }
    for (int k = 0; k < 5; ++k) s.add(bp, rng, 22, s.resting);
    live.resize(s.boxes.size(), false);
    for (const Handle h : s.resting) live[h] = live[h] || bp.contains(h);
    bp.update();
    const std::vector<Pair> expected = brute_force(s, live);
    const std::span<const Pair> got = bp.pairs();
    ASSERT_EQ(std::vector<Pair>(got.begin(), got.end()), expected) << "update " << update;
    for (Handle a = 0; a < s.boxes.size(); ++a) {
      for (Handle b = a + 1; b < s.boxes.size(); ++b) {
        refused += live[a] && live[b] && overlaps(s.boxes[a], s.boxes[b]) && !passes(s.filters[a], s.filters[b]);
      }
    }
  }
  EXPECT_GT(refused, 1000u) << "the filters refused no pair: the test lost its teeth";
  EXPECT_GT(bp.stats().resting, 1000u) << "nothing rests: the resting pairs went untested";
}

}  // namespace
}  // namespace agrid::test
