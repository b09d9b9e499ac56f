#include "unit_shapes.h"

#include <cmath>
#include <numbers>

#include <glm/geometric.hpp>

namespace agrid::render::detail {
namespace {

/// Tessellation of the sphere (rings from pole to pole, segments around) and the cylinder: round
/// enough for bodies a few dozen pixels wide. Spheres are most of a frame on llvmpipe: a 960x540
/// frame of pile-5000 (2,500 spheres) took 210 ms with 12 x 20, 150 ms with this, 45 ms without
/// spheres (2 shared cores, 2026-11-23).
constexpr int kSphereRings = 8;
constexpr int kRoundSegments = 14;
/// A grid row whose neighbouring vertices are closer than this is one point (a sphere's pole).
constexpr float kCollapsedRow = 1e-5f;

glm::vec3 on_sphere(int ring, int segment) {
  const float polar = std::numbers::pi_v<float> * static_cast<float>(ring) / kSphereRings;
  const float azimuth = 2.0f * std::numbers::pi_v<float> * static_cast<float>(segment) / kRoundSegments;
  return {std::sin(polar) * std::cos(azimuth), std::cos(polar), std::sin(polar) * std::sin(azimuth)};
}

// A smooth surface over a grid of (rows + 1) x (columns + 1) vertices from `at(row, column)`,
// whose normals are `normal(row, column)`, indexed two triangles a cell. Rows must climb (+y) and
// columns turn from +x towards +z: the triangles are then counter-clockwise seen from outside,
// the front faces that back-face culling keeps.
template <class Position, class Normal>
Mesh smooth_grid(int rows, int columns, Position at, Normal normal) {
  Mesh mesh;
  for (int r = 0; r <= rows; ++r) {
    for (int c = 0; c <= columns; ++c) {
      mesh.positions.push_back(at(r, c));
      mesh.normals.push_back(normal(r, c));
    }
  }
  const auto index = [columns](int r, int c) { return static_cast<std::uint32_t>(r * (columns + 1) + c); };
  const auto collapsed = [&mesh, &index](int r) {
    return glm::distance(mesh.positions[index(r, 0)], mesh.positions[index(r, 1)]) < kCollapsedRow;
  };
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < columns; ++c) {
      // A cell next to a pole is one triangle: the other has two corners at the pole.
      if (!collapsed(r + 1)) mesh.indices.insert(mesh.indices.end(), {index(r, c), index(r + 1, c), index(r + 1, c + 1)});
      if (!collapsed(r)) mesh.indices.insert(mesh.indices.end(), {index(r, c), index(r + 1, c + 1), index(r, c + 1)});
    }
  }
  return mesh;
}

}  // namespace

Mesh unit_cube() {
  Mesh mesh;
  for (int axis = 0; axis < 3; ++axis) {
    for (const float side : {-1.0f, 1.0f}) {
      glm::vec3 u(0.0f);
      glm::vec3 v(0.0f);
      glm::vec3 n(0.0f);
      n[axis] = side;
      u[(axis + 1) % 3] = 1.0f;
      v[(axis + 2) % 3] = side;  // keeps the winding counter-clockwise seen from outside
      mesh.add_triangle(n - u - v, n + u - v, n + u + v);
      mesh.add_triangle(n - u - v, n + u + v, n - u + v);
    }
  }
  return mesh;
}

Mesh unit_sphere() {
  // From the south pole up, as smooth_grid wants. Indexed: each vertex is shaded once per
  // instance, not once per triangle around it.
  const auto climbing = [](int ring, int segment) { return on_sphere(kSphereRings - ring, segment); };
  return smooth_grid(kSphereRings, kRoundSegments, climbing, climbing);
}

Mesh unit_cylinder() {
  const auto around = [](int, int segment) { return on_sphere(kSphereRings / 2, segment); };
  const auto at = [&around](int row, int segment) { return around(row, segment) + glm::vec3(0.0f, row == 0 ? -1.0f : 1.0f, 0.0f); };
  return smooth_grid(1, kRoundSegments, at, around);
}

Mesh unit_cube_edges() {
  Mesh mesh;
  for (int axis = 0; axis < 3; ++axis) {
    for (const float s : {-1.0f, 1.0f}) {
      for (const float t : {-1.0f, 1.0f}) {
        glm::vec3 from(0.0f);
        from[(axis + 1) % 3] = s;
        from[(axis + 2) % 3] = t;
        glm::vec3 to = from;
        from[axis] = -1.0f;
        to[axis] = 1.0f;
        mesh.positions.insert(mesh.positions.end(), {from, to});
        mesh.normals.insert(mesh.normals.end(), 2, glm::vec3(0.0f, 1.0f, 0.0f));
      }
    }
  }
  return mesh;
}

}  // namespace agrid::render::detail
