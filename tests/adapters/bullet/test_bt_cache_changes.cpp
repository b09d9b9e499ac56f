// btAdaptiveGridBroadphase when filters or the pair cache change behind its back: masks and
// groups written on proxies that get no setAabb, filter callbacks that come, go, change and
// change their minds, pairs the user removes and adds in the same step (with the adapter's
// cache and with a user's). After every step the cache must hold exactly the overlapping pairs
// of stored AABBs that the live filters accept.

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "bt_world.h"

namespace agrid::bt_test {
namespace {

using agrid::test::Rng;

/// Where a sphere of radius 0.5 rests on the ground's top face (y = 0).
constexpr float kRestingY = 0.5f;

/// A static ground box (top face at y = 0) that pairs with nothing at first (mask 0), and a
/// ball of radius 0.5 falling onto it from y = 4, in a world with gravity.
struct BallOverGround {
  btRigidBody* ground;
  btRigidBody* ball;
};

BallOverGround ball_over_ground(World& w) {
  auto* ground_shape = w.own(std::make_unique<btBoxShape>(btVector3(5, 0.5f, 5)));
  btRigidBody* ground = w.add_body(ground_shape, 0, btTransform(btQuaternion::getIdentity(), btVector3(0, -0.5f, 0)),
                                   btBroadphaseProxy::StaticFilter, 0);
  auto* ball_shape = w.own(std::make_unique<btSphereShape>(0.5f));
  btRigidBody* ball = w.add_body(ball_shape, 1, btTransform(btQuaternion::getIdentity(), btVector3(0, 4, 0)));
  ball->setActivationState(DISABLE_DEACTIVATION);
  return {ground, ball};
}

// The case: with setForceUpdateAllAabbs(false) the static ground never gets a setAabb;
// its mask is widened on the proxy while the ball is in the air, with no refreshBroadphaseProxy.
// The ball must land (dbvt: it does), and the cache be exact every step. Then the mask is
// narrowed again: the pair goes at the next step (stricter than dbvt, which keeps it) and the
// ball falls through.
TEST(BulletAdapterLiveFilters, MaskWidenedOnStaticProxyWithoutSetAabb) {
  for (const bool force_update : {false, true}) {
    SCOPED_TRACE(force_update ? "setForceUpdateAllAabbs(true)" : "setForceUpdateAllAabbs(false)");
    World w(BroadphaseKind::agrid, {}, btVector3(0, -10, 0));
    w.world().setForceUpdateAllAabbs(force_update);
    const BallOverGround s = ball_over_ground(w);
    ASSERT_NO_FATAL_FAILURE(run_checked(w, 120, [&](int step) {
      if (step == 10) s.ground->getBroadphaseHandle()->m_collisionFilterMask = btBroadphaseProxy::AllFilter;
    }));
    EXPECT_NEAR(s.ball->getWorldTransform().getOrigin().y(), kRestingY, 0.02f) << "the ball fell through";
    ASSERT_NE(w.cache().findPair(s.ball->getBroadphaseHandle(), s.ground->getBroadphaseHandle()), nullptr);

    ASSERT_NO_FATAL_FAILURE(run_checked(w, 1, [&](int) { s.ground->getBroadphaseHandle()->m_collisionFilterMask = 0; }));
    EXPECT_EQ(w.cache().findPair(s.ball->getBroadphaseHandle(), s.ground->getBroadphaseHandle()), nullptr);
    ASSERT_NO_FATAL_FAILURE(run_checked(w, 60));
    EXPECT_LT(s.ball->getWorldTransform().getOrigin().y(), 0.0f) << "the narrowed mask was not applied";
  }
}

// The same with the ground's group (it starts in a group the ball's mask refuses), and the
// reference: btDbvtBroadphase lands the ball as well.
TEST(BulletAdapterLiveFilters, GroupChangedOnStaticProxyWithoutSetAabb) {
  for (const BroadphaseKind kind : {BroadphaseKind::dbvt, BroadphaseKind::agrid}) {
    World w(kind, {}, btVector3(0, -10, 0));
    w.world().setForceUpdateAllAabbs(false);
    const BallOverGround s = ball_over_ground(w);
    btBroadphaseProxy* ground = s.ground->getBroadphaseHandle();
    ground->m_collisionFilterMask = btBroadphaseProxy::AllFilter;
    btBroadphaseProxy* ball = s.ball->getBroadphaseHandle();
    ball->m_collisionFilterMask = btBroadphaseProxy::AllFilter & ~btBroadphaseProxy::StaticFilter;
    for (int step = 0; step < 120; ++step) {
      if (step == 10) ground->m_collisionFilterGroup = btBroadphaseProxy::DefaultFilter;
      w.step();
      if (kind == BroadphaseKind::agrid) {
        ASSERT_TRUE(same_pair_set(expected_pairs(w.world()), cache_pairs(w.cache()))) << "step " << step;
      }
    }
    EXPECT_NEAR(s.ball->getWorldTransform().getOrigin().y(), kRestingY, 0.02f)
        << scenes::name(kind) << ": the ball fell through";
  }
}

// Static boxes that overlap each other (pairs that no setAabb call would reveal: neither
// moves) change filters every few steps, widening and narrowing, among moving bodies.
TEST(BulletAdapterLiveFilters, FiltersChangedOnUnmovingProxies) {
  World w;
  w.world().setForceUpdateAllAabbs(false);
  Rng rng(91);
  auto* block = w.own(std::make_unique<btBoxShape>(btVector3(0.8f, 0.8f, 0.8f)));
  std::vector<btRigidBody*> statics;
  for (int i = 0; i < 200; ++i) {
    const btVector3 at(uniform(rng, -6, 6), uniform(rng, -6, 6), uniform(rng, -6, 6));
    statics.push_back(w.add_body(block, 0, btTransform(random_rotation(rng), at)));
  }
  add_random_bodies(w, rng, {.count = 200, .spread = 6, .y_lo = -6, .y_hi = 6, .speed = 2, .never_sleep = true});
  std::size_t static_pairs_seen = 0;
  ASSERT_NO_FATAL_FAILURE(run_checked(w, 60, [&](int step) {
    if (step % 3 != 2) return;
    for (int k = 0; k < 20; ++k) {
      btBroadphaseProxy* p = statics[rng.below(static_cast<std::uint32_t>(statics.size()))]->getBroadphaseHandle();
      // Static objects refuse each other by default (group 2, mask ~2): let some meet, then not.
      p->m_collisionFilterMask = rng.chance(0.5) ? btBroadphaseProxy::AllFilter : btBroadphaseProxy::AllFilter & ~2;
      p->m_collisionFilterGroup = rng.chance(0.8) ? btBroadphaseProxy::StaticFilter : btBroadphaseProxy::DefaultFilter;
    }
  }));
  for (const IdPair& p : cache_pairs(w.cache())) {
    static_pairs_seen += p.first <= 200 && p.second <= 200;  // the statics came first: ids 1..200
  }
  EXPECT_GT(static_pairs_seen, 5u) << "no pair between static objects was ever accepted";
}

// A static level that overlaps nothing of its own (setForceUpdateAllAabbs(false): no static gets
// setAabb, and none is watched, since none has an overlapping box) has filters changed on
// statics that balls are about to hit or are resting on: the filters are read when a pair
// begins, and compared every step for the proxies that overlap something, so no collision is
// lost and none is kept that the filters refuse.
TEST(BulletAdapterLiveFilters, FiltersChangedInAStaticLevelWithoutSetAabb) {
  World w(BroadphaseKind::agrid, {}, btVector3(0, -10, 0));
  w.world().setForceUpdateAllAabbs(false);
  Rng rng(93);
  auto* pillar = w.own(std::make_unique<btBoxShape>(btVector3(0.5f, 0.5f, 0.5f)));
  std::vector<btRigidBody*> statics;
  for (float x = 0; x < 15; ++x) {
    for (float z = 0; z < 15; ++z) {  // two apart: no static overlaps another
      statics.push_back(w.add_body(pillar, 0, btTransform(btQuaternion::getIdentity(), btVector3(2 * x, 0, 2 * z))));
    }
  }
  auto* ball = w.own(std::make_unique<btSphereShape>(0.6f));
  for (int i = 0; i < 120; ++i) {
    const btVector3 at(uniform(rng, 0, 28), uniform(rng, 2, 12), uniform(rng, 0, 28));
    w.add_body(ball, 1, btTransform(btQuaternion::getIdentity(), at))->setActivationState(DISABLE_DEACTIVATION);
  }
  std::size_t refused_now = 0;
  ASSERT_NO_FATAL_FAILURE(run_checked(w, 90, [&](int) {
    for (int k = 0; k < 15; ++k) {
      btBroadphaseProxy* p = statics[rng.below(static_cast<std::uint32_t>(statics.size()))]->getBroadphaseHandle();
      p->m_collisionFilterMask = rng.chance(0.3) ? 0 : ~btBroadphaseProxy::StaticFilter;
    }
  }));
  for (btRigidBody* s : statics) refused_now += s->getBroadphaseHandle()->m_collisionFilterMask == 0;
  EXPECT_GT(refused_now, 20u) << "no static refuses the balls: the test lost its teeth";
  EXPECT_GT(w.cache().getNumOverlappingPairs(), 20) << "the balls touch nothing: the test lost its teeth";
}

// setWatchFiltersAtRest(false): a filter widened on two static boxes that touch is not seen
// while they get no setAabb (as with dbvt, which never pairs two objects at rest again); it is
// seen at the next step once the watch is on, or once one of them gets a setAabb.
TEST(BulletAdapterLiveFilters, UnwatchedFiltersAtRestAreSeenAtTheirSetAabb) {
  for (const bool turn_watch_on : {true, false}) {
    SCOPED_TRACE(turn_watch_on ? "the watch turned on" : "setAabb given to one");
    World w(BroadphaseKind::agrid, {}, btVector3(0, -10, 0));
    w.world().setForceUpdateAllAabbs(false);
    w.grid()->setWatchFiltersAtRest(false);
    EXPECT_FALSE(w.grid()->getWatchFiltersAtRest());
    auto* slab = w.own(std::make_unique<btBoxShape>(btVector3(1, 0.5f, 1)));
    btRigidBody* a = w.add_body(slab, 0, btTransform(btQuaternion::getIdentity(), btVector3(0, 0, 0)));
    btRigidBody* b = w.add_body(slab, 0, btTransform(btQuaternion::getIdentity(), btVector3(2, 0, 0)));  // touching
    w.step(5);
    btBroadphaseProxy* pa = a->getBroadphaseHandle();
    btBroadphaseProxy* pb = b->getBroadphaseHandle();
    ASSERT_EQ(w.cache().findPair(pa, pb), nullptr) << "static objects refuse each other by default";
    pa->m_collisionFilterMask = pb->m_collisionFilterMask = btBroadphaseProxy::AllFilter;
    w.step(5);
    EXPECT_EQ(w.cache().findPair(pa, pb), nullptr) << "unwatched: nothing moved, nothing seen";
    if (turn_watch_on) {
      w.grid()->setWatchFiltersAtRest(true);
      w.step();
    } else {
      w.world().updateSingleAabb(a);  // its box, unchanged, through setAabb
      w.step();
    }
    EXPECT_NE(w.cache().findPair(pa, pb), nullptr) << "the widened filters were never seen";
  }
}

/// Accepts pairs unless both objects have user index 7 (or, with `allow_sevens`, any pair);
/// ignores groups and masks.
struct SevensCallback : btOverlapFilterCallback {
  bool allow_sevens = false;
  bool needBroadphaseCollision(btBroadphaseProxy* p0, btBroadphaseProxy* p1) const override {
    const auto* a = static_cast<const btCollisionObject*>(p0->m_clientObject);
    const auto* b = static_cast<const btCollisionObject*>(p1->m_clientObject);
    return allow_sevens || !(a->getUserIndex() == 7 && b->getUserIndex() == 7);
  }
};

/// Accepts pairs whose groups meet each other's masks and of which neither has user index 5.
struct NoFivesCallback : btOverlapFilterCallback {
  bool needBroadphaseCollision(btBroadphaseProxy* p0, btBroadphaseProxy* p1) const override {
    const auto* a = static_cast<const btCollisionObject*>(p0->m_clientObject);
    const auto* b = static_cast<const btCollisionObject*>(p1->m_clientObject);
    return default_filter(p0, p1) && a->getUserIndex() != 5 && b->getUserIndex() != 5;
  }
};

// A filter callback installed, replaced by a narrower one, changed to accept more (its own
// state), groups changed while it decides, and removed: the cache is exact at every step,
// including the step of each change.
TEST(BulletAdapterLiveFilters, FilterCallbackInstalledChangedAndRemoved) {
  World w;
  Rng rng(92);
  add_room(w, 8);
  std::vector<btRigidBody*> bodies =
      add_random_bodies(w, rng, {.count = 500, .spread = 7.5f, .y_lo = -7.5f, .y_hi = 7.5f, .speed = 4, .never_sleep = true});
  for (btRigidBody* b : bodies) {
    b->setUserIndex(rng.chance(0.4) ? 7 : rng.chance(0.3) ? 5 : 0);
    b->getBroadphaseHandle()->m_collisionFilterGroup = 4 << rng.below(3);  // groups that refuse each other
    b->getBroadphaseHandle()->m_collisionFilterMask = b->getBroadphaseHandle()->m_collisionFilterGroup;
  }
  SevensCallback sevens;
  NoFivesCallback no_fives;
  btOverlapFilterCallback* installed = nullptr;
  const PairFilter live = [&](const btBroadphaseProxy* a, const btBroadphaseProxy* b) {
    return installed != nullptr ? installed->needBroadphaseCollision(const_cast<btBroadphaseProxy*>(a),
                                                                    const_cast<btBroadphaseProxy*>(b))
                                : default_filter(a, b);
  };
  auto install = [&](btOverlapFilterCallback* callback) {
    installed = callback;
    w.cache().setOverlapFilterCallback(callback);
  };
  std::size_t accepted_at_install = 0;
  std::size_t accepted_when_sevens_allowed = 0;
  ASSERT_NO_FATAL_FAILURE(run_checked(
      w, 100,
      [&](int step) {
        if (step == 15) accepted_at_install = cache_pairs(w.cache()).size();
        if (step == 15) install(&sevens);
        if (step == 30) install(&no_fives);
        if (step == 45) install(&sevens);
        if (step == 55) sevens.allow_sevens = true;  // widens on its own
        if (step == 65) accepted_when_sevens_allowed = cache_pairs(w.cache()).size();
        if (step == 70) {  // groups change while the callback decides (it ignores them)
          for (int k = 0; k < 50; ++k) bodies[rng.below(500)]->getBroadphaseHandle()->m_collisionFilterGroup = 1;
        }
        if (step == 80) install(&no_fives);  // reads the groups changed above
        if (step == 90) install(nullptr);
      },
      live));
  EXPECT_GT(accepted_when_sevens_allowed, accepted_at_install + 50) << "the callbacks did not change the pairs";
}

/// Removes `victim` from the cache and adds the pair (far_a, far_b), whose AABBs do not overlap:
/// the pair count does not change.
void pair_surgery(World& w, const btBroadphasePair& victim, btCollisionObject* far_a, btCollisionObject* far_b) {
  btBroadphaseProxy* a = victim.m_pProxy0;
  btBroadphaseProxy* b = victim.m_pProxy1;
  const int before = w.cache().getNumOverlappingPairs();
  w.cache().removeOverlappingPair(a, b, &w.dispatcher());
  ASSERT_NE(w.cache().addOverlappingPair(far_a->getBroadphaseHandle(), far_b->getBroadphaseHandle()), nullptr);
  ASSERT_EQ(w.cache().getNumOverlappingPairs(), before);
}

// The case: every step the user removes the pair of a box resting on the ground and
// adds an unrelated pair; the box must rest (not fall through), and the cache be exact after
// every step, with the adapter's own cache and with a btHashedOverlappingPairCache of the user's.
TEST(BulletAdapterPairSurgery, RemovedPairComesBackWhenAnotherIsAdded) {
  for (const bool user_cache : {false, true}) {
    SCOPED_TRACE(user_cache ? "user's cache" : "adapter's cache");
    World w(BroadphaseKind::agrid, {}, btVector3(0, -10, 0),
            user_cache ? std::make_unique<btHashedOverlappingPairCache>() : nullptr);
    auto* ground_shape = w.own(std::make_unique<btBoxShape>(btVector3(5, 0.5f, 5)));
    btRigidBody* ground = w.add_body(ground_shape, 0, btTransform(btQuaternion::getIdentity(), btVector3(0, -0.5f, 0)));
    auto* box_shape = w.own(std::make_unique<btBoxShape>(btVector3(0.5f, 0.5f, 0.5f)));
    btRigidBody* box = w.add_body(box_shape, 1, btTransform(btQuaternion::getIdentity(), btVector3(0, 0.5f, 0)));
    box->setActivationState(DISABLE_DEACTIVATION);
    btRigidBody* far_a = w.add_body(box_shape, 0, btTransform(btQuaternion::getIdentity(), btVector3(20, 0, 0)));
    btRigidBody* far_b = w.add_body(box_shape, 0, btTransform(btQuaternion::getIdentity(), btVector3(-20, 0, 0)));
    // far_b may pair with far_a (static objects refuse each other by default).
    far_b->getBroadphaseHandle()->m_collisionFilterGroup = btBroadphaseProxy::DefaultFilter;
    far_b->getBroadphaseHandle()->m_collisionFilterMask = btBroadphaseProxy::AllFilter;
    w.step(5);
    ASSERT_NE(w.cache().findPair(box->getBroadphaseHandle(), ground->getBroadphaseHandle()), nullptr);
    ASSERT_NO_FATAL_FAILURE(run_checked(w, 120, [&](int) {
      btBroadphasePair* victim = w.cache().findPair(box->getBroadphaseHandle(), ground->getBroadphaseHandle());
      ASSERT_NE(victim, nullptr) << "the pair was not restored";
      pair_surgery(w, *victim, far_a, far_b);
    }));
    EXPECT_NEAR(box->getWorldTransform().getOrigin().y(), 0.5f, 0.05f) << "the box fell through the ground";
  }
}

// Random surgery in a busy world: each step the user removes a few pairs, adds as many pairs of
// objects that do not overlap, and sometimes purges an object's pairs; with either cache.
TEST(BulletAdapterPairSurgery, RandomRemovalsAndAdditions) {
  for (const bool user_cache : {false, true}) {
    SCOPED_TRACE(user_cache ? "user's cache" : "adapter's cache");
    World w(BroadphaseKind::agrid, {}, btVector3(0, 0, 0), user_cache ? std::make_unique<btHashedOverlappingPairCache>() : nullptr);
    Rng rng(93);
    add_room(w, 7);
    add_random_bodies(w, rng, {.count = 500, .spread = 6.5f, .y_lo = -6.5f, .y_hi = 6.5f, .speed = 3, .never_sleep = true});
    const btCollisionObjectArray& objects = w.world().getCollisionObjectArray();
    auto random_proxy = [&] {
      return objects[static_cast<int>(rng.below(static_cast<std::uint32_t>(objects.size())))]->getBroadphaseHandle();
    };
    ASSERT_NO_FATAL_FAILURE(run_checked(w, 40, [&](int step) {
      if (step < 2) return;
      for (int k = 0; k < 3; ++k) {
        btBroadphasePairArray& pairs = w.cache().getOverlappingPairArray();
        if (pairs.size() == 0) break;
        const btBroadphasePair& victim = pairs[static_cast<int>(rng.below(static_cast<std::uint32_t>(pairs.size())))];
        w.cache().removeOverlappingPair(victim.m_pProxy0, victim.m_pProxy1, &w.dispatcher());
        btBroadphaseProxy* a = random_proxy();
        btBroadphaseProxy* b = random_proxy();
        if (a != b && !stored_overlap(a, b)) w.cache().addOverlappingPair(a, b);
      }
      if (step % 7 == 0) w.cache().removeOverlappingPairsContainingProxy(random_proxy(), &w.dispatcher());
    }));
  }
}

}  // namespace
}  // namespace agrid::bt_test
