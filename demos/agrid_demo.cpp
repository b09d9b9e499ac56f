// agrid-demo: the same Bullet scene run with btDbvtBroadphase, bt32BitAxisSweep3 and
// btAdaptiveGridBroadphase side by side: what each costs per step, that none misses a pair,
// and that the physics comes out the same. Tables on stdout; CSVs and gnuplot pictures with
// --out. Exit codes: 0 done, 1 a broadphase missed pairs (or a run failed), 2 bad usage.

#include <CLI/CLI.hpp>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "agrid_scenes/bullet_worlds.h"
#include "demo_output.h"
#include "demo_run.h"

namespace {

namespace fs = std::filesystem;
using agrid::scenes::BroadphaseKind;

/// Exit code for bad usage (as the issue asks, and as shells expect).
constexpr int kUsageError = 2;
/// The body count and steps when none are given: about a minute for the default scenes.
constexpr std::uint32_t kDefaultBodies = 3000;
constexpr std::uint32_t kDefaultSteps = 300;

struct Options {
  std::vector<std::string> scenes = {"pile", "scatter"};
  std::uint32_t bodies = kDefaultBodies;
  std::vector<std::uint32_t> sweep;
  std::uint32_t steps = kDefaultSteps;
  std::string broadphase = "all";
  unsigned threads = 0;  ///< 0: all of the machine's.
  std::string out;
  std::uint64_t seed = 1;
};

std::vector<std::string> world_scene_list() {
  std::vector<std::string> names;
  for (const std::string_view n : agrid::scenes::world_scene_names()) names.emplace_back(n);
  return names;
}

std::vector<BroadphaseKind> kinds_of(const std::string& broadphase) {
  if (broadphase == "dbvt") return {BroadphaseKind::dbvt};
  if (broadphase == "sap") return {BroadphaseKind::sap};
  if (broadphase == "agrid") return {BroadphaseKind::agrid};
  return {BroadphaseKind::dbvt, BroadphaseKind::sap, BroadphaseKind::agrid};
}

void add_options(CLI::App& app, Options& o) {
  const std::vector<std::string> scenes = world_scene_list();
  std::string scene_list;
  for (const std::string& s : scenes) scene_list += (scene_list.empty() ? "" : ", ") + s;
  app.add_option("--scene", o.scenes, "Scenes to run (" + scene_list + "); default: pile scatter")
      ->check(CLI::IsMember(scenes))
      ->delimiter(',');
  app.add_option("--bodies", o.bodies, "Bodies per scene")->check(CLI::Range(1u, 10000000u))->capture_default_str();
  app.add_option("--sweep", o.sweep, "Body counts to run each scene at, comma separated (instead of --bodies); draws time against count")
      ->check(CLI::Range(1u, 10000000u))
      ->delimiter(',');
  app.add_option("--steps", o.steps, "Steps of 1/60 s per run")->check(CLI::Range(1u, 1000000u))->capture_default_str();
  app.add_option("--broadphase", o.broadphase, "dbvt (btDbvtBroadphase), sap (bt32BitAxisSweep3), agrid "
                                               "(btAdaptiveGridBroadphase), or all of them on identical initial states")
      ->check(CLI::IsMember({"dbvt", "sap", "agrid", "all"}))
      ->capture_default_str();
  app.add_option("--threads", o.threads, "Threads for agrid (default: all cores)")->check(CLI::Range(1u, 1024u));
  app.add_option("--out", o.out, "Directory for CSVs (per-step times and pairs) and PNG pictures (gnuplot)");
  app.add_option("--seed", o.seed, "Seed of the scenes' random numbers")->capture_default_str();
}

// Runs every scene at every size with every broadphase; prints, writes and draws.
int run_all(const Options& o) {
  const unsigned threads = o.threads > 0 ? o.threads : static_cast<unsigned>(tbb::info::default_concurrency());
  const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
  tbb::task_arena arena(static_cast<int>(threads));
  const std::vector<std::uint32_t> sizes = o.sweep.empty() ? std::vector<std::uint32_t>{o.bodies} : o.sweep;
  if (!o.out.empty()) fs::create_directories(o.out);
  std::uint64_t missing = 0;
  std::vector<fs::path> written;
  for (const std::string& scene : o.scenes) {
    std::vector<agrid::demo::RunResult> sweep_runs;
    for (const std::uint32_t bodies : sizes) {
      std::vector<agrid::demo::RunResult> runs;
      for (const BroadphaseKind kind : kinds_of(o.broadphase)) {
        arena.execute([&] { runs.push_back(agrid::demo::run(scene, kind, bodies, o.steps, o.seed)); });
        missing += runs.back().missing_pairs;
      }
      agrid::demo::print_tables(runs, threads);
      if (!o.out.empty()) {
        for (const auto& p : agrid::demo::write_csvs(runs, o.out)) written.push_back(p);
        for (const auto& p : agrid::demo::draw_scene(runs, o.out)) written.push_back(p);
      }
      sweep_runs.insert(sweep_runs.end(), runs.begin(), runs.end());
    }
    if (!o.out.empty() && sizes.size() > 1) written.push_back(agrid::demo::draw_sweep(sweep_runs, o.out));
  }
  if (!written.empty()) {
    std::printf("\nwritten:\n");
    for (const fs::path& p : written) std::printf("  %s\n", p.string().c_str());
  }
  if (missing > 0) {
    std::fprintf(stderr, "agrid-demo: %llu missing pairs: a broadphase is wrong\n", static_cast<unsigned long long>(missing));
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"agrid-demo: Bullet scenes run A/B with btDbvtBroadphase, bt32BitAxisSweep3 and "
               "btAdaptiveGridBroadphase"};
  Options options;
  add_options(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "agrid-demo: %s\nrun 'agrid-demo --help' for usage\n", e.what());
    return kUsageError;
  }
  try {
    return run_all(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "agrid-demo: %s\n", e.what());
    return 1;
  }
}
