// Google Benchmark of the incremental agrid::Broadphase through its public API only, so that the
// same source times today's implementation and any later one.
//
// BM_broadphase/<scene>: one iteration is one step: the step's set_box, create and remove calls,
// then update(). Boxes at about one overlap a box (agrid_scenes/step_scenes.h); each scene is warmed up
// untimed into its steady state, then a fixed number of steps is timed, one thread. Counters:
//   median_ms, max_ms   median and slowest timed step
//   bytes_per_object    stats().bytes_held / live objects after the last step
//   peak_bytes_per_object   the most stats().bytes_held after any update (the first, busy one
//                       over the whole world, included) / live objects after the last step
//   objects, pairs, moving, changed   stats() after the last step
// BM_broadphase/scatter-50k: 50,000 boxes that all move every step (agrid_scenes/step_scenes.h's
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
// BM_broadphase_rays/mixed-55k: the same boxes and rays with 5,000 boxes walking among them
// (RandomWalk in the same cube), one thread; one iteration is a step (set_box of every walker,
// update()) and the 500 rays, every hit visited. Counters: step_ms and rays_ms (medians of each
// part), hits (of the last iteration), moving.
// BM_all_moving/<scene>/<n>/<mode>: every box moves every frame, in a task arena of 2 threads.
// <scene>: brownian (the RandomWalk above) or pile (BoxPile: boxes falling into a container and
// piling up, those landed trembling; 1.3 to 1.45 pairs a box); <n>: 10k, 100k or 1M boxes. 15 untimed
// frames, then one timed frame per iteration (30, 20 and 5 frames); the scene's own step is not
// timed. <mode> broadphase: a kept agrid::Broadphase, a frame is set_box for every box, update()
// and pairs(); find_all_pairs: a frame is agrid::find_all_pairs of the frame's boxes. Counters:
//   median_ms         median timed frame
//   pairs             pairs of the last frame (the same in both modes)
//   first_update_ms   broadphase mode: the very first update(), every object new
// BM_frame/file/threads:N (only with AGRID_BENCH_FRAMES=<file> and AGRID_BENCH_FRAME_BOXES=<n>):
// the frames the Python benchmark writes (benchmarks/python_broadphase_frame.py), n boxes each,
// raw float32 rows (min x, y, z, max x, y, z). Every box created from the first frame and one
// update() (untimed), then kFrameWarmup frames untimed and one timed frame per iteration after:
// set_box for every box, update(), began and ended read. The Python script times the same frames
// through set_boxes and update() and compares medians. Counters: median_ms, began, ended.
// Run:  agrid-bench-broadphase [--benchmark_filter='BM_broadphase/.*-50k']  (scatter and BM_all_moving: 20-30 s)

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
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "agrid/agrid.h"
#include "agrid/broadphase.h"
#include "agrid_scenes/step_scenes.h"

namespace {

using agrid::scenes::FrozenStepRun;
using agrid::scenes::kFrozenStepScenes;
using agrid::scenes::kStreamStepScenes;
using agrid::scenes::StreamStepRun;
using agrid::scenes::WalkStepRun;

/// Threads of the step benchmarks' task arena: the core targets one thread.
constexpr int kThreads = 1;

/// Threads of the all-moving benchmarks' task arena: the project machine's two cores.
constexpr int kAllMovingThreads = 2;

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

  /// The median timed step, in ms (0 if none).
  [[nodiscard]] double median_ms() {
    std::sort(ms_.begin(), ms_.end());
    const std::size_t mid = ms_.size() / 2;
    return ms_.empty() ? 0 : (ms_.size() % 2 == 1 ? ms_[mid] : 0.5 * (ms_[mid - 1] + ms_[mid]));
  }

