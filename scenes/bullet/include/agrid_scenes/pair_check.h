#pragma once
// The check of a broadphase's pair cache against the exact pairs of the world's stored AABBs,
// written for the purpose: it uses neither agrid (the code under test) nor the broadphase.

#include <cstdint>

#include <btBulletCollisionCommon.h>

namespace agrid::scenes {

/// What a check of a pair cache found: both counts 0 for an exact broadphase (agrid, simple).
struct PairCheck {
  std::uint64_t missing = 0;  ///< Overlapping pairs the filter accepts that the cache lacks: always an error.
  std::uint64_t extra = 0;    ///< Cached pairs not among those (apart, refused by the filter, or cached twice).
  friend bool operator==(const PairCheck&, const PairCheck&) = default;
};

/// Compares `cache` with the pairs of `world`'s collision objects whose stored proxy AABBs
/// (m_aabbMin/Max) overlap as closed boxes and that the cache's needsBroadphaseCollision accepts
/// (its overlap filter callback, else Bullet's group/mask test). A box with a NaN or min > max
/// pairs with nothing. The pairs are found by a plain sort and sweep on x, O(n log n + pairs
/// overlapping on x); pairs are compared by proxy address, so unique ids are not trusted either.
[[nodiscard]] PairCheck check_pair_cache(const btCollisionWorld& world, const btOverlappingPairCache& cache);

}  // namespace agrid::scenes
