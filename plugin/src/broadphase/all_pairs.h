#pragma once
// AllPairs: every pair the incremental Broadphase holds, made when asked (Broadphase::pairs()).

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "agrid/broadphase.h"
#include "broadphase/candidate_pairs.h"
#include "broadphase/pair_diff.h"
#include "broadphase/world_size.h"

namespace agrid::detail {

/// All pairs, ascending, brought up to date when asked, from the last list and the changes since
/// when it is of the update before, else afresh. Safe from several calls at once. Invariant
/// (problem()): when current, the pairs ascend, each once.
class AllPairs {
 public:
  /// An update happened: the list is stale.
  void stale() noexcept { current_.store(false, std::memory_order_release); }
  /// The pairs after update number `update`: none if it did not find pairs (`found` false), else
  /// the candidates that are hits and diff's moving keys.
  std::span<const Pair> current(std::uint64_t update, bool found, const PairDiff& diff, const CandidatePairs& candidates) const;
  /// After update number `update`: gives memory back where it is far below what the world asks
  /// (slack_growth.h). The pairs are kept while the next current() may start from them (they are
  /// of the last update), else dropped. Not while current() may run.
  [[gnu::cold]] void give_back(const WorldSize& world);
  [[nodiscard]] std::size_t bytes_held() const noexcept { return pairs_.capacity() * sizeof(Pair); }
  /// Null if the invariant holds, else what is broken.
  [[nodiscard, gnu::cold]] const char* problem() const;

 private:
  friend struct TestAccess;  // tests/plugin/test_broadphase_invariants.cpp damages it
  mutable std::vector<Pair> pairs_;
  mutable std::uint64_t pairs_at_ = 0;  ///< The update they are of.
  mutable std::mutex mutex_;
  mutable std::atomic<bool> current_{true};
};

}  // namespace agrid::detail
