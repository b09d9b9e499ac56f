#pragma once
// Bullet worlds for A/B runs of broadphases: the same bodies, the same steps, one broadphase
// swapped for another, with the broadphase's own time measured.

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include <btBulletDynamicsCommon.h>

namespace agrid::scenes {

/// The broadphases an A/B run compares.
enum class BroadphaseKind { dbvt, sap, agrid };

/// "dbvt" (btDbvtBroadphase), "sap" (bt32BitAxisSweep3), "agrid" (btAdaptiveGridBroadphase).
[[nodiscard]] std::string_view name(BroadphaseKind kind);

/// A btBroadphaseInterface that forwards to another and measures the broadphase's share of a
/// step: every setAabb and calculateOverlappingPairs. setAabb calls are recorded as they come
/// and replayed, timed, in one run just before calculateOverlappingPairs (timing each call
/// would cost more than some broadphases' work); so between the two, the inner broadphase still
/// holds the old boxes, which the worlds here never ask for.
class TimedBroadphase : public btBroadphaseInterface {
 public:
  explicit TimedBroadphase(std::unique_ptr<btBroadphaseInterface> inner);
  ~TimedBroadphase() override;

  btBroadphaseProxy* createProxy(const btVector3& aabbMin, const btVector3& aabbMax, int shapeType, void* userPtr,
                                 int group, int mask, btDispatcher* dispatcher) override;
  void destroyProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher) override;
  void setAabb(btBroadphaseProxy* proxy, const btVector3& aabbMin, const btVector3& aabbMax, btDispatcher* dispatcher) override;
  void getAabb(btBroadphaseProxy* proxy, btVector3& aabbMin, btVector3& aabbMax) const override;
  void rayTest(const btVector3& rayFrom, const btVector3& rayTo, btBroadphaseRayCallback& rayCallback,
               const btVector3& aabbMin = btVector3(0, 0, 0), const btVector3& aabbMax = btVector3(0, 0, 0)) override;
  void aabbTest(const btVector3& aabbMin, const btVector3& aabbMax, btBroadphaseAabbCallback& callback) override;
  void calculateOverlappingPairs(btDispatcher* dispatcher) override;
  btOverlappingPairCache* getOverlappingPairCache() override;
  const btOverlappingPairCache* getOverlappingPairCache() const override;
  void getBroadphaseAabb(btVector3& aabbMin, btVector3& aabbMax) const override;
  void resetPool(btDispatcher* dispatcher) override;
  void printStats() override;

  /// The broadphase's time in the last calculateOverlappingPairs, setAabb replay included.
  [[nodiscard]] std::chrono::nanoseconds last_step_time() const noexcept { return last_; }
  [[nodiscard]] btBroadphaseInterface& inner() noexcept { return *inner_; }

 private:
  void flush(btDispatcher* dispatcher);

  /// A recorded setAabb: 32 bytes, so that replaying costs little beside the broadphase's work.
  struct SetAabb {
    btBroadphaseProxy* proxy;
    float bounds[6];  ///< min x, y, z, max x, y, z
  };
  std::unique_ptr<btBroadphaseInterface> inner_;
  std::vector<SetAabb> pending_;
  btDispatcher* pending_dispatcher_ = nullptr;
  std::chrono::nanoseconds last_{0};
};

/// What the bodies of a world are doing: to check that broadphases give the same physics.
struct PhysicsSummary {
  std::uint32_t dynamic_bodies = 0;
  std::uint32_t asleep = 0;       ///< Dynamic bodies deactivated (island sleeping).
  double mean_height = 0;         ///< Mean y of the dynamic bodies.
  double max_height = 0;
  double kinetic_energy = 0;      ///< Linear and rotational, of the dynamic bodies.
  std::uint32_t left_world = 0;   ///< Dynamic bodies outside the scene's bounds (fell or flew away).
  std::uint32_t not_finite = 0;   ///< Dynamic bodies with a NaN or infinite position.
};

/// The A/B worlds, all stepped at 1/60 s with one substep:
/// * "scatter": bodies (unit boxes and spheres, alternating) with no gravity, centres uniform in
///   a cube of side 4 cbrt(N), velocities uniform in [-2, 2]^3: all moving, sparse.
/// * "cluster": the same bodies with centres in a 60-unit cube and velocities in [-0.5, 0.5]^3,
///   no gravity, plus 3 bodies 1,500 units away: dense, a teapot in a stadium.
/// * "pile": bodies dropped from a cubic lattice (spacing 1.5) onto a static plane, gravity:
///   contacts and sleeping.
/// * "static-city": N static unit-footprint boxes (heights 1 to 3) on a grid of spacing 2 and
///   N / 100 dynamic spheres raining on them from above, gravity.
/// * "ball-collapse": the parallel sweep-and-prune paper's scene: bodies uniform in a ball of
///   radius 2 cbrt(N), velocities toward its centre (speed 5), no gravity: they collide in a
///   dense cluster and spread out.
/// * "plane-pass": the paper's plane scene: two square lattices of unit cubes (spacing 1.5), one
///   above the other, moving toward each other (speed 2) so that all cross one plane at once.
/// * "mixed-shapes": boxes, spheres, capsules and convex hulls dropped on a triangle-mesh
///   ground: every narrowphase path.
[[nodiscard]] std::span<const std::string_view> world_scene_names();

/// A Bullet world of one scene with one broadphase, and everything it owns.
class BulletWorld {
 public:
  /// Throws std::invalid_argument for an unknown scene or zero bodies.
  BulletWorld(std::string_view scene, BroadphaseKind kind, std::uint32_t bodies, std::uint64_t seed = 1);
  ~BulletWorld();
  BulletWorld(const BulletWorld&) = delete;
  BulletWorld& operator=(const BulletWorld&) = delete;

  /// One step of 1/60 s.
  void step();

  [[nodiscard]] btDiscreteDynamicsWorld& world() noexcept { return *world_; }
  [[nodiscard]] TimedBroadphase& broadphase() noexcept { return *broadphase_; }
  /// Pairs in the broadphase's pair cache.
  [[nodiscard]] int pairs() const;

  /// Pairs of proxies whose stored AABBs overlap and whose filters pass, but that the pair cache
  /// lacks: must be 0 for any correct broadphase (exact, by agrid::find_all_pairs over the
  /// stored AABBs; outside any timing).
  [[nodiscard]] std::uint64_t missing_pairs() const;

  /// What the dynamic bodies are doing now.
  [[nodiscard]] PhysicsSummary summary() const;

  /// Positions and sleeping state of the dynamic bodies, for pictures.
  struct BodyState {
    float x, y, z;
    bool asleep;
  };
  [[nodiscard]] std::vector<BodyState> body_states() const;

 private:
  void add_body(btCollisionShape* shape, float mass, const btVector3& position, const btVector3& velocity);

  std::unique_ptr<btDefaultCollisionConfiguration> configuration_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<TimedBroadphase> broadphase_;
  std::unique_ptr<btSequentialImpulseConstraintSolver> solver_;
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  btVector3 bounds_min_;
  btVector3 bounds_max_;
  std::unique_ptr<btTriangleMesh> ground_mesh_;
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::vector<std::unique_ptr<btDefaultMotionState>> motion_states_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;
};

}  // namespace agrid::scenes
