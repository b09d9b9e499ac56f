#pragma once
// btAdaptiveGridBroadphase: agrid as a Bullet broadphase, a drop-in for btDbvtBroadphase.

#include <BulletCollision/BroadphaseCollision/btBroadphaseInterface.h>
#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>
#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "agrid/broadphase.h"
#include "agrid/config.h"

namespace agrid::bullet_detail {
class ProxyPool;
class WatchedPairCache;
}  // namespace agrid::bullet_detail

/// A Bullet proxy with its handle in the agrid::Broadphase behind it.
ATTRIBUTE_ALIGNED16(struct) btAdaptiveGridProxy : public btBroadphaseProxy {
  BT_DECLARE_ALIGNED_ALLOCATOR();

  agrid::Handle m_handle = 0;
  /// The filter agrid was last given: Bullet code may change m_collisionFilterGroup/Mask on a
  /// live proxy at any time, and the broadphase compares the two to see it.
  int m_agridGroup = 0;
  int m_agridMask = 0;
  /// The step in which the filters were last compared (see calculateOverlappingPairs).
  std::uint32_t m_filterCheckedStep = 0;

  btAdaptiveGridProxy(const btVector3& aabbMin, const btVector3& aabbMax, void* userPtr, int group, int mask)
      : btBroadphaseProxy(aabbMin, aabbMax, userPtr, group, mask) {}
};

/// Bullet's btBroadphaseInterface on agrid::Broadphase. Replace `new btDbvtBroadphase()` with
/// `new btAdaptiveGridBroadphase()`: the world's narrowphase, solver and queries stay Bullet's.
///
/// * Pairs are exact: after calculateOverlappingPairs the pair cache holds every pair of stored
///   AABBs that overlap (closed boxes) and that the live filters accept (groups and masks as
///   they are on the proxies now, or the cache's btOverlapFilterCallback), and nothing else.
///   Only pairs that began are added and only pairs that ended are removed, in ascending order
///   of unique ids, so persistent pairs keep their algorithms and manifolds.
/// * Pairs that others add to or remove from the cache are repaired by the next
///   calculateOverlappingPairs.
/// * setAabb stores and costs O(1); unchanged AABBs (static and sleeping objects every step)
///   cost a comparison. Objects that stop moving rest in a grid that is not rebuilt each step.
/// * rayTest and aabbTest never miss: they query the grids (and objects changed since the last
///   calculateOverlappingPairs directly).
/// * AABBs with a NaN or min > max pair with nothing (counted in stats); static planes (±1e18)
///   and other huge objects are handled as oversize boxes.
/// * Large moving sets use all threads of the caller's task arena; the result does not depend
///   on the number of threads.
class btAdaptiveGridBroadphase : public btBroadphaseInterface {
 public:
  /// Uses `pairCache` if given (not owned), else owns a btHashedOverlappingPairCache. A
  /// btNullPairCache makes a queries-only broadphase: no pairs are computed, rayTest and
  /// aabbTest work. Other caches with deferred removal (btSortedOverlappingPairCache) are
  /// refused with std::invalid_argument naming them, and so is an unusable config.
  explicit btAdaptiveGridBroadphase(btOverlappingPairCache* pairCache = nullptr, const agrid::Config& config = {});
  ~btAdaptiveGridBroadphase() override;
  btAdaptiveGridBroadphase(const btAdaptiveGridBroadphase&) = delete;
  btAdaptiveGridBroadphase& operator=(const btAdaptiveGridBroadphase&) = delete;

