// btAdaptiveGridBroadphase in real btDiscreteDynamicsWorlds: the pair cache is exact after every
// step (brute force over the stored proxy AABBs), persisting pairs keep their algorithms and
// manifolds, and stacks and piles behave.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <vector>

#include "bt_world.h"

namespace agrid::bt_test {
namespace {

using agrid::test::Rng;

// The oracle and the event check agree with Bullet's own exact broadphase on the same scene:
// they are right, so a failure elsewhere is the adapter's.
TEST(BulletAdapterExact, OracleAgreesWithSimpleBroadphase) {
  World w(BroadphaseKind::simple);
  Rng rng(11);
  add_room(w, 6);
  add_random_bodies(w, rng, {.count = 300, .spread = 5.5f, .y_lo = -5.5f, .y_hi = 5.5f, .speed = 4.0f});
  ASSERT_NO_FATAL_FAILURE(run_checked(w, 40));
  EXPECT_GT(w.cache().getNumOverlappingPairs(), 100);
}

TEST(BulletAdapterExact, MovingBodiesEveryStep) {
  World w;
  Rng rng(1);
  add_room(w, 10);
  add_random_bodies(w, rng,
                    {.count = 1500, .spread = 9.5f, .y_lo = -9.5f, .y_hi = 9.5f, .speed = 5.0f, .never_sleep = true});
  ASSERT_NO_FATAL_FAILURE(run_checked(w, 150));
  EXPECT_GT(w.cache().getNumOverlappingPairs(), 200);
  EXPECT_EQ(w.grid()->broadphase().stats().objects, 1506u);
  EXPECT_EQ(w.grid()->broadphase().stats().invalid, 0u);
}

// The same on two threads with the tree of grids (tree_min_boxes lowered under the moving set).
TEST(BulletAdapterExact, MovingBodiesEveryStepOnTwoThreads) {
  agrid::test::in_arena(2, [] {
    agrid::Config config;
    config.tree_min_boxes = 500;
    config.fat_margin = 0;  // every body re-enters the structure each step: the tree finds the pairs
    World w(BroadphaseKind::agrid, config);
    Rng rng(5);
    add_room(w, 10);
    add_random_bodies(w, rng,
                      {.count = 1200, .spread = 9.5f, .y_lo = -9.5f, .y_hi = 9.5f, .speed = 5.0f, .never_sleep = true});
    ASSERT_NO_FATAL_FAILURE(run_checked(w, 80));
    EXPECT_GE(w.grid()->broadphase().stats().moving, config.tree_min_boxes);  // the tree found the pairs
  });
}

// A pile falls on a static plane (AABB +-1e18 on every axis) and falls asleep: sleeping and
// static objects go to agrid's resting tree, and their pairs stay. Then new bodies fall on the
// sleeping pile and wake parts of it.
TEST(BulletAdapterExact, SleepingPileOnStaticPlane) {
  World w(BroadphaseKind::agrid, {}, btVector3(0, -10, 0));
  Rng rng(2);
  auto* plane = w.own(std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), 0));
  w.add_body(plane, 0, btTransform::getIdentity());
  auto* ramp = w.own(std::make_unique<btBoxShape>(btVector3(3, 0.2f, 3)));
  w.add_body(ramp, 0, btTransform(btQuaternion(btVector3(1, 0, 0), 0.3f), btVector3(4, 1, 4)));
  add_random_bodies(w, rng, {.count = 400, .spread = 18, .y_lo = 0.5f, .y_hi = 5, .boxes_only = true});
  std::uint32_t most_resting = 0;
  int most_sleeping = 0;
  ASSERT_NO_FATAL_FAILURE(run_checked(w, 400, [&](int s) {
    const BroadphaseStats stats = w.grid()->broadphase().stats();
    most_resting = std::max(most_resting, stats.resting);
    if (s == 320) {
      Rng more(3);
      add_random_bodies(w, more, {.count = 30, .spread = 6, .y_lo = 3, .y_hi = 6, .speed = 2, .boxes_only = true});
    }
    int sleeping = 0;
    for (const btRigidBody* b : w.bodies()) sleeping += b->getActivationState() == ISLAND_SLEEPING;
    most_sleeping = std::max(most_sleeping, sleeping);
  }));
  // The scene really exercised sleeping bodies and the resting tree.
  EXPECT_GT(most_sleeping, 300);
  EXPECT_GT(most_resting, 200u);
  btVector3 lo;
  btVector3 hi;
  w.broadphase().getBroadphaseAabb(lo, hi);
  EXPECT_LE(lo.y(), -1e17f);
  EXPECT_GE(hi.y(), 1e17f);
}

