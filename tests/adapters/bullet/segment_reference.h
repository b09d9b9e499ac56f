#pragma once
// A segment-box reference for the btScalar tests: slabs in long double, which neither float nor
// double Bullet rounds like, so that agrid's float queries are checked against the btScalar truth.

#include <LinearMath/btVector3.h>

#include <algorithm>
#include <utility>

namespace agrid::test {

/// True iff the closed segment from `a` to `b` meets the closed box [lo, hi].
inline bool segment_meets(const btVector3& a, const btVector3& b, const btVector3& lo, const btVector3& hi) {
  long double t0 = 0;
  long double t1 = 1;
  for (int axis = 0; axis < 3; ++axis) {
    const long double from = a[axis];
    const long double d = static_cast<long double>(b[axis]) - from;
    if (d == 0) {
      if (from < lo[axis] || from > hi[axis]) return false;
      continue;
    }
    long double enter = (lo[axis] - from) / d;
    long double leave = (hi[axis] - from) / d;
    if (enter > leave) std::swap(enter, leave);
    t0 = std::max(t0, enter);
    t1 = std::min(t1, leave);
  }
  return t0 <= t1;
}

}  // namespace agrid::test
