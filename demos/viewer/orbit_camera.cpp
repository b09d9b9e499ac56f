#include "orbit_camera.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>
#include <glm/trigonometric.hpp>

namespace agrid::viewer {
namespace {

/// Radians turned per pixel dragged: a drag across a 1,000-pixel window is about a full turn.
constexpr float kOrbitRadiansPerPixel = 0.006f;
/// Pitch stops short of straight up or down, where the look-at's up vector would be parallel.
constexpr float kMaxPitch = 1.55f;
/// Each wheel notch moves this fraction of the distance to the target.
constexpr float kZoomPerNotch = 0.1f;
/// The closest and farthest the eye may get from the target.
constexpr float kMinDistance = 0.05f;
constexpr float kMaxDistance = 1.0e5f;
/// Flying speed: this many distances to the target per second, so near and far views feel alike.
constexpr float kFlyDistancesPerSecond = 0.5f;
/// Near plane at this fraction of the distance (depth precision), far plane this many distances
/// away (a pile's ground plane reaches far beyond the bodies).
constexpr float kNearFraction = 0.01f;
constexpr float kFarDistances = 40.0f;
/// The far plane never comes nearer than this: zoomed in on one body, the rest stays in view.
constexpr float kMinFarPlane = 1000.0f;
const glm::vec3 kUp{0.0f, 1.0f, 0.0f};

}  // namespace

void OrbitCamera::frame(const render::Bounds& bounds) {
  const render::Camera framed = render::Camera::framing(bounds);
  target_ = framed.target;
  fov_y_degrees_ = framed.fov_y_degrees;
  const glm::vec3 offset = framed.eye - framed.target;
  distance_ = std::max(kMinDistance, glm::length(offset));
  pitch_ = std::asin(std::clamp(offset.y / distance_, -1.0f, 1.0f));
  yaw_ = std::atan2(offset.x, offset.z);
}

void OrbitCamera::orbit(float dx, float dy) {
  yaw_ -= dx * kOrbitRadiansPerPixel;
  pitch_ = std::clamp(pitch_ + dy * kOrbitRadiansPerPixel, -kMaxPitch, kMaxPitch);
}

void OrbitCamera::pan(float dx, float dy, int viewport_height) {
  // The view plane through the target is this many world units high.
  const float world_height = 2.0f * distance_ * std::tan(glm::radians(fov_y_degrees_) * 0.5f);
  const float per_pixel = world_height / static_cast<float>(std::max(1, viewport_height));
  const glm::vec3 right = glm::normalize(glm::cross(forward(), kUp));
  const glm::vec3 up = glm::cross(right, forward());
  target_ += (-dx * right + dy * up) * per_pixel;
}

void OrbitCamera::zoom(float wheel) {
  distance_ = std::clamp(distance_ * std::pow(1.0f - kZoomPerNotch, wheel), kMinDistance, kMaxDistance);
}

void OrbitCamera::fly(float forward_amount, float right_amount, float seconds) {
  const glm::vec3 right = glm::normalize(glm::cross(forward(), kUp));
  target_ += (forward_amount * forward() + right_amount * right) * (kFlyDistancesPerSecond * distance_ * seconds);
}

glm::vec3 OrbitCamera::forward() const {
  // The eye sits at (yaw, pitch) on the sphere; it looks back at the centre.
  const glm::vec3 outward(std::cos(pitch_) * std::sin(yaw_), std::sin(pitch_), std::cos(pitch_) * std::cos(yaw_));
  return -outward;
}

glm::vec3 OrbitCamera::eye() const { return target_ - forward() * distance_; }

render::Camera OrbitCamera::camera() const {
  render::Camera camera;
  camera.eye = eye();
  camera.target = target_;
  camera.up = kUp;
  camera.fov_y_degrees = fov_y_degrees_;
  camera.near_plane = distance_ * kNearFraction;
  camera.far_plane = std::max(kMinFarPlane, distance_ * kFarDistances);
  return camera;
}

}  // namespace agrid::viewer
