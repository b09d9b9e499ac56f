#pragma once
// One A/B run of the demo: a Bullet world stepped with one broadphase, its per-step costs, an
// exact check of its pair cache, and how its physics ended.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "agrid_scenes/bullet_worlds.h"

namespace agrid::demo {

/// What one run measured.
struct RunResult {
  std::string scene;
  scenes::BroadphaseKind kind;
  std::uint32_t bodies = 0;           ///< The scene's own count for the bench-* scenes.
  std::size_t rays_per_step = 0;      ///< The scene's rays cast after every step (bench-7: 500).
  std::vector<double> step_ms;        ///< Per step: stepSimulation and the scene's rays.
  std::vector<double> broadphase_ms;  ///< Per step: every setAabb plus calculateOverlappingPairs.
  std::vector<double> query_ms;       ///< Per step: the scene's rays (0 without).
  std::vector<int> pairs;             ///< Per step: pairs in the cache after it.
  std::uint64_t missing_pairs = 0;    ///< Over all steps: overlapping pairs the filter accepts that the cache lacked.
  std::uint64_t extra_pairs = 0;      ///< Over all steps: cached pairs beyond those (dbvt, sap keep some by design).
  std::uint64_t rays_missed = 0;      ///< Over all steps: objects a ray meets that rayTest did not report.
  std::uint64_t rays_extra = 0;       ///< Over all steps: objects rayTest reported that the ray does not meet.
  scenes::PhysicsSummary physics;     ///< After the last step.
  std::vector<scenes::BulletWorld::BodyState> final_state;
};

/// Called with the steps done and the world, before the first step and after every step,
/// outside the timing (for pictures).
using StepObserver = std::function<void(std::uint32_t step, const btCollisionWorld& world)>;

/// Runs `steps` steps of `scene` with `bodies` bodies and broadphase `kind`, checking the pair
/// cache against the exact pairs, and rayTest against the exact hits, after every step
/// (untimed), and calling `observer` if given. Prints a progress line to stderr.
[[nodiscard]] RunResult run(const std::string& scene, scenes::BroadphaseKind kind, std::uint32_t bodies,
                            std::uint32_t steps, std::uint64_t seed, const StepObserver& observer = {});

/// The value at quantile q in [0, 1] (nearest rank) of `values`; 0 if empty.
[[nodiscard]] double quantile(std::vector<double> values, double q);

/// The mean of `values`; 0 if empty.
[[nodiscard]] double mean(const std::vector<double>& values);

/// Whether the run found a broadphase wrong: a missed pair or ray hit (any broadphase), an extra
/// pair from an exact broadphase (agrid, simple: scenes::keeps_exact_pairs), or an extra ray hit
/// from agrid, which promises exact rays.
[[nodiscard]] bool found_errors(const RunResult& r);

}  // namespace agrid::demo
