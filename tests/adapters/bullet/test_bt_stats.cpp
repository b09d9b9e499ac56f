// btAdaptiveGridBroadphase::lastStepStats: the counts of a step (setAabb calls, pairs begun and
// ended, pairs held) equal what was done and what the pair cache saw, and the times are
// positive and finite; setAabb is timed only when asked. The world the step left (objects,
// invalid AABBs, moving and resting ones, bytes held) is what the proxies and agrid say.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "agrid/broadphase.h"
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
  EXPECT_EQ(s.m_objects, 0);
  EXPECT_EQ(s.m_invalidObjects, 0);
  EXPECT_EQ(s.m_movingObjects, 0);
  EXPECT_EQ(s.m_restingObjects, 0);
  EXPECT_EQ(s.m_bytesHeld, 0u);
  EXPECT_FALSE(bp_.getTimeSetAabbCalls());
}

/// Success iff the step's world counts are agrid's own (broadphase().stats(), C++20) and moving
/// and resting objects make up all of them.
::testing::AssertionResult world_counts_are_agrids(const btAdaptiveGridBroadphase& bp) {
  const btAdaptiveGridBroadphaseStats& s = bp.lastStepStats();
  const agrid::BroadphaseStats a = bp.broadphase().stats();
  if (s.m_objects == static_cast<int>(a.objects) && s.m_invalidObjects == static_cast<int>(a.invalid) &&
      s.m_movingObjects == static_cast<int>(a.moving) && s.m_restingObjects == static_cast<int>(a.resting) &&
      s.m_movingObjects + s.m_restingObjects == s.m_objects && s.m_bytesHeld > a.bytes_held) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "stats: " << s.m_objects << " objects, " << s.m_invalidObjects << " invalid, "
                                       << s.m_movingObjects << " moving, " << s.m_restingObjects << " resting, "
                                       << s.m_bytesHeld << " bytes; agrid: " << a.objects << ", " << a.invalid << ", "
                                       << a.moving << ", " << a.resting << ", " << a.bytes_held << " bytes";
}

// Objects, invalid AABBs, moving and resting ones and bytes are those the last step left:
// counted by hand, equal to agrid's, unchanged by calls between steps until the next one.
TEST_F(BulletAdapterStatsByHand, WorldCountsAreWhatTheStepLeft) {
  const btScalar nan = std::numeric_limits<btScalar>::quiet_NaN();
  btBroadphaseProxy* a = add(btVector3(0, 0, 0), btVector3(1, 1, 1));
  add(btVector3(0.5f, 0.5f, 0.5f), btVector3(1.5f, 1.5f, 1.5f));
  btBroadphaseProxy* c = add(btVector3(10, 10, 10), btVector3(11, 11, 11));
  btBroadphaseProxy* nan_box = add(btVector3(nan, 0, 0), btVector3(1, 1, 1));
  btBroadphaseProxy* inverted = add(btVector3(5, 5, 5), btVector3(4, 6, 6));  // min > max in x

  const btAdaptiveGridBroadphaseStats* s = &step();
  EXPECT_EQ(s->m_objects, 5);
  EXPECT_EQ(s->m_invalidObjects, 2);
  EXPECT_EQ(s->m_movingObjects + s->m_restingObjects, 5);
  EXPECT_TRUE(world_counts_are_agrids(bp_));
  // The adapter's proxies are held in blocks of thousands: more than agrid's own bytes.
  EXPECT_GT(s->m_bytesHeld, bp_.broadphase().stats().bytes_held + 1000 * sizeof(btBroadphaseProxy));

  // A fixed box is valid again; the inverted one is removed: counted at the next step, not before.
  bp_.setAabb(nan_box, btVector3(20, 20, 20), btVector3(21, 21, 21), &dispatcher_);
  bp_.destroyProxy(inverted, &dispatcher_);
  EXPECT_EQ(bp_.lastStepStats().m_objects, 5);
  EXPECT_EQ(bp_.lastStepStats().m_invalidObjects, 2);
  s = &step();
  EXPECT_EQ(s->m_objects, 4);
  EXPECT_EQ(s->m_invalidObjects, 0);
  EXPECT_TRUE(world_counts_are_agrids(bp_));

  // Unchanged, every object rests; one that leaves its fattened box moves, every step it moves.
  for (int i = 0; i < kUpdatesToRest; ++i) step();
  EXPECT_EQ(s->m_restingObjects, 4);
  EXPECT_EQ(s->m_movingObjects, 0);
  for (int i = 0; i < 3; ++i) {
    const btVector3 at(static_cast<btScalar>(30 + 5 * i), 0, 0);
    bp_.setAabb(c, at, at + btVector3(1, 1, 1), &dispatcher_);
    s = &step();
    EXPECT_EQ(s->m_movingObjects, 1) << "step " << i;
    EXPECT_EQ(s->m_restingObjects, 3) << "step " << i;
    EXPECT_TRUE(world_counts_are_agrids(bp_));
  }
  // Once c stops, it rests again; a's box given again unchanged does not move it.
  bp_.setAabb(a, btVector3(0, 0, 0), btVector3(1, 1, 1), &dispatcher_);
  for (int i = 0; i < kUpdatesToRest; ++i) step();
  EXPECT_EQ(s->m_restingObjects, 4);
  EXPECT_TRUE(world_counts_are_agrids(bp_));
}

