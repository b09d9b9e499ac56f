#pragma once
// A perspective camera (glm) that frames a box of the world.

#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

#include "agrid_render/snapshot.h"

namespace agrid::render {

/// A look-at perspective camera.
struct Camera {
  /// Vertical field of view of the default camera, in degrees.
  static constexpr float kDefaultFovDegrees = 45.0f;

  glm::vec3 eye{10.0f, 8.0f, 12.0f};
  glm::vec3 target{0.0f};
  glm::vec3 up{0.0f, 1.0f, 0.0f};
  float fov_y_degrees = kDefaultFovDegrees;
  float near_plane = 0.1f;
  float far_plane = 1000.0f;

  /// A camera looking at `bounds` from a 3/4 view (above, front right) that shows all of it.
  [[nodiscard]] static Camera framing(const Bounds& bounds);
  /// Projection times view for a viewport of `aspect` = width / height.
  [[nodiscard]] glm::mat4 view_projection(float aspect) const;
};

}  // namespace agrid::render
