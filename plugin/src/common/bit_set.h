#pragma once
// BitSet: one bit an index, packed in 64-bit words, for flags read and written by index where a
// byte an index would take eight times the cache.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/agrid_assert.h"
#include "common/slack_growth.h"

namespace agrid::detail {

/// A bit for each index below size(). Invariant: the bits of the last word past size() are clear
/// (so that a resize up reads them clear).
class BitSet {
 public:
  [[nodiscard]] bool test(std::size_t i) const noexcept {
    AGRID_ASSERT(i < size_);
    return ((words_[i / kBits] >> (i % kBits)) & 1u) != 0;
  }
  void set(std::size_t i) noexcept {
    AGRID_ASSERT(i < size_);
    words_[i / kBits] |= std::uint64_t{1} << (i % kBits);
  }
  void reset(std::size_t i) noexcept {
    AGRID_ASSERT(i < size_);
    words_[i / kBits] &= ~(std::uint64_t{1} << (i % kBits));
  }
  /// Adds a clear bit at the end, growing the words as grow_for_one() grows a vector.
  void push_back() {
    if (size_ % kBits == 0) {
      grow_for_one(words_);
      words_.push_back(0);
    }
    ++size_;
  }
  /// Drops the bits from `size` on (size <= size()).
  void truncate(std::size_t size) {
    AGRID_ASSERT(size <= size_);
    words_.resize(words_for(size));
    if (size % kBits != 0) words_.back() &= (std::uint64_t{1} << (size % kBits)) - 1u;
    size_ = size;
  }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// Gives memory back where the words held are far below those in use (slack_growth.h).
  void give_back() { shrink_if_far_below(words_, words_.size()); }
  [[nodiscard]] std::size_t bytes_held() const noexcept { return heap_bytes(words_); }

 private:
  static constexpr std::size_t kBits = 64;
  [[nodiscard]] static constexpr std::size_t words_for(std::size_t bits) noexcept { return (bits + kBits - 1) / kBits; }
  std::vector<std::uint64_t> words_;
  std::size_t size_ = 0;
};

}  // namespace agrid::detail
