#pragma once
// A box cut into convex pieces: the Voronoi cells of a set of sites, for BenchmarkDemo's convex
// pack (bench-8), generated here rather than read from the demo's tables.

#include <cstdint>
#include <span>
#include <vector>

#include <btBulletDynamicsCommon.h>

namespace agrid::scenes::detail {

/// A convex piece of a box.
struct ConvexCell {
  std::vector<btVector3> corners;  ///< Relative to the centroid, each once.
  btVector3 centroid;              ///< Where the piece is in the box.
  double volume = 0;
};

/// The Voronoi cell of each site (in the sites' order) inside the box [lo, hi]: the points of
/// the box nearer to that site than to any other. Sites must lie inside the box, apart.
[[nodiscard]] std::vector<ConvexCell> voronoi_cells(std::span<const btVector3> sites, const btVector3& lo,
                                                    const btVector3& hi);

/// The first `count` points of the Halton sequence in bases 2, 3 and 5 (from index 1: index 0
/// is a corner), scaled into [lo, hi): well spread, and the same every time.
[[nodiscard]] std::vector<btVector3> halton_points(std::uint32_t count, const btVector3& lo, const btVector3& hi);

}  // namespace agrid::scenes::detail
