#pragma once
// Random: the one generator of the scene library and of what uses it: the tests, the benchmarks
// (agrid_scenes/step_scenes.h, the Bullet worlds), the demos. (The README's example programs,
// which a user copies alone, and FCL's tests and benchmark use std::mt19937.)
// xoshiro256** seeded through splitmix64 (Blackman and Vigna), with our own integer -> number
// mappings, so that a seed gives bit-identical draws on every compiler and standard library
// (std:: engines are portable, std:: distributions are not).

#include <array>
#include <cmath>
#include <cstdint>

namespace agrid::scenes {

/// A small, fast, fully specified generator: the same seed gives the same numbers everywhere.
class Random {
 public:
  /// A generator whose state is four splitmix64 draws from `seed` (its authors' recommendation:
  /// nearby seeds give unrelated streams).
  explicit Random(std::uint64_t seed) noexcept {
    for (auto& word : state_) word = splitmix64(seed);
  }

  /// The next 64 random bits.
  std::uint64_t next() noexcept {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  /// Uniform float in [lo, hi) (lo itself if hi <= lo), from a float-exact fraction.
  float uniform(float lo, float hi) noexcept {
    if (!(lo < hi)) return lo;
    // Separate statements keep a compiler from fusing the multiply-add, which would change the
    // rounding on some targets.
    const double fraction = static_cast<double>(next() >> (kWordBits - kFloatFractionBits)) * kFloatStep;
    const double width = static_cast<double>(hi) - static_cast<double>(lo);
    const double offset = width * fraction;
    const float value = static_cast<float>(static_cast<double>(lo) + offset);
    // Rounding to float can land on hi itself; the interval is half-open.
    return value < hi ? value : std::nextafter(hi, lo);
  }

  /// Uniform double in [0, 1).
  double uniform() noexcept {
    return static_cast<double>(next() >> (kWordBits - kDoubleFractionBits)) * kDoubleStep;
  }

  /// Uniform double in [lo, hi) (up to rounding of the affine map).
  double uniform(double lo, double hi) noexcept { return lo + (hi - lo) * uniform(); }

  /// Uniform integer in [0, n) for n >= 1 (multiply-shift; its bias is far below 2^-32).
  std::uint32_t below(std::uint32_t n) noexcept {
    return static_cast<std::uint32_t>(((next() >> kHalfBits) * static_cast<std::uint64_t>(n)) >> kHalfBits);
  }

  /// True with probability p.
  bool chance(double p) noexcept { return uniform() < p; }

 private:
  static constexpr int kWordBits = 64;
  static constexpr int kHalfBits = 32;
  /// A float's significand: fractions of this many bits are exact floats, and doubles.
  static constexpr int kFloatFractionBits = 24;
  static constexpr double kFloatStep = 0x1.0p-24;
  /// A double's significand.
  static constexpr int kDoubleFractionBits = 53;
  static constexpr double kDoubleStep = 0x1.0p-53;

  /// splitmix64: the seeding step, one 64-bit word of state.
  static std::uint64_t splitmix64(std::uint64_t& state) noexcept {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  static std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (kWordBits - k)); }

  std::array<std::uint64_t, 4> state_{};
};

}  // namespace agrid::scenes
