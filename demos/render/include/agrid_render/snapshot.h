#pragma once
// What a btCollisionWorld looks like at one moment: every collision object's shape broken into
// instances of a few unit shapes and of cached meshes, with its world transform and state.

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

#include "agrid_render/mesh.h"

class btCollisionShape;
class btCollisionWorld;

namespace agrid::render {

/// What a collision object is doing: it picks the object's colour.
enum class BodyState : std::uint8_t {
  static_body,  ///< Static (or kinematic) objects.
  asleep,       ///< ISLAND_SLEEPING or DISABLE_SIMULATION.
  awake,        ///< Every other dynamic object.
};

/// One unit shape or mesh placed in the world.
struct Instance {
  glm::mat4 model{1.0f};  ///< Local (unit shape or mesh) to world, scale included.
  BodyState state = BodyState::awake;
  std::uint32_t object = 0;  ///< Index of its collision object in the world's array.
};

/// A mesh instance: the mesh is owned by the MeshCache the snapshot was taken with.
struct MeshInstance {
  const Mesh* mesh = nullptr;
  Instance instance;
};

/// An axis-aligned box in world space.
struct Bounds {
  glm::vec3 min{0.0f};
  glm::vec3 max{0.0f};
};

/// The instances of one moment, grouped by unit shape so that each group is one instanced draw.
struct Snapshot {
  std::vector<Instance> boxes;      ///< The cube [-1, 1]^3 scaled by half extents.
  std::vector<Instance> spheres;    ///< The unit sphere scaled by its radius (capsules' caps too).
  std::vector<Instance> cylinders;  ///< The cylinder of radius 1 along y from -1 to 1 (capsules' sides).
  std::vector<MeshInstance> meshes; ///< Hulls, triangle meshes, height fields, planes.
  std::vector<Bounds> aabbs;        ///< Every collision object's AABB with finite extent (for the overlay).
  /// What a default camera frames: the union of the moving objects' finite AABBs (a large static
  /// ground would leave the bodies a few pixels), or of all finite AABBs when none moves; a unit
  /// box around the origin when there are none.
  Bounds bounds;
  std::size_t objects = 0;          ///< Collision objects in the world.
};

/// Meshes of hulls, triangle meshes, height fields and planes, built once per shape pointer.
/// A shape must outlive its entry, or be forgotten with clear() before it is freed.
class MeshCache {
 public:
  /// The mesh of `shape` (convex or concave), built on first use; null for an empty one.
  const Mesh* mesh_of(const btCollisionShape& shape);
  /// Drops every mesh (snapshots taken before are invalidated).
  void clear() noexcept { meshes_.clear(); }
  /// Meshes held.
  [[nodiscard]] std::size_t size() const noexcept { return meshes_.size(); }

 private:
  std::unordered_map<const btCollisionShape*, std::unique_ptr<Mesh>> meshes_;
};

/// Every collision object of `world` as instances; meshes come from (and are added to) `cache`.
[[nodiscard]] Snapshot take_snapshot(const btCollisionWorld& world, MeshCache& cache);

}  // namespace agrid::render
