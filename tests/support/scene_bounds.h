#pragma once
// Where a scene's boxes are: the bounds that test generators place their queries and extreme
// boxes around.

#include <span>

#include "agrid/box.h"

namespace agrid::test {

/// True iff `box` is valid and all its coordinates are within 1e6 of the origin: one of a
/// scene's ordinary boxes, not an infinite, enormous or far one.
[[nodiscard]] bool in_core(const Box& box);

/// The bounds of the finite coordinates of the valid boxes ({0,0,0}-{1,1,1} if there are none).
[[nodiscard]] Box finite_bounds(std::span<const Box> boxes);

/// The bounds of the boxes in_core ({0,0,0}-{1,1,1} if there are none): where the scene's
/// ordinary boxes are.
[[nodiscard]] Box core_bounds(std::span<const Box> boxes);

}  // namespace agrid::test
