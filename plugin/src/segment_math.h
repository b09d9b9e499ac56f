#pragma once
// The segment-against-box test in double precision: the one definition of "a segment meets a
// box" in agrid.

#include <cstdint>

#include "agrid/segment.h"

namespace agrid::detail {

/// A valid segment prepared for repeated tests against boxes: its points in double.
struct PreparedSegment {
  double origin[3];
  double end[3];        ///< `to`, exactly: rounding of the direction must not lengthen the segment.
  double direction[3];  ///< to - from, exact enough in double and always finite.
  double extent_lo[3];  ///< The swept box relative to the moving point.
  double extent_hi[3];

  double inverse[3];    ///< 1 / direction, or 0 where the direction is 0.
  double tolerance;     ///< What may_meet() adds to every box: far over any rounding of meets().

  explicit PreparedSegment(const Segment& s) noexcept;

  /// False only if meets() is false: a slab test on the box grown by `tolerance`, a few
  /// multiplications where meets() clips and tests six axes. Queries run it first.
  [[nodiscard]] bool may_meet(const Box& b) const noexcept;

  /// True iff the segment meets [lo - extent_hi, hi - extent_lo]; then *t_enter is the
  /// smallest parameter in [0, 1] where it does.
  bool meets(const double lo[3], const double hi[3], double* t_enter) const noexcept;

  /// meets() for a float box.
  bool meets(const Box& b, double* t_enter) const noexcept;

  /// A point of box `b` inside the swept box at parameter t, where `b` is hit first: the
  /// point a hit is attributed to when choosing the one cell that reports it.
  [[nodiscard]] Vec3 owner_point(const Box& b, double t) const noexcept;
};

}  // namespace agrid::detail
