// Google Benchmark of agrid on the seed scenes: one-shot find_all_pairs, a warm Grid frame, a
// warm Tree (tree of grids) frame, and box and segment queries against a built grid.
//
// Every benchmark runs inside a tbb::task_arena of a fixed number of threads (counter `threads`,
// and the `threads:` argument of the multi-threaded ones, timed in wall-clock time); Grid and
// queries run on one thread.
//
// Medians over repetitions, as docs/ report them:
//   agrid-bench --benchmark_repetitions=9 --benchmark_report_aggregates_only=true
// One scene or family only:
//   agrid-bench --benchmark_filter='BM_grid_frame/article-20k-.*'

#include <benchmark/benchmark.h>
#include <tbb/task_arena.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agrid/agrid.h"
#include "agrid_scenes/random.h"
#include "agrid_scenes/scenes.h"

namespace {

/// Threads of the single-threaded benchmarks.
constexpr int kThreads = 1;
/// Thread counts of the multi-threaded ones: one, and the two cores of the project's machine.
constexpr int kThreadCounts[] = {1, 2};

/// The scene the box-query benchmark runs on, and the one the segment benchmark runs through.
constexpr std::string_view kBoxQueryScene = "article-20k-sparse";
constexpr std::string_view kSegmentQueryScene = "article-20k-dense";

/// Precomputed rays cycled through by the segment benchmark, and their length.
constexpr std::size_t kSegmentCount = 4096;
constexpr float kSegmentLength = 10.0f;

/// Each scene is built once, on first use, so a filtered run builds only what it needs.
/// Benchmarks run one after another on the main thread, so the cache needs no lock.
const std::vector<agrid::Box>& scene_boxes(std::string_view name, double scale = 1.0) {
  static std::map<std::pair<std::string, double>, agrid::scenes::Scene> cache;
  const std::pair<std::string, double> key(name, scale);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, agrid::scenes::make_scene(name, scale)).first;
  return it->second.boxes;
}

/// The scene and its scales (of its 20,004 boxes) that place Config::tree_min_boxes.
constexpr std::string_view kThresholdScene = "article-20k-dense";
constexpr double kThresholdScales[] = {0.125, 0.25, 0.5, 0.75, 1.0};

/// Runs `body` inside an arena of `threads` threads.
template <class Body>
void in_arena(Body&& body, int threads = kThreads) {
  tbb::task_arena arena(threads);
  arena.execute(body);
}

/// Wall-clock time of the timed loop it encloses, for the ns_per_box counter.
class LoopTimer {
 public:
  LoopTimer() : start_(std::chrono::steady_clock::now()) {}
  [[nodiscard]] double elapsed_ns() const {
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

/// ns_per_box is a plain number of nanoseconds, measured here: a benchmark::Counter rate with
/// kInvert would hold seconds and print as "s" with an SI prefix, which reads wrongly as ns.
void set_frame_counters(benchmark::State& state, std::size_t boxes, std::size_t pairs, double loop_ns,
                        int threads = kThreads) {
  state.counters["boxes"] = static_cast<double>(boxes);
  state.counters["pairs"] = static_cast<double>(pairs);
  state.counters["threads"] = threads;
  const double box_frames = static_cast<double>(boxes) * static_cast<double>(state.iterations());
  state.counters["ns_per_box"] = box_frames > 0 ? loop_ns / box_frames : 0.0;
}

void bm_find_all_pairs(benchmark::State& state, const std::vector<agrid::Box>& boxes) {
  const auto threads = static_cast<int>(state.range(0));
  std::size_t pairs = 0;
  double loop_ns = 0;
  in_arena(
      [&] {
        const LoopTimer timer;
        for (auto _ : state) {
          const std::vector<agrid::Pair> found = agrid::find_all_pairs(boxes);
          pairs = found.size();
          benchmark::DoNotOptimize(found.data());
        }
        loop_ns = timer.elapsed_ns();
      },
      threads);
  set_frame_counters(state, boxes.size(), pairs, loop_ns, threads);
}

/// A warm frame of a reusable object: build, then find all pairs.
template <class Structure>
void bm_frame(benchmark::State& state, const std::string& scene, int threads, double scale = 1.0) {
  const auto& boxes = scene_boxes(scene, scale);
  Structure structure;
  std::vector<agrid::Pair> pairs;
  double loop_ns = 0;
  in_arena(
      [&] {
        // One untimed frame first, so the timed ones run on warm memory as in a running engine.
        structure.build(boxes);
        structure.find_pairs(pairs);
        const LoopTimer timer;
        for (auto _ : state) {
          structure.build(boxes);
          structure.find_pairs(pairs);
          benchmark::DoNotOptimize(pairs.data());
          benchmark::ClobberMemory();
        }
        loop_ns = timer.elapsed_ns();
      },
      threads);
  set_frame_counters(state, boxes.size(), pairs.size(), loop_ns, threads);
}

/// Each iteration queries the grid with one of its own boxes, cycling through all of them.
void bm_grid_query_box(benchmark::State& state) {
  const auto& boxes = scene_boxes(kBoxQueryScene);
  agrid::Grid grid;
  in_arena([&] { grid.build(boxes); });
  std::size_t next = 0;
  std::uint64_t hits = 0;
  for (auto _ : state) {
    grid.for_each_overlap(boxes[next], [&hits](std::uint32_t) { ++hits; });
    benchmark::DoNotOptimize(hits);
    if (++next == boxes.size()) next = 0;
  }
  state.counters["boxes"] = static_cast<double>(boxes.size());
  state.counters["hits_per_query"] =
      benchmark::Counter(static_cast<double>(hits), benchmark::Counter::kAvgIterations);
  state.counters["threads"] = kThreads;
}

/// Rays of length kSegmentLength starting uniformly inside the scene's [0, 150)^3 cube,
/// pointing in uniformly random directions.
std::vector<agrid::Segment> make_segments() {
  constexpr float kSide = 150.0f;
  constexpr std::uint64_t kSeed = 1;
  agrid::scenes::Random random(kSeed);
  std::vector<agrid::Segment> segments;
  segments.reserve(kSegmentCount);
  while (segments.size() < kSegmentCount) {
    agrid::Vec3 from;
    from.x = random.uniform(0.0f, kSide);
    from.y = random.uniform(0.0f, kSide);
    from.z = random.uniform(0.0f, kSide);
    agrid::Vec3 d;
    d.x = random.uniform(-1.0f, 1.0f);
    d.y = random.uniform(-1.0f, 1.0f);
    d.z = random.uniform(-1.0f, 1.0f);
    // Rejection sampling in the unit ball gives a uniform direction once normalised.
    const float length = std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    if (length > 1.0f || length < 1e-3f) continue;
    const float s = kSegmentLength / length;
    segments.push_back({from, {from.x + s * d.x, from.y + s * d.y, from.z + s * d.z}, {}});
  }
  return segments;
}

void bm_grid_query_segment(benchmark::State& state) {
  const auto& boxes = scene_boxes(kSegmentQueryScene);
  const std::vector<agrid::Segment> segments = make_segments();
  agrid::Grid grid;
  in_arena([&] { grid.build(boxes); });
  std::size_t next = 0;
  std::uint64_t hits = 0;
  for (auto _ : state) {
    grid.for_each_hit(segments[next], [&hits](std::uint32_t) { ++hits; });
    benchmark::DoNotOptimize(hits);
    if (++next == segments.size()) next = 0;
  }
  state.counters["boxes"] = static_cast<double>(boxes.size());
  state.counters["hits_per_query"] =
      benchmark::Counter(static_cast<double>(hits), benchmark::Counter::kAvgIterations);
  state.counters["threads"] = kThreads;
}

/// Boxes from a file of raw float32 rows (min x, y, z, max x, y, z), as the Python benchmark
/// writes them (benchmarks/python_find_all_pairs.py), so that both time the same boxes.
std::vector<agrid::Box> boxes_from_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<agrid::Box> boxes;
  agrid::Box box;
  while (in.read(reinterpret_cast<char*>(&box), sizeof box)) boxes.push_back(box);
  if (boxes.empty()) std::fprintf(stderr, "agrid-bench: no boxes in %s\n", path);
  return boxes;
}

}  // namespace

