// Random boxes and moves (agrid_scenes/boxes.h).

#include "agrid_scenes/boxes.h"

#include <algorithm>
#include <cmath>

namespace agrid::scenes {

Vec3 point_in(Random& rng, Vec3 lo, Vec3 hi) {
  // One statement per axis fixes the order of the draws.
  Vec3 p;
  p.x = rng.uniform(lo.x, hi.x);
  p.y = rng.uniform(lo.y, hi.y);
  p.z = rng.uniform(lo.z, hi.z);
  return p;
}

Box box_from(Vec3 min, Vec3 size) {
  const auto add = [](float a, float b) { return static_cast<float>(static_cast<double>(a) + static_cast<double>(b)); };
  return {min, {add(min.x, size.x), add(min.y, size.y), add(min.z, size.z)}};
}

Box box_around(Random& rng, Vec3 centre, Edges edges) {
  const Vec3 edge = point_in(rng, {edges.shortest, edges.shortest, edges.shortest}, {edges.longest, edges.longest, edges.longest});
  const Vec3 half{edge.x / 2, edge.y / 2, edge.z / 2};
  return {{centre.x - half.x, centre.y - half.y, centre.z - half.z}, {centre.x + half.x, centre.y + half.y, centre.z + half.z}};
}

Box box_in(Random& rng, Vec3 lo, Vec3 hi, Edges edges) {
  const Vec3 min = point_in(rng, lo, hi);
  return box_from(min, point_in(rng, {edges.shortest, edges.shortest, edges.shortest}, {edges.longest, edges.longest, edges.longest}));
}

Box box_in_cube(Random& rng, float side, Edges edges) { return box_in(rng, {0, 0, 0}, {side, side, side}, edges); }

Box moved(const Box& box, Vec3 by) {
  return {{box.min.x + by.x, box.min.y + by.y, box.min.z + by.z}, {box.max.x + by.x, box.max.y + by.y, box.max.z + by.z}};
}

Box nudged(Random& rng, const Box& box, float reach) { return moved(box, point_in(rng, {-reach, -reach, -reach}, {reach, reach, reach})); }

float cube_side(std::uint32_t count, float spacing) {
  return static_cast<float>(static_cast<double>(spacing) * std::cbrt(static_cast<double>(count)));
}

namespace {

/// The least n with n^power >= count (at least 1).
std::uint32_t lattice_side(std::uint32_t count, int power) {
  const double root = power == 2 ? std::sqrt(static_cast<double>(count)) : std::cbrt(static_cast<double>(count));
  auto side = static_cast<std::uint32_t>(std::ceil(root));
  // The root of a power may come out a rounding step above it, and ceil one too many.
  const auto fits = [&](std::uint32_t n) { return std::pow(static_cast<double>(n), power) >= static_cast<double>(count); };
  while (side > 1 && fits(side - 1)) --side;
  return std::max<std::uint32_t>(side, 1);
}

float at(std::uint32_t step, float spacing) { return spacing * static_cast<float>(step); }

}  // namespace

std::uint32_t square_lattice_side(std::uint32_t count) { return lattice_side(count, 2); }

std::uint32_t cube_lattice_side(std::uint32_t count) { return lattice_side(count, 3); }

Vec3 square_lattice_point(std::uint32_t index, std::uint32_t count, float spacing) {
  const std::uint32_t side = square_lattice_side(count);
  return {at(index % side, spacing), 0.0f, at(index / side, spacing)};
}

Vec3 cube_lattice_point(std::uint32_t index, std::uint32_t count, float spacing) {
  const std::uint32_t side = cube_lattice_side(count);
  return {at(index % side, spacing), at(index / (side * side), spacing), at(index / side % side, spacing)};
}

}  // namespace agrid::scenes
