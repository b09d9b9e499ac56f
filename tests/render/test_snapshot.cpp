// The snapshot of a Bullet world: every shape kind becomes the instances or cached mesh it should,
// with its state, and meshes are built once per shape. No GL needed.

#include <gtest/gtest.h>

#include <array>
#include <memory>

#include <btBulletDynamicsCommon.h>
#include <BulletCollision/CollisionShapes/btHeightfieldTerrainShape.h>
#include <BulletCollision/CollisionShapes/btScaledBvhTriangleMeshShape.h>

#include <glm/geometric.hpp>

#include "agrid_render/snapshot.h"
#include "agrid_scenes/bullet_harness.h"

namespace agrid::render {
namespace {

using scenes::BulletHarness;

/// A 3x3 height field's samples.
constexpr int kHeightSide = 3;
constexpr std::array<float, kHeightSide * kHeightSide> kHeights = {0, 1, 0, 1, 2, 1, 0, 1, 0};
constexpr float kTolerance = 1e-5f;

btTransform at(btScalar x, btScalar y, btScalar z) { return btTransform(btQuaternion::getIdentity(), btVector3(x, y, z)); }

// A world with one object of every shape kind the snapshot knows.
struct ShapeZoo {
  BulletHarness harness;
  btRigidBody* sphere = nullptr;

  ShapeZoo() {
    harness.add_body(harness.own(std::make_unique<btBoxShape>(btVector3(1, 2, 3))), 1, at(0, 5, 0));
    sphere = harness.add_body(harness.own(std::make_unique<btSphereShape>(btScalar(0.5))), 1, at(4, 5, 0));
    harness.add_body(harness.own(std::make_unique<btCapsuleShapeX>(btScalar(0.3), btScalar(2))), 1, at(0, 0, 0));
    auto hull = std::make_unique<btConvexHullShape>();
    for (const btVector3& p : {btVector3(0, 0, 0), btVector3(1, 0, 0), btVector3(0, 1, 0), btVector3(0, 0, 1)}) hull->addPoint(p);
    harness.add_body(harness.own(std::move(hull)), 1, at(-4, 5, 0));
    auto compound = std::make_unique<btCompoundShape>();
    btCollisionShape* child = harness.own(std::make_unique<btBoxShape>(btVector3(0.5, 0.5, 0.5)));
    compound->addChildShape(at(1, 0, 0), child);
    compound->addChildShape(at(-1, 0, 0), child);
    harness.add_body(harness.own(std::move(compound)), 1, at(0, 9, 0));
    harness.add_body(harness.own(std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), btScalar(-1))), 0, at(0, 0, 0));
    btTriangleMesh* mesh = harness.make_triangle_mesh();
    mesh->addTriangle(btVector3(-10, -1, -10), btVector3(10, -1, -10), btVector3(10, -1, 10));
    mesh->addTriangle(btVector3(-10, -1, -10), btVector3(10, -1, 10), btVector3(-10, -1, 10));
    auto* bvh = harness.own(std::make_unique<btBvhTriangleMeshShape>(mesh, true));
    harness.add_body(bvh, 0, at(0, 0, 0));
    harness.add_body(harness.own(std::make_unique<btScaledBvhTriangleMeshShape>(bvh, btVector3(2, 1, 2))), 0, at(0, -3, 0));
    harness.add_body(harness.own(std::make_unique<btHeightfieldTerrainShape>(kHeightSide, kHeightSide, kHeights.data(),
                                                                             btScalar(1), btScalar(0), btScalar(2), 1,
                                                                             PHY_FLOAT, false)),
                     0, at(0, -5, 0));
    sphere->setActivationState(ISLAND_SLEEPING);
  }
};

TEST(Snapshot, EveryShapeKindBecomesItsInstancesOrMesh) {
  ShapeZoo zoo;
  MeshCache cache;
  const Snapshot s = take_snapshot(zoo.harness.world(), cache);
  EXPECT_EQ(s.objects, 9u);
  EXPECT_EQ(s.boxes.size(), 3u);      // the box and the compound's two children
  EXPECT_EQ(s.spheres.size(), 3u);    // the sphere and the capsule's two caps
  EXPECT_EQ(s.cylinders.size(), 1u);  // the capsule's side
  ASSERT_EQ(s.meshes.size(), 5u);     // hull, plane, triangle mesh, scaled mesh, height field
  for (const MeshInstance& m : s.meshes) {
    ASSERT_NE(m.mesh, nullptr);
    EXPECT_GT(m.mesh->vertex_count(), 0u);
    EXPECT_EQ(m.mesh->vertex_count() % 3, 0u);
  }
  EXPECT_EQ(cache.size(), 5u);
}

