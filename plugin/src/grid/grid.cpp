#include "agrid/grid.h"

#include "common/checked_config.h"
#include "grid/grid_core.h"
#include "grid/lattice.h"
#include "grid/split_engine.h"

namespace agrid {
namespace {

// A cell's bounds undo the quantisation: lattice step k begins at origin + k / scale.
Box world_bounds(const detail::Lattice& lattice, const detail::Node& node) {
  const std::uint32_t shift = detail::level_shift(node.level);
  const auto world = [&](std::uint64_t step, int axis) {
    return static_cast<float>(lattice.origin[axis] + static_cast<double>(step) / lattice.scale);
  };
  const auto corner = [&](std::uint32_t offset) {
    return Vec3{world(std::uint64_t{node.cell[0] + offset} << shift, 0), world(std::uint64_t{node.cell[1] + offset} << shift, 1),
                world(std::uint64_t{node.cell[2] + offset} << shift, 2)};
  };
  return {corner(0), corner(1)};
}

}  // namespace

Grid::Grid(const Config& config) : core_(std::make_unique<detail::GridCore>(detail::checked(config))) {}
Grid::~Grid() = default;
Grid::Grid(Grid&&) noexcept = default;
Grid& Grid::operator=(Grid&&) noexcept = default;

void Grid::build(std::span<const Box> boxes) { core_->build(boxes); }

void Grid::find_pairs(std::vector<Pair>& out) { core_->find_pairs(out); }

void Grid::for_each_cell(FunctionRef<const GridCell&> visit) const {
  const detail::SplitEngine& cells = core_->cells();
  for (const detail::Node& node : cells.nodes()) {
    GridCell cell;
    cell.level = node.level;
    cell.bounds = world_bounds(cells.lattice(), node);
    cell.entries = node.stay.size() + node.leaf.size();
    cell.leaf = node.is_leaf();
    if (!visit(cell)) return;
  }
}

GridStats Grid::stats() const { return core_->stats(); }

const Config& Grid::config() const noexcept { return core_->config(); }

}  // namespace agrid
