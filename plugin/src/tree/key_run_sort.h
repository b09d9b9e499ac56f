#pragma once
// Sorting the pair keys of many tasks into one canonical list, on all cores.

#include <cstdint>
#include <span>
#include <vector>

#include "agrid/pair.h"
#include "common/per_thread.h"
#include "common/uninitialized_vector.h"

namespace agrid::detail {

/// Working memory of sort_key_runs, kept between frames (per worker, too).
struct KeyRunSortScratch {
  UninitializedVector<std::uint64_t> keys;          ///< All keys, grouped by bucket.
  UninitializedVector<std::uint64_t> serial_radix;  ///< The one sort's scratch when there are few keys.
  UninitializedVector<std::size_t> counts;          ///< Per piece and bucket: keys, then offsets.
  UninitializedVector<std::size_t> bucket_begin;    ///< Where each bucket starts in `keys`.
  std::vector<std::span<const std::uint64_t>> pieces;
  PerThread<UninitializedVector<std::uint64_t>> radix;  ///< Per worker.

  [[nodiscard]] std::size_t bytes_held() const;
};

/// Replaces `out` with the pairs of all keys of `runs` (unique keys made by pair_key, ids
/// below `id_limit`) in ascending order. Runs in the caller's task arena; the result does not
/// depend on the number of threads.
void sort_key_runs(std::span<const std::span<const std::uint64_t>> runs, std::uint32_t id_limit,
                   KeyRunSortScratch& scratch, std::vector<Pair>& out);

}  // namespace agrid::detail
