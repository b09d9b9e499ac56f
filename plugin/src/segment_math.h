#pragma once
// The segment-against-box test in double precision: the one definition of "a segment meets a
// box" in agrid.

#include <algorithm>

#include "agrid/segment.h"

namespace agrid::detail {

/// A valid segment prepared for repeated tests against boxes: its points in double.
struct PreparedSegment {
  double origin[3];
  double end[3];        ///< `to`, exactly: rounding of the direction must not lengthen the segment.
  double direction[3];  ///< to - from, exact enough in double and always finite.
  double extent_lo[3];  ///< The swept box relative to the moving point.
  double extent_hi[3];
  double size;          ///< The largest magnitude among the points and the extent.

  double inverse[3];    ///< 1 / direction, or 0 where the direction is 0.
  double slab_lo[3];    ///< origin + extent_hi + tolerance: may_meet's shift of a box's min side.
  double slab_hi[3];    ///< origin + extent_lo - tolerance: ... and of its max side.

  explicit PreparedSegment(const Segment& s) noexcept;

  /// False only if meets() is false: the slab test of the segment against the box grown by
  /// far more than meets() may round (2^-30 of the segment's magnitude), a few multiplications
  /// where meets() clips and tests six axes. Queries run it first.
  [[nodiscard]] bool may_meet(const float lo[3], const float hi[3]) const noexcept {
    // A box side far beyond the segment's magnitude is far from the segment too, so its own
    // rounding cannot change the answer; near the segment, every rounding here is at most
    // 2^-52 of the segment's magnitude. Infinite sides give infinite parameters, never NaN.
    double enter = 0.0;
    double leave = 1.0;
    for (int a = 0; a < 3; ++a) {
      const double l = lo[a];
      const double h = hi[a];
      if (inverse[a] == 0.0) {  // the moving box stays put on this axis
        if (l > slab_lo[a] || h < slab_hi[a]) return false;
        continue;
      }
      const double t_lo = (l - slab_lo[a]) * inverse[a];  // its max side reaches the grown min side
      const double t_hi = (h - slab_hi[a]) * inverse[a];  // its min side passes the grown max side
      enter = std::max(enter, std::min(t_lo, t_hi));
      leave = std::min(leave, std::max(t_lo, t_hi));
    }
    return enter <= leave;
  }

  /// True iff the segment meets [b.min - extent_hi, b.max - extent_lo]; then *t_enter is the
  /// smallest parameter in [0, 1] where it does.
  bool meets(const Box& b, double* t_enter) const noexcept;

  /// A point of box `b` inside the swept box at parameter t, where `b` is hit first: the
  /// point a hit is attributed to when choosing the one cell that reports it.
  [[nodiscard]] Vec3 owner_point(const Box& b, double t) const noexcept;
};

}  // namespace agrid::detail
