#pragma once
// Pair keys: the one form pairs take inside agrid, a 64-bit key that sorts as the pair does.

#include <cstdint>

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

}  // namespace agrid::detail
