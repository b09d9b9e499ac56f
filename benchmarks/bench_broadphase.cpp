// Google Benchmark of the incremental agrid::Broadphase through its public API only, so that the
// same source times today's implementation and any later one.
//
// BM_broadphase/<scene>: one iteration is one step: the step's set_box, create and remove calls,
// then update(). Boxes at about one overlap a box (broadphase_scenes.h); each scene is warmed up
// untimed into its steady state, then a fixed number of steps is timed, one thread. Counters:
//   median_ms, max_ms   median and slowest timed step
//   bytes_per_object    stats().bytes_held / live objects after the last step
//   objects, pairs, moving, changed   stats() after the last step
// BM_broadphase/scatter-50k: 50,000 boxes that all move every step (broadphase_scenes.h's
// RandomWalk: a velocity each, 1% of them given a new one a step, at density 0.1: 0.4 pairs a
// box); one iteration is set_box for every box and update(). Same counters.
// BM_broadphase_unload/1M: 1,000,000 boxes made and stepped (1% nudged a step), then all removed;
// one iteration is the update() that removes them (the other work untimed). Counters:
//   peak_mib        stats().bytes_held before the removal, in MiB
//   removed_mib     after the update that removes every object (it holds the ended pairs it reports)
//   next_mib        after the next update
// BM_broadphase_rays/static-50k/threads:N: 500 segments through 50,000 static boxes
// (for_each_hit), split over N threads; one iteration is the 500. Its Bullet peer is in
// bench_bullet.cpp.
// Run:  agrid-bench-broadphase [--benchmark_filter='BM_broadphase/.*-50k']

#include <benchmark/benchmark.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "agrid/broadphase.h"
#include "broadphase_scenes.h"

namespace {

using agrid::bench::FrozenStepRun;
using agrid::bench::kFrozenStepScenes;
using agrid::bench::kStreamStepScenes;
using agrid::bench::StreamStepRun;
using agrid::bench::WalkStepRun;

/// Threads of the step benchmarks' task arena: the core targets one thread.
constexpr int kThreads = 1;

/// Runs `body` inside an arena of `threads` threads.
template <class Body>
void in_arena(Body&& body, int threads = kThreads) {
  tbb::task_arena arena(threads);
  arena.execute(body);
}

/// Wall-clock times of the timed steps, and the counters made of them.
class StepTimes {
 public:
  template <class Step>
  void time(Step&& step) {
    const auto start = std::chrono::steady_clock::now();
    step();
    ms_.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }

  void report(benchmark::State& state, const agrid::Broadphase& broadphase) {
    std::sort(ms_.begin(), ms_.end());
    const std::size_t mid = ms_.size() / 2;
    const agrid::BroadphaseStats stats = broadphase.stats();
    state.counters["median_ms"] = ms_.empty() ? 0 : (ms_.size() % 2 == 1 ? ms_[mid] : 0.5 * (ms_[mid - 1] + ms_[mid]));
    state.counters["max_ms"] = ms_.empty() ? 0 : ms_.back();
    state.counters["objects"] = stats.objects;
    state.counters["pairs"] = stats.pairs;
    state.counters["moving"] = stats.moving;
    state.counters["changed"] = stats.changed;
    state.counters["bytes_per_object"] =
        stats.objects == 0 ? 0 : static_cast<double>(stats.bytes_held) / static_cast<double>(stats.objects);
  }

