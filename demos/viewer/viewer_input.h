#pragma once
// Mouse and keys: GLFW callbacks collect the wheel and key presses between frames; the mouse's
// drags and WASD are read once a frame. Input ImGui wants (its panel under the cursor, a text
// field) does not reach the scene.

struct GLFWwindow;

namespace agrid::viewer {

class OrbitCamera;

/// Key presses and wheel notches since the last frame.
struct InputEvents {
  float wheel = 0.0f;
  bool toggle_pause = false;  ///< Space.
  bool single_step = false;   ///< N.
  bool reset = false;         ///< R.
  bool shoot = false;         ///< B.
};

/// Collects `window`'s events into `events` (which must outlive the window's callbacks). Call it
/// after ImGui's backend is set up: these callbacks replace its key and scroll ones, and pass
/// every event on to them first.
void install_input_callbacks(GLFWwindow* window, InputEvents& events);

/// Orbits, pans and flies `camera` by this frame's drags and held keys; zooms by the wheel.
class CameraControl {
 public:
  void update(GLFWwindow* window, const InputEvents& events, float seconds, OrbitCamera& camera);

 private:
  double last_x_ = 0.0;
  double last_y_ = 0.0;
  bool tracking_ = false;  ///< Whether last_x_, last_y_ hold last frame's cursor.
};

}  // namespace agrid::viewer
