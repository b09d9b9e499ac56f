#pragma once
// The catalogue of hard input, the one place that lists it: invalid boxes, valid boxes with
// extreme coordinates, and the coordinates that broke broadphases before. The bad-input and
// huge-and-infinite scenes, the tests and the fuzz targets all take theirs from here.

#include <array>
#include <cfloat>
#include <limits>
#include <vector>

#include "agrid/box.h"

namespace agrid::scenes {

/// Coordinates that broke broadphases before: NaN, the infinities, +-1e30, +-FLT_MAX, denormals,
/// -0, 1e-30 and FLT_MIN (products underflow), +-4e19 (squares overflow), 2^24 (where a float's
/// step becomes 2) and 0.1 (no float holds it). The fuzz corpora index it: append, never reorder.
inline constexpr std::array<float, 16> kSpecialCoordinates = {
    std::numeric_limits<float>::quiet_NaN(),
    std::numeric_limits<float>::infinity(),
    -std::numeric_limits<float>::infinity(),
    1e30f,
    -1e30f,
    FLT_MAX,
    -FLT_MAX,
    std::numeric_limits<float>::denorm_min(),
    -0.0f,
    1e-30f,
    FLT_MIN,
    4e19f,
    -4e19f,
    16777216.0f,
    0.1f,
    -std::numeric_limits<float>::denorm_min()};

/// Invalid boxes of every kind: a NaN (quiet, negative, signalling) in each coordinate, all NaN,
/// NaN beside infinities and planes; min > max on one or all axes (by a lot, by one ulp, +inf >
/// -inf, between denormals and zeros, +-FLT_MAX, +-1e18); and both at once.
[[nodiscard]] std::vector<Box> invalid_boxes();

/// Valid infinite and enormous boxes, placed so that many cut through `bounds`: all of space,
/// half-spaces, octants, infinite slabs, rods and lines, boxes infinite on one side only,
/// Bullet's +-1e18 static planes, +-FLT_MAX boxes, boxes out to and at 1e30 (a chain of them
/// overlapping there, one touching another's face, one whose size rounds away).
[[nodiscard]] std::vector<Box> huge_boxes(const Box& bounds);

/// Valid boxes with extreme small or far coordinates: denormals and signed zeros around the
/// origin (a [0, -0] point among them), points and faces at infinity and at +-FLT_MAX, touching
/// boxes at 1e7 where a float's step is 1, a point at 3e30. `bounds` places the faces.
[[nodiscard]] std::vector<Box> tiny_and_far_boxes(const Box& bounds);

/// Every extreme but valid box: huge_boxes, then tiny_and_far_boxes.
[[nodiscard]] std::vector<Box> extreme_boxes(const Box& bounds);

}  // namespace agrid::scenes
