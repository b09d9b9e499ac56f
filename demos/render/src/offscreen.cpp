#include "agrid_render/offscreen.h"

#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>

namespace agrid::render {
namespace {

/// The context's window is never shown and never drawn to: its size does not matter.
constexpr int kHiddenWindowSize = 16;
/// RGB pixels read back: rows packed without padding.
constexpr int kPackAlignment = 1;
constexpr std::size_t kChannels = 3;

// GLFW is process-wide: initialised by the first OffscreenRenderer alive, terminated by the last.
std::mutex glfw_mutex;
int glfw_users = 0;

std::string glfw_error() {
  const char* description = nullptr;
  glfwGetError(&description);
  return description != nullptr ? description : "no reason given";
}

void acquire_glfw() {
  const std::lock_guard lock(glfw_mutex);
  if (glfw_users == 0 && glfwInit() != GLFW_TRUE) {
    throw std::runtime_error("no display for OpenGL (GLFW: " + glfw_error() +
                             "); set DISPLAY, or run under a virtual one: xvfb-run -a <command>");
  }
  ++glfw_users;
}

void release_glfw() {
  const std::lock_guard lock(glfw_mutex);
  if (--glfw_users == 0) glfwTerminate();
}

GLFWwindow* hidden_window() {
  glfwDefaultWindowHints();
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  GLFWwindow* window = glfwCreateWindow(kHiddenWindowSize, kHiddenWindowSize, "agrid offscreen", nullptr, nullptr);
  if (window == nullptr) {
    throw std::runtime_error("no OpenGL 3.3 core context (GLFW: " + glfw_error() +
                             "); Mesa's software GL (libgl1-mesa-dri) provides one");
  }
  return window;
}

}  // namespace

/// The framebuffer object drawn into: a colour and a depth renderbuffer.
struct OffscreenRenderer::Target {
  GLuint framebuffer = 0;
  GLuint colour = 0;
  GLuint depth = 0;

  Target(int width, int height) {
    GLint limit = 0;
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &limit);
    if (width > limit || height > limit) {
      throw std::invalid_argument("offscreen: " + std::to_string(width) + "x" + std::to_string(height) +
                                  " is beyond this GL's largest framebuffer side, " + std::to_string(limit));
    }
    glGenFramebuffers(1, &framebuffer);
    glGenRenderbuffers(1, &colour);
    glGenRenderbuffers(1, &depth);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glBindRenderbuffer(GL_RENDERBUFFER, colour);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour);
    glBindRenderbuffer(GL_RENDERBUFFER, depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, width, height);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth);
    const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
      release();
      throw std::runtime_error("offscreen: the framebuffer is incomplete (status " + std::to_string(status) + ")");
    }
  }
  ~Target() { release(); }
  Target(const Target&) = delete;
  Target& operator=(const Target&) = delete;

  void release() {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteRenderbuffers(1, &depth);
    glDeleteRenderbuffers(1, &colour);
    glDeleteFramebuffers(1, &framebuffer);
    depth = colour = framebuffer = 0;
  }
};

OffscreenRenderer::OffscreenRenderer(int width, int height) : width_(width), height_(height) {
  if (width <= 0 || height <= 0) {
    throw std::invalid_argument("offscreen: a picture needs a positive size, not " + std::to_string(width) + "x" +
                                std::to_string(height));
  }
  acquire_glfw();
  try {
    window_ = hidden_window();
    glfwMakeContextCurrent(window_);
    target_ = std::make_unique<Target>(width, height);
    renderer_ = std::make_unique<Renderer>();
  } catch (...) {
    target_.reset();
    if (window_ != nullptr) glfwDestroyWindow(window_);
    release_glfw();
    throw;
  }
}

OffscreenRenderer::~OffscreenRenderer() {
  glfwMakeContextCurrent(window_);
  renderer_.reset();
  target_.reset();
  glfwMakeContextCurrent(nullptr);
  glfwDestroyWindow(window_);
  release_glfw();
}

Image OffscreenRenderer::render(const Snapshot& snapshot, const DrawOptions& options) {
  glfwMakeContextCurrent(window_);
  glBindFramebuffer(GL_FRAMEBUFFER, target_->framebuffer);
  renderer_->draw(snapshot, options, width_, height_);
  Image image;
  image.width = width_;
  image.height = height_;
  const std::size_t row = static_cast<std::size_t>(width_) * kChannels;
  std::vector<std::uint8_t> bottom_up(row * static_cast<std::size_t>(height_));
  glPixelStorei(GL_PACK_ALIGNMENT, kPackAlignment);
  glReadBuffer(GL_COLOR_ATTACHMENT0);
  glReadPixels(0, 0, width_, height_, GL_RGB, GL_UNSIGNED_BYTE, bottom_up.data());
  // GL's rows go bottom to top; pictures' top to bottom.
  image.rgb.resize(bottom_up.size());
  for (std::size_t y = 0; y < static_cast<std::size_t>(height_); ++y) {
    std::copy_n(bottom_up.begin() + static_cast<std::ptrdiff_t>((static_cast<std::size_t>(height_) - 1 - y) * row),
                row, image.rgb.begin() + static_cast<std::ptrdiff_t>(y * row));
  }
  return image;
}

}  // namespace agrid::render
