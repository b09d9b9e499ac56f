#include "proxy_pair_cache.h"

#include <algorithm>
#include <cstddef>

#include "common/agrid_assert.h"

namespace agrid::bullet_detail {

btBroadphasePair* ProxyPairCache::addOverlappingPair(btBroadphaseProxy* proxy0, btBroadphaseProxy* proxy1) {
  const int before = getNumOverlappingPairs();
  btBroadphasePair* pair = btHashedOverlappingPairCache::addOverlappingPair(proxy0, proxy1);
  if (getNumOverlappingPairs() != before) link(before);  // a new pair goes last
  note(before);
  return pair;
}

void* ProxyPairCache::removeOverlappingPair(btBroadphaseProxy* proxy0, btBroadphaseProxy* proxy1,
                                            btDispatcher* dispatcher) {
  const btBroadphasePair* pair = findPair(proxy0, proxy1);
  if (pair == nullptr) return nullptr;  // as Bullet's: nothing to remove
  const auto index = static_cast<int>(pair - getOverlappingPairArrayPtr());
  const int last = getNumOverlappingPairs() - 1;
  unlink(index);
  // Bullet frees the pair's algorithm, tells the ghost callback, then moves the last pair into
  // the hole.
  void* info = btHashedOverlappingPairCache::removeOverlappingPair(proxy0, proxy1, dispatcher);
  if (index != last) moved(last, index);
  links_.pop_back();
  note(last + 1);
  return info;
}

void ProxyPairCache::removeOverlappingPairsContainingProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher) {
  // Bullet's cache walks the array up and removes each pair of the proxy where it finds it; the
  // last pair then fills the hole and is looked at next. Removing always the proxy's lowest pair
  // does the same: when the last pair was the proxy's too, it is now the lowest.
  collectPairs(proxy);
  std::size_t lowest = 0;
  std::size_t highest = scratch_.size();
  while (lowest < highest) {
    const int index = scratch_[lowest];
    const bool lastIsTheProxys = scratch_[highest - 1] == getNumOverlappingPairs() - 1;
    const btBroadphasePair& pair = getOverlappingPairArray()[index];
    removeOverlappingPair(pair.m_pProxy0, pair.m_pProxy1, dispatcher);
    if (lastIsTheProxys && highest - 1 != lowest) {
      --highest;  // it moved to `index`, still the lowest: removed next
    } else {
      ++lowest;
    }
  }
}

void ProxyPairCache::cleanProxyFromPairs(btBroadphaseProxy* proxy, btDispatcher* dispatcher) {
  collectPairs(proxy);
  for (const int index : scratch_) cleanOverlappingPair(getOverlappingPairArray()[index], dispatcher);
}

void ProxyPairCache::collectPairs(const btBroadphaseProxy* proxy) {
  scratch_.clear();
  const auto* p = static_cast<const btAdaptiveGridProxy*>(proxy);
  for (std::int32_t end = p->m_pairs; end != kNone; end = next(end)) scratch_.push_back(end >> 1);
  std::sort(scratch_.begin(), scratch_.end());
  // A pair of the proxy with itself (only a user can add one) is in its list twice.
  scratch_.erase(std::unique(scratch_.begin(), scratch_.end()), scratch_.end());
}

void ProxyPairCache::link(int index) {
  // Bullet's cache appends a new pair: its lists are the next ones.
  AGRID_ASSERT(index == getNumOverlappingPairs() - 1 && links_.size() == static_cast<std::size_t>(index));
  links_.emplace_back();
  const btBroadphasePair& pair = getOverlappingPairArray()[index];
  for (int side = 0; side < 2; ++side) {
    btAdaptiveGridProxy& proxy = proxyOf(pair, side);
    const std::int32_t end = 2 * index + side;
    next(end) = proxy.m_pairs;
    prev(end) = kNone;
    if (proxy.m_pairs != kNone) prev(proxy.m_pairs) = end;
    proxy.m_pairs = end;
  }
}

void ProxyPairCache::unlink(int index) {
  AGRID_ASSERT(index >= 0 && static_cast<std::size_t>(index) < links_.size());
  const btBroadphasePair& pair = getOverlappingPairArray()[index];
  for (int side = 0; side < 2; ++side) {
    const std::int32_t end = 2 * index + side;
    const std::int32_t after = next(end);
    const std::int32_t before = prev(end);
    if (before != kNone) {
      next(before) = after;
    } else {
      proxyOf(pair, side).m_pairs = after;
    }
    if (after != kNone) prev(after) = before;
  }
}

void ProxyPairCache::moved(int from, int to) {
  // Bullet moved its last pair into the hole of a removed one, not yet popped from the lists.
  AGRID_ASSERT(to < from && static_cast<std::size_t>(from) == links_.size() - 1);
  Links& links = links_[static_cast<std::size_t>(to)];
  links = links_[static_cast<std::size_t>(from)];
  // A pair of a proxy with itself links its own two ends: they move with it.
  for (std::int32_t* end : {&links.next[0], &links.next[1], &links.prev[0], &links.prev[1]}) {
    if (*end != kNone && *end >> 1 == from) *end = 2 * to + (*end & 1);
  }
  const btBroadphasePair& pair = getOverlappingPairArray()[to];  // Bullet has moved it already
  for (int side = 0; side < 2; ++side) {
    const std::int32_t end = 2 * to + side;
    if (prev(end) != kNone) {
      next(prev(end)) = end;
    } else {
      proxyOf(pair, side).m_pairs = end;
    }
    if (next(end) != kNone) prev(next(end)) = end;
  }
}

const char* ProxyPairCache::problem() const {
  const btBroadphasePairArray& pairs = getOverlappingPairArray();
  if (links_.size() != static_cast<std::size_t>(pairs.size())) return "ProxyPairCache: lists and pairs differ in number";
  auto& self = const_cast<ProxyPairCache&>(*this);
  std::size_t ends = 0;
  for (int i = 0; i < pairs.size(); ++i) {
    for (int side = 0; side < 2; ++side) {
      const btAdaptiveGridProxy& proxy = proxyOf(pairs[i], side);
      const std::int32_t end = 2 * i + side;
      const std::int32_t before = self.prev(end);
      if (before == kNone ? proxy.m_pairs != end : self.next(before) != end) return "ProxyPairCache: a list is broken";
      if (before == kNone) {
        for (std::int32_t e = end; e != kNone; e = self.next(e)) {
          if (&proxyOf(pairs[e >> 1], e & 1) != &proxy) return "ProxyPairCache: a list holds another proxy's pair";
          ++ends;
        }
      }
    }
  }
  if (ends != 2 * links_.size()) return "ProxyPairCache: a pair is missing from its lists";
  return nullptr;
}

}  // namespace agrid::bullet_detail
