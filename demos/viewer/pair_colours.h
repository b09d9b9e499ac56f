#pragma once
// The colour ramp of the "colour by pair count" mode: how many of the broadphase's pairs a body
// is in, from cold (none) to hot (kHotPairs or more).

#include <glm/vec3.hpp>

namespace agrid::viewer {

/// Pair counts from this on share the ramp's hottest colour: a body resting in a pile touches
/// about six neighbours, so more than that stands out.
inline constexpr int kHotPairs = 8;

/// The ramp's colour for a body in `pairs` pairs: blue (0), cyan, green, yellow, red (kHotPairs+).
[[nodiscard]] glm::vec3 pair_colour(int pairs);

}  // namespace agrid::viewer
