#include "leaf_kernel.h"

#include <algorithm>

namespace agrid::detail {
namespace {

[[nodiscard]] inline bool owned_overlap(const EntrySpan& c, std::uint32_t i, std::uint32_t j) noexcept {
  return c.lo[0][j] <= c.hi[0][i] && c.lo[0][i] <= c.hi[0][j] &&  //
         c.lo[1][j] <= c.hi[1][i] && c.lo[1][i] <= c.hi[1][j] &&  //
         c.lo[2][j] <= c.hi[2][i] && c.lo[2][i] <= c.hi[2][j] &&  //
         (c.start[i] | c.start[j]) == kOwnAllAxes;
}

void all_against_all(const EntrySpan& c, std::vector<std::uint64_t>& keys) {
  for (std::uint32_t i = 0; i + 1 < c.count; ++i) {
    for (std::uint32_t j = i + 1; j < c.count; ++j) {
      if (owned_overlap(c, i, j)) keys.push_back(pair_key(c.id[i], c.id[j]));
    }
  }
}

// Sorts by min x (ties by entry position, so the result is deterministic) and sweeps.
void sort_and_sweep(const EntrySpan& c, SweepScratch& scratch, std::vector<std::uint64_t>& keys) {
  auto& order = scratch.order;
  order.clear();
  for (std::uint32_t i = 0; i < c.count; ++i) order.emplace_back(c.lo[0][i], i);
  std::sort(order.begin(), order.end());
  for (std::size_t a = 0; a < order.size(); ++a) {
    const std::uint32_t i = order[a].second;
    const float hi_x = c.hi[0][i];
    for (std::size_t b = a + 1; b < order.size() && order[b].first <= hi_x; ++b) {
      const std::uint32_t j = order[b].second;
      if (owned_overlap(c, i, j)) keys.push_back(pair_key(c.id[i], c.id[j]));
    }
  }
}

}  // namespace

void append_cell_pairs(const EntrySpan& cell, std::uint32_t sweep_threshold, SweepScratch& scratch,
                       std::vector<std::uint64_t>& keys) {
  if (cell.count <= sweep_threshold) {
    all_against_all(cell, keys);
  } else {
    sort_and_sweep(cell, scratch, keys);
  }
}

}  // namespace agrid::detail
