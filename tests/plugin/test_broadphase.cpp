// agrid::Broadphase against a brute-force model of the same objects, step by step: pairs,
// began and ended pairs, and queries, exactly; with objects that move, rest, come, go, change
// filters and turn invalid or enormous; on 1 and several threads.

#include <gtest/gtest.h>

#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "agrid/agrid.h"
#include "oracle/broadphase_model.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

using Model = oracle::BroadphaseModel;
using oracle::difference;

/// A box of edges 0.2 to 2 with its min corner in [0, side)^3.
Box random_box(Rng& rng, float side) { return scenes::box_in_cube(rng, side, {0.2f, 2.0f}); }

/// `b` moved by up to 0.3 on x and y.
Box moved(const Box& b, Rng& rng) {
  constexpr float kReach = 0.3f;
  const float dx = rng.uniform(-kReach, kReach);
  return scenes::moved(b, {dx, rng.uniform(-kReach, kReach), 0.0f});
}

/// `b` moved by a hair (up to 1e-3) along x and back along z: pairs that touch begin and end.
Box jittered(const Box& b, Rng& rng) {
  constexpr float kHair = 1e-3f;
  const float d = rng.uniform(-kHair, kHair);
  return scenes::moved(b, {d, 0.0f, -d});
}

Filter random_filter(Rng& rng) {
  // Mostly everything-with-everything; some static-like (group 2, mask ~2) and some lonely.
  switch (rng.below(8)) {
    case 0: return {2, ~2u};
    case 1: return {4, 1};
    default: return {1, ~0u};
  }
}

std::vector<Handle> sorted(std::vector<Handle> v) {
  std::sort(v.begin(), v.end());
  return v;
}

/// Which steps find pairs: all (update()), or every third one only queries (update_queries()).
enum class Updates { pairs, some_queries_only };

// Drives a broadphase and the model through `steps` steps of random changes.
void run_simulation(std::uint32_t objects, std::uint32_t steps, int threads, const Config& config, std::uint64_t seed,
                    Updates updates = Updates::pairs) {
  SCOPED_TRACE(::testing::Message() << objects << " objects, " << threads << " threads, seed " << seed);
  Rng rng(seed);
  const float side = 4.0f * std::cbrt(static_cast<float>(objects));
  Broadphase bp(config);
  Model model;
  std::vector<Pair> previous;
  std::uint64_t max_resting = 0;
  for (std::uint32_t i = 0; i < objects; ++i) {
    const Box b = random_box(rng, side);
    const Filter f = random_filter(rng);
    const Handle h = bp.create(b, f);
    model.boxes[h] = b;
    model.filters[h] = f;
  }
  for (std::uint32_t step = 0; step < steps; ++step) {
    SCOPED_TRACE(::testing::Message() << "step " << step);
    // A fifth of the objects moves each step (the same fifth for a while, so the rest rests).
    std::vector<Handle> live;
    for (const auto& [h, b] : model.boxes) live.push_back(h);
    const std::uint32_t phase = step / 5;
    for (const Handle h : live) {
      if ((h + phase) % 5 != 0) {
        bp.set_box(h, model.boxes[h]);  // unchanged: must cost nothing and change nothing
        continue;
      }
      // Moves of both kinds: within the fat box (jitter) and out of it.
      Box b = rng.chance(0.4) ? jittered(model.boxes[h], rng) : moved(model.boxes[h], rng);
      if (rng.chance(0.01)) b = random_box(rng, side);                   // teleport
      if (rng.chance(0.002)) b = Box{{kNaN, 0, 0}, {1, 1, 1}};           // invalid
      if (rng.chance(0.002)) b = Box{{-1e18f, -1e18f, -1e18f}, {1e18f, 1e18f, 1e18f}};  // a static plane
      bp.set_box(h, b);
      model.boxes[h] = b;
    }
    for (std::uint32_t k = 0; k < objects / 50 + 1 && !live.empty(); ++k) {
      const Handle h = live[rng.below(static_cast<std::uint32_t>(live.size()))];
      if (!model.boxes.count(h)) continue;
      if (rng.chance(0.5)) {
        bp.remove(h);
        model.boxes.erase(h);
        model.filters.erase(h);
      } else {
        const Filter f = random_filter(rng);
        bp.set_filter(h, f);
        model.filters[h] = f;
      }
    }
    for (std::uint32_t k = 0; k < objects / 60 + 1; ++k) {
      const Box b = random_box(rng, side);
      const Handle h = bp.create(b);
      EXPECT_FALSE(model.boxes.count(h)) << "handle " << h << " reused while live";
      model.boxes[h] = b;
      model.filters[h] = Filter{};
    }

    // Queries before the update see the current boxes.
    const Box q = random_box(rng, side);
    std::vector<Handle> found;
    bp.for_each_overlap(q, [&](Handle h) { found.push_back(h); });
    EXPECT_EQ(sorted(found), model.overlapping(q)) << "box query before update";
    bp.query(q, found);
    EXPECT_EQ(found, model.overlapping(q)) << "query(box) before update";

    const bool queries_only = updates == Updates::some_queries_only && step % 3 == 1;
    std::vector<Pair> expected;
    if (queries_only) {
      // No pairs are found, none are kept, and the next update() reports them all as begun.
      in_arena(threads, [&] { bp.update_queries(); });
      EXPECT_TRUE(bp.pairs().empty());
      previous.clear();
    } else {
      PairChanges changes;
      in_arena(threads, [&] { changes = bp.update(); });
      expected = model.pairs();
      const std::span<const Pair> actual = bp.pairs();
      ASSERT_TRUE(same_pairs(expected, std::vector<Pair>(actual.begin(), actual.end())));
      EXPECT_EQ(changes.began, difference(expected, previous));
      EXPECT_EQ(changes.ended, difference(previous, expected));
      previous = expected;
    }

    found.clear();
    bp.for_each_overlap(q, [&](Handle h) { found.push_back(h); });
    EXPECT_EQ(sorted(found), model.overlapping(q)) << "box query after update";
    const Segment s{{q.min.x - 5, q.min.y, q.min.z}, {q.max.x + 5, q.max.y + 1, q.max.z}, {}};
    found.clear();
    bp.for_each_hit(s, [&](Handle h) { found.push_back(h); });
    EXPECT_EQ(sorted(found), model.hit_by(s)) << "segment query";
    // query() gives the same handles sorted, replacing what `found` held (here the hits).
    bp.query(q, found);
    EXPECT_EQ(found, model.overlapping(q)) << "query(box) after update";
    bp.query(s, found);
    EXPECT_EQ(found, model.hit_by(s)) << "query(segment)";
    const BroadphaseStats st = bp.stats();
    EXPECT_EQ(st.objects, model.boxes.size());
    EXPECT_EQ(st.pairs, expected.size());
    max_resting = std::max<std::uint64_t>(max_resting, st.resting);
  }
  // The resting tree took part: the test covers moving x resting and kept candidates, not only
  // moving x moving.
  EXPECT_GT(max_resting, 0u);
  EXPECT_GT(bp.stats().candidates, 0u);
}

