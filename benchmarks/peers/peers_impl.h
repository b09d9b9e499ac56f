#pragma once
// The peers' factories, one per file of benchmarks/peers.

#include <memory>

#include "peer.h"

namespace agrid::peers {

/// All pairs, 4 candidates per SSE step: the article's starting point.
[[nodiscard]] std::unique_ptr<Peer> make_brute_force_simd();
/// A fixed grid of cells sized from the mean box, each box in every cell it touches.
[[nodiscard]] std::unique_ptr<Peer> make_uniform_grid();
/// Sort and sweep on the axis of largest variance (box pruning).
[[nodiscard]] std::unique_ptr<Peer> make_sap();
/// Divide and conquer with no structure kept: median split, the straddling boxes swept across it.
[[nodiscard]] std::unique_ptr<Peer> make_dac();
/// A kd-tree whose nodes keep the boxes crossing their divider, swept (broccoli), on TBB.
[[nodiscard]] std::unique_ptr<Peer> make_kd_sweep();
/// Capannini & Larsson's parallel bi-dimensional sweep and prune, candidates pruned by a SuccTree.
[[nodiscard]] std::unique_ptr<Peer> make_parallel_bisap();
/// Bullet's btDbvtBroadphase, a new one per call: proxies created, one calculateOverlappingPairs.
[[nodiscard]] std::unique_ptr<Peer> make_bt_dbvt();
/// btDbvtBroadphase's second frame on the same boxes (every setAabb, calculateOverlappingPairs).
[[nodiscard]] std::unique_ptr<Peer> make_bt_dbvt_frame2();
/// Bullet's bt32BitAxisSweep3, a new one per call (quantized: conservative; quadratic insertion).
[[nodiscard]] std::unique_ptr<Peer> make_bt_axis_sweep();
/// bt32BitAxisSweep3's second frame on the same boxes.
[[nodiscard]] std::unique_ptr<Peer> make_bt_axis_sweep_frame2();
/// FCL's DynamicAABBTreeCollisionManager: registerObjects, setup, collide.
[[nodiscard]] std::unique_ptr<Peer> make_fcl_dynamic_tree();
/// FCL's SaPCollisionManager.
[[nodiscard]] std::unique_ptr<Peer> make_fcl_sap();
/// FCL's IntervalTreeCollisionManager.
[[nodiscard]] std::unique_ptr<Peer> make_fcl_interval_tree();
/// FCL's SpatialHashingCollisionManager, cells and scene limit chosen from the boxes.
[[nodiscard]] std::unique_ptr<Peer> make_fcl_spatial_hash();

}  // namespace agrid::peers
