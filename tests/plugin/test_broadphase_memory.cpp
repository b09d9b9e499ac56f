// Memory follows the world (docs/broadphase.md, "Memory"): after most objects are removed the
// next updates give memory back and stats().bytes_held says so; a world that grows and shrinks by
// a few percent a step keeps its memory; and after giving memory back the broadphase is exact
// (against the oracle's pairs) and hands out the lowest handles. Then the parts that give memory
// back, on their own: the shrink rule, and the resting tree's and the candidate records'
// compaction.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "agrid/agrid.h"
#include "broadphase/candidate_pairs.h"
#include "box_tree/box_tree.h"
#include "broadphase/world_size.h"
#include "common/box_ops.h"
#include "common/slack_growth.h"
#include "oracle/broadphase_model.h"
#include "oracle/oracle.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

float u(Rng& rng, double lo, double hi) { return static_cast<float>(rng.uniform(lo, hi)); }

/// Random boxes' edges: 0.2 to 2 on each axis.
constexpr scenes::Edges kEdges{0.2f, 2.0f};

/// A box of edges kEdges somewhere in [0, side)^3.
Box random_box(Rng& rng, float side) { return scenes::box_in_cube(rng, side, kEdges); }

/// `b` moved by `d` along x and y.
Box shifted(const Box& b, float d) { return scenes::moved(b, {d, d, 0}); }

/// A broadphase, updated on one thread unless told (so that which scratch is warm does not
/// depend on the scheduler), and the brute-force model of the same objects, changed together;
/// update() checks the pairs, and what began and ended, against the oracle's.
struct World {
  explicit World(float scene_side) : side(scene_side) {}

  Handle create(const Box& box) {
    const Handle h = bp.create(box);
    EXPECT_FALSE(model.boxes.contains(h)) << "create returned the live handle " << h;
    model.boxes[h] = box;
    model.filters[h] = Filter{};
    return h;
  }
  Handle create() { return create(random_box(rng, side)); }
  void set_box(Handle h, const Box& box) {
    bp.set_box(h, box);
    model.boxes.at(h) = box;
  }
  void remove(Handle h) {
    bp.remove(h);
    model.boxes.erase(h);
    model.filters.erase(h);
  }
  [[nodiscard]] std::vector<Handle> live() const {
    std::vector<Handle> out;
    for (const auto& [h, b] : model.boxes) out.push_back(h);
    return out;
  }
  /// Nudges `count` random live objects by up to +-0.3 (some leave their fat boxes and move) and
  /// teleports a tenth as many across the scene.
  void stir(std::size_t count) {
    const std::vector<Handle> handles = live();
    if (handles.empty()) return;
    for (std::size_t i = 0; i < count; ++i) {
      const Handle h = handles[rng.below(static_cast<std::uint32_t>(handles.size()))];
      set_box(h, i % 10 == 0 ? random_box(rng, side) : shifted(model.boxes.at(h), u(rng, -0.3, 0.3)));
    }
  }
  /// Updates on `threads` threads; with `check`, compares pairs() with the oracle's, and what
  /// began and ended too when the update before was checked.
  const PairChanges& update(bool check = true) {
    const PairChanges* changes = nullptr;
    in_arena(threads, [&] { changes = &bp.update(); });
    if (check) {
      const std::vector<Pair> expected = model.swept_pairs();
      const std::span<const Pair> actual = bp.pairs();
      EXPECT_TRUE(same_pairs(expected, std::vector<Pair>(actual.begin(), actual.end()))) << "pairs()";
      if (checked) {
        EXPECT_TRUE(same_pairs(oracle::difference(expected, previous), changes->began)) << "began";
        EXPECT_TRUE(same_pairs(oracle::difference(previous, expected), changes->ended)) << "ended";
      }
      EXPECT_EQ(bp.stats().objects, model.boxes.size());
      EXPECT_EQ(bp.stats().pairs, expected.size());
      previous = expected;
    }
    checked = check;
    return *changes;
  }

