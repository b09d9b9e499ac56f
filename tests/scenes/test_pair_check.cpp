// check_pair_cache, the demo's pair check, can fail: against pair caches filled by hand over a
// world's proxies (their stored boxes written directly) it counts every missing and every extra
// pair, touching boxes included, filtered, invalid and duplicated pairs counted as Bullet means
// them; and a BulletWorld whose cache is tampered with reports exactly missing 1 and extra 1.

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <ostream>
#include <vector>

#include "agrid_scenes/bullet_harness.h"
#include "agrid_scenes/bullet_worlds.h"
#include "agrid_scenes/pair_check.h"

namespace agrid::scenes {

// How gtest shows a PairCheck (found by argument-dependent lookup, so beside PairCheck).
void PrintTo(const PairCheck& c, std::ostream* os) { *os << "{missing " << c.missing << ", extra " << c.extra << "}"; }

namespace {

/// A world of `count` dynamic bodies whose stored boxes the tests write themselves.
class HandWorld {
 public:
  explicit HandWorld(int count) : harness_(HarnessDef{.kind = BroadphaseKind::simple}) {
    btCollisionShape* shape = harness_.own(std::make_unique<btSphereShape>(btScalar(0.5)));
    for (int i = 0; i < count; ++i) {
      proxies_.push_back(harness_.add_body(shape, 1, btTransform::getIdentity())->getBroadphaseHandle());
    }
  }
  /// Stores the box [lo, hi] in proxy i, as a broadphase's setAabb would.
  void set_box(int i, const btVector3& lo, const btVector3& hi) {
    proxy(i)->m_aabbMin = lo;
    proxy(i)->m_aabbMax = hi;
  }
  btBroadphaseProxy* proxy(int i) { return proxies_[static_cast<std::size_t>(i)]; }
  PairCheck check(const btOverlappingPairCache& cache) { return check_pair_cache(harness_.world(), cache); }
  btDispatcher* dispatcher() { return &harness_.dispatcher(); }

 private:
  BulletHarness harness_;
  std::vector<btBroadphaseProxy*> proxies_;
};

/// Four boxes: 0 and 1 touch on x = 1 (closed boxes overlap), 2 is apart from both, 3 is
/// apart from all.
class TouchingPair : public HandWorld {
 public:
  TouchingPair() : HandWorld(4) {
    set_box(0, {0, 0, 0}, {1, 1, 1});
    set_box(1, {1, 0, 0}, {2, 1, 1});
    set_box(2, {0, 3, 0}, {1, 4, 1});
    set_box(3, {10, 10, 10}, {11, 11, 11});
  }
};

TEST(PairCheck, ExactCacheHasNothingMissingNorExtra) {
  TouchingPair w;
  btHashedOverlappingPairCache cache;
  cache.addOverlappingPair(w.proxy(0), w.proxy(1));
  EXPECT_EQ(w.check(cache), (PairCheck{0, 0}));
}

TEST(PairCheck, CountsADroppedTouchingPairAsMissing) {
  TouchingPair w;
  btHashedOverlappingPairCache cache;
  EXPECT_EQ(w.check(cache), (PairCheck{1, 0}));
}

TEST(PairCheck, CountsACachedPairOfApartBoxesAsExtra) {
  TouchingPair w;
  btHashedOverlappingPairCache cache;
  cache.addOverlappingPair(w.proxy(0), w.proxy(1));
  cache.addOverlappingPair(w.proxy(0), w.proxy(2));
  cache.addOverlappingPair(w.proxy(3), w.proxy(1));
  EXPECT_EQ(w.check(cache), (PairCheck{0, 2}));
}

// btSortedOverlappingPairCache does not deduplicate adds: a pair held twice is one extra.
TEST(PairCheck, CountsAPairCachedTwiceAsExtra) {
  TouchingPair w;
  btSortedOverlappingPairCache cache;
  cache.addOverlappingPair(w.proxy(0), w.proxy(1));
  cache.addOverlappingPair(w.proxy(1), w.proxy(0));
  ASSERT_EQ(cache.getNumOverlappingPairs(), 2);
  EXPECT_EQ(w.check(cache), (PairCheck{0, 1}));
}

// Box 2 moved onto box 0, but its mask refuses box 0's group: the pair is not missing, and
// held (added before the filter changed) it is extra.
TEST(PairCheck, FollowsTheGroupAndMaskFilter) {
  TouchingPair w;
  w.set_box(2, {0.5f, 0.5f, 0.5f}, {0.9f, 0.9f, 0.9f});
  btHashedOverlappingPairCache cache;
  cache.addOverlappingPair(w.proxy(0), w.proxy(1));
  cache.addOverlappingPair(w.proxy(0), w.proxy(2));
  EXPECT_EQ(w.check(cache), (PairCheck{0, 0}));
  w.proxy(2)->m_collisionFilterMask = ~w.proxy(0)->m_collisionFilterGroup;
  EXPECT_EQ(w.check(cache), (PairCheck{0, 1}));
  cache.removeOverlappingPair(w.proxy(0), w.proxy(2), w.dispatcher());
  EXPECT_EQ(w.check(cache), (PairCheck{0, 0}));
}

/// Refuses every pair.
struct RefuseAll : btOverlapFilterCallback {
  bool needBroadphaseCollision(btBroadphaseProxy*, btBroadphaseProxy*) const override { return false; }
};

// The cache's overlap filter callback replaces group and mask.
TEST(PairCheck, FollowsTheCachesOverlapFilterCallback) {
  TouchingPair w;
  btHashedOverlappingPairCache cache;
  cache.addOverlappingPair(w.proxy(0), w.proxy(1));
  RefuseAll refuse;
  cache.setOverlapFilterCallback(&refuse);
  EXPECT_EQ(w.check(cache), (PairCheck{0, 1}));
  cache.setOverlapFilterCallback(nullptr);
  EXPECT_EQ(w.check(cache), (PairCheck{0, 0}));
}

// A box with a NaN, or with min > max on an axis, pairs with nothing.
TEST(PairCheck, InvalidBoxesPairWithNothing) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const btVector3 lo : {btVector3(nan, 0, 0), btVector3(1, 0, 2)}) {
    TouchingPair w;
    w.set_box(1, lo, {2, 1, 1});
    btHashedOverlappingPairCache cache;
    EXPECT_EQ(w.check(cache), (PairCheck{0, 0}));
    cache.addOverlappingPair(w.proxy(0), w.proxy(1));
    EXPECT_EQ(w.check(cache), (PairCheck{0, 1}));
  }
}

