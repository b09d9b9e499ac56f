// The scene library's moving scenes (agrid_scenes/step_scenes.h) and lattices
// (agrid_scenes/boxes.h), which the benchmarks, the Bullet worlds and the Broadphase's tests build
// on: what their comments promise (pairs a box, the lattices' sides and order) holds for the
// boxes they make, and the same seed makes the same boxes.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "agrid/agrid.h"
#include "agrid/broadphase.h"
#include "agrid_scenes/boxes.h"
#include "agrid_scenes/step_scenes.h"

namespace agrid::scenes {
namespace {

/// Boxes in each measured scene: enough for the densities to settle, few enough to be quick.
constexpr std::size_t kBoxes = 100000;

double pairs_a_box(std::span<const Box> boxes) {
  return static_cast<double>(find_all_pairs(boxes).size()) / static_cast<double>(boxes.size());
}

bool same_boxes(std::span<const Box> a, std::span<const Box> b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Box& x = a[i];
    const Box& y = b[i];
    if (x.min.x != y.min.x || x.min.y != y.min.y || x.min.z != y.min.z || x.max.x != y.max.x || x.max.y != y.max.y ||
        x.max.z != y.max.z) {
      return false;
    }
  }
  return true;
}

TEST(StepScenes, OneOverlapSideGivesAboutOnePairABox) {
  Random rng(kRayBoxSeed);
  const std::vector<Box> boxes = boxes_in_cube(rng, kBoxes, one_overlap_side(kBoxes));
  const double measured = pairs_a_box(boxes);
  RecordProperty("pairs_a_box", std::to_string(measured));
  // "About": the boxes at the faces have fewer neighbours.
  EXPECT_GT(measured, 0.9);
  EXPECT_LE(measured, 1.0);
}

TEST(StepScenes, TheWalkHasAboutFourTenthsOfAPairABox) {
  RandomWalk walk(kBoxes);
  constexpr int kSteps = 20;
  for (int step = 0; step < kSteps; ++step) walk.step();
  const double measured = pairs_a_box(walk.boxes());
  RecordProperty("pairs_a_box", std::to_string(measured));
  EXPECT_GT(measured, 0.35);
  EXPECT_LE(measured, 0.4);
}

TEST(StepScenes, ThePileHasAboutOneAndAHalfPairsABoxOverTheTimedFrames) {
  // agrid-bench-broadphase's BM_all_moving/pile/100k times the frames from 15 to 35 steps in.
  constexpr int kFirstTimed = 15;
  constexpr int kLastTimed = 35;
  BoxPile pile(kBoxes);
  for (int step = 1; step <= kLastTimed; ++step) {
    pile.step();
    if (step != kFirstTimed && step != kLastTimed) continue;
    const double measured = pairs_a_box(pile.boxes());
    RecordProperty("pairs_a_box_at_" + std::to_string(step), std::to_string(measured));
    EXPECT_GE(measured, 1.34) << "step " << step;
    EXPECT_LE(measured, 1.44) << "step " << step;
  }
}

TEST(StepScenes, TheWalksBoxesAreNearlyAllMovingWhenTimed) {
  const WalkStepScene& scene = kWalkStepScenes[0];
  WalkStepRun<Handle> run(scene);
  Broadphase broadphase;
  const auto create = [&](const Box& box) { return broadphase.create(box); };
  const auto remove = [&](Handle h) { broadphase.remove(h); };
  const auto set_box = [&](Handle h, const Box& box) { broadphase.set_box(h, box); };
  run.start(create);
  broadphase.update();
  for (int step = 0; step < kWalkStepWarmup; ++step) {
    run.prepare();
    run.step(create, remove, set_box);
    broadphase.update();
  }
  const double moving = static_cast<double>(broadphase.stats().moving) / static_cast<double>(broadphase.stats().objects);
  RecordProperty("moving_share", std::to_string(moving));
  EXPECT_GE(moving, 0.995);
}

TEST(StepScenes, TheSameSeedMakesTheSameBoxes) {
  BoxPile a(1000);
  BoxPile b(1000);
  a.step();
  b.step();
  EXPECT_TRUE(same_boxes(a.boxes(), b.boxes()));
  EXPECT_TRUE(same_boxes(ray_scene_boxes(), ray_scene_boxes()));
}

TEST(Lattices, SidesAreTheLeastThatHoldTheCount) {
  EXPECT_EQ(square_lattice_side(1), 1u);
  EXPECT_EQ(square_lattice_side(4), 2u);
  EXPECT_EQ(square_lattice_side(5), 3u);
  EXPECT_EQ(square_lattice_side(100000), 317u);  // static-city-100k's side
  EXPECT_EQ(cube_lattice_side(1), 1u);
  EXPECT_EQ(cube_lattice_side(1000), 10u);
  EXPECT_EQ(cube_lattice_side(1001), 11u);
  EXPECT_EQ(cube_lattice_side(5000), 18u);  // pile-5k's side
  for (std::uint32_t n = 1; n < 3000; ++n) {
    const std::uint32_t square = square_lattice_side(n);
    const std::uint32_t cube = cube_lattice_side(n);
    ASSERT_TRUE(square * square >= n && (square - 1) * (square - 1) < n) << n;
    ASSERT_TRUE(cube * cube * cube >= n && (cube - 1) * (cube - 1) * (cube - 1) < n) << n;
  }
}

TEST(Lattices, PointsFillXFirst) {
  constexpr float kSpacing = 2.0f;
  // 10 points: a square of 4 a side; a cube of 3 a side, filled along x, then z, then y.
  const Vec3 square = square_lattice_point(9, 10, kSpacing);
  EXPECT_EQ(square.x, 2.0f);
  EXPECT_EQ(square.y, 0.0f);
  EXPECT_EQ(square.z, 4.0f);
  const Vec3 cube = cube_lattice_point(9, 10, kSpacing);
  EXPECT_EQ(cube.x, 0.0f);
  EXPECT_EQ(cube.y, 2.0f);
  EXPECT_EQ(cube.z, 0.0f);
  const Vec3 second_row = cube_lattice_point(4, 10, kSpacing);
  EXPECT_EQ(second_row.x, 2.0f);
  EXPECT_EQ(second_row.y, 0.0f);
  EXPECT_EQ(second_row.z, 2.0f);
}

}  // namespace
}  // namespace agrid::scenes
