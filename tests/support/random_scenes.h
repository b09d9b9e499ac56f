#pragma once
// Seeded random scenes of mixed boxes for the tests, and good boxes mixed with bad ones.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "agrid/box.h"
#include "agrid_scenes/random.h"

namespace agrid::test {

/// The tests' name for the scene library's generator.
using Rng = scenes::Random;

/// How crowded a random scene is: the typical box size relative to the mean spacing of the
/// box centres.
enum class Density { kVerySparse, kSparse, kMedium, kDense, kVeryDense };

/// "very_sparse", "sparse", ...
[[nodiscard]] std::string_view name(Density density);

/// `count` boxes of mixed sizes (points, tiny, typical, rods, a few spanning a large part of the
/// scene), some snapped to a lattice so that faces touch exactly. Deterministic in its arguments.
[[nodiscard]] std::vector<Box> random_scene(std::uint32_t count, Density density, std::uint64_t seed);

/// `good` with `bad` inserted at seeded random positions. `position_of_good[i]` is where good[i]
/// ended up.
struct Mixed {
  std::vector<Box> boxes;
  std::vector<std::uint32_t> position_of_good;
};
[[nodiscard]] Mixed mix_in(std::span<const Box> good, std::span<const Box> bad, std::uint64_t seed);

}  // namespace agrid::test
