// agrid-viewer run as a user would, in its non-interactive mode: the pictures it writes of its
// window, and its exit codes.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "agrid_render/image.h"
#include "render_support.h"

namespace {

namespace fs = std::filesystem;
using agrid::render::Image;
using agrid::render::read_png;
using agrid::render::testing::grey_variance;
using agrid::render::testing::mean_abs_difference;
using agrid::render::testing::output_dir;

/// A blank picture (the background alone) has a grey variance of 0; 300 lit bodies in front of
/// the ground give a couple of hundred (measured: 171 to 238). A sixth of that is clearly not blank.
constexpr double kMinGreyVariance = 30.0;
/// Mean channel difference (0-255) between pile at step 0 and at step 60: the bodies fall about
/// 18 units in a second, so most move by many pixels (measured: 8.8). Noise would be 0:
/// llvmpipe draws the same picture twice.
constexpr double kMinDifference = 1.0;
/// The overlays' lines over 300 bodies change a few percent of the pixels (measured: 2.1).
constexpr double kMinOverlayDifference = 0.5;
/// Exit code for bad usage.
constexpr int kUsageError = 2;

// Runs agrid-viewer with `arguments`; returns its exit code (-1 if it did not exit normally).
int run_viewer(const std::string& arguments) {
  const std::string command = std::string("\"") + AGRID_VIEWER + "\" " + arguments;
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The picture of pile with 300 bodies after `steps` steps and `more` arguments, as `name`.png.
Image pile_picture(const std::string& name, int steps, const std::string& more = "") {
  const fs::path picture = output_dir() / (name + ".png");
  fs::remove(picture);
  const int code = run_viewer("--scene pile --bodies 300 --quit --steps " + std::to_string(steps) + " --screenshot \"" +
                              picture.string() + "\" " + more);
  EXPECT_EQ(code, 0) << name;
  return read_png(picture);
}

TEST(Viewer, SwitchedPileIsNotBlank) {
  const Image image = pile_picture("switched", 60, "--broadphase agrid --switch-to dbvt");
  EXPECT_GT(grey_variance(image), kMinGreyVariance);
}

TEST(Viewer, SixtyStepsDifferFromNone) {
  const Image start = pile_picture("step0", 0);
  const Image later = pile_picture("step60", 60);
  EXPECT_GT(grey_variance(start), kMinGreyVariance);
  EXPECT_GT(mean_abs_difference(start, later), kMinDifference);
}

TEST(Viewer, OverlaysDrawOverTheShapes) {
  const Image plain = pile_picture("plain", 60);
  const Image overlays = pile_picture("overlays", 60, "--aabbs --pairs");
  EXPECT_GT(mean_abs_difference(plain, overlays), kMinOverlayDifference);
}

TEST(ViewerBadFlags, ExitTwo) {
  const std::vector<std::string> bad = {
      "--bodies 0",          "--scene nowhere",          "--broadphase octree", "--broadphase simple",
      "--frobnicate",        "--bodies many",            "--threads 0",         "--screenshot x.png",
      "--steps 10",          "--quit --switch-to octree", "--broadphase 3", "--with-panel"};
  for (const std::string& arguments : bad) EXPECT_EQ(run_viewer(arguments), kUsageError) << arguments;
  EXPECT_EQ(run_viewer("--help > /dev/null"), 0);
}

}  // namespace