// Bodies are added, removed, removed and re-added, refreshed and teleported between steps,
// among a field of static boxes (the resting tree, whose members also come and go).
TEST(BulletAdapterExact, AddsRemovesRefreshesAndTeleports) {
  World w;
  Rng rng(4);
  add_room(w, 9);
  auto* small = w.own(std::make_unique<btBoxShape>(btVector3(0.4f, 0.4f, 0.4f)));
  std::vector<btRigidBody*> statics;
  auto add_static = [&] {
    const btVector3 at(uniform(rng, -8.5, 8.5), uniform(rng, -8.5, 8.5), uniform(rng, -8.5, 8.5));
    statics.push_back(w.add_body(small, 0, btTransform(random_rotation(rng), at)));
  };
  for (int i = 0; i < 400; ++i) add_static();
  std::vector<btRigidBody*> moving =
      add_random_bodies(w, rng, {.count = 400, .spread = 8.5f, .y_lo = -8.5f, .y_hi = 8.5f, .speed = 4});
  std::uint32_t most_resting = 0;
  ASSERT_NO_FATAL_FAILURE(run_checked(w, 200, [&](int s) {
    most_resting = std::max(most_resting, w.grid()->broadphase().stats().resting);
    auto pick = [&](std::vector<btRigidBody*>& from) {
      const std::uint32_t i = rng.below(static_cast<std::uint32_t>(from.size()));
      btRigidBody* b = from[i];
      from.erase(from.begin() + i);
      return b;
    };
    for (int i = 0; i < 4; ++i) w.destroy_body(pick(moving));
    for (btRigidBody* b :
         add_random_bodies(w, rng, {.count = 4, .spread = 8.5f, .y_lo = -8.5f, .y_hi = 8.5f, .speed = 4})) {
      moving.push_back(b);
    }
    if (s % 10 == 5) {
      for (int i = 0; i < 20; ++i) w.destroy_body(pick(statics));
      for (int i = 0; i < 20; ++i) add_static();
    }
    for (int i = 0; i < 2; ++i) {
      w.world().refreshBroadphaseProxy(moving[rng.below(static_cast<std::uint32_t>(moving.size()))]);
      w.world().refreshBroadphaseProxy(statics[rng.below(static_cast<std::uint32_t>(statics.size()))]);
    }
    for (int i = 0; i < 2; ++i) {
      btRigidBody* b = moving[rng.below(static_cast<std::uint32_t>(moving.size()))];
      const btTransform t(random_rotation(rng), btVector3(uniform(rng, -8, 8), uniform(rng, -8, 8), uniform(rng, -8, 8)));
      b->setWorldTransform(t);
      b->setInterpolationWorldTransform(t);
      b->activate(true);
    }
    if (s % 25 == 0) {  // the same object out and back in, in one step and over a step
      btRigidBody* b = moving[rng.below(static_cast<std::uint32_t>(moving.size()))];
      w.world().removeRigidBody(b);
      w.world().addRigidBody(b);
      btRigidBody* st = statics[rng.below(static_cast<std::uint32_t>(statics.size()))];
      w.world().removeRigidBody(st);
      w.world().addRigidBody(st);
    }
  }));
  EXPECT_GT(most_resting, 256u);
  EXPECT_EQ(w.grid()->broadphase().stats().objects, static_cast<std::uint32_t>(w.world().getNumCollisionObjects()));
}

