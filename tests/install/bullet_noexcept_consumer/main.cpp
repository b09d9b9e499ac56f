// Consumer of agrid::bullet built with -fno-exceptions: a misuse of the adapter (a proxy destroyed
// twice, setAabb of a destroyed proxy, destroyProxy(nullptr)) goes to the handler the program set,
// with the message the adapter gives, and the call does nothing; the world goes on: a box falls
// on a static plane and comes to rest on it with one pair. Exits 0 only if all of that holds.

#include <agrid/bullet/btAdaptiveGridBroadphase.h>
#include <agrid/bullet/world.h>
#include <btBulletDynamicsCommon.h>

#include <cstdio>
#include <cstring>

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#error "this consumer must be built with -fno-exceptions"
#endif

namespace {

/// What the handler received: how many misuses, and the last message.
struct Misuses {
  int count;
  char last[256];
};

/// A game's handler: log and go on (another game would print and abort).
void log_misuse(const char* message, void* context) {
  Misuses* misuses = static_cast<Misuses*>(context);
  ++misuses->count;
  std::snprintf(misuses->last, sizeof misuses->last, "%s", message);
  std::printf("consumer: misuse reported: %s\n", message);
}

/// True iff the handler has received `count` misuses, the last with `expected` as its message.
bool received(const Misuses& misuses, int count, const char* expected) {
  if (misuses.count == count && std::strcmp(misuses.last, expected) == 0) return true;
  std::printf("consumer: expected %d misuses, the last \"%s\"; got %d, the last \"%s\"\n", count, expected,
              misuses.count, misuses.last);
  return false;
}

}  // namespace

int main() {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btAdaptiveGridBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
  world.setGravity(btVector3(0, -10, 0));

  Misuses misuses = {0, ""};
  agrid::bullet::broadphase(world)->setMisuseHandler(log_misuse, &misuses);

  btBroadphaseProxy* proxy = broadphase.createProxy(btVector3(0, 0, 0), btVector3(1, 1, 1), BOX_SHAPE_PROXYTYPE,
                                                    nullptr, 1, -1, &dispatcher);
  broadphase.destroyProxy(proxy, &dispatcher);
  broadphase.destroyProxy(proxy, &dispatcher);
  if (!received(misuses, 1, "btAdaptiveGridBroadphase::destroyProxy: the proxy is null or was destroyed already")) {
    return 1;
  }
  broadphase.setAabb(proxy, btVector3(2, 2, 2), btVector3(3, 3, 3), &dispatcher);
  if (!received(misuses, 2, "btAdaptiveGridBroadphase::setAabb: the proxy is null or was destroyed already")) return 1;
  broadphase.destroyProxy(nullptr, &dispatcher);
  if (!received(misuses, 3, "btAdaptiveGridBroadphase::destroyProxy: the proxy is null or was destroyed already")) {
    return 1;
  }

  btStaticPlaneShape ground_shape(btVector3(0, 1, 0), 0);
  btRigidBody ground(btRigidBody::btRigidBodyConstructionInfo(0, nullptr, &ground_shape));
  world.addRigidBody(&ground);
  btBoxShape box_shape(btVector3(0.5f, 0.5f, 0.5f));
  btVector3 inertia;
  box_shape.calculateLocalInertia(1, inertia);
  btRigidBody::btRigidBodyConstructionInfo info(1, nullptr, &box_shape, inertia);
  info.m_startWorldTransform.setOrigin(btVector3(0, 3, 0));
  btRigidBody box(info);
  world.addRigidBody(&box);
  for (int step = 0; step < 180; ++step) world.stepSimulation(1.0f / 60, 1, 1.0f / 60);
  const btScalar height = box.getWorldTransform().getOrigin().y();
  const int pairs = broadphase.getOverlappingPairCache()->getNumOverlappingPairs();
  world.removeRigidBody(&box);
  world.removeRigidBody(&ground);
  if (misuses.count == 3 && pairs == 1 && height > 0.4f && height < 0.6f) {
    std::printf("consumer: ok, built without exceptions: 3 misuses reported, then the box rests at y = %.3f with 1 pair\n",
                static_cast<double>(height));
    return 0;
  }
  std::printf("consumer: after the misuses expected the box at y = 0.5 with 1 pair, got y = %.3f, %d pairs, %d misuses\n",
              static_cast<double>(height), pairs, misuses.count);
  return 1;
}
