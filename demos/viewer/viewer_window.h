#pragma once
// The viewer's window: GLFW with a GL 3.3 core context, Dear ImGui on it (Debian's libimgui
// with its GLFW and OpenGL 3 backends), and the window's pixels read back.

#include <string>

#include "agrid_render/image.h"

struct GLFWwindow;

namespace agrid::viewer {

/// A window with a current GL 3.3 core context and an ImGui context; one per process.
class ViewerWindow {
 public:
  /// The window's size when it opens.
  static constexpr int kDefaultWidth = 1280;
  static constexpr int kDefaultHeight = 720;

  /// Opens the window; `vsync` waits for the screen at each swap. Throws std::runtime_error
  /// without a display or a GL 3.3 core context.
  ViewerWindow(const char* title, bool vsync);
  ~ViewerWindow();
  ViewerWindow(const ViewerWindow&) = delete;
  ViewerWindow& operator=(const ViewerWindow&) = delete;

  [[nodiscard]] GLFWwindow* handle() const noexcept { return window_; }
  [[nodiscard]] bool should_close() const;
  /// Runs the callbacks of the events that came since the last call.
  void poll_events() const;
  /// The framebuffer's size in pixels (what GL draws into).
  void framebuffer_size(int& width, int& height) const;
  /// The window's size in the cursor's units (screen pixels; a HiDPI framebuffer has more).
  void window_size(int& width, int& height) const;
  /// Starts an ImGui frame (after polling events).
  void begin_gui() const;
  /// Draws the ImGui frame over the scene.
  void draw_gui() const;
  /// Shows the back buffer.
  void swap() const;
  /// What draws: GL_RENDERER, as "llvmpipe (LLVM 15.0.6, 256 bits)" for Mesa's software GL.
  [[nodiscard]] std::string gl_renderer() const;
  /// The back buffer's pixels as they are now, rows top to bottom.
  [[nodiscard]] render::Image read_back_buffer() const;

 private:
  GLFWwindow* window_ = nullptr;
};

}  // namespace agrid::viewer
