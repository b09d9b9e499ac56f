// The scene library: every scene is built from one seeded Random stream (agrid_scenes/random.h),
// so the same name, scale and seed give bit-identical boxes on every compiler and standard
// library; its hard boxes come from the catalogue (agrid_scenes/adversarial.h).

#include "agrid_scenes/scenes.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <utility>

#include "agrid_scenes/adversarial.h"
#include "agrid_scenes/boxes.h"
#include "agrid_scenes/random.h"

namespace agrid::scenes {
namespace {

constexpr std::array<std::string_view, 11> kBenchmarkSceneNames = {
    "article-20k-sparse", "article-20k-dense", "article-40k-slab",      "uniform-1M",
    "box-pruning-10k",    "box-pruning-100k",  "paper-1M-dense",        "ball-cluster-500k",
    "plane-cluster-562k", "distant-clusters-500k", "teapot-stadium-500k"};

constexpr std::array<std::string_view, 9> kAdversarialSceneNames = {
    "all-identical",    "tiny-cluster", "far-offsets",
    "long-rods",        "zero-size",    "touching-lattice",
    "teapot-in-stadium", "bad-input",   "huge-and-infinite"};

/// The box-pruning benchmark's half-range: centres lie in [-2048, 2048)^3.
constexpr float kBoxPruningHalfRange = 2048.0f;

/// `base * scale` boxes, rounded, at least one.
std::uint32_t scaled_count(double base, double scale) {
  return static_cast<std::uint32_t>(std::max(1.0, std::round(base * scale)));
}

/// Shrinks a length with the cube root of the scale, so that scaled box counts keep their density.
float scaled_length(float length, double scale) {
  return static_cast<float>(static_cast<double>(length) * std::cbrt(scale));
}

Vec3 scaled_range(Vec3 range, double scale) {
  return {scaled_length(range.x, scale), scaled_length(range.y, scale),
          scaled_length(range.z, scale)};
}

/// A field of `count` boxes with min corners uniform in [0, side)^3 and sizes uniform in
/// [size_lo, size_hi) per axis.
void append_field(std::vector<Box>& boxes, Random& rng, std::uint32_t count, float side,
                  float size_lo, float size_hi) {
  for (std::uint32_t i = 0; i < count; ++i) {
    const Vec3 min = point_in(rng, {0, 0, 0}, {side, side, side});
    const Vec3 size = point_in(rng, {size_lo, size_lo, size_lo}, {size_hi, size_hi, size_hi});
    boxes.push_back(box_from(min, size));
  }
}

/// Fisher-Yates with our own generator, so that special boxes are spread through the input.
void shuffle(std::vector<Box>& boxes, Random& rng) {
  for (std::size_t i = boxes.size(); i > 1; --i) {
    const std::size_t j = rng.below(static_cast<std::uint32_t>(i));
    std::swap(boxes[i - 1], boxes[j]);
  }
}

Box cube(float lo, float hi) { return {{lo, lo, lo}, {hi, hi, hi}}; }

std::vector<Box> box_pruning_in(std::uint32_t count, float half_range, std::uint64_t seed) {
  constexpr float kMaxHalfExtent = 127.0f;
  Random rng(seed);
  std::vector<Box> boxes;
  boxes.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const Vec3 c = point_in(rng, {-half_range, -half_range, -half_range},
                                 {half_range, half_range, half_range});
    const Vec3 h = point_in(rng, {0, 0, 0}, {kMaxHalfExtent, kMaxHalfExtent, kMaxHalfExtent});
    boxes.push_back({{c.x - h.x, c.y - h.y, c.z - h.z}, {c.x + h.x, c.y + h.y, c.z + h.z}});
  }
  return boxes;
}

// ---- adversarial scenes -----------------------------------------------------------------

/// 2,000 copies of one box: every pair overlaps, and no split can separate them.
std::vector<Box> all_identical(double scale, std::uint64_t seed) {
  Random rng(seed);
  const Vec3 min = point_in(rng, {-100, -100, -100}, {100, 100, 100});
  const Box box = box_from(min, {1.0f, 0.5f, 2.0f});
  return std::vector<Box>(scaled_count(2000, scale), box);
}

/// 5,000 boxes of 1e-5..1e-4 inside one 1e-3 cube away from the origin: deep subdivision.
std::vector<Box> tiny_cluster(double scale, std::uint64_t seed) {
  constexpr float kSide = 1e-3f;
  constexpr float kSizeLo = 1e-5f;
  constexpr float kSizeHi = 1e-4f;
  const Vec3 corner{0.25f, -0.5f, 0.125f};
  Random rng(seed);
  const std::uint32_t count = scaled_count(5000, scale);
  std::vector<Box> boxes;
  boxes.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const Vec3 size = point_in(rng, {kSizeLo, kSizeLo, kSizeLo}, {kSizeHi, kSizeHi, kSizeHi});
    Vec3 min;
    min.x = corner.x + rng.uniform(0.0f, kSide - size.x);
    min.y = corner.y + rng.uniform(0.0f, kSide - size.y);
    min.z = corner.z + rng.uniform(0.0f, kSide - size.z);
    boxes.push_back(box_from(min, size));
  }
  return boxes;
}

