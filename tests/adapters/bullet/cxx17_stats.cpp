// A Bullet program in C++17, as many games are, that reads everything it needs of agrid through
// the adapter's C++11 headers: lastStepStats()'s objects, invalid AABBs, moving and resting
// objects and bytes held, in a small world whose answers are known. (It cannot include
// <agrid/broadphase.h>: that header needs C++20, and the test headers.*.cxx17.broadphase checks
// that it says so.) Run as the test bullet_stats_cxx17; exits 0 only if every check holds.
#include <agrid/bullet/btAdaptiveGridBroadphase.h>
#include <btBulletDynamicsCommon.h>

#include <cstddef>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

static_assert(__cplusplus == 201703L, "this test is the C++17 program: build it as C++17");

namespace {

int failures = 0;

void check(bool holds, std::string_view what, long long got, long long expected) {
  if (holds) return;
  std::printf("bullet_stats_cxx17: %.*s: got %lld, expected %lld\n", static_cast<int>(what.size()), what.data(), got,
              expected);
  ++failures;
}

void expect_eq(std::string_view what, long long got, long long expected) { check(got == expected, what, got, expected); }

std::unique_ptr<btRigidBody> body(btCollisionShape& shape, btScalar mass, const btVector3& at) {
  btVector3 inertia(0, 0, 0);
  if (mass > 0) shape.calculateLocalInertia(mass, inertia);
  btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, &shape, inertia);
  info.m_startWorldTransform.setOrigin(at);
  return std::make_unique<btRigidBody>(info);
}

}  // namespace

int main() {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btAdaptiveGridBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btStaticPlaneShape ground_shape(btVector3(0, 1, 0), 0);
  btBoxShape box_shape(btVector3(0.5f, 0.5f, 0.5f));

  // A ground plane, a static box placed at NaN (Bullet sends a static object's AABB unchecked:
  // it pairs with nothing), and a row of boxes dropped onto the ground, far enough apart that
  // they never touch one another.
  constexpr int kBoxes = 10;
  std::vector<std::unique_ptr<btRigidBody>> bodies;
  bodies.push_back(body(ground_shape, 0, btVector3(0, 0, 0)));
  bodies.push_back(body(box_shape, 0, btVector3(std::numeric_limits<btScalar>::quiet_NaN(), 1, 0)));
  for (int i = 0; i < kBoxes; ++i) bodies.push_back(body(box_shape, 1, btVector3(btScalar(3 * i), 2, 0)));
  std::optional<btDiscreteDynamicsWorld> world;  // destroyed before the bodies
  world.emplace(&dispatcher, &broadphase, &solver, &configuration);
  world->setGravity(btVector3(0, -10, 0));
  for (const auto& b : bodies) world->addRigidBody(b.get());

  const btAdaptiveGridBroadphaseStats& stats = broadphase.lastStepStats();
  expect_eq("objects before the first step", stats.m_objects, 0);
  expect_eq("bytes before the first step", static_cast<long long>(stats.m_bytesHeld), 0);

  // Falling: the boxes move.
  for (int step = 0; step < 10; ++step) world->stepSimulation(btScalar(1) / 60, 1, btScalar(1) / 60);
  const auto objects = static_cast<long long>(bodies.size());
  expect_eq("objects", stats.m_objects, objects);
  expect_eq("invalid AABBs", stats.m_invalidObjects, 1);
  expect_eq("moving + resting", stats.m_movingObjects + stats.m_restingObjects, objects);
  check(stats.m_movingObjects >= kBoxes, "moving objects while the boxes fall, at least", stats.m_movingObjects, kBoxes);
  // Each proxy costs its own bytes at least (the adapter's proxies alone are bigger than Bullet's).
  check(stats.m_bytesHeld >= bodies.size() * sizeof(btBroadphaseProxy), "bytes held, at least",
        static_cast<long long>(stats.m_bytesHeld), static_cast<long long>(bodies.size() * sizeof(btBroadphaseProxy)));

  // Landed and asleep: every box touches the ground alone, and nothing moves.
  for (int step = 0; step < 600; ++step) world->stepSimulation(btScalar(1) / 60, 1, btScalar(1) / 60);
  expect_eq("pairs at rest", stats.m_pairs, kBoxes);
  expect_eq("resting objects once asleep", stats.m_restingObjects, objects);
  expect_eq("moving objects once asleep", stats.m_movingObjects, 0);
  const std::size_t bytes_at_rest = stats.m_bytesHeld;

  // One box removed, and the broken one: counted from the next step on.
  world->removeRigidBody(bodies.back().get());
  world->removeRigidBody(bodies[1].get());
  expect_eq("objects before the step after removing", stats.m_objects, objects);
  world->stepSimulation(btScalar(1) / 60, 1, btScalar(1) / 60);
  expect_eq("objects after removing two", stats.m_objects, objects - 2);
  expect_eq("invalid AABBs after removing the broken box", stats.m_invalidObjects, 0);
  check(stats.m_bytesHeld > 0 && stats.m_bytesHeld <= 2 * bytes_at_rest, "bytes held after removing, at most",
        static_cast<long long>(stats.m_bytesHeld), static_cast<long long>(2 * bytes_at_rest));

  broadphase.printStats();
  for (const auto& b : bodies) {
    if (b->isInWorld()) world->removeRigidBody(b.get());
  }
  world.reset();
  if (failures != 0) return 1;
  std::printf("bullet_stats_cxx17: ok, C++%ld: %d objects, %d invalid, %d moving, %d resting, %zu bytes\n",
              __cplusplus / 100 % 100, stats.m_objects, stats.m_invalidObjects, stats.m_movingObjects,
              stats.m_restingObjects, stats.m_bytesHeld);
  return 0;
}
