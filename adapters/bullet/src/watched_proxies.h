#pragma once
// WatchedProxies: the proxies whose collision filter can change a pair, by agrid handle: those
// whose box overlaps another's (agrid's pairs hold every overlap with a moving member, whatever
// the filters say). The adapter compares their filters every step; the others' are read when a
// pair of theirs begins.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "agrid/broadphase.h"
#include "common/agrid_assert.h"
#include "common/slack_growth.h"

namespace agrid::bullet_detail {

/// Overlap counts by handle and the list of handles with some. Invariant (problem()): a handle
/// with a count is listed, once, and marked; a listed handle is marked; the list is sorted up to
/// the handles listed since the last sweep, which follow.
class WatchedProxies {
 public:
  /// A pair of agrid's holding `h` began.
  void began(agrid::Handle h) {
    if (h >= counts_.size()) counts_.resize(h + std::size_t{1}, 0);
    if (counts_[h] == 0) {
      counts_[h] = kListed;
      listed_.push_back(h);  // after the sorted part, until the next sweep
    }
    ++counts_[h];
    changed_ = true;
  }
  /// A pair of agrid's holding the live `h` ended.
  void ended(agrid::Handle h) noexcept {
    AGRID_ASSERT(h < counts_.size() && (counts_[h] & ~kListed) > 0);
    --counts_[h];
    changed_ = true;
  }
  /// `h`'s proxy was destroyed: its pairs are gone (agrid reports them ended at its next update,
  /// when `h` has no proxy). It stays marked while listed, so that a new proxy given `h` is not
  /// listed twice.
  void destroyed(agrid::Handle h) noexcept {
    if (h < counts_.size()) counts_[h] &= kListed;
    changed_ = true;
  }

  /// Drops the handles without overlaps and calls `look(h)` with each other one, ascending (the
  /// proxies lie in about that order in memory), if `look_at_filters`. O(listed), and nothing
  /// when there is nothing to look at and no count changed since the last sweep.
  template <class Look>
  void sweep(bool look_at_filters, Look&& look) {
    if (!look_at_filters && !changed_) return;
    changed_ = false;
    const auto sorted_end = listed_.begin() + static_cast<std::ptrdiff_t>(sorted_);
    std::sort(sorted_end, listed_.end());
    std::inplace_merge(listed_.begin(), sorted_end, listed_.end());
    std::size_t kept = 0;
    for (const agrid::Handle h : listed_) {
      if (h >= counts_.size() || counts_[h] == kListed) {
        if (h < counts_.size()) counts_[h] = 0;  // unlisted
        continue;
      }
      if (look_at_filters) look(h);
      listed_[kept++] = h;
    }
    listed_.resize(kept);
    sorted_ = kept;
  }

  /// Forgets handles at and above `end` (the adapter's table of proxies ends there), and gives
  /// memory back by agrid's rule.
  void trim(std::size_t end) {
    if (end < counts_.size()) counts_.resize(end);
    agrid::detail::shrink_if_far_below(counts_, counts_.size());
    agrid::detail::shrink_if_far_below(listed_, listed_.size());
  }

  /// agrid's pairs holding `h`, as counted.
  [[nodiscard]] std::uint32_t overlaps(agrid::Handle h) const noexcept { return h < counts_.size() ? counts_[h] & ~kListed : 0; }

  [[nodiscard]] std::size_t bytes_held() const noexcept {
    return counts_.capacity() * sizeof(counts_[0]) + listed_.capacity() * sizeof(listed_[0]);
  }

  /// Empty if the invariant holds, else what is wrong. O(handles + listed).
  [[nodiscard]] const char* problem() const {
    std::vector<std::uint8_t> seen(counts_.size(), 0);
    for (std::size_t i = 0; i < listed_.size(); ++i) {
      const agrid::Handle h = listed_[i];
      if (i > 0 && i < sorted_ && listed_[i - 1] >= h) return "WatchedProxies: the sorted part is not sorted";
      if (h >= counts_.size()) continue;  // dropped at the next sweep
      if ((counts_[h] & kListed) == 0) return "WatchedProxies: a listed handle is not marked";
      if (seen[h]++ != 0) return "WatchedProxies: a handle is listed twice";
    }
    for (std::size_t h = 0; h < counts_.size(); ++h) {
      if (counts_[h] != 0 && seen[h] == 0) return "WatchedProxies: a handle with overlaps is not listed";
    }
    return nullptr;
  }

 private:
  /// The top bit of a count: the handle is listed.
  static constexpr std::uint32_t kListed = 0x80000000u;

  std::vector<std::uint32_t> counts_;  ///< By handle: agrid's pairs holding it, | kListed.
  std::vector<agrid::Handle> listed_;
  std::size_t sorted_ = 0;  ///< listed_[0, sorted_) is sorted.
  bool changed_ = false;    ///< A count changed since the last sweep.
};

}  // namespace agrid::bullet_detail
