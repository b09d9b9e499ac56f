#include "agrid/grid.h"

#include "checked_config.h"
#include "grid_impl.h"

namespace agrid {
namespace {

template <class T, class Allocator>
[[nodiscard]] std::size_t capacity_bytes(const std::vector<T, Allocator>& v) noexcept {
  return v.capacity() * sizeof(T);
}

}  // namespace

Grid::Grid(const Config& config) : impl_(std::make_unique<Impl>(detail::checked(config))) {}
Grid::~Grid() = default;
Grid::Grid(Grid&&) noexcept = default;
Grid& Grid::operator=(Grid&&) noexcept = default;

void Grid::build(std::span<const Box> boxes) { impl_->build(boxes); }

GridStats Grid::stats() const { return impl_->stats; }

const Config& Grid::config() const noexcept { return impl_->config; }

std::size_t Grid::Impl::bytes_held() const noexcept {
  return capacity_bytes(nodes) + leaf.bytes_held() + stay.bytes_held() + capacity_bytes(stay_lattice) + capacity_bytes(leaf_cells) +
         capacity_bytes(level_entries) + capacity_bytes(next_entries) +
         capacity_bytes(child_codes) + capacity_bytes(pending) + capacity_bytes(next_pending) +
         pair_keys.bytes_held() + capacity_bytes(pair_keys_scratch) + sweep_scratch.bytes_held() +
         capacity_bytes(pairs_for_visit);
}

}  // namespace agrid
