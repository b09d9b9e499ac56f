#include "agrid_render/snapshot.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <btBulletCollisionCommon.h>
#include <BulletCollision/CollisionShapes/btShapeHull.h>
#include <BulletCollision/CollisionShapes/btTriangleCallback.h>

namespace agrid::render {
namespace {

/// Half the side of the quad that draws a btStaticPlaneShape (it is infinite).
constexpr float kPlaneHalfSize = 500.0f;
/// Triangle meshes and height fields are drawn inside +-this on every axis (their AABB, bounded).
constexpr btScalar kMaxMeshExtent = 10000;
/// AABBs with a coordinate beyond this are not finite for framing (planes: +-1e18).
constexpr float kMaxFramedCoordinate = 1e6f;

glm::vec3 to_glm(const btVector3& v) {
  return {static_cast<float>(v.x()), static_cast<float>(v.y()), static_cast<float>(v.z())};
}

glm::mat4 to_glm(const btTransform& t) {
  glm::mat4 m(1.0f);
  const btMatrix3x3& basis = t.getBasis();
  for (int column = 0; column < 3; ++column) {
    m[column] = glm::vec4(to_glm(basis.getColumn(column)), 0.0f);
  }
  m[3] = glm::vec4(to_glm(t.getOrigin()), 1.0f);
  return m;
}

glm::mat4 scale(const glm::mat4& m, const glm::vec3& s) {
  glm::mat4 r = m;
  for (int axis = 0; axis < 3; ++axis) r[axis] *= s[axis];
  return r;
}

BodyState state_of(const btCollisionObject& object) {
  if (object.isStaticOrKinematicObject()) return BodyState::static_body;
  const int activation = object.getActivationState();
  if (activation == ISLAND_SLEEPING || activation == DISABLE_SIMULATION) return BodyState::asleep;
  return BodyState::awake;
}

// The unit cylinder's y axis turned onto `up_axis`; the two others follow cyclically (a rotation).
glm::mat4 axis_frame(int up_axis) {
  glm::mat4 m(1.0f);
  m[0] = glm::vec4(0.0f);
  m[1] = glm::vec4(0.0f);
  m[2] = glm::vec4(0.0f);
  m[0][(up_axis + 2) % 3] = 1.0f;
  m[1][up_axis] = 1.0f;
  m[2][(up_axis + 1) % 3] = 1.0f;
  return m;
}

// Collects the triangles processAllTriangles reports.
class TriangleCollector : public btTriangleCallback {
 public:
  explicit TriangleCollector(Mesh& mesh) : mesh_(mesh) {}
  void processTriangle(btVector3* triangle, int /*part*/, int /*index*/) override {
    mesh_.add_triangle(to_glm(triangle[0]), to_glm(triangle[1]), to_glm(triangle[2]));
  }

