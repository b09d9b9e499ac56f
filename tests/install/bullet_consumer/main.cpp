// Consumer of the installed agrid::bullet: the one-line swap in a Bullet world. A box falls on
// a static plane and must come to rest on it, touching it (one pair in the cache).
// Exits 0 only if it does.

#include <agrid/bullet/btAdaptiveGridBroadphase.h>
#include <btBulletDynamicsCommon.h>

#include <cstdio>

int main() {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btAdaptiveGridBroadphase broadphase;  // was: btDbvtBroadphase broadphase;
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
  world.removeRigidBody(&box);
  world.removeRigidBody(&ground);
  if (pairs == 1 && height > 0.4f && height < 0.6f) {
    std::printf("consumer: ok, the box rests at y = %.3f with 1 pair\n", static_cast<double>(height));
    return 0;
  }
  std::printf("consumer: expected the box at y = 0.5 with 1 pair, got y = %.3f and %d pairs\n",
              static_cast<double>(height), pairs);
  return 1;
}