TEST(Broadphase, MatchesTheModelStepByStep) {
  run_simulation(2000, 30, 1, Config{}, 1);
}

TEST(Broadphase, MatchesTheModelWithFatBoxes) {
  Config config;
  config.fat_margin = 0.1f;
  run_simulation(2000, 30, 1, config, 5);
  config.tree_min_boxes = 100;
  run_simulation(2000, 25, 3, config, 6, Updates::some_queries_only);
}

// Moving objects meet resting ones by tree queries (resting_query_cost 1: while fewer move than
// rest) or by one grid over both (a huge cost: always), and rest after 1 update or 16.
TEST(Broadphase, MatchesTheModelEitherWayMovingMeetsResting) {
  for (const std::uint32_t cost : {1u, 1000000u}) {
    for (const std::uint32_t wait : {1u, 16u}) {
      SCOPED_TRACE(::testing::Message() << "resting_query_cost " << cost << ", rest waits " << wait);
      Config config;
      config.resting_query_cost = cost;
      config.rest_after = wait;
      config.rest_after_querying = wait;
      config.rest_after_unchanged = wait;
      run_simulation(1500, 25, 1, config, 8 + cost + wait);
    }
  }
}

TEST(Broadphase, MatchesTheModelOnSeveralThreadsWithTheTree) {
  Config config;
  config.tree_min_boxes = 100;  // the moving set goes through the tree of grids
  config.tree_task_entries = 64;
  run_simulation(2000, 25, 3, config, 2);
}

// Steps that only keep the queries current (a world with no pair cache), between steps that
// find pairs: queries stay exact, and pairs come back complete.
TEST(Broadphase, QueriesOnlyUpdatesKeepQueriesExact) {
  run_simulation(2000, 30, 1, Config{}, 3, Updates::some_queries_only);
  Config config;
  config.tree_min_boxes = 100;
  config.tree_task_entries = 64;
  run_simulation(2000, 25, 3, config, 4, Updates::some_queries_only);
}

