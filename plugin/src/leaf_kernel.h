#pragma once
// Kernels that find the owned overlapping pairs among the entries of one cell.

#include <cstdint>
#include <utility>
#include <vector>

#include "entries.h"

namespace agrid::detail {

/// Scratch memory of the sort-and-sweep kernel, kept between calls.
struct SweepScratch {
  std::vector<std::pair<float, std::uint32_t>> order;  ///< (min x, entry) to sort.
  EntryArrays sorted;                                  ///< The entries in sorted order.
  std::vector<std::uint8_t> hit;                       ///< Per entry: overlaps the current one.

  [[nodiscard]] std::size_t bytes_held() const noexcept {
    return order.capacity() * sizeof(order[0]) + sorted.bytes_held() + hit.capacity();
  }
};

/// The 64-bit key of the pair of box ids a and b: smaller id in the high half.
[[nodiscard]] constexpr std::uint64_t pair_key(std::uint32_t a, std::uint32_t b) noexcept {
  return a < b ? (std::uint64_t{a} << 32) | b : (std::uint64_t{b} << 32) | a;
}

/// Appends the key of every pair of entries of `cell` that overlap and that `cell` owns.
/// Uses all-against-all up to `sweep_threshold` entries, sort-and-sweep beyond.
void append_cell_pairs(const EntrySpan& cell, std::uint32_t sweep_threshold, SweepScratch& scratch,
                       std::vector<std::uint64_t>& keys);

}  // namespace agrid::detail
