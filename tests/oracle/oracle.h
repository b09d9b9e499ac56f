#pragma once
// The test oracle: obviously-correct brute-force answers for everything the library computes.
//
// Written independently of the library on purpose. It uses only the value types (Box, Pair,
// Segment) and agrid::hits, which by design is the single definition of a segment hit.

#include <cstdint>
#include <span>
#include <vector>

#include "agrid/box.h"
#include "agrid/pair.h"
#include "agrid/segment.h"

namespace agrid::oracle {

/// True iff no coordinate is NaN and min <= max on every axis (infinities allowed).
[[nodiscard]] bool valid(const Box& b) noexcept;

/// True iff both boxes are valid and intersect as closed boxes (touching counts).
[[nodiscard]] bool intersect(const Box& a, const Box& b) noexcept;

/// True iff both endpoints are finite and the extent is a valid box with finite coordinates.
[[nodiscard]] bool valid(const Segment& s) noexcept;

/// How many boxes are invalid.
[[nodiscard]] std::uint32_t count_invalid(std::span<const Box> boxes) noexcept;

/// All intersecting pairs by testing every pair: O(n^2). Sorted, first < second.
[[nodiscard]] std::vector<Pair> brute_force_pairs(std::span<const Box> boxes);

/// All intersecting pairs by a plain sort-and-sweep on x. Sorted, first < second.
[[nodiscard]] std::vector<Pair> sweep_pairs(std::span<const Box> boxes);

/// All intersecting pairs: brute force for small inputs, the sweep for large ones.
[[nodiscard]] std::vector<Pair> pairs(std::span<const Box> boxes);

/// Indices of the boxes intersecting `query`, ascending (empty for an invalid query).
[[nodiscard]] std::vector<std::uint32_t> query(std::span<const Box> boxes, const Box& query);

/// Indices of the valid boxes that agrid::hits(segment, box), ascending (empty for an invalid
/// segment).
[[nodiscard]] std::vector<std::uint32_t> query(std::span<const Box> boxes, const Segment& segment);

}  // namespace agrid::oracle
