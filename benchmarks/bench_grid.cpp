// Google Benchmark of agrid on the seed scenes: one-shot find_all_pairs, a warm Grid frame, a
// warm Tree (tree of grids) frame, and box and segment queries against a built grid;
// BM_small_grid_frame, a warm Grid frame of about 100 and 1,000 boxes (a Bullet world's moving set).
//
// BM_floor/<scene> times the least work any method that looks at every box and orders them must
// do, on one thread and warm memory as the Grid frame: read all six floats of every box, write
// one 64-bit key per box (its min corner quantised to 21 bits per axis over the scene's bounds),
// and LSD radix sort those keys. BM_grid_frame over BM_floor is agrid's time as a multiple of it.
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

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
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

/// The scale benchmark: uniform-1M's boxes and density at this many boxes (the scene library
/// scales down only), timed over this many frames (each takes about a second).
constexpr std::uint32_t kScaleBoxes = 10'000'000;
constexpr float kUniformSide = 1000.0f;        ///< uniform-1M's cube, for its 1,000,000 boxes
constexpr std::uint32_t kUniformBoxes = 1'000'000;
constexpr std::uint64_t kScaleSeed = 1;
constexpr int kScaleIterations = 3;

/// kScaleBoxes boxes of the article's size in a cube holding them at uniform-1M's density.
const std::vector<agrid::Box>& scale_boxes() {
  static const std::vector<agrid::Box> boxes = [] {
    const float side = kUniformSide * std::cbrt(static_cast<float>(kScaleBoxes) / static_cast<float>(kUniformBoxes));
    return agrid::scenes::article(kScaleBoxes, {side, side, side}, kScaleSeed);
  }();
  return boxes;
}

/// The scene and its scales (of its 20,004 boxes) that place Config::tree_min_boxes.
constexpr std::string_view kThresholdScene = "article-20k-dense";
constexpr double kThresholdScales[] = {0.125, 0.25, 0.5, 0.75, 1.0};

/// Small grids, the size of a Bullet world's moving set (900-1,500 bodies in bench-3..7): the
/// scene and its scales (about 100 and 1,000 boxes), where fitting the lattice is a real share.
constexpr std::string_view kSmallScene = "article-20k-sparse";
constexpr double kSmallScales[] = {0.005, 0.05};

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
void bm_frame_on(benchmark::State& state, const std::vector<agrid::Box>& boxes, int threads) {
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
  // Memory the warm structure keeps between frames, per box (issue 25's memory target).
  state.counters["bytes_per_box"] =
      boxes.empty() ? 0.0 : static_cast<double>(structure.stats().bytes_held) / static_cast<double>(boxes.size());
}

template <class Structure>
void bm_frame(benchmark::State& state, const std::string& scene, int threads, double scale = 1.0) {
  bm_frame_on<Structure>(state, scene_boxes(scene, scale), threads);
}

/// Bits per axis of a floor key, and the cells per axis they number.
constexpr unsigned kAxisBits = 21;
constexpr std::uint32_t kAxisCells = std::uint32_t{1} << kAxisBits;
/// Bits of a floor key: the three axes concatenated, x highest.
constexpr unsigned kKeyBits = 3 * kAxisBits;
/// Widest radix digit (2^11 counters fit in L1 beside the data streams; 8- and 9-bit digits
/// measured no faster on the 1M scenes and slower on the small ones), the passes it takes to
/// cover kKeyBits, and the equal digit width of those passes.
constexpr unsigned kMaxDigitBits = 11;
constexpr unsigned kRadixPasses = (kKeyBits + kMaxDigitBits - 1) / kMaxDigitBits;
constexpr unsigned kDigitBits = (kKeyBits + kRadixPasses - 1) / kRadixPasses;
constexpr std::size_t kRadix = std::size_t{1} << kDigitBits;
constexpr std::uint64_t kDigitMask = kRadix - 1;

/// Maps a box's min corner to a 64-bit key: each coordinate quantised to kAxisBits over the
/// bounds of the scene's min corners, the three concatenated.
class MinCornerKey {
 public:
  explicit MinCornerKey(const std::vector<agrid::Box>& boxes) {
    agrid::Vec3 hi = boxes.empty() ? agrid::Vec3{} : boxes.front().min;
    lo_ = hi;
    for (const agrid::Box& box : boxes) {
      lo_ = {std::min(lo_.x, box.min.x), std::min(lo_.y, box.min.y), std::min(lo_.z, box.min.z)};
      hi = {std::max(hi.x, box.min.x), std::max(hi.y, box.min.y), std::max(hi.z, box.min.z)};
    }
    scale_ = {axis_scale(hi.x - lo_.x), axis_scale(hi.y - lo_.y), axis_scale(hi.z - lo_.z)};
  }

  [[nodiscard]] std::uint64_t operator()(const agrid::Vec3& min) const noexcept {
    return std::uint64_t{cell(min.x - lo_.x, scale_.x)} << (2 * kAxisBits) |
           std::uint64_t{cell(min.y - lo_.y, scale_.y)} << kAxisBits | cell(min.z - lo_.z, scale_.z);
  }

