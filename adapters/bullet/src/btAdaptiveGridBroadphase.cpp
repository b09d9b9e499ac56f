#include "agrid/bullet/btAdaptiveGridBroadphase.h"

#include <LinearMath/btAlignedAllocator.h>

#include <algorithm>
#include <iterator>
#include <cstdio>
#include <limits>
#include <new>
#include <stdexcept>

#include "proxy_pool.h"

namespace {

/// Every group meets every mask: what agrid is told when a user's filter callback decides.
constexpr agrid::Filter kPassAll{0xffffffffu, 0xffffffffu};

[[nodiscard]] agrid::Box toBox(const btVector3& aabbMin, const btVector3& aabbMax) noexcept {
  return {{static_cast<float>(aabbMin.x()), static_cast<float>(aabbMin.y()), static_cast<float>(aabbMin.z())},
          {static_cast<float>(aabbMax.x()), static_cast<float>(aabbMax.y()), static_cast<float>(aabbMax.z())}};
}

[[nodiscard]] bool sameXyz(const btVector3& a, const btVector3& b) noexcept {
  return a.x() == b.x() && a.y() == b.y() && a.z() == b.z();
}

[[nodiscard]] agrid::Vec3 toVec3(const btVector3& v) noexcept {
  return {static_cast<float>(v.x()), static_cast<float>(v.y()), static_cast<float>(v.z())};
}

}  // namespace

btAdaptiveGridBroadphase::btAdaptiveGridBroadphase(btOverlappingPairCache* pairCache, const agrid::Config& config)
    : m_broadphase(config),
      m_proxyPool(std::make_unique<agrid::bullet_detail::ProxyPool>()),
      m_pairCache(pairCache),
      m_ownsPairCache(pairCache == nullptr) {
  if (pairCache != nullptr && pairCache->hasDeferredRemoval()) {
    throw std::invalid_argument(
        "btAdaptiveGridBroadphase: a pair cache with deferred removal (btSortedOverlappingPairCache) is not "
        "supported; pass a btHashedOverlappingPairCache or none");
  }
  if (m_ownsPairCache) {
    void* memory = btAlignedAlloc(sizeof(btHashedOverlappingPairCache), 16);
    m_pairCache = new (memory) btHashedOverlappingPairCache();
  }
}

btAdaptiveGridBroadphase::~btAdaptiveGridBroadphase() {
  for (btAdaptiveGridProxy* proxy : m_proxies) {
    if (proxy != nullptr) proxy->~btAdaptiveGridProxy();  // the pool frees the memory
  }
  if (m_ownsPairCache) {
    m_pairCache->~btOverlappingPairCache();
    btAlignedFree(m_pairCache);
  }
}

agrid::Filter btAdaptiveGridBroadphase::filterOf(const btBroadphaseProxy& proxy) const noexcept {
  if (m_userFilter) return kPassAll;
  return {static_cast<std::uint32_t>(proxy.m_collisionFilterGroup), static_cast<std::uint32_t>(proxy.m_collisionFilterMask)};
}

btBroadphaseProxy* btAdaptiveGridBroadphase::createProxy(const btVector3& aabbMin, const btVector3& aabbMax,
                                                         int /*shapeType*/, void* userPtr, int collisionFilterGroup,
                                                         int collisionFilterMask, btDispatcher* /*dispatcher*/) {
  if (m_nextUniqueId == std::numeric_limits<int>::max()) {
    throw std::length_error("btAdaptiveGridBroadphase::createProxy: unique ids exhausted");
  }
  void* memory = m_proxyPool->allocate();
  auto* proxy = new (memory) btAdaptiveGridProxy(aabbMin, aabbMax, userPtr, collisionFilterGroup, collisionFilterMask);
  proxy->m_uniqueId = m_nextUniqueId++;  // from 1, never reused, as btDbvtBroadphase
  proxy->m_agridGroup = collisionFilterGroup;
  proxy->m_agridMask = collisionFilterMask;
  bool created = false;
  try {
    proxy->m_handle = m_broadphase.create(toBox(aabbMin, aabbMax), filterOf(*proxy));
    created = true;
    if (m_proxies.size() <= proxy->m_handle) m_proxies.resize(proxy->m_handle + std::size_t{1}, nullptr);
  } catch (...) {
    if (created) m_broadphase.remove(proxy->m_handle);  // no object without its proxy
    proxy->~btAdaptiveGridProxy();
    m_proxyPool->release(proxy);
    throw;
  }
  m_proxies[proxy->m_handle] = proxy;
  ++m_liveProxies;
  return proxy;
}

