// Where btAdaptiveGridBroadphase's messages go. A misuse (a null or destroyed proxy) reaches the
// handler the user set, with its message, and the call then does nothing: the world stays exact.
// The first invalid AABB (NaN, min > max) is warned of once in the broadphase's life, through the
// handler, printf by default, or the world's debug drawer (agrid/bullet/world.h); infinite and
// enormous boxes are valid and warn of nothing; pairs stay exact throughout. And the world's
// adapter and stats are reached from the world alone.

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "agrid/bullet/world.h"
#include "bt_world.h"

namespace agrid::bt_test {
namespace {

using agrid::test::Rng;

/// The messages a handler received, in order.
struct Received {
  std::vector<std::string> messages;
};

void record(const char* message, void* context) { static_cast<Received*>(context)->messages.emplace_back(message); }

/// A room of moving bodies (no gravity, never asleep) on agrid, statics not updated by the world,
/// so that boxes set by hand on static objects stay as set.
std::unique_ptr<World> room_world(Rng& rng) {
  auto w = std::make_unique<World>(BroadphaseKind::agrid);
  w->world().setForceUpdateAllAabbs(false);
  add_room(*w, 6);
  add_random_bodies(*w, rng, {.count = 80, .spread = 5.5f, .y_lo = -5.5f, .y_hi = 5.5f, .speed = 2, .never_sleep = true});
  return w;
}

/// A static body of the room, its box to be set by hand.
btRigidBody* add_static(World& w) {
  auto* shape = w.own(std::make_unique<btBoxShape>(btVector3(1, 1, 1)));
  return w.add_body(shape, 0, btTransform::getIdentity());
}

void set_box(World& w, btRigidBody* body, const btVector3& lo, const btVector3& hi) {
  w.broadphase().setAabb(body->getBroadphaseHandle(), lo, hi, &w.dispatcher());
}

const std::string kNotLive = ": the proxy is null or was destroyed already";

// Each misuse reaches the handler with its message, once; the call does nothing (getAabb leaves
// its outputs, a second destroyProxy frees nothing twice), and the world stays exact. With the
// handler taken away, misuse throws again.
TEST(BulletAdapterMisuse, TheHandlerReceivesEachMisuseAndTheCallDoesNothing) {
  Rng rng(421);
  auto w = room_world(rng);
  btAdaptiveGridBroadphase& broadphase = *w->grid();
  Received received;
  broadphase.setMisuseHandler(record, &received);
  ASSERT_NO_FATAL_FAILURE(run_checked(*w, 5));

  btBroadphaseProxy* stale = broadphase.createProxy(btVector3(0, 0, 0), btVector3(1, 1, 1), BOX_SHAPE_PROXYTYPE,
                                                    nullptr, 1, -1, &w->dispatcher());
  broadphase.destroyProxy(stale, &w->dispatcher());
  broadphase.destroyProxy(stale, &w->dispatcher());
  broadphase.setAabb(stale, btVector3(2, 2, 2), btVector3(3, 3, 3), &w->dispatcher());
  broadphase.destroyProxy(nullptr, &w->dispatcher());
  btVector3 lo(7, 7, 7), hi(8, 8, 8);
  broadphase.getAabb(nullptr, lo, hi);
  const std::vector<std::string> expected = {
      "btAdaptiveGridBroadphase::destroyProxy" + kNotLive, "btAdaptiveGridBroadphase::setAabb" + kNotLive,
      "btAdaptiveGridBroadphase::destroyProxy" + kNotLive, "btAdaptiveGridBroadphase::getAabb" + kNotLive};
  EXPECT_EQ(received.messages, expected);
  EXPECT_EQ(lo, btVector3(7, 7, 7));
  EXPECT_EQ(hi, btVector3(8, 8, 8));
  ASSERT_NO_FATAL_FAILURE(run_checked(*w, 10));
  EXPECT_EQ(received.messages.size(), expected.size());

  broadphase.setMisuseHandler(nullptr);
  EXPECT_THROW(broadphase.destroyProxy(nullptr, &w->dispatcher()), std::invalid_argument);
}

// Infinite and enormous boxes are valid: no warning. The first invalid box (a NaN) is warned of
// once, naming its proxy, however many steps it stays; a second one (min > max) later is not;
// both pair with nothing while every other pair stays exact, and the stats count them.
TEST(BulletAdapterWarnings, TheFirstInvalidAabbIsWarnedOfOnce) {
  Rng rng(422);
  auto w = room_world(rng);
  Received received;
  w->grid()->setWarningHandler(record, &received);
  btRigidBody* nan_body = add_static(*w);
  btRigidBody* inverted_body = add_static(*w);
  btRigidBody* infinite_body = add_static(*w);
  btRigidBody* enormous_body = add_static(*w);
  const btScalar inf = std::numeric_limits<btScalar>::infinity();
  const btScalar nan = std::numeric_limits<btScalar>::quiet_NaN();
  const btScalar plane = btScalar(1e18);  // what btStaticPlaneShape reports
  set_box(*w, infinite_body, btVector3(-inf, -inf, -inf), btVector3(inf, -5, inf));
  set_box(*w, enormous_body, btVector3(-plane, -plane, -plane), btVector3(plane, -4, plane));
  ASSERT_NO_FATAL_FAILURE(run_checked(*w, 10));
  EXPECT_TRUE(received.messages.empty()) << received.messages.front();
  EXPECT_EQ(w->grid()->lastStepStats().m_invalidObjects, 0);

  set_box(*w, nan_body, btVector3(-1, nan, -1), btVector3(1, 1, 1));
  ASSERT_NO_FATAL_FAILURE(run_checked(*w, 10));
  ASSERT_EQ(received.messages.size(), 1u);
  const std::string id = std::to_string(nan_body->getBroadphaseHandle()->m_uniqueId);
  EXPECT_NE(received.messages[0].find("unique id " + id + " has a NaN"), std::string::npos) << received.messages[0];

  set_box(*w, inverted_body, btVector3(2, -1, -1), btVector3(-2, 1, 1));
  ASSERT_NO_FATAL_FAILURE(run_checked(*w, 10));
  EXPECT_EQ(received.messages.size(), 1u);
  EXPECT_EQ(w->grid()->lastStepStats().m_invalidObjects, 2);

  set_box(*w, nan_body, btVector3(-1, -1, -1), btVector3(1, 1, 1));
  set_box(*w, inverted_body, btVector3(-2, -1, -1), btVector3(2, 1, 1));
  ASSERT_NO_FATAL_FAILURE(run_checked(*w, 10));
  EXPECT_EQ(received.messages.size(), 1u);
  EXPECT_EQ(w->grid()->lastStepStats().m_invalidObjects, 0);
}

// Without a handler the warning is printed (printf, Bullet's convention), once.
TEST(BulletAdapterWarnings, ByDefaultTheWarningIsPrintedOnce) {
  Rng rng(423);
  auto w = room_world(rng);
  btRigidBody* body = add_static(*w);
  set_box(*w, body, btVector3(1, 1, 1), btVector3(0, 0, 0));
  ::testing::internal::CaptureStdout();
  w->step(5);
  const std::string printed = ::testing::internal::GetCapturedStdout();
  const std::string expected_start = "btAdaptiveGridBroadphase: warning: the AABB of the proxy with unique id ";
  EXPECT_EQ(printed.find(expected_start), 0u) << printed;
  EXPECT_EQ(printed.find(expected_start, 1), std::string::npos) << printed;
  EXPECT_NE(printed.find("has min > max"), std::string::npos) << printed;
}

/// A debug drawer that keeps the warnings Bullet code reports to it.
class WarningDrawer : public btIDebugDraw {
 public:
  void drawLine(const btVector3&, const btVector3&, const btVector3&) override {}
  void drawContactPoint(const btVector3&, const btVector3&, btScalar, int, const btVector3&) override {}
  void reportErrorWarning(const char* warning) override { warnings.emplace_back(warning); }
  void draw3dText(const btVector3&, const char*) override {}
  void setDebugMode(int mode) override { mode_ = mode; }
  int getDebugMode() const override { return mode_; }