/// Unit boxes in eight clusters up to 3e7 from the origin, where a float's step is 1 or 2:
/// sizes round to 0, 1 or 2 and coordinates are coarse. Overlaps occur inside clusters only.
std::vector<Box> far_offsets(double scale, std::uint64_t seed) {
  constexpr std::array<std::array<double, 3>, 8> kOffsets = {{{1e7, 0, 0},
                                                              {-1e7, 0, 0},
                                                              {0, 3e7, 0},
                                                              {0, 0, -3e7},
                                                              {1e7, 1e7, 1e7},
                                                              {-3e7, 1e7, -1e7},
                                                              {0, 0, 0},
                                                              {3e7, -3e7, 3e7}}};
  Random rng(seed);
  const std::uint32_t per_cluster = scaled_count(375, scale);
  const float width = scaled_length(16.0f, scale);
  std::vector<Box> boxes;
  boxes.reserve(per_cluster * kOffsets.size());
  for (std::uint32_t i = 0; i < per_cluster; ++i) {
    for (const auto& offset : kOffsets) {  // clusters interleaved in the input
      const Vec3 u = point_in(rng, {0, 0, 0}, {width, width, width});
      const std::array<double, 3> min = {offset[0] + u.x, offset[1] + u.y, offset[2] + u.z};
      const auto f = [](double v) { return static_cast<float>(v); };
      boxes.push_back({{f(min[0]), f(min[1]), f(min[2])},
                       {f(min[0] + 1.0), f(min[1] + 1.0), f(min[2] + 1.0)}});
    }
  }
  return boxes;
}

/// A field of small boxes crossed by thin rods spanning the whole scene along each axis:
/// each rod lands in every cell along its line.
std::vector<Box> long_rods(double scale, std::uint64_t seed) {
  constexpr float kThickness = 0.2f;
  Random rng(seed);
  const float side = scaled_length(40.0f, scale);
  std::vector<Box> boxes;
  append_field(boxes, rng, scaled_count(3000, scale), side, 0.5f, 2.0f);
  const std::uint32_t rods_per_axis = scaled_count(12, scale);
  for (int axis = 0; axis < 3; ++axis) {
    for (std::uint32_t i = 0; i < rods_per_axis; ++i) {
      const float a = rng.uniform(0.0f, side);
      const float b = rng.uniform(0.0f, side);
      std::array<float, 3> lo{};
      std::array<float, 3> hi{};
      lo[axis] = -1.0f;
      hi[axis] = side + 2.0f;
      lo[(axis + 1) % 3] = a;
      hi[(axis + 1) % 3] = a + kThickness;
      lo[(axis + 2) % 3] = b;
      hi[(axis + 2) % 3] = b + kThickness;
      boxes.push_back({{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}});
    }
  }
  shuffle(boxes, rng);
  return boxes;
}

