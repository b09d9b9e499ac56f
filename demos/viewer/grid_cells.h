#pragma once
// The cells overlay: an agrid::Grid built over the world's AABBs, and its cells at one depth as
// boxes to draw. The grid only splits (Config::sweep_window 0): the default grid makes a scene
// of a few hundred small boxes one sweep leaf, which would leave nothing to see below the root.

#include <cstdint>
#include <span>
#include <vector>

#include "agrid/grid.h"
#include "agrid_render/snapshot.h"

namespace agrid::viewer {

/// A grid kept between frames (its memory too), rebuilt when its cells are asked for.
class GridCells {
 public:
  /// Builds the grid over `aabbs` and returns the bounds of its cells at level `depth`.
  [[nodiscard]] std::vector<render::Bounds> at_depth(std::span<const Box> aabbs, std::uint32_t depth);
  /// The deepest level of the last build.
  [[nodiscard]] std::uint32_t depth() const { return grid_.stats().depth; }

 private:
  /// The default configuration, but cells are split rather than swept.
  [[nodiscard]] static Config splitting_config() {
    Config config;
    config.sweep_window = 0.0f;
    return config;
  }

  Grid grid_{splitting_config()};
};

}  // namespace agrid::viewer
