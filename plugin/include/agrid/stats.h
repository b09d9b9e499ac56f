#pragma once
// GridStats: what the last build of a grid made, for tuning and monitoring.

#include <cstddef>
#include <cstdint>

namespace agrid {

/// Counts describing the grid after its last build.
struct GridStats {
  std::uint32_t boxes = 0;          ///< Boxes given to the last build.
  std::uint32_t invalid_boxes = 0;  ///< Boxes with a NaN or min > max: they overlap nothing.
  std::uint32_t oversize_boxes = 0; ///< Boxes spanning more than big_span of the root's children on
                                    ///< some axis (planes, infinite boxes): tested against everything.
  std::uint32_t nodes = 0;          ///< Nodes, leaves included.
  std::uint32_t leaves = 0;         ///< Nodes whose boxes are tested all against all.
  std::uint32_t depth = 0;          ///< Deepest level reached; the root is level 0, the deepest
                                    ///< possible kMaxDepth (agrid/limits.h).
  std::uint32_t leaf_entries = 0;   ///< Box copies held in leaves (a box may sit in several cells).
  std::uint32_t staying_entries = 0;///< Box copies staying at inner nodes (too large to descend).
  std::uint32_t tasks = 0;          ///< Independent grids the tree of grids built (1 for a Grid).
  std::size_t bytes_held = 0;       ///< Heap memory the grid keeps between builds (after find_pairs: with its buffers).
};

}  // namespace agrid
