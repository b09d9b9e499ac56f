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
#include "agrid_scenes/random.h"

namespace agrid::scenes::detail {

/// The scene library's generator (agrid_scenes/random.h) in Bullet's terms: btScalar and btVector3.
class Random {
 public:
  explicit Random(std::uint64_t seed) noexcept : random_(seed) {}
  /// Uniform in [lo, hi).
  btScalar uniform(btScalar lo, btScalar hi) noexcept { return random_.uniform(lo, hi); }
  /// Uniform in [lo, hi) per axis, drawn x, y, z.
  btVector3 vector(btScalar lo, btScalar hi) noexcept { return {uniform(lo, hi), uniform(lo, hi), uniform(lo, hi)}; }
  /// Uniform in [0, n) for n >= 1.
  std::uint32_t below(std::uint32_t n) noexcept { return random_.below(n); }

 private:
  agrid::scenes::Random random_;
};

/// A segment cast with btCollisionWorld::rayTest.
struct Ray {
  btVector3 from;
  btVector3 to;
};

/// What a scene uses to make its world in a BulletHarness, which owns all it makes; the
/// builder keeps the scene's random numbers and rays.
class WorldBuilder {
 public:
  WorldBuilder(BulletHarness& harness, std::uint64_t seed);
  WorldBuilder(const WorldBuilder&) = delete;
  WorldBuilder& operator=(const WorldBuilder&) = delete;

  /// A new shape, owned by the harness.
  template <class Shape, class... Args>
  Shape* make_shape(Args&&... args) {
    return harness_.own(std::make_unique<Shape>(std::forward<Args>(args)...));
  }
  /// An empty triangle mesh to fill with addTriangle, owned by the harness.
  btTriangleMesh* make_triangle_mesh() { return harness_.make_triangle_mesh(); }
  /// An indexed mesh over `vertices` (x, y, z each) and `triangles` (three vertex indices each).
  btTriangleIndexVertexArray* make_indexed_mesh(std::vector<btScalar> vertices, std::vector<int> triangles) {
    return harness_.make_indexed_mesh(std::move(vertices), std::move(triangles));
  }

  /// Adds a rigid body at `transform` with a motion state; static if `mass` is 0.
  btRigidBody* add_body(btCollisionShape* shape, btScalar mass, const btTransform& transform) {
    return harness_.add_body(shape, mass, transform);
  }
  /// Adds an unrotated body at `position`, moving at `velocity` if it is dynamic.
  btRigidBody* add_body(btCollisionShape* shape, btScalar mass, const btVector3& position, const btVector3& velocity);
  /// Adds a constraint between bodies added here; as btDynamicsWorld::addConstraint.
  void add_constraint(std::unique_ptr<btTypedConstraint> constraint, bool disable_linked_collisions) {
    harness_.add_constraint(std::move(constraint), disable_linked_collisions);
  }

  void set_gravity(const btVector3& gravity) { harness_.world().setGravity(gravity); }
  [[nodiscard]] btContactSolverInfo& solver_info() noexcept { return harness_.world().getSolverInfo(); }
  /// Rays to cast after every stepSimulation, each with a ClosestRayResultCallback.
  void cast_every_step(std::vector<Ray> rays) { rays_ = std::move(rays); }
  [[nodiscard]] Random& random() noexcept { return random_; }

  [[nodiscard]] std::span<const Ray> rays() const noexcept { return rays_; }

 private:
  BulletHarness& harness_;
  Random random_;
  std::vector<Ray> rays_;
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