  void report(benchmark::State& state, const agrid::Broadphase& broadphase) {
    const agrid::BroadphaseStats stats = broadphase.stats();
    state.counters["median_ms"] = median_ms();
    state.counters["max_ms"] = ms_.empty() ? 0 : ms_.back();  // median_ms() sorted them
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

/// Runs `warmup` untimed steps, then one timed step per iteration, and returns the timed steps'
/// times; `prepare` draws a step's changes (untimed), `step` makes them.
template <class Prepare, class Step>
StepTimes time_steps(benchmark::State& state, int warmup, Prepare&& prepare, Step&& step) {
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
  return times;
}

/// time_steps(), then the broadphase's counters (StepTimes::report).
template <class Prepare, class Step>
void run_steps(benchmark::State& state, const agrid::Broadphase& broadphase, int warmup, Prepare&& prepare,
               Step&& step) {
  time_steps(state, warmup, prepare, step).report(state, broadphase);
}

/// A step scene (agrid_scenes/step_scenes.h) on agrid::Broadphase: created and updated once, `warmup`
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
    std::size_t peak = broadphase.stats().bytes_held;
    const auto step = [&] {
      run.step(create, remove, set_box);
      broadphase.update();
      peak = std::max(peak, broadphase.stats().bytes_held);
    };
    run_steps(state, broadphase, warmup, [&] { run.prepare(); }, step);
    const double objects = broadphase.stats().objects;
    state.counters["peak_bytes_per_object"] = objects == 0 ? 0 : static_cast<double>(peak) / objects;
  });
}

/// Updates before the objects of BM_broadphase_unload are removed.
constexpr int kUnloadSteps = 20;

