#pragma once
// The Bullet broadphases that scenes, demos, benchmarks and the adapter's tests choose from.

#include <string_view>

namespace agrid::scenes {

/// A Bullet broadphase: Bullet's own three and agrid's adapter.
enum class BroadphaseKind {
  dbvt,    ///< btDbvtBroadphase: Bullet's default, a tree of fattened leaves.
  sap,     ///< bt32BitAxisSweep3: sweep and prune over fixed, quantized world bounds.
  simple,  ///< btSimpleBroadphase: Bullet's brute force, O(n^2) a step, exact: the oracle.
  agrid,      ///< btAdaptiveGridBroadphase: the adapter under test, exact.
  agrid_fat,  ///< btAdaptiveGridBroadphase with setFatPairMargin(gDbvtMargin): pairs of fat boxes, dbvt's margin (0.05).
};

/// "dbvt", "sap", "simple", "agrid" or "agrid-fat".
[[nodiscard]] std::string_view name(BroadphaseKind kind);

/// Whether the broadphase's pair cache holds exactly the overlapping pairs of the stored AABBs
/// after every step (agrid, simple); dbvt, sap and agrid-fat keep pairs of fattened or quantized
/// boxes too.
[[nodiscard]] bool keeps_exact_pairs(BroadphaseKind kind);

/// Whether the broadphase is agrid's adapter (agrid, agrid-fat).
[[nodiscard]] bool is_agrid(BroadphaseKind kind);

}  // namespace agrid::scenes
