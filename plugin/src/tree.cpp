#include "agrid/tree.h"

#include "checked_config.h"
#include "tree_impl.h"

namespace agrid {

Tree::Tree(const Config& config) : impl_(std::make_unique<Impl>(detail::checked(config))) {}
Tree::~Tree() = default;
Tree::Tree(Tree&&) noexcept = default;
Tree& Tree::operator=(Tree&&) noexcept = default;

void Tree::build(std::span<const Box> boxes) { impl_->build(boxes); }

void Tree::find_pairs(std::vector<Pair>& out) { impl_->find_pairs(out); }

GridStats Tree::stats() const { return impl_->stats; }

const Config& Tree::config() const noexcept { return impl_->config; }

std::size_t Tree::Impl::bytes_held() const {
  const auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  std::size_t total = bytes(nodes) + bytes(places) + stay.bytes_held() + bytes(stay_lattice) + bytes(grids) + bytes(oversized) +
                      bytes(level_entries) + bytes(next_entries) + bytes(codes) + bytes(pending) + bytes(next_pending) +
                      bytes(chunks) + bytes(chunk_counts) + bytes(chunk_stays) + bytes(chunk_invalid) +
                      bytes(chunk_oversize) + bytes(totals) + bytes(leaves) + bytes(level_tasks) + bytes(task_order) +
                      bytes(stay_work) + bytes(stay_keys) + bytes(segments) + sort_scratch.bytes_held();
  for (const auto& grid : grids) total += grid_impl(*grid).bytes_held();
  for (const auto& keys : stay_keys) total += keys.bytes_held();
  for (const auto& scratch : sweep_scratch) total += scratch.bytes_held();
  return total;
}

}  // namespace agrid
