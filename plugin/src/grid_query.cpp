// Queries: boxes overlapping a box, boxes hit by a (swept) segment.

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "grid_impl.h"
#include "node_walk.h"
#include "segment_math.h"

namespace agrid {
namespace {

using detail::EntryArrays;
using detail::LatticeBox;
using detail::Node;
using detail::for_children_in_range;
using detail::query_start_bits;

[[nodiscard]] inline bool overlaps_entry(const Box& q, const EntryArrays& e, std::uint32_t i) noexcept {
  return e.lo[0][i] <= q.max.x && q.min.x <= e.hi[0][i] && e.lo[1][i] <= q.max.y && q.min.y <= e.hi[1][i] &&
         e.lo[2][i] <= q.max.z && q.min.z <= e.hi[2][i];
}

// Tests the entries [begin, end) of `e` against the query box; reports the ones this node owns.
bool visit_overlapping(const EntryArrays& e, std::uint32_t begin, std::uint32_t end, const Box& query,
                       std::uint8_t query_bits, FunctionRef<std::uint32_t> visit) {
  for (std::uint32_t i = begin; i < end; ++i) {
    if ((query_bits | e.start[i]) == detail::kOwnAllAxes && overlaps_entry(query, e, i)) {
      if (!visit(e.id[i])) return false;
    }
  }
  return true;
}

// The sides of a float box whose lattice cell is `node`, widened so that every float whose
// lattice coordinate falls in the cell lies inside despite rounding; unbounded at the lattice's
// edges, where quantisation clamps.
void padded_cell_bounds(const detail::Lattice& lattice, const Node& node, double segment_pad, double lo[3],
                        double hi[3]) {
  const double size = lattice.cell_size_root / static_cast<double>(1u << (2 * node.level));
  const std::uint32_t cells = 1u << (2 * node.level);
  // Quantisation rounds x - origin to a float (2^-24 of the larger magnitude) and the product
  // to a float (half a lattice step); pad by well over both. Cells are culled, never trusted.
  const double lattice_step = lattice.cell_size_root / detail::kLatticeSteps;
  constexpr double kLatticeStepsPad = 2.0;  // the product's rounding is half a step
  constexpr double kRelativePad = 0x1p-20;  // x - origin rounds by 2^-24 of the larger magnitude
  for (int a = 0; a < 3; ++a) {
    const double l = lattice.origin[a] + size * node.cell[a];
    const double h = l + size;
    const double pad = kLatticeStepsPad * lattice_step + (std::abs(lattice.origin[a]) + std::abs(l) + std::abs(h)) * kRelativePad +
                       segment_pad;
    lo[a] = node.cell[a] == 0 ? -std::numeric_limits<double>::infinity() : l - pad;
    hi[a] = node.cell[a] + 1 == cells ? std::numeric_limits<double>::infinity() : h + pad;
  }
}

}  // namespace

bool Grid::Impl::for_each_range(std::uint32_t node_index, const LatticeBox& q, bool include_node_stays,
                                RangeVisitor visit) const {
  const Node& node = nodes[node_index];
  const std::uint8_t bits = query_start_bits(q, node);
  if (include_node_stays && node.stay_end > node.stay_begin && !visit(stay, {node.stay_begin, node.stay_end}, bits)) {
    return false;
  }
  if (node.is_leaf()) return node.leaf_end == node.leaf_begin || visit(leaf, {node.leaf_begin, node.leaf_end}, bits);
  return for_children_in_range(nodes, node, q, [&](const Node& child) {
    return for_each_range(static_cast<std::uint32_t>(&child - nodes.data()), q, true, visit);
  });
}

namespace {

struct SegmentQuery {
  const detail::PreparedSegment& segment;
  const detail::Lattice& lattice;
  FunctionRef<std::uint32_t> visit;

