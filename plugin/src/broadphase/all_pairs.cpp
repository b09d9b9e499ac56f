#include "broadphase/all_pairs.h"

#include <algorithm>
#include <iterator>

#include "common/agrid_assert.h"
#include "common/pair_key.h"
#include "common/slack_growth.h"

namespace agrid::detail {

std::span<const Pair> AllPairs::current(std::uint64_t update, bool found, const PairDiff& diff,
                                        const CandidatePairs& candidates) const {
  if (current_.load(std::memory_order_acquire)) return pairs_;
  const std::lock_guard<std::mutex> lock(mutex_);
  if (current_.load(std::memory_order_relaxed)) return pairs_;
  const PairChanges& changes = diff.changes();
  if (!found) {
    pairs_.clear();
  } else if (pairs_at_ + 1 == update) {
    // Last update's pairs, less those that ended, with those that began: one merge.
    std::vector<Pair> kept;
    kept.reserve(pairs_.size() - changes.ended.size() + changes.began.size());
    std::set_difference(pairs_.begin(), pairs_.end(), changes.ended.begin(), changes.ended.end(), std::back_inserter(kept));
    pairs_.clear();
    std::merge(kept.begin(), kept.end(), changes.began.begin(), changes.began.end(), std::back_inserter(pairs_));
  } else {
    // Not asked for since an earlier update: made afresh from the candidates and moving keys.
    std::vector<std::uint64_t> keys(diff.moving_keys().begin(), diff.moving_keys().end());
    candidates.for_each([&](CandidateId r) {
      if (candidates.hit(r)) keys.push_back(candidates.key(r));
    });
    std::sort(keys.begin(), keys.end());
    pairs_.clear();
    for (const std::uint64_t key : keys) pairs_.push_back(pair_of(key));
  }
  pairs_at_ = update;
  current_.store(true, std::memory_order_release);
  return pairs_;
}

void AllPairs::give_back(const WorldSize& world) {
  if (pairs_at_ + 1 != world.updates) pairs_.clear();
  shrink_if_far_below(pairs_, world.pairs);
}

const char* AllPairs::problem() const {
  if (!current_.load(std::memory_order_acquire)) return nullptr;
  if (!ascends_strictly(pairs_)) {
    return "AllPairs: the pairs do not ascend, or repeat";
  }
  return nullptr;
}

}  // namespace agrid::detail