// A box resting on the ground keeps the same btBroadphasePair, collision algorithm and
// persistent manifold from step 10 to step 100, and its contact points age.
TEST(BulletAdapterExact, ProxiesDestroyedBeforeTheFirstUpdateLeaveNoTrace) {
  // Created and destroyed before any calculateOverlappingPairs: its handle is reused only after
  // the update, and no pair with it ever reaches the cache.
  btAdaptiveGridBroadphase broadphase;
  const btVector3 lo(0, 0, 0), hi(1, 1, 1);
  btBroadphaseProxy* a = broadphase.createProxy(lo, hi, BOX_SHAPE_PROXYTYPE, nullptr, 1, -1, nullptr);
  btBroadphaseProxy* b = broadphase.createProxy(lo, hi, BOX_SHAPE_PROXYTYPE, nullptr, 1, -1, nullptr);
  broadphase.destroyProxy(b, nullptr);
  btBroadphaseProxy* c = broadphase.createProxy(lo, hi, BOX_SHAPE_PROXYTYPE, nullptr, 1, -1, nullptr);
  broadphase.calculateOverlappingPairs(nullptr);
  btOverlappingPairCache* cache = broadphase.getOverlappingPairCache();
  ASSERT_EQ(cache->getNumOverlappingPairs(), 1);
  EXPECT_NE(cache->findPair(a, c), nullptr);
  btBroadphaseProxy* d = broadphase.createProxy(lo, hi, BOX_SHAPE_PROXYTYPE, nullptr, 1, -1, nullptr);
  broadphase.calculateOverlappingPairs(nullptr);
  EXPECT_EQ(cache->getNumOverlappingPairs(), 3);
  EXPECT_GT(d->m_uniqueId, c->m_uniqueId);  // ids are never reused
  broadphase.destroyProxy(d, nullptr);
  broadphase.destroyProxy(c, nullptr);
  broadphase.calculateOverlappingPairs(nullptr);
  EXPECT_EQ(cache->getNumOverlappingPairs(), 0);
  broadphase.destroyProxy(a, nullptr);
}

TEST(BulletAdapterPersistence, BoxOnGroundKeepsAlgorithmAndManifold) {
  World w(BroadphaseKind::agrid, {}, btVector3(0, -10, 0));
  auto* ground_shape = w.own(std::make_unique<btBoxShape>(btVector3(20, 0.5f, 20)));
  btRigidBody* ground = w.add_body(ground_shape, 0, btTransform(btQuaternion::getIdentity(), btVector3(0, -0.5f, 0)));
  auto* box_shape = w.own(std::make_unique<btBoxShape>(btVector3(0.5f, 0.5f, 0.5f)));
  btRigidBody* box = w.add_body(box_shape, 1, btTransform(btQuaternion::getIdentity(), btVector3(0, 0.5f, 0)));
  // Neighbours that come and go, so that the cache really changes around the pair.
  auto* ball_shape = w.own(std::make_unique<btSphereShape>(0.3f));
  for (int i = 0; i < 20; ++i) {
    btRigidBody* ball = w.add_body(ball_shape, 1, btTransform(btQuaternion::getIdentity(), btVector3(2.0f + 0.7f * static_cast<float>(i), 3, 3)));
    ball->setLinearVelocity(btVector3(0, 0, -3));
  }
  PairEventLog& log = w.events();
  w.log_events(true);
  w.step(10);
  btBroadphasePair* pair = w.cache().findPair(box->getBroadphaseHandle(), ground->getBroadphaseHandle());
  ASSERT_NE(pair, nullptr);
  ASSERT_NE(pair->m_algorithm, nullptr);
  btCollisionAlgorithm* algorithm = pair->m_algorithm;
  btManifoldArray manifolds;
  algorithm->getAllContactManifolds(manifolds);
  ASSERT_EQ(manifolds.size(), 1);
  btPersistentManifold* manifold = manifolds[0];
  const IdPair ids(std::min(box->getBroadphaseHandle()->m_uniqueId, ground->getBroadphaseHandle()->m_uniqueId),
                   std::max(box->getBroadphaseHandle()->m_uniqueId, ground->getBroadphaseHandle()->m_uniqueId));
  log.clear();
  for (int s = 11; s <= 100; ++s) {
    w.step();
    pair = w.cache().findPair(box->getBroadphaseHandle(), ground->getBroadphaseHandle());
    ASSERT_NE(pair, nullptr) << "step " << s;
    ASSERT_EQ(pair->m_algorithm, algorithm) << "step " << s;
    manifolds.clear();
    pair->m_algorithm->getAllContactManifolds(manifolds);
    ASSERT_EQ(manifolds.size(), 1) << "step " << s;
    ASSERT_EQ(manifolds[0], manifold) << "step " << s;
    ASSERT_GT(manifold->getNumContacts(), 0) << "step " << s;
  }
  EXPECT_EQ(std::count(log.removed.begin(), log.removed.end(), ids), 0);
  EXPECT_EQ(std::count(log.added.begin(), log.added.end(), ids), 0);
  int oldest = 0;
  for (int i = 0; i < manifold->getNumContacts(); ++i) oldest = std::max(oldest, manifold->getContactPoint(i).getLifeTime());
  EXPECT_GE(oldest, 85);
  EXPECT_GT(log.added.size(), 0u);  // the neighbours did make the cache change
}

