#pragma once
// btAdaptiveGridProxy: a Bullet proxy with its handle in the agrid::Broadphase behind it.

#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>

#include <cstdint>

#include "agrid/broadphase.h"

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