 private:
  /// Cells per unit along an axis of this extent, rounded down until the far end's cell is
  /// below kAxisCells, so that the timed loop needs no clamp (rounding is monotone). Zero for a
  /// flat or non-finite extent.
  [[nodiscard]] static float axis_scale(float extent) noexcept {
    if (!(extent > 0.0f) || !std::isfinite(extent)) return 0.0f;
    float scale = static_cast<float>(kAxisCells) / extent;
    while (!(extent * scale < static_cast<float>(kAxisCells))) scale = std::nextafter(scale, 0.0f);
    return scale;
  }
  [[nodiscard]] static std::uint32_t cell(float offset, float scale) noexcept {
    return static_cast<std::uint32_t>(offset * scale);
  }

  agrid::Vec3 lo_;     ///< Least min corner per axis.
  agrid::Vec3 scale_;  ///< Cells per unit per axis.
};

/// LSD radix sort of 64-bit keys below 2^kKeyBits: one pass counts every digit's histogram,
/// then one scatter per digit, skipping a digit all keys share. Its buffers are kept between
/// calls.
class KeyRadixSort {
 public:
  /// Sorts `keys` (at most `capacity` of them), swapping its storage with the scratch buffer's
  /// as passes run.
  explicit KeyRadixSort(std::size_t capacity) : scratch_(capacity) {}

  void sort(std::vector<std::uint64_t>& keys) {
    const std::size_t n = keys.size();
    if (n < 2) return;
    if (n > std::numeric_limits<std::uint32_t>::max()) {
      std::fprintf(stderr, "agrid-bench: KeyRadixSort counts in 32 bits, and was given %zu keys\n", n);
      std::abort();
    }
    scratch_.resize(n);
    for (auto& count : counts_) count.fill(0);
    for (const std::uint64_t key : keys) {
      for (unsigned pass = 0; pass < kRadixPasses; ++pass) ++counts_[pass][digit(key, pass)];
    }
    for (unsigned pass = 0; pass < kRadixPasses; ++pass) {
      auto& offsets = counts_[pass];
      if (offsets[digit(keys.front(), pass)] == n) continue;
      std::uint32_t sum = 0;
      for (std::uint32_t& offset : offsets) sum += std::exchange(offset, sum);
      for (const std::uint64_t key : keys) scratch_[offsets[digit(key, pass)]++] = key;
      keys.swap(scratch_);
    }
  }

 private:
  [[nodiscard]] static std::size_t digit(std::uint64_t key, unsigned pass) noexcept {
    return static_cast<std::size_t>((key >> (pass * kDigitBits)) & kDigitMask);
  }

  std::vector<std::uint64_t> scratch_;                          ///< The other buffer of each pass.
  std::array<std::array<std::uint32_t, kRadix>, kRadixPasses> counts_{};  ///< Per digit: counts, then offsets.
};

/// The floor of a frame: the least any method that looks at every box and orders them must
/// do. It reads all six floats of every box (the max corners folded into a kept checksum so
/// that the compiler cannot skip them), writes one key per box and radix sorts the keys: no
/// method can find the pairs without reading every box, and ordering them (by cell, tree or
/// sweep axis) costs at least a linear sort of one 8-byte value per box.
void bm_floor(benchmark::State& state, const std::string& scene) {
  const auto& boxes = scene_boxes(scene);
  const MinCornerKey key_of(boxes);
  std::vector<std::uint64_t> keys(boxes.size());
  KeyRadixSort sorter(boxes.size());
  const auto fill_keys = [&] {
    std::uint32_t max_bits = 0;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      const agrid::Box& box = boxes[i];
      keys[i] = key_of(box.min);
      max_bits ^= std::bit_cast<std::uint32_t>(box.max.x) ^ std::bit_cast<std::uint32_t>(box.max.y) ^
                  std::bit_cast<std::uint32_t>(box.max.z);
    }
    benchmark::DoNotOptimize(max_bits);
  };
  // One untimed frame first, checked against std::sort, and warming memory as the Grid frame.
  fill_keys();
  std::vector<std::uint64_t> expected = keys;
  std::sort(expected.begin(), expected.end());
  sorter.sort(keys);
  if (keys != expected) {
    std::fprintf(stderr, "agrid-bench: BM_floor/%s: the radix sort's output is not the sorted keys\n", scene.c_str());
    std::abort();
  }
  double loop_ns = 0;
  in_arena([&] {
    const LoopTimer timer;
    for (auto _ : state) {
      fill_keys();
      sorter.sort(keys);
      benchmark::DoNotOptimize(keys.data());
      benchmark::ClobberMemory();
    }
    loop_ns = timer.elapsed_ns();
  });
  set_frame_counters(state, boxes.size(), 0, loop_ns);
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
    benchmark::RegisterBenchmark(("BM_floor/" + scene).c_str(),
                                 [scene](benchmark::State& state) { bm_floor(state, scene); })
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
  // Scale: uniform-1M's density at ten times the boxes, on the tree of grids (issue 25).
  {
    auto* b = benchmark::RegisterBenchmark("BM_tree_frame/uniform-1M/boxes:10M", [](benchmark::State& state) {
      bm_frame_on<agrid::Tree>(state, scale_boxes(), static_cast<int>(state.range(0)));
    });
    b->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(kScaleIterations);
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
  for (const double scale : kSmallScales) {
    const std::string scene(kSmallScene);
    const std::string name = "BM_small_grid_frame/" + scene + "/boxes:" + std::to_string(scene_boxes(scene, scale).size());
    benchmark::RegisterBenchmark(name.c_str(), [scene, scale](benchmark::State& state) {
      bm_frame<agrid::Grid>(state, scene, 1, scale);
    })->Unit(benchmark::kMicrosecond);
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
