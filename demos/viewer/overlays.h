#pragma once
// What the viewer draws over the shapes, chosen in the panel or on the command line, and how it
// becomes the renderer's DrawOptions.

#include <cstdint>
#include <optional>

#include "agrid_render/renderer.h"
#include "grid_cells.h"
#include "simulation.h"

namespace agrid::viewer {

/// Which AABBs the AABB overlay shows.
enum class AabbOverlay : std::uint8_t { none, picked, all };

/// What to draw over the shapes.
struct Overlays {
  /// The cells overlay's depth at first: the root's children.
  static constexpr int kDefaultCellDepth = 1;

  AabbOverlay aabbs = AabbOverlay::none;
  bool pairs = false;            ///< A line between the centres of each cached pair's objects.
  bool colour_by_state = true;   ///< Static grey, asleep blue, awake orange; else all orange.
  bool colour_by_pairs = false;  ///< Each body by its pair count (pair_colour); before colour_by_state.
  bool rays = false;             ///< The scene's rays of the last step (bench-7's 500).
  bool cells = false;            ///< agrid's grid cells at cell_depth, over the current AABBs.
  int cell_depth = kDefaultCellDepth;
  std::optional<int> picked;     ///< The picked object's index, if any.
};

/// Fills `draw`'s overlays (not its camera) as `overlays` asks; `cells` keeps the grid of the
/// cells overlay between frames.
void add_overlays(const Simulation& simulation, const Overlays& overlays, GridCells& cells, render::DrawOptions& draw);

}  // namespace agrid::viewer