// The moving objects' query tree is refitted between updates: queries made after objects
// were removed, moved and created since the update (a removed member is still a leaf then, and
// skipped), over many updates (refits and the builds between them), match brute force.
TEST(Broadphase, QueriesBetweenUpdatesMatchBruteForceAsTheQueryTreeIsRefitted) {
  Broadphase bp;
  Rng rng(17);
  std::vector<Handle> handles;
  std::vector<Box> boxes;  // by handle; live[h] says which are objects
  std::vector<bool> live;
  const auto create = [&] {
    const Handle h = bp.create(random_box(rng, 30));
    if (boxes.size() <= h) {
      boxes.resize(h + 1);
      live.resize(h + 1, false);
    }
    boxes[h] = bp.box(h);
    live[h] = true;
    handles.push_back(h);
  };
  for (int i = 0; i < 600; ++i) create();
  std::size_t found = 0;
  for (int update = 0; update < 40; ++update) {
    // Most objects move every update, so most are moving members of the query tree.
    for (const Handle h : handles) {
      if (live[h] && rng.chance(0.8)) bp.set_box(h, boxes[h] = moved(boxes[h], rng));
    }
    bp.update();
    // After the update, every other time, one box query builds or refits the tree before some
    // objects are removed and moved and a few created; else the first query after those does.
    std::vector<Handle> out;
    if (update % 2 == 0) bp.query(Box{{0, 0, 0}, {1, 1, 1}}, out);
    for (int k = 0; k < 15; ++k) {
      const Handle h = handles[rng.below(static_cast<std::uint32_t>(handles.size()))];
      if (!live[h]) continue;
      if (rng.chance(0.5)) {
        bp.remove(h);
        live[h] = false;
      } else {
        bp.set_box(h, boxes[h] = moved(boxes[h], rng));
      }
    }
    for (int k = 0; k < 5; ++k) create();
    for (int q = 0; q < 20; ++q) {
      const Box seed = random_box(rng, 30);
      const Box query{{seed.min.x - 3, seed.min.y - 3, seed.min.z - 3}, {seed.max.x + 3, seed.max.y + 3, seed.max.z + 3}};
      std::vector<Handle> expected;
      for (Handle h = 0; h < boxes.size(); ++h) {
        if (live[h] && overlaps(boxes[h], query)) expected.push_back(h);
      }
      bp.query(query, out);
      ASSERT_EQ(out, expected) << "update " << update << " query " << q;
      found += out.size();
    }
  }
  EXPECT_GT(found, 500u) << "the queries found almost nothing: the test lost its teeth";
}

TEST(Broadphase, SameChangesOnAnyThreadCount) {
  Config config;
  config.tree_min_boxes = 100;
  std::vector<std::vector<Pair>> began_per_threads;
  for (const int threads : {1, 2, 4}) {
    Broadphase bp(config);
    Rng rng(7);
    std::vector<Handle> handles;
    for (int i = 0; i < 2000; ++i) handles.push_back(bp.create(random_box(rng, 40)));
    std::vector<Pair> all_began;
    for (int step = 0; step < 10; ++step) {
      for (const Handle h : handles) {
        if (h % 3 == static_cast<Handle>(step % 3)) bp.set_box(h, moved(bp.box(h), rng));
      }
      in_arena(threads, [&] {
        const PairChanges& c = bp.update();
        all_began.insert(all_began.end(), c.began.begin(), c.began.end());
      });
    }
    began_per_threads.push_back(all_began);
  }
  EXPECT_EQ(began_per_threads[0], began_per_threads[1]);
  EXPECT_EQ(began_per_threads[0], began_per_threads[2]);
}

// A stack that settles: boxes in a lattice whose neighbours overlap by about the jitter, or
// touch, or miss by about it, each moved by up to 1e-4 every step (inside their fat boxes):
// the pairs are exact every step and only pairs that really began or ended are reported.
/// Updates after which unchanged objects have joined the resting tree (Config::rest_after).
constexpr int kUpdatesToRest = static_cast<int>(Config{}.rest_after) + 2;

/// A fat margin that holds the jitter of the tests below, and none.
constexpr float kJitterMargin = 0.1f;

