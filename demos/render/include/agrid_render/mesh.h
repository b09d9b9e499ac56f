#pragma once
// A triangle mesh in a shape's local space: the geometry the renderer uploads once per shape.

#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

namespace agrid::render {

/// Triangles (or line segments) with a normal per vertex: three vertices each, or three
/// `indices` each when there are indices (shared vertices of smooth unit shapes).
struct Mesh {
  std::vector<glm::vec3> positions;
  std::vector<glm::vec3> normals;
  std::vector<std::uint32_t> indices;  ///< Empty: the vertices in order.

  /// Appends triangle (a, b, c) with its face normal; degenerate triangles are dropped.
  void add_triangle(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c);
  /// Vertices in the mesh.
  [[nodiscard]] std::size_t vertex_count() const noexcept { return positions.size(); }
  /// Vertices drawn: three per triangle.
  [[nodiscard]] std::size_t draw_count() const noexcept { return indices.empty() ? positions.size() : indices.size(); }
};

}  // namespace agrid::render
