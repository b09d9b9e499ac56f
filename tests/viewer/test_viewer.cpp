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
/// The overlays' lines over 300 bodies change a few percent of the pixels (measured: 2.1 for
/// AABBs and pairs, 0.82 for agrid's cells at depth 1, 1.7 for bench-7's rays).
constexpr double kMinOverlayDifference = 0.5;
/// One picked body's AABB changes a few hundred pixels (measured: 0.013); nothing picked, 0.
constexpr double kMinPickedDifference = 0.005;
/// Colouring 300 bodies by pair count instead of by state changes most of their pixels
/// (measured: 10.6).
constexpr double kMinRecolourDifference = 2.0;
/// The centre of the default 1280x720 window: pile's bodies fill it after 60 steps.
constexpr const char* kCentrePixel = "640 360";
/// Exit code for bad usage.
constexpr int kUsageError = 2;

// Runs agrid-viewer with `arguments`; returns its exit code (-1 if it did not exit normally).
int run_viewer(const std::string& arguments) {
  const std::string command = std::string("\"") + AGRID_VIEWER + "\" " + arguments;
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The picture of `scene` after `steps` steps and `more` arguments, as `name`.png.
Image scene_picture(const std::string& scene, const std::string& name, int steps, const std::string& more) {
  const fs::path picture = output_dir() / (name + ".png");
  fs::remove(picture);
  const int code = run_viewer("--scene " + scene + " --quit --steps " + std::to_string(steps) + " --screenshot \"" +
                              picture.string() + "\" " + more);
  EXPECT_EQ(code, 0) << name;
  return read_png(picture);
}

// The picture of pile with 300 bodies after `steps` steps and `more` arguments, as `name`.png.
Image pile_picture(const std::string& name, int steps, const std::string& more = "") {
  return scene_picture("pile --bodies 300", name, steps, more);
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

TEST(Viewer, PickedAabbDrawsOverTheShapes) {
  const Image plain = pile_picture("plain", 60);
  const Image picked = pile_picture("picked", 60, std::string("--pick ") + kCentrePixel);
  EXPECT_GT(mean_abs_difference(plain, picked), kMinPickedDifference);
  // One AABB changes fewer pixels than all of them.
  const Image all = pile_picture("all-aabbs", 60, "--aabbs");
  EXPECT_GT(mean_abs_difference(plain, all), mean_abs_difference(plain, picked));
}

TEST(Viewer, ColourByPairsRecolours) {
  const Image plain = pile_picture("plain", 60);
  const Image by_pairs = pile_picture("by-pairs", 60, "--colour-by-pairs");
  EXPECT_GT(mean_abs_difference(plain, by_pairs), kMinRecolourDifference);
}

TEST(Viewer, Bench7RaysDrawOverTheScene) {
  const Image plain = scene_picture("bench-7", "bench7", 1, "");
  const Image rays = scene_picture("bench-7", "bench7-rays", 1, "--rays");
  EXPECT_GT(mean_abs_difference(plain, rays), kMinOverlayDifference);
}

TEST(Viewer, GridCellsDrawOverTheShapes) {
  const Image plain = pile_picture("plain", 60);
  const Image cells = pile_picture("cells", 60, "--overlay-cells 1");
  EXPECT_GT(mean_abs_difference(plain, cells), kMinOverlayDifference);
}

TEST(ViewerBadFlags, ExitTwo) {
  const std::vector<std::string> bad = {
      "--bodies 0",          "--scene nowhere",          "--broadphase octree", "--broadphase simple",
      "--frobnicate",        "--bodies many",            "--threads 0",         "--screenshot x.png",
      "--steps 10",          "--quit --switch-to octree", "--broadphase 3", "--with-panel",
      "--overlay-cells 13", "--overlay-cells -1", "--overlay-cells x", "--pick 1 2",
      "--quit --pick 1",     "--quit --pick -1 2",        "--quit --pick a b"};
  for (const std::string& arguments : bad) EXPECT_EQ(run_viewer(arguments), kUsageError) << arguments;
  EXPECT_EQ(run_viewer("--help > /dev/null"), 0);
}

}  // namespace
