#include "viewer_input.h"

#include <cmath>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>

#include "orbit_camera.h"

namespace agrid::viewer {
namespace {

/// A left press and release this few pixels apart is a click (a pick), not a drag (an orbit).
constexpr double kClickPixels = 3.0;

void on_key(GLFWwindow* window, int key, int scancode, int action, int mods) {
  ImGui_ImplGlfw_KeyCallback(window, key, scancode, action, mods);
  if (action != GLFW_PRESS || ImGui::GetIO().WantCaptureKeyboard) return;
  auto& events = *static_cast<InputEvents*>(glfwGetWindowUserPointer(window));
  switch (key) {
    case GLFW_KEY_SPACE: events.toggle_pause = true; break;
    case GLFW_KEY_N: events.single_step = true; break;
    case GLFW_KEY_R: events.reset = true; break;
    case GLFW_KEY_B: events.shoot = true; break;
    case GLFW_KEY_ESCAPE: glfwSetWindowShouldClose(window, GLFW_TRUE); break;
    default: break;
  }
}

void on_scroll(GLFWwindow* window, double x, double y) {
  ImGui_ImplGlfw_ScrollCallback(window, x, y);
  if (ImGui::GetIO().WantCaptureMouse) return;
  static_cast<InputEvents*>(glfwGetWindowUserPointer(window))->wheel += static_cast<float>(y);
}

bool held(GLFWwindow* window, int key) { return glfwGetKey(window, key) == GLFW_PRESS; }
bool pressed(GLFWwindow* window, int button) { return glfwGetMouseButton(window, button) == GLFW_PRESS; }

}  // namespace

void install_input_callbacks(GLFWwindow* window, InputEvents& events) {
  glfwSetWindowUserPointer(window, &events);
  glfwSetKeyCallback(window, on_key);
  glfwSetScrollCallback(window, on_scroll);
}

void CameraControl::track_click(GLFWwindow* window, double x, double y, bool gui_has_mouse) {
  click_.reset();
  const bool down = pressed(window, GLFW_MOUSE_BUTTON_LEFT);
  if (down && !left_down_) pressed_at_ = {x, y};
  const bool still = std::abs(x - pressed_at_.x) <= kClickPixels && std::abs(y - pressed_at_.y) <= kClickPixels;
  if (!down && left_down_ && still && !gui_has_mouse) click_ = Cursor{x, y};
  left_down_ = down;
}

void CameraControl::update(GLFWwindow* window, const InputEvents& events, float seconds, OrbitCamera& camera) {
  double x = 0.0;
  double y = 0.0;
  glfwGetCursorPos(window, &x, &y);
  const auto dx = static_cast<float>(x - last_x_);
  const auto dy = static_cast<float>(y - last_y_);
  const bool was_tracking = tracking_;
  last_x_ = x;
  last_y_ = y;
  tracking_ = true;
  const ImGuiIO& io = ImGui::GetIO();
  track_click(window, x, y, io.WantCaptureMouse);
  if (!io.WantCaptureMouse && was_tracking) {
    if (pressed(window, GLFW_MOUSE_BUTTON_LEFT)) {
      camera.orbit(dx, dy);
    } else if (pressed(window, GLFW_MOUSE_BUTTON_RIGHT) || pressed(window, GLFW_MOUSE_BUTTON_MIDDLE)) {
      int width = 0;
      int height = 0;
      glfwGetWindowSize(window, &width, &height);
      camera.pan(dx, dy, height);
    }
  }
  if (events.wheel != 0.0f) camera.zoom(events.wheel);
  if (io.WantCaptureKeyboard) return;
  const float forward = (held(window, GLFW_KEY_W) ? 1.0f : 0.0f) - (held(window, GLFW_KEY_S) ? 1.0f : 0.0f);
  const float right = (held(window, GLFW_KEY_D) ? 1.0f : 0.0f) - (held(window, GLFW_KEY_A) ? 1.0f : 0.0f);
  if (forward != 0.0f || right != 0.0f) camera.fly(forward, right, seconds);
}

}  // namespace agrid::viewer