  float side;
  int threads = 1;
  Rng rng{31};
  Broadphase bp;
  oracle::BroadphaseModel model;
  std::vector<Pair> previous;  ///< The pairs as of the last update, if it was checked.
  bool checked = false;        ///< The last update was checked.
};

/// The side of a cube where `objects` random boxes have about one overlap each.
float side_for(std::uint32_t objects) { return scenes::cube_side(objects, 2.5f); }

/// Memory held by a broadphase made afresh with only these boxes, updated twice.
std::size_t fresh_bytes(const oracle::BroadphaseModel& model) {
  Broadphase fresh;
  for (const auto& [h, box] : model.boxes) fresh.create(box);
  in_arena(1, [&] {
    fresh.update();
    fresh.update();
  });
  return fresh.stats().bytes_held;
}

/// The bound bytes_held falls below once the world has shrunk: every array gives memory back
/// when its use falls below a quarter of its capacity, and arrays of at most 16 KiB are kept
/// whatever their use (slack_growth.h). So a broadphase holds at most about 4 times what one made
/// afresh with the same objects holds, plus 16 KiB for each of its arrays (about 40: 1 MiB).
std::size_t shrunk_bound(std::size_t fresh) { return 4 * fresh + kMiB; }

/// 200,000 objects, stepped with some moving and some teleported, then all but the `kept`
/// lowest handles removed: the update that removes them gives most memory back, the next one
/// the rest (the ended pairs it reported are held until then); the broadphase is exact
/// throughout, and new objects get the lowest free handles.
void shrink_and_regrow(std::uint32_t kept) {
  constexpr std::uint32_t kObjects = 200000;
  World world(side_for(kObjects));
  for (std::uint32_t i = 0; i < kObjects; ++i) world.create();
  world.update();
  std::size_t peak = world.bp.stats().bytes_held;
  for (int step = 0; step < 6; ++step) {
    world.stir(kObjects / 100);
    world.update(step == 5);
    peak = std::max(peak, world.bp.stats().bytes_held);
  }
  ASSERT_GT(world.bp.stats().moving, 0u) << "the scene should have moving objects when it shrinks";
  ASSERT_GT(world.bp.stats().candidates, kObjects / 2);
  ASSERT_TRUE(world.checked);

  for (const Handle h : world.live()) {
    if (h >= kept) world.remove(h);
  }
  const PairChanges& changes = world.update();
  EXPECT_FALSE(changes.ended.empty());
  const std::size_t first = world.bp.stats().bytes_held;
  world.update();
  const std::size_t second = world.bp.stats().bytes_held;
  const std::size_t fresh = fresh_bytes(world.model);
  const std::size_t bound = shrunk_bound(fresh);
  ::testing::Test::RecordProperty("peak_bytes", std::to_string(peak));
  ::testing::Test::RecordProperty("bytes_after_first_update", std::to_string(first));
  ::testing::Test::RecordProperty("bytes_after_second_update", std::to_string(second));
  // The first update still holds the lists of what it reported (the ended pairs, in `changes`
  // and in what pairs() merges them from): a small share of the peak.
  EXPECT_LT(first, peak / 6) << "peak " << peak << ", after the update that removed objects " << first;
  EXPECT_LE(second, bound) << "peak " << peak << ", after the next update " << second << ", made afresh " << fresh;

  // New objects get the lowest handles that are not live, ascending; the broadphase stays exact
  // through steps that move them.
  for (Handle expected = kept; expected < kept + 3000; ++expected) EXPECT_EQ(world.create(), expected);
  world.update();
  for (int step = 0; step < 4; ++step) {
    world.stir(std::max<std::size_t>(world.model.boxes.size() / 20, 10));
    world.update();
  }
  for (const Handle h : world.live()) world.remove(h);
  world.update();
  world.update();
  EXPECT_LE(world.bp.stats().bytes_held, kMiB) << "nothing is live";
  EXPECT_EQ(world.create(), 0u);
}

