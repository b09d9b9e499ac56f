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
}

/// A Bullet proxy with its handle in the agrid::Broadphase behind it.
ATTRIBUTE_ALIGNED16(struct) btAdaptiveGridProxy : public btBroadphaseProxy {
  BT_DECLARE_ALIGNED_ALLOCATOR();

  agrid::Handle m_handle = 0;
  /// The filter agrid was last given: Bullet code may change m_collisionFilterGroup/Mask on a
  /// live proxy, and setAabb passes the change on.
  int m_agridGroup = 0;
  int m_agridMask = 0;

  btAdaptiveGridProxy(const btVector3& aabbMin, const btVector3& aabbMax, void* userPtr, int group, int mask)
      : btBroadphaseProxy(aabbMin, aabbMax, userPtr, group, mask) {}
};

/// Bullet's btBroadphaseInterface on agrid::Broadphase. Replace `new btDbvtBroadphase()` with
/// `new btAdaptiveGridBroadphase()`: the world's narrowphase, solver and queries stay Bullet's.
///
/// * Pairs are exact: after calculateOverlappingPairs the pair cache holds every pair of stored
///   AABBs that overlap (closed boxes) and pass the filters, and nothing else. Only pairs that
///   began are added and only pairs that ended are removed, in ascending order of unique ids,
///   so persistent pairs keep their algorithms and manifolds.
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
  /// Uses `pairCache` if given (not owned; a cache with deferred removal, such as
  /// btSortedOverlappingPairCache, is refused with std::invalid_argument), else owns a
  /// btHashedOverlappingPairCache. Throws std::invalid_argument for an unusable config.
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
  void applyFilterMode();
  void addPairs(const std::vector<agrid::Pair>& began);
  /// Adds the pair to the cache (counted) or, refused, to m_refused; `mayBeInCache` looks first.
  void offer(const ProxyPair& pair, bool mayBeInCache);
  void toProxyPairs(const std::vector<agrid::Pair>& pairs, std::vector<ProxyPair>& out) const;
  void reconcile();

  agrid::Broadphase m_broadphase;
  std::unique_ptr<agrid::bullet_detail::ProxyPool> m_proxyPool;
  btOverlappingPairCache* m_pairCache;
  bool m_ownsPairCache;
  std::vector<btAdaptiveGridProxy*> m_proxies;  ///< By handle; null once destroyed.
  int m_nextUniqueId = 1;
  std::uint32_t m_liveProxies = 0;
  /// A user's btOverlapFilterCallback decides pairs on its own: then agrid does not filter by
  /// group and mask and every overlapping pair is offered to the cache.
  bool m_userFilter = false;
  /// Pairs of agrid's set that are in the cache, as far as the adapter knows; fewer pairs in the
  /// cache means the user removed some, and they are added back.
  std::size_t m_pairsInCache = 0;
  /// Pairs of agrid's set (handles, sorted) that the cache refused (a user's filter callback,
  /// or a filter changed where agrid could not see it): offered again every step while they
  /// overlap, as btSimpleBroadphase does, since the cache's answer may change.
  std::vector<agrid::Pair> m_refused;
  std::vector<agrid::Pair> m_offered;
  std::vector<ProxyPair> m_scratch;
};
