// trigger_ghosts: a trigger zone, a btPairCachingGhostObject kept up to date by a
// btGhostPairCallback, over agrid's broadphase. A crate dropped into the zone must end inside it,
// a box flying through must pass in and out, a barrel beside it must never enter, and the static
// ground is filtered out. Exits 1, naming the body, otherwise.
#include <agrid/bullet/btAdaptiveGridBroadphase.h>
#include <BulletCollision/CollisionDispatch/btGhostObject.h>
#include <btBulletDynamicsCommon.h>

#include <cstdio>
#include <memory>

static std::unique_ptr<btRigidBody> body(btCollisionShape& shape, btScalar mass, const btVector3& at) {
  btVector3 inertia(0, 0, 0);
  if (mass > 0) shape.calculateLocalInertia(mass, inertia);
  btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, &shape, inertia);
  info.m_startWorldTransform.setOrigin(at);
  return std::unique_ptr<btRigidBody>(new btRigidBody(info));
}

int main() {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btGhostPairCallback ghost_pairs;  // tells each ghost of its pairs as the broadphase adds and removes them
  btAdaptiveGridBroadphase broadphase;
  broadphase.getOverlappingPairCache()->setInternalGhostPairCallback(&ghost_pairs);
  btSequentialImpulseConstraintSolver solver;

  btBoxShape zone_shape(btVector3(2, 2, 2)), box_shape(btVector3(btScalar(0.5), btScalar(0.5), btScalar(0.5)));
  btStaticPlaneShape ground_shape(btVector3(0, 1, 0), 0);
  btPairCachingGhostObject zone;  // the trigger: x and z in [-2, 2], y in [0, 4]
  zone.setCollisionShape(&zone_shape);
  zone.getWorldTransform().setOrigin(btVector3(0, 2, 0));
  zone.setCollisionFlags(zone.getCollisionFlags() | btCollisionObject::CF_NO_CONTACT_RESPONSE);
  enum { ground, crate, flyer, barrel, count };
  const char* names[count] = {"ground", "crate", "flyer", "barrel"};
  std::unique_ptr<btRigidBody> bodies[count] = {
      body(ground_shape, 0, btVector3(0, 0, 0)),
      body(box_shape, 1, btVector3(0, 6, 0)),   // falls into the zone
      body(box_shape, 1, btVector3(-8, 2, 0)),  // flies through it
      body(box_shape, 1, btVector3(5, 1, 0))};  // stands beside it

  // Declared after the bodies and the zone, so destroyed before them: it removes them first.
  btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
  world.setGravity(btVector3(0, -10, 0));
  // A sensor that pairs with everything but static objects (the ground).
  world.addCollisionObject(&zone, btBroadphaseProxy::SensorTrigger,
                           btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter);
  for (int i = 0; i < count; ++i) world.addRigidBody(bodies[i].get());
  bodies[flyer]->setGravity(btVector3(0, 0, 0));
  bodies[flyer]->setLinearVelocity(btVector3(5, 0, 0));  // through the zone in about 2 s

  bool ever_inside[count] = {}, inside[count] = {};
  const int steps = 240;  // 4 s: the crate lands and sleeps, the flyer leaves the zone
  for (int step = 0; step < steps; ++step) {
    world.stepSimulation(btScalar(1) / 60, 1, btScalar(1) / 60);
    const btAlignedObjectArray<btCollisionObject*>& overlapping = zone.getOverlappingPairs();
    for (int i = 0; i < count; ++i) {
      inside[i] = overlapping.findLinearSearch(bodies[i].get()) < overlapping.size();
      ever_inside[i] = ever_inside[i] || inside[i];
    }
  }
  for (int i = 0; i < count; ++i)
    std::printf("%s: %s inside, %s at the end\n", names[i], ever_inside[i] ? "was" : "never", inside[i] ? "in" : "out");
  const bool expected[count][2] = {{false, false}, {true, true}, {true, false}, {false, false}};  // ever; at the end
  bool ok = true;
  for (int i = 0; i < count; ++i) {
    if (ever_inside[i] == expected[i][0] && inside[i] == expected[i][1]) continue;
    std::fprintf(stderr, "trigger_ghosts: the %s was not where expected\n", names[i]);
    ok = false;
  }
  return ok ? 0 : 1;
}
