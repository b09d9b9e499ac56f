#pragma once
// btAdaptiveGridBroadphaseStats: what btAdaptiveGridBroadphase's last step cost and changed.
// C++11 and later, as the adapter's header.

/// What the last calculateOverlappingPairs of a btAdaptiveGridBroadphase cost and changed, and
/// the objects given setAabb before it: a game's own broadphase cost per step
/// (btAdaptiveGridBroadphase::lastStepStats()). All zero before the first step.
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
};
