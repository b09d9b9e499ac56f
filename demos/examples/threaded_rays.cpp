// threaded_rays: line-of-sight rays cast from several threads at once between steps, as a game's
// AI or vehicles do, in a world on agrid's broadphase: boxes falling among pillars. Each thread's
// hits must equal those of the same rays cast on one thread. Exits 1, with the count of wrong
// hits, otherwise.
//
// btCollisionWorld::rayTest asks the broadphase's rayTest for the objects whose boxes the ray
// meets, then tests each object's shape with state on the stack (boxes and planes here). agrid's
// rayTest reads only what the last step stored, so rays are safe while no step runs; dbvt's
// shares one stack between threads in a Bullet built without BT_THREADSAFE (Debian's).
#include <agrid/bullet/btAdaptiveGridBroadphase.h>
#include <btBulletDynamicsCommon.h>

#include <cstdio>
#include <memory>
#include <random>
#include <thread>
#include <vector>

struct Hit {  // what a ray saw first: the object (or none) and where along the ray
  const btCollisionObject* object;
  btScalar fraction;
  bool operator!=(const Hit& other) const { return object != other.object || fraction != other.fraction; }
};

static std::vector<Hit> cast(const btCollisionWorld& world, const std::vector<btVector3>& ends) {
  std::vector<Hit> hits;
  for (size_t i = 0; i + 1 < ends.size(); i += 2) {
    btCollisionWorld::ClosestRayResultCallback closest(ends[i], ends[i + 1]);
    world.rayTest(ends[i], ends[i + 1], closest);
    Hit hit = {closest.m_collisionObject, closest.m_closestHitFraction};
    hits.push_back(hit);
  }
  return hits;
}

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
  btAdaptiveGridBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btStaticPlaneShape ground_shape(btVector3(0, 1, 0), 0);
  btBoxShape pillar_shape(btVector3(btScalar(0.5), 3, btScalar(0.5))), box_shape(btVector3(btScalar(0.5), btScalar(0.5), btScalar(0.5)));
  const btScalar field = 40;  // pillars and boxes stand in [0, field] on x and z
  const int pillars_a_side = 10, boxes = 200;
  std::mt19937 random(1);
  std::uniform_real_distribution<btScalar> across(0, field), up(1, 20);
  std::vector<std::unique_ptr<btRigidBody>> bodies;
  bodies.push_back(body(ground_shape, 0, btVector3(0, 0, 0)));
  for (int i = 0; i < pillars_a_side * pillars_a_side; ++i) {
    const btScalar spacing = field / pillars_a_side;
    bodies.push_back(body(pillar_shape, 0, btVector3(spacing * btScalar(i % pillars_a_side), 3, spacing * btScalar(i / pillars_a_side))));
  }
  for (int i = 0; i < boxes; ++i) bodies.push_back(body(box_shape, 1, btVector3(across(random), up(random), across(random))));
  btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);  // destroyed before the bodies
  world.setGravity(btVector3(0, -10, 0));
  for (size_t i = 0; i < bodies.size(); ++i) world.addRigidBody(bodies[i].get());

  const int rays = 2000, rounds = 3, steps_between = 20;
  const unsigned thread_counts[] = {2, 4};
  std::uniform_real_distribution<btScalar> eye(btScalar(0.5), 6);  // from one unit's eyes to another's
  int wrong = 0;
  for (int round = 0; round < rounds; ++round) {
    for (int step = 0; step < steps_between; ++step) world.stepSimulation(btScalar(1) / 60, 1, btScalar(1) / 60);
    std::vector<btVector3> ends;
    for (int i = 0; i < 2 * rays; ++i) ends.push_back(btVector3(across(random), eye(random), across(random)));
    const std::vector<Hit> expected = cast(world, ends);  // one thread
    for (unsigned threads : thread_counts) {
      std::vector<std::vector<Hit>> seen(threads);
      std::vector<std::thread> casters;
      for (unsigned t = 0; t < threads; ++t) casters.emplace_back([&, t] { seen[t] = cast(world, ends); });
      for (std::thread& caster : casters) caster.join();
      for (unsigned t = 0; t < threads; ++t)
        for (int i = 0; i < rays; ++i) wrong += seen[t][i] != expected[i];
    }
  }
  std::printf("threaded_rays: %d rays, %d rounds, on 2 and 4 threads: %d wrong hits\n", rays, rounds, wrong);
  return wrong == 0 ? 0 : 1;
}
