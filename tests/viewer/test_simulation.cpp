// The viewer's world without a window: switching broadphase starts over from the same state,
// the A/B totals are kept per broadphase, a shot box joins the world, pair lines leave the
// ground out; and the overlays' data: picking through a pixel, pair counts and their colours,
// bench-7's rays, agrid's cells at a depth.

#include <gtest/gtest.h>

#include <cstddef>
#include <numeric>

#include <glm/geometric.hpp>

#include "grid_cells.h"
#include "overlays.h"
#include "pair_colours.h"
#include "picking.h"
#include "simulation.h"

namespace {

using agrid::scenes::BroadphaseKind;
using agrid::viewer::Simulation;
using agrid::viewer::AabbOverlay;
using agrid::viewer::GridCells;
using agrid::viewer::Overlays;
using agrid::viewer::StepHistory;

/// Small enough to step quickly, large enough that bodies touch once they land.
constexpr std::uint32_t kBodies = 200;
/// Steps until pile's lowest bodies lie on the plane and on each other: 2 s of simulated time.
constexpr int kSettleSteps = 120;
constexpr unsigned kThreads = 2;
/// Where a test shoots a box to pick it: far above pile, alone.
const glm::vec3 kLonelyBox{0.0f, 1000.0f, 0.0f};
/// A window of odd size, so that a pixel's centre lies on the view's axis.
constexpr int kWindowSide = 101;
/// bench-7's rays: 500 a step, from (0, 50, 0), 2,500 units out and down to y = -1000.
constexpr std::size_t kBench7Rays = 500;
const glm::vec3 kBench7RaySource{0.0f, 50.0f, 0.0f};
constexpr float kBench7RayLength = 2711.6f;  // hypot(2500, 1050)

std::size_t index_of(BroadphaseKind kind) { return static_cast<std::size_t>(kind); }

TEST(Simulation, SwitchStartsOverAndKeepsEachBroadphasesTotals) {
  Simulation simulation("pile", kBodies, 1, BroadphaseKind::agrid, kThreads);
  for (int i = 0; i < 10; ++i) simulation.step();
  const int objects = simulation.world().getNumCollisionObjects();
  simulation.rebuild(BroadphaseKind::dbvt);
  EXPECT_EQ(simulation.steps(), 0u);
  EXPECT_TRUE(simulation.history().step_ms().empty());
  EXPECT_EQ(simulation.world().getNumCollisionObjects(), objects);
  for (int i = 0; i < 4; ++i) simulation.step();
  EXPECT_EQ(simulation.totals()[index_of(BroadphaseKind::agrid)].steps, 10u);
  EXPECT_EQ(simulation.totals()[index_of(BroadphaseKind::dbvt)].steps, 4u);
  EXPECT_EQ(simulation.totals()[index_of(BroadphaseKind::sap)].steps, 0u);
  EXPECT_GT(simulation.totals()[index_of(BroadphaseKind::dbvt)].mean_step_ms(), 0.0);
}

TEST(Simulation, ShotBoxJoinsTheWorldAndSurvivesSteps) {
  Simulation simulation("pile", kBodies, 1, BroadphaseKind::sap, kThreads);
  const int objects = simulation.world().getNumCollisionObjects();
  simulation.shoot_box({0.0f, 20.0f, 40.0f}, {0.0f, 0.0f, -1.0f});
  EXPECT_EQ(simulation.world().getNumCollisionObjects(), objects + 1);
  EXPECT_EQ(simulation.objects(), objects + 1);
  for (int i = 0; i < 10; ++i) simulation.step();
  simulation.set_threads(1);
  simulation.step();
  EXPECT_EQ(simulation.threads(), 1u);
}

TEST(Simulation, PairLinesLeaveTheGroundOut) {
  Simulation simulation("pile", kBodies, 1, BroadphaseKind::agrid, kThreads);
  for (int i = 0; i < kSettleSteps; ++i) simulation.step();
  const std::vector<glm::vec3> ends = simulation.pair_lines();
  const auto cached = static_cast<std::size_t>(simulation.world().getBroadphase()->getOverlappingPairCache()->getNumOverlappingPairs());
  EXPECT_EQ(ends.size() % 2, 0u);
  EXPECT_GT(ends.size(), 0u);
  // Bodies resting on the plane pair with it, and those pairs get no line.
  EXPECT_LT(ends.size() / 2, cached);
}

TEST(Simulation, PickFindsTheBodyUnderTheCentrePixel) {
  Simulation simulation("pile", kBodies, 1, BroadphaseKind::agrid, kThreads);
  simulation.shoot_box(kLonelyBox, {1.0f, 0.0f, 0.0f});
  const int shot = simulation.objects() - 1;
  agrid::render::Camera camera;
  camera.eye = kLonelyBox + glm::vec3(0.0f, 0.0f, 20.0f);
  camera.target = kLonelyBox;
  const auto centre = static_cast<double>(kWindowSide / 2);
  const agrid::viewer::PickRay ray = agrid::viewer::ray_through(camera, centre, centre, kWindowSide, kWindowSide);
  EXPECT_EQ(simulation.pick(ray.from, ray.to), shot);
  // A corner pixel looks past it, at nothing.
  const agrid::viewer::PickRay past = agrid::viewer::ray_through(camera, 0.0, 0.0, kWindowSide, kWindowSide);
  EXPECT_EQ(simulation.pick(past.from, past.to), std::nullopt);

  const std::optional<agrid::viewer::BodyInfo> info = simulation.body_info(shot);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->index, shot);
  EXPECT_EQ(info->shape, "Box");
  EXPECT_EQ(info->state, "awake");
  EXPECT_EQ(info->pairs, 0);
  EXPECT_LT(info->aabb.min.y, kLonelyBox.y);
  EXPECT_GT(info->aabb.max.y, kLonelyBox.y);
  EXPECT_EQ(simulation.body_info(simulation.objects()), std::nullopt);
}

