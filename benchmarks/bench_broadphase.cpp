// Google Benchmark of the incremental agrid::Broadphase through its public API only, so that the
// same source times today's implementation and any later one.
//
// BM_broadphase/<scene>: one iteration is one step: the step's set_box, create and remove calls,
// then update(). Boxes at about one overlap a box (broadphase_scenes.h); each scene is warmed up
// untimed into its steady state, then a fixed number of steps is timed, one thread. Counters:
//   median_ms, max_ms   median and slowest timed step
//   bytes_per_object    stats().bytes_held / live objects after the last step
//   objects, pairs, moving, changed   stats() after the last step
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
#include <deque>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "agrid/broadphase.h"
#include "broadphase_scenes.h"

namespace {

using agrid::bench::below;
using agrid::bench::box_around;
using agrid::bench::one_overlap_side;
using agrid::bench::point_in;
using agrid::bench::uniform;

/// Threads of the step benchmarks' task arena: the core targets one thread.
constexpr int kThreads = 1;
/// Timed steps of every step benchmark, fixed so that max_ms compares between runs.
constexpr int kTimedSteps = 100;
/// Untimed steps before timing: in a steady state by then, with as many boxes coming to rest as
/// start moving each step (frozen), and the boxes created at the start long at rest (stream).
constexpr int kFrozenWarmupSteps = 150;
constexpr int kStreamWarmupSteps = 60;
/// A moved box moves by up to this much on each axis per step.
constexpr float kNudge = 0.05f;
/// Seeds of the step scenes.
constexpr std::uint64_t kFrozenSeed = 1;
constexpr std::uint64_t kStreamSeed = 2;
/// The stream's slab is the cube of its box count squashed this many times in y and z and
/// stretched kSlabSquash^2 times in x: the same volume, so the same density.
constexpr float kSlabSquash = 3.0f;

/// A frozen scene: `boxes` boxes in a cube, `moved` of them (different ones each step) nudged.
struct FrozenScene {
  const char* name;
  std::uint32_t boxes;
  std::uint32_t moved;
};

/// A stream scene: `boxes` static boxes in a window sliding along x, `churn` of the oldest
/// removed and as many created ahead each step, and `movers` boxes nudged every step.
struct StreamScene {
  const char* name;
  std::uint32_t boxes;
  std::uint32_t churn;
  std::uint32_t movers;
};

constexpr FrozenScene kFrozenScenes[] = {{"frozen-500k", 500000, 5000}, {"frozen-50k", 50000, 500}};
constexpr StreamScene kStreamScenes[] = {{"stream-200k", 200000, 2000, 5000}, {"stream-20k", 20000, 200, 500}};

/// Runs `body` inside an arena of `threads` threads.
template <class Body>
void in_arena(Body&& body, int threads = kThreads) {
  tbb::task_arena arena(threads);
  arena.execute(body);
}

/// The box moved by a random nudge on each axis.
agrid::Box nudged(std::mt19937_64& rng, agrid::Box box) {
  const agrid::Vec3 d = point_in(rng, {-kNudge, -kNudge, -kNudge}, {kNudge, kNudge, kNudge});
  return {{box.min.x + d.x, box.min.y + d.y, box.min.z + d.z}, {box.max.x + d.x, box.max.y + d.y, box.max.z + d.z}};
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

void bm_frozen(benchmark::State& state, const FrozenScene& scene) {
  in_arena([&] {
    std::mt19937_64 rng(kFrozenSeed);
    std::vector<agrid::Box> boxes = agrid::bench::boxes_in_cube(rng, scene.boxes, one_overlap_side(scene.boxes));
    agrid::Broadphase broadphase;
    std::vector<agrid::Handle> handles;
    handles.reserve(boxes.size());
    for (const agrid::Box& box : boxes) handles.push_back(broadphase.create(box));
    broadphase.update();
    // A partial shuffle of `order` picks the step's boxes: different ones within a step.
    std::vector<std::uint32_t> order(boxes.size());
    std::iota(order.begin(), order.end(), 0u);
    std::vector<std::pair<agrid::Handle, agrid::Box>> moves;
    const auto prepare = [&] {
      moves.clear();
      for (std::uint32_t i = 0; i < scene.moved; ++i) {
        std::swap(order[i], order[i + below(rng, scene.boxes - i)]);
        agrid::Box& box = boxes[order[i]];
        box = nudged(rng, box);
        moves.emplace_back(handles[order[i]], box);
      }
    };
    const auto step = [&] {
      for (const auto& [handle, box] : moves) broadphase.set_box(handle, box);
      broadphase.update();
    };
    run_steps(state, broadphase, kFrozenWarmupSteps, prepare, step);
  });
}

void bm_stream(benchmark::State& state, const StreamScene& scene) {
  in_arena([&] {
    std::mt19937_64 rng(kStreamSeed);
    const float cube = one_overlap_side(scene.boxes);
    const float width = cube / kSlabSquash;                // in y and z
    const float length = cube * kSlabSquash * kSlabSquash;  // of the window, in x
    const float slice = length * static_cast<float>(scene.churn) / static_cast<float>(scene.boxes);
    agrid::Broadphase broadphase;
    // The static boxes in batches of `churn`, each in its own slice of x: oldest and lowest first.
    std::deque<std::vector<agrid::Handle>> batches;
    float front = 0;  // where the next slice begins
    std::vector<agrid::Box> new_boxes;
    const auto draw_batch = [&] {
      new_boxes.clear();
      for (std::uint32_t i = 0; i < scene.churn; ++i) {
        new_boxes.push_back(box_around(rng, point_in(rng, {front, 0, 0}, {front + slice, width, width})));
      }
      front += slice;
    };
    const auto create_batch = [&] {
      std::vector<agrid::Handle>& batch = batches.emplace_back();
      for (const agrid::Box& box : new_boxes) batch.push_back(broadphase.create(box));
    };
    for (std::uint32_t i = 0; i < scene.boxes / scene.churn; ++i) {
      draw_batch();
      create_batch();
    }
    std::vector<agrid::Box> movers;
    std::vector<agrid::Handle> mover_handles;
    for (std::uint32_t i = 0; i < scene.movers; ++i) {
      movers.push_back(box_around(rng, point_in(rng, {}, {length, width, width})));
      mover_handles.push_back(broadphase.create(movers.back()));
    }
    broadphase.update();
    const auto prepare = [&] {
      draw_batch();
      // A mover left behind by the window moves on by its length, so the movers stay in it.
      const float back = front - length;
      for (agrid::Box& box : movers) {
        box = nudged(rng, box);
        if (box.max.x < back) box = {{box.min.x + length, box.min.y, box.min.z}, {box.max.x + length, box.max.y, box.max.z}};
      }
    };
    const auto step = [&] {
      for (const agrid::Handle handle : batches.front()) broadphase.remove(handle);
      batches.pop_front();
      create_batch();
      for (std::size_t i = 0; i < movers.size(); ++i) broadphase.set_box(mover_handles[i], movers[i]);
      broadphase.update();
    };
    run_steps(state, broadphase, kStreamWarmupSteps, prepare, step);
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
  for (const FrozenScene& scene : kFrozenScenes) {
    benchmark::RegisterBenchmark((std::string("BM_broadphase/") + scene.name).c_str(),
                                 [&scene](benchmark::State& state) { bm_frozen(state, scene); })
        ->Iterations(kTimedSteps)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const StreamScene& scene : kStreamScenes) {
    benchmark::RegisterBenchmark((std::string("BM_broadphase/") + scene.name).c_str(),
                                 [&scene](benchmark::State& state) { bm_stream(state, scene); })
        ->Iterations(kTimedSteps)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
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
