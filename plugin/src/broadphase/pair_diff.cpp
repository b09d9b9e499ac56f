#include "broadphase/pair_diff.h"

#include <algorithm>
#include <iterator>

#include "common/agrid_assert.h"
#include "common/pair_key.h"
#include "common/slack_growth.h"

namespace agrid::detail {
namespace {

/// Appends the keys of sorted `now` not in sorted `before` to `began` and the others to `ended`.
void sorted_differences(const std::vector<std::uint64_t>& now, const std::vector<std::uint64_t>& before,
                        std::vector<Pair>& began, std::vector<Pair>& ended) {
  auto n = now.begin();
  auto b = before.begin();
  while (n != now.end() && b != before.end()) {
    if (*n < *b) {
      began.push_back(pair_of(*n++));
    } else if (*b < *n) {
      ended.push_back(pair_of(*b++));
    } else {
      ++n;
      ++b;
    }
  }
  for (; n != now.end(); ++n) began.push_back(pair_of(*n));
  for (; b != before.end(); ++b) ended.push_back(pair_of(*b));
}

/// Sorts `keys` and drops repeats.
void sort_unique(std::vector<std::uint64_t>& keys) {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
}


}  // namespace

void PairDiff::start() {
  hit_before_.clear();
  hit_now_.clear();
  next_moving_keys_.clear();
  changes_.began.clear();
  changes_.ended.clear();
}

void PairDiff::report(bool last_reported, const CandidatePairs& candidates) {
  // Only pairs with a moving member and candidates whose hit changed can have begun or ended:
  // compare them as they were (the last moving keys, the old hits) with how they are now.
  AGRID_ASSERT(ascends_strictly(next_moving_keys_));
  if (!last_reported) {
    hit_now_.clear();
    candidates.for_each([&](CandidateId r) {
      if (candidates.hit(r)) hit_now_.push_back(candidates.key(r));
    });
    hit_before_.clear();
    moving_keys_.clear();
  }
  sort_unique(hit_before_);
  sort_unique(hit_now_);
  if (hit_before_.empty() && hit_now_.empty()) {
    // Only moving keys (every object moving, or the resting ones' hits unchanged): compared as
    // they are, not copied into the lists first (bench-8: 1,500 keys an update).
    sorted_differences(next_moving_keys_, moving_keys_, changes_.began, changes_.ended);
    std::swap(moving_keys_, next_moving_keys_);
    return;
  }
  merge_in(hit_before_, moving_keys_);
  merge_in(hit_now_, next_moving_keys_);
  // A candidate's members rest and a moving key has a moving member, so the halves share no pair;
  // unique() keeps the lists sets should that ever change.
  hit_before_.erase(std::unique(hit_before_.begin(), hit_before_.end()), hit_before_.end());
  hit_now_.erase(std::unique(hit_now_.begin(), hit_now_.end()), hit_now_.end());
  sorted_differences(hit_now_, hit_before_, changes_.began, changes_.ended);
  std::swap(moving_keys_, next_moving_keys_);
}

void PairDiff::give_back(const WorldSize& world) {
  keys_recently_.note(std::max({changes_.began.size(), changes_.ended.size(), hit_before_.size(), hit_now_.size(),
                                next_moving_keys_.size(), moving_keys_.size()}));
  const std::size_t keys = world.keys(keys_recently_);
  for (std::vector<Pair>* list : {&changes_.began, &changes_.ended}) shrink_if_far_below(*list, keys);
  for (std::vector<std::uint64_t>* list : {&hit_before_, &hit_now_, &next_moving_keys_, &moving_keys_}) {
    shrink_if_far_below(*list, keys);
  }
}

std::size_t PairDiff::bytes_held() const noexcept {
  return heap_bytes(changes_.began) + heap_bytes(changes_.ended) + heap_bytes(hit_before_) + heap_bytes(hit_now_) +
         heap_bytes(next_moving_keys_) + heap_bytes(moving_keys_);
}

const char* PairDiff::problem() const {
  if (!ascends_strictly(moving_keys_)) return "PairDiff: the moving keys do not ascend, or repeat";
  if (!ascends_strictly(changes_.began) || !ascends_strictly(changes_.ended)) return "PairDiff: the changes do not ascend, or repeat";
  std::vector<Pair> both;
  std::set_intersection(changes_.began.begin(), changes_.began.end(), changes_.ended.begin(), changes_.ended.end(),
                        std::back_inserter(both));
  if (!both.empty()) return "PairDiff: a pair both began and ended";
  return nullptr;
}

}  // namespace agrid::detail
