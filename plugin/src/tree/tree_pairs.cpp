// All pairs of the tree of grids: the task grids found theirs while building; here the staying
// boxes of coarse cells meet their subtrees, and every task's keys are sorted into one list.

#include "common/parallel_for.h"
#include "grid/node_walk.h"
#include "tree/tree_impl.h"

namespace agrid {
namespace {

/// Staying boxes of one coarse cell tested against its subtree as one unit of parallel work.
constexpr std::uint32_t kStaysPerWork = 64;

}  // namespace

void Tree::Impl::stay_pairs_below(std::uint32_t node, std::uint32_t s, detail::KeyBuffer& keys) const {
  const std::vector<detail::Node>& nodes = coarse.nodes();
  const detail::EntryArrays& stay = coarse.stay_entries();
  const Box box = stay.box(s);
  const detail::LatticeBox& q = coarse.stay_lattice()[s];
  const std::uint32_t id = stay.id[s];
  detail::for_children_in_range(nodes, nodes[node], q, [&](const detail::Node& child) {
    const auto c = static_cast<std::uint32_t>(&child - nodes.data());
    const std::uint8_t bits = detail::query_owner_bits(q, child);
    if (child.stay.size() != 0) {
      detail::append_box_pairs(stay, child.stay, box, bits, id, config.kernel, keys);
    }
    const detail::CellPlace place = places[c];
    if (place.grid == detail::kNotInAGrid) {
      stay_pairs_below(c, s, keys);
      return true;
    }
    grids[place.grid].for_each_range(place.root, q, true, [&](const detail::EntryArrays& e, detail::CellRange range, std::uint8_t b) {
      detail::append_box_pairs(e, range, box, b, id, config.kernel, keys);
      return true;
    });
    return true;
  });
}

void Tree::Impl::find_pairs(std::vector<Pair>& out) {
  // The staying boxes of every coarse cell, in fixed units: among themselves, then against the
  // cell's subtree in runs of kStaysPerWork.
  const std::vector<detail::Node>& nodes = coarse.nodes();
  const detail::EntryArrays& stay = coarse.stay_entries();
  stay_work.clear();
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    const detail::Node& node = nodes[n];
    if (node.stay.size() == 0) continue;
    stay_work.push_back({n, node.stay.begin, node.stay.end, true});
    for (std::uint32_t s = node.stay.begin; s < node.stay.end; s += std::min(kStaysPerWork, node.stay.end - s)) {
      stay_work.push_back({n, s, s + std::min(kStaysPerWork, node.stay.end - s), false});
    }
  }
  if (stay_keys.size() < stay_work.size()) stay_keys.resize(stay_work.size());
  detail::parallel_for(std::size_t{0}, stay_work.size(), [&](std::size_t w) {
    const detail::StayWork work = stay_work[w];
    detail::KeyBuffer& keys = stay_keys[w];
    keys.clear();
    if (work.self) {
      const detail::CellRange cell{work.begin, work.end};
      detail::append_cell_pairs(stay, std::span(&cell, 1), config.sweep_threshold, detail::LargeCells::unsorted, config.kernel, sweep_scratch.local(), keys);
      return;
    }
    for (std::uint32_t s = work.begin; s < work.end; ++s) stay_pairs_below(work.node, s, keys);
  });

  // Every task's keys, then every stay unit's, in that fixed order.
  key_runs.clear();
  for (std::uint32_t t = 0; t < tasks_used; ++t) key_runs.push_back(grids[t].pair_keys());
  for (std::size_t w = 0; w < stay_work.size(); ++w) key_runs.push_back(stay_keys[w].keys());
  detail::sort_key_runs(key_runs, stats.boxes, sort_scratch, out);
  stats.bytes_held = bytes_held();  // with the key buffers this search may have grown
}

}  // namespace agrid
