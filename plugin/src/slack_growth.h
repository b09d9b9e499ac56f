#pragma once
// grow_for_one: room for one more element with a quarter's slack, where std::vector would double:
// the incremental Broadphase's arrays hold the whole world, so doubling would hold up to twice it.

#include <cstddef>
#include <vector>

namespace agrid::detail {

/// The slack grow_for_one() adds: a quarter of the size (with at least kMinSlack elements).
constexpr std::size_t kSlackDivisor = 4;
constexpr std::size_t kMinSlack = 16;

/// Makes room for one more element of `v`, growing its capacity by a quarter when full.
template <class T>
void grow_for_one(std::vector<T>& v) {
  if (v.size() == v.capacity()) v.reserve(v.size() + v.size() / kSlackDivisor + kMinSlack);
}

}  // namespace agrid::detail
