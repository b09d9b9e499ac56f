// A/B benchmark of Bullet broadphases in real worlds: btDbvtBroadphase, bt32BitAxisSweep3 and
// btAdaptiveGridBroadphase on the same scenes, the same steps, in a task arena of 2 threads.
//
// Each benchmark builds its world (untimed), runs warm-up steps (untimed), then times steps of
// 1/60 s, one per iteration. Counters, per step, medians over the timed steps:
//   bp_ms    broadphase time: every setAabb plus calculateOverlappingPairs (TimedBroadphase)
//   step_ms  the whole stepSimulation
//   rest_ms  step_ms - bp_ms: narrowphase, solver, integration
//   pairs    pairs in the cache after the last step
// Run:  agrid-bench-bullet [--benchmark_filter=BM_bullet/scatter.*]

#include <benchmark/benchmark.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "agrid_scenes/bullet_worlds.h"

namespace {

/// Threads of the task arena every benchmark runs in: the project machine's two cores.
constexpr int kThreads = 2;

/// A scene of the adapter issue, its size and its steps.
struct AbScene {
  const char* name;
  std::uint32_t bodies;
  int warmup_steps;
  int timed_steps;
};

/// scatter-50k, cluster-50k, pile-5k (warmed until it has landed and piles up) and
/// static-city-100k (100,000 static boxes, 1,000 spheres; warmed until the first have landed).
constexpr AbScene kScenes[] = {
    {"scatter", 50000, 3, 20},
    {"cluster", 50000, 3, 20},
    {"pile", 5000, 120, 60},
    {"static-city", 100000, 100, 30},
};

constexpr agrid::scenes::BroadphaseKind kKinds[] = {agrid::scenes::BroadphaseKind::dbvt,
                                                    agrid::scenes::BroadphaseKind::sap,
                                                    agrid::scenes::BroadphaseKind::agrid};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : 0.5 * (v[mid - 1] + v[mid]);
}

void bm_bullet(benchmark::State& state, AbScene scene, agrid::scenes::BroadphaseKind kind) {
  const tbb::global_control threads(tbb::global_control::max_allowed_parallelism, kThreads);
  tbb::task_arena arena(kThreads);
  arena.execute([&] {
    agrid::scenes::BulletWorld world(scene.name, kind, scene.bodies);
    for (int i = 0; i < scene.warmup_steps; ++i) world.step();
    std::vector<double> broadphase_ms;
    std::vector<double> step_ms;
    std::vector<double> rest_ms;
    for (auto _ : state) {
      const auto start = std::chrono::steady_clock::now();
      world.step();
      const double total = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      const double bp = std::chrono::duration<double, std::milli>(world.broadphase().last_step_time()).count();
      broadphase_ms.push_back(bp);
      step_ms.push_back(total);
      rest_ms.push_back(total - bp);
    }
    state.counters["bp_ms"] = median(broadphase_ms);
    state.counters["step_ms"] = median(step_ms);
    state.counters["rest_ms"] = median(rest_ms);
    state.counters["pairs"] = world.pairs();
    state.counters["bodies"] = static_cast<double>(world.world().getNumCollisionObjects());
    state.counters["threads"] = kThreads;
  });
}

}  // namespace

int main(int argc, char** argv) {
  for (const AbScene& scene : kScenes) {
    for (const auto kind : kKinds) {
      const std::string name = std::string("BM_bullet/") + scene.name + "-" + std::to_string(scene.bodies / 1000) + "k/" +
                               std::string(agrid::scenes::name(kind));
      benchmark::RegisterBenchmark(name.c_str(), [scene, kind](benchmark::State& state) { bm_bullet(state, scene, kind); })
          ->Iterations(scene.timed_steps)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