  std::vector<std::string> warnings;

 private:
  int mode_ = 0;
};

// The world's adapter and its stats, reached from the world: agrid's, or null for dbvt.
TEST(BulletAdapterWorldAccess, TheWorldsAdapterAndStatsOrNull) {
  World agrid_world(BroadphaseKind::agrid);
  btCollisionWorld& world = agrid_world.world();
  const btCollisionWorld& const_world = world;
  EXPECT_EQ(agrid::bullet::broadphase(world), agrid_world.grid());
  EXPECT_EQ(agrid::bullet::broadphase(const_world), agrid_world.grid());
  EXPECT_EQ(agrid::bullet::stats(world), &agrid_world.grid()->lastStepStats());
  agrid::bullet::broadphase(world)->setWatchFiltersAtRest(false);  // a setting, without a cast
  EXPECT_FALSE(agrid_world.grid()->getWatchFiltersAtRest());

  for (const BroadphaseKind other : {BroadphaseKind::dbvt, BroadphaseKind::sap}) {
    World other_world(other);
    EXPECT_EQ(agrid::bullet::broadphase(other_world.world()), nullptr);
    EXPECT_EQ(agrid::bullet::stats(other_world.world()), nullptr);
    EXPECT_FALSE(agrid::bullet::reportWarningsToDebugDrawer(other_world.world()));
  }
}

// A class derived from the adapter is the adapter; a world without a broadphase has none.
TEST(BulletAdapterWorldAccess, ADerivedClassIsFoundAndNoBroadphaseIsNull) {
  struct Derived : btAdaptiveGridBroadphase {};
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  Derived derived;
  btCollisionWorld world(&dispatcher, &derived, &configuration);
  EXPECT_EQ(agrid::bullet::broadphase(world), &derived);
  btCollisionWorld without(&dispatcher, nullptr, &configuration);
  EXPECT_EQ(agrid::bullet::broadphase(without), nullptr);
  EXPECT_EQ(agrid::bullet::stats(without), nullptr);
}

// reportWarningsToDebugDrawer: the warning reaches the drawer the world has when it is made (set
// after the call), once.
TEST(BulletAdapterWorldAccess, WarningsGoToTheWorldsDebugDrawer) {
  Rng rng(424);
  auto w = room_world(rng);
  ASSERT_TRUE(agrid::bullet::reportWarningsToDebugDrawer(w->world()));
  WarningDrawer drawer;
  w->world().setDebugDrawer(&drawer);
  btRigidBody* body = add_static(*w);
  const btScalar nan = std::numeric_limits<btScalar>::quiet_NaN();
  set_box(*w, body, btVector3(nan, nan, nan), btVector3(nan, nan, nan));
  ASSERT_NO_FATAL_FAILURE(run_checked(*w, 5));
  ASSERT_EQ(drawer.warnings.size(), 1u);
  EXPECT_NE(drawer.warnings[0].find("has a NaN"), std::string::npos) << drawer.warnings[0];
  w->world().setDebugDrawer(nullptr);
}

}  // namespace
}  // namespace agrid::bt_test