void run_jittering_lattice(float fat_margin) {
  SCOPED_TRACE(::testing::Message() << "fat margin " << fat_margin);
  constexpr int kSide = 12;
  constexpr float kJitter = 1e-4f;
  Config config;
  config.fat_margin = fat_margin;
  Broadphase bp(config);
  Model model;
  Rng rng(11);
  for (int x = 0; x < kSide; ++x) {
    for (int y = 0; y < kSide; ++y) {
      for (int z = 0; z < kSide; ++z) {
        // Spacing 1 plus -1e-4, 0 or +1e-4 on each axis in turn: overlap, touch, miss.
        const float gap = kJitter * static_cast<float>((x + y + z) % 3 - 1);
        const Vec3 at{static_cast<float>(x) * (1 + gap), static_cast<float>(y) * (1 + gap), static_cast<float>(z) * (1 + gap)};
        const Box b{at, {at.x + 1, at.y + 1, at.z + 1}};
        model.boxes[bp.create(b)] = b;
        model.filters[static_cast<Handle>(model.filters.size())] = Filter{};
      }
    }
  }
  std::vector<Pair> previous;
  std::uint64_t changed_pairs = 0;
  for (int step = 0; step < 100; ++step) {
    SCOPED_TRACE(::testing::Message() << "step " << step);
    for (auto& [h, b] : model.boxes) {
      const float dx = static_cast<float>(rng.uniform(-kJitter, kJitter));
      const float dy = static_cast<float>(rng.uniform(-kJitter, kJitter));
      b = {{b.min.x + dx, b.min.y + dy, b.min.z}, {b.max.x + dx, b.max.y + dy, b.max.z}};
      bp.set_box(h, b);
    }
    const PairChanges& changes = bp.update();
    const std::vector<Pair> expected = model.pairs();
    ASSERT_EQ(std::vector<Pair>(bp.pairs().begin(), bp.pairs().end()), expected);
    EXPECT_EQ(changes.began, difference(expected, previous));
    EXPECT_EQ(changes.ended, difference(previous, expected));
    changed_pairs += changes.began.size() + changes.ended.size();
    previous = expected;
  }
  EXPECT_GT(changed_pairs, 0u) << "the jitter should make some pairs begin and end";
  if (fat_margin > 0) {
    EXPECT_EQ(bp.stats().moving, 0u) << "jittering boxes should rest in their fat boxes";
  }
}

TEST(Broadphase, JitteringBoxesGiveExactPairsEveryStep) {
  run_jittering_lattice(kJitterMargin);
  run_jittering_lattice(0);
}

// A resting box that moves by any amount, from one float step to across the world, is seen in
// the very update that follows: a partner placed to meet only the moved box pairs with it then.
TEST(Broadphase, LeavingTheFatBoxByAnyAmountIsSeenAtOnce) {
  Config config;
  config.fat_margin = kJitterMargin;
  for (const float distance : {1e-7f, 1e-5f, 1e-3f, 0.05f, 0.1f, 0.3f, 1.0f, 10.0f, 1e4f, 1e9f}) {
    for (const int axis : {0, 1, 2}) {
      SCOPED_TRACE(::testing::Message() << "distance " << distance << ", axis " << axis);
      Broadphase bp(config);
      const Box home{{0, 0, 0}, {1, 1, 1}};
      const Handle mover = bp.create(home);
      // Far-off boxes, resting beside the mover.
      constexpr std::uint32_t kFar = 300;
      for (std::uint32_t i = 0; i < kFar; ++i) {
        const float x = -1e4f - 2.0f * static_cast<float>(i);
        bp.create({{x, 0, 0}, {x + 1, 1, 1}});
      }
      for (int i = 0; i < kUpdatesToRest; ++i) bp.update();
      ASSERT_EQ(bp.stats().resting, kFar + 1);
      Box there = home;
      float* lo = axis == 0 ? &there.min.x : axis == 1 ? &there.min.y : &there.min.z;
      float* hi = axis == 0 ? &there.max.x : axis == 1 ? &there.max.y : &there.max.z;
      *lo += distance;
      *hi += distance;
      // The partner starts just beyond the moved box's far face minus nothing: it touches it,
      // and misses the home box whenever the move exceeds the float step at 1.
      Box partner = there;
      float* p_lo = axis == 0 ? &partner.min.x : axis == 1 ? &partner.min.y : &partner.min.z;
      float* p_hi = axis == 0 ? &partner.max.x : axis == 1 ? &partner.max.y : &partner.max.z;
      *p_lo = *hi;
      *p_hi = *hi + 1;
      const Handle other = bp.create(partner);
      bp.update();
      const bool met_home = overlaps(home, partner);
      EXPECT_EQ(bp.pairs().size(), met_home ? 1u : 0u);
      bp.set_box(mover, there);
      const PairChanges& changes = bp.update();
      EXPECT_EQ(changes.began.size() + (met_home ? 1u : 0u), 1u);
      ASSERT_EQ(bp.pairs().size(), 1u);
      EXPECT_EQ(bp.pairs()[0], (Pair{std::min(mover, other), std::max(mover, other)}));
      // And back home: the pair ends at once unless the boxes still touch.
      bp.set_box(mover, home);
      bp.update();
      EXPECT_EQ(bp.pairs().size(), met_home ? 1u : 0u);
    }
  }
}

