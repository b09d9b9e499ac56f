#include "pair_sort.h"

#include <algorithm>
#include <array>
#include <bit>
#include <utility>

namespace agrid::detail {
namespace {

/// Below this many keys std::sort beats the radix sort's fixed cost (its histograms).
constexpr std::size_t kRadixMinimum = 2048;
/// Widest radix digit: 2^11 counters fit in L1 beside the data streams.
constexpr unsigned kMaxDigitBits = 11;

// LSD radix sort of keys whose set bits all lie below key_bits; returns where the sorted keys
// are: `keys` or the start of `scratch`.
std::uint64_t* radix_sort(std::span<std::uint64_t> keys, std::vector<std::uint64_t>& scratch, unsigned key_bits) {
  const unsigned passes = std::max(1u, (key_bits + kMaxDigitBits - 1) / kMaxDigitBits);
  const unsigned digit_bits = (key_bits + passes - 1) / passes;
  const std::uint64_t digit_mask = (std::uint64_t{1} << digit_bits) - 1;
  if (scratch.size() < keys.size()) scratch.resize(keys.size());
  std::uint64_t* from = keys.data();
  std::uint64_t* to = scratch.data();
  std::array<std::uint32_t, std::size_t{1} << kMaxDigitBits> offsets{};
  for (unsigned pass = 0; pass < passes; ++pass) {
    const unsigned shift = pass * digit_bits;
    std::fill(offsets.begin(), offsets.end(), 0u);
    for (std::size_t i = 0; i < keys.size(); ++i) ++offsets[(from[i] >> shift) & digit_mask];
    std::uint32_t sum = 0;
    for (std::uint64_t d = 0; d <= digit_mask; ++d) sum += std::exchange(offsets[d], sum);
    for (std::size_t i = 0; i < keys.size(); ++i) to[offsets[(from[i] >> shift) & digit_mask]++] = from[i];
    std::swap(from, to);
  }
  return from;
}

}  // namespace

void sort_pairs(std::span<std::uint64_t> keys, std::vector<std::uint64_t>& scratch, std::uint32_t id_limit,
                std::vector<Pair>& out) {
  // Pack (first, second) into 2 * id_bits bits so the radix sort makes as few passes as it can.
  const auto id_bits = static_cast<unsigned>(std::bit_width(id_limit));
  for (std::uint64_t& k : keys) k = ((k >> 32) << id_bits) | (k & 0xffffffffu);
  const std::uint64_t* sorted = keys.data();
  if (keys.size() < kRadixMinimum) {
    std::sort(keys.begin(), keys.end());
  } else {
    sorted = radix_sort(keys, scratch, 2 * id_bits);
  }
  const std::uint64_t second_mask = (std::uint64_t{1} << id_bits) - 1;
  out.resize(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    out[i] = Pair{static_cast<std::uint32_t>(sorted[i] >> id_bits), static_cast<std::uint32_t>(sorted[i] & second_mask)};
  }
}

}  // namespace agrid::detail
