#pragma once
// Picking: the segment from the camera through a window pixel, which Bullet's rayTest follows
// to the body under the cursor.

#include <glm/vec3.hpp>

#include "agrid_render/camera.h"

namespace agrid::viewer {

/// A segment in world space.
struct PickRay {
  glm::vec3 from;
  glm::vec3 to;
};

/// The segment from the near plane to the far plane of `camera` through the pixel (x, y) of a
/// `width` x `height` window (y down, as GLFW's cursor).
[[nodiscard]] PickRay ray_through(const render::Camera& camera, double x, double y, int width, int height);

}  // namespace agrid::viewer