/// Points (zero-size boxes) on an integer and half-integer lattice, so that many coincide and
/// many lie exactly on the faces, edges and corners of unit boxes on the same lattice; plus
/// flat boxes of zero thickness on one axis and exact copies of earlier points.
std::vector<Box> zero_size(double scale, std::uint64_t seed) {
  Random rng(seed);
  const auto side = static_cast<std::uint32_t>(std::max(2.0, std::round(12.0 * std::cbrt(scale))));
  const auto lattice = [&](std::uint32_t steps, float step) {
    Vec3 p;
    p.x = static_cast<float>(rng.below(steps)) * step;
    p.y = static_cast<float>(rng.below(steps)) * step;
    p.z = static_cast<float>(rng.below(steps)) * step;
    return p;
  };
  std::vector<Box> boxes;
  for (std::uint32_t i = 0, n = scaled_count(1000, scale); i < n; ++i) {
    const Vec3 p = lattice(side + 1, 1.0f);
    boxes.push_back({p, p});
  }
  for (std::uint32_t i = 0, n = scaled_count(600, scale); i < n; ++i) {
    const Vec3 p = lattice(2 * side + 1, 0.5f);
    boxes.push_back({p, p});
  }
  const std::size_t points = boxes.size();
  for (std::uint32_t i = 0, n = scaled_count(100, scale); i < n; ++i) {
    boxes.push_back(boxes[rng.below(static_cast<std::uint32_t>(points))]);
  }
  for (std::uint32_t i = 0, n = scaled_count(400, scale); i < n; ++i) {
    boxes.push_back(box_from(lattice(side, 1.0f), {1, 1, 1}));
  }
  for (std::uint32_t i = 0, n = scaled_count(200, scale); i < n; ++i) {
    Vec3 size{1, 1, 1};
    switch (rng.below(3)) {
      case 0: size.x = 0; break;
      case 1: size.y = 0; break;
      default: size.z = 0; break;
    }
    boxes.push_back(box_from(lattice(side, 1.0f), size));
  }
  shuffle(boxes, rng);
  return boxes;
}

/// Unit cubes filling an integer lattice: each touches its 26 neighbours exactly, by a face,
/// an edge or a corner, and every one of those contacts is a pair.
std::vector<Box> touching_lattice(double scale, std::uint64_t seed) {
  Random rng(seed);
  const auto n = static_cast<int>(std::max(1.0, std::round(14.0 * std::cbrt(scale))));
  std::vector<Box> boxes;
  boxes.reserve(static_cast<std::size_t>(n) * n * n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < n; ++k) {
        const Vec3 min{static_cast<float>(i - n / 2), static_cast<float>(j - n / 2),
                       static_cast<float>(k - n / 2)};
        boxes.push_back(box_from(min, {1, 1, 1}));
      }
    }
  }
  shuffle(boxes, rng);
  return boxes;
}

/// Valid boxes mixed with every kind of invalid box and every extreme but valid box of the
/// catalogue, each twice: identical extreme boxes must pair with each other too.
std::vector<Box> bad_input(double scale, std::uint64_t seed) {
  Random rng(seed);
  std::vector<Box> boxes;
  const float side = scaled_length(40.0f, scale);
  append_field(boxes, rng, scaled_count(1500, scale), side, 0.5f, 3.0f);
  std::vector<Box> special = invalid_boxes();
  const std::vector<Box> extreme = extreme_boxes(cube(0, side));
  special.insert(special.end(), extreme.begin(), extreme.end());
  for (int copy = 0; copy < 2; ++copy) boxes.insert(boxes.end(), special.begin(), special.end());
  shuffle(boxes, rng);
  return boxes;
}

/// A regular field under the catalogue's infinite and enormous boxes, some out at 1e30.
std::vector<Box> huge_and_infinite(double scale, std::uint64_t seed) {
  Random rng(seed);
  std::vector<Box> boxes;
  const float side = scaled_length(60.0f, scale);
  append_field(boxes, rng, scaled_count(2000, scale), side, 1.0f, 2.0f);
  const std::vector<Box> huge = huge_boxes(cube(0, side));
  boxes.insert(boxes.end(), huge.begin(), huge.end());
  shuffle(boxes, rng);
  return boxes;
}

