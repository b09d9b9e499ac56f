#pragma once
// MinXOrder: the order of a leaf's entries by min x, in which the sweep kernel stops testing a
// box at the first entry that starts after it ends.

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace agrid::detail {

/// Sorts entry indices by min x, stably (equal min x keep their order, so the result is
/// deterministic), reusing its memory between calls. A counting pass into kBuckets buckets over
/// the entries' min x range does most of the work; an insertion sort then puts each bucket in
/// exact order, which costs about one compare an entry when the buckets are small, and stays
/// exact whatever the values (infinite or equal min x end up in one bucket).
class MinXOrder {
 public:
  /// Buckets of the counting pass: a leaf of a few hundred entries has about one per bucket.
  static constexpr std::uint32_t kBuckets = 256;

  /// Replaces `order` with `indices` sorted by `min_x(index)`; ties keep their order in `indices`.
  template <class MinX>
  void sort(const std::vector<std::uint32_t>& indices, MinX&& min_x, std::vector<std::uint32_t>& order) {
    if (indices.empty()) {
      order.clear();
      return;
    }
    float low = min_x(indices[0]);
    float high = low;
    for (const std::uint32_t k : indices) {
      low = std::min(low, min_x(k));
      high = std::max(high, min_x(k));
    }
    sort(indices, min_x, low, high, order);
  }

  /// The same, with the buckets spread over [low, high]: values outside go to the end buckets
  /// (a cell's bounds, which most of its entries start in, save a pass over them).
  template <class MinX>
  void sort(const std::vector<std::uint32_t>& indices, MinX&& min_x, float low, float high,
            std::vector<std::uint32_t>& order) {
    const auto n = static_cast<std::uint32_t>(indices.size());
    order.resize(n);
    // A NaN or infinite step (infinite bounds, one value) puts everything in bucket 0.
    const float step = static_cast<float>(kBuckets) / (high - low);
    buckets_.resize(n);
    counts_.fill(0);
    for (std::uint32_t i = 0; i < n; ++i) {
      const float t = (min_x(indices[i]) - low) * step;
      const std::uint32_t b = t > 0.0f ? (t < static_cast<float>(kBuckets - 1) ? static_cast<std::uint32_t>(t) : kBuckets - 1) : 0;
      buckets_[i] = static_cast<std::uint8_t>(b);
      ++counts_[b];
    }
    std::uint32_t sum = 0;
    for (std::uint32_t& c : counts_) sum += std::exchange(c, sum);
    for (std::uint32_t i = 0; i < n; ++i) order[counts_[buckets_[i]]++] = indices[i];
    // Exact order: buckets are monotone in min x, so only neighbours within a bucket swap.
    for (std::uint32_t i = 1; i < n; ++i) {
      const std::uint32_t k = order[i];
      const float x = min_x(k);
      std::uint32_t j = i;
      for (; j > 0 && x < min_x(order[j - 1]); --j) order[j] = order[j - 1];
      order[j] = k;
    }
  }

  [[nodiscard]] std::size_t bytes_held() const noexcept { return buckets_.capacity(); }

 private:
  std::vector<std::uint8_t> buckets_;
  std::array<std::uint32_t, kBuckets> counts_{};
};

}  // namespace agrid::detail
