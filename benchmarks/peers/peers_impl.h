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

}  // namespace agrid::peers