/// The parallel sweep-and-prune paper's ball clustering scene at its densest: cubes of edge 1,
/// centres uniform inside a ball (rejection sampling, so the draws stay deterministic).
std::vector<Box> ball_cluster(std::uint32_t count, float radius, std::uint64_t seed) {
  Random rng(seed);
  std::vector<Box> boxes;
  boxes.reserve(count);
  while (boxes.size() < count) {
    const float x = rng.uniform(-radius, radius);
    const float y = rng.uniform(-radius, radius);
    const float z = rng.uniform(-radius, radius);
    if (x * x + y * y + z * z > radius * radius) continue;
    boxes.push_back(box_from({x - 0.5f, y - 0.5f, z - 0.5f}, {1, 1, 1}));
  }
  return boxes;
}

/// The paper's plane clustering scene: side x side cubes of edge 0.98 at x = i, z = j, all in
/// one layer (y uniform in [-0.01, 0.01]), almost touching: no pairs.
std::vector<Box> plane_cluster(std::uint32_t side, std::uint64_t seed) {
  Random rng(seed);
  std::vector<Box> boxes;
  boxes.reserve(std::size_t{side} * side);
  for (std::uint32_t i = 0; i < side; ++i) {
    for (std::uint32_t j = 0; j < side; ++j) {
      const float y = rng.uniform(-0.01f, 0.01f);
      boxes.push_back(box_from({static_cast<float>(i) - 0.49f, y - 0.49f, static_cast<float>(j) - 0.49f}, {0.98f, 0.98f, 0.98f}));
    }
  }
  return boxes;
}

/// Far apart, the centres of distant-clusters-500k's four balls (a tetrahedron's corners).
constexpr float kClusterDistance = 5000.0f;
/// Half the side of teapot-stadium-500k's stadium, and the boxes spread over it.
constexpr float kStadiumHalfSide = 50000.0f;
constexpr double kStadiumBoxes = 2000;

/// `count` unit cubes in four balls of `radius` each, kClusterDistance apart.
std::vector<Box> distant_clusters(std::uint32_t count, float radius, std::uint64_t seed) {
  const Vec3 centres[4] = {{0, 0, 0}, {kClusterDistance, 0, 0}, {0, kClusterDistance, 0}, {0, 0, kClusterDistance}};
  std::vector<Box> boxes;
  boxes.reserve(count);
  for (std::uint32_t k = 0; k < 4; ++k) {
    const std::uint32_t share = count / 4 + (k < count % 4 ? 1u : 0u);
    for (Box b : ball_cluster(share, radius, seed + k)) {
      b.min = {b.min.x + centres[k].x, b.min.y + centres[k].y, b.min.z + centres[k].z};
      b.max = {b.max.x + centres[k].x, b.max.y + centres[k].y, b.max.z + centres[k].z};
      boxes.push_back(b);
    }
  }
  return boxes;
}

/// `count` unit cubes in a ball of `radius` (the teapot), then `stadium` unit cubes uniform in
/// a cube of half-side kStadiumHalfSide around it.
std::vector<Box> teapot_stadium(std::uint32_t count, float radius, std::uint32_t stadium, std::uint64_t seed) {
  std::vector<Box> boxes = ball_cluster(count, radius, seed);
  Random rng(seed + 1);
  for (std::uint32_t i = 0; i < stadium; ++i) {
    const Vec3 c = point_in(rng, {-kStadiumHalfSide, -kStadiumHalfSide, -kStadiumHalfSide},
                                 {kStadiumHalfSide, kStadiumHalfSide, kStadiumHalfSide});
    boxes.push_back(box_from({c.x - 0.5f, c.y - 0.5f, c.z - 0.5f}, {1, 1, 1}));
  }
  return boxes;
}

}  // namespace