int main(int argc, char** argv) {
  // AGRID_BENCH_BOXES=<file>: BM_find_all_pairs/file on the boxes of that file too.
  if (const char* path = std::getenv("AGRID_BENCH_BOXES")) {
    static const std::vector<agrid::Box> file_boxes = boxes_from_file(path);
    auto* b = benchmark::RegisterBenchmark("BM_find_all_pairs/file",
                                           [](benchmark::State& state) { bm_find_all_pairs(state, file_boxes); });
    b->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();
    for (const int threads : kThreadCounts) b->Arg(threads);
  }
  for (const std::string_view view : agrid::scenes::benchmark_scene_names()) {
    const std::string scene(view);
    auto* b = benchmark::RegisterBenchmark(("BM_find_all_pairs/" + scene).c_str(),
                                           [scene](benchmark::State& state) { bm_find_all_pairs(state, scene_boxes(scene)); });
    b->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();
    for (const int threads : kThreadCounts) b->Arg(threads);
  }
  for (const std::string_view view : agrid::scenes::benchmark_scene_names()) {
    const std::string scene(view);
    benchmark::RegisterBenchmark(("BM_grid_frame/" + scene).c_str(),
                                 [scene](benchmark::State& state) { bm_frame<agrid::Grid>(state, scene, kThreads); })
        ->Unit(benchmark::kMillisecond);
  }
  for (const std::string_view view : agrid::scenes::benchmark_scene_names()) {
    const std::string scene(view);
    auto* b = benchmark::RegisterBenchmark(("BM_tree_frame/" + scene).c_str(), [scene](benchmark::State& state) {
      bm_frame<agrid::Tree>(state, scene, static_cast<int>(state.range(0)));
    });
    b->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();
    for (const int threads : kThreadCounts) b->Arg(threads);
  }
  // Where the tree of grids on two threads starts to beat one grid on one: find_all_pairs's
  // Config::tree_min_boxes.
  for (const double scale : kThresholdScales) {
    const std::string scene(kThresholdScene);
    const std::string suffix = "/" + scene + "/boxes:" + std::to_string(scene_boxes(scene, scale).size());
    benchmark::RegisterBenchmark(("BM_threshold_grid" + suffix + "/threads:1").c_str(),
                                 [scene, scale](benchmark::State& state) { bm_frame<agrid::Grid>(state, scene, 1, scale); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("BM_threshold_tree" + suffix + "/threads:2").c_str(),
                                 [scene, scale](benchmark::State& state) { bm_frame<agrid::Tree>(state, scene, 2, scale); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark(("BM_grid_query_box/" + std::string(kBoxQueryScene)).c_str(),
                               bm_grid_query_box)
      ->Unit(benchmark::kNanosecond);
  benchmark::RegisterBenchmark(("BM_grid_query_segment/" + std::string(kSegmentQueryScene)).c_str(),
                               bm_grid_query_segment)
      ->Unit(benchmark::kNanosecond);

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
