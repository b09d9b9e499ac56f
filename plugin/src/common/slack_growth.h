#pragma once
// grow_for_one: room for one more element with a quarter's slack, where std::vector would double:
// the incremental Broadphase's arrays hold the whole world, so doubling would hold up to twice it.
// far_below / shrink_if_far_below: the one rule by which they give memory back when the world
// shrinks, with hysteresis, so that a world that grows and shrinks a little each step never
// reallocates.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "agrid/box.h"
#include "agrid/pair.h"

namespace agrid::detail {

/// The slack grow_for_one() adds: a quarter of the size (with at least kMinSlack elements).
constexpr std::size_t kSlackDivisor = 4;
constexpr std::size_t kMinSlack = 16;

/// Makes room for one more element of `v`, growing its capacity by a quarter when full.
template <class T>
void grow_for_one(std::vector<T>& v) {
  if (v.size() == v.capacity()) v.reserve(v.size() + v.size() / kSlackDivisor + kMinSlack);
}

/// Memory is given back when the use falls below 1/kShrinkBelowShare of the capacity ...
constexpr std::size_t kShrinkBelowShare = 4;
/// ... by a reallocation to kShrinkToMultiple times the use. Between the two the capacity stays:
/// after a shrink the use must halve to shrink again, or double to grow, so a world that
/// breathes by a few percent a step never reallocates.
constexpr std::size_t kShrinkToMultiple = 2;
/// Memory of at most this many bytes is kept whatever its use: giving back less is not worth a
/// reallocation, and a small world whose use swings by more than the shrink factor from step to
/// step (a few objects moving, then none) then never reallocates either.
constexpr std::size_t kKeepBytes = std::size_t{16} << 10;

/// True iff memory of `bytes` bytes with room for `capacity` elements, `used` of them needed,
/// should be given back: more than kKeepBytes and less than 1/kShrinkBelowShare of it used.
[[nodiscard]] constexpr bool far_below(std::size_t used, std::size_t capacity, std::size_t bytes) noexcept {
  return bytes > kKeepBytes && used < capacity / kShrinkBelowShare;
}

/// The capacity memory found far_below() is given: kShrinkToMultiple times the use.
[[nodiscard]] constexpr std::size_t shrunk_capacity(std::size_t used) noexcept { return kShrinkToMultiple * used; }

/// Reallocates `v`, keeping its elements, to room for `capacity` of them. Out of line, cold, and
/// compiled once in slack_growth.cpp for the element types most arrays hold: it runs rarely, and
/// inlined where it is called it would use up the inlining GCC allows broadphase.cpp, whose hot
/// calls then stop being inlined (measured: set_box's and the tree queries' push_back, +10%
/// instructions on BM_broadphase/stream-20k).
template <class T>
[[gnu::noinline, gnu::cold]] void reallocate(std::vector<T>& v, std::size_t capacity) {
  std::vector<T> smaller;
  smaller.reserve(capacity);
  smaller.insert(smaller.end(), std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
  v.swap(smaller);
}

extern template void reallocate(std::vector<std::uint32_t>&, std::size_t);
extern template void reallocate(std::vector<std::uint64_t>&, std::size_t);
extern template void reallocate(std::vector<Box>&, std::size_t);
extern template void reallocate(std::vector<Pair>&, std::size_t);
extern template void reallocate(std::vector<std::vector<std::uint64_t>>&, std::size_t);

/// Heap memory an array holds.
template <class T>
[[nodiscard]] std::size_t heap_bytes(const std::vector<T>& v) noexcept {
  return v.capacity() * sizeof(T);
}

/// Reallocates `v`, keeping its elements, to shrunk_capacity(use) when far_below(use) its
/// capacity; `use` (at least v.size()) is what v must be ready to hold, such as the most it held
/// during the update or what the size of the world asks of it. O(1) unless it reallocates. True
/// iff it did.
template <class T>
bool shrink_if_far_below(std::vector<T>& v, std::size_t use) {
  use = std::max(use, v.size());
  if (!far_below(use, v.capacity(), v.capacity() * sizeof(T))) return false;
  reallocate(v, shrunk_capacity(use));
  return true;
}

}  // namespace agrid::detail