void btAdaptiveGridBroadphase::destroyProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher) {
  auto* p = static_cast<btAdaptiveGridProxy*>(proxy);
  // Bullet expects the proxy's pairs gone at once; the next update reports them as ended, and
  // then finds nothing left to remove.
  const int before = m_pairCache->getNumOverlappingPairs();
  m_pairCache->removeOverlappingPairsContainingProxy(p, dispatcher);
  const auto removed = static_cast<std::size_t>(before - m_pairCache->getNumOverlappingPairs());
  m_pairsInCache -= std::min(m_pairsInCache, removed);
  m_broadphase.remove(p->m_handle);
  m_proxies[p->m_handle] = nullptr;
  --m_liveProxies;
  p->~btAdaptiveGridProxy();
  m_proxyPool->release(p);
}

void btAdaptiveGridBroadphase::setAabb(btBroadphaseProxy* proxy, const btVector3& aabbMin, const btVector3& aabbMax,
                                       btDispatcher* /*dispatcher*/) {
  // A filter changed on the live proxy (Bullet code may do that) is passed on first, also for
  // objects that do not move: dbvt would offer their pairs when the other object moves.
  auto* p = static_cast<btAdaptiveGridProxy*>(proxy);
  if (p->m_collisionFilterGroup != p->m_agridGroup || p->m_collisionFilterMask != p->m_agridMask) syncFilter(*p);
  // Static and sleeping objects get their unchanged AABB every step: answer from the proxy.
  // (A NaN compares unequal and takes the long way, where agrid compares bitwise.)
  if (sameXyz(p->m_aabbMin, aabbMin) && sameXyz(p->m_aabbMax, aabbMax)) return;
  p->m_aabbMin = aabbMin;
  p->m_aabbMax = aabbMax;
  m_broadphase.set_box(p->m_handle, toBox(aabbMin, aabbMax));
}

void btAdaptiveGridBroadphase::getAabb(btBroadphaseProxy* proxy, btVector3& aabbMin, btVector3& aabbMax) const {
  aabbMin = proxy->m_aabbMin;
  aabbMax = proxy->m_aabbMax;
}

void btAdaptiveGridBroadphase::rayTest(const btVector3& rayFrom, const btVector3& rayTo,
                                       btBroadphaseRayCallback& rayCallback, const btVector3& aabbMin,
                                       const btVector3& aabbMax) {
  const agrid::Segment segment{toVec3(rayFrom), toVec3(rayTo), toBox(aabbMin, aabbMax)};
  m_broadphase.for_each_hit(segment, [&](agrid::Handle h) { rayCallback.process(m_proxies[h]); });
}

void btAdaptiveGridBroadphase::aabbTest(const btVector3& aabbMin, const btVector3& aabbMax,
                                        btBroadphaseAabbCallback& callback) {
  m_broadphase.for_each_overlap(toBox(aabbMin, aabbMax), [&](agrid::Handle h) { callback.process(m_proxies[h]); });
}

void btAdaptiveGridBroadphase::syncFilter(btAdaptiveGridProxy& proxy) {
  proxy.m_agridGroup = proxy.m_collisionFilterGroup;
  proxy.m_agridMask = proxy.m_collisionFilterMask;
  m_broadphase.set_filter(proxy.m_handle, filterOf(proxy));
}

void btAdaptiveGridBroadphase::applyFilterMode() {
  // A user's filter callback may accept pairs that groups and masks refuse: then agrid offers
  // every overlapping pair and the cache decides, as it does for btDbvtBroadphase.
  const bool userFilter = m_pairCache->getOverlapFilterCallback() != nullptr;
  if (userFilter == m_userFilter) return;
  m_userFilter = userFilter;
  for (btAdaptiveGridProxy* proxy : m_proxies) {
    if (proxy != nullptr) m_broadphase.set_filter(proxy->m_handle, filterOf(*proxy));
  }
}

void btAdaptiveGridBroadphase::toProxyPairs(const std::vector<agrid::Pair>& pairs, std::vector<ProxyPair>& out) const {
  out.clear();
  for (const auto [a, b] : pairs) {
    btBroadphaseProxy* pa = m_proxies[a];
    btBroadphaseProxy* pb = m_proxies[b];
    if (pa == nullptr || pb == nullptr) continue;  // destroyed: its pairs were purged then
    if (pa->m_uniqueId > pb->m_uniqueId) std::swap(pa, pb);
    out.push_back({pa, pb});
  }
  // Bullet dispatches and solves in the cache's order: apply changes in ascending unique ids.
  std::sort(out.begin(), out.end(), [](const ProxyPair& x, const ProxyPair& y) {
    return x.first->m_uniqueId != y.first->m_uniqueId ? x.first->m_uniqueId < y.first->m_uniqueId
                                                      : x.second->m_uniqueId < y.second->m_uniqueId;
  });
}

