#pragma once
// RecentPeak: the most of something the last uses needed, by which the scratch kept between uses
// (a Broadphase update's, a PairFinder call's) is given back.

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace agrid::detail {

/// Scratch kept between uses (the incremental Broadphase's updates, a PairFinder's calls) keeps
/// room for the most it needed in about this many uses, so that a user who needs much now and
/// then allocates nothing between, and one that has calmed down (after a Broadphase's first
/// update, busy over the whole world) gives it back.
constexpr std::uint64_t kRecentUses = 16;

/// The most of something the last uses needed: the largest need noted in the last kRecentUses
/// to 2 * kRecentUses uses (the largest of this window of kRecentUses notes and of the one
/// before), so that neither one small use nor one large one long ago decides it.
class RecentPeak {
 public:
  /// Notes this use's need.
  void note(std::size_t used) noexcept {
    current_ = std::max(current_, used);
    if (++notes_ == kRecentUses) {
      previous_ = current_;
      current_ = 0;
      notes_ = 0;
    }
  }
  [[nodiscard]] std::size_t value() const noexcept { return std::max(previous_, current_); }

 private:
  std::size_t current_ = 0;   ///< The largest need in this window ...
  std::size_t previous_ = 0;  ///< ... and in the window before.
  std::uint64_t notes_ = 0;   ///< Notes in this window.
};

}  // namespace agrid::detail