TEST(BroadphaseMemory, RemovingAllGivesMemoryBack) { shrink_and_regrow(0); }

TEST(BroadphaseMemory, RemovingAllButOnePercentGivesMemoryBack) { shrink_and_regrow(2000); }

TEST(BroadphaseMemory, AllMovingOnTwoThreadsGivesTheTreeOfGridsBack) {
  // 40,000 objects all teleported every step: one grid pairs them all, and on two threads the
  // tree of grids (Config::tree_min_boxes, 20,000) finds its pairs. With 1% left, the grid and
  // the tree are made afresh and hold room for the few.
  constexpr std::uint32_t kObjects = 40000;
  World world(side_for(kObjects));
  world.threads = 2;
  for (std::uint32_t i = 0; i < kObjects; ++i) world.create();
  world.update();
  std::size_t peak = 0;
  for (int step = 0; step < 3; ++step) {
    for (const Handle h : world.live()) world.set_box(h, random_box(world.rng, world.side));
    world.update();
    peak = std::max(peak, world.bp.stats().bytes_held);
  }
  ASSERT_EQ(world.bp.stats().moving, kObjects);
  for (const Handle h : world.live()) {
    if (h >= kObjects / 100) world.remove(h);
  }
  world.update();
  world.update();
  const std::size_t fresh = fresh_bytes(world.model);
  EXPECT_LE(world.bp.stats().bytes_held, shrunk_bound(fresh))
      << "peak " << peak << ", after " << world.bp.stats().bytes_held << ", made afresh " << fresh;
  for (int step = 0; step < 3; ++step) {
    for (const Handle h : world.live()) world.set_box(h, random_box(world.rng, world.side / 10));
    world.update();
  }
}

TEST(BroadphaseMemory, ObjectsKeptAtHighHandlesKeepTheTableUpToThem) {
  // Handles are indices: the table ends at the highest live handle + 1, and gives memory back
  // once that object is removed too.
  constexpr std::uint32_t kObjects = 50000;
  World world(side_for(kObjects));
  for (std::uint32_t i = 0; i < kObjects; ++i) world.create();
  world.update(false);
  const Handle last = kObjects - 1;
  for (const Handle h : world.live()) {
    if (h >= 100 && h != last) world.remove(h);
  }
  world.update();
  world.update();
  const std::size_t table = kObjects * (sizeof(Box) * 2 + sizeof(Filter));
  EXPECT_GE(world.bp.stats().bytes_held, table) << "the table holds up to the last handle";
  world.remove(last);
  world.update();
  world.update();
  EXPECT_LE(world.bp.stats().bytes_held, shrunk_bound(fresh_bytes(world.model)));
  EXPECT_EQ(world.create(), 100u);
  world.update();
}

