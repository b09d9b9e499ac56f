// All pairs of a grid: leaves all against all, and each staying box against its node's subtree.

#include "grid/grid_core.h"

namespace agrid::detail {

void GridCore::collect_pair_keys() {
  pair_keys_.clear();
  const EntryArrays& stay = cells_.stay_entries();
  append_cell_pairs(cells_.leaf_entries(), cells_.leaf_cells(), config_.sweep_threshold, LargeCells::sorted, config_.kernel,
                    sweep_scratch_, pair_keys_);
  const std::vector<Node>& nodes = cells_.nodes();
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    const Node& node = nodes[n];
    if (node.stay.size() == 0) continue;
    append_cell_pairs(stay, std::span(&node.stay, 1), config_.sweep_threshold, LargeCells::unsorted, config_.kernel, sweep_scratch_, pair_keys_);
    if (node.is_leaf()) continue;
    for (std::uint32_t s = node.stay.begin; s < node.stay.end; ++s) {
      const Box box = stay.box(s);
      for_each_range(n, cells_.stay_lattice()[s], false, [&](const EntryArrays& e, CellRange range, std::uint8_t bits) {
        append_box_pairs(e, range, box, bits, stay.id[s], config_.kernel, pair_keys_);
        return true;
      });
    }
  }
}

}  // namespace agrid::detail
