#pragma once
// DirectPairs: the overlapping pairs of a few boxes, all against all with the leaf kernels, where
// a grid's fixed costs (bounds, lattice, sorts by cell) would outweigh the tests themselves.

#include <cstdint>
#include <span>
#include <vector>

#include "agrid/box.h"
#include "agrid/config.h"
#include "agrid/pair.h"
#include "grid/entries.h"
#include "grid/key_buffer.h"
#include "grid/leaf_kernel.h"

namespace agrid::detail {

/// Boxes up to this many are paired all against all rather than by a grid. Measured (a throwaway
/// loop timing Grid::build + find_pairs against DirectPairs::find_pairs on n random unit cubes,
/// each meeting about 2, 12 or 30 others; best of 7, this project's 2-core AMD EPYC VM, AVX-512):
///   n    grid (us)            all against all, AVX2 (us)   scalar kernel (us)
///   64   2.0 / 2.7 / 3.7      0.9 / 1.2 / 1.5              1.9 / 2.6 / 3.2
///   128  4.2 / 5.9 / 8.4      2.4 / 2.9 / 3.6              6.2 / 7.9 / 9.4
///   256  8.0 / 13.5 / 18.6    7.1 / 8.5 / 10.2             22 / 26 / 31
///   384  12.2 / 20.5 / 29.2   14.6 / 16.2 / 19.1           144 / 272 / 326
/// All against all wins up to about 256 boxes with AVX2; 128 keeps a margin, and bounds what the
/// scalar kernel (CPUs without AVX2, or Config::kernel = scalar) can lose to the grid to a few us.
inline constexpr std::uint32_t kDirectPairsMaxBoxes = 128;

/// All against all over a span of boxes, its memory kept between calls (bounded by
/// kDirectPairsMaxBoxes boxes and their pairs).
class DirectPairs {
 public:
  /// Appends to `keys`, in ascending order, the key (pair_key of their ids) of every overlapping
  /// pair of `boxes` with a member whose flag in `probing` (one per box) is set, or of every
  /// overlapping pair if `probing` is empty. `ids` (one per box) ascend. An invalid box pairs
  /// with nothing. With m of n boxes probing, about m * n tests instead of n^2 / 2. `kernel`
  /// automatic takes AVX2 where the CPU has it: for all against all over so few boxes it measured
  /// 15-25% faster than AVX-512 (above), whose per-box setup the short rows do not repay.
  void find_keys(std::span<const Box> boxes, std::span<const std::uint32_t> ids, std::span<const std::uint8_t> probing,
                 Kernel kernel, std::vector<std::uint64_t>& keys);

  /// Replaces `out` with every overlapping pair of `boxes` (indices, first < second), each once,
  /// in ascending order, as Grid::find_pairs gives them.
  void find_pairs(std::span<const Box> boxes, Kernel kernel, std::vector<Pair>& out);

  [[nodiscard]] std::size_t bytes_held() const noexcept {
    return entries_.bytes_held() + probing_entries_.bytes_held() + keys_.bytes_held() + scratch_.bytes_held();
  }

 private:
  /// The keys of find_keys into keys_; ids are the indices when `ids` is empty.
  void collect_keys(std::span<const Box> boxes, std::span<const std::uint32_t> ids, std::span<const std::uint8_t> probing,
                    Kernel kernel);

  EntryArrays entries_;          ///< The valid boxes, in order ...
  EntryArrays probing_entries_;  ///< ... and those that probe; both padded for the kernels.
  KeyBuffer keys_;
  SweepScratch scratch_;  ///< Unused: every cell is tested all against all.
};

}  // namespace agrid::detail
