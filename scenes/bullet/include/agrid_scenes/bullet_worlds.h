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

/// The A/B worlds, all stepped at 1/60 s with one substep:
/// * "scatter": bodies (unit boxes and spheres, alternating) with no gravity, centres uniform in
///   a cube of side 4 cbrt(N), velocities uniform in [-2, 2]^3: all moving, sparse.
/// * "cluster": the same bodies with centres in a 60-unit cube and velocities in [-0.5, 0.5]^3,
///   no gravity, plus 3 bodies 1,500 units away: dense, a teapot in a stadium.
/// * "pile": bodies dropped from a cubic lattice (spacing 1.5) onto a static plane, gravity:
///   contacts and sleeping.
/// * "static-city": N static unit-footprint boxes (heights 1 to 3) on a grid of spacing 2 and
///   N / 100 dynamic spheres raining on them from above, gravity.
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

 private:
  void add_body(btCollisionShape* shape, float mass, const btVector3& position, const btVector3& velocity);

  std::unique_ptr<btDefaultCollisionConfiguration> configuration_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<TimedBroadphase> broadphase_;
  std::unique_ptr<btSequentialImpulseConstraintSolver> solver_;
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::vector<std::unique_ptr<btDefaultMotionState>> motion_states_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;
};

}  // namespace agrid::scenes