// printStats prints the step's counts.
TEST_F(BulletAdapterStatsByHand, PrintStatsPrintsTheStepsCounts) {
  add(btVector3(0, 0, 0), btVector3(1, 1, 1));
  add(btVector3(0.5f, 0.5f, 0.5f), btVector3(1.5f, 1.5f, 1.5f));
  add(btVector3(1, 1, 1), btVector3(0, 0, 0));  // inverted on every axis
  const btAdaptiveGridBroadphaseStats& s = step();
  ::testing::internal::CaptureStdout();
  bp_.printStats();
  const std::string printed = ::testing::internal::GetCapturedStdout();
  const std::string expected = "btAdaptiveGridBroadphase: 3 objects (" + std::to_string(s.m_movingObjects) + " moving, " +
                               std::to_string(s.m_restingObjects) + " resting, 1 invalid), 1 pairs, ";
  EXPECT_EQ(printed.substr(0, expected.size()), expected) << printed;
  EXPECT_NE(printed.find(", " + std::to_string(s.m_bytesHeld) + " bytes\n"), std::string::npos) << printed;
}

// Bytes follow the proxies: thousands more proxies hold at least their own size more, and the
// count says the adapter's part apart from agrid's.
TEST_F(BulletAdapterStatsByHand, BytesHeldGrowWithTheProxies) {
  add(btVector3(0, 0, 0), btVector3(1, 1, 1));
  const std::size_t one = step().m_bytesHeld;
  constexpr int kMore = 20000;
  for (int i = 0; i < kMore; ++i) {
    const btVector3 at(static_cast<btScalar>(i % 100) * 2, static_cast<btScalar>(i / 100) * 2, 0);
    add(at, at + btVector3(1, 1, 1));
  }
  const btAdaptiveGridBroadphaseStats& s = step();
  EXPECT_EQ(s.m_objects, kMore + 1);
  EXPECT_GE(s.m_bytesHeld, one + kMore * sizeof(btBroadphaseProxy));
  EXPECT_GE(s.m_bytesHeld - bp_.broadphase().stats().bytes_held, kMore * sizeof(btBroadphaseProxy));
  EXPECT_TRUE(world_counts_are_agrids(bp_));
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
    ASSERT_EQ(s.m_objects, w.world().getNumCollisionObjects()) << "step " << step;
    ASSERT_EQ(s.m_invalidObjects, 0) << "step " << step;
    ASSERT_TRUE(world_counts_are_agrids(*w.grid())) << "step " << step;
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
