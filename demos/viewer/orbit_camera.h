#pragma once
// The viewer's camera: it orbits a target point (mouse drag), zooms (wheel), pans (right or
// middle drag) and flies (WASD), and gives the renderer a look-at Camera.

#include <glm/vec3.hpp>

#include "agrid_render/camera.h"
#include "agrid_render/snapshot.h"

namespace agrid::viewer {

/// A camera on a sphere around a target: yaw and pitch in radians, distance in world units.
class OrbitCamera {
 public:
  /// Looks at `bounds` as the renderer's default camera does (Camera::framing).
  void frame(const render::Bounds& bounds);
  /// Turns around the target by a mouse move of (dx, dy) pixels.
  void orbit(float dx, float dy);
  /// Moves the target in the view plane by a mouse move of (dx, dy) pixels in a viewport
  /// `viewport_height` pixels high, so that the scene follows the cursor.
  void pan(float dx, float dy, int viewport_height);
  /// Moves towards the target (positive `wheel`) or away, by a fraction of the distance per notch.
  void zoom(float wheel);
  /// Moves eye and target together: `forward` and `right` in [-1, 1] for `seconds` of flight.
  void fly(float forward, float right, float seconds);

  /// Where the eye is.
  [[nodiscard]] glm::vec3 eye() const;
  /// The unit direction the eye looks in.
  [[nodiscard]] glm::vec3 forward() const;
  /// The renderer's camera for this view.
  [[nodiscard]] render::Camera camera() const;

 private:
  glm::vec3 target_{0.0f};
  float yaw_ = 0.0f;
  float pitch_ = 0.0f;
  float distance_ = 1.0f;
  float fov_y_degrees_ = render::Camera::kDefaultFovDegrees;
};

}  // namespace agrid::viewer
