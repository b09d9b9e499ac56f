#pragma once
// agrid-viewer's command line (CLI11): the scene to open, the broadphase, and the
// non-interactive mode for tests and measurements.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agrid_scenes/broadphase_kind.h"

namespace agrid::viewer {

/// Exit code for bad usage, as agrid-demo's.
inline constexpr int kUsageError = 2;

/// What the viewer was asked for.
struct Options {
  static constexpr std::uint32_t kDefaultBodies = 5000;
  /// Steps of the non-interactive mode when --steps is not given: a second of simulated time.
  static constexpr std::uint32_t kDefaultQuitSteps = 60;

  std::string scene = "pile";
  std::uint32_t bodies = kDefaultBodies;
  scenes::BroadphaseKind broadphase = scenes::BroadphaseKind::agrid;
  unsigned threads = 0;  ///< 0: all of the machine's.
  std::uint64_t seed = 1;
  bool quit = false;                ///< Step `steps` times, draw, then exit.
  std::uint32_t steps = kDefaultQuitSteps;
  std::string screenshot;           ///< With quit: the PNG of the last frame's scene, or empty.
  bool with_panel = false;          ///< The screenshot shows the panel too (else the scene alone).
  std::optional<scenes::BroadphaseKind> switch_to;  ///< With quit: rebuild on it after half the steps.
  bool report_fps = false;          ///< Print the frames per second on exit.
  bool aabbs = false;               ///< Start with the AABB overlay on.
  bool pairs = false;               ///< Start with the pair overlay on.
  std::vector<int> pick;            ///< With quit: the window pixel {x, y} to pick at before the
                                    ///< last frame, its AABB shown; empty: no pick.
  bool colour_by_pairs = false;     ///< Start colouring bodies by their pair count.
  bool rays = false;                ///< Start with the rays overlay on (bench-7's rays).
  std::optional<int> cell_depth;    ///< Start with agrid's cells at this depth drawn.
};

/// The options of `argv`, or the exit code to return at once (0 after --help, kUsageError after
/// a message on stderr for bad usage).
struct Parsed {
  Options options;
  std::optional<int> exit_code;
};
[[nodiscard]] Parsed parse_options(int argc, char** argv);

}  // namespace agrid::viewer