// Bodies jittering in place, as a settling stack does: weightless boxes (never asleep, too far
// apart for contacts) in a lattice whose AABBs
// overlap, touch or just miss, each moved by up to 1e-4 every step for 100 steps. The cache is
// exact after every step, only pairs that really began or ended are added or removed, and
// pairs that persist keep their algorithm object.
TEST(BulletAdapterPersistence, JitteringBodiesKeepExactPairsAndAlgorithms) {
  constexpr int kSide = 7;  // 343 bodies: enough for agrid's resting tree to be built
  constexpr float kJitter = 1e-4f;
  agrid::Config config;
  config.fat_margin = 0.1f;  // holds the jitter: the bodies rest
  World w(BroadphaseKind::agrid, config);
  Rng rng(21);
  auto* cube = w.own(std::make_unique<btBoxShape>(btVector3(0.5f, 0.5f, 0.5f)));
  std::vector<btRigidBody*> bodies;
  std::vector<btVector3> homes;
  float aabb_edge = 0;  // as the world makes it: the shape's AABB plus the contact threshold
  for (int i = 0; i < kSide * kSide * kSide; ++i) {
    if (i == 1) {
      const btBroadphaseProxy* first = bodies[0]->getBroadphaseHandle();
      aabb_edge = static_cast<float>(first->m_aabbMax.x() - first->m_aabbMin.x());
    }
    const int x = i % kSide, y = i / kSide % kSide, z = i / (kSide * kSide);
    const float spacing = aabb_edge + kJitter * static_cast<float>((x + y + z) % 3 - 1);  // overlap, touch, miss
    homes.emplace_back(spacing * static_cast<float>(x), spacing * static_cast<float>(y), spacing * static_cast<float>(z));
    bodies.push_back(w.add_body(cube, 1, btTransform(btQuaternion::getIdentity(), homes.back())));
    bodies.back()->setActivationState(DISABLE_DEACTIVATION);
  }
  std::map<IdPair, btCollisionAlgorithm*> algorithms;
  int kept = 0;
  ASSERT_NO_FATAL_FAILURE(run_checked(w, 100, [&](int) {
    // Algorithms of the pairs as the last step left them; a pair that persists must keep its own.
    const btBroadphasePairArray& cached = w.cache().getOverlappingPairArray();
    for (int i = 0; i < cached.size(); ++i) {
      const IdPair ids(cached[i].m_pProxy0->m_uniqueId, cached[i].m_pProxy1->m_uniqueId);
      const auto known = algorithms.find(ids);
      if (known != algorithms.end() && known->second != nullptr && cached[i].m_algorithm != nullptr) {
        EXPECT_EQ(known->second, cached[i].m_algorithm);
        ++kept;
      }
    }
    algorithms.clear();
    for (int i = 0; i < cached.size(); ++i) {
      algorithms[IdPair(cached[i].m_pProxy0->m_uniqueId, cached[i].m_pProxy1->m_uniqueId)] = cached[i].m_algorithm;
    }
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      const btVector3 d(uniform(rng, -kJitter, kJitter), uniform(rng, -kJitter, kJitter), uniform(rng, -kJitter, kJitter));
      bodies[i]->setWorldTransform(btTransform(btQuaternion::getIdentity(), homes[i] + d));
    }
  }));
  EXPECT_GT(kept, 1000) << "pairs should persist through the jitter";
  EXPECT_EQ(w.grid()->broadphase().stats().moving, 0u) << "jittering bodies should rest in their fat boxes";
}

