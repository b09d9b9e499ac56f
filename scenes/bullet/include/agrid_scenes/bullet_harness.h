#pragma once
// The one Bullet world harness of scenes, demos, benchmarks and the adapter's tests: a
// btDiscreteDynamicsWorld on a chosen broadphase that owns all it allocates.

#include <memory>
#include <vector>

#include <btBulletDynamicsCommon.h>

#include "agrid/config.h"
#include "agrid_scenes/broadphase_kind.h"
#include "agrid_scenes/timed_broadphase.h"

class btAdaptiveGridBroadphase;

namespace agrid::scenes {

/// btSimpleBroadphase's proxy capacity when none is given (it allocates them all up front).
inline constexpr int kDefaultSimpleMaxProxies = 16384;
/// bt32BitAxisSweep3's world bounds when none are given: +-this on every axis.
inline constexpr btScalar kDefaultSapHalfExtent = 1000;

/// How a BulletHarness is made; every member has a default (Box2D's b2WorldDef).
struct HarnessDef {
  BroadphaseKind kind = BroadphaseKind::agrid;
  agrid::Config config{};  ///< The adapter's tuning (agrid only).
  btVector3 gravity{0, 0, 0};
  /// A pair cache for the broadphase to use instead of its own, kept alive by the harness.
  std::unique_ptr<btOverlappingPairCache> user_cache = nullptr;
  /// Wraps the broadphase in a TimedBroadphase, which defers setAabb to the next step: for
  /// timing whole steps only (a ghost reading its pairs right after setAabb would see old ones).
  bool timed = false;
  /// Gives bodies a btDefaultMotionState, as games' bodies have (the world writes it each step).
  bool motion_states = false;
  /// bt32BitAxisSweep3's world bounds (sap only).
  btVector3 sap_min{-kDefaultSapHalfExtent, -kDefaultSapHalfExtent, -kDefaultSapHalfExtent};
  btVector3 sap_max{kDefaultSapHalfExtent, kDefaultSapHalfExtent, kDefaultSapHalfExtent};
  int simple_max_proxies = kDefaultSimpleMaxProxies;  ///< btSimpleBroadphase's capacity (simple only).
};

/// A btDiscreteDynamicsWorld on the chosen broadphase that owns its shapes, meshes, bodies,
/// constraints, other collision objects, actions and callbacks, and frees them in a safe order.
class BulletHarness {
 public:
  /// One internal step: 1/60 s.
  static constexpr btScalar kTimeStep = btScalar(1) / 60;

  explicit BulletHarness(HarnessDef def = {});
  ~BulletHarness();
  BulletHarness(const BulletHarness&) = delete;
  BulletHarness& operator=(const BulletHarness&) = delete;

  /// Takes ownership of a shape.
  template <class Shape>
  Shape* own(std::unique_ptr<Shape> shape) {
    Shape* raw = shape.get();
    shapes_.push_back(std::move(shape));
    return raw;
  }
  /// An empty triangle mesh to fill with addTriangle, owned here.
  btTriangleMesh* make_triangle_mesh();
  /// An indexed mesh over `vertices` (x, y, z each) and `triangles` (three vertex indices each).
  btTriangleIndexVertexArray* make_indexed_mesh(std::vector<btScalar> vertices, std::vector<int> triangles);

  /// A rigid body at `transform`, static if `mass` is 0, owned here but not yet in the world.
  /// Its user index 2 is its creation number.
  btRigidBody* make_body(btCollisionShape* shape, btScalar mass, const btTransform& transform);
  /// make_body, then adds it (with Bullet's default filter if `group` is 0).
  btRigidBody* add_body(btCollisionShape* shape, btScalar mass, const btTransform& transform, int group = 0,
                        int mask = 0);
  /// Removes the body from the world and frees it.
  void destroy_body(btRigidBody* body);
  /// Adds a constraint between bodies made here; as btDynamicsWorld::addConstraint.
  void add_constraint(std::unique_ptr<btTypedConstraint> constraint, bool disable_linked_collisions);

  /// Takes ownership of a collision object that is not a rigid body (ghosts); not added.
  template <class Object>
  Object* own_object(std::unique_ptr<Object> object) {
    Object* raw = object.get();
    objects_.push_back(std::move(object));
    return raw;
  }
  /// Takes ownership of an action and adds it to the world.
  void own_action(std::unique_ptr<btActionInterface> action);
  /// Takes ownership of a pair callback or a filter callback (kept until the world is gone).
  void own_callback(std::unique_ptr<btOverlappingPairCallback> callback);
  void own_filter(std::unique_ptr<btOverlapFilterCallback> filter);

  /// `steps` internal steps of kTimeStep.
  void step(int steps = 1);

  [[nodiscard]] btDiscreteDynamicsWorld& world() noexcept { return *world_; }
  [[nodiscard]] const btDiscreteDynamicsWorld& world() const noexcept { return *world_; }
  [[nodiscard]] btCollisionDispatcher& dispatcher() noexcept { return *dispatcher_; }
  /// The world's broadphase (the TimedBroadphase when timed).
  [[nodiscard]] btBroadphaseInterface& broadphase() noexcept { return *broadphase_; }
  [[nodiscard]] btOverlappingPairCache& cache() noexcept { return *broadphase_->getOverlappingPairCache(); }
  [[nodiscard]] const btOverlappingPairCache& cache() const noexcept { return *broadphase_->getOverlappingPairCache(); }
  /// The adapter, or null for other broadphases.
  [[nodiscard]] btAdaptiveGridBroadphase* grid() noexcept { return grid_; }
  /// The timing wrapper, or null unless timed.
  [[nodiscard]] TimedBroadphase* timed() noexcept { return timed_; }
  [[nodiscard]] BroadphaseKind kind() const noexcept { return kind_; }
  /// All bodies alive, in creation order.
  [[nodiscard]] const std::vector<btRigidBody*>& bodies() const noexcept { return body_list_; }

 private:
  /// The arrays a btTriangleIndexVertexArray points into.
  struct MeshArrays {
    std::vector<btScalar> vertices;
    std::vector<int> triangles;
  };

  BroadphaseKind kind_;
  bool give_motion_states_;
  // The destructor takes the world down first; the rest is declared so that each member is
  // destroyed before what it points into.
  std::unique_ptr<btOverlappingPairCache> user_cache_;
  std::unique_ptr<btDefaultCollisionConfiguration> collision_config_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<btBroadphaseInterface> broadphase_;
  btAdaptiveGridBroadphase* grid_ = nullptr;
  TimedBroadphase* timed_ = nullptr;
  std::unique_ptr<btSequentialImpulseConstraintSolver> solver_;
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  std::vector<std::unique_ptr<MeshArrays>> mesh_arrays_;
  std::vector<std::unique_ptr<btStridingMeshInterface>> meshes_;
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::vector<std::unique_ptr<btMotionState>> motion_states_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;
  std::vector<btRigidBody*> body_list_;
  std::vector<std::unique_ptr<btTypedConstraint>> constraints_;
  std::vector<std::unique_ptr<btCollisionObject>> objects_;
  std::vector<std::unique_ptr<btActionInterface>> actions_;
  std::vector<std::unique_ptr<btOverlappingPairCallback>> callbacks_;
  std::vector<std::unique_ptr<btOverlapFilterCallback>> filters_;
  int created_ = 0;
};

}  // namespace agrid::scenes
