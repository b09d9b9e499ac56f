#pragma once
// What the demo prints and writes: tables on stdout, CSVs and gnuplot pictures in --out.

#include <filesystem>
#include <string>
#include <vector>

#include "demo_run.h"

namespace agrid::demo {

/// The A/B tables of one scene at one size: step time (median, mean, 95th percentile),
/// broadphase time (median, mean), the rays' time (median, mean) when the scene has rays, the
/// rest, pairs, missing and extra pairs; the ray check when the scene has rays; then the physics
/// summary of each broadphase.
void print_tables(const std::vector<RunResult>& runs, unsigned threads);

/// Writes DIR/<scene>-<bodies>-<broadphase>.csv (step, step_ms, broadphase_ms, rest_ms, pairs,
/// query_ms) for each run; returns the paths written.
std::vector<std::filesystem::path> write_csvs(const std::vector<RunResult>& runs, const std::filesystem::path& dir);

/// Draws with gnuplot (PNG): per-step broadphase time of the runs of one scene and size on one
/// chart, and each run's final state (top view, coloured by sleeping). Returns the pictures
/// written; throws std::runtime_error if gnuplot fails.
std::vector<std::filesystem::path> draw_scene(const std::vector<RunResult>& runs, const std::filesystem::path& dir);

/// Draws median broadphase time against body count, one line per broadphase, for a --sweep of
/// one scene. Returns the picture written; throws std::runtime_error if gnuplot fails.
std::filesystem::path draw_sweep(const std::vector<RunResult>& runs, const std::filesystem::path& dir);

}  // namespace agrid::demo
