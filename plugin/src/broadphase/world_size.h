#pragma once
// WorldSize: what the world asks of the incremental Broadphase's arrays, by which each gives
// memory back.

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "common/recent_peak.h"

namespace agrid::detail {

/// What the world asks of the arrays kept for it, by which each gives memory back (slack_growth.h's
/// rule). An array that holds the world (objects by handle, the tree, the candidates, all pairs)
/// is ready for the world's size; a list an update fills (changed objects, keys it compared) for
/// the most its part used lately (RecentPeak). So the lists of a steady world never shrink
/// between steps of many changes and few that come within kRecentUses of one another, and
/// are given back after a busy step (a world's first) once the world is calm. The parts' give_back, and problem(), are [[gnu::cold]]: they cost
/// O(1) an update (problem() runs only with AGRID_ASSERTS), and GCC's inlining of them would use
/// up what it allows the file, whose hot calls then stop being inlined (measured: set_box's
/// helpers and the tree queries' push_back, +10% instructions on BM_broadphase/stream-20k).
struct WorldSize {
  std::size_t objects = 0;      ///< Live objects.
  std::size_t pairs = 0;        ///< Candidates and pairs with a moving member: the keys a step may touch.
  std::size_t objects_end = 0;  ///< The object table's end: no handle at or above it is live.
  std::uint64_t updates = 0;    ///< Updates so far, this one included.

  /// The room a list of a step's handles keeps: what its part used lately, and no more than
  /// the live objects (a world that shrank gives it back at once).
  [[nodiscard]] std::size_t handles(const RecentPeak& used) const noexcept { return std::min(used.value(), objects); }
  /// The room a list of a step's keys keeps: what its part used lately, and no more than the
  /// pairs kept.
  [[nodiscard]] std::size_t keys(const RecentPeak& used) const noexcept { return std::min(used.value(), pairs); }
};

}  // namespace agrid::detail
