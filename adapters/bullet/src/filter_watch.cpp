#include "filter_watch.h"

#include <cstdint>
#include <span>
#include <vector>

namespace agrid::bullet_detail {

void FilterWatch::before_update(const ProxyTable& table) {
  // Only a proxy in a pair of agrid's (its box overlaps another's) can have a pair of the cache
  // accepted or refused anew by a filter change. The others' filters are read when a pair of
  // theirs begins. So a static level whose objects overlap nothing costs nothing here. (Even
  // when every proxy got its setAabb in the step: a filter may have been written after it.)
  // With the watch off, only setAabb looks; the list is still kept, in handle order.
  watched_.sweep(watch_at_rest_, [&](agrid::Handle h) {
    if (btAdaptiveGridProxy* proxy = table.find(h)) look(*proxy);
  });
}

void FilterWatch::after_update(const agrid::PairChanges& changes, const ProxyTable& table) {
  for (const agrid::Pair& pair : changes.ended) {
    for (const agrid::Handle h : {pair.first, pair.second}) {
      if (table.find(h) != nullptr) watched_.ended(h);  // a destroyed proxy's count went with it
    }
  }
  for (const agrid::Pair& pair : changes.began) {
    for (const agrid::Handle h : {pair.first, pair.second}) {
      btAdaptiveGridProxy& proxy = table.at(h);  // pairs begin between live objects
      // With its first pair a proxy is watched, and the cache decides its pairs with its filter
      // as it is now: that filter is seen, so that a later change back is not missed. A proxy
      // that was in pairs already has them decided by the filter seen before: a change is looked at.
      if (watched_.overlaps(h) == 0) proxy.seeFilter();
      look(proxy);
      watched_.began(h);
    }
  }
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
