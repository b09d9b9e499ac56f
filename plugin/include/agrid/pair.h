#pragma once
// Pair: one overlapping pair of boxes, as indices into the caller's input or Broadphase handles.

// Below C++20: one clear error, not dozens from what follows. (GCC 10 and older report 201709 in
// their C++2a mode: let through.)
#if __cplusplus <= 201703L
#error "agrid/pair.h needs C++20; a Bullet program of an older standard includes <agrid/bullet/btAdaptiveGridBroadphase.h> (C++11) instead"
#else

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

#endif  // C++20
