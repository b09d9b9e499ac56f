#pragma once
// PairDiff: the pairs an update of the incremental Broadphase began and ended, found from the
// pairs it may have changed only.

#include <cstdint>
#include <span>
#include <vector>

#include "agrid/broadphase.h"
#include "broadphase/candidate_pairs.h"
#include "broadphase/world_size.h"

namespace agrid::detail {

/// The last update's pairs with a moving member (their keys), and an update's changes found from
/// them: the keys of the pairs the update may have changed, as they were (candidates that were
/// hits, the last moving keys) and as they are (candidates that are hits, the new moving keys).
/// Invariant (problem(), after an update): the moving keys ascend, each once; the pairs that
/// began and those that ended ascend, each once, and none is in both.
class PairDiff {
 public:
  /// Starts an update: empties the last one's lists and changes (their memory is kept).
  void start();
  /// A candidate pair that was a hit and may have ended (it left, or its hit changed).
  void hit_before(std::uint64_t key) { hit_before_.push_back(key); }
  /// A candidate pair that is a hit and may have begun.
  void hit_now(std::uint64_t key) { hit_now_.push_back(key); }
  /// This update's keys with a moving member, which the pair finders write (sorted, each once).
  [[nodiscard]] std::vector<std::uint64_t>& next_moving_keys() noexcept { return next_moving_keys_; }
  /// The last update's keys with a moving member.
  [[nodiscard]] std::span<const std::uint64_t> moving_keys() const noexcept { return moving_keys_; }
  /// The update found no pairs (update_queries): the moving keys are forgotten, and the next
  /// update that finds pairs reports them all as begun.
  void forget_moving_keys() noexcept { moving_keys_.clear(); }
  /// Finds the pairs that began and ended, and keeps this update's moving keys for the next.
  /// Unless `last_reported` (the last update found its pairs), every pair that holds began:
  /// every hit among `candidates`, and every moving key.
  void report(bool last_reported, const CandidatePairs& candidates);
  /// The last report.
  [[nodiscard]] const PairChanges& changes() const noexcept { return changes_; }

  /// Gives memory back where the lists are far below the most keys an update compared lately,
  /// or the keys the world holds (slack_growth.h). The changes are the update's result and are kept.
  [[gnu::cold]] void give_back(const WorldSize& world);
  [[nodiscard]] std::size_t bytes_held() const noexcept;
  /// Null if the invariant holds, else what is broken. O(keys).
  [[nodiscard, gnu::cold]] const char* problem() const;

 private:
  friend struct TestAccess;  // tests/plugin/test_broadphase_invariants.cpp damages it
  PairChanges changes_;
  std::vector<std::uint64_t> hit_before_;
  std::vector<std::uint64_t> hit_now_;
  std::vector<std::uint64_t> next_moving_keys_;
  std::vector<std::uint64_t> moving_keys_;
  RecentPeak keys_recently_;  ///< The most keys a list held in an update, lately.
};

}  // namespace agrid::detail
