#pragma once
// KeyBuffer: the pair keys of a frame, in memory that kernels may write whole vectors into.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/uninitialized_vector.h"

namespace agrid::detail {

/// A grow-only buffer of 64-bit pair keys. Its storage never shrinks, so a warm frame neither
/// allocates nor clears memory; a kernel reserves room at the tail, writes (possibly past
/// what it keeps) and commits what it keeps.
class KeyBuffer {
 public:
  void clear() noexcept { count_ = 0; }

  /// Room for `n` keys at the tail; they become part of the buffer once committed.
  [[nodiscard]] std::uint64_t* reserve_tail(std::size_t n) {
    if (storage_.size() < count_ + n) storage_.resize(std::max(count_ + n, 2 * storage_.size()));
    return storage_.data() + count_;
  }

  void commit(std::size_t n) noexcept { count_ += n; }

  void push(std::uint64_t key) {
    *reserve_tail(1) = key;
    commit(1);
  }

  [[nodiscard]] std::span<std::uint64_t> keys() noexcept { return {storage_.data(), count_}; }

  [[nodiscard]] std::size_t bytes_held() const noexcept { return storage_.capacity() * sizeof(std::uint64_t); }

 private:
  UninitializedVector<std::uint64_t> storage_;
  std::size_t count_ = 0;
};

}  // namespace agrid::detail
