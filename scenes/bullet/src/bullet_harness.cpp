#include "agrid_scenes/bullet_harness.h"

#include <BulletCollision/BroadphaseCollision/btAxisSweep3.h>
#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/BroadphaseCollision/btSimpleBroadphase.h>

#include <algorithm>
#include <stdexcept>

#include "agrid/bullet/btAdaptiveGridBroadphase.h"

namespace agrid::scenes {
namespace {

/// Bytes between consecutive vertices and consecutive triangles of an indexed mesh.
constexpr int kVertexStride = 3 * sizeof(btScalar);
constexpr int kTriangleStride = 3 * sizeof(int);
/// bt32BitAxisSweep3's handle capacity: Bullet's default.
constexpr unsigned kSapMaxHandles = 1500000;

std::unique_ptr<btBroadphaseInterface> make_broadphase(const HarnessDef& def, btOverlappingPairCache* cache) {
  switch (def.kind) {
    case BroadphaseKind::dbvt: return std::make_unique<btDbvtBroadphase>(cache);
    case BroadphaseKind::sap: return std::make_unique<bt32BitAxisSweep3>(def.sap_min, def.sap_max, kSapMaxHandles, cache);
    case BroadphaseKind::simple: return std::make_unique<btSimpleBroadphase>(def.simple_max_proxies, cache);
    case BroadphaseKind::agrid: return std::make_unique<btAdaptiveGridBroadphase>(cache, def.config);
    case BroadphaseKind::agrid_fat: {
      auto grid = std::make_unique<btAdaptiveGridBroadphase>(cache, def.config);
      grid->setFatPairMargin(gDbvtMargin);  // btDbvtBroadphase's margin (0.05)
      return grid;
    }
  }
  throw std::invalid_argument("agrid::scenes: unknown broadphase");
}

}  // namespace

BulletHarness::BulletHarness(HarnessDef def)
    : kind_(def.kind), give_motion_states_(def.motion_states), user_cache_(std::move(def.user_cache)) {
  collision_config_ = std::make_unique<btDefaultCollisionConfiguration>();
  dispatcher_ = std::make_unique<btCollisionDispatcher>(collision_config_.get());
  broadphase_ = make_broadphase(def, user_cache_.get());
  if (is_agrid(def.kind)) grid_ = static_cast<btAdaptiveGridBroadphase*>(broadphase_.get());
  if (def.timed) {
    auto timed = std::make_unique<TimedBroadphase>(std::move(broadphase_));
    timed_ = timed.get();
    broadphase_ = std::move(timed);
  }
  solver_ = std::make_unique<btSequentialImpulseConstraintSolver>();
  world_ = std::make_unique<btDiscreteDynamicsWorld>(dispatcher_.get(), broadphase_.get(), solver_.get(),
                                                     collision_config_.get());
  world_->setGravity(def.gravity);
}

BulletHarness::~BulletHarness() {
  for (const auto& action : actions_) world_->removeAction(action.get());
  // A constraint holds both its bodies: it leaves the world first.
  for (const auto& constraint : constraints_) world_->removeConstraint(constraint.get());
  // The world destroys the proxies of the objects still in it (their pairs fire the callbacks,
  // which may touch ghost objects): it goes first, then what it refers to.
  world_.reset();
  solver_.reset();
  broadphase_.reset();
  dispatcher_.reset();
  collision_config_.reset();
  user_cache_.reset();
}

btTriangleMesh* BulletHarness::make_triangle_mesh() {
  auto mesh = std::make_unique<btTriangleMesh>();
  btTriangleMesh* raw = mesh.get();
  meshes_.push_back(std::move(mesh));
  return raw;
}

btTriangleIndexVertexArray* BulletHarness::make_indexed_mesh(std::vector<btScalar> vertices, std::vector<int> triangles) {
  auto arrays = std::make_unique<MeshArrays>(MeshArrays{std::move(vertices), std::move(triangles)});
  auto mesh = std::make_unique<btTriangleIndexVertexArray>(
      static_cast<int>(arrays->triangles.size() / 3), arrays->triangles.data(), kTriangleStride,
      static_cast<int>(arrays->vertices.size() / 3), arrays->vertices.data(), kVertexStride);
  btTriangleIndexVertexArray* raw = mesh.get();
  mesh_arrays_.push_back(std::move(arrays));
  meshes_.push_back(std::move(mesh));
  return raw;
}

btRigidBody* BulletHarness::make_body(btCollisionShape* shape, btScalar mass, const btTransform& transform) {
  btVector3 inertia(0, 0, 0);
  if (mass > 0) shape->calculateLocalInertia(mass, inertia);
  btMotionState* motion_state = nullptr;
  if (give_motion_states_) {
    motion_states_.push_back(std::make_unique<btDefaultMotionState>(transform));
    motion_state = motion_states_.back().get();
  }
  btRigidBody::btRigidBodyConstructionInfo info(mass, motion_state, shape, inertia);
  info.m_startWorldTransform = transform;
  auto body = std::make_unique<btRigidBody>(info);
  body->setUserIndex2(created_++);
  btRigidBody* raw = body.get();
  bodies_.push_back(std::move(body));
  body_list_.push_back(raw);
  return raw;
}

btRigidBody* BulletHarness::add_body(btCollisionShape* shape, btScalar mass, const btTransform& transform, int group,
                                     int mask) {
  btRigidBody* body = make_body(shape, mass, transform);
  if (group == 0) {
    world_->addRigidBody(body);
  } else {
    world_->addRigidBody(body, group, mask);
  }
  return body;
}

void BulletHarness::destroy_body(btRigidBody* body) {
  world_->removeRigidBody(body);
  body_list_.erase(std::find(body_list_.begin(), body_list_.end(), body));
  const auto it = std::find_if(bodies_.begin(), bodies_.end(), [&](const auto& b) { return b.get() == body; });
  bodies_.erase(it);
}

void BulletHarness::add_constraint(std::unique_ptr<btTypedConstraint> constraint, bool disable_linked_collisions) {
  world_->addConstraint(constraint.get(), disable_linked_collisions);
  constraints_.push_back(std::move(constraint));
}

void BulletHarness::own_action(std::unique_ptr<btActionInterface> action) {
  world_->addAction(action.get());
  actions_.push_back(std::move(action));
}

void BulletHarness::own_callback(std::unique_ptr<btOverlappingPairCallback> callback) {
  callbacks_.push_back(std::move(callback));
}

void BulletHarness::own_filter(std::unique_ptr<btOverlapFilterCallback> filter) { filters_.push_back(std::move(filter)); }

void BulletHarness::step(int steps) {
  // One substep of exactly kTimeStep per call: no interpolation, no catching up.
  for (int i = 0; i < steps; ++i) world_->stepSimulation(kTimeStep, 1, kTimeStep);
}

}  // namespace agrid::scenes
