#include "viewer_options.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <map>
#include <vector>

#include "agrid/limits.h"
#include "agrid_scenes/bullet_worlds.h"

namespace agrid::viewer {
namespace {

using scenes::BroadphaseKind;

// The broadphases the viewer switches between (simple, the O(n^2) oracle, would stall a window).
const std::map<std::string, BroadphaseKind>& broadphase_names() {
  static const std::map<std::string, BroadphaseKind> names = {
      {"dbvt", BroadphaseKind::dbvt}, {"sap", BroadphaseKind::sap}, {"agrid", BroadphaseKind::agrid}};
  return names;
}

std::vector<std::string> accepted_scene_names() {
  std::vector<std::string> names;
  for (const scenes::WorldSceneInfo& scene : scenes::world_scenes()) {
    names.emplace_back(scene.name);
    if (!scene.short_name.empty()) names.emplace_back(scene.short_name);
  }
  return names;
}

// The broadphases as written on the command line, mapped to kinds after parsing.
struct BroadphaseNames {
  std::string broadphase = "agrid";
  std::string switch_to;
};

void add_options(CLI::App& app, Options& o, BroadphaseNames& names) {
  app.add_option("--scene", o.scene, "Scene of agrid-demo's library (pile, scatter, ..., bench-1 ... bench-8)")
      ->check(CLI::IsMember(accepted_scene_names()))
      ->capture_default_str();
  app.add_option("--bodies", o.bodies, "Bodies (the bench-* scenes have their own)")
      ->check(CLI::Range(1u, 10000000u))
      ->capture_default_str();
  app.add_option("--broadphase", names.broadphase, "dbvt, sap or agrid (switch live in the panel)")
      ->check(CLI::IsMember({"dbvt", "sap", "agrid"}))
      ->capture_default_str();
  app.add_option("--threads", o.threads, "Threads for agrid (default: all cores)")->check(CLI::Range(1u, 1024u));
  app.add_option("--seed", o.seed, "Seed of the scene's random numbers")->capture_default_str();
  CLI::Option* quit = app.add_flag("--quit", o.quit, "Step --steps times, draw, write --screenshot if given, exit");
  app.add_option("--steps", o.steps, "Steps before --quit exits")
      ->check(CLI::Range(0u, 1000000u))
      ->needs(quit)
      ->capture_default_str();
  CLI::Option* screenshot =
      app.add_option("--screenshot", o.screenshot,
                     "With --quit: PNG of the scene as drawn in the window at the end (without the panel, whose "
                     "numbers change from run to run)")
          ->needs(quit);
  app.add_flag("--with-panel", o.with_panel, "The screenshot shows the panel too")->needs(screenshot);
  app.add_option("--switch-to", names.switch_to, "With --quit: rebuild the world on this broadphase after half the steps")
      ->check(CLI::IsMember({"dbvt", "sap", "agrid"}))
      ->needs(quit);
  app.add_flag("--report-fps", o.report_fps, "Print the frames per second on exit");
  app.add_flag("--aabbs", o.aabbs, "Start with the AABB overlay on (a checkbox in the panel)");
  app.add_flag("--pairs", o.pairs, "Start with the pair overlay on: a line between the centres of each cached pair");
  app.add_option("--pick", o.pick, "With --quit: pick the body under window pixel X Y before the last frame, and show its AABB")
      ->expected(2)
      ->check(CLI::NonNegativeNumber)
      ->needs(quit);
  app.add_flag("--colour-by-pairs", o.colour_by_pairs, "Start colouring each body by how many pairs it is in");
  app.add_flag("--rays", o.rays, "Start with the scene's rays drawn (bench-7 casts 500 a step)");
  app.add_option("--overlay-cells", o.cell_depth, "Start with the cells at this depth drawn, of an agrid::Grid over the AABBs")
      ->check(CLI::Range(0, static_cast<int>(kMaxDepth)));
}

}  // namespace

Parsed parse_options(int argc, char** argv) {
  CLI::App app{"agrid-viewer: a Bullet scene in a window, its broadphase switched live between "
               "btDbvtBroadphase, bt32BitAxisSweep3 and btAdaptiveGridBroadphase"};
  Parsed parsed;
  BroadphaseNames names;
  add_options(app, parsed.options, names);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    parsed.exit_code = app.exit(e);
    return parsed;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "agrid-viewer: %s\nrun 'agrid-viewer --help' for usage\n", e.what());
    parsed.exit_code = kUsageError;
    return parsed;
  }
  parsed.options.scene = std::string(scenes::find_world_scene(parsed.options.scene)->name);
  parsed.options.broadphase = broadphase_names().at(names.broadphase);
  if (!names.switch_to.empty()) parsed.options.switch_to = broadphase_names().at(names.switch_to);
  return parsed;
}

}  // namespace agrid::viewer