void btAdaptiveGridBroadphase::calculateOverlappingPairs(btDispatcher* dispatcher) {
  applyFilterMode();
  const agrid::PairChanges& changes = m_broadphase.update();
  toProxyPairs(changes.ended, m_scratch);
  for (const ProxyPair& p : m_scratch) {
    const int before = m_pairCache->getNumOverlappingPairs();
    m_pairCache->removeOverlappingPair(p.first, p.second, dispatcher);
    if (m_pairCache->getNumOverlappingPairs() < before) --m_pairsInCache;
  }
  if (!m_refused.empty() && !changes.ended.empty()) {  // refused pairs that ended are forgotten
    m_offered.clear();
    std::set_difference(m_refused.begin(), m_refused.end(), changes.ended.begin(), changes.ended.end(),
                        std::back_inserter(m_offered));
    std::swap(m_refused, m_offered);
  }
  addPairs(changes.began);
  // Fewer pairs in the cache than agrid put there: the user removed some (after changing
  // filters, cleanProxyFromPairs, refreshBroadphaseProxy). Add back those that still overlap.
  if (static_cast<std::size_t>(m_pairCache->getNumOverlappingPairs()) < m_pairsInCache) reconcile();
}

void btAdaptiveGridBroadphase::addPairs(const std::vector<agrid::Pair>& began) {
  // The pairs that began, and those refused before, offered in ascending unique ids.
  m_offered.clear();
  std::merge(began.begin(), began.end(), m_refused.begin(), m_refused.end(), std::back_inserter(m_offered));
  m_refused.clear();
  toProxyPairs(m_offered, m_scratch);
  for (const ProxyPair& p : m_scratch) offer(p, false);
  std::sort(m_refused.begin(), m_refused.end());
}

void btAdaptiveGridBroadphase::offer(const ProxyPair& p, bool mayBeInCache) {
  // A pair already in the cache counts even if the cache's filter would now refuse to add it.
  const bool inCache = (mayBeInCache && m_pairCache->findPair(p.first, p.second) != nullptr) ||
                       m_pairCache->addOverlappingPair(p.first, p.second) != nullptr;
  if (inCache) {
    ++m_pairsInCache;
    return;
  }
  const agrid::Handle a = static_cast<btAdaptiveGridProxy*>(p.first)->m_handle;
  const agrid::Handle b = static_cast<btAdaptiveGridProxy*>(p.second)->m_handle;
  m_refused.push_back({std::min(a, b), std::max(a, b)});
}

void btAdaptiveGridBroadphase::reconcile() {
  const std::span<const agrid::Pair> all = m_broadphase.pairs();
  m_offered.assign(all.begin(), all.end());
  toProxyPairs(m_offered, m_scratch);
  m_pairsInCache = 0;
  m_refused.clear();
  for (const ProxyPair& p : m_scratch) offer(p, true);
  std::sort(m_refused.begin(), m_refused.end());
}

void btAdaptiveGridBroadphase::getBroadphaseAabb(btVector3& aabbMin, btVector3& aabbMax) const {
  // Bounds of all proxies with valid AABBs; an empty world reports a zero box.
  bool any = false;
  for (const btAdaptiveGridProxy* proxy : m_proxies) {
    if (proxy == nullptr || !agrid::is_valid(toBox(proxy->m_aabbMin, proxy->m_aabbMax))) continue;
    if (!any) {
      aabbMin = proxy->m_aabbMin;
      aabbMax = proxy->m_aabbMax;
      any = true;
      continue;
    }
    aabbMin.setMin(proxy->m_aabbMin);
    aabbMax.setMax(proxy->m_aabbMax);
  }
  if (!any) aabbMin = aabbMax = btVector3(0, 0, 0);
}

void btAdaptiveGridBroadphase::resetPool(btDispatcher* /*dispatcher*/) {
  // Nothing is pooled: memory is kept for reuse by the next steps and freed with the broadphase.
}

void btAdaptiveGridBroadphase::printStats() {
  const agrid::BroadphaseStats s = m_broadphase.stats();
  std::printf(
      "btAdaptiveGridBroadphase: %u objects (%u moving, %u resting, %u invalid), %u pairs, %llu resting rebuilds, "
      "%zu bytes\n",
      s.objects, s.moving, s.resting, s.invalid, s.pairs, static_cast<unsigned long long>(s.resting_rebuilds),
      s.bytes_held);
}
