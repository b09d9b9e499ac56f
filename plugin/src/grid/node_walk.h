#pragma once
// Walking a grid's nodes: the children a lattice range meets, a query's owner bits at a node.

#include <cstdint>
#include <vector>

#include "grid/grid_core.h"

namespace agrid::detail {

// The existing children of `node` whose cells meet the lattice range `q`, in ascending order.
template <class Visit>
bool for_children_in_range(const std::vector<Node>& nodes, const Node& node, const LatticeBox& q, Visit&& visit) {
  const std::uint32_t child_shift = level_shift(node.level) - 2;
  std::uint32_t lo[3];
  std::uint32_t hi[3];
  for (int a = 0; a < 3; ++a) {
    const std::uint32_t base = node.cell[a] << 2;
    lo[a] = std::max(q.lo[a] >> child_shift, base) - base;
    hi[a] = std::min(q.hi[a] >> child_shift, base + 3) - base;
  }
  for (std::uint32_t z = lo[2]; z <= hi[2]; ++z) {
    for (std::uint32_t y = lo[1]; y <= hi[1]; ++y) {
      for (std::uint32_t x = lo[0]; x <= hi[0]; ++x) {
        const std::uint32_t index = child_index(x, y, z);
        if (node.has_child(index) && !visit(nodes[node.child(index)])) return false;
      }
    }
  }
  return true;
}

// Owner bits of a query whose min corner has lattice coordinates q.lo, at `node`.
[[nodiscard]] inline std::uint8_t query_owner_bits(const LatticeBox& q, const Node& node) noexcept {
  const std::uint32_t shift = level_shift(node.level);
  std::uint8_t bits = 0;
  for (int a = 0; a < 3; ++a) {
    if ((q.lo[a] >> shift) == node.cell[a]) bits = static_cast<std::uint8_t>(bits | (1u << a));
  }
  return bits;
}

}  // namespace agrid::detail
