#pragma once
// Pair: one overlapping pair of boxes, as indices into the caller's input or Broadphase handles.

#include <compare>
#include <cstdint>

namespace agrid {

/// Two indices into the input (or two Broadphase handles), first < second; ordered by (first,
/// second). Supports structured bindings: `auto [a, b] = pair;`.
struct Pair {
  std::uint32_t first = 0;   ///< The lower index.
  std::uint32_t second = 0;  ///< The higher index.

  /// Canonical order: by first, then by second.
  friend constexpr auto operator<=>(const Pair&, const Pair&) = default;
};

}  // namespace agrid
