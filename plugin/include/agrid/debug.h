#pragma once
// agrid::debug: a look inside a grid's last build, for tests, viewers and tools, not the hot path.
// Opt-in (agrid/agrid.h does not include it); its names may change between minor versions.

// Below C++20: one clear error, not dozens from what follows. (GCC 10 and older report 201709 in
// their C++2a mode: let through.)
#if __cplusplus <= 201703L
#error "agrid/debug.h needs C++20; a Bullet program of an older standard includes <agrid/bullet/btAdaptiveGridBroadphase.h> (C++11) instead"
#else

#include <cstdint>

#include "agrid/box.h"
#include "agrid/callback.h"
#include "agrid/grid.h"
#include "agrid/limits.h"

namespace agrid::debug {

/// One cell of a grid's last build, for inspection: a viewer's overlay, a test.
struct GridCell {
  std::uint32_t level = 0;    ///< 0 for the root; each level splits its parent 4 x 4 x 4.
  Box bounds;                 ///< The space the cell covers (border cells also hold the boxes
                              ///< beyond the root, clamped into them).
  std::uint32_t entries = 0;  ///< Box copies the cell holds itself: its staying ones, and a
                              ///< leaf's own (an inner cell hands the rest to its children).
  bool leaf = false;          ///< A leaf: its boxes are paired among themselves (all against
                              ///< all, or by a sweep), not handed to children.
};

/// Calls `visit` with every cell of `grid`'s last build, each parent before its children, until
/// it returns false. None before the first build.
void for_each_cell(const Grid& grid, FunctionRef<const GridCell&> visit);

}  // namespace agrid::debug

#endif  // C++20