TEST(Snapshot, StatesAreStaticAsleepAndAwake) {
  ShapeZoo zoo;
  MeshCache cache;
  const Snapshot s = take_snapshot(zoo.harness.world(), cache);
  EXPECT_EQ(s.boxes.front().state, BodyState::awake);
  EXPECT_EQ(s.spheres.front().state, BodyState::asleep);
  EXPECT_EQ(s.meshes.front().instance.state, BodyState::awake);  // the hull, in the order of the objects
  for (std::size_t i = 1; i < s.meshes.size(); ++i) EXPECT_EQ(s.meshes[i].instance.state, BodyState::static_body);
  zoo.sphere->forceActivationState(DISABLE_SIMULATION);
  EXPECT_EQ(take_snapshot(zoo.harness.world(), cache).spheres.front().state, BodyState::asleep);
}

TEST(Snapshot, InstancesNameTheirObjects) {
  ShapeZoo zoo;
  MeshCache cache;
  const Snapshot s = take_snapshot(zoo.harness.world(), cache);
  // In the order the zoo adds them: box 0, sphere 1, capsule 2, hull 3, compound 4, plane 5 ...
  EXPECT_EQ(s.boxes[0].object, 0u);
  EXPECT_EQ(s.boxes[1].object, 4u);  // the compound's children
  EXPECT_EQ(s.boxes[2].object, 4u);
  EXPECT_EQ(s.spheres[0].object, 1u);
  EXPECT_EQ(s.spheres[1].object, 2u);  // the capsule's caps and side
  EXPECT_EQ(s.spheres[2].object, 2u);
  EXPECT_EQ(s.cylinders[0].object, 2u);
  for (std::size_t i = 0; i < s.meshes.size(); ++i) EXPECT_EQ(s.meshes[i].instance.object, i == 0 ? 3u : 4u + i);
}

TEST(Snapshot, BoxesAndCapsulesAreScaledAndTurned) {
  ShapeZoo zoo;
  MeshCache cache;
  const Snapshot s = take_snapshot(zoo.harness.world(), cache);
  const glm::mat4& box = s.boxes.front().model;
  // Half extents with the margin: the unit cube's axes scaled by them.
  EXPECT_NEAR(box[1][1], 2.0f, kTolerance);
  EXPECT_NEAR(box[2][2], 3.0f, kTolerance);
  EXPECT_NEAR(box[3][1], 5.0f, kTolerance);
  // btCapsuleShapeX: the cylinder's y axis on x, half height 1; the caps at x = -1 and 1.
  const glm::mat4& side = s.cylinders.front().model;
  EXPECT_NEAR(side[1][0], 1.0f, kTolerance);
  EXPECT_NEAR(side[1][1], 0.0f, kTolerance);
  EXPECT_NEAR(glm::length(glm::vec3(side[0])), 0.3f, kTolerance);
  EXPECT_NEAR(s.spheres[1].model[3][0], -1.0f, kTolerance);
  EXPECT_NEAR(s.spheres[2].model[3][0], 1.0f, kTolerance);
  EXPECT_NEAR(glm::length(glm::vec3(s.spheres[1].model[0])), 0.3f, kTolerance);
}

TEST(Snapshot, MeshesAreBuiltOncePerShape) {
  ShapeZoo zoo;
  MeshCache cache;
  const Snapshot first = take_snapshot(zoo.harness.world(), cache);
  zoo.harness.step(10);
  const Snapshot second = take_snapshot(zoo.harness.world(), cache);
  EXPECT_EQ(cache.size(), 5u);
  ASSERT_EQ(first.meshes.size(), second.meshes.size());
  for (std::size_t i = 0; i < first.meshes.size(); ++i) EXPECT_EQ(first.meshes[i].mesh, second.meshes[i].mesh);
}

TEST(Snapshot, BoundsFrameTheMovingObjects) {
  ShapeZoo zoo;
  MeshCache cache;
  const Snapshot s = take_snapshot(zoo.harness.world(), cache);
  EXPECT_EQ(s.aabbs.size(), 8u);  // all but the plane's infinite one
  // The moving bodies lie within x in [-4, 5]; the static meshes reach +-20.
  EXPECT_LT(s.bounds.max.x, 6.0f);
  EXPECT_GT(s.bounds.min.x, -5.0f);
  EXPECT_GE(s.bounds.max.y, 9.5f);  // the compound's top
}

TEST(Snapshot, BoundsOfAStaticWorldFrameItAll) {
  BulletHarness harness;
  harness.add_body(harness.own(std::make_unique<btBoxShape>(btVector3(20, 1, 20))), 0, at(0, 0, 0));
  MeshCache cache;
  const Snapshot s = take_snapshot(harness.world(), cache);
  EXPECT_GE(s.bounds.max.x, 20.0f);
  EXPECT_LE(s.bounds.min.x, -20.0f);
}

TEST(Snapshot, EmptyWorldHasUnitBounds) {
  BulletHarness harness;
  MeshCache cache;
  const Snapshot s = take_snapshot(harness.world(), cache);
  EXPECT_EQ(s.objects, 0u);
  EXPECT_TRUE(s.boxes.empty() && s.spheres.empty() && s.cylinders.empty() && s.meshes.empty());
  EXPECT_EQ(s.bounds.min, glm::vec3(-1.0f));
  EXPECT_EQ(s.bounds.max, glm::vec3(1.0f));
}

}  // namespace
}  // namespace agrid::render
