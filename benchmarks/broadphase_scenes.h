#pragma once
// The random boxes and rays of the incremental-broadphase benchmarks, shared by
// bench_broadphase.cpp (agrid::Broadphase) and its Bullet peer in bench_bullet.cpp, so that both
// time the same scene. std::mt19937_64 with fixed seeds, turned into numbers here (std::
// distributions differ between standard libraries; the engine does not).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "agrid/box.h"
#include "agrid/segment.h"

namespace agrid::bench {

/// Shortest and longest box edge, drawn uniformly on each axis.
constexpr float kMinEdge = 0.5f;
constexpr float kMaxEdge = 2.0f;

/// Seeds of the ray benchmark's boxes and of its rays.
constexpr std::uint64_t kRayBoxSeed = 3;
constexpr std::uint64_t kRaySeed = 4;
/// Static boxes of the ray benchmark, and rays cast per iteration.
constexpr std::size_t kRayBoxes = 50000;
constexpr std::size_t kRays = 500;

/// Uniform float in [lo, hi], from the generator's top 24 bits.
inline float uniform(std::mt19937_64& rng, float lo, float hi) {
  const float fraction = static_cast<float>(rng() >> 40) * 0x1.0p-24f;
  return lo + (hi - lo) * fraction;
}

/// Uniform integer in [0, n).
inline std::uint32_t below(std::mt19937_64& rng, std::uint32_t n) {
  return static_cast<std::uint32_t>(((rng() >> 32) * n) >> 32);
}

/// Side of a cube in which `count` boxes have about one overlap each (pairs ~ count): two boxes
/// overlap on an axis with probability E[edge_a + edge_b] / side, so count^2 / 2 * (E[a + b] /
/// side)^3 = count. Boxes at the faces have fewer neighbours, hence "about".
inline float one_overlap_side(std::size_t count) {
  const double mean_edge_sum = static_cast<double>(kMinEdge) + static_cast<double>(kMaxEdge);
  return static_cast<float>(mean_edge_sum * std::cbrt(static_cast<double>(count) / 2.0));
}

/// A box of random edges centred at `center`.
inline Box box_around(std::mt19937_64& rng, Vec3 center) {
  const Vec3 half{uniform(rng, kMinEdge, kMaxEdge) / 2, uniform(rng, kMinEdge, kMaxEdge) / 2,
                  uniform(rng, kMinEdge, kMaxEdge) / 2};
  return {{center.x - half.x, center.y - half.y, center.z - half.z},
          {center.x + half.x, center.y + half.y, center.z + half.z}};
}

/// A random point of the box [lo, hi].
inline Vec3 point_in(std::mt19937_64& rng, Vec3 lo, Vec3 hi) {
  const float x = uniform(rng, lo.x, hi.x);
  const float y = uniform(rng, lo.y, hi.y);
  return {x, y, uniform(rng, lo.z, hi.z)};
}

/// `count` boxes centred uniformly in the cube [0, side]^3.
inline std::vector<Box> boxes_in_cube(std::mt19937_64& rng, std::size_t count, float side) {
  std::vector<Box> boxes;
  boxes.reserve(count);
  for (std::size_t i = 0; i < count; ++i) boxes.push_back(box_around(rng, point_in(rng, {}, {side, side, side})));
  return boxes;
}

/// The ray benchmark's static boxes: kRayBoxes at one overlap a box.
inline std::vector<Box> ray_scene_boxes() {
  std::mt19937_64 rng(kRayBoxSeed);
  return boxes_in_cube(rng, kRayBoxes, one_overlap_side(kRayBoxes));
}

/// The ray benchmark's rays: kRays segments between random points of the same cube.
inline std::vector<Segment> ray_scene_rays() {
  std::mt19937_64 rng(kRaySeed);
  const float side = one_overlap_side(kRayBoxes);
  std::vector<Segment> rays;
  rays.reserve(kRays);
  for (std::size_t i = 0; i < kRays; ++i) {
    const Vec3 from = point_in(rng, {}, {side, side, side});
    rays.push_back({from, point_in(rng, {}, {side, side, side}), {}});
  }
  return rays;
}

}  // namespace agrid::bench
