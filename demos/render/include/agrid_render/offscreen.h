#pragma once
// Headless rendering: an invisible GLFW window for a GL 3.3 core context, a framebuffer object of
// a chosen size, and its pixels read back.

#include <memory>

#include "agrid_render/image.h"
#include "agrid_render/renderer.h"

struct GLFWwindow;

namespace agrid::render {

/// Picture size when none is given.
inline constexpr int kDefaultWidth = 960;
inline constexpr int kDefaultHeight = 540;

/// A GL context of its own and a `width` x `height` framebuffer to draw snapshots into.
class OffscreenRenderer {
 public:
  /// Throws std::invalid_argument for a size of zero (or beyond the GL limit), and
  /// std::runtime_error when there is no display or no GL 3.3 core context.
  explicit OffscreenRenderer(int width = kDefaultWidth, int height = kDefaultHeight);
  ~OffscreenRenderer();
  OffscreenRenderer(const OffscreenRenderer&) = delete;
  OffscreenRenderer& operator=(const OffscreenRenderer&) = delete;

  /// Draws `snapshot` and reads the picture back.
  [[nodiscard]] Image render(const Snapshot& snapshot, const DrawOptions& options = {});

  [[nodiscard]] int width() const noexcept { return width_; }
  [[nodiscard]] int height() const noexcept { return height_; }

 private:
  struct Target;
  int width_;
  int height_;
  GLFWwindow* window_ = nullptr;
  std::unique_ptr<Target> target_;
  std::unique_ptr<Renderer> renderer_;
};

}  // namespace agrid::render