  // Reports the entries of `e` in [begin, end) that the segment hits and `node` owns: the cell
  // holding the hit's owner point, so that a box held by several cells is reported once.
  bool visit_hits(const EntryArrays& e, std::uint32_t begin, std::uint32_t end, const Node& node) const {
    const std::uint32_t shift = detail::level_shift(node.level);
    for (std::uint32_t i = begin; i < end; ++i) {
      const Box b = e.box(i);
      double t = 0.0;
      if (!segment.meets(b, &t)) continue;
      const Vec3 p = segment.owner_point(b, t);
      if ((lattice.quantize(p.x, 0) >> shift) != node.cell[0] || (lattice.quantize(p.y, 1) >> shift) != node.cell[1] ||
          (lattice.quantize(p.z, 2) >> shift) != node.cell[2]) {
        continue;
      }
      if (!visit(e.id[i])) return false;
    }
    return true;
  }
};

}  // namespace

bool Grid::Impl::segment_subtree(std::uint32_t node_index, const Segment& segment, const Box& swept_bounds,
                                 FunctionRef<std::uint32_t> visit) const {
  const detail::PreparedSegment prepared(segment);
  const LatticeBox q = lattice.quantize(swept_bounds);
  const SegmentQuery query{prepared, lattice, visit};

  // The owner point of a hit is found through the segment's parameter, whose rounding grows
  // with the segment's size: cells are padded by far more than that.
  constexpr double kSegmentRelativePad = 0x1p-30;
  double segment_size = 0.0;
  for (int a = 0; a < 3; ++a) {
    segment_size = std::max({segment_size, std::abs(prepared.direction[a]), std::abs(prepared.origin[a]),
                             std::abs(prepared.extent_lo[a]), std::abs(prepared.extent_hi[a])});
  }
  const double segment_pad = segment_size * kSegmentRelativePad;

  // Depth first; a node is entered only if the swept segment may cross its (padded) cell.
  auto descend = [&](auto&& self, const Node& node) -> bool {
    double lo[3];
    double hi[3];
    padded_cell_bounds(lattice, node, segment_pad, lo, hi);
    double t = 0.0;
    if (!prepared.meets(lo, hi, &t)) return true;
    if (!query.visit_hits(stay, node.stay_begin, node.stay_end, node)) return false;
    if (node.is_leaf()) return query.visit_hits(leaf, node.leaf_begin, node.leaf_end, node);
    return for_children_in_range(nodes, node, q, [&](const Node& child) { return self(self, child); });
  };
  return descend(descend, nodes[node_index]);
}

void Grid::for_each_overlap(const Box& box, FunctionRef<std::uint32_t> visit) const {
  if (!is_valid(box) || impl_->nodes.empty()) return;
  impl_->for_each_range(0, impl_->lattice.quantize(box), true,
                        [&](const EntryArrays& e, detail::CellRange range, std::uint8_t bits) {
                          return visit_overlapping(e, range.begin, range.end, box, bits, visit);
                        });
}

void Grid::query(const Box& box, std::vector<std::uint32_t>& out) const {
  out.clear();
  for_each_overlap(box, [&out](std::uint32_t id) { out.push_back(id); });
  std::sort(out.begin(), out.end());
}

void Grid::for_each_hit(const Segment& segment, FunctionRef<std::uint32_t> visit) const {
  if (!is_valid(segment) || impl_->nodes.empty()) return;
  // Bounds of the swept segment, rounded outwards so that every owner point lies inside.
  Box swept;
  float* lo[3] = {&swept.min.x, &swept.min.y, &swept.min.z};
  float* hi[3] = {&swept.max.x, &swept.max.y, &swept.max.z};
  for (int a = 0; a < 3; ++a) {
    const double l = std::min<double>(segment.from[a], segment.to[a]) + segment.extent.min[a];
    const double h = std::max<double>(segment.from[a], segment.to[a]) + segment.extent.max[a];
    *lo[a] = std::nextafter(static_cast<float>(l), -std::numeric_limits<float>::infinity());
    *hi[a] = std::nextafter(static_cast<float>(h), std::numeric_limits<float>::infinity());
  }
  impl_->segment_subtree(0, segment, swept, visit);
}

void Grid::query(const Segment& segment, std::vector<std::uint32_t>& out) const {
  out.clear();
  for_each_hit(segment, [&out](std::uint32_t id) { out.push_back(id); });
  std::sort(out.begin(), out.end());
}

}  // namespace agrid
