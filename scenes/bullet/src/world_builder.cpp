#include "world_scene.h"

namespace agrid::scenes::detail {

/// Bytes between consecutive vertices and consecutive triangles of an indexed mesh.
constexpr int kVertexStride = 3 * sizeof(btScalar);
constexpr int kTriangleStride = 3 * sizeof(int);

WorldBuilder::WorldBuilder(btDiscreteDynamicsWorld& world, std::uint64_t seed) : world_(world), random_(seed) {}

WorldBuilder::~WorldBuilder() {
  // A constraint holds both its bodies: it leaves the world first.
  for (auto& constraint : constraints_) world_.removeConstraint(constraint.get());
  for (auto& body : bodies_) world_.removeRigidBody(body.get());
}

btTriangleMesh* WorldBuilder::make_triangle_mesh() {
  auto mesh = std::make_unique<btTriangleMesh>();
  btTriangleMesh* raw = mesh.get();
  meshes_.push_back(std::move(mesh));
  return raw;
}

btTriangleIndexVertexArray* WorldBuilder::make_indexed_mesh(std::vector<btScalar> vertices,
                                                             std::vector<int> triangles) {
  auto arrays = std::make_unique<MeshArrays>(MeshArrays{std::move(vertices), std::move(triangles)});
  auto mesh = std::make_unique<btTriangleIndexVertexArray>(
      static_cast<int>(arrays->triangles.size() / 3), arrays->triangles.data(), kTriangleStride,
      static_cast<int>(arrays->vertices.size() / 3), arrays->vertices.data(), kVertexStride);
  btTriangleIndexVertexArray* raw = mesh.get();
  mesh_arrays_.push_back(std::move(arrays));
  meshes_.push_back(std::move(mesh));
  return raw;
}

btRigidBody* WorldBuilder::make_body(btCollisionShape* shape, btScalar mass, const btTransform& transform) {
  btVector3 inertia(0, 0, 0);
  if (mass > 0) shape->calculateLocalInertia(mass, inertia);
  motion_states_.push_back(std::make_unique<btDefaultMotionState>(transform));
  btRigidBody::btRigidBodyConstructionInfo info(mass, motion_states_.back().get(), shape, inertia);
  bodies_.push_back(std::make_unique<btRigidBody>(info));
  return bodies_.back().get();
}

btRigidBody* WorldBuilder::add_body(btCollisionShape* shape, btScalar mass, const btTransform& transform) {
  btRigidBody* body = make_body(shape, mass, transform);
  world_.addRigidBody(body);
  return body;
}

btRigidBody* WorldBuilder::add_body(btCollisionShape* shape, btScalar mass, const btVector3& position,
                                    const btVector3& velocity) {
  btTransform transform;
  transform.setIdentity();
  transform.setOrigin(position);
  btRigidBody* body = make_body(shape, mass, transform);
  // Set before the body joins the world, as the A/B scenes always did.
  if (mass > 0) body->setLinearVelocity(velocity);
  world_.addRigidBody(body);
  return body;
}

void WorldBuilder::add_constraint(std::unique_ptr<btTypedConstraint> constraint, bool disable_linked_collisions) {
  world_.addConstraint(constraint.get(), disable_linked_collisions);
  constraints_.push_back(std::move(constraint));
}

}  // namespace agrid::scenes::detail
