// The unit shapes the renderer instances: closed ones are wound counter-clockwise seen from
// outside, or back-face culling would hide their fronts. No GL needed.

#include <gtest/gtest.h>

#include <cstddef>

#include <glm/geometric.hpp>

#include "unit_shapes.h"

namespace agrid::render {
namespace {

/// A front face's normal points away from the shape's centre (the origin) by at least this
/// (cosine): the unit shapes are convex and centred, so every face does by far more.
constexpr float kMinOutward = 0.1f;

// Counts the triangles of `mesh` whose winding normal points inwards; degenerate ones (a
// sphere's poles) face nowhere and are left out.
int inward_triangles(const Mesh& mesh) {
  int inward = 0;
  const std::size_t corners = mesh.draw_count();
  for (std::size_t i = 0; i + 2 < corners; i += 3) {
    const auto at = [&mesh, i](std::size_t k) { return mesh.positions[mesh.indices.empty() ? i + k : mesh.indices[i + k]]; };
    const glm::vec3 cross = glm::cross(at(1) - at(0), at(2) - at(0));
    if (glm::length(cross) == 0.0f) continue;
    const glm::vec3 centroid = (at(0) + at(1) + at(2)) / 3.0f;
    if (glm::dot(glm::normalize(cross), glm::normalize(centroid)) < kMinOutward) ++inward;
  }
  return inward;
}

TEST(UnitShapes, ClosedShapesFaceOutwards) {
  EXPECT_EQ(inward_triangles(detail::unit_cube()), 0);
  EXPECT_EQ(inward_triangles(detail::unit_sphere()), 0);
  EXPECT_EQ(inward_triangles(detail::unit_cylinder()), 0);
}

TEST(UnitShapes, ShapesHaveTriangles) {
  EXPECT_GT(detail::unit_cube().draw_count(), 0u);
  EXPECT_GT(detail::unit_sphere().draw_count(), 0u);
  EXPECT_GT(detail::unit_cylinder().draw_count(), 0u);
}

}  // namespace
}  // namespace agrid::render
