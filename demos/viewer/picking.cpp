#include "picking.h"

#include <glm/mat4x4.hpp>
#include <glm/matrix.hpp>
#include <glm/vec4.hpp>

namespace agrid::viewer {
namespace {

/// Normalised device depth of the near and far planes (OpenGL's clip cube).
constexpr float kNearDepth = -1.0f;
constexpr float kFarDepth = 1.0f;

glm::vec3 unproject(const glm::mat4& inverse, float x, float y, float depth) {
  const glm::vec4 p = inverse * glm::vec4(x, y, depth, 1.0f);
  return glm::vec3(p) / p.w;
}

}  // namespace

PickRay ray_through(const render::Camera& camera, double x, double y, int width, int height) {
  const float w = static_cast<float>(width > 0 ? width : 1);
  const float h = static_cast<float>(height > 0 ? height : 1);
  // Pixel centres to [-1, 1], y up.
  const float ndc_x = 2.0f * (static_cast<float>(x) + 0.5f) / w - 1.0f;
  const float ndc_y = 1.0f - 2.0f * (static_cast<float>(y) + 0.5f) / h;
  const glm::mat4 inverse = glm::inverse(camera.view_projection(w / h));
  return {unproject(inverse, ndc_x, ndc_y, kNearDepth), unproject(inverse, ndc_x, ndc_y, kFarDepth)};
}

}  // namespace agrid::viewer
