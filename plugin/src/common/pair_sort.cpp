#include "common/pair_sort.h"

#include <algorithm>
#include <array>
#include <bit>
#include <utility>

#include "common/pair_key.h"

namespace agrid::detail {
namespace {

/// From this many keys the radix sort beats std::sort whatever the ids ...
constexpr std::size_t kRadixMinimum = 2048;
/// ... and below, where the keys are at least this many per counter of its histograms (few ids,
/// small digits): measured on 64 to 4,096 keys of ids below 100 to 10^6.
constexpr std::size_t kRadixKeysPerCounter = 2;
/// Widest radix digit: 2^11 counters fit in L1 beside the data streams.
constexpr unsigned kMaxDigitBits = 11;

// Keys store (first << 32) | second; sorting works on the low first_bits of first (the others
// are the same in all keys) and second packed into first_bits + id_bits bits, so that the radix
// sort makes as few passes as it can.
struct Packing {
  unsigned id_bits;
  unsigned first_bits;

  [[nodiscard]] std::uint64_t pack(std::uint64_t key) const noexcept {
    const std::uint64_t first = (key >> 32) & ((std::uint64_t{1} << first_bits) - 1);
    return (first << id_bits) | (key & 0xffffffffu);
  }
  /// The radix sort's passes and the bits of its digits.
  [[nodiscard]] std::pair<unsigned, unsigned> digits() const noexcept {
    const unsigned key_bits = first_bits + id_bits;
    const unsigned passes = std::max(1u, (key_bits + kMaxDigitBits - 1) / kMaxDigitBits);
    return {passes, (key_bits + passes - 1) / passes};
  }
};

/// Most passes a packed key of at most 64 bits needs.
constexpr unsigned kMaxPasses = (64 + kMaxDigitBits - 1) / kMaxDigitBits;

// LSD radix sort on the packed keys, the last pass writing the Pairs into `out`. One read of
// the keys counts every pass's digits; a pass whose digit is the same in all keys moves
// nothing and is skipped (the keys of a grid's cells share many high bits of `first`).
void radix_sort(std::span<std::uint64_t> keys, UninitializedVector<std::uint64_t>& scratch, Packing packing,
                std::span<Pair> out) {
  const auto [passes, digit_bits] = packing.digits();
  const std::uint64_t digit_mask = (std::uint64_t{1} << digit_bits) - 1;
  const std::size_t buckets = std::size_t{1} << digit_bits;
  const std::size_t n = keys.size();
  // Counters per pass; 32-bit, since a frame holds fewer than 2^32 pair keys.
  std::array<std::array<std::uint32_t, std::size_t{1} << kMaxDigitBits>, kMaxPasses> counts;
  for (unsigned pass = 0; pass < passes; ++pass) std::fill_n(counts[pass].begin(), buckets, 0u);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t packed = packing.pack(keys[i]);
    for (unsigned pass = 0; pass < passes; ++pass) ++counts[pass][(packed >> (pass * digit_bits)) & digit_mask];
  }
  // The passes that move keys; the last of them writes the Pairs.
  bool moves[kMaxPasses] = {};
  unsigned last_moving = passes;
  for (unsigned pass = 0; pass < passes; ++pass) {
    moves[pass] = n > 0 && counts[pass][(packing.pack(keys[0]) >> (pass * digit_bits)) & digit_mask] != n;
    if (moves[pass]) last_moving = pass;
  }
  if (last_moving == passes) {  // already in order: every key has the same digits
    for (std::size_t i = 0; i < n; ++i) out[i] = pair_of(keys[i]);
    return;
  }
  if (scratch.size() < n) scratch.resize(n);
  std::uint64_t* from = keys.data();
  std::uint64_t* to = scratch.data();
  for (unsigned pass = 0; pass <= last_moving; ++pass) {
    if (!moves[pass]) continue;
    const unsigned shift = pass * digit_bits;
    std::uint32_t* offsets = counts[pass].data();
    std::uint32_t sum = 0;
    for (std::size_t d = 0; d < buckets; ++d) sum += std::exchange(offsets[d], sum);
    const auto digit = [&](std::uint64_t key) { return (packing.pack(key) >> shift) & digit_mask; };
    if (pass < last_moving) {
      for (std::size_t i = 0; i < n; ++i) to[offsets[digit(from[i])]++] = from[i];
      std::swap(from, to);
    } else {
      for (std::size_t i = 0; i < n; ++i) out[offsets[digit(from[i])]++] = pair_of(from[i]);
    }
  }
}

}  // namespace

void sort_pairs(std::span<std::uint64_t> keys, UninitializedVector<std::uint64_t>& scratch, std::uint32_t id_limit,
                std::span<Pair> out, unsigned first_bits) {
  const auto id_bits = static_cast<unsigned>(std::bit_width(id_limit));
  const Packing packing{id_bits, std::min(first_bits, id_bits)};
  const auto [passes, digit_bits] = packing.digits();
  if (keys.size() >= kRadixMinimum || keys.size() >= kRadixKeysPerCounter * passes * (std::size_t{1} << digit_bits)) {
    radix_sort(keys, scratch, packing, out);
    return;
  }
  // The key order is the pair order: (first, second) lexicographically.
  std::sort(keys.begin(), keys.end());
  for (std::size_t i = 0; i < keys.size(); ++i) out[i] = pair_of(keys[i]);
}

}  // namespace agrid::detail