 private:
  std::vector<double> ms_;
};

/// Runs `warmup` untimed steps, then one timed step per iteration; `prepare` draws a step's
/// changes (untimed), `step` makes them and calls update().
template <class Prepare, class Step>
void run_steps(benchmark::State& state, const agrid::Broadphase& broadphase, int warmup, Prepare&& prepare,
               Step&& step) {
  for (int i = 0; i < warmup; ++i) {
    prepare();
    step();
  }
  StepTimes times;
  for (auto _ : state) {
    state.PauseTiming();
    prepare();
    state.ResumeTiming();
    times.time(step);
  }
  times.report(state, broadphase);
}

/// A step scene (broadphase_scenes.h) on agrid::Broadphase: created and updated once, `warmup`
/// untimed steps, then one timed step (its calls and update()) per iteration.
template <class Run, class Scene>
void bm_steps(benchmark::State& state, const Scene& scene, int warmup) {
  in_arena([&] {
    Run run(scene);
    agrid::Broadphase broadphase;
    const auto create = [&](const agrid::Box& box) { return broadphase.create(box); };
    const auto remove = [&](agrid::Handle handle) { broadphase.remove(handle); };
    const auto set_box = [&](agrid::Handle handle, const agrid::Box& box) { broadphase.set_box(handle, box); };
    run.start(create);
    broadphase.update();
    const auto step = [&] {
      run.step(create, remove, set_box);
      broadphase.update();
    };
    run_steps(state, broadphase, warmup, [&] { run.prepare(); }, step);
  });
}

/// Updates before the objects of BM_broadphase_unload are removed.
constexpr int kUnloadSteps = 20;

/// A frozen scene made, stepped kUnloadSteps times and unloaded: the time of the update that
/// removes every object, and the memory held around it (docs/broadphase.md, "Memory follows the
/// world").
void bm_unload(benchmark::State& state, const agrid::bench::FrozenStepScene& scene) {
  constexpr double kMiB = 1024.0 * 1024.0;
  in_arena([&] {
    for (auto _ : state) {
      FrozenStepRun<agrid::Handle> run(scene);
      agrid::Broadphase broadphase;
      const auto create = [&](const agrid::Box& box) { return broadphase.create(box); };
      const auto remove = [&](agrid::Handle handle) { broadphase.remove(handle); };
      const auto set_box = [&](agrid::Handle handle, const agrid::Box& box) { broadphase.set_box(handle, box); };
      run.start(create);
      broadphase.update();
      for (int i = 0; i < kUnloadSteps; ++i) {
        run.prepare();
        run.step(create, remove, set_box);
        broadphase.update();
      }
      const std::size_t peak = broadphase.stats().bytes_held;
      run.for_each_handle(remove);
      const auto start = std::chrono::steady_clock::now();
      broadphase.update();
      state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      const std::size_t removed = broadphase.stats().bytes_held;
      broadphase.update();
      state.counters["peak_mib"] = static_cast<double>(peak) / kMiB;
      state.counters["removed_mib"] = static_cast<double>(removed) / kMiB;
      state.counters["next_mib"] = static_cast<double>(broadphase.stats().bytes_held) / kMiB;
    }
  });
}

/// The 500 rays through the static boxes, split over `threads` threads (one chunk each).
void bm_rays(benchmark::State& state, int threads) {
  const std::vector<agrid::Box> boxes = agrid::bench::ray_scene_boxes();
  const std::vector<agrid::Segment> rays = agrid::bench::ray_scene_rays();
  in_arena(
      [&] {
        agrid::Broadphase broadphase;
        for (const agrid::Box& box : boxes) broadphase.create(box);
        broadphase.update();
        const std::size_t chunk = (rays.size() + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads);
        std::uint64_t hits = 0;
        for (auto _ : state) {
          std::atomic<std::uint64_t> total{0};
          tbb::parallel_for(
              tbb::blocked_range<std::size_t>(0, rays.size(), chunk),
              [&](const tbb::blocked_range<std::size_t>& range) {
                std::uint64_t found = 0;
                for (std::size_t i = range.begin(); i != range.end(); ++i) {
                  broadphase.for_each_hit(rays[i], [&found](agrid::Handle) { ++found; });
                }
                total += found;
              },
              tbb::simple_partitioner());
          hits = total;
        }
        state.counters["hits"] = static_cast<double>(hits);
        state.counters["pairs"] = broadphase.stats().pairs;
      },
      threads);
}

}  // namespace

int main(int argc, char** argv) {
  for (const auto& scene : kFrozenStepScenes) {
    benchmark::RegisterBenchmark((std::string("BM_broadphase/") + scene.name).c_str(),
                                 [&scene](benchmark::State& state) {
                                   bm_steps<FrozenStepRun<agrid::Handle>>(state, scene, agrid::bench::kFrozenStepWarmup);
                                 })
        ->Iterations(agrid::bench::kStepTimedSteps)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const auto& scene : kStreamStepScenes) {
    benchmark::RegisterBenchmark((std::string("BM_broadphase/") + scene.name).c_str(),
                                 [&scene](benchmark::State& state) {
                                   bm_steps<StreamStepRun<agrid::Handle>>(state, scene, agrid::bench::kStreamStepWarmup);
                                 })
        ->Iterations(agrid::bench::kStepTimedSteps)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const auto& scene : agrid::bench::kWalkStepScenes) {
    benchmark::RegisterBenchmark((std::string("BM_broadphase/") + scene.name).c_str(),
                                 [&scene](benchmark::State& state) {
                                   bm_steps<WalkStepRun<agrid::Handle>>(state, scene, agrid::bench::kWalkStepWarmup);
                                 })
        ->Iterations(agrid::bench::kStepTimedSteps)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  static constexpr agrid::bench::FrozenStepScene kUnloadScene{"1M", 1000000, 10000};
  benchmark::RegisterBenchmark("BM_broadphase_unload/1M", [](benchmark::State& state) { bm_unload(state, kUnloadScene); })
      ->Iterations(3)
      ->Unit(benchmark::kMillisecond)
      ->UseManualTime();
  for (const int threads : {1, 2}) {
    benchmark::RegisterBenchmark(("BM_broadphase_rays/static-50k/threads:" + std::to_string(threads)).c_str(),
                                 [threads](benchmark::State& state) { bm_rays(state, threads); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
