#pragma once
// The operations on boxes the library's internals share (the public ones, is_valid and overlaps,
// are in agrid/box.h): fat boxes (a box grown by a margin, which the incremental Broadphase and
// the Bullet adapter's fat pairs keep while the box stays inside), containment, a branch-free
// overlap test and bitwise sameness.
// Every function keeps infinite coordinates valid: no inf - inf, no NaN.

#include <algorithm>
#include <cmath>
#include <cstring>

#include "agrid/box.h"

namespace agrid::detail {

/// True iff every coordinate of the box is finite.
[[nodiscard]] inline bool is_finite(const Box& b) noexcept {
  return std::isfinite(b.min.x) && std::isfinite(b.min.y) && std::isfinite(b.min.z) && std::isfinite(b.max.x) &&
         std::isfinite(b.max.y) && std::isfinite(b.max.z);
}

/// `box` grown on every side by `margin` times its longest edge. An invalid box, a box with an
/// infinite coordinate (already unbounded on that axis: growing it could make inf - inf) and a
/// margin of 0 give the box itself. The growth itself may overflow to inf: the result is then
/// infinite on that side, which is still a valid box holding `box`.
[[nodiscard]] inline Box fattened(const Box& box, float margin) noexcept {
  if (margin == 0.0f || !is_valid(box) || !is_finite(box)) return box;
  const float grow = margin * std::max({box.max.x - box.min.x, box.max.y - box.min.y, box.max.z - box.min.z});
  return {{box.min.x - grow, box.min.y - grow, box.min.z - grow}, {box.max.x + grow, box.max.y + grow, box.max.z + grow}};
}

/// `box` grown on every side by `margin` (>= 0, finite). An invalid box gives itself; an infinite
/// coordinate stays infinite. Each side is rounded to the nearest float, so the result still
/// holds `box`.
[[nodiscard]] inline Box grown(const Box& box, float margin) noexcept {
  if (!is_valid(box)) return box;
  return {{box.min.x - margin, box.min.y - margin, box.min.z - margin}, {box.max.x + margin, box.max.y + margin, box.max.z + margin}};
}

/// True iff `inner` is valid and lies within `outer` (closed boxes).
[[nodiscard]] inline bool within(const Box& inner, const Box& outer) noexcept {
  return is_valid(inner) & (outer.min.x <= inner.min.x) & (outer.min.y <= inner.min.y) & (outer.min.z <= inner.min.z) &
         (inner.max.x <= outer.max.x) & (inner.max.y <= outer.max.y) & (inner.max.z <= outer.max.z);
}

/// True iff two valid boxes overlap (closed), without branches.
[[nodiscard]] inline bool boxes_meet(const Box& a, const Box& b) noexcept {
  return (a.min.x <= b.max.x) & (b.min.x <= a.max.x) & (a.min.y <= b.max.y) & (b.min.y <= a.max.y) &
         (a.min.z <= b.max.z) & (b.min.z <= a.max.z);
}

/// True iff the boxes are equal bit for bit: a NaN box set again counts as unchanged.
[[nodiscard]] inline bool same_box(const Box& a, const Box& b) noexcept { return std::memcmp(&a, &b, sizeof(Box)) == 0; }

}  // namespace agrid::detail
