// streaming: an open world that loads the cells around a walking player and unloads those it
// leaves, adding and removing their bodies (addRigidBody, removeRigidBody) between steps. After
// every step each pair in the cache must be a box with its own cell's floor tile, two a loaded
// cell, and every box must stay on its tile. Exits 1, naming the step, otherwise.
#include <agrid/bullet/btAdaptiveGridBroadphase.h>
#include <btBulletDynamicsCommon.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <vector>

typedef std::vector<std::unique_ptr<btRigidBody>> CellBodies;  // a floor tile and the boxes on it

static const btScalar cell_size = 4, half = btScalar(0.5);
static const int boxes_per_cell = 2;
static const int reach = 1;  // the cells loaded: the player's and its neighbours
static const btScalar box_spacing = 2;  // the boxes stand this far apart, clear of each other and of the tile's edges
static const btScalar sink_limit = btScalar(0.1);  // a standing box sinks by about 1 cm, a falling one much further

static btRigidBody* body(btCollisionShape& shape, btScalar mass, const btVector3& at, int cell) {
  btVector3 inertia(0, 0, 0);
  if (mass > 0) shape.calculateLocalInertia(mass, inertia);
  btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, &shape, inertia);
  info.m_startWorldTransform.setOrigin(at);
  btRigidBody* made = new btRigidBody(info);
  made->setUserIndex(cell);  // which cell it belongs to, for the check
  return made;
}

// A cell's tile, and its boxes standing on it, away from the tile's edges.
static void load(btDynamicsWorld& world, btCollisionShape& tile, btCollisionShape& box, int cell, CellBodies& bodies) {
  const btScalar x = cell_size * btScalar(cell);
  bodies.emplace_back(body(tile, 0, btVector3(x, -half, 0), cell));
  for (int i = 0; i < boxes_per_cell; ++i)
    bodies.emplace_back(body(box, 1, btVector3(x + box_spacing * (btScalar(i) - btScalar(boxes_per_cell - 1) / 2), half, 0), cell));
  for (size_t i = 0; i < bodies.size(); ++i) world.addRigidBody(bodies[i].get());
}

// True iff every pair in the cache joins two bodies of one cell, two pairs a loaded cell: each box
// with its tile. Neighbouring tiles touch, but Bullet's default filters pair no two static bodies.
static bool pairs_right(btBroadphaseInterface& broadphase, int cells) {
  const btBroadphasePairArray& pairs = broadphase.getOverlappingPairCache()->getOverlappingPairArray();
  for (int i = 0; i < pairs.size(); ++i) {
    const btCollisionObject* a = static_cast<btCollisionObject*>(pairs[i].m_pProxy0->m_clientObject);
    const btCollisionObject* b = static_cast<btCollisionObject*>(pairs[i].m_pProxy1->m_clientObject);
    if (a->getUserIndex() != b->getUserIndex()) return false;
  }
  return pairs.size() == boxes_per_cell * cells;
}

static bool boxes_standing(const CellBodies& bodies) {
  for (size_t i = 1; i < bodies.size(); ++i)  // bodies[0] is the tile
    if (bodies[i]->getWorldTransform().getOrigin().y() < half - sink_limit) return false;
  return true;
}

// Unloads the cells farther than `reach` from the player's; false if a box of theirs had fallen.
static bool unload_far(btDynamicsWorld& world, std::map<int, CellBodies>& loaded, int here) {
  bool standing = true;
  for (std::map<int, CellBodies>::iterator it = loaded.begin(); it != loaded.end();) {
    if (std::abs(it->first - here) <= reach) {
      ++it;
      continue;
    }
    standing = boxes_standing(it->second) && standing;
    for (size_t i = 0; i < it->second.size(); ++i) world.removeRigidBody(it->second[i].get());
    it = loaded.erase(it);
  }
  return standing;
}

int main() {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btAdaptiveGridBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btBoxShape tile_shape(btVector3(cell_size / 2, half, cell_size / 2)), box_shape(btVector3(half, half, half));
  std::map<int, CellBodies> loaded;  // by cell; declared before the world, so destroyed after it
  btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
  world.setGravity(btVector3(0, -10, 0));

  const int path[] = {0, 1, 2, 3, 4, 5, 4, 3, 2, 1, 0, -1};  // the player's cell, there and back
  const int steps_per_cell = 20;
  int step = 0;
  bool ok = true;
  for (int here : path) {
    ok = unload_far(world, loaded, here) && ok;
    for (int cell = here - reach; cell <= here + reach; ++cell)
      if (!loaded.count(cell)) load(world, tile_shape, box_shape, cell, loaded[cell]);
    for (int i = 0; i < steps_per_cell; ++i, ++step) {
      world.stepSimulation(btScalar(1) / 60, 1, btScalar(1) / 60);
      if (pairs_right(broadphase, static_cast<int>(loaded.size()))) continue;
      std::fprintf(stderr, "streaming: wrong pairs after step %d\n", step);
      return 1;
    }
  }
  std::printf("streaming: %d steps, %d cells loaded at the end, %d pairs\n", step, static_cast<int>(loaded.size()),
              broadphase.getOverlappingPairCache()->getNumOverlappingPairs());
  if (!ok) std::fprintf(stderr, "streaming: a box fell off its tile\n");
  return ok ? 0 : 1;
}
