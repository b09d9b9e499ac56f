// Pictures of Bullet worlds through the offscreen renderer (needs a display: ctest runs these
// under xvfb-run when DISPLAY is unset, on Mesa's software GL).

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include <btBulletCollisionCommon.h>

#include "agrid_render/offscreen.h"
#include "agrid_scenes/bullet_harness.h"
#include "render_support.h"

namespace agrid::render {
namespace {

namespace fs = std::filesystem;
using testing::grey_variance;
using testing::mean_abs_difference;
using testing::stepped_pile;

/// The pile the first test draws: its body count and the step it is drawn at.
constexpr std::uint32_t kPileBodies = 400;
constexpr std::uint32_t kPileSteps = 60;
/// A blank picture has no variance; a picture of the pile has hundreds (grey levels squared).
constexpr double kMinVariance = 50.0;
/// Bodies that fell for a second move many pixels: the pictures differ by more than this (0-255).
constexpr double kMinChange = 1.0;

/// The stored reference: a small pile at a fixed step, at a small size (tests/render/reference).
constexpr std::uint32_t kReferenceBodies = 300;
constexpr std::uint32_t kReferenceSteps = 45;
constexpr int kReferenceWidth = 320;
constexpr int kReferenceHeight = 180;
/// Mean absolute channel difference (0-255) allowed against the reference: rasterisers differ a
/// little at edges (another Mesa, another GPU); a wrong picture differs by far more.
constexpr double kReferenceTolerance = 2.0;
/// Set to 1 to rewrite the reference instead of comparing with it.
constexpr const char* kUpdateReferenceVariable = "AGRID_UPDATE_RENDER_REFERENCE";

/// A small picture size for the tests that only need some pixels.
constexpr int kSmallWidth = 160;
constexpr int kSmallHeight = 90;

/// pile before its first step, its snapshot and a small renderer: what the overlay tests draw.
struct SmallPile {
  OffscreenRenderer renderer{kSmallWidth, kSmallHeight};
  std::unique_ptr<scenes::BulletWorld> world = stepped_pile(kPileBodies, 0);
  MeshCache cache;
  Snapshot snapshot = take_snapshot(world->world(), cache);
};

Image picture_of(btCollisionWorld& world, OffscreenRenderer& renderer, const DrawOptions& options = {}) {
  MeshCache cache;
  return renderer.render(take_snapshot(world, cache), options);
}

TEST(Render, PileIsNotBlankAndMoves) {
  OffscreenRenderer renderer;  // 960x540
  auto start = stepped_pile(kPileBodies, 0);
  const Image before = picture_of(start->world(), renderer);
  auto later = stepped_pile(kPileBodies, kPileSteps);
  const Image after = picture_of(later->world(), renderer);
  ASSERT_EQ(after.width, kDefaultWidth);
  ASSERT_EQ(after.height, kDefaultHeight);
  ASSERT_EQ(after.rgb.size(), static_cast<std::size_t>(kDefaultWidth * kDefaultHeight * 3));
  EXPECT_GT(grey_variance(before), kMinVariance);
  EXPECT_GT(grey_variance(after), kMinVariance);
  EXPECT_GT(mean_abs_difference(before, after), kMinChange);
}

TEST(Render, PileMatchesTheStoredReference) {
  const fs::path reference = fs::path(AGRID_RENDER_REFERENCE_DIR) / "pile-300-step45.png";
  OffscreenRenderer renderer(kReferenceWidth, kReferenceHeight);
  auto world = stepped_pile(kReferenceBodies, kReferenceSteps);
  const Image actual = picture_of(world->world(), renderer);
  const char* update = std::getenv(kUpdateReferenceVariable);
  if (update != nullptr && std::string(update) == "1") {
    write_png(reference, actual);
    GTEST_SKIP() << "rewrote " << reference;
  }
  const Image expected = read_png(reference);
  ASSERT_EQ(actual.width, expected.width);
  ASSERT_EQ(actual.height, expected.height);
  const double difference = mean_abs_difference(actual, expected);
  if (difference >= kReferenceTolerance) {
    const fs::path written = testing::output_dir() / "pile-300-step45-actual.png";
    write_png(written, actual);
    ADD_FAILURE() << "the picture differs from " << reference << " by " << difference << " per channel (at most "
                  << kReferenceTolerance << " allowed); this build's picture: " << written;
  }
}

TEST(Render, AabbOverlayDrawsLines) {
  SmallPile pile;
  const Snapshot& snapshot = pile.snapshot;
  OffscreenRenderer& renderer = pile.renderer;
  DrawOptions with_boxes;
  with_boxes.aabbs = true;
  EXPECT_GT(mean_abs_difference(renderer.render(snapshot), renderer.render(snapshot, with_boxes)), 0.0);
}

TEST(Render, ObjectColoursRecolourAllButStaticObjects) {
  SmallPile pile;
  const Snapshot& snapshot = pile.snapshot;
  OffscreenRenderer& renderer = pile.renderer;
  DrawOptions recoloured;
  recoloured.object_colours.assign(snapshot.objects, glm::vec3(0.0f, 1.0f, 0.0f));
  EXPECT_GT(mean_abs_difference(renderer.render(snapshot), renderer.render(snapshot, recoloured)), 0.0);
  // The ground alone (pile's bodies are boxes and spheres): no change.
  Snapshot ground = snapshot;
  ground.boxes.clear();
  ground.spheres.clear();
  ASSERT_FALSE(ground.meshes.empty());
  EXPECT_EQ(mean_abs_difference(renderer.render(ground), renderer.render(ground, recoloured)), 0.0);
}

TEST(Render, WireBoxesAndColouredLinesDraw) {
  SmallPile pile;
  const Snapshot& snapshot = pile.snapshot;
  OffscreenRenderer& renderer = pile.renderer;
  const Image plain = renderer.render(snapshot);
  DrawOptions boxes;
  boxes.wire_boxes.push_back({{snapshot.bounds}, glm::vec3(1.0f, 0.0f, 1.0f)});
  EXPECT_GT(mean_abs_difference(plain, renderer.render(snapshot, boxes)), 0.0);
  DrawOptions lines;
  lines.coloured_lines.push_back({{snapshot.bounds.min, snapshot.bounds.max}, glm::vec3(1.0f, 1.0f, 0.0f)});
  EXPECT_GT(mean_abs_difference(plain, renderer.render(snapshot, lines)), 0.0);
}

TEST(Render, PngRoundTrips) {
  OffscreenRenderer renderer(kSmallWidth, kSmallHeight);
  auto world = stepped_pile(kPileBodies, 0);
  const Image image = picture_of(world->world(), renderer);
  const fs::path path = testing::output_dir() / "round-trip.png";
  write_png(path, image);
  const Image back = read_png(path);
  EXPECT_EQ(back.width, image.width);
  EXPECT_EQ(back.height, image.height);
  EXPECT_EQ(back.rgb, image.rgb);
}

TEST(RenderBadInput, EmptyWorldIsBackgroundOnly) {
  OffscreenRenderer renderer(kSmallWidth, kSmallHeight);
  scenes::BulletHarness harness;
  DrawOptions options;
  options.aabbs = true;
  const Image image = picture_of(harness.world(), renderer, options);
  ASSERT_EQ(image.rgb.size(), static_cast<std::size_t>(kSmallWidth * kSmallHeight * 3));
  for (std::size_t i = 3; i < image.rgb.size(); ++i) ASSERT_EQ(image.rgb[i], image.rgb[i % 3]) << "byte " << i;
  for (int channel = 0; channel < 3; ++channel) {
    EXPECT_NEAR(image.rgb[static_cast<std::size_t>(channel)], DrawOptions::kDefaultBackground[channel] * 255.0f, 1.0f);
  }
}

TEST(RenderBadInput, ZeroSizeThrows) {
  EXPECT_THROW(OffscreenRenderer(0, kSmallHeight), std::invalid_argument);
  EXPECT_THROW(OffscreenRenderer(kSmallWidth, 0), std::invalid_argument);
  EXPECT_THROW(OffscreenRenderer(-1, -1), std::invalid_argument);
  // A renderer that works after failed ones: GLFW's init and termination stay balanced.
  OffscreenRenderer renderer(kSmallWidth, kSmallHeight);
  scenes::BulletHarness harness;
  MeshCache cache;
  EXPECT_NO_THROW((void)renderer.render(take_snapshot(harness.world(), cache)));
}

TEST(RenderBadInput, HugeSizeThrows) {
  EXPECT_THROW(OffscreenRenderer(1 << 30, 1), std::invalid_argument);
}

TEST(RenderBadInput, ZeroViewportThrows) {
  OffscreenRenderer renderer(kSmallWidth, kSmallHeight);  // makes a context current
  Renderer direct;
  EXPECT_THROW(direct.draw(Snapshot{}, {}, 0, 0), std::invalid_argument);
}

}  // namespace
}  // namespace agrid::render