TEST(Simulation, PairCountsAddUpToTheCache) {
  Simulation simulation("pile", kBodies, 1, BroadphaseKind::agrid, kThreads);
  for (int i = 0; i < kSettleSteps; ++i) simulation.step();
  const std::vector<int> counts = simulation.pair_counts();
  ASSERT_EQ(counts.size(), static_cast<std::size_t>(simulation.objects()));
  const int cached = simulation.world().getBroadphase()->getOverlappingPairCache()->getNumOverlappingPairs();
  EXPECT_GT(cached, 0);
  EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), 0), 2 * cached);
  for (int i = 0; i < simulation.objects(); i += 17) EXPECT_EQ(simulation.body_info(i)->pairs, counts[static_cast<std::size_t>(i)]);
}

TEST(Overlays, ColourByPairsGivesEachObjectItsCountsColour) {
  Simulation simulation("pile", kBodies, 1, BroadphaseKind::agrid, kThreads);
  for (int i = 0; i < kSettleSteps; ++i) simulation.step();
  Overlays overlays;
  GridCells cells;
  agrid::render::DrawOptions plain;
  add_overlays(simulation, overlays, cells, plain);
  EXPECT_TRUE(plain.object_colours.empty());
  overlays.colour_by_pairs = true;
  agrid::render::DrawOptions draw;
  add_overlays(simulation, overlays, cells, draw);
  const std::vector<int> counts = simulation.pair_counts();
  ASSERT_EQ(draw.object_colours.size(), counts.size());
  for (std::size_t i = 0; i < counts.size(); ++i) EXPECT_EQ(draw.object_colours[i], agrid::viewer::pair_colour(counts[i]));
  EXPECT_NE(agrid::viewer::pair_colour(0), agrid::viewer::pair_colour(1));
  EXPECT_NE(agrid::viewer::pair_colour(1), agrid::viewer::pair_colour(agrid::viewer::kHotPairs));
  EXPECT_EQ(agrid::viewer::pair_colour(agrid::viewer::kHotPairs + 10), agrid::viewer::pair_colour(agrid::viewer::kHotPairs));
}

