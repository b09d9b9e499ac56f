// Bodies removed from real btDiscreteDynamicsWorlds, in bursts and one by one, with the
// adapter's pair cache (which removes a proxy's pairs from its own list) and with a user's cache
// (Bullet's, which walks every pair): the cache is exact after every step, ghosts see what
// overlaps them, and misuse of a destroyed proxy is refused.

#include <gtest/gtest.h>

#include <BulletCollision/CollisionDispatch/btGhostObject.h>

#include <algorithm>
#include <memory>
#include <set>
#include <stdexcept>
#include <vector>

#include "bt_world.h"

namespace agrid::bt_test {
namespace {

using agrid::test::Rng;

/// A world with a room, a crowd of bodies and, when asked, a user's Bullet cache.
std::unique_ptr<World> crowded_world(bool user_cache, Rng& rng, std::uint32_t count) {
  auto w = std::make_unique<World>(BroadphaseKind::agrid, agrid::Config{}, btVector3(0, -10, 0),
                                   user_cache ? std::make_unique<btHashedOverlappingPairCache>() : nullptr);
  add_room(*w, 8);
  add_random_bodies(*w, rng, {.count = count, .spread = 7.5f, .y_lo = -7.5f, .y_hi = 7.5f, .speed = 2});
  return w;
}

// Half the bodies removed in one step, then as many added in one step, then removed again, with
// steps between: every step exact, nothing persisting removed and re-added (check_step).
TEST(BulletAdapterRemoval, BurstsOfRemovalAndCreation) {
  for (const bool user_cache : {false, true}) {
    SCOPED_TRACE(user_cache ? "a user's btHashedOverlappingPairCache" : "the adapter's cache");
    Rng rng(401);
    auto w = crowded_world(user_cache, rng, 600);
    std::vector<btRigidBody*> burst;
    ASSERT_NO_FATAL_FAILURE(run_checked(*w, 60, [&](int step) {
      if (step == 20) {  // every other body goes
        std::vector<btRigidBody*> bodies = w->bodies();
        for (std::size_t i = 6; i < bodies.size(); i += 2) w->destroy_body(bodies[i]);
      }
      if (step == 30) burst = add_random_bodies(*w, rng, {.count = 300, .spread = 7.5f, .y_lo = -7.5f, .y_hi = 7.5f});
      if (step == 45) {
        for (btRigidBody* body : burst) w->destroy_body(body);
      }
    }));
    EXPECT_GT(w->cache().getNumOverlappingPairs(), 50) << "the crowd thinned out: the test lost its teeth";
  }
}

// One body removed every step, and one added, from a crowd where most bodies touch others.
TEST(BulletAdapterRemoval, OneByOneEveryStep) {
  Rng rng(402);
  auto w = crowded_world(false, rng, 500);
  ASSERT_NO_FATAL_FAILURE(run_checked(*w, 80, [&](int step) {
    if (step < 5) return;
    const std::vector<btRigidBody*>& bodies = w->bodies();
    w->destroy_body(bodies[6 + rng.below(static_cast<std::uint32_t>(bodies.size() - 6))]);
    add_random_bodies(*w, rng, {.count = 1, .spread = 7.5f, .y_lo = -7.5f, .y_hi = 7.5f});
  }));
}

// Removal between steps, with the pairs still in the cache: the removed body's pairs go at once
// (Bullet reads the cache before the next step), the others stay untouched.
TEST(BulletAdapterRemoval, ARemovedBodysPairsGoAtOnceAndOnlyThey) {
  Rng rng(403);
  auto w = crowded_world(false, rng, 400);
  ASSERT_NO_FATAL_FAILURE(run_checked(*w, 30));
  for (int round = 0; round < 20; ++round) {
    const std::vector<btRigidBody*>& bodies = w->bodies();
    btRigidBody* gone = bodies[6 + rng.below(static_cast<std::uint32_t>(bodies.size() - 6))];
    const int gone_id = gone->getBroadphaseHandle()->m_uniqueId;
    std::vector<IdPair> expected;
    for (const IdPair& p : cache_pairs(w->cache())) {
      if (p.first != gone_id && p.second != gone_id) expected.push_back(p);
    }
    w->destroy_body(gone);
    ASSERT_EQ(cache_pairs(w->cache()), expected) << "round " << round;
    w->step();
  }
}

// Ghost objects among bodies removed in bursts: each ghost's own pair cache holds exactly the
// objects that overlap it (btGhostPairCallback is told of every removal).
TEST(BulletAdapterRemoval, GhostsForgetRemovedBodies) {
  Rng rng(404);
  auto w = crowded_world(false, rng, 500);
  auto ghost_callback = std::make_unique<btGhostPairCallback>();
  w->events().next = ghost_callback.get();
  w->own_callback(std::move(ghost_callback));
  auto* ghost_shape = w->own(std::make_unique<btBoxShape>(btVector3(3, 3, 3)));
  std::vector<btPairCachingGhostObject*> ghosts;
  for (int i = 0; i < 2; ++i) {
    auto* ghost = w->own_object(std::make_unique<btPairCachingGhostObject>());
    ghost->setCollisionShape(ghost_shape);
    ghost->setCollisionFlags(btCollisionObject::CF_NO_CONTACT_RESPONSE);
    ghost->setWorldTransform(btTransform(btQuaternion::getIdentity(), btVector3(-3.0f + 6.0f * static_cast<float>(i), 0, 0)));
    w->world().addCollisionObject(ghost, btBroadphaseProxy::SensorTrigger,
                                  btBroadphaseProxy::AllFilter & ~btBroadphaseProxy::SensorTrigger);
    ghosts.push_back(ghost);
  }
  const auto check_ghosts = [&](int step) {
    for (btPairCachingGhostObject* ghost : ghosts) {
      std::set<const btCollisionObject*> expected;
      const btBroadphaseProxy* gp = ghost->getBroadphaseHandle();
      for (const btBroadphaseProxy* p : proxies_of(w->world())) {
        if (p != gp && stored_overlap(gp, p) && default_filter(gp, p)) {
          expected.insert(static_cast<const btCollisionObject*>(p->m_clientObject));
        }
      }
      std::set<const btCollisionObject*> seen;
      for (int k = 0; k < ghost->getNumOverlappingObjects(); ++k) seen.insert(ghost->getOverlappingObject(k));
      ASSERT_EQ(seen, expected) << "step " << step;
      ASSERT_EQ(ghost->getOverlappingPairCache()->getNumOverlappingPairs(), static_cast<int>(expected.size()));
    }
  };
  std::size_t removed_near_ghosts = 0;
  ASSERT_NO_FATAL_FAILURE(run_checked(*w, 40, [&](int step) {
    if (step > 0) check_ghosts(step - 1);
    if (step % 10 != 5) return;
    // A burst: every body a ghost holds goes, the pairs' removal reaching the ghosts at once.
    std::set<btRigidBody*> doomed;
    for (btPairCachingGhostObject* ghost : ghosts) {
      for (int k = 0; k < ghost->getNumOverlappingObjects(); ++k) {
        if (auto* body = btRigidBody::upcast(ghost->getOverlappingObject(k)); body != nullptr && body->getInvMass() > 0) {
          doomed.insert(body);
        }
      }
    }
    for (btRigidBody* body : doomed) w->destroy_body(body);
    removed_near_ghosts += doomed.size();
    for (btPairCachingGhostObject* ghost : ghosts) {
      for (int k = 0; k < ghost->getNumOverlappingObjects(); ++k) {
        ASSERT_EQ(doomed.count(const_cast<btRigidBody*>(btRigidBody::upcast(ghost->getOverlappingObject(k)))), 0u)
            << "a ghost still holds a removed body";
      }
    }
    add_random_bodies(*w, rng, {.count = static_cast<std::uint32_t>(doomed.size()), .spread = 7.5f, .y_lo = -7.5f, .y_hi = 7.5f});
  }));
  EXPECT_GT(removed_near_ghosts, 20u);
  w->events().next = nullptr;
}

// A proxy destroyed twice, or given a box after it was destroyed, is refused with
// std::invalid_argument while its slot has not been reused (until the next step); the world
// stays exact.
TEST(BulletAdapterMisuse, ADestroyedProxyIsRefused) {
  Rng rng(405);
  auto w = crowded_world(false, rng, 50);
  ASSERT_NO_FATAL_FAILURE(run_checked(*w, 5));
  btBroadphaseInterface& broadphase = w->broadphase();
  btBroadphaseProxy* stale = broadphase.createProxy(btVector3(0, 0, 0), btVector3(1, 1, 1), BOX_SHAPE_PROXYTYPE,
                                                    nullptr, 1, -1, &w->dispatcher());
  broadphase.destroyProxy(stale, &w->dispatcher());
  EXPECT_THROW(broadphase.destroyProxy(stale, &w->dispatcher()), std::invalid_argument);
  EXPECT_THROW(broadphase.setAabb(stale, btVector3(2, 2, 2), btVector3(3, 3, 3), &w->dispatcher()),
               std::invalid_argument);
  EXPECT_THROW(broadphase.destroyProxy(nullptr, &w->dispatcher()), std::invalid_argument);
  ASSERT_NO_FATAL_FAILURE(run_checked(*w, 5));
}

// Memory follows the world: 30,000 proxies in overlapping rows (so the cache's lists, agrid's
// candidates and the watched counts all hold something), then all but 10 destroyed: the next
// steps give back what agrid and the adapter held (m_bytesHeld falls below a tenth of the peak),
// and the survivors still pair exactly.
TEST(BulletAdapterMemory, BytesHeldFallWhenTheWorldShrinks) {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btAdaptiveGridBroadphase broadphase;
  constexpr int kProxies = 30000;
  constexpr int kKept = 10;
  std::vector<btBroadphaseProxy*> proxies;
  for (int i = 0; i < kProxies; ++i) {
    const btVector3 at(static_cast<btScalar>(i % 300), static_cast<btScalar>(i / 300) * 3, 0);
    proxies.push_back(broadphase.createProxy(at, at + btVector3(1.5f, 1, 1), BOX_SHAPE_PROXYTYPE, nullptr, 1, -1, &dispatcher));
  }
  for (int step = 0; step < 3; ++step) broadphase.calculateOverlappingPairs(&dispatcher);
  const std::size_t peak = broadphase.lastStepStats().m_bytesHeld;
  ASSERT_GT(broadphase.getOverlappingPairCache()->getNumOverlappingPairs(), kProxies / 2);
  for (int i = kKept; i < kProxies; ++i) broadphase.destroyProxy(proxies[i], &dispatcher);
  for (int step = 0; step < 3; ++step) broadphase.calculateOverlappingPairs(&dispatcher);
  const btAdaptiveGridBroadphaseStats& after = broadphase.lastStepStats();
  EXPECT_EQ(after.m_objects, kKept);
  EXPECT_LT(after.m_bytesHeld, peak / 10) << "peak " << peak << " bytes";
  EXPECT_EQ(broadphase.getOverlappingPairCache()->getNumOverlappingPairs(), kKept - 1);  // a row of 10 touching boxes
  for (int i = 0; i < kKept; ++i) broadphase.destroyProxy(proxies[i], &dispatcher);
}

}  // namespace
}  // namespace agrid::bt_test
