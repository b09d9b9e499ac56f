#pragma once
// Segment: a line segment, optionally sweeping a box, and the test of it against a box.

#include "agrid/box.h"

namespace agrid {

/// The segment from `from` to `to`, sweeping the box `extent` placed relative to the moving
/// point (Bullet's rayTest aabbMin/aabbMax). The default extent {0,0,0}-{0,0,0} is a plain ray.
struct Segment {
  Vec3 from;        ///< Where the segment starts.
  Vec3 to;          ///< Where the segment ends.
  Box extent = {};  ///< The box swept along, relative to the moving point; all zero for a ray.
};

/// True iff the segment's endpoints are finite and its extent is a valid, finite box.
/// Queries with an invalid segment report nothing.
[[nodiscard]] bool is_valid(const Segment& s) noexcept;

/// True iff the valid segment `s` meets the valid box `b` grown by the extent, that is
/// [b.min - extent.max, b.max - extent.min], as closed boxes, computed in double precision with
/// rounding relative to the segment's own size (whatever the box's). This single function decides
/// every segment hit in agrid, so queries agree exactly with a brute-force loop over it.
[[nodiscard]] bool hits(const Segment& s, const Box& b) noexcept;

}  // namespace agrid
