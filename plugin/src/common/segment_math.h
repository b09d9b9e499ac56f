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

/// A prepared segment's conservative form in floats, for testing the box tree's nodes four
/// children at once: may_meet() of a node box is false only if the segment misses that box.
/// The box is first clipped to the segment's swept bounds (which changes nothing, as the swept
/// path lies inside them, and keeps every number finite), then slab-tested in floats against
/// the box grown by kNodeTolerance of the segment's magnitude: far more than the floats' own
/// rounding here (a few 2^-24 of that magnitude in space, and of the parameters' values), so
/// no rounding turns a hit into a miss. The exact test (PreparedSegment::meets) decides.
struct NodeSegment {
  /// How much the node test grows a box, relative to the segment's magnitude (2^-16, some 256
  /// of the floats' rounding steps at that magnitude).
  static constexpr double kNodeTolerance = 0x1p-16;

  float clip_lo[3];   ///< The swept bounds, grown and rounded outward.
  float clip_hi[3];
  float slab_lo[3];   ///< origin + extent_hi + tolerance, as PreparedSegment::slab_lo.
  float slab_hi[3];   ///< origin + extent_lo - tolerance.
  float inverse[3];   ///< 1 / direction where the axis is swept; unused on a still axis.
  bool still[3];      ///< The direction moves less than the tolerance on this axis: its clip
                      ///< bounds alone decide it.

  explicit NodeSegment(const PreparedSegment& s) noexcept;
};

}  // namespace agrid::detail