std::vector<Box> article(std::uint32_t count, Vec3 range, std::uint64_t seed) {
  constexpr float kBelow = 2.5f;  // a box spans [c - 2.5, c + 1.5], as in the article
  constexpr float kAbove = 1.5f;
  constexpr float kTeapot = 9000.0f;
  Random rng(seed);
  std::vector<Box> boxes;
  boxes.reserve(static_cast<std::size_t>(count) + 3);
  const auto around = [&](Vec3 c) {
    boxes.push_back({{c.x - kBelow, c.y - kBelow, c.z - kBelow}, {c.x + kAbove, c.y + kAbove, c.z + kAbove}});
  };
  for (std::uint32_t i = 0; i < count; ++i) around(point_in(rng, {0, 0, 0}, range));
  for (int k = 0; k < 3; ++k) {
    const float c = kTeapot + static_cast<float>(k);
    around({c, c, c});
  }
  return boxes;
}

std::vector<Box> box_pruning(std::uint32_t count, std::uint64_t seed) {
  return box_pruning_in(count, kBoxPruningHalfRange, seed);
}

std::span<const std::string_view> benchmark_scene_names() { return kBenchmarkSceneNames; }

std::span<const std::string_view> adversarial_scene_names() { return kAdversarialSceneNames; }

Scene make_scene(std::string_view name, double scale, std::uint64_t seed) {
  if (!(scale > 0.0 && scale <= 1.0)) {
    throw std::invalid_argument("agrid::scenes::make_scene: scale must be in (0, 1]");
  }
  Scene scene{std::string(name), {}};
  auto& b = scene.boxes;
  const auto article_scene = [&](double count, Vec3 range) {
    return article(scaled_count(count, scale), scaled_range(range, scale), seed);
  };
  const auto box_pruning_scene = [&](double count) {
    return box_pruning_in(scaled_count(count, scale), scaled_length(kBoxPruningHalfRange, scale), seed);
  };
  if (name == "article-20k-sparse") b = article_scene(20001, {900, 900, 900});
  else if (name == "article-20k-dense") b = article_scene(20001, {150, 150, 150});
  else if (name == "article-40k-slab") b = article_scene(40001, {1500, 150, 150});
  else if (name == "uniform-1M") b = article_scene(1000000, {1000, 1000, 1000});
  else if (name == "box-pruning-10k") b = box_pruning_scene(10000);
  else if (name == "box-pruning-100k") b = box_pruning_scene(100000);
  else if (name == "paper-1M-dense") b = article_scene(1000000, {567.5f, 567.5f, 567.5f});
  else if (name == "ball-cluster-500k") b = ball_cluster(scaled_count(524288, scale), scaled_length(60.0f, scale), seed);
  else if (name == "plane-cluster-562k") b = plane_cluster(static_cast<std::uint32_t>(std::max(1.0, std::round(750.0 * std::sqrt(scale)))), seed);
  else if (name == "distant-clusters-500k") b = distant_clusters(scaled_count(524288, scale), scaled_length(60.0f / std::cbrt(4.0f), scale), seed);
  else if (name == "teapot-stadium-500k") b = teapot_stadium(scaled_count(500000, scale), scaled_length(50.0f, scale), scaled_count(kStadiumBoxes, scale), seed);
  else if (name == "all-identical") b = all_identical(scale, seed);
  else if (name == "tiny-cluster") b = tiny_cluster(scale, seed);
  else if (name == "far-offsets") b = far_offsets(scale, seed);
  else if (name == "long-rods") b = long_rods(scale, seed);
  else if (name == "zero-size") b = zero_size(scale, seed);
  else if (name == "touching-lattice") b = touching_lattice(scale, seed);
  else if (name == "teapot-in-stadium") b = article_scene(2000, {70, 70, 70});
  else if (name == "bad-input") b = bad_input(scale, seed);
  else if (name == "huge-and-infinite") b = huge_and_infinite(scale, seed);
  else throw std::invalid_argument("agrid::scenes::make_scene: unknown scene \"" + std::string(name) + "\"");
  return scene;
}

}  // namespace agrid::scenes