 private:
  Mesh& mesh_;
};

Mesh plane_mesh(const btStaticPlaneShape& plane) {
  const btVector3 normal = plane.getPlaneNormal();
  btVector3 u;
  btVector3 v;
  btPlaneSpace1(normal, u, v);
  const glm::vec3 centre = to_glm(normal * plane.getPlaneConstant());
  const glm::vec3 du = to_glm(u) * kPlaneHalfSize;
  const glm::vec3 dv = to_glm(v) * kPlaneHalfSize;
  Mesh mesh;
  mesh.add_triangle(centre - du - dv, centre + du - dv, centre + du + dv);
  mesh.add_triangle(centre - du - dv, centre + du + dv, centre - du + dv);
  return mesh;
}

Mesh concave_mesh(const btConcaveShape& shape) {
  btVector3 lo;
  btVector3 hi;
  shape.getAabb(btTransform::getIdentity(), lo, hi);
  const btVector3 limit(kMaxMeshExtent, kMaxMeshExtent, kMaxMeshExtent);
  lo.setMax(-limit);
  hi.setMin(limit);
  Mesh mesh;
  TriangleCollector collector(mesh);
  shape.processAllTriangles(&collector, lo, hi);
  return mesh;
}

Mesh convex_mesh(const btConvexShape& shape) {
  btShapeHull hull(&shape);
  Mesh mesh;
  if (!hull.buildHull(shape.getMargin())) return mesh;
  const unsigned int* indices = hull.getIndexPointer();
  const btVector3* vertices = hull.getVertexPointer();
  for (int t = 0; t < hull.numTriangles(); ++t) {
    mesh.add_triangle(to_glm(vertices[indices[3 * t]]), to_glm(vertices[indices[3 * t + 1]]),
                      to_glm(vertices[indices[3 * t + 2]]));
  }
  return mesh;
}

// Adds `shape` at `world` (shape to world) to the snapshot, children of compounds included.
void add_shape(const btCollisionShape& shape, const glm::mat4& world, BodyState state, Snapshot& out,
               MeshCache& cache) {
  switch (shape.getShapeType()) {
    case BOX_SHAPE_PROXYTYPE: {
      const auto& box = static_cast<const btBoxShape&>(shape);
      out.boxes.push_back({scale(world, to_glm(box.getHalfExtentsWithMargin())), state});
      return;
    }
    case SPHERE_SHAPE_PROXYTYPE: {
      const float radius = static_cast<float>(static_cast<const btSphereShape&>(shape).getRadius());
      out.spheres.push_back({scale(world, glm::vec3(radius)), state});
      return;
    }
    case CAPSULE_SHAPE_PROXYTYPE: {
      const auto& capsule = static_cast<const btCapsuleShape&>(shape);
      const float radius = static_cast<float>(capsule.getRadius());
      const float half_height = static_cast<float>(capsule.getHalfHeight());
      const glm::mat4 frame = world * axis_frame(capsule.getUpAxis());
      out.cylinders.push_back({scale(frame, {radius, half_height, radius}), state});
      for (const float end : {-half_height, half_height}) {
        glm::mat4 cap = frame;
        cap[3] = frame * glm::vec4(0.0f, end, 0.0f, 1.0f);
        out.spheres.push_back({scale(cap, glm::vec3(radius)), state});
      }
      return;
    }
    case COMPOUND_SHAPE_PROXYTYPE: {
      const auto& compound = static_cast<const btCompoundShape&>(shape);
      for (int i = 0; i < compound.getNumChildShapes(); ++i) {
        add_shape(*compound.getChildShape(i), world * to_glm(compound.getChildTransform(i)), state, out, cache);
      }
      return;
    }
    default:
      if (const Mesh* mesh = cache.mesh_of(shape)) out.meshes.push_back({mesh, {world, state}});
  }
}

// The AABB of `object`, if finite enough to frame.
bool framed_aabb(const btCollisionObject& object, Bounds& aabb) {
  btVector3 lo;
  btVector3 hi;
  object.getCollisionShape()->getAabb(object.getWorldTransform(), lo, hi);
  aabb = {to_glm(lo), to_glm(hi)};
  for (int axis = 0; axis < 3; ++axis) {
    if (!(std::abs(aabb.min[axis]) < kMaxFramedCoordinate && std::abs(aabb.max[axis]) < kMaxFramedCoordinate)) {
      return false;
    }
  }
  return true;
}

Bounds union_of(const std::vector<Bounds>& boxes) {
  if (boxes.empty()) return {glm::vec3(-1.0f), glm::vec3(1.0f)};
  Bounds all = boxes.front();
  for (const Bounds& b : boxes) {
    all.min = glm::min(all.min, b.min);
    all.max = glm::max(all.max, b.max);
  }
  return all;
}

// Marks the instances added since `sizes` (of boxes, spheres, cylinders, meshes) as object's.
void tag_new_instances(Snapshot& out, const std::array<std::size_t, 4>& sizes, std::uint32_t object) {
  for (std::size_t k = sizes[0]; k < out.boxes.size(); ++k) out.boxes[k].object = object;
  for (std::size_t k = sizes[1]; k < out.spheres.size(); ++k) out.spheres[k].object = object;
  for (std::size_t k = sizes[2]; k < out.cylinders.size(); ++k) out.cylinders[k].object = object;
  for (std::size_t k = sizes[3]; k < out.meshes.size(); ++k) out.meshes[k].instance.object = object;
}

}  // namespace

const Mesh* MeshCache::mesh_of(const btCollisionShape& shape) {
  auto found = meshes_.find(&shape);
  if (found == meshes_.end()) {
    Mesh mesh;
    if (shape.getShapeType() == STATIC_PLANE_PROXYTYPE) {
      mesh = plane_mesh(static_cast<const btStaticPlaneShape&>(shape));
    } else if (shape.isConcave()) {
      mesh = concave_mesh(static_cast<const btConcaveShape&>(shape));
    } else if (shape.isConvex()) {
      mesh = convex_mesh(static_cast<const btConvexShape&>(shape));
    }
    // Empty meshes are cached too (as null), so that they are not rebuilt every frame.
    found = meshes_.emplace(&shape, mesh.vertex_count() > 0 ? std::make_unique<Mesh>(std::move(mesh)) : nullptr).first;
  }
  return found->second.get();
}

Snapshot take_snapshot(const btCollisionWorld& world, MeshCache& cache) {
  Snapshot out;
  std::vector<Bounds> moving;
  const btCollisionObjectArray& objects = world.getCollisionObjectArray();
  out.objects = static_cast<std::size_t>(objects.size());
  for (int i = 0; i < objects.size(); ++i) {
    const btCollisionObject& object = *objects[i];
    const btCollisionShape* shape = object.getCollisionShape();
    if (shape == nullptr) continue;
    const std::array<std::size_t, 4> sizes = {out.boxes.size(), out.spheres.size(), out.cylinders.size(),
                                               out.meshes.size()};
    add_shape(*shape, to_glm(object.getWorldTransform()), state_of(object), out, cache);
    tag_new_instances(out, sizes, static_cast<std::uint32_t>(i));
    Bounds aabb;
    if (!framed_aabb(object, aabb)) continue;
    out.aabbs.push_back(aabb);
    if (!object.isStaticOrKinematicObject()) moving.push_back(aabb);
  }
  out.bounds = union_of(moving.empty() ? out.aabbs : moving);
  return out;
}

}  // namespace agrid::render
