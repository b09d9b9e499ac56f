// brute-force-simd: every box against every later one, four at a time with SSE (the article's
// starting point). Boxes are kept as six arrays of floats so that one load fetches four boxes'
// coordinate.

#include <emmintrin.h>

#include <cstdint>
#include <vector>

#include "peers_impl.h"

namespace agrid::peers {
namespace {

/// Pairs tested per nanosecond on this project's machine, for estimated_seconds (measured:
/// article-20k-sparse, 2 x 10^8 pairs in 96 ms).
constexpr double kPairsPerNanosecond = 2.0;

class BruteForceSimd final : public Peer {
 public:
  [[nodiscard]] std::string_view name() const override { return "brute-force-simd"; }

  [[nodiscard]] double estimated_seconds(std::span<const Box> boxes) const override {
    const auto n = static_cast<double>(boxes.size());
    return n * n / 2.0 / kPairsPerNanosecond * 1e-9;
  }

  void find_pairs(std::span<const Box> boxes, std::vector<Pair>& out) override {
    out.clear();
    // The valid boxes, in index order, as six arrays, padded to a multiple of 4 with NaN boxes,
    // which meet nothing (every comparison with a NaN is false; an infinite box would meet
    // +-inf padding).
    ids_.clear();
    for (auto& a : coordinates_) a.clear();
    for (std::uint32_t i = 0; i < boxes.size(); ++i) {
      if (!is_valid(boxes[i])) continue;
      ids_.push_back(i);
      const Box& b = boxes[i];
      const float values[6] = {b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z};
      for (int c = 0; c < 6; ++c) coordinates_[c].push_back(values[c]);
    }
    const std::size_t n = ids_.size();
    while (coordinates_[0].size() % 4 != 0) {
      for (auto& a : coordinates_) a.push_back(__builtin_nanf(""));
    }
    const float* const lo[3] = {coordinates_[0].data(), coordinates_[1].data(), coordinates_[2].data()};
    const float* const hi[3] = {coordinates_[3].data(), coordinates_[4].data(), coordinates_[5].data()};
    for (std::size_t a = 0; a < n; ++a) {
      const __m128 a_lo[3] = {_mm_set1_ps(lo[0][a]), _mm_set1_ps(lo[1][a]), _mm_set1_ps(lo[2][a])};
      const __m128 a_hi[3] = {_mm_set1_ps(hi[0][a]), _mm_set1_ps(hi[1][a]), _mm_set1_ps(hi[2][a])};
      // From the first multiple of 4 after a; the few before it one by one.
      std::size_t b = a + 1;
      for (; b < n && b % 4 != 0; ++b) test_one(lo, hi, a, b, out);
      for (; b < n; b += 4) {
        __m128 hit = _mm_castsi128_ps(_mm_set1_epi32(-1));
        for (int c = 0; c < 3; ++c) {
          hit = _mm_and_ps(hit, _mm_cmple_ps(_mm_loadu_ps(lo[c] + b), a_hi[c]));
          hit = _mm_and_ps(hit, _mm_cmple_ps(a_lo[c], _mm_loadu_ps(hi[c] + b)));
        }
        int mask = _mm_movemask_ps(hit);
        while (mask != 0) {
          const int k = __builtin_ctz(static_cast<unsigned>(mask));
          out.push_back({ids_[a], ids_[b + static_cast<std::size_t>(k)]});
          mask &= mask - 1;
        }
      }
    }
  }

 private:
  void test_one(const float* const lo[3], const float* const hi[3], std::size_t a, std::size_t b, std::vector<Pair>& out) const {
    for (int c = 0; c < 3; ++c) {
      if (lo[c][b] > hi[c][a] || lo[c][a] > hi[c][b]) return;
    }
    out.push_back({ids_[a], ids_[b]});
  }

  std::vector<std::uint32_t> ids_;
  std::vector<float> coordinates_[6];
};

}  // namespace

std::unique_ptr<Peer> make_brute_force_simd() { return std::make_unique<BruteForceSimd>(); }

}  // namespace agrid::peers
