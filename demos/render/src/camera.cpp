#include "agrid_render/camera.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/trigonometric.hpp>

namespace agrid::render {
namespace {

/// The 3/4 view: from the front right (+x, +z), above (+y).
constexpr glm::vec3 kViewDirection{1.0f, 0.75f, 1.25f};
/// Room around the framed sphere, as a factor of the distance that just fits it.
constexpr float kFramingMargin = 1.05f;
/// The near plane at this fraction of the distance to the target (depth precision).
constexpr float kNearFraction = 0.01f;
/// The far plane this many radii beyond the target (the ground plane's quad reaches far).
constexpr float kFarRadii = 20.0f;
/// The smallest radius framed, so that an empty or point-like scene still gets a camera.
constexpr float kMinRadius = 0.5f;

}  // namespace

Camera Camera::framing(const Bounds& bounds) {
  Camera camera;
  camera.target = (bounds.min + bounds.max) * 0.5f;
  const float radius = std::max(kMinRadius, glm::length(bounds.max - bounds.min) * 0.5f);
  // The sphere around the box fits the vertical field of view; the horizontal one is wider.
  const float distance = kFramingMargin * radius / std::sin(glm::radians(camera.fov_y_degrees) * 0.5f);
  camera.eye = camera.target + glm::normalize(kViewDirection) * distance;
  camera.near_plane = distance * kNearFraction;
  camera.far_plane = distance + kFarRadii * radius;
  return camera;
}

glm::mat4 Camera::view_projection(float aspect) const {
  const glm::mat4 projection = glm::perspective(glm::radians(fov_y_degrees), aspect, near_plane, far_plane);
  return projection * glm::lookAt(eye, target, up);
}

}  // namespace agrid::render
