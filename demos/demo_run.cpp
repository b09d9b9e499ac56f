#include "demo_run.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace agrid::demo {
namespace {

/// Seconds between progress updates on a terminal.
constexpr double kProgressSeconds = 0.25;

using Clock = std::chrono::steady_clock;

// "step i/n, elapsed": rewritten in place on a terminal, a line per quarter otherwise.
class Progress {
 public:
  Progress(const std::string& label, std::uint32_t steps) : label_(label), steps_(steps), tty_(isatty(2) != 0) {}

  void update(std::uint32_t step) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    if (tty_) {
      if (step < steps_ && elapsed - last_ < kProgressSeconds) return;
      last_ = elapsed;
      std::fprintf(stderr, "\r  %s: step %u/%u, %.1f s%s", label_.c_str(), step, steps_, elapsed, step == steps_ ? "\n" : "");
      return;
    }
    if (step * 4 / steps_ != (step - 1) * 4 / steps_) {
      std::fprintf(stderr, "  %s: step %u/%u, %.1f s\n", label_.c_str(), step, steps_, elapsed);
    }
  }

 private:
  std::string label_;
  std::uint32_t steps_;
  bool tty_;
  Clock::time_point start_ = Clock::now();
  double last_ = -1;
};

}  // namespace

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::min(values.size() - 1, rank > 0 ? rank - 1 : 0)];
}

double mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

bool found_errors(const RunResult& r) {
  const bool extra_pairs_wrong = scenes::keeps_exact_pairs(r.kind) && r.extra_pairs > 0;
  // btSimpleBroadphase's rayTest reports every proxy: only agrid promises exact rays (with fat
  // pairs too).
  const bool extra_rays_wrong = scenes::is_agrid(r.kind) && r.rays_extra > 0;
  return r.missing_pairs > 0 || r.rays_missed > 0 || extra_pairs_wrong || extra_rays_wrong;
}

RunResult run(const std::string& scene, scenes::BroadphaseKind kind, std::uint32_t bodies, std::uint32_t steps,
              std::uint64_t seed, const StepObserver& observer) {
  RunResult result;
  result.scene = scene;
  result.kind = kind;
  scenes::BulletWorld world(scene, kind, bodies, seed);
  const scenes::WorldSceneInfo* info = scenes::find_world_scene(scene);
  const bool fixed = info != nullptr && info->fixed_bodies;
  result.bodies = fixed ? static_cast<std::uint32_t>(world.world().getNumCollisionObjects()) : bodies;
  result.rays_per_step = world.rays_per_step();
  Progress progress(scene + "/" + std::string(scenes::name(kind)), steps);
  if (observer) observer(0, world.world());
  for (std::uint32_t step = 1; step <= steps; ++step) {
    const auto start = Clock::now();
    world.step();
    const double total = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    result.step_ms.push_back(total);
    result.broadphase_ms.push_back(std::chrono::duration<double, std::milli>(world.broadphase().last_step_time()).count());
    result.query_ms.push_back(std::chrono::duration<double, std::milli>(world.last_query_time()).count());
    result.pairs.push_back(world.pairs());
    // The checks, untimed.
    const scenes::PairCheck pairs = world.check_pairs();
    result.missing_pairs += pairs.missing;
    result.extra_pairs += pairs.extra;
    const scenes::RayCheck rays = world.check_rays();
    result.rays_missed += rays.missed;
    result.rays_extra += rays.extra;
    if (observer) observer(step, world.world());
    progress.update(step);
  }
  result.physics = world.summary();
  result.final_state = world.body_states();
  return result;
}

}  // namespace agrid::demo
