#include "tree/key_run_sort.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "common/pair_sort.h"
#include "common/parallel_for.h"

namespace agrid::detail {
namespace {

/// Below this many keys one sort on one thread beats distributing them first.
constexpr std::size_t kParallelSortMinKeys = std::size_t{1} << 15;
/// Keys per bucket aimed at: a bucket's radix sort then works within the L2 cache.
constexpr std::size_t kKeysPerBucket = std::size_t{1} << 14;
/// At most 2^12 buckets, so that the per-piece counters stay small beside the keys.
constexpr unsigned kMaxBucketBits = 12;
/// Runs are cut into pieces of at most this many keys, the unit of parallel counting and
/// distributing (a task with most of the pairs must not serialise the sort).
constexpr std::size_t kPieceKeys = std::size_t{1} << 16;

// Buckets are ranges of the first id: concatenated, their sorted keys are the sorted list.
struct Buckets {
  unsigned shift;
  std::uint32_t count;

  [[nodiscard]] std::uint32_t of(std::uint64_t key) const noexcept { return static_cast<std::uint32_t>(key >> 32) >> shift; }
};

[[nodiscard]] Buckets make_buckets(std::size_t keys, std::uint32_t id_limit) noexcept {
  const auto wanted_bits = std::min<unsigned>(kMaxBucketBits, static_cast<unsigned>(std::bit_width(keys / kKeysPerBucket)));
  const auto id_bits = static_cast<unsigned>(std::bit_width(id_limit));
  const unsigned shift = id_bits > wanted_bits ? id_bits - wanted_bits : 0;
  return {shift, ((id_limit > 0 ? id_limit - 1 : 0) >> shift) + 1};
}

void cut_into_pieces(std::span<const std::span<const std::uint64_t>> runs, std::vector<std::span<const std::uint64_t>>& pieces) {
  pieces.clear();
  for (const auto run : runs) {
    for (std::size_t at = 0; at < run.size(); at += kPieceKeys) {
      pieces.push_back(run.subspan(at, std::min(kPieceKeys, run.size() - at)));
    }
  }
}

}  // namespace

std::size_t KeyRunSortScratch::bytes_held() const {
  std::size_t bytes = keys.capacity() * sizeof(std::uint64_t) + serial_radix.capacity() * sizeof(std::uint64_t) +
                      (counts.capacity() + bucket_begin.capacity()) * sizeof(std::size_t) + pieces.capacity() * sizeof(pieces[0]);
  for (const auto& r : radix) bytes += r.capacity() * sizeof(std::uint64_t);
  return bytes;
}

void sort_key_runs(std::span<const std::span<const std::uint64_t>> runs, std::uint32_t id_limit,
                   KeyRunSortScratch& scratch, std::vector<Pair>& out) {
  std::size_t total = 0;
  for (const auto run : runs) total += run.size();
  if (scratch.keys.size() < total) scratch.keys.resize(total);
  std::uint64_t* const keys = scratch.keys.data();
  if (total < kParallelSortMinKeys) {
    std::size_t at = 0;
    for (const auto run : runs) at = static_cast<std::size_t>(std::copy(run.begin(), run.end(), keys + at) - keys);
    out.resize(total);
    sort_pairs(std::span(keys, total), scratch.serial_radix, id_limit, out);
    return;
  }

  // Count each piece's keys per bucket, turn the counts into write positions (bucket by bucket,
  // piece by piece: the layout is fixed by the input, not by the threads), distribute, then sort
  // every bucket on its own.
  const Buckets buckets = make_buckets(total, id_limit);
  cut_into_pieces(runs, scratch.pieces);
  const auto pieces = static_cast<std::uint32_t>(scratch.pieces.size());
  if (scratch.counts.size() < std::size_t{pieces} * buckets.count) scratch.counts.resize(std::size_t{pieces} * buckets.count);
  std::size_t* const counts = scratch.counts.data();
  detail::parallel_for(std::uint32_t{0}, pieces, [&](std::uint32_t p) {
    std::size_t* c = counts + std::size_t{p} * buckets.count;
    std::fill(c, c + buckets.count, std::size_t{0});
    for (const std::uint64_t key : scratch.pieces[p]) ++c[buckets.of(key)];
  });
  if (scratch.bucket_begin.size() < buckets.count + 1) scratch.bucket_begin.resize(buckets.count + 1);
  std::size_t* const bucket_begin = scratch.bucket_begin.data();
  std::size_t sum = 0;
  for (std::uint32_t b = 0; b < buckets.count; ++b) {
    bucket_begin[b] = sum;
    for (std::uint32_t p = 0; p < pieces; ++p) {
      sum += std::exchange(counts[std::size_t{p} * buckets.count + b], sum - bucket_begin[b]);  // offset in the bucket
    }
  }
  bucket_begin[buckets.count] = sum;
  detail::parallel_for(std::uint32_t{0}, pieces, [&](std::uint32_t p) {
    std::size_t* at = counts + std::size_t{p} * buckets.count;
    for (const std::uint64_t key : scratch.pieces[p]) {
      const std::uint32_t b = buckets.of(key);
      keys[bucket_begin[b] + at[b]++] = key;
    }
  });
  out.resize(total);
  detail::parallel_for(std::uint32_t{0}, buckets.count, [&](std::uint32_t b) {
    const std::size_t begin = bucket_begin[b];
    const std::size_t size = bucket_begin[b + 1] - begin;
    // All first ids of a bucket agree above the bucket's shift.
    sort_pairs(std::span(keys + begin, size), scratch.radix.local(), id_limit, std::span(out.data() + begin, size),
               buckets.shift);
  });
}

}  // namespace agrid::detail
