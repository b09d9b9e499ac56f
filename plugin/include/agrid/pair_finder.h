#pragma once
// PairFinder: every overlapping pair of a set of boxes, found afresh on each call by the structure
// that suits their count, its memory kept between calls.

// Below C++20: one clear error, not dozens from what follows. (GCC 10 and older report 201709 in
// their C++2a mode: let through.)
#if __cplusplus <= 201703L
#error "agrid/pair_finder.h needs C++20; a Bullet program of an older standard includes <agrid/bullet/btAdaptiveGridBroadphase.h> (C++11) instead"
#else

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "agrid/box.h"
#include "agrid/config.h"
#include "agrid/pair.h"

namespace agrid {

/// Finds every overlapping pair of a set of boxes on each call, by what suits their count: all
/// against all for a few (up to 128), one Grid on the calling thread, or the tree of grids on
/// every thread of the caller's task arena (at least Config::tree_min_boxes boxes, and more than
/// one thread). The pairs are the same whichever it takes. It keeps what it built, and its
/// memory, for the next call: a call of the same size allocates nothing. Memory sized for far
/// more boxes than the last 16 to 32 calls had is given back. Not re-entrant: one call at a time.
class PairFinder {
 public:
  /// A finder that holds nothing yet. Throws std::invalid_argument if config.problem() is not empty.
  explicit PairFinder(const Config& config = {});
  ~PairFinder();
  /// Takes over the other's structures; the moved-from finder may only be destroyed or assigned.
  PairFinder(PairFinder&&) noexcept;
  /// Takes over the other's structures; the moved-from finder may only be destroyed or assigned.
  PairFinder& operator=(PairFinder&&) noexcept;
  PairFinder(const PairFinder&) = delete;
  PairFinder& operator=(const PairFinder&) = delete;

  /// Replaces the contents of `out` with every overlapping pair of `boxes`, each once as (i, j)
  /// with i < j, sorted. Boxes are closed; a box with a NaN or min > max overlaps nothing. The
  /// span need not outlive the call. Throws std::length_error for 2^32 - 1 boxes or more.
  void find_pairs(std::span<const Box> boxes, std::vector<Pair>& out);

  /// Gives back the memory of the structures sized for far more than `boxes` boxes (more than
  /// four times as many, holding more than 16 KiB), for a caller that knows its next calls are
  /// small (a world that shrank). find_pairs() does it for the most boxes of the recent calls.
  void shrink_to(std::size_t boxes);

  /// The configuration this finder was made with.
  [[nodiscard]] const Config& config() const noexcept;

  /// Heap memory the finder holds between calls.
  [[nodiscard]] std::size_t bytes_held() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agrid

#endif  // C++20
