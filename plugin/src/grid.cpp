#include "agrid/grid.h"

#include "checked_config.h"
#include "grid_core.h"

namespace agrid {

Grid::Grid(const Config& config) : core_(std::make_unique<detail::GridCore>(detail::checked(config))) {}
Grid::~Grid() = default;
Grid::Grid(Grid&&) noexcept = default;
Grid& Grid::operator=(Grid&&) noexcept = default;

void Grid::build(std::span<const Box> boxes) { core_->build(boxes); }

void Grid::find_pairs(std::vector<Pair>& out) { core_->find_pairs(out); }

GridStats Grid::stats() const { return core_->stats(); }

const Config& Grid::config() const noexcept { return core_->config(); }

}  // namespace agrid
