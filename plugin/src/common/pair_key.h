#pragma once
// Pair keys: the one form pairs take inside agrid, a 64-bit key that sorts as the pair does.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "agrid/pair.h"

namespace agrid::detail {

/// The key of the pair of ids a and b: the smaller id in the high half, so that ascending keys
/// are pairs in ascending (first, second) order.
[[nodiscard]] constexpr std::uint64_t pair_key(std::uint32_t a, std::uint32_t b) noexcept {
  return a < b ? (std::uint64_t{a} << 32) | b : (std::uint64_t{b} << 32) | a;
}

/// The pair a key stands for.
[[nodiscard]] constexpr Pair pair_of(std::uint64_t key) noexcept {
  return Pair{static_cast<std::uint32_t>(key >> 32), static_cast<std::uint32_t>(key)};
}

/// Appends the sorted keys `more` to the sorted `keys`, which stay sorted. Merged from the back,
/// in place: std::inplace_merge allocates a buffer on every call.
inline void merge_in(std::vector<std::uint64_t>& keys, const std::vector<std::uint64_t>& more) {
  std::size_t kept = keys.size();
  std::size_t added = more.size();
  keys.resize(kept + added);
  for (std::size_t out = kept + added; added > 0;) {
    keys[--out] = kept > 0 && keys[kept - 1] > more[added - 1] ? keys[--kept] : more[--added];
  }
}

}  // namespace agrid::detail