TEST(Broadphase, UnchangedBoxesChangeNothing) {
  Broadphase bp;
  Rng rng(3);
  std::vector<Handle> handles;
  for (int i = 0; i < 500; ++i) handles.push_back(bp.create(random_box(rng, 20)));
  const std::size_t pairs = bp.update().began.size();
  EXPECT_GT(pairs, 0u);
  for (int step = 0; step < 5; ++step) {
    for (const Handle h : handles) bp.set_box(h, bp.box(h));
    const PairChanges& c = bp.update();
    EXPECT_TRUE(c.began.empty());
    EXPECT_TRUE(c.ended.empty());
    EXPECT_EQ(bp.pairs().size(), pairs);
  }
}

TEST(Broadphase, RemovedHandlesAreReusedOnlyAfterAnUpdate) {
  Broadphase bp;
  const Handle a = bp.create({{0, 0, 0}, {1, 1, 1}});
  const Handle b = bp.create({{0, 0, 0}, {1, 1, 1}});
  EXPECT_EQ(bp.update().began, (std::vector<Pair>{{a, b}}));
  bp.remove(b);
  const Handle c = bp.create({{0, 0, 0}, {1, 1, 1}});
  EXPECT_NE(c, b);
  const PairChanges& changes = bp.update();
  EXPECT_EQ(changes.ended, (std::vector<Pair>{{a, b}}));
  EXPECT_EQ(changes.began, (std::vector<Pair>{{a, c}}));
  EXPECT_EQ(bp.create({{5, 5, 5}, {6, 6, 6}}), b);  // reusable now
}

TEST(Broadphase, BadHandlesAreClearErrors) {
  Broadphase bp;
  const Handle h = bp.create({{0, 0, 0}, {1, 1, 1}});
  bp.remove(h);
  EXPECT_THROW(bp.set_box(h, {}), std::invalid_argument);
  EXPECT_THROW(bp.remove(h), std::invalid_argument);
  EXPECT_THROW(bp.set_filter(12345, {}), std::invalid_argument);
  EXPECT_THROW((void)bp.box(h), std::invalid_argument);
  EXPECT_FALSE(bp.contains(h));
  Config bad;
  bad.leaf_capacity = 0;
  EXPECT_THROW(Broadphase{bad}, std::invalid_argument);
}

TEST(Broadphase, InvalidBoxesPairWithNothingAndAreCounted) {
  Broadphase bp;
  bp.create({{0, 0, 0}, {1, 1, 1}});
  bp.create({{kNaN, 0, 0}, {1, 1, 1}});
  bp.create({{2, 0, 0}, {1, 1, 1}});  // min > max
  bp.create({{-1e18f, -1e18f, -1e18f}, {1e18f, 1e18f, 1e18f}});
  bp.update();
  EXPECT_EQ(bp.pairs().size(), 1u);  // the plane with the unit box
  EXPECT_EQ(bp.stats().invalid, 2u);
}

TEST(Broadphase, QueriesReplaceTheirOutputAndSortIt) {
  Broadphase bp;
  std::vector<Handle> handles;
  for (int i = 9; i >= 0; --i) {  // created in descending x: the walk's order is not the handles'
    const float x = static_cast<float>(i);
    handles.push_back(bp.create({{x, 0, 0}, {x + 0.5f, 1, 1}}));
  }
  bp.update();
  const Handle far = handles[3];
  bp.set_box(far, {{20, 0, 0}, {20.5f, 1, 1}});  // changed since the update: seen as it is now
  std::vector<Handle> out{77, 78};
  bp.query(Box{{-1, -1, -1}, {30, 2, 2}}, out);
  std::vector<Handle> all = handles;
  std::sort(all.begin(), all.end());
  EXPECT_EQ(out, all);
  bp.query(Segment{{19, 0.5f, 0.5f}, {25, 0.5f, 0.5f}, {}}, out);
  EXPECT_EQ(out, std::vector<Handle>{far});
  bp.query(Box{{kNaN, 0, 0}, {1, 1, 1}}, out);  // an invalid query meets nothing
  EXPECT_TRUE(out.empty());
  out.push_back(5);
  bp.query(Segment{{kNaN, 0, 0}, {1, 1, 1}, {}}, out);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace agrid::test
