#pragma once
// WorldSize: what the world asks of the incremental Broadphase's arrays, by which each gives
// memory back.

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace agrid::detail {

/// What an update uses of its scratch (the lists of its changes and keys, the pair finders'
/// engines, the re-test pass's boxes) is kept for the most it used in about this many updates,
/// so that a world which uses much now and then allocates nothing between, and one that has
/// calmed down (after its first update, busy over the whole world) gives it back.
constexpr std::uint64_t kMemoryUpdates = 16;

/// The most of something updates used lately: the largest use noted in the last kMemoryUpdates
/// to 2 * kMemoryUpdates updates (the largest of this window of kMemoryUpdates notes and of the
/// one before), so that neither one small use nor one large one long ago decides it.
class RecentPeak {
 public:
  /// Notes this update's use.
  void note(std::size_t used) noexcept {
    current_ = std::max(current_, used);
    if (++notes_ == kMemoryUpdates) {
      previous_ = current_;
      current_ = 0;
      notes_ = 0;
    }
  }
  [[nodiscard]] std::size_t value() const noexcept { return std::max(previous_, current_); }

 private:
  std::size_t current_ = 0;   ///< The largest use in this window ...
  std::size_t previous_ = 0;  ///< ... and in the window before.
  std::uint64_t notes_ = 0;   ///< Notes in this window.
};

/// What the world asks of the arrays kept for it, by which each gives memory back (slack_growth.h's
/// rule). An array that holds the world (objects by handle, the tree, the candidates, all pairs)
/// is ready for the world's size; a list an update fills (changed objects, keys it compared) for
/// the most its part used lately (RecentPeak). So the lists of a steady world never shrink
/// between steps of many changes and few that come within kMemoryUpdates of one another, and
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
