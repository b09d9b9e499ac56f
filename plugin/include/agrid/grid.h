#pragma once
// Grid: the sparse linear adaptive grid, rebuilt each frame, keeping its memory between frames.

// Below C++20: one clear error, not dozens from what follows. (GCC 10 and older report 201709 in
// their C++2a mode: let through.)
#if __cplusplus <= 201703L
#error "agrid/grid.h needs C++20; a Bullet program of an older standard includes <agrid/bullet/btAdaptiveGridBroadphase.h> (C++11) instead"
#else

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "agrid/box.h"
#include "agrid/callback.h"
#include "agrid/config.h"
#include "agrid/grid_cell.h"
#include "agrid/pair.h"
#include "agrid/segment.h"
#include "agrid/stats.h"

namespace agrid {

namespace detail {
class GridCore;
}  // namespace detail

/// A 4x4x4 hierarchical grid over a set of boxes, stored in flat arrays. Build it once per
/// frame with build(); then ask for all overlapping pairs, or for the boxes meeting a query
/// box or segment. Memory is kept between builds: a warm frame of the same size allocates
/// nothing. Queries are const and re-entrant; build() and find_pairs() are not.
class Grid {
 public:
  /// An empty grid. Throws std::invalid_argument if config.problem() is not empty.
  explicit Grid(const Config& config = {});
  ~Grid();
  /// Takes over the other's build and memory; the moved-from grid may only be destroyed or assigned.
  Grid(Grid&&) noexcept;
  /// Takes over the other's build and memory; the moved-from grid may only be destroyed or assigned.
  Grid& operator=(Grid&&) noexcept;
  Grid(const Grid&) = delete;
  Grid& operator=(const Grid&) = delete;

  /// Rebuilds the grid over `boxes`, copying what it needs: the span need not outlive the
  /// call. Throws std::length_error if there are 2^32 - 1 boxes or more.
  void build(std::span<const Box> boxes);

  /// Replaces the contents of `out` with every overlapping pair, each once, sorted.
  void find_pairs(std::vector<Pair>& out);

  /// Replaces the contents of `out` with the indices of the boxes overlapping `box`, sorted.
  void query(const Box& box, std::vector<std::uint32_t>& out) const;

  /// Calls `visit` once with each index of a box overlapping `box` (in no particular but
  /// deterministic order) until it returns false. An invalid query box overlaps nothing.
  void for_each_overlap(const Box& box, FunctionRef<std::uint32_t> visit) const;

  /// Replaces the contents of `out` with the indices of the boxes `segment` hits, sorted.
  void query(const Segment& segment, std::vector<std::uint32_t>& out) const;

  /// Calls `visit` once with each index of a box that hits(segment, box) (in no particular
  /// but deterministic order) until it returns false. An invalid segment hits nothing.
  void for_each_hit(const Segment& segment, FunctionRef<std::uint32_t> visit) const;

  /// Calls `visit` with every cell of the last build, each parent before its children, until
  /// it returns false. None before the first build. For looking at the grid, not the hot path.
  void for_each_cell(FunctionRef<const GridCell&> visit) const;

  /// Counts describing the last build.
  [[nodiscard]] GridStats stats() const;

  /// The configuration this grid was made with.
  [[nodiscard]] const Config& config() const noexcept;

 private:
  std::unique_ptr<detail::GridCore> core_;
};

}  // namespace agrid

#endif  // C++20
