#include "grid_cells.h"

namespace agrid::viewer {

std::vector<render::Bounds> GridCells::at_depth(std::span<const Box> aabbs, std::uint32_t depth) {
  grid_.build(aabbs);
  std::vector<render::Bounds> cells;
  grid_.for_each_cell([&](const GridCell& cell) {
    if (cell.level != depth) return;
    const Box& b = cell.bounds;
    cells.push_back({{b.min.x, b.min.y, b.min.z}, {b.max.x, b.max.y, b.max.z}});
  });
  return cells;
}

}  // namespace agrid::viewer
