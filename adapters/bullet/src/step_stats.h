#pragma once
// StepStats: what lastStepStats() gives, gathered over a step: the proxies given a box (each
// once, by a stamp on the proxy), the setAabb calls' time when asked for, the pairs the cache
// gained and lost, and the world the step left.

#include <chrono>
#include <cstdint>
#include <span>

#include "adaptive_grid_proxy.h"
#include "agrid/broadphase.h"
#include "agrid/bullet/btAdaptiveGridBroadphaseStats.h"
#include "common/agrid_assert.h"

namespace agrid::bullet_detail {

/// The stats of the last step, and those of the step under way. Invariant (problem()): the
/// objects counted as given a box in this step are the live proxies stamped with it.
class StepStats {
 public:
  using Clock = std::chrono::steady_clock;

  /// `proxy` was created or given setAabb in this step: counted once however often.
  void given_box(btAdaptiveGridProxy& proxy) noexcept {
    given_box_ += proxy.m_setAabbStep != step_ ? 1u : 0u;
    proxy.m_setAabbStep = step_;
  }
  /// The live `proxy` is destroyed: no longer counted.
  void destroyed(const btAdaptiveGridProxy& proxy) noexcept {
    if (proxy.m_setAabbStep != step_) return;
    AGRID_ASSERT(given_box_ > 0);
    --given_box_;
  }

  /// Two clock reads per setAabb cost more than an unchanged AABB's setAabb itself (53 ns
  /// against 4.4 in BM_resting_step), so its timing is asked for (setTimeSetAabbCalls).
  [[nodiscard]] bool times_set_aabb() const noexcept { return time_set_aabb_; }
  void time_set_aabb(bool on) noexcept { time_set_aabb_ = on; }
  void add_set_aabb_time(Clock::duration took) noexcept { set_aabb_time_ += took; }

  /// calculateOverlappingPairs begins: the last step's stats start over, and a new step's stamp
  /// (should it wrap, a stale stamp equal to the new step only makes the count smaller).
  void begin_step() noexcept {
    last_.m_pairsBegan = 0;
    last_.m_pairsEnded = 0;
    last_.m_setAabbObjects = static_cast<int>(given_box_);
    last_.m_setAabbSeconds = std::chrono::duration<double>(set_aabb_time_).count();
    set_aabb_time_ = Clock::duration::zero();
    ++step_;
    given_box_ = 0;
  }
  /// The pair cache gained `began` pairs and lost `ended`.
  void count_pairs(int began, int ended) noexcept {
    AGRID_ASSERT(began >= 0 && ended >= 0);
    last_.m_pairsBegan += began;
    last_.m_pairsEnded += ended;
  }
  /// calculateOverlappingPairs ends, having taken `took`: the world it leaves.
  void end_step(const agrid::BroadphaseStats& agrid, int pairs, std::size_t bytes_held, Clock::duration took) noexcept {
    last_.m_pairs = pairs;
    last_.m_objects = static_cast<int>(agrid.objects);
    last_.m_invalidObjects = static_cast<int>(agrid.invalid);
    last_.m_movingObjects = static_cast<int>(agrid.moving);
    last_.m_restingObjects = static_cast<int>(agrid.resting);
    last_.m_bytesHeld = bytes_held;
    last_.m_calculateOverlappingPairsSeconds = std::chrono::duration<double>(took).count();
  }

  /// The last step's, whole once it ended.
  [[nodiscard]] const btAdaptiveGridBroadphaseStats& last() const noexcept { return last_; }

  /// Empty if the invariant holds over the live proxies `by_handle` (null: none), else what is
  /// wrong. O(proxies).
  [[nodiscard]] const char* problem(std::span<btAdaptiveGridProxy* const> by_handle) const {
    std::uint32_t stamped = 0;
    for (const btAdaptiveGridProxy* proxy : by_handle) stamped += proxy != nullptr && proxy->m_setAabbStep == step_ ? 1u : 0u;
    return stamped == given_box_ ? nullptr : "StepStats: the proxies given a box in the step are miscounted";
  }

 private:
  btAdaptiveGridBroadphaseStats last_;
  /// Steps counted by begin_step; a proxy's stamp says the last it was given a box in.
  std::uint32_t step_ = 1;
  /// The live proxies created or given setAabb in this step.
  std::uint32_t given_box_ = 0;
  bool time_set_aabb_ = false;
  /// The time of the setAabb calls in this step, when timed.
  Clock::duration set_aabb_time_{};
};

}  // namespace agrid::bullet_detail
