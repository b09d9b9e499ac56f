// btAdaptiveGridBroadphase::lastStepStats: the counts of a step (setAabb calls, pairs begun and
// ended, pairs held) equal what was done and what the pair cache saw, and the times are
// positive and finite; setAabb is timed only when asked.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "bt_world.h"

namespace agrid::bt_test {
namespace {

using agrid::test::Rng;

/// Positive and finite: a time that was measured.
::testing::AssertionResult measured(double seconds) {
  if (seconds > 0 && std::isfinite(seconds)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << seconds << " s is not a measured time";
}

/// A broadphase driven by hand, with proxies of plain collision objects.
class BulletAdapterStatsByHand : public ::testing::Test {
 protected:
  btBroadphaseProxy* add(const btVector3& lo, const btVector3& hi) {
    objects_.push_back(std::make_unique<btCollisionObject>());
    return bp_.createProxy(lo, hi, BOX_SHAPE_PROXYTYPE, objects_.back().get(), btBroadphaseProxy::DefaultFilter,
                           btBroadphaseProxy::AllFilter, &dispatcher_);
  }
  const btAdaptiveGridBroadphaseStats& step() {
    bp_.calculateOverlappingPairs(&dispatcher_);
    return bp_.lastStepStats();
  }

  btDefaultCollisionConfiguration configuration_;
  btCollisionDispatcher dispatcher_{&configuration_};
  btAdaptiveGridBroadphase bp_;
  std::vector<std::unique_ptr<btCollisionObject>> objects_;
};

TEST_F(BulletAdapterStatsByHand, StatsAreZeroBeforeTheFirstStep) {
  const btAdaptiveGridBroadphaseStats& s = bp_.lastStepStats();
  EXPECT_EQ(s.m_calculateOverlappingPairsSeconds, 0.0);
  EXPECT_EQ(s.m_setAabbObjects, 0);
  EXPECT_EQ(s.m_setAabbSeconds, 0.0);
  EXPECT_EQ(s.m_pairsBegan, 0);
  EXPECT_EQ(s.m_pairsEnded, 0);
  EXPECT_EQ(s.m_pairs, 0);
  EXPECT_FALSE(bp_.getTimeSetAabbCalls());
}

TEST_F(BulletAdapterStatsByHand, EachStepCountsItsOwnCallsAndPairChanges) {
  btBroadphaseProxy* a = add(btVector3(0, 0, 0), btVector3(1, 1, 1));
  btBroadphaseProxy* b = add(btVector3(0.5f, 0.5f, 0.5f), btVector3(1.5f, 1.5f, 1.5f));
  btBroadphaseProxy* c = add(btVector3(10, 10, 10), btVector3(11, 11, 11));
  btBroadphaseProxy* d = add(btVector3(20, 20, 20), btVector3(21, 21, 21));

  const btAdaptiveGridBroadphaseStats* s = &step();  // a-b begins
  EXPECT_EQ(s->m_setAabbObjects, 4);                 // the objects created count as updated
  EXPECT_EQ(s->m_pairsBegan, 1);
  EXPECT_EQ(s->m_pairsEnded, 0);
  EXPECT_EQ(s->m_pairs, 1);
  EXPECT_TRUE(measured(s->m_calculateOverlappingPairsSeconds));
  EXPECT_EQ(s->m_setAabbSeconds, 0.0);  // not timed unless asked

  // Four calls on three objects: one unchanged (still counted), b leaves a, c reaches d in two
  // calls (one object).
  bp_.setAabb(a, btVector3(0, 0, 0), btVector3(1, 1, 1), &dispatcher_);
  bp_.setAabb(c, btVector3(15, 15, 15), btVector3(16, 16, 16), &dispatcher_);
  bp_.setAabb(b, btVector3(5, 5, 5), btVector3(6, 6, 6), &dispatcher_);
  bp_.setAabb(c, btVector3(19.5f, 19.5f, 19.5f), btVector3(20.5f, 20.5f, 20.5f), &dispatcher_);
  s = &step();
  EXPECT_EQ(s->m_setAabbObjects, 3);
  EXPECT_EQ(s->m_pairsBegan, 1);
  EXPECT_EQ(s->m_pairsEnded, 1);
  EXPECT_EQ(s->m_pairs, 1);

  s = &step();  // nothing changed: the last step's calls are not counted again
  EXPECT_EQ(s->m_setAabbObjects, 0);
  EXPECT_EQ(s->m_pairsBegan, 0);
  EXPECT_EQ(s->m_pairsEnded, 0);
  EXPECT_EQ(s->m_pairs, 1);

  // destroyProxy removes c-d from the cache at once: the step removes nothing more.
  bp_.destroyProxy(d, &dispatcher_);
  EXPECT_EQ(bp_.getOverlappingPairCache()->getNumOverlappingPairs(), 0);
  s = &step();
  EXPECT_EQ(s->m_pairsEnded, 0);
  EXPECT_EQ(s->m_pairs, 0);

  // A pair someone else adds whose boxes are apart is removed by the next step, and counted.
  bp_.getOverlappingPairCache()->addOverlappingPair(a, c);
  s = &step();
  EXPECT_EQ(s->m_pairsBegan, 0);
  EXPECT_EQ(s->m_pairsEnded, 1);
  EXPECT_EQ(s->m_pairs, 0);
}

TEST_F(BulletAdapterStatsByHand, SetAabbIsTimedWhenAsked) {
  btBroadphaseProxy* a = add(btVector3(0, 0, 0), btVector3(1, 1, 1));
  bp_.setTimeSetAabbCalls(true);
  EXPECT_TRUE(bp_.getTimeSetAabbCalls());
  constexpr int kCalls = 10;
  for (int i = 0; i < kCalls; ++i) {
    const btVector3 at(static_cast<btScalar>(i), 0, 0);
    bp_.setAabb(a, at, at + btVector3(1, 1, 1), &dispatcher_);
  }
  const btAdaptiveGridBroadphaseStats& s = step();
  EXPECT_EQ(s.m_setAabbObjects, 1);  // one object, however many calls
  EXPECT_TRUE(measured(s.m_setAabbSeconds));
  EXPECT_TRUE(measured(s.m_calculateOverlappingPairsSeconds));
  bp_.setTimeSetAabbCalls(false);
  bp_.setAabb(a, btVector3(0, 0, 0), btVector3(1, 1, 1), &dispatcher_);
  EXPECT_EQ(step().m_setAabbSeconds, 0.0);
}

// In a world: each step's objects given setAabb are the bodies Bullet updates (the active ones,
// with setForceUpdateAllAabbs(false); all of them by default) or, in the first step, creates; and its pairs begun and ended are
// exactly the cache's adds and removes in that step.
void run_world(bool force_update_all) {
  World w;
  w.world().setForceUpdateAllAabbs(force_update_all);
  w.grid()->setTimeSetAabbCalls(true);
  Rng rng(26);
  add_room(w, 8);
  add_random_bodies(w, rng, {.count = 300, .spread = 7.5f, .y_lo = -7.5f, .y_hi = 7.5f, .speed = 4.0f, .never_sleep = true});
  w.log_events(true);
  int began = 0;
  int ended = 0;
  constexpr int kSteps = 60;
  for (int step = 0; step < kSteps; ++step) {
    int updated = 0;
    for (const btRigidBody* body : w.bodies()) updated += force_update_all || body->isActive();
    if (step == 0) updated = w.world().getNumCollisionObjects();  // all created in this step
    w.events().clear();
    w.step();
    const btAdaptiveGridBroadphaseStats& s = w.grid()->lastStepStats();
    ASSERT_EQ(s.m_setAabbObjects, updated) << "step " << step;
    ASSERT_EQ(s.m_pairsBegan, static_cast<int>(w.events().added.size())) << "step " << step;
    ASSERT_EQ(s.m_pairsEnded, static_cast<int>(w.events().removed.size())) << "step " << step;
    ASSERT_EQ(s.m_pairs, w.cache().getNumOverlappingPairs()) << "step " << step;
    ASSERT_TRUE(measured(s.m_calculateOverlappingPairsSeconds)) << "step " << step;
    ASSERT_TRUE(measured(s.m_setAabbSeconds)) << "step " << step;
    began += s.m_pairsBegan;
    ended += s.m_pairsEnded;
  }
  // Pairs did begin and end after the first step's.
  EXPECT_GT(ended, 0);
  EXPECT_GT(began, w.cache().getNumOverlappingPairs());
}

TEST(BulletAdapterStats, WorldStepsCountActiveBodiesAndCacheChanges) { run_world(false); }

TEST(BulletAdapterStats, WorldStepsCountEveryBodyWhenAllAabbsAreUpdated) { run_world(true); }

}  // namespace
}  // namespace agrid::bt_test
