#include "broadphase/pair_diff.h"

#include <algorithm>
#include <iterator>
#include <span>

#include "common/agrid_assert.h"
#include "common/pair_key.h"
#include "common/slack_growth.h"

namespace agrid::detail {
namespace {

/// An ascending list of distinct keys, read front to back.
class KeyList {
 public:
  explicit KeyList(std::span<const std::uint64_t> keys) noexcept : keys_(keys) {}
  [[nodiscard]] bool empty() const noexcept { return keys_.empty(); }
  [[nodiscard]] std::uint64_t front() const noexcept { return keys_.front(); }
  void pop() noexcept { keys_ = keys_.subspan(1); }

 private:
  std::span<const std::uint64_t> keys_;
};

/// Two ascending key lists read as one ascending list of distinct keys, without copying them
/// into one: an update's moving keys are thousands (bench-4: 9,100), the candidates whose hit
/// changed a few, and a merge into one list wrote (and zeroed) them all twice an update.
class MergedKeys {
 public:
  MergedKeys(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b) noexcept : a_(a), b_(b) {}
  [[nodiscard]] bool empty() const noexcept { return a_.empty() && b_.empty(); }
  [[nodiscard]] std::uint64_t front() const noexcept {
    if (a_.empty()) return b_.front();
    if (b_.empty()) return a_.front();
    return std::min(a_.front(), b_.front());
  }
  /// Drops the front key from both lists (a key in both is one key).
  void pop() noexcept {
    const std::uint64_t key = front();
    if (!a_.empty() && a_.front() == key) a_ = a_.subspan(1);
    if (!b_.empty() && b_.front() == key) b_ = b_.subspan(1);
  }

 private:
  std::span<const std::uint64_t> a_;
  std::span<const std::uint64_t> b_;
};

/// Appends the keys of `now` not in `before` to `began` and the keys of `before` not in `now`
/// to `ended`, both read in ascending order.
template <class Keys>
void sorted_differences(Keys now, Keys before, std::vector<Pair>& began, std::vector<Pair>& ended) {
  while (!now.empty() && !before.empty()) {
    const std::uint64_t n = now.front();
    const std::uint64_t b = before.front();
    if (n < b) {
      began.push_back(pair_of(n));
      now.pop();
    } else if (b < n) {
      ended.push_back(pair_of(b));
      before.pop();
    } else {
      now.pop();
      before.pop();
    }
  }
  for (; !now.empty(); now.pop()) began.push_back(pair_of(now.front()));
  for (; !before.empty(); before.pop()) ended.push_back(pair_of(before.front()));
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
    sorted_differences(KeyList(next_moving_keys_), KeyList(moving_keys_), changes_.began, changes_.ended);
    std::swap(moving_keys_, next_moving_keys_);
    return;
  }
  // A candidate's members rest and a moving key has a moving member, so the halves share no
  // pair; the merged reading takes a key in both once, should that ever change.
  sorted_differences(MergedKeys(hit_now_, next_moving_keys_), MergedKeys(hit_before_, moving_keys_), changes_.began,
                     changes_.ended);
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