/// A frozen scene made, stepped kUnloadSteps times and unloaded: the time of the update that
/// removes every object, and the memory held around it (docs/broadphase.md, "Memory follows the
/// world").
void bm_unload(benchmark::State& state, const agrid::scenes::FrozenStepScene& scene) {
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
  const std::vector<agrid::Box> boxes = agrid::scenes::ray_scene_boxes();
  const std::vector<agrid::Segment> rays = agrid::scenes::ray_scene_rays();
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

/// The mixed ray scene, one thread: the ray scene's static boxes and kRayMovers walking among
/// them; an iteration is a step (every walker's set_box, update()) and the 500 rays with every
/// hit, each timed on its own (the walk's own move is not timed).
void bm_mixed_rays(benchmark::State& state) {
  constexpr int kWarmupSteps = 30;
  const std::vector<agrid::Box> statics = agrid::scenes::ray_scene_boxes();
  const std::vector<agrid::Segment> rays = agrid::scenes::ray_scene_rays();
  agrid::scenes::RandomWalk walk = agrid::scenes::ray_scene_walkers();
  in_arena([&] {
    agrid::Broadphase broadphase;
    for (const agrid::Box& box : statics) broadphase.create(box);
    std::vector<agrid::Handle> walkers;
    for (const agrid::Box& box : walk.boxes()) walkers.push_back(broadphase.create(box));
    const auto step = [&] {
      for (std::size_t i = 0; i < walkers.size(); ++i) broadphase.set_box(walkers[i], walk.boxes()[i]);
      broadphase.update();
    };
    std::uint64_t hits = 0;
    const auto cast = [&] {
      hits = 0;
      for (const agrid::Segment& ray : rays) broadphase.for_each_hit(ray, [&hits](agrid::Handle) { ++hits; });
    };
    for (int i = 0; i < kWarmupSteps; ++i) {
      walk.step();
      step();
    }
    StepTimes step_times;
    StepTimes ray_times;
    for (auto _ : state) {
      state.PauseTiming();
      walk.step();
      state.ResumeTiming();
      step_times.time(step);
      ray_times.time(cast);
    }
    state.counters["step_ms"] = step_times.median_ms();
    state.counters["rays_ms"] = ray_times.median_ms();
    state.counters["hits"] = static_cast<double>(hits);
    state.counters["moving"] = broadphase.stats().moving;
  });
}

/// A size of BM_all_moving: its boxes and timed frames (few at 1M, so that the file runs in
/// minutes).
struct AllMovingSize {
  const char* name;
  std::uint32_t boxes;
  int frames;
};
constexpr AllMovingSize kAllMovingSizes[] = {{"10k", 10000, 30}, {"100k", 100000, 20}, {"1M", 1000000, 5}};
/// Untimed frames before BM_all_moving's timed ones, at every size. The Broadphase rests new
/// objects at once: in the walk they then leave their fat boxes over the next frames, and the
/// frames in which most of them move from the resting tree to the moving set cost up to 3 to 4
/// times a later frame (frames 2 to 5 at 100k and 1M; 97% of the boxes are moving by frame 10, 99.5%
/// by 20). Measured on the walk at 100k and 1M: a steady state by frame 12.
constexpr int kAllMovingWarmup = 15;

/// BM_all_moving/<scene>/<n>/broadphase: a scene (agrid::scenes::RandomWalk or BoxPile) whose
/// boxes all move every frame on a kept agrid::Broadphase: every box created, the first update()
/// timed apart, then each frame the scene's step (untimed), set_box for every box, update() and
/// pairs(), timed.
template <class Scene>
void bm_all_moving_broadphase(benchmark::State& state, const AllMovingSize& size) {
  in_arena(
      [&] {
        Scene scene(size.boxes);
        agrid::Broadphase broadphase;
        std::vector<agrid::Handle> handles;
        handles.reserve(size.boxes);
        for (const agrid::Box& box : scene.boxes()) handles.push_back(broadphase.create(box));
        StepTimes first;
        first.time([&] { broadphase.update(); });
        std::size_t pairs = broadphase.pairs().size();
        const auto frame = [&] {
          const std::span<const agrid::Box> boxes = scene.boxes();
          for (std::size_t i = 0; i < boxes.size(); ++i) broadphase.set_box(handles[i], boxes[i]);
          broadphase.update();
          pairs = broadphase.pairs().size();
        };
        StepTimes times = time_steps(state, kAllMovingWarmup, [&] { scene.step(); }, frame);
        state.counters["median_ms"] = times.median_ms();
        state.counters["first_update_ms"] = first.median_ms();
        state.counters["pairs"] = static_cast<double>(pairs);
      },
      kAllMovingThreads);
}

/// BM_all_moving/<scene>/<n>/find_all_pairs: the same scene's frames, each one's pairs found
/// afresh by agrid::find_all_pairs on its boxes (the scene's step untimed). The first frame is
/// not timed, as in the broadphase mode, so that both time the same frames.
template <class Scene>
void bm_all_moving_find_all_pairs(benchmark::State& state, const AllMovingSize& size) {
  in_arena(
      [&] {
        Scene scene(size.boxes);
        std::size_t pairs = agrid::find_all_pairs(scene.boxes()).size();
        const auto frame = [&] { pairs = agrid::find_all_pairs(scene.boxes()).size(); };
        StepTimes times = time_steps(state, kAllMovingWarmup, [&] { scene.step(); }, frame);
        state.counters["median_ms"] = times.median_ms();
        state.counters["pairs"] = static_cast<double>(pairs);
      },
      kAllMovingThreads);
}

/// Registers BM_all_moving/<scene_name>/<n>/<mode> for every size and both modes.
template <class Scene>
void register_all_moving(const std::string& scene_name) {
  for (const AllMovingSize& size : kAllMovingSizes) {
    const std::string prefix = "BM_all_moving/" + scene_name + "/" + size.name + "/";
    benchmark::RegisterBenchmark((prefix + "broadphase").c_str(),
                                 [&size](benchmark::State& state) { bm_all_moving_broadphase<Scene>(state, size); })
        ->Iterations(size.frames)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark((prefix + "find_all_pairs").c_str(),
                                 [&size](benchmark::State& state) { bm_all_moving_find_all_pairs<Scene>(state, size); })
        ->Iterations(size.frames)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
}

/// Untimed frames before BM_frame's timed ones, as the Python benchmark warms up (python_broadphase_frame.py's
/// --warmup must match): the objects created at rest leave their fat boxes over these frames.
constexpr int kFrameWarmup = 15;

/// Frames of `boxes` boxes each from a file of raw float32 rows (agrid::Box is six floats).
std::vector<std::vector<agrid::Box>> frames_from_file(const char* path, std::size_t boxes) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::vector<agrid::Box>> frames;
  std::vector<agrid::Box> frame(boxes);
  const auto bytes = static_cast<std::streamsize>(boxes * sizeof(agrid::Box));
  while (boxes > 0 && in.read(reinterpret_cast<char*>(frame.data()), bytes)) frames.push_back(frame);
  if (frames.size() <= static_cast<std::size_t>(kFrameWarmup) + 1) {
    std::fprintf(stderr, "agrid-bench-broadphase: %zu frames of %zu boxes in %s: too few\n", frames.size(), boxes, path);
  }
  return frames;
}

/// BM_frame/file: the file's frames on a kept Broadphase, as the header says.
void bm_frame(benchmark::State& state, const std::vector<std::vector<agrid::Box>>& frames) {
  in_arena(
      [&] {
        agrid::Broadphase broadphase;
        std::vector<agrid::Handle> handles;
        for (const agrid::Box& box : frames.front()) handles.push_back(broadphase.create(box));
        broadphase.update();
        std::size_t next = 0;  // each frame's prepare moves on first: frames 1, 2, ...
        std::size_t began = 0;
        std::size_t ended = 0;
        const auto frame = [&] {
          const std::vector<agrid::Box>& boxes = frames[next];
          for (std::size_t i = 0; i < boxes.size(); ++i) broadphase.set_box(handles[i], boxes[i]);
          const agrid::PairChanges& changes = broadphase.update();
          began = changes.began.size();
          ended = changes.ended.size();
          benchmark::DoNotOptimize(changes.began.data());
          benchmark::DoNotOptimize(changes.ended.data());
        };
        StepTimes times = time_steps(state, kFrameWarmup, [&] { next = next + 1 < frames.size() ? next + 1 : 1; }, frame);
        state.counters["median_ms"] = times.median_ms();
        state.counters["began"] = static_cast<double>(began);
        state.counters["ended"] = static_cast<double>(ended);
      },
      static_cast<int>(state.range(0)));
}

/// Registers BM_frame/file/threads:1 and :2 when the environment names a file of frames.
void register_frames_from_file() {
  const char* path = std::getenv("AGRID_BENCH_FRAMES");
  const char* boxes = std::getenv("AGRID_BENCH_FRAME_BOXES");
  if (path == nullptr || boxes == nullptr) return;
  static const std::vector<std::vector<agrid::Box>> frames = frames_from_file(path, std::strtoull(boxes, nullptr, 10));
  if (frames.size() <= static_cast<std::size_t>(kFrameWarmup) + 1) return;
  const auto timed = static_cast<benchmark::IterationCount>(frames.size() - 1 - kFrameWarmup);
  benchmark::RegisterBenchmark("BM_frame/file", [](benchmark::State& state) { bm_frame(state, frames); })
      ->ArgName("threads")
      ->Arg(1)
      ->Arg(kAllMovingThreads)
      ->Iterations(timed)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

}  // namespace

int main(int argc, char** argv) {
  register_frames_from_file();
  for (const auto& scene : kFrozenStepScenes) {
    benchmark::RegisterBenchmark((std::string("BM_broadphase/") + scene.name).c_str(),
                                 [&scene](benchmark::State& state) {
                                   bm_steps<FrozenStepRun<agrid::Handle>>(state, scene, agrid::scenes::kFrozenStepWarmup);
                                 })
        ->Iterations(agrid::scenes::kStepTimedSteps)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const auto& scene : kStreamStepScenes) {
    benchmark::RegisterBenchmark((std::string("BM_broadphase/") + scene.name).c_str(),
                                 [&scene](benchmark::State& state) {
                                   bm_steps<StreamStepRun<agrid::Handle>>(state, scene, agrid::scenes::kStreamStepWarmup);
                                 })
        ->Iterations(agrid::scenes::kStepTimedSteps)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const auto& scene : agrid::scenes::kWalkStepScenes) {
    benchmark::RegisterBenchmark((std::string("BM_broadphase/") + scene.name).c_str(),
                                 [&scene](benchmark::State& state) {
                                   bm_steps<WalkStepRun<agrid::Handle>>(state, scene, agrid::scenes::kWalkStepWarmup);
                                 })
        ->Iterations(agrid::scenes::kStepTimedSteps)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  static constexpr agrid::scenes::FrozenStepScene kUnloadScene{"1M", 1000000, 10000};
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
  benchmark::RegisterBenchmark("BM_broadphase_rays/mixed-55k", bm_mixed_rays)
      ->Iterations(agrid::scenes::kStepTimedSteps)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  register_all_moving<agrid::scenes::RandomWalk>("brownian");
  register_all_moving<agrid::scenes::BoxPile>("pile");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
