#pragma once
// The cells overlay: an agrid::Grid built over the world's AABBs, as agrid would see them, and
// its cells at one depth as boxes to draw.

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
  Grid grid_;
};

}  // namespace agrid::viewer