// Ten 1 m boxes stacked on the ground stand for 10 s (600 steps): warm-started contacts survive.
// (The stack drifts sideways by about 0.55 with every broadphase, dbvt and simple included: only
// the height is checked.)
TEST(BulletAdapterPersistence, StackOfTenStands) {
  World w(BroadphaseKind::agrid, {}, btVector3(0, -10, 0));
  auto* ground_shape = w.own(std::make_unique<btBoxShape>(btVector3(20, 0.5f, 20)));
  w.add_body(ground_shape, 0, btTransform(btQuaternion::getIdentity(), btVector3(0, -0.5f, 0)));
  auto* box_shape = w.own(std::make_unique<btBoxShape>(btVector3(0.5f, 0.5f, 0.5f)));
  std::vector<btRigidBody*> stack;
  for (int i = 0; i < 10; ++i) {
    stack.push_back(w.add_body(box_shape, 1, btTransform(btQuaternion::getIdentity(), btVector3(0, 0.5f + static_cast<float>(i), 0))));
    stack.back()->setActivationState(DISABLE_DEACTIVATION);  // keep it solving all 10 s
  }
  const btVector3 top_start = stack.back()->getWorldTransform().getOrigin();
  for (int s = 0; s < 600; ++s) {
    w.step();
    const btVector3 top = stack.back()->getWorldTransform().getOrigin();
    ASSERT_NEAR(top.y(), top_start.y(), 0.1f) << "step " << s;
  }
}

// A small pyramid settles and goes to sleep; its pairs stay while it sleeps.
TEST(BulletAdapterPersistence, PyramidSettlesAndSleeps) {
  World w(BroadphaseKind::agrid, {}, btVector3(0, -10, 0));
  auto* plane = w.own(std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), 0));
  w.add_body(plane, 0, btTransform::getIdentity());
  auto* box_shape = w.own(std::make_unique<btBoxShape>(btVector3(0.5f, 0.5f, 0.5f)));
  std::vector<btRigidBody*> boxes;
  const int base = 5;
  for (int row = 0; row < base; ++row) {
    for (int i = 0; i < base - row; ++i) {
      const float x = (static_cast<float>(i) - 0.5f * static_cast<float>(base - row - 1)) * 1.02f;
      boxes.push_back(w.add_body(box_shape, 1, btTransform(btQuaternion::getIdentity(), btVector3(x, 0.5f + static_cast<float>(row), 0))));
    }
  }
  const float top_start = boxes.back()->getWorldTransform().getOrigin().y();
  w.step(480);
  for (const btRigidBody* b : boxes) {
    EXPECT_FALSE(b->isActive()) << "box " << b->getUserIndex2() << " state " << b->getActivationState();
    EXPECT_EQ(b->getActivationState(), ISLAND_SLEEPING);
  }
  EXPECT_NEAR(boxes.back()->getWorldTransform().getOrigin().y(), top_start, 0.1f);
  // Asleep, the pyramid keeps its pairs: the cache is still exact.
  std::vector<IdPair> now;
  const std::vector<IdPair> before = cache_pairs(w.cache());
  PairEventLog& log = w.events();
  w.log_events(true);
  log.clear();
  w.step(30);
  EXPECT_TRUE(check_step(w, before, now, log));
  EXPECT_TRUE(log.added.empty());
  EXPECT_TRUE(log.removed.empty());
  EXPECT_GE(now.size(), 14u);  // 5 on the plane, and the rows on each other
}

}  // namespace
}  // namespace agrid::bt_test
