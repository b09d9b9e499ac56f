#pragma once
// btAdaptiveGridProxy: a Bullet proxy with its handle in the agrid::Broadphase behind it, the head
// of its list of pairs in the pair cache, and what the adapter last saw of its filter.

#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>

#include <cstdint>
#include <type_traits>

#include "agrid/broadphase.h"

/// A Bullet proxy with its handle in the agrid::Broadphase behind it.
ATTRIBUTE_ALIGNED16(struct) btAdaptiveGridProxy : public btBroadphaseProxy {
  BT_DECLARE_ALIGNED_ALLOCATOR();

  /// m_handle of a destroyed proxy whose slot has not been reused: destroyProxy refuses it.
  static constexpr agrid::Handle kDestroyed = 0xffffffffu;
  /// m_pairs of a proxy in no pair of the cache.
  static constexpr std::int32_t kNoPairs = -1;

  agrid::Handle m_handle = 0;
  /// The first of this proxy's pairs in the adapter's pair cache (ProxyPairCache's lists), or
  /// kNoPairs.
  std::int32_t m_pairs = kNoPairs;
  /// The filter the adapter last saw (and gave agrid): Bullet code may change
  /// m_collisionFilterGroup/Mask on a live proxy at any time; setAabb compares the two, and so
  /// does every step for the proxies whose filter can change a pair (calculateOverlappingPairs).
  int m_seenGroup = 0;
  int m_seenMask = 0;
  /// The step in which setAabb last reached this proxy (the step's stats count each proxy once).
  std::uint32_t m_setAabbStep = 0;

  btAdaptiveGridProxy(const btVector3& aabbMin, const btVector3& aabbMax, void* userPtr, int group, int mask)
      : btBroadphaseProxy(aabbMin, aabbMax, userPtr, group, mask), m_seenGroup(group), m_seenMask(mask) {}

  /// True iff Bullet code changed the group or mask since the adapter last saw them.
  [[nodiscard]] bool filterChanged() const noexcept {
    return m_collisionFilterGroup != m_seenGroup || m_collisionFilterMask != m_seenMask;
  }
  /// The adapter has seen the filter as it is now.
  void seeFilter() noexcept {
    m_seenGroup = m_collisionFilterGroup;
    m_seenMask = m_collisionFilterMask;
  }
};

// A slot is given back without running a destructor: the proxy's memory keeps kDestroyed until
// it is reused, so that a second destroyProxy can be refused.
static_assert(std::is_trivially_destructible<btAdaptiveGridProxy>::value, "proxies are freed without a destructor");
