#include "demo_output.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <stdexcept>

namespace agrid::demo {
namespace {

namespace fs = std::filesystem;

/// Picture size in pixels.
constexpr const char* kPictureSize = "1000,600";

std::string run_name(const RunResult& r) {
  return r.scene + "-" + std::to_string(r.bodies) + "-" + std::string(scenes::name(r.kind));
}

// Per step: the step without its broadphase and its rays (narrowphase, solver, integration).
std::vector<double> rest_ms(const RunResult& r) {
  std::vector<double> rest(r.step_ms.size());
  for (std::size_t i = 0; i < rest.size(); ++i) rest[i] = r.step_ms[i] - r.broadphase_ms[i] - r.query_ms[i];
  return rest;
}

double mean_pairs(const RunResult& r) {
  if (r.pairs.empty()) return 0;
  return std::accumulate(r.pairs.begin(), r.pairs.end(), 0.0) / static_cast<double>(r.pairs.size());
}

std::string kind_name(const RunResult& r) { return std::string(scenes::name(r.kind)); }

// Costs per step (median and mean), pairs and the pair check; rays' costs when the scene has rays.
void print_costs(const std::vector<RunResult>& runs, bool rays) {
  std::printf("%-9s %12s %12s %12s %12s %12s", "", "step median", "step mean", "step p95", "broadphase", "bp mean");
  if (rays) std::printf(" %12s %12s", "rays", "rays mean");
  std::printf(" %10s %10s %8s %8s\n", "rest", "pairs", "missing", "extra");
  for (const RunResult& r : runs) {
    std::printf("%-9s %9.3f ms %9.3f ms %9.3f ms %9.3f ms %9.3f ms", kind_name(r).c_str(), quantile(r.step_ms, 0.5),
                mean(r.step_ms), quantile(r.step_ms, 0.95), quantile(r.broadphase_ms, 0.5), mean(r.broadphase_ms));
    if (rays) std::printf(" %9.3f ms %9.3f ms", quantile(r.query_ms, 0.5), mean(r.query_ms));
    std::printf(" %7.3f ms %10.0f %8llu %8llu\n", quantile(rest_ms(r), 0.5), mean_pairs(r),
                static_cast<unsigned long long>(r.missing_pairs), static_cast<unsigned long long>(r.extra_pairs));
  }
}

// The ray check of each run: objects rayTest missed, and reported beyond those the rays meet.
void print_ray_checks(const std::vector<RunResult>& runs) {
  std::printf("%-9s %10s %12s %12s\n", "rays", "per step", "hits missed", "hits extra");
  for (const RunResult& r : runs) {
    std::printf("%-9s %10zu %12llu %12llu\n", kind_name(r).c_str(), r.rays_per_step,
                static_cast<unsigned long long>(r.rays_missed), static_cast<unsigned long long>(r.rays_extra));
  }
}

void print_physics(const std::vector<RunResult>& runs) {
  std::printf("%-9s %8s %12s %12s %16s %11s\n", "physics", "asleep", "mean height", "max height", "kinetic energy",
              "left world");
  for (const RunResult& r : runs) {
    const scenes::PhysicsSummary& p = r.physics;
    std::printf("%-9s %8u %12.3f %12.3f %16.3f %11u\n", kind_name(r).c_str(), p.asleep, p.mean_height, p.max_height,
                p.kinetic_energy, p.left_world + p.not_finite);
  }
}

// Runs gnuplot on a script written next to the pictures.
void gnuplot(const fs::path& script) {
  const std::string command = "gnuplot '" + script.string() + "' 2>&1";
  if (std::system(command.c_str()) != 0) {
    throw std::runtime_error("gnuplot failed on " + script.string() + " (is gnuplot-nox installed? scripts/setup-deps installs it)");
  }
}

std::ofstream open_for_writing(const fs::path& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  return out;
}

}  // namespace

void print_tables(const std::vector<RunResult>& runs, unsigned threads) {
  if (runs.empty()) return;
  const RunResult& first = runs.front();
  const scenes::WorldSceneInfo* info = scenes::find_world_scene(first.scene);
  const bool fixed = info != nullptr && info->fixed_bodies;
  const bool rays = first.rays_per_step > 0;
  std::printf("\n%s, %u bodies%s, %zu steps of 1/60 s, %u threads\n", first.scene.c_str(), first.bodies,
              fixed ? " (the scene's own)" : "", first.step_ms.size(), threads);
  print_costs(runs, rays);
  if (rays) print_ray_checks(runs);
  print_physics(runs);
  std::printf("(medians, means and 95th percentiles over the steps; step = stepSimulation%s;\n"
              " broadphase = every setAabb + calculateOverlappingPairs;%s rest = the step without them;\n"
              " pairs = mean in the cache; missing and extra = pairs the cache lacked and held beyond the\n"
              " overlapping ones the filter accepts, summed over the steps, by a plain sweep (not agrid);%s\n"
              " dbvt and sap keep extra pairs%s by design, agrid must not)\n",
              rays ? " and the rays" : "", rays ? "\n rays = the scene's rays, a ClosestRayResultCallback each;" : "",
              rays ? "\n hits missed and extra = objects rayTest missed, or reported beyond those the rays meet;" : "",
              rays ? " and ray hits" : "");
}

std::vector<fs::path> write_csvs(const std::vector<RunResult>& runs, const fs::path& dir) {
  std::vector<fs::path> written;
  for (const RunResult& r : runs) {
    const fs::path path = dir / (run_name(r) + ".csv");
    std::ofstream out = open_for_writing(path);
    out << "step,step_ms,broadphase_ms,rest_ms,pairs,query_ms\n";
    const std::vector<double> rest = rest_ms(r);
    for (std::size_t i = 0; i < r.step_ms.size(); ++i) {
      out << i + 1 << ',' << r.step_ms[i] << ',' << r.broadphase_ms[i] << ',' << rest[i] << ',' << r.pairs[i] << ','
          << r.query_ms[i] << '\n';
    }
    written.push_back(path);
  }
  return written;
}

std::vector<fs::path> draw_scene(const std::vector<RunResult>& runs, const fs::path& dir) {
  std::vector<fs::path> pictures;
  if (runs.empty()) return pictures;
  const std::string base = runs.front().scene + "-" + std::to_string(runs.front().bodies);
  // Per-step broadphase time, every broadphase on one chart (from the CSVs).
  const fs::path chart = dir / (base + "-broadphase.png");
  const fs::path script = dir / (base + "-broadphase.gp");
  {
    std::ofstream gp = open_for_writing(script);
    gp << "set terminal pngcairo size " << kPictureSize << "\nset output '" << chart.string() << "'\n"
       << "set datafile separator ','\nset key autotitle columnhead\nset logscale y\nset grid\n"
       << "set title 'Broadphase time per step: " << runs.front().scene << ", " << runs.front().bodies << " bodies'\n"
       << "set xlabel 'step'\nset ylabel 'ms (setAabb + calculateOverlappingPairs)'\nplot ";
    for (std::size_t i = 0; i < runs.size(); ++i) {
      gp << (i ? ", " : "") << "'" << (dir / (run_name(runs[i]) + ".csv")).string() << "' using 1:3 with lines lw 2 title '"
         << scenes::name(runs[i].kind) << "'";
    }
    gp << "\n";
  }
  gnuplot(script);
  pictures.push_back(chart);

  // Each run's final state: a top view (x, z), asleep bodies in blue, awake ones in red.
  for (const RunResult& r : runs) {
    const fs::path data = dir / (run_name(r) + "-final.dat");
    {
      std::ofstream out = open_for_writing(data);
      for (const auto& b : r.final_state) out << b.x << ' ' << b.y << ' ' << b.z << ' ' << (b.asleep ? 1 : 0) << '\n';
    }
    const fs::path picture = dir / (run_name(r) + "-final.png");
    const fs::path final_script = dir / (run_name(r) + "-final.gp");
    {
      std::ofstream gp = open_for_writing(final_script);
      gp << "set terminal pngcairo size " << kPictureSize << "\nset output '" << picture.string() << "'\n"
         << "set title 'Final state: " << r.scene << ", " << r.bodies << " bodies, " << scenes::name(r.kind)
         << " (top view; blue: asleep, red: awake)'\nset xlabel 'x'\nset ylabel 'z'\nset size ratio -1\nunset key\n"
         << "set palette defined (0 'red', 1 'blue')\nset cbrange [0:1]\nunset colorbox\n"
         << "plot '" << data.string() << "' using 1:3:4 with points pt 7 ps 0.4 palette\n";
    }
    gnuplot(final_script);
    pictures.push_back(picture);
  }
  return pictures;
}

fs::path draw_sweep(const std::vector<RunResult>& runs, const fs::path& dir) {
  const std::string scene = runs.empty() ? "scene" : runs.front().scene;
  std::map<std::string, std::vector<const RunResult*>> by_kind;
  for (const RunResult& r : runs) by_kind[std::string(scenes::name(r.kind))].push_back(&r);
  const fs::path data = dir / (scene + "-sweep.dat");
  {
    std::ofstream out = open_for_writing(data);
    for (const auto& [kind, list] : by_kind) {
      out << "\"" << kind << "\"\n";
      for (const RunResult* r : list) out << r->bodies << ' ' << quantile(r->broadphase_ms, 0.5) << '\n';
      out << "\n\n";
    }
  }
  const fs::path picture = dir / (scene + "-sweep.png");
  const fs::path script = dir / (scene + "-sweep.gp");
  {
    std::ofstream gp = open_for_writing(script);
    gp << "set terminal pngcairo size " << kPictureSize << "\nset output '" << picture.string() << "'\n"
       << "set logscale xy\nset grid\nset key left top\nset title 'Median broadphase time per step: " << scene << "'\n"
       << "set xlabel 'bodies'\nset ylabel 'ms'\n"
       << "plot for [i=0:" << (by_kind.size() - 1) << "] '" << data.string()
       << "' index i using 1:2 with linespoints lw 2 pt 7 title columnheader(1)\n";
  }
  gnuplot(script);
  return picture;
}

}  // namespace agrid::demo
