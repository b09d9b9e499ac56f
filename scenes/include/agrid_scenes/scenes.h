#pragma once
// The scene library shared by tests, benchmarks and demos: seeded, deterministic box sets.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "agrid/box.h"

namespace agrid::scenes {

/// A named set of boxes.
struct Scene {
  std::string name;
  std::vector<Box> boxes;
};

/// The seed article's scene: `count` boxes spanning [c-2.5, c+1.5] per axis with centres c
/// uniform in [0, range.x) x [0, range.y) x [0, range.z), plus 3 boxes of the same size at
/// c = 9000, 9001, 9002 (the "teapot in a stadium"). count + 3 boxes in all.
[[nodiscard]] std::vector<Box> article(std::uint32_t count, Vec3 range, std::uint64_t seed);

/// The box-pruning benchmark: centres uniform in [-2048, 2048)^3, half-extents uniform in
/// [0, 127) per axis.
[[nodiscard]] std::vector<Box> box_pruning(std::uint32_t count, std::uint64_t seed);

/// Names of the benchmark scenes, in the order the issues list them:
/// article-20k-sparse, article-20k-dense, article-40k-slab, uniform-1M, box-pruning-10k,
/// box-pruning-100k (issue 2); paper-1M-dense (uniform-1M's boxes in [0, 567.5)^3),
/// ball-cluster-500k (524,288 unit cubes in a ball of radius 60), plane-cluster-562k (750 x 750
/// cubes of edge 0.98 in one layer, no pairs) (issue 3); and two clustered scenes for the
/// tree of grids' load balance: distant-clusters-500k (four balls of 131,072 unit cubes, each
/// as dense as ball-cluster-500k, 5,000 apart) and teapot-stadium-500k (500,000 unit cubes in a
/// ball of radius 50, and 2,000 spread over a stadium 100,000 across). Scaled, the plane keeps
/// its spacing and shrinks its side with the square root of the scale.
[[nodiscard]] std::span<const std::string_view> benchmark_scene_names();

/// Names of the adversarial scenes the tests run: all-identical, tiny-cluster, far-offsets,
/// long-rods, zero-size, touching-lattice, teapot-in-stadium, bad-input, huge-and-infinite.
[[nodiscard]] std::span<const std::string_view> adversarial_scene_names();

/// Makes the named scene (benchmark or adversarial). `scale` in (0, 1] shrinks box counts
/// (for tests) while keeping the density of the benchmark scenes; the same name, scale and
/// seed always give the same boxes. Throws std::invalid_argument for an unknown name.
[[nodiscard]] Scene make_scene(std::string_view name, double scale = 1.0, std::uint64_t seed = 1);

}  // namespace agrid::scenes
