#pragma once
// HandlePool: the incremental Broadphase's handles to give out again.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <limits>
#include <span>
#include <vector>

#include "agrid/broadphase.h"
#include "common/slack_growth.h"

namespace agrid::detail {

/// The most objects a Broadphase holds at once: handles stay below the highest Handle value,
/// which the resting tree and the candidate lists keep to mean "none".
constexpr std::size_t kMaxObjects = std::size_t{std::numeric_limits<Handle>::max()} - 1;

/// Handles to give out: removed ones become reusable only after the update that reports the end
/// of their pairs, and the lowest is reused first. Invariant (problem(), after an update): every
/// removed handle is reusable, and the reusable ones descend, each once.
class HandlePool {
 public:
  /// A reusable handle, or `next` (the first never used) when there is none.
  [[nodiscard]] Handle take(Handle next) {
    if (free_.empty()) return next;
    const Handle h = free_.back();
    free_.pop_back();
    return h;
  }
  void removed(Handle h) { removed_.push_back(h); }
  /// The update has reported the removed handles' pairs: they are reusable now.
  void recycle() {
    if (removed_.empty()) return;
    free_.insert(free_.end(), removed_.begin(), removed_.end());
    removed_.clear();
    std::sort(free_.begin(), free_.end(), std::greater<>());
  }
  /// The table ends at `end` now: forgets the reusable handles from `end` on. They are the
  /// highest, first in free_; there are some only after an update that removed objects, whose
  /// recycle() sorted all of free_ already.
  void forget_from(Handle end) {
    free_.erase(free_.begin(), std::find_if(free_.begin(), free_.end(), [end](Handle h) { return h < end; }));
  }
  /// Gives memory back where it is far below what `objects` live objects ask (slack_growth.h).
  [[gnu::cold]] void give_back(std::size_t objects) {
    shrink_if_far_below(free_, objects);
    shrink_if_far_below(removed_, objects);
  }
  [[nodiscard]] std::size_t bytes_held() const noexcept { return heap_bytes(free_) + heap_bytes(removed_); }
  /// Reusable handles.
  [[nodiscard]] std::span<const Handle> reusable() const noexcept { return free_; }
  /// Null if the invariant holds and no reusable handle is at or past `end`; else what is broken.
  [[nodiscard]] const char* problem(std::size_t end) const {
    if (!removed_.empty()) return "HandlePool: removed handles not reusable after an update";
    if (std::adjacent_find(free_.begin(), free_.end(), std::less_equal<>()) != free_.end()) {
      return "HandlePool: reusable handles do not descend, or repeat";
    }
    if (!free_.empty() && free_.front() >= end) return "HandlePool: a reusable handle is past the table's end";
    return nullptr;
  }

 private:
  std::vector<Handle> free_;     ///< Reusable now, lowest last.
  std::vector<Handle> removed_;  ///< Removed since the last update.
};

}  // namespace agrid::detail
