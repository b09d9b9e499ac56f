// agrid-demo: the same Bullet scene run with btDbvtBroadphase, bt32BitAxisSweep3 and
// btAdaptiveGridBroadphase side by side: what each costs per step, that none misses a pair or
// a ray hit, and that the physics comes out the same. Tables on stdout; CSVs and gnuplot
// pictures with --out; OpenGL pictures of the scene (and a video, with ffmpeg) with --render.
// Exit codes: 0 done, 1 a broadphase was wrong (a missed pair or ray hit, or an extra one from
// agrid) or a run failed, 2 bad usage.

#include <CLI/CLI.hpp>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "agrid_scenes/bullet_worlds.h"
#include "demo_output.h"
#include "demo_pictures.h"
#include "demo_run.h"

namespace {

namespace fs = std::filesystem;
using agrid::scenes::BroadphaseKind;

/// Exit code for bad usage (as the issue asks, and as shells expect).
constexpr int kUsageError = 2;
/// The body count and steps when none are given: about a minute for the default scenes.
constexpr std::uint32_t kDefaultBodies = 3000;
constexpr std::uint32_t kDefaultSteps = 300;
/// Steps between pictures with --render when --render-every is not given.
constexpr std::uint32_t kDefaultRenderEvery = 10;

struct Options {
  std::vector<std::string> scenes = {"pile", "scatter"};
  std::uint32_t bodies = kDefaultBodies;
  std::vector<std::uint32_t> sweep;
  std::uint32_t steps = kDefaultSteps;
  std::string broadphase = "all";
  unsigned threads = 0;  ///< 0: all of the machine's.
  std::string out;
  std::uint64_t seed = 1;
  std::string render;  ///< --render: the pictures' directory, or empty.
  std::uint32_t render_every = kDefaultRenderEvery;
};

// Every scene's name and short name: what --scene accepts.
std::vector<std::string> accepted_scene_names() {
  std::vector<std::string> names;
  for (const agrid::scenes::WorldSceneInfo& scene : agrid::scenes::world_scenes()) {
    names.emplace_back(scene.name);
    if (!scene.short_name.empty()) names.emplace_back(scene.short_name);
  }
  return names;
}

// The scene list under --help: each scene's names and what it is, in two columns.
std::string scene_list_help() {
  std::vector<std::pair<std::string, std::string_view>> lines;
  std::size_t width = 0;
  for (const agrid::scenes::WorldSceneInfo& scene : agrid::scenes::world_scenes()) {
    std::string names = scene.short_name.empty() ? std::string(scene.name)
                                                 : std::string(scene.short_name) + ", " + std::string(scene.name);
    width = std::max(width, names.size());
    lines.emplace_back(std::move(names), scene.description);
  }
  std::string help = "Scenes (--scene):\n";
  for (auto& [names, description] : lines) {
    names.resize(width, ' ');
    help += "  " + names + "  " + std::string(description) + "\n";
  }
  return help + "The bench-* scenes are Bullet's own benchmark scenes (examples/Benchmarks/BenchmarkDemo.cpp) with\n"
                "their own body counts: --bodies and --sweep do not change them.\n";
}

std::vector<BroadphaseKind> kinds_of(const std::string& broadphase) {
  if (broadphase == "dbvt") return {BroadphaseKind::dbvt};
  if (broadphase == "sap") return {BroadphaseKind::sap};
  if (broadphase == "agrid") return {BroadphaseKind::agrid};
  if (broadphase == "agrid-fat") return {BroadphaseKind::agrid_fat};
  return {BroadphaseKind::dbvt, BroadphaseKind::sap, BroadphaseKind::agrid, BroadphaseKind::agrid_fat};
}

void add_options(CLI::App& app, Options& o) {
  app.add_option("--scene", o.scenes, "Scenes to run, comma separated (listed below); default: pile scatter")
      ->check(CLI::IsMember(accepted_scene_names()))
      ->delimiter(',');
  app.add_option("--bodies", o.bodies, "Bodies per scene (the bench-* scenes have their own)")
      ->check(CLI::Range(1u, 10000000u))
      ->capture_default_str();
  app.add_option("--sweep", o.sweep, "Body counts to run each scene at, comma separated (instead of --bodies); draws time against count")
      ->check(CLI::Range(1u, 10000000u))
      ->delimiter(',');
  app.add_option("--steps", o.steps, "Steps of 1/60 s per run")->check(CLI::Range(1u, 1000000u))->capture_default_str();
  app.add_option("--broadphase", o.broadphase, "dbvt (btDbvtBroadphase), sap (bt32BitAxisSweep3), agrid "
                                               "(btAdaptiveGridBroadphase), agrid-fat (the same with "
                                               "setFatPairMargin(0.05): pairs of fat boxes, dbvt's margin), or all of them on identical initial states")
      ->check(CLI::IsMember({"dbvt", "sap", "agrid", "agrid-fat", "all"}))
      ->capture_default_str();
  app.add_option("--threads", o.threads, "Threads for agrid (default: all cores)")->check(CLI::Range(1u, 1024u));
  app.add_option("--out", o.out, "Directory for CSVs (per-step times and pairs) and PNG pictures (gnuplot)");
  app.add_option("--seed", o.seed, "Seed of the scenes' random numbers")->capture_default_str();
  CLI::Option* render = app.add_option("--render", o.render,
                                       "Directory for pictures of the first broadphase's run of each scene "
                                       "(<scene>-<broadphase>-<step>.png, OpenGL offscreen) and, with ffmpeg on "
                                       "PATH, its video (<scene>-<broadphase>.mp4)");
  app.add_option("--render-every", o.render_every, "Steps between pictures with --render")
      ->check(CLI::Range(1u, 1000000u))
      ->needs(render)
      ->capture_default_str();
  app.footer(scene_list_help());
}

// The body counts to run `scene` at: one run for a scene with its own count.
std::vector<std::uint32_t> sizes_of(const std::string& scene, const Options& o) {
  const agrid::scenes::WorldSceneInfo* info = agrid::scenes::find_world_scene(scene);
  if (info != nullptr && info->fixed_bodies) return {o.bodies};
  return o.sweep.empty() ? std::vector<std::uint32_t>{o.bodies} : o.sweep;
}

// Runs every scene at every size with every broadphase; prints, writes and draws.
int run_all(const Options& o) {
  const unsigned threads = o.threads > 0 ? o.threads : static_cast<unsigned>(tbb::info::default_concurrency());
  const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
  tbb::task_arena arena(static_cast<int>(threads));
  if (!o.out.empty()) fs::create_directories(o.out);
  // One GL context for every picture, made before the first run so that a missing display fails fast.
  std::unique_ptr<agrid::render::OffscreenRenderer> renderer;
  if (!o.render.empty()) renderer = std::make_unique<agrid::render::OffscreenRenderer>();
  std::vector<std::string> wrong;
  std::vector<fs::path> written;
  for (const std::string& scene : o.scenes) {
    std::vector<agrid::demo::RunResult> sweep_runs;
    const std::vector<std::uint32_t> sizes = sizes_of(scene, o);
    for (const std::uint32_t bodies : sizes) {
      std::vector<agrid::demo::RunResult> runs;
      for (const BroadphaseKind kind : kinds_of(o.broadphase)) {
        // Pictures of the scene's first run only: its first size, its first broadphase.
        std::unique_ptr<agrid::demo::RunPictures> pictures;
        agrid::demo::StepObserver observer;
        if (renderer && sweep_runs.empty() && runs.empty()) {
          pictures = std::make_unique<agrid::demo::RunPictures>(
              *renderer, o.render, scene + "-" + std::string(agrid::scenes::name(kind)), o.render_every);
          observer = [&pictures](std::uint32_t step, const btCollisionWorld& world) { pictures->after_step(step, world); };
        }
        arena.execute([&] { runs.push_back(agrid::demo::run(scene, kind, bodies, o.steps, o.seed, observer)); });
        if (pictures) pictures->finish();
        if (agrid::demo::found_errors(runs.back())) {
          wrong.push_back(scene + "/" + std::string(agrid::scenes::name(kind)));
        }
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
  if (!wrong.empty()) {
    std::string list;
    for (const std::string& w : wrong) list += " " + w;
    std::fprintf(stderr, "agrid-demo: missed pairs or ray hits (or extra ones from agrid) in:%s\n", list.c_str());
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
    for (std::string& scene : options.scenes) scene = std::string(agrid::scenes::find_world_scene(scene)->name);
    if (!options.render.empty()) {
      if (const std::string problem = agrid::demo::render_dir_problem(options.render); !problem.empty()) {
        throw CLI::ValidationError("--render", problem);
      }
    }
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
