#pragma once
// FilterWatch: how the collision filters Bullet code writes into live proxies reach the pair
// cache. The whole rule, in one place:
//
// * agrid is given no filter: its pairs are every overlap, and the pair cache decides each pair
//   when it begins, with the filters (or the btOverlapFilterCallback) as they are then. So the
//   one update() a step uses no filter that can be stale.
// * A proxy's filter matters to the cache only while the proxy is in a pair of agrid's: those
//   proxies are watched. A filter is compared with the one last seen by setAabb; every step, for
//   the watched proxies, unless setWatchFiltersAtRest(false); and for each proxy in a pair that
//   began (a proxy with its first pair is decided with its filter as it is: that is seen).
// * A change makes the cache be asked again about every pair (the adapter's reconcile).
//
// So with the watch on, the cache holds exactly agrid's overlapping pairs that the filters
// accept as they are at the step's end. A live filter write costs a look at each watched proxy
// a step, and a reconcile (O(pairs)) in the step that sees it. With the watch off, a filter
// written into a proxy that gets no setAabb (a static object under
// setForceUpdateAllAabbs(false)) is read when a pair of its begins, as btDbvtBroadphase reads
// filters only when it adds a pair, and the watched proxies cost nothing a step.

#include <cstddef>

#include "adaptive_grid_proxy.h"
#include "agrid/broadphase.h"
#include "common/agrid_assert.h"
#include "proxy_table.h"
#include "watched_proxies.h"

namespace agrid::bullet_detail {

/// The filters the adapter has seen. Invariant (problem()): the watched list's own, and its
/// overlap counts are agrid's pairs per live proxy.
class FilterWatch {
 public:
  /// Sees the live `proxy`'s filter; if it changed since last seen, the pairs must be rechecked.
  void look(btAdaptiveGridProxy& proxy) noexcept {
    AGRID_ASSERT(proxy.m_handle != btAdaptiveGridProxy::kDestroyed);
    if (!proxy.filterChanged()) return;
    proxy.seeFilter();
    recheck_ = true;
  }

  /// setWatchFiltersAtRest: whether each step looks at the watched proxies.
  void watch_at_rest(bool on) noexcept { watch_at_rest_ = on; }
  [[nodiscard]] bool watches_at_rest() const noexcept { return watch_at_rest_; }

  /// Before the step's update: the watched proxies' filters are looked at (with the watch on).
  void before_update(const ProxyTable& table);

  /// After the update: counts the pairs that began and ended per proxy, and looks at the filter
  /// of each proxy in a pair that began.
  void after_update(const agrid::PairChanges& changes, const ProxyTable& table);

  /// True once after a filter change was seen: the cache must be asked again about every pair.
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
  /// The proxies whose filter can change a pair: those in a pair of agrid's.
  WatchedProxies watched_;
  bool watch_at_rest_ = true;
  /// A filter change was seen since the last take_recheck.
  bool recheck_ = false;
};

}  // namespace agrid::bullet_detail
