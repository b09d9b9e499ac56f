// bullet_world: a Bullet world on agrid's broadphase (one line changed from btDbvtBroadphase),
// with agrid's thread count set the oneTBB way. Three boxes dropped on the ground must come to
// rest in a stack, touching: 3 contacts. Built as C++11, against float and double Bullet.
#include <agrid/bullet/btAdaptiveGridBroadphase.h>  // C++11 and later, as Bullet's headers
#include <btBulletDynamicsCommon.h>
#include <tbb/global_control.h>

#include <cstdio>
#include <memory>
#include <vector>

int main() {
  // agrid runs on the threads of the oneTBB arena that steps the world: cap every arena here, or
  // step inside tbb::task_arena(threads).execute([&] { world.stepSimulation(...); }).
  const int threads = 2;
  tbb::global_control thread_limit(tbb::global_control::max_allowed_parallelism, threads);

  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btAdaptiveGridBroadphase broadphase;  // was: btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;

  btStaticPlaneShape ground_shape(btVector3(0, 1, 0), 0);
  btRigidBody ground(btRigidBody::btRigidBodyConstructionInfo(0, nullptr, &ground_shape));
  const btScalar half = btScalar(0.5), mass = 1;
  btBoxShape box_shape(btVector3(half, half, half));
  btVector3 inertia;
  box_shape.calculateLocalInertia(mass, inertia);
  const int boxes = 3;
  std::vector<std::unique_ptr<btRigidBody>> stack;
  for (int i = 0; i < boxes; ++i) {  // dropped from 1, 2.5 and 4 m, one over the other
    btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, &box_shape, inertia);
    info.m_startWorldTransform.setOrigin(btVector3(0, 1 + btScalar(1.5) * btScalar(i), 0));
    stack.push_back(std::unique_ptr<btRigidBody>(new btRigidBody(info)));
  }
  // Declared after the bodies, so destroyed before them: it removes them from the broadphase.
  btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
  world.setGravity(btVector3(0, -10, 0));
  world.addRigidBody(&ground);
  for (int i = 0; i < boxes; ++i) world.addRigidBody(stack[i].get());

  const int steps = 180;  // 3 s: long enough to land and settle
  for (int step = 0; step < steps; ++step) world.stepSimulation(btScalar(1) / 60, 1, btScalar(1) / 60);

  int contacts = 0;  // pairs of bodies that touch: ground-box, box-box, box-box
  for (int i = 0; i < dispatcher.getNumManifolds(); ++i)
    contacts += dispatcher.getManifoldByIndexInternal(i)->getNumContacts() > 0;
  const btScalar tolerance = btScalar(0.05);  // resting boxes sink into each other by about 1 cm
  bool stacked = true;
  for (int i = 0; i < boxes; ++i) {
    const btScalar height = stack[i]->getWorldTransform().getOrigin().y(), rest = half * btScalar(2 * i + 1);
    std::printf("box %d rests at y = %.3f (%s precision)\n", i, double(height), sizeof(btScalar) == 8 ? "double" : "single");
    stacked = stacked && btFabs(height - rest) < tolerance;
  }
  if (stacked && contacts == boxes) return 0;
  std::fprintf(stderr, "bullet_world: expected a stack of %d boxes with %d contacts, got %d contacts\n", boxes, boxes, contacts);
  return 1;
}
