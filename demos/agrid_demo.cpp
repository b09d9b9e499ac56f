// agrid-demo: times warm frames (build + find_pairs) of agrid::Grid (one thread) and agrid::Tree
// (all threads) on the benchmark scenes and prints a table, after checking every frame's pairs
// against agrid::find_all_pairs.
// Exit codes: 0 success, 1 a result mismatch, 2 a usage error.

#include <tbb/info.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agrid/agrid.h"
#include "agrid_scenes/scenes.h"

namespace {

/// Timed frames per scene, after one untimed warm-up frame; the table shows their median.
constexpr int kTimedRuns = 5;

struct Options {
  double scale = 1.0;
  std::vector<std::string> scenes;  // empty: every benchmark scene
  bool help = false;
};

void print_usage() {
  std::printf(
               "usage: agrid-demo [--scale X] [--scene NAME]... [--help]\n"
               "  --scale X      shrink every scene to X of its boxes, 0 < X <= 1 (default 1)\n"
               "  --scene NAME   run only this scene; repeat for several (default: all benchmark scenes)\n"
               "  --help         show this help\n"
               "benchmark scenes:");
  for (const std::string_view name : agrid::scenes::benchmark_scene_names()) {
    std::printf(" %.*s", static_cast<int>(name.size()), name.data());
  }
  std::printf("\nadversarial scenes (also accepted):");
  for (const std::string_view name : agrid::scenes::adversarial_scene_names()) {
    std::printf(" %.*s", static_cast<int>(name.size()), name.data());
  }
  std::printf("\n");
}

bool is_known_scene(std::string_view name) {
  const auto benchmark = agrid::scenes::benchmark_scene_names();
  const auto adversarial = agrid::scenes::adversarial_scene_names();
  return std::find(benchmark.begin(), benchmark.end(), name) != benchmark.end() ||
         std::find(adversarial.begin(), adversarial.end(), name) != adversarial.end();
}

/// Parses argv into `options`; on a bad argument returns the message to print, else empty.
/// Accepts both "--flag value" and "--flag=value".
std::string parse(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      options.help = true;
      continue;
    }
    std::string_view flag = arg;
    std::string_view value;
    bool has_value = false;
    if (const auto eq = arg.find('='); arg.starts_with("--") && eq != std::string_view::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    if (flag != "--scale" && flag != "--scene") return "unknown argument '" + std::string(arg) + "'";
    if (!has_value) {
      if (i + 1 >= argc) return "missing value after " + std::string(flag);
      value = argv[++i];
    }
    if (flag == "--scale") {
      const std::string text(value);
      char* end = nullptr;
      const double scale = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size() || !(scale > 0.0 && scale <= 1.0)) {
        return "--scale must be a number in (0, 1], got '" + text + "'";
      }
      options.scale = scale;
    } else {
      if (!is_known_scene(value)) return "unknown scene '" + std::string(value) + "' (see --help)";
      options.scenes.emplace_back(value);
    }
  }
  return {};
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

/// Median milliseconds of a warm frame (build + find_pairs) of `structure`; nullopt if a frame's
/// pairs differ from `expected`.
template <class Structure>
std::optional<double> median_frame_ms(Structure& structure, const agrid::scenes::Scene& scene,
                                      const std::vector<agrid::Pair>& expected, const char* what) {
  std::vector<agrid::Pair> pairs;
  std::vector<double> millis;
  for (int run = 0; run <= kTimedRuns; ++run) {  // run 0 is the warm-up
    const auto start = std::chrono::steady_clock::now();
    structure.build(scene.boxes);
    structure.find_pairs(pairs);
    const auto stop = std::chrono::steady_clock::now();
    if (run > 0) millis.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
    if (pairs != expected) {
      std::fprintf(stderr, "agrid-demo: %s: %s found %zu pairs, find_all_pairs %zu; results differ\n",
                   scene.name.c_str(), what, pairs.size(), expected.size());
      return std::nullopt;
    }
  }
  return median(millis);
}

/// Runs one scene with a Grid (one thread) and a Tree (all threads); returns false if either's
/// pairs differ from find_all_pairs'.
bool run_scene(const std::string& name, double scale) {
  const agrid::scenes::Scene scene = agrid::scenes::make_scene(name, scale);
  const std::vector<agrid::Pair> expected = agrid::find_all_pairs(scene.boxes);
  agrid::Grid grid;
  agrid::Tree tree;
  const std::optional<double> grid_ms = median_frame_ms(grid, scene, expected, "Grid");
  const std::optional<double> tree_ms = median_frame_ms(tree, scene, expected, "Tree");
  if (!grid_ms || !tree_ms) return false;
  const double ns_per_box = scene.boxes.empty() ? 0.0 : *grid_ms * 1e6 / static_cast<double>(scene.boxes.size());
  std::printf("%-22s %10zu %10zu %10.3f %8.1f %10.3f %8.2fx\n", name.c_str(), scene.boxes.size(), expected.size(),
              *grid_ms, ns_per_box, *tree_ms, *grid_ms / *tree_ms);
  std::fflush(stdout);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (const std::string problem = parse(argc, argv, options); !problem.empty()) {
    std::fprintf(stderr, "agrid-demo: %s\nrun 'agrid-demo --help' for usage\n", problem.c_str());
    return 2;
  }
  if (options.help) {
    print_usage();
    return 0;
  }
  if (options.scenes.empty()) {
    for (const std::string_view name : agrid::scenes::benchmark_scene_names()) options.scenes.emplace_back(name);
  }

  std::printf("agrid-demo: warm frames (build + find_pairs), median of %d runs after 1 warm-up\n", kTimedRuns);
  std::printf("scale %g; Grid on 1 thread, Tree (tree of grids) on all %d threads of this machine\n\n", options.scale,
              tbb::info::default_concurrency());
  std::printf("%-22s %10s %10s %10s %8s %10s %9s\n", "scene", "boxes", "pairs", "grid ms", "ns/box", "tree ms",
              "speed-up");
  bool ok = true;
  try {
    for (const std::string& name : options.scenes) ok = run_scene(name, options.scale) && ok;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "agrid-demo: %s\n", e.what());
    return 1;
  }
  return ok ? 0 : 1;
}
