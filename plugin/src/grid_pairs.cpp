// All pairs: leaves all against all, and each staying box against its node's subtree.

#include "grid_impl.h"
#include "pair_sort.h"

namespace agrid {

void Grid::Impl::collect_pair_keys() {
  pair_keys.clear();
  detail::append_cell_pairs(leaf, leaf_cells, config.sweep_threshold, config.kernel, sweep_scratch, pair_keys);
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    const detail::Node& node = nodes[n];
    if (node.stay_end == node.stay_begin) continue;
    const detail::CellRange stays{node.stay_begin, node.stay_end};
    detail::append_cell_pairs(stay, std::span(&stays, 1), config.sweep_threshold, config.kernel, sweep_scratch, pair_keys);
    if (node.is_leaf()) continue;
    for (std::uint32_t s = node.stay_begin; s < node.stay_end; ++s) {
      const Box box = stay.box(s);
      for_each_range(n, stay_lattice[s], false, [&](const detail::EntryArrays& e, detail::CellRange range, std::uint8_t bits) {
        detail::append_box_pairs(e, range, box, bits, stay.id[s], config.kernel, pair_keys);
        return true;
      });
    }
  }
}

void Grid::Impl::sort_pairs(std::vector<Pair>& out) {
  detail::sort_pairs(pair_keys.keys(), pair_keys_scratch, stats.boxes, out);
}

void Grid::find_pairs(std::vector<Pair>& out) {
  impl_->collect_pair_keys();
  impl_->sort_pairs(out);
}

void Grid::for_each_pair(FunctionRef<Pair> visit) {
  std::vector<Pair>& pairs = impl_->pairs_for_visit;
  find_pairs(pairs);
  for (const Pair& p : pairs) {
    if (!visit(p)) return;
  }
}

}  // namespace agrid