  btBroadphaseProxy* createProxy(const btVector3& aabbMin, const btVector3& aabbMax, int shapeType, void* userPtr,
                                 int collisionFilterGroup, int collisionFilterMask, btDispatcher* dispatcher) override;
  void destroyProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher) override;
  void setAabb(btBroadphaseProxy* proxy, const btVector3& aabbMin, const btVector3& aabbMax,
               btDispatcher* dispatcher) override;
  void getAabb(btBroadphaseProxy* proxy, btVector3& aabbMin, btVector3& aabbMax) const override;
  void rayTest(const btVector3& rayFrom, const btVector3& rayTo, btBroadphaseRayCallback& rayCallback,
               const btVector3& aabbMin = btVector3(0, 0, 0), const btVector3& aabbMax = btVector3(0, 0, 0)) override;
  void aabbTest(const btVector3& aabbMin, const btVector3& aabbMax, btBroadphaseAabbCallback& callback) override;
  void calculateOverlappingPairs(btDispatcher* dispatcher) override;
  btOverlappingPairCache* getOverlappingPairCache() override { return m_pairCache; }
  const btOverlappingPairCache* getOverlappingPairCache() const override { return m_pairCache; }
  void getBroadphaseAabb(btVector3& aabbMin, btVector3& aabbMax) const override;
  void resetPool(btDispatcher* dispatcher) override;
  void printStats() override;

  /// The agrid broadphase behind the adapter (stats, queries in handles).
  [[nodiscard]] const agrid::Broadphase& broadphase() const noexcept { return m_broadphase; }

 private:
  struct ProxyPair {
    btBroadphaseProxy* first;  ///< The lower unique id.
    btBroadphaseProxy* second;
  };

  [[nodiscard]] agrid::Filter filterOf(const btBroadphaseProxy& proxy) const noexcept;
  void syncFilter(btAdaptiveGridProxy& proxy);
  void syncAllFilters();
  [[nodiscard]] bool applyFilterCallback();
  void removePairs(const std::vector<agrid::Pair>& pairs, btDispatcher* dispatcher);
  void forgetRefused(const std::vector<agrid::Pair>& ended);
  void addPairs(const std::vector<agrid::Pair>& began);
  /// Adds the pairs to the cache, in ascending unique ids; those it refuses go to m_refused.
  void offer(const std::vector<agrid::Pair>& pairs);
  void toProxyPairs(const std::vector<agrid::Pair>& pairs, std::vector<ProxyPair>& out) const;
  [[nodiscard]] bool cacheChangedOutside();
  [[nodiscard]] bool cacheHoldsAcceptedPairs() const;
  void reconcile(btDispatcher* dispatcher);

  agrid::Broadphase m_broadphase;
  std::unique_ptr<agrid::bullet_detail::ProxyPool> m_proxyPool;
  btOverlappingPairCache* m_pairCache;
  /// The cache the adapter owns and watches (null when the user gave one).
  agrid::bullet_detail::WatchedPairCache* m_watchedCache = nullptr;
  /// A btNullPairCache was given: no pairs, queries only.
  bool m_queriesOnly = false;
  std::vector<btAdaptiveGridProxy*> m_proxies;  ///< By handle; null once destroyed.
  int m_nextUniqueId = 1;
  std::uint32_t m_liveProxies = 0;
  /// Steps counted by calculateOverlappingPairs, and the live proxies whose filter setAabb has
  /// compared in this step: when that is all of them, no scan is needed. (Exact through the
  /// proxies' stamps: a proxy given two setAabb calls counts once.)
  std::uint32_t m_step = 1;
  std::uint32_t m_filtersChecked = 0;
  /// The cache's btOverlapFilterCallback as last seen. While one is set it decides pairs on its
  /// own: agrid does not filter by group and mask and every overlapping pair is offered.
  btOverlapFilterCallback* m_filterCallback = nullptr;
  /// A filter changed while a callback decides: the callback is asked again about every pair.
  bool m_recheckPairs = false;
  /// Pairs of agrid's set (handles, sorted) that the cache refused (its filter callback):
  /// offered again every step while they overlap, since the callback's answer may change.
  std::vector<agrid::Pair> m_refused;
  // Scratch, kept between steps: pairs offered, in the cache, to remove, missing; as proxies.
  std::vector<agrid::Pair> m_offered;
  std::vector<agrid::Pair> m_cached;
  std::vector<agrid::Pair> m_stale;
  std::vector<agrid::Pair> m_missing;
  std::vector<ProxyPair> m_scratch;
};
