#pragma once
// One A/B run of the demo: a Bullet world stepped with one broadphase, its per-step costs, an
// exact check of its pair cache, and how its physics ended.

#include <cstdint>
#include <string>
#include <vector>

#include "agrid_scenes/bullet_worlds.h"

namespace agrid::demo {

/// What one run measured.
struct RunResult {
  std::string scene;
  scenes::BroadphaseKind kind;
  std::uint32_t bodies = 0;
  std::vector<double> step_ms;        ///< Per step: the whole stepSimulation.
  std::vector<double> broadphase_ms;  ///< Per step: every setAabb plus calculateOverlappingPairs.
  std::vector<int> pairs;             ///< Per step: pairs in the cache after it.
  std::uint64_t missing_pairs = 0;    ///< Over all steps: overlapping pairs the cache lacked.
  scenes::PhysicsSummary physics;     ///< After the last step.
  std::vector<scenes::BulletWorld::BodyState> final_state;
};

/// Runs `steps` steps of `scene` with `bodies` bodies and broadphase `kind`, checking the pair
/// cache against the exact pairs after every step (untimed). Prints a progress line to stderr.
[[nodiscard]] RunResult run(const std::string& scene, scenes::BroadphaseKind kind, std::uint32_t bodies,
                            std::uint32_t steps, std::uint64_t seed);

/// The value at quantile q in [0, 1] (nearest rank) of `values`; 0 if empty.
[[nodiscard]] double quantile(std::vector<double> values, double q);

}  // namespace agrid::demo
