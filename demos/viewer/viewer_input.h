#pragma once
// Mouse and keys: GLFW callbacks collect the wheel and key presses between frames; the mouse's
// drags and WASD are read once a frame. Input ImGui wants (its panel under the cursor, a text
// field) does not reach the scene.

#include <optional>

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

/// A cursor position in window pixels, y down.
struct Cursor {
  double x = 0.0;
  double y = 0.0;
};

/// Orbits, pans and flies `camera` by this frame's drags and held keys; zooms by the wheel; and
/// tells a click (the left button released where it was pressed) from a drag.
class CameraControl {
 public:
  void update(GLFWwindow* window, const InputEvents& events, float seconds, OrbitCamera& camera);
  /// Where the left button was clicked this frame, if it was.
  [[nodiscard]] const std::optional<Cursor>& click() const noexcept { return click_; }

 private:
  void track_click(GLFWwindow* window, double x, double y, bool gui_has_mouse);

  std::optional<Cursor> click_;
  Cursor pressed_at_;       ///< Where the left button went down.
  bool left_down_ = false;  ///< Whether it was down last frame.
  double last_x_ = 0.0;
  double last_y_ = 0.0;
  bool tracking_ = false;  ///< Whether last_x_, last_y_ hold last frame's cursor.
};

}  // namespace agrid::viewer
