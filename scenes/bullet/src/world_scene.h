#pragma once
// The registry behind BulletWorld: what a scene is (its name, size, world bounds and build
// function) and the builder through which a scene makes its world and hands it over.

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include <btBulletDynamicsCommon.h>

#include "agrid_scenes/bullet_worlds.h"

namespace agrid::scenes::detail {

/// splitmix64: the worlds' own reproducible numbers.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  /// Uniform in [lo, hi).
  btScalar uniform(btScalar lo, btScalar hi) {
    return lo + (hi - lo) * static_cast<btScalar>(static_cast<double>(next() >> kDropBits) * kUnitPerStep);
  }
  btVector3 vector(btScalar lo, btScalar hi) { return {uniform(lo, hi), uniform(lo, hi), uniform(lo, hi)}; }
  /// Uniform in [0, n): the top 32 bits scaled, no modulo bias worth the name.
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(((next() >> kHalfBits) * n) >> kHalfBits); }

 private:
  /// uniform() keeps 24 bits, a float's mantissa, so that every value is exact.
  static constexpr int kDropBits = 40;
  static constexpr double kUnitPerStep = 0x1.0p-24;
  static constexpr int kHalfBits = 32;

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t state_;
};

/// A segment cast with btCollisionWorld::rayTest.
struct Ray {
  btVector3 from;
  btVector3 to;
};

/// What a scene uses to make its world, and the owner of all it makes: shapes, meshes, motion
/// states, bodies and constraints. Destroying it removes the constraints from the world, then
/// the bodies, then deletes everything.
class WorldBuilder {
 public:
  WorldBuilder(btDiscreteDynamicsWorld& world, std::uint64_t seed);
  ~WorldBuilder();
  WorldBuilder(const WorldBuilder&) = delete;
  WorldBuilder& operator=(const WorldBuilder&) = delete;

  /// A new shape, owned here.
  template <class Shape, class... Args>
  Shape* make_shape(Args&&... args) {
    auto shape = std::make_unique<Shape>(std::forward<Args>(args)...);
    Shape* raw = shape.get();
    shapes_.push_back(std::move(shape));
    return raw;
  }
  /// An empty triangle mesh to fill with addTriangle, owned here.
  btTriangleMesh* make_triangle_mesh();
  /// An indexed mesh over `vertices` (x, y, z each) and `triangles` (three vertex indices each).
  btTriangleIndexVertexArray* make_indexed_mesh(std::vector<btScalar> vertices, std::vector<int> triangles);

  /// Adds a rigid body at `transform` with a motion state; static if `mass` is 0.
  btRigidBody* add_body(btCollisionShape* shape, btScalar mass, const btTransform& transform);
  /// Adds an unrotated body at `position`, moving at `velocity` if it is dynamic.
  btRigidBody* add_body(btCollisionShape* shape, btScalar mass, const btVector3& position, const btVector3& velocity);
  /// Adds a constraint between bodies added here; as btDynamicsWorld::addConstraint.
  void add_constraint(std::unique_ptr<btTypedConstraint> constraint, bool disable_linked_collisions);

  void set_gravity(const btVector3& gravity) { world_.setGravity(gravity); }
  [[nodiscard]] btContactSolverInfo& solver_info() noexcept { return world_.getSolverInfo(); }
  /// Rays to cast after every stepSimulation, each with a ClosestRayResultCallback.
  void cast_every_step(std::vector<Ray> rays) { rays_ = std::move(rays); }
  [[nodiscard]] Random& random() noexcept { return random_; }

  /// The bodies in the order they were added.
  [[nodiscard]] std::span<const std::unique_ptr<btRigidBody>> bodies() const noexcept { return bodies_; }
  [[nodiscard]] std::span<const Ray> rays() const noexcept { return rays_; }

 private:
  /// A body with its motion state, owned here, not yet in the world.
  btRigidBody* make_body(btCollisionShape* shape, btScalar mass, const btTransform& transform);

  /// The arrays a btTriangleIndexVertexArray points into.
  struct MeshArrays {
    std::vector<btScalar> vertices;
    std::vector<int> triangles;
  };

  btDiscreteDynamicsWorld& world_;
  Random random_;
  std::vector<Ray> rays_;
  // Declared in the order of need: each is destroyed before what it points into.
  std::vector<std::unique_ptr<MeshArrays>> mesh_arrays_;
  std::vector<std::unique_ptr<btStridingMeshInterface>> meshes_;
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::vector<std::unique_ptr<btDefaultMotionState>> motion_states_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;
  std::vector<std::unique_ptr<btTypedConstraint>> constraints_;
};

/// A box of the world: a scene's extent, bt32BitAxisSweep3's world bounds.
struct Extent {
  btVector3 lo;
  btVector3 hi;
};

/// A scene: how it is named and sized, where it lies, and how it is built.
struct WorldScene {
  WorldSceneInfo info;
  /// Where the scene lies with `bodies` bodies (before the broadphase's margin is added).
  Extent (*extent)(std::uint32_t bodies);
  /// Makes the scene in the builder's world; `bodies` is ignored when info.fixed_bodies.
  void (*build)(WorldBuilder& builder, std::uint32_t bodies);
};

/// The A/B scenes (ab_scenes.cpp).
[[nodiscard]] std::span<const WorldScene> ab_scenes();
/// The eight scenes of Bullet's examples/Benchmarks/BenchmarkDemo.cpp (bench_scenes.cpp).
[[nodiscard]] std::span<const WorldScene> bench_scenes();

}  // namespace agrid::scenes::detail
