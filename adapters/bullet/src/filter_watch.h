#pragma once
// FilterWatch: how the collision filters Bullet code writes into live proxies reach agrid and
// the pair cache. The whole rule, in one place:
//
// * agrid is told each proxy's group and mask as the adapter last saw them (pass-all for everyone
//   while a btOverlapFilterCallback decides: the callback may accept what they refuse). It uses
//   them only for pairs of two objects at rest; pairs with a moving member are all reported, and
//   the pair cache decides those with the filters as they are when the pair begins (the adapter
//   runs agrid with Config::filter_moving_pairs off).
// * A proxy's filter is compared with the one last seen: by setAabb; every step, for the proxies
//   whose filter can change a pair, those in a pair of agrid's (the watched list: their box
//   overlaps another's) and those agrid refused a pair at rest, unless setWatchFiltersAtRest(false);
//   for proxies created since the last step; and for each proxy in a pair that began, and each
//   that agrid newly refused a pair at rest, after the update. A change is passed on to agrid
//   (it decides that object's resting pairs anew) and makes the cache be asked again about every
//   pair (the adapter's reconcile).
// * A change found after an update, on a proxy whose stale filter agrid just used, makes the
//   step update agrid again, until no filter agrid used was stale (each proxy is passed on at
//   most once a step).
//
// So with the watch on, the cache holds exactly agrid's overlapping pairs that the filters
// accept as they are at the step's end. With it off, a filter written into a proxy that gets no
// setAabb (a static object under setForceUpdateAllAabbs(false)) is read when a pair of its
// begins, as btDbvtBroadphase reads filters only when it adds a pair.

#include <cstddef>
#include <cstdint>
#include <span>

#include "adaptive_grid_proxy.h"
#include "agrid/broadphase.h"
#include "common/agrid_assert.h"
#include "proxy_table.h"
#include "watched_proxies.h"

namespace agrid::bullet_detail {

/// The filters the adapter has seen and passed on to agrid. Invariant (problem()): the watched
/// list's own, and its overlap counts are agrid's pairs per live proxy.
class FilterWatch {
 public:
  /// What agrid is told of `proxy`'s filter: the one last seen, or pass-all while a callback decides.
  [[nodiscard]] agrid::Filter filter_of(const btAdaptiveGridProxy& proxy) const noexcept {
    if (pass_all_) return kPassAll;
    return {static_cast<std::uint32_t>(proxy.m_seenGroup), static_cast<std::uint32_t>(proxy.m_seenMask)};
  }

  /// Sees the live `proxy`'s filter and tells agrid, if it changed since last seen.
  void look(btAdaptiveGridProxy& proxy, agrid::Broadphase& broadphase) {
    AGRID_ASSERT(proxy.m_handle != btAdaptiveGridProxy::kDestroyed);
    if (proxy.filterChanged()) pass_on(proxy, broadphase);
  }

  /// setWatchFiltersAtRest: whether each step looks at the watched proxies and those refused at rest.
  void watch_at_rest(bool on) noexcept { watch_at_rest_ = on; }
  [[nodiscard]] bool watches_at_rest() const noexcept { return watch_at_rest_; }

  /// A filter callback came (`callback_decides`) or went: agrid is told every proxy's filter anew.
  void set_callback_decides(bool callback_decides, const ProxyTable& table, agrid::Broadphase& broadphase);

  /// Before the step's first update: the filters of the watched proxies, of those refused at
  /// rest (with the watch on) and of those created since the last step are looked at.
  void before_update(ProxyTable& table, agrid::Broadphase& broadphase);

  /// After an update: counts the pairs that began and ended per proxy (a proxy with its first is
  /// watched, and its filter looked at) and looks at the filters of the proxies agrid newly
  /// refused a pair at rest. True iff a filter agrid used in the update was stale: it must update
  /// again.
  [[nodiscard]] bool after_update(const agrid::PairChanges& changes, const ProxyTable& table,
                                  agrid::Broadphase& broadphase);

  /// True once after a filter was passed on: the cache must be asked again about every pair.
  [[nodiscard]] bool take_recheck() noexcept {
    const bool recheck = recheck_;
    recheck_ = false;
    return recheck;
  }

  /// The proxy of handle `h` was destroyed.
  void destroyed(agrid::Handle h) noexcept { watched_.destroyed(h); }
  /// The table of proxies ends at `end`: memory given back by agrid's rule.
  void trim(std::size_t end) { watched_.trim(end); }

  [[nodiscard]] std::size_t bytes_held() const noexcept { return watched_.bytes_held(); }

  /// Empty if the invariant holds, else what is wrong. O(proxies + agrid's pairs).
  [[nodiscard]] const char* problem(const agrid::Broadphase& broadphase, const ProxyTable& table) const;

 private:
  /// Every group meets every mask: what agrid is told while a user's filter callback decides.
  static constexpr agrid::Filter kPassAll{0xffffffffu, 0xffffffffu};

  void pass_on(btAdaptiveGridProxy& proxy, agrid::Broadphase& broadphase);
  /// Looks at the proxies of `handles` that live (agrid may list removed ones).
  void look_at(std::span<const agrid::Handle> handles, const ProxyTable& table, agrid::Broadphase& broadphase);

  /// The proxies whose filter can change a pair: those with an overlapping box.
  WatchedProxies watched_;
  bool watch_at_rest_ = true;
  /// A filter callback decides: agrid is told pass-all for every proxy.
  bool pass_all_ = false;
  /// A filter was passed on since the last take_recheck.
  bool recheck_ = false;
  /// A filter was passed on since the last update began.
  bool passed_on_ = false;
};

}  // namespace agrid::bullet_detail
