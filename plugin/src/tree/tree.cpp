#include "agrid/tree.h"

#include "common/checked_config.h"
#include "tree/tree_impl.h"

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
  std::size_t total = coarse.bytes_held() + bytes(places) + bytes(grids) + bytes(oversized) + bytes(level_tasks) +
                      bytes(task_order) + bytes(stay_work) + bytes(stay_keys) + bytes(key_runs) + sort_scratch.bytes_held();
  for (const detail::GridCore& grid : grids) total += grid.bytes_held();
  for (const detail::KeyBuffer& keys : stay_keys) total += keys.bytes_held();
  for (const detail::SweepScratch& scratch : sweep_scratch) total += scratch.bytes_held();
  return total;
}

}  // namespace agrid
