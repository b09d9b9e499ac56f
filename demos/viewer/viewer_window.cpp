#include "viewer_window.h"

#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace agrid::viewer {
namespace {

/// The GLSL version ImGui's OpenGL 3 backend writes its shaders in: that of a 3.3 core context.
constexpr const char* kGlslVersion = "#version 330 core";
/// RGB pixels read back: rows packed without padding.
constexpr int kPackAlignment = 1;
constexpr std::size_t kChannels = 3;

std::string glfw_error() {
  const char* description = nullptr;
  glfwGetError(&description);
  return description != nullptr ? description : "no reason given";
}

GLFWwindow* open_window(const char* title) {
  glfwDefaultWindowHints();
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  GLFWwindow* window = glfwCreateWindow(ViewerWindow::kDefaultWidth, ViewerWindow::kDefaultHeight, title, nullptr, nullptr);
  if (window == nullptr) {
    throw std::runtime_error("no OpenGL 3.3 core window (GLFW: " + glfw_error() +
                             "); Mesa's software GL (libgl1-mesa-dri) provides one");
  }
  return window;
}

}  // namespace

ViewerWindow::ViewerWindow(const char* title, bool vsync) {
  if (glfwInit() != GLFW_TRUE) {
    throw std::runtime_error("no display (GLFW: " + glfw_error() +
                             "); set DISPLAY, or run under a virtual one: xvfb-run -a agrid-viewer ...");
  }
  try {
    window_ = open_window(title);
  } catch (...) {
    glfwTerminate();
    throw;
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(vsync ? 1 : 0);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini left in the working directory
  ImGui::StyleColorsDark();
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init(kGlslVersion);
}

ViewerWindow::~ViewerWindow() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window_);
  glfwTerminate();
}

bool ViewerWindow::should_close() const { return glfwWindowShouldClose(window_) == GLFW_TRUE; }

void ViewerWindow::poll_events() const { glfwPollEvents(); }

void ViewerWindow::framebuffer_size(int& width, int& height) const { glfwGetFramebufferSize(window_, &width, &height); }

void ViewerWindow::window_size(int& width, int& height) const { glfwGetWindowSize(window_, &width, &height); }

void ViewerWindow::begin_gui() const {
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
}

void ViewerWindow::draw_gui() const {
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void ViewerWindow::swap() const { glfwSwapBuffers(window_); }

std::string ViewerWindow::gl_renderer() const {
  const auto* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  return name != nullptr ? name : "unknown";
}

render::Image ViewerWindow::read_back_buffer() const {
  render::Image image;
  framebuffer_size(image.width, image.height);
  const std::size_t row = static_cast<std::size_t>(image.width) * kChannels;
  const auto height = static_cast<std::size_t>(image.height);
  std::vector<std::uint8_t> bottom_up(row * height);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glPixelStorei(GL_PACK_ALIGNMENT, kPackAlignment);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, image.width, image.height, GL_RGB, GL_UNSIGNED_BYTE, bottom_up.data());
  // GL's rows go bottom to top; pictures' top to bottom.
  image.rgb.resize(bottom_up.size());
  for (std::size_t y = 0; y < height; ++y) {
    std::copy_n(bottom_up.begin() + static_cast<std::ptrdiff_t>((height - 1 - y) * row), row,
                image.rgb.begin() + static_cast<std::ptrdiff_t>(y * row));
  }
  return image;
}

}  // namespace agrid::viewer
