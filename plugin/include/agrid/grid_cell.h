#pragma once
// GridCell: one cell of a grid's last build, as Grid::for_each_cell reports it.

#include <cstdint>

#include "agrid/box.h"

namespace agrid {

/// One cell of a grid's last build, for inspection: a viewer's overlay, a test, a tool.
struct GridCell {
  std::uint32_t level = 0;    ///< 0 for the root, at most kMaxDepth (agrid/limits.h); each level
                              ///< splits its parent 4 x 4 x 4.
  Box bounds;                 ///< The space the cell covers (border cells also hold the boxes
                              ///< beyond the root, clamped into them).
  std::uint32_t entries = 0;  ///< Box copies the cell holds itself: its staying ones, and a
                              ///< leaf's own (an inner cell hands the rest to its children).
  bool leaf = false;          ///< A leaf: its boxes are paired among themselves (all against
                              ///< all, or by a sweep), not handed to children.
};

}  // namespace agrid