/// The boxes of the sweep test: in a cube of side kSpread, unit on y and z, 0.5 to 1.5 long on
/// x, and every kLongBoxEvery-th as long as the cube (it meets many boxes on x alone).
constexpr int kSweepBoxes = 400;
constexpr double kSpread = 10;
constexpr int kLongBoxEvery = 37;
constexpr double kShortestBox = 0.5;
/// Fractional parts of multiples of these irrationals place the boxes: spread evenly, no random
/// numbers needed.
constexpr std::array<double, 4> kIrrationals = {0.6180339887, 0.4142135623, 0.7320508075, 0.2360679774};

double fraction(int i, std::size_t sequence) { return std::fmod((i + 1) * kIrrationals[sequence], 1.0); }

// The sweep finds every pair a brute force finds.
TEST(PairCheck, SweepFindsWhatBruteForceFinds) {
  HandWorld w(kSweepBoxes);
  std::vector<std::array<btVector3, 2>> boxes;
  for (int i = 0; i < kSweepBoxes; ++i) {
    const btVector3 lo(btScalar(kSpread * fraction(i, 0)), btScalar(kSpread * fraction(i, 1)),
                       btScalar(kSpread * fraction(i, 2)));
    const double length = (i + 1) % kLongBoxEvery == 0 ? kSpread : kShortestBox + fraction(i, 3);
    boxes.push_back({lo, lo + btVector3(btScalar(length), 1, 1)});
    w.set_box(i, boxes.back()[0], boxes.back()[1]);
  }
  btHashedOverlappingPairCache cache;
  const auto meet = [&](int a, int b) {
    for (int k = 0; k < 3; ++k) {
      if (boxes[a][1][k] < boxes[b][0][k] || boxes[b][1][k] < boxes[a][0][k]) return false;
    }
    return true;
  };
  for (int a = 0; a < kSweepBoxes; ++a) {
    for (int b = a + 1; b < kSweepBoxes; ++b) {
      if (meet(a, b)) cache.addOverlappingPair(w.proxy(a), w.proxy(b));
    }
  }
  ASSERT_GT(cache.getNumOverlappingPairs(), kSweepBoxes);
  EXPECT_EQ(w.check(cache), (PairCheck{0, 0}));
  const btBroadphasePair dropped = cache.getOverlappingPairArray()[0];
  cache.removeOverlappingPair(dropped.m_pProxy0, dropped.m_pProxy1, w.dispatcher());
  EXPECT_EQ(w.check(cache), (PairCheck{1, 0}));
}

/// Scatter's bodies and the steps before the tampering.
constexpr std::uint32_t kScatterBodies = 300;
constexpr int kStepsBeforeTampering = 5;

// The first two proxies (by object order) that the filter lets pair but whose boxes are apart.
std::array<btBroadphaseProxy*, 2> apart_pair(BulletWorld& world) {
  const btCollisionObjectArray& objects = world.world().getCollisionObjectArray();
  btBroadphaseProxy* first = objects[0]->getBroadphaseHandle();
  for (int i = 1; i < objects.size(); ++i) {
    btBroadphaseProxy* other = objects[i]->getBroadphaseHandle();
    bool apart = false;
    for (int k = 0; k < 3; ++k) {
      apart = apart || first->m_aabbMax[k] < other->m_aabbMin[k] || other->m_aabbMax[k] < first->m_aabbMin[k];
    }
    if (apart && world.harness().cache().needsBroadphaseCollision(first, other)) return {first, other};
  }
  return {nullptr, nullptr};
}

// What the demo reports for an agrid world whose cache lost a pair and gained one.
TEST(PairCheck, ReportsATamperedBulletWorld) {
  BulletWorld world("scatter", BroadphaseKind::agrid, kScatterBodies);
  for (int s = 0; s < kStepsBeforeTampering; ++s) world.step();
  ASSERT_EQ(world.check_pairs(), (PairCheck{0, 0}));
  btOverlappingPairCache& cache = world.harness().cache();
  ASSERT_GT(cache.getNumOverlappingPairs(), 0);
  const btBroadphasePair dropped = cache.getOverlappingPairArray()[0];
  cache.removeOverlappingPair(dropped.m_pProxy0, dropped.m_pProxy1, world.world().getDispatcher());
  EXPECT_EQ(world.check_pairs(), (PairCheck{1, 0}));
  const auto [a, b] = apart_pair(world);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(cache.addOverlappingPair(a, b), nullptr);
  EXPECT_EQ(world.check_pairs(), (PairCheck{1, 1}));
}

}  // namespace
}  // namespace agrid::scenes
