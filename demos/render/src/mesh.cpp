#include "agrid_render/mesh.h"

#include <cmath>

#include <glm/geometric.hpp>

namespace agrid::render {
namespace {

/// Triangles with a cross product shorter than this (squared) have no usable normal.
constexpr float kDegenerateArea2 = 1e-20f;

}  // namespace

void Mesh::add_triangle(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c) {
  const glm::vec3 cross = glm::cross(b - a, c - a);
  const float length2 = glm::dot(cross, cross);
  if (!(length2 > kDegenerateArea2)) return;
  const glm::vec3 normal = cross / std::sqrt(length2);
  for (const glm::vec3& p : {a, b, c}) {
    positions.push_back(p);
    normals.push_back(normal);
  }
}

}  // namespace agrid::render
