// The viewer's world without a window: switching broadphase starts over from the same state,
// the A/B totals are kept per broadphase, a shot box joins the world, and pair lines leave the
// ground out.

#include <gtest/gtest.h>

#include <cstddef>

#include "simulation.h"

namespace {

using agrid::scenes::BroadphaseKind;
using agrid::viewer::Simulation;
using agrid::viewer::StepHistory;

/// Small enough to step quickly, large enough that bodies touch once they land.
constexpr std::uint32_t kBodies = 200;
/// Steps until pile's lowest bodies lie on the plane and on each other: 2 s of simulated time.
constexpr int kSettleSteps = 120;
constexpr unsigned kThreads = 2;

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

TEST(StepHistory, KeepsTheLastStepsOldestFirst) {
  StepHistory history;
  for (std::size_t i = 0; i < StepHistory::kCapacity + 5; ++i) {
    history.add(static_cast<float>(i), 0.0f, 0.0f);
  }
  EXPECT_EQ(history.step_ms().size(), StepHistory::kCapacity);
  EXPECT_EQ(history.step_ms()[history.oldest()], 5.0f);
}

}  // namespace
