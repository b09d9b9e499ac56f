#pragma once
// btAdaptiveGridBroadphaseStats: what btAdaptiveGridBroadphase's last step cost and changed, and
// the world it left. C++11 and later, as the adapter's header: a Bullet program of any standard
// reads everything here without agrid's C++20 headers.

#include <cstddef>

/// What the last calculateOverlappingPairs of a btAdaptiveGridBroadphase cost and changed, the
/// objects given setAabb before it, and the broadphase as it left it (objects, invalid AABBs,
/// memory): a game's own broadphase cost per step (btAdaptiveGridBroadphase::lastStepStats()).
/// All zero before the first step.
struct btAdaptiveGridBroadphaseStats {
  /// Wall time of the last calculateOverlappingPairs, in seconds.
  double m_calculateOverlappingPairsSeconds = 0;
  /// Live collision objects created or given setAabb between the previous
  /// calculateOverlappingPairs and the last one, each counted once: the objects the world
  /// updated in the step (btCollisionWorld::updateAabbs gives each one call).
  int m_setAabbObjects = 0;
  /// The wall time of the setAabb calls between those two, in seconds; 0 unless setAabb timing
  /// is on (btAdaptiveGridBroadphase::setTimeSetAabbCalls).
  double m_setAabbSeconds = 0;
  /// Pairs the last calculateOverlappingPairs added to the pair cache: those that began, and
  /// any it put back after others removed them while they still overlap.
  int m_pairsBegan = 0;
  /// Pairs it removed from the pair cache: those that ended, and any that others added and
  /// agrid does not hold. (destroyProxy removes its proxy's pairs at once; those are not counted.)
  int m_pairsEnded = 0;
  /// Pairs in the pair cache after it.
  int m_pairs = 0;

  /// Live proxies after it (created and not destroyed).
  int m_objects = 0;
  /// Of m_objects, those whose stored AABB has a NaN or min > max on an axis: they pair with
  /// nothing and no query finds them. The first is warned of once (setWarningHandler).
  int m_invalidObjects = 0;
  /// Of m_objects, those whose pairs agrid finds afresh every step: their AABB left its
  /// fattened box lately, or their filter changed.
  int m_movingObjects = 0;
  /// Of m_objects, those resting in agrid's tree, where an unchanged AABB costs nothing a step.
  /// m_movingObjects + m_restingObjects == m_objects.
  int m_restingObjects = 0;
  /// Heap memory the broadphase keeps between steps, in bytes: agrid's structures and the
  /// adapter's proxies and arrays. Not the pair cache's (Bullet's btHashedOverlappingPairCache,
  /// as with every Bullet broadphase).
  std::size_t m_bytesHeld = 0;
};
