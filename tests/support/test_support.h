#pragma once
// Shared helpers of the test suite: seeded random scenes, query generators, and comparisons
// that print a readable difference (never a million-element vector) when they fail.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "agrid/agrid.h"

namespace agrid {

// gtest finds these by argument-dependent lookup, so they live in the library's namespace.
void PrintTo(const Vec3& v, std::ostream* os);
void PrintTo(const Box& b, std::ostream* os);
void PrintTo(const Pair& p, std::ostream* os);
void PrintTo(const Segment& s, std::ostream* os);
void PrintTo(const Config& c, std::ostream* os);

}  // namespace agrid

namespace agrid::test {

/// A small, fast, fully specified generator (splitmix64): the same seed gives the same scene
/// on every platform and standard library.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) noexcept : state_(seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull) {}

  std::uint64_t next() noexcept {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) noexcept { return lo + (hi - lo) * uniform(); }
  /// Uniform in [0, n); n > 0.
  std::uint32_t below(std::uint32_t n) noexcept {
    return static_cast<std::uint32_t>(((next() >> 32) * n) >> 32);
  }
  /// True with probability p.
  bool chance(double p) noexcept { return uniform() < p; }

 private:
  std::uint64_t state_;
};

/// How crowded a random scene is: the typical box size relative to the mean spacing of the
/// box centres.
enum class Density { kVerySparse, kSparse, kMedium, kDense, kVeryDense };

/// "very_sparse", "sparse", ...
[[nodiscard]] std::string_view name(Density density);

/// `count` boxes of mixed sizes (points, tiny, typical, rods, a few spanning a large part of the
/// scene), some snapped to a lattice so that faces touch exactly. Deterministic in its arguments.
[[nodiscard]] std::vector<Box> random_scene(std::uint32_t count, Density density, std::uint64_t seed);

/// The bounds of the finite coordinates of the valid boxes ({0,0,0}-{1,1,1} if there are none).
[[nodiscard]] Box finite_bounds(std::span<const Box> boxes);

/// The bounds of the valid boxes whose coordinates are all within 1e6 of the origin ({0,0,0}-
/// {1,1,1} if there are none): where the scene's ordinary boxes are.
[[nodiscard]] Box core_bounds(std::span<const Box> boxes);

/// Query boxes of every kind the tests care about for a scene: random, huge, infinite,
/// zero-size, touching a box face or corner exactly, outside everything, invalid.
[[nodiscard]] std::vector<Box> query_boxes(std::span<const Box> scene, std::uint32_t random_count,
                                           std::uint64_t seed);

/// Segments of every kind: random, zero-length, axis-aligned, along box faces and likely cell
/// boundaries, diagonals across the scene, long rays far outside, swept extents (also extents
/// not containing the origin), invalid ones.
[[nodiscard]] std::vector<Segment> query_segments(std::span<const Box> scene,
                                                  std::uint32_t random_count, std::uint64_t seed);

/// Invalid boxes of every kind: NaN (quiet, negative, signalling) in each coordinate, min > max
/// on one or all axes (by one ulp, by a lot, +inf > -inf), and mixtures with infinities.
[[nodiscard]] std::vector<Box> invalid_box_kinds();

/// Valid boxes with extreme coordinates around a scene: infinite and half-infinite boxes,
/// +-1e18 planes (Bullet's static plane), +-FLT_MAX, denormals, boxes at 1e7 offsets, points at
/// infinity. `bounds` places some of them so that they cut through the scene.
[[nodiscard]] std::vector<Box> extreme_boxes(const Box& bounds);

/// `good` with `bad` inserted at seeded random positions. `position_of_good[i]` is where good[i]
/// ended up.
struct Mixed {
  std::vector<Box> boxes;
  std::vector<std::uint32_t> position_of_good;
};
[[nodiscard]] Mixed mix_in(std::span<const Box> good, std::span<const Box> bad, std::uint64_t seed);

/// Runs `work` in a tbb::task_arena of `threads` threads that really has them: an arena alone
/// gets no more workers than the machine has cores, so the process's limit is raised (with a
/// tbb::global_control) while it runs.
void in_arena(int threads, const std::function<void()>& work);

/// A Config from its knobs, named (aggregate initialisation would silently shift when the
/// struct gains a field).
[[nodiscard]] Config make_config(std::uint32_t leaf_capacity, std::uint32_t big_span,
                                 std::uint32_t sweep_threshold, float max_staying_share = Config{}.max_staying_share,
                                 float max_copies_per_box = Config{}.max_copies_per_box);

/// Configurations covering the knobs' extremes: every combination of leaf_capacity
/// {1, 2, 16, 1000}, big_span {1, 2}, sweep_threshold {2, 64, 100000}, and (max_staying_share,
/// max_copies_per_box) in {default, (0, 1), (1, 8)}.
[[nodiscard]] std::vector<Config> all_config_combinations();

/// A handful of configurations: the default and the extremes.
[[nodiscard]] std::vector<Config> some_configs();

/// "lc16_bs2_st128_sh25_cp300" (the two float knobs in hundredths).
[[nodiscard]] std::string name(const Config& config);

/// Success iff `actual` equals `expected` element by element; else the sizes, the first
/// difference, and some missing and extra pairs (with their boxes if `boxes` is given).
[[nodiscard]] ::testing::AssertionResult same_pairs(const std::vector<Pair>& expected,
                                                    const std::vector<Pair>& actual,
                                                    std::span<const Box> boxes = {});

/// Success iff `actual` equals `expected` element by element; else a readable difference.
[[nodiscard]] ::testing::AssertionResult same_indices(const std::vector<std::uint32_t>& expected,
                                                      const std::vector<std::uint32_t>& actual,
                                                      std::span<const Box> boxes = {});

/// Success iff every index appears at most once.
[[nodiscard]] ::testing::AssertionResult no_duplicates(std::vector<std::uint32_t> indices);

/// Everything Grid reports about pairs for `boxes` (find_pairs and for_each_pair) equals the
/// oracle's `expected`.
[[nodiscard]] ::testing::AssertionResult grid_pairs_match(Grid& grid, std::span<const Box> boxes,
                                                          const std::vector<Pair>& expected);

}  // namespace agrid::test