TEST(BroadphaseMemory, BreathingWorldKeepsItsMemory) {
  // A world of 50,000 +-5% (up to 2,500 objects created or removed a step, within 47,500 to
  // 52,500), 1% stirred a step. Once warm (it has been at both ends, and most of its objects were
  // replaced: the resting tree's nodes, full after the first update's bulk build, settle to the
  // fullness that single inserts and removals keep, about 3 children a node; and the first
  // update's lists, as long as the world, were given back: kRecentUses to twice that many
  // updates after it), nothing is given back, and
  // the memory held changes in few steps and by little: a list grows where a step sets a new
  // high (the most moving objects so far), and no list shrinks and grows again from step to step.
  constexpr std::uint32_t kObjects = 50000;
  constexpr std::uint32_t kBreath = kObjects / 20;
  World world(side_for(kObjects));
  for (std::uint32_t i = 0; i < kObjects; ++i) world.create();
  world.update(false);
  const auto breathe = [&](std::int64_t change) {
    std::vector<Handle> live = world.live();
    for (std::int64_t i = 0; i < change; ++i) world.create();
    for (std::int64_t i = 0; i < -change; ++i) {
      const std::size_t k = world.rng.below(static_cast<std::uint32_t>(live.size()));
      world.remove(live[k]);
      live[k] = live.back();
      live.pop_back();
    }
    world.stir(kObjects / 100);
  };
  constexpr int kWarmCycles = 12;  // 3 updates each: past 2 * kRecentUses
  static_assert(3 * kWarmCycles > 2 * detail::kRecentUses);
  for (int cycle = 0; cycle < kWarmCycles; ++cycle) {
    for (const std::int64_t change : {std::int64_t{kBreath}, -2 * std::int64_t{kBreath}, std::int64_t{kBreath}}) {
      breathe(change);
      world.update(false);
      (void)world.bp.pairs();
    }
  }
  constexpr int kSteps = 50;
  int changed = 0;
  int shrank = 0;
  const std::size_t warm = world.bp.stats().bytes_held;
  std::size_t before = warm;
  for (int step = 0; step < kSteps; ++step) {
    const auto size = static_cast<std::int64_t>(world.model.boxes.size());
    const std::int64_t lo = std::max<std::int64_t>(-std::int64_t{kBreath}, kObjects - kBreath - size);
    const std::int64_t hi = std::min<std::int64_t>(kBreath, kObjects + kBreath - size);
    breathe(lo + static_cast<std::int64_t>(world.rng.below(static_cast<std::uint32_t>(hi - lo + 1))));
    world.update(step % 10 == 9);
    (void)world.bp.pairs();
    const std::size_t now = world.bp.stats().bytes_held;
    changed += now != before;
    shrank += now < before;
    before = now;
  }
  ::testing::Test::RecordProperty("steps_bytes_changed", changed);
  EXPECT_EQ(shrank, 0) << "a breathing world gave memory back";
  EXPECT_LE(changed, kSteps / 5) << "the memory held changed in " << changed << " of " << kSteps << " steps";
  EXPECT_LE(before, warm + warm / 100) << "warm " << warm << " bytes, at the end " << before;
}

// ---- the parts ---------------------------------------------------------------------------------

TEST(ShrinkRule, ShrinksFarBelowCapacityToTwiceTheUse) {
  std::vector<std::uint64_t> v(100000, 7);
  v.resize(30000);
  EXPECT_FALSE(detail::shrink_if_far_below(v, v.size())) << "30% of the capacity in use";
  v.resize(20000);
  EXPECT_TRUE(detail::shrink_if_far_below(v, v.size()));
  EXPECT_EQ(v.capacity(), 40000u);
  EXPECT_EQ(v.size(), 20000u);
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](std::uint64_t x) { return x == 7; })) << "the elements are kept";
  EXPECT_FALSE(detail::shrink_if_far_below(v, 10001)) << "the use must halve from the shrink to shrink again";
  v.clear();
  EXPECT_FALSE(detail::shrink_if_far_below(v, 30000)) << "the use asked for counts, not only the size";
  std::vector<std::uint64_t> small(2000);
  small.clear();
  EXPECT_FALSE(detail::shrink_if_far_below(small, 0)) << "16 KiB and less are kept";
}

