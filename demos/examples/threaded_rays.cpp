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

struct Ray {
  btVector3 from, to;
};

struct Hit {  // what a ray met first: the object (or none) and where along the ray
  const btCollisionObject* object;
  btScalar fraction;
  bool operator!=(const Hit& other) const { return object != other.object || fraction != other.fraction; }
};

static std::vector<Hit> cast(const btCollisionWorld& world, const std::vector<Ray>& rays) {
  std::vector<Hit> hits;
  for (size_t i = 0; i < rays.size(); ++i) {
    btCollisionWorld::ClosestRayResultCallback closest(rays[i].from, rays[i].to);
    world.rayTest(rays[i].from, rays[i].to, closest);
    const Hit hit = {closest.m_collisionObject, closest.m_closestHitFraction};
    hits.push_back(hit);
  }
  return hits;
}

// Casts the rays from `threads` threads at once, each all of them; counts the hits that differ
// from `expected`.
static int wrong_hits(const btCollisionWorld& world, const std::vector<Ray>& rays, const std::vector<Hit>& expected,
                      unsigned threads) {
  std::vector<std::vector<Hit>> seen(threads);
  std::vector<std::thread> casters;
  for (unsigned t = 0; t < threads; ++t) casters.emplace_back([&, t] { seen[t] = cast(world, rays); });
  for (size_t t = 0; t < casters.size(); ++t) casters[t].join();
  int wrong = 0;
  for (unsigned t = 0; t < threads; ++t)
    for (size_t i = 0; i < rays.size(); ++i) wrong += seen[t][i] != expected[i];
  return wrong;
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
  const btScalar half = btScalar(0.5), pillar_height = 6, field = 40;  // everything stands in [0, field] on x and z
  btStaticPlaneShape ground_shape(btVector3(0, 1, 0), 0);
  btBoxShape pillar_shape(btVector3(half, pillar_height / 2, half)), box_shape(btVector3(half, half, half));
  const int pillars_a_side = 10, boxes = 200;
  std::mt19937 random(1);
  std::uniform_real_distribution<btScalar> across(0, field), drop_height(1, 20), eye_height(half, pillar_height);
  std::vector<std::unique_ptr<btRigidBody>> bodies;
  bodies.push_back(body(ground_shape, 0, btVector3(0, 0, 0)));
  for (int i = 0; i < pillars_a_side * pillars_a_side; ++i) {
    const btScalar spacing = field / pillars_a_side, x = spacing * btScalar(i % pillars_a_side);
    bodies.push_back(body(pillar_shape, 0, btVector3(x, pillar_height / 2, spacing * btScalar(i / pillars_a_side))));
  }
  for (int i = 0; i < boxes; ++i)
    bodies.push_back(body(box_shape, 1, btVector3(across(random), drop_height(random), across(random))));
  btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);  // destroyed before the bodies
  world.setGravity(btVector3(0, -10, 0));
  for (size_t i = 0; i < bodies.size(); ++i) world.addRigidBody(bodies[i].get());

  const int ray_count = 2000, rounds = 3, steps_between = 20;  // rays cast while the boxes fall and land
  const unsigned thread_counts[] = {2, 4};
  int wrong = 0;
  for (int round = 0; round < rounds; ++round) {
    for (int step = 0; step < steps_between; ++step) world.stepSimulation(btScalar(1) / 60, 1, btScalar(1) / 60);
    std::vector<Ray> rays;  // from one unit's eyes to another's
    for (int i = 0; i < ray_count; ++i) {
      const Ray ray = {btVector3(across(random), eye_height(random), across(random)),
                       btVector3(across(random), eye_height(random), across(random))};
      rays.push_back(ray);
    }
    const std::vector<Hit> expected = cast(world, rays);  // on this thread alone
    for (unsigned threads : thread_counts) wrong += wrong_hits(world, rays, expected, threads);
  }
  std::printf("threaded_rays: %d rays, %d rounds, on 2 and 4 threads: %d wrong hits\n", ray_count, rounds, wrong);
  return wrong == 0 ? 0 : 1;
}
