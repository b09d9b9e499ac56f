#pragma once
// Query boxes and segments of every kind the tests ask a scene with.

#include <cstdint>
#include <span>
#include <vector>

#include "agrid/box.h"
#include "agrid/segment.h"

namespace agrid::test {

/// Query boxes of every kind the tests care about for a scene: random, huge, infinite,
/// zero-size, touching a box face or corner exactly, outside everything, and every invalid box
/// of the catalogue (agrid_scenes/adversarial.h).
[[nodiscard]] std::vector<Box> query_boxes(std::span<const Box> scene, std::uint32_t random_count,
                                           std::uint64_t seed);

/// Segments of every kind: random, zero-length, axis-aligned, along box faces and likely cell
/// boundaries, diagonals across the scene, long rays far outside, swept extents (also extents
/// not containing the origin), invalid ones.
[[nodiscard]] std::vector<Segment> query_segments(std::span<const Box> scene,
                                                  std::uint32_t random_count, std::uint64_t seed);

}  // namespace agrid::test