TEST(BoxTreeMemory, CompactsKeepingItsLeavesAndQueries) {
  constexpr std::uint32_t kLeaves = 20000;
  Rng rng(5);
  detail::BoxTree tree;
  std::map<std::uint32_t, Box> box_of;  // by object
  for (std::uint32_t object = 0; object < kLeaves; ++object) {
    const Box box = random_box(rng, 60.0f);
    tree.insert(object, box);
    box_of[object] = box;
  }
  const std::size_t full = tree.bytes_held();
  EXPECT_FALSE(tree.give_back(kLeaves)) << "nothing to give back";
  for (std::uint32_t object = 0; object < kLeaves; ++object) {
    if (object % 20 == 0 && object < kLeaves / 10) continue;
    tree.remove(object);
    box_of.erase(object);
  }
  ASSERT_TRUE(tree.give_back(kLeaves / 10));
  EXPECT_EQ(tree.problem(), nullptr);
  EXPECT_LE(tree.bytes_held(), full / 8);
  EXPECT_FALSE(tree.give_back(kLeaves / 10)) << "a second give_back changes nothing";
  std::vector<Box> boxes;
  std::vector<std::uint32_t> objects;
  for (const auto& [object, box] : box_of) {
    EXPECT_TRUE(tree.contains(object));
    EXPECT_TRUE(detail::same_box(tree.box(object), box));
    objects.push_back(object);
    boxes.push_back(box);
  }
  for (const Box& query : query_boxes(boxes, 200, 9)) {
    std::vector<std::uint32_t> found;
    tree.query(query, [&](std::uint32_t object) {
      found.push_back(object);
      return true;
    });
    std::sort(found.begin(), found.end());
    std::vector<std::uint32_t> expected;
    for (const std::uint32_t i : oracle::query(boxes, query)) expected.push_back(objects[i]);
    ASSERT_TRUE(same_indices(expected, found));
  }
  // The renumbered leaves are removed and the tree grows again.
  for (const auto& [object, box] : box_of) tree.remove(object);
  EXPECT_EQ(tree.leaves(), 0u);
  for (std::uint32_t object = 0; object < 100; ++object) tree.insert(object, random_box(rng, 60.0f));
  EXPECT_EQ(tree.problem(), nullptr);
}

TEST(CandidatePairsMemory, CompactsKeepingEveryList) {
  constexpr std::uint32_t kObjects = 5000;
  Rng rng(8);
  detail::CandidatePairs candidates;
  candidates.resize(kObjects);
  std::map<std::pair<std::uint32_t, std::uint32_t>, detail::CandidateId> records;  // by (first, second)
  std::map<std::pair<std::uint32_t, std::uint32_t>, bool> hits;
  while (records.size() < 60000) {
    const std::uint32_t a = rng.below(kObjects);
    const std::uint32_t b = rng.below(kObjects);
    const std::pair<std::uint32_t, std::uint32_t> key{std::min(a, b), std::max(a, b)};
    if (a == b || records.contains(key)) continue;
    const bool hit = rng.below(2) == 0;
    records[key] = candidates.add(a, b, hit);
    hits[key] = hit;
  }
  const std::size_t full = candidates.bytes_held();
  for (auto it = records.begin(); it != records.end();) {
    // Keep 5%, and none of the objects from kObjects / 2 on.
    if (rng.below(20) == 0 && it->first.second < kObjects / 2) {
      ++it;
      continue;
    }
    candidates.remove(it->second);
    hits.erase(it->first);
    it = records.erase(it);
  }
  candidates.give_back();
  candidates.forget_from(kObjects / 2);
  EXPECT_EQ(candidates.problem(), nullptr);
  EXPECT_LE(candidates.bytes_held(), full / 4);
  EXPECT_EQ(candidates.size(), hits.size());
  EXPECT_EQ(candidates.hits(), static_cast<std::uint32_t>(std::count_if(hits.begin(), hits.end(), [](const auto& e) { return e.second; })));
  // Each object's list holds exactly its pairs, with their hits.
  for (std::uint32_t object = 0; object < kObjects / 2; ++object) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, bool> listed;
    for (detail::CandidateId r = candidates.first(object); !r.is_none(); r = candidates.next(r, object)) {
      listed[{candidates.first_member(r), candidates.second_member(r)}] = candidates.hit(r);
    }
    std::map<std::pair<std::uint32_t, std::uint32_t>, bool> expected;
    for (const auto& [key, hit] : hits) {
      if (key.first == object || key.second == object) expected[key] = hit;
    }
    ASSERT_EQ(listed, expected) << "object " << object;
  }
}

}  // namespace
}  // namespace agrid::test