TEST(Overlays, PickedAabbIsThePickedBodysAlone) {
  Simulation simulation("pile", kBodies, 1, BroadphaseKind::agrid, kThreads);
  Overlays overlays;
  overlays.aabbs = AabbOverlay::picked;
  GridCells cells;
  agrid::render::DrawOptions none;
  add_overlays(simulation, overlays, cells, none);
  EXPECT_TRUE(none.wire_boxes.empty()) << "nothing picked, nothing drawn";
  overlays.picked = 3;
  agrid::render::DrawOptions draw;
  add_overlays(simulation, overlays, cells, draw);
  EXPECT_FALSE(draw.aabbs);
  ASSERT_EQ(draw.wire_boxes.size(), 1u);
  ASSERT_EQ(draw.wire_boxes[0].boxes.size(), 1u);
  EXPECT_EQ(draw.wire_boxes[0].boxes[0].min, simulation.body_info(3)->aabb.min);
}

TEST(Simulation, Bench7RaysEndAtTheirHits) {
  Simulation simulation("bench-7", kBodies, 1, BroadphaseKind::agrid, kThreads);
  EXPECT_TRUE(simulation.ray_lines().empty()) << "no step, no rays";
  simulation.step();
  const std::vector<glm::vec3> ends = simulation.ray_lines();
  ASSERT_EQ(ends.size(), 2 * kBench7Rays);
  std::size_t cut = 0;
  for (std::size_t i = 0; i < ends.size(); i += 2) {
    EXPECT_EQ(ends[i], kBench7RaySource);
    const float length = glm::length(ends[i + 1] - ends[i]);
    EXPECT_LE(length, kBench7RayLength);
    cut += length < kBench7RayLength * 0.99f;
  }
  // The landscape lies below the fan: rays end on it, short of their reach.
  EXPECT_GT(cut, 0u);

  Simulation pile("pile", kBodies, 1, BroadphaseKind::agrid, kThreads);
  pile.step();
  EXPECT_TRUE(pile.ray_lines().empty()) << "pile casts no rays";
}

TEST(GridCells, OneRootThenFinerLevelsInsideIt) {
  Simulation simulation("pile", kBodies, 1, BroadphaseKind::agrid, kThreads);
  for (int i = 0; i < kSettleSteps; ++i) simulation.step();
  GridCells cells;
  const std::vector<agrid::Box> aabbs = simulation.aabbs();
  ASSERT_EQ(aabbs.size(), static_cast<std::size_t>(simulation.objects()));
  const std::vector<agrid::render::Bounds> root = cells.at_depth(aabbs, 0);
  ASSERT_EQ(root.size(), 1u);
  ASSERT_GE(cells.depth(), 1u);
  const std::vector<agrid::render::Bounds> children = cells.at_depth(aabbs, 1);
  EXPECT_GE(children.size(), 1u);
  EXPECT_LE(children.size(), 64u);
  for (const agrid::render::Bounds& c : children) {
    EXPECT_TRUE(glm::all(glm::lessThanEqual(root[0].min, c.min)) && glm::all(glm::lessThanEqual(c.max, root[0].max)));
    EXPECT_NEAR(c.max.x - c.min.x, (root[0].max.x - root[0].min.x) / 4, 1e-3f * (root[0].max.x - root[0].min.x));
  }
  EXPECT_TRUE(cells.at_depth(aabbs, cells.depth() + 1).empty());
}

TEST(StepHistory, KeepsTheLastStepsOldestFirst) {
  StepHistory history;
  for (std::size_t i = 0; i < StepHistory::kCapacity + 5; ++i) {
    history.add(static_cast<float>(i), 0.0f, 0.0f);
  }
  EXPECT_EQ(history.step_ms().size(), StepHistory::kCapacity);
  EXPECT_EQ(history.step_ms()[history.oldest()], 5.0f);
}

}  // namespace
