#pragma once
// The agrid library: one include for the whole public API.

// Below C++20: one clear error, not dozens from what follows. (GCC 10 and older report 201709 in
// their C++2a mode: let through.)
#if __cplusplus <= 201703L
#error "agrid/agrid.h needs C++20; a Bullet program of an older standard includes <agrid/bullet/btAdaptiveGridBroadphase.h> (C++11) instead"
#else

#include <span>
#include <vector>

#include "agrid/box.h"
#include "agrid/broadphase.h"
#include "agrid/config.h"
#include "agrid/grid.h"
#include "agrid/grid_cell.h"
#include "agrid/limits.h"
#include "agrid/pair.h"
#include "agrid/pair_finder.h"
#include "agrid/segment.h"
#include "agrid/stats.h"
#include "agrid/tree.h"

/// The agrid library: boxes in, overlapping pairs and query hits out (docs/api.md: which API to use).
namespace agrid {

/// Every pair of overlapping boxes, each once as (i, j) with i < j, sorted ascending: a
/// PairFinder's pairs (all against all for a few boxes, one grid, or with at least
/// config.tree_min_boxes boxes and more than one thread in the caller's task arena, the tree of
/// grids on all of them). Boxes are closed; a box with a NaN or min > max overlaps nothing.
/// Throws std::invalid_argument for an unusable config, std::length_error for 2^32 - 1 boxes or
/// more.
///
/// Each thread keeps the PairFinder of its last call, so that calling this every frame costs
/// what a kept PairFinder does (its memory follows the thread's recent calls); a caller that
/// wants to own that memory keeps a PairFinder itself.
[[nodiscard]] std::vector<Pair> find_all_pairs(std::span<const Box> boxes, const Config& config = {});

}  // namespace agrid

#endif  // C++20
