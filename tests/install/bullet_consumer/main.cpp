// Consumer of agrid::bullet, however it was taken (installed package, pkg-config, a
// subproject), in any C++ standard from 11: the one-line swap in a Bullet world. A box falls on
// a static plane and must come to rest on it, touching it (one pair in the cache, as the
// adapter's step stats say too, read from the world alone (agrid/bullet/world.h), with the world's
// 2 objects, none invalid); agrid's version must be the one the build expects (EXPECTED_VERSION,
// when given).
// Exits 0 only if both hold.

#include <agrid/bullet/btAdaptiveGridBroadphase.h>
#include <agrid/bullet/world.h>
#include <agrid/config.h>
#include <agrid/version.h>
#include <btBulletDynamicsCommon.h>

#include <cstdio>
#include <cstring>

int main() {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  agrid::Config config;  // optional tuning, here the default fat margin set by hand
  config.fat_margin = 0.1f;
  btAdaptiveGridBroadphase broadphase(nullptr, config);  // was: btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
  world.setGravity(btVector3(0, -10, 0));

  btStaticPlaneShape ground_shape(btVector3(0, 1, 0), 0);
  btRigidBody ground(btRigidBody::btRigidBodyConstructionInfo(0, nullptr, &ground_shape));
  world.addRigidBody(&ground);

  btBoxShape box_shape(btVector3(0.5f, 0.5f, 0.5f));
  btVector3 inertia;
  box_shape.calculateLocalInertia(1, inertia);
  btTransform start;
  start.setIdentity();
  start.setOrigin(btVector3(0, 3, 0));
  btDefaultMotionState motion(start);
  btRigidBody box(btRigidBody::btRigidBodyConstructionInfo(1, &motion, &box_shape, inertia));
  world.addRigidBody(&box);

  for (int step = 0; step < 180; ++step) world.stepSimulation(1.0f / 60, 1, 1.0f / 60);
  const btScalar height = box.getWorldTransform().getOrigin().y();
  const int pairs = broadphase.getOverlappingPairCache()->getNumOverlappingPairs();
  // The last step's cost, from the world alone: null if its broadphase were not agrid's.
  const btAdaptiveGridBroadphaseStats* found = agrid::bullet::stats(world);
  if (found != &broadphase.lastStepStats()) {
    std::printf("consumer: agrid::bullet::stats(world) did not find the world's btAdaptiveGridBroadphase\n");
    return 1;
  }
  const btAdaptiveGridBroadphaseStats& stats = *found;
  world.removeRigidBody(&box);
  world.removeRigidBody(&ground);
#ifdef EXPECTED_VERSION
  if (std::strcmp(AGRID_VERSION_STRING, EXPECTED_VERSION) != 0) {
    std::printf("consumer: agrid/version.h says %s, the build expected %s\n", AGRID_VERSION_STRING, EXPECTED_VERSION);
    return 1;
  }
#endif
  if (stats.m_pairs != pairs || !(stats.m_calculateOverlappingPairsSeconds > 0)) {
    std::printf("consumer: the step stats say %d pairs in %g s, the cache holds %d\n", stats.m_pairs,
                stats.m_calculateOverlappingPairsSeconds, pairs);
    return 1;
  }
  if (stats.m_objects != 2 || stats.m_invalidObjects != 0 || stats.m_bytesHeld == 0) {
    std::printf("consumer: the step stats say %d objects, %d invalid, %zu bytes; expected 2, 0 and some\n",
                stats.m_objects, stats.m_invalidObjects, stats.m_bytesHeld);
    return 1;
  }
  if (pairs == 1 && height > 0.4f && height < 0.6f) {
    std::printf("consumer: ok, agrid %s, %s precision, C++%ld: the box rests at y = %.3f with 1 pair\n",
                AGRID_VERSION_STRING, sizeof(btScalar) == 8 ? "double" : "single", __cplusplus / 100 % 100,
                static_cast<double>(height));
    return 0;
  }
  std::printf("consumer: expected the box at y = 0.5 with 1 pair, got y = %.3f and %d pairs\n",
              static_cast<double>(height), pairs);
  return 1;
}
