// Determinism across kernels and threads in Bullet worlds of the scene library: a ragdoll pile
// (bench-3) and a settling stack (bench-2's pyramid, walls and tower), stepped with
// btAdaptiveGridBroadphase on every pair kernel this CPU runs and on 1 and 2 threads, give
// bitwise the same bodies after every step.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "agrid/broadphase.h"
#include "agrid/bullet/btAdaptiveGridBroadphase.h"
#include "agrid_scenes/bullet_worlds.h"
#include "determinism/determinism.h"

namespace agrid::test {
namespace {

/// Steps of a world: 4 s of simulated time (the three tests take 14 s in Release on the project's
/// 2-core VM, 22 s under ASan and UBSan).
constexpr int kWorldSteps = 240;
/// The bench-* scenes have their own body count; the count asked for is ignored.
constexpr std::uint32_t kSceneOwnBodyCount = 0;
constexpr std::uint64_t kSeed = 26;
/// Coordinates of a point, rows and columns of a rotation.
constexpr int kAxes = 3;

/// Tuned so that a world of about a thousand bodies takes every path the kernels and threads
/// change: leaves over 8 entries are swept (the sweep kernels, not only the all-against-all
/// ones), and on 2 threads a moving set of 256 or more goes to the tree of grids, split into
/// tasks of about 256 entries.
constexpr std::uint32_t kSweepThreshold = 8;
constexpr std::uint32_t kTreeMinBoxes = 256;
constexpr std::uint32_t kTaskEntries = 256;

agrid::Config world_config(Kernel kernel) {
  agrid::Config config;
  config.kernel = kernel;
  config.sweep_threshold = kSweepThreshold;
  config.tree_min_boxes = kTreeMinBoxes;
  config.tree_task_entries = kTaskEntries;
  return config;
}

/// Every body's world transform (origin and basis, bitwise, in creation order) into `hash`.
void add_bodies(scenes::BulletWorld& world, RunningHash& hash) {
  for (const btRigidBody* body : world.harness().bodies()) {
    const btTransform& t = body->getWorldTransform();
    for (int axis = 0; axis < kAxes; ++axis) hash.add(t.getOrigin()[axis]);
    for (int row = 0; row < kAxes; ++row) {
      for (int column = 0; column < kAxes; ++column) hash.add(t.getBasis()[row][column]);
    }
  }
}

/// Steps `scene` with `config`, hashing the bodies after each step; notes the largest moving set.
StepHashes step_world(std::string_view scene, const agrid::Config& config, std::uint32_t& most_moving) {
  scenes::BulletWorld world(scene, scenes::BroadphaseKind::agrid, kSceneOwnBodyCount, kSeed, config);
  RunningHash hash;
  StepHashes hashes;
  for (int step = 0; step < kWorldSteps; ++step) {
    world.step();
    add_bodies(world, hash);
    hashes.push_back(hash.value());
    most_moving = std::max(most_moving, world.harness().grid()->broadphase().stats().moving);
  }
  return hashes;
}

/// One hash for all runs of `scene`, whose moving set was large enough for the tree of grids.
void expect_one_hash(std::string_view scene, float fat_margin) {
  std::uint32_t most_moving = 0;
  EXPECT_TRUE(one_hash_for_all_runs([&](const KernelAndThreads& run) {
    agrid::Config config = world_config(run.kernel);
    config.fat_margin = fat_margin;
    return step_world(scene, config, most_moving);
  })) << scene;
  EXPECT_GE(most_moving, kTreeMinBoxes) << scene << ": the tree of grids never ran";
}

TEST(DeterminismAcrossKernelsAndThreads, BulletRagdollPile) {
  // The ragdolls fall and pile up: most bodies move, the grid pairs them every step.
  expect_one_hash("bench-3-ragdolls", agrid::Config{}.fat_margin);
}

TEST(DeterminismAcrossKernelsAndThreads, BulletSettlingStack) {
  // No fat boxes: every body that jitters while the stack settles is paired by the grid each
  // step, not by re-testing its kept candidates, so the kernels decide its contacts.
  constexpr float kNoFatMargin = 0.0f;
  expect_one_hash("bench-2-pyramid-walls-tower", kNoFatMargin);
}

}  // namespace
}  // namespace agrid::test
