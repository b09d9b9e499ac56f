#include "filter_watch.h"

namespace agrid::bullet_detail {

void FilterWatch::pass_on(btAdaptiveGridProxy& proxy, agrid::Broadphase& broadphase) {
  proxy.seeFilter();
  recheck_ = true;
  // While a callback decides agrid is told pass-all, whatever the proxy's filter: nothing for it
  // to decide anew, and no second update for it.
  if (pass_all_) return;
  broadphase.set_filter(proxy.m_handle, filter_of(proxy));
  passed_on_ = true;
}

void FilterWatch::look_at(std::span<const agrid::Handle> handles, const ProxyTable& table, agrid::Broadphase& broadphase) {
  for (const agrid::Handle h : handles) {
    if (btAdaptiveGridProxy* proxy = table.find(h)) look(*proxy, broadphase);
  }
}

void FilterWatch::set_callback_decides(bool callback_decides, const ProxyTable& table, agrid::Broadphase& broadphase) {
  if (callback_decides == pass_all_) return;
  pass_all_ = callback_decides;
  // agrid filters by group and mask exactly while no callback is set.
  for (btAdaptiveGridProxy* proxy : table.by_handle()) {
    if (proxy != nullptr) broadphase.set_filter(proxy->m_handle, filter_of(*proxy));
  }
}

void FilterWatch::before_update(ProxyTable& table, agrid::Broadphase& broadphase) {
  // Only a proxy whose box overlaps another's can gain or lose a pair by a filter change. Those
  // in a pair of agrid's (which holds every overlap with a moving member, whatever the filters
  // say) are the watched list; those agrid refused a pair among resting objects it lists itself.
  // The others' filters are read when a pair of theirs begins, as the cache decides on it. So a
  // static level whose objects overlap nothing of their own costs nothing here. (Even when every
  // proxy got its setAabb in the step: a filter may have been written after it.) With the watch
  // off, only setAabb looks; the list is still kept, in handle order.
  watched_.sweep(watch_at_rest_, [&](agrid::Handle h) {
    if (btAdaptiveGridProxy* proxy = table.find(h)) look(*proxy, broadphase);
  });
  if (watch_at_rest_) look_at(broadphase.refused_at_rest(), table, broadphase);
  // New proxies' filters may have been written since createProxy.
  table.take_created([&](btAdaptiveGridProxy& proxy) { look(proxy, broadphase); });
  passed_on_ = false;
}

bool FilterWatch::after_update(const agrid::PairChanges& changes, const ProxyTable& table, agrid::Broadphase& broadphase) {
  AGRID_ASSERT(!passed_on_);  // before_update, or the last after_update, took it
  for (const agrid::Pair& pair : changes.ended) {
    for (const agrid::Handle h : {pair.first, pair.second}) {
      if (table.find(h) != nullptr) watched_.ended(h);  // a destroyed proxy's count went with it
    }
  }
  // From its first pair a proxy is watched, and the cache decides its pairs with its filter as
  // it is now: that is the filter seen from here (a change unseen is passed on at once, and the
  // pairs asked about again), so that a later change back is not missed.
  for (const agrid::Pair& pair : changes.began) {
    for (const agrid::Handle h : {pair.first, pair.second}) {
      look(table.at(h), broadphase);  // pairs begin between live objects
      watched_.began(h);
    }
  }
  // agrid decided the pairs of objects that joined its resting tree by the filters it was last
  // given: where one turns out changed unseen (as a proxy at rest that overlapped nothing meets
  // a new one), agrid is told, and must update again.
  look_at(broadphase.newly_refused_at_rest(), table, broadphase);
  const bool again = passed_on_;
  passed_on_ = false;
  return again;
}

const char* FilterWatch::problem(const agrid::Broadphase& broadphase, const ProxyTable& table) const {
  if (const char* p = watched_.problem()) return p;
  // Every live proxy's overlaps are counted: agrid's pairs, per handle.
  const std::span<btAdaptiveGridProxy* const> proxies = table.by_handle();
  std::vector<std::uint32_t> overlaps(proxies.size(), 0);
  for (const agrid::Pair& pair : broadphase.pairs()) {
    if (pair.second >= proxies.size()) return "FilterWatch: agrid holds a pair of a handle with no proxy";
    ++overlaps[pair.first];
    ++overlaps[pair.second];
  }
  for (agrid::Handle h = 0; h < overlaps.size(); ++h) {
    if (proxies[h] != nullptr && overlaps[h] != watched_.overlaps(h)) return "FilterWatch: overlaps miscounted";
  }
  return nullptr;
}

}  // namespace agrid::bullet_detail
