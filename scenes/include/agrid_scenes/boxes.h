#pragma once
// Random boxes and moves, and lattices: the pieces of the scenes of the benchmarks
// (agrid_scenes/step_scenes.h), the Broadphase's tests, the Bullet worlds (static-city's lots,
// the pile's lattice) and the scene library's own. Each random one draws from a Random
// (agrid_scenes/random.h) in a fixed order: x, then y, then z.

#include <cstdint>

#include "agrid/box.h"
#include "agrid_scenes/random.h"

namespace agrid::scenes {

/// The shortest and longest edge of a random box, drawn uniformly on each axis.
struct Edges {
  float shortest;  ///< The least edge.
  float longest;   ///< The greatest edge (not reached: uniform in [shortest, longest)).
};

/// A point uniform in [lo, hi) on each axis.
[[nodiscard]] Vec3 point_in(Random& rng, Vec3 lo, Vec3 hi);

/// The box [min, min + size], each sum taken in double and rounded once to float.
[[nodiscard]] Box box_from(Vec3 min, Vec3 size);

/// A box of random edges centred at `centre`.
[[nodiscard]] Box box_around(Random& rng, Vec3 centre, Edges edges);

/// A box of random edges whose min corner is uniform in [lo, hi).
[[nodiscard]] Box box_in(Random& rng, Vec3 lo, Vec3 hi, Edges edges);

/// A box of random edges whose min corner is uniform in [0, side)^3.
[[nodiscard]] Box box_in_cube(Random& rng, float side, Edges edges);

/// `box` moved by `by`.
[[nodiscard]] Box moved(const Box& box, Vec3 by);

/// `box` moved by a random offset, uniform in [-reach, reach) on each axis.
[[nodiscard]] Box nudged(Random& rng, const Box& box, float reach);

/// The side of a cube in which `count` points are `spacing` apart on average.
[[nodiscard]] float cube_side(std::uint32_t count, float spacing);

/// The points a side of a square lattice of `count` points: the least n with n^2 >= count.
[[nodiscard]] std::uint32_t square_lattice_side(std::uint32_t count);

/// The points a side of a cubic lattice of `count` points: the least n with n^3 >= count.
[[nodiscard]] std::uint32_t cube_lattice_side(std::uint32_t count);

/// The `index`-th of `count` points on a square lattice in x and z, `spacing` apart from the
/// origin, square_lattice_side(count) a side, filled along x first (y is 0): static-city's lots.
[[nodiscard]] Vec3 square_lattice_point(std::uint32_t index, std::uint32_t count, float spacing);

/// The `index`-th of `count` points on a cubic lattice, `spacing` apart from the origin,
/// cube_lattice_side(count) a side, filled along x, then z, then y: the pile's layers.
[[nodiscard]] Vec3 cube_lattice_point(std::uint32_t index, std::uint32_t count, float spacing);

}  // namespace agrid::scenes
