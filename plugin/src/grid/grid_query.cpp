// Queries: boxes overlapping a box, boxes hit by a (swept) segment.

#include <algorithm>
#include <cmath>
#include <limits>

#include "agrid/grid.h"
#include "common/segment_math.h"
#include "grid/grid_core.h"
#include "grid/node_walk.h"

namespace agrid::detail {
namespace {

[[nodiscard]] inline bool overlaps_entry(const Box& q, const EntryArrays& e, std::uint32_t i) noexcept {
  return e.lo[0][i] <= q.max.x && q.min.x <= e.hi[0][i] && e.lo[1][i] <= q.max.y && q.min.y <= e.hi[1][i] &&
         e.lo[2][i] <= q.max.z && q.min.z <= e.hi[2][i];
}

// Visits the children of grid nodes that a prepared segment may cross. For a node, each of
// the 4 child slices along the segment's main axis holds a part of the segment, whose bounds
// give the range of children on the other two axes: a superset of the crossed children, and
// close to them, where the swept segment's bounds would name nearly all 64. Cells are widened
// so that every float whose lattice coordinate falls in one lies inside despite rounding, and
// every rounding here is covered: cells are culled, never trusted.
class SegmentWalk {
 public:
  SegmentWalk(const std::vector<Node>& nodes, const Lattice& lattice, const PreparedSegment& s,
              double segment_pad)
      : nodes_(nodes), lattice_(lattice), s_(s) {
    for (int a = 1; a < 3; ++a) {
      if (std::abs(s.direction[a]) > std::abs(s.direction[main_])) main_ = a;
    }
    other_[0] = (main_ + 1) % 3;
    other_[1] = (main_ + 2) % 3;
    // Quantisation rounds x - origin to a float (2^-24 of the larger magnitude) and the product
    // to a float (half a lattice step); pad by well over both, for any cell of the lattice.
    constexpr double kLatticeStepsPad = 2.0;
    constexpr double kRelativePad = 0x1p-20;
    double magnitude = 0.0;
    for (int a = 0; a < 3; ++a) {
      // |origin| + |l| + |h| for the sides l, h of any cell on this axis.
      magnitude = std::max(magnitude, 3.0 * std::abs(static_cast<double>(lattice.origin[a])) + 2.0 * lattice.cell_size_root);
    }
    pad_ = kLatticeStepsPad * lattice.cell_size_root / kLatticeSteps + magnitude * kRelativePad + segment_pad;
  }

  template <class Visit>
  bool for_children(const Node& node, Visit&& visit) const {
    const std::uint32_t cells = 1u << (2 * (node.level + 1));
    const double child_size = lattice_.cell_size_root / static_cast<double>(cells);
    const double per_child = static_cast<double>(cells) / lattice_.cell_size_root;
    for (std::uint32_t k = 0; k < 4; ++k) {
      double t0 = 0.0;
      double t1 = 1.0;
      if (!slice_parameters(4 * node.cell[main_] + k, cells, child_size, t0, t1)) continue;
      // The children, on the other two axes, that this part of the segment may cross.
      int first[2];
      int last[2];
      for (int n = 0; n < 2; ++n) {
        const int a = other_[n];
        const double p0 = s_.origin[a] + t0 * s_.direction[a];
        const double p1 = s_.origin[a] + t1 * s_.direction[a];
        const int base = 4 * static_cast<int>(node.cell[a]);
        first[n] = std::max(global_child(a, std::min(p0, p1) + s_.extent_lo[a] - pad_, cells, per_child) - base, 0);
        last[n] = std::min(global_child(a, std::max(p0, p1) + s_.extent_hi[a] + pad_, cells, per_child) - base, 3);
      }
      for (int v = first[0]; v <= last[0]; ++v) {
        for (int w = first[1]; w <= last[1]; ++w) {
          std::uint32_t c[3];
          c[main_] = k;
          c[other_[0]] = static_cast<std::uint32_t>(v);
          c[other_[1]] = static_cast<std::uint32_t>(w);
          const std::uint32_t index = child_index(c[0], c[1], c[2]);
          if (node.has_child(index) && !visit(nodes_[node.child(index)])) return false;
        }
      }
    }
    return true;
  }

 private:
  // The parameters [t0, t1] (within [0, 1]) where the moving box meets the padded slice `j` of
  // `cells` along the main axis; false if none. Slices at the lattice's edges reach to
  // infinity, where quantisation clamps.
  bool slice_parameters(std::uint32_t j, std::uint32_t cells, double child_size, double& t0, double& t1) const {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    const double origin = lattice_.origin[main_];
    const double lo = j == 0 ? -kInf : origin + child_size * j - pad_;
    const double hi = j + 1 == cells ? kInf : origin + child_size * (j + 1) + pad_;
    const double enter = lo - s_.origin[main_] - s_.extent_hi[main_];  // the moving box's max reaches lo
    const double leave = hi - s_.origin[main_] - s_.extent_lo[main_];   // its min passes hi
    const double inverse = s_.inverse[main_];
    if (inverse > 0.0) {
      t0 = std::max(t0, enter * inverse);
      t1 = std::min(t1, leave * inverse);
    } else if (inverse < 0.0) {
      t0 = std::max(t0, leave * inverse);
      t1 = std::min(t1, enter * inverse);
    } else {  // a point (with its extent): no segment to follow
      return enter <= 0.0 && leave >= 0.0;
    }
    return t0 <= t1;
  }

  // The global index, at the children's level, of the cell holding coordinate x on `axis`;
  // coordinates beyond the lattice belong to its edge cells.
  int global_child(int axis, double x, std::uint32_t cells, double per_child) const {
    const double i = std::clamp((x - lattice_.origin[axis]) * per_child, 0.0, static_cast<double>(cells - 1));
    return static_cast<int>(i);  // truncation is floor here: i >= 0
  }

  const std::vector<Node>& nodes_;
  const Lattice& lattice_;
  const PreparedSegment& s_;
  int main_ = 0;
  int other_[2] = {1, 2};
  double pad_ = 0.0;
};

}  // namespace

bool GridCore::for_each_range(std::uint32_t node_index, const LatticeBox& q, bool include_node_stays,
                              RangeVisitor visit) const {
  const std::vector<Node>& nodes = cells_.nodes();
  const EntryArrays& stay = cells_.stay_entries();
  const EntryArrays& leaf = cells_.leaf_entries();
  const Node& node = nodes[node_index];
  const std::uint8_t bits = query_owner_bits(q, node);
  if (include_node_stays && node.stay.size() != 0 && !visit(stay, node.stay, bits)) {
    return false;
  }
  if (node.is_leaf()) return node.leaf.size() == 0 || visit(leaf, node.leaf, bits);
  return for_children_in_range(nodes, node, q, [&](const Node& child) {
    return for_each_range(static_cast<std::uint32_t>(&child - nodes.data()), q, true, visit);
  });
}

void GridCore::for_each_hit(const Segment& segment, FunctionRef<std::uint32_t> visit) const {
  if (!is_valid(segment) || cells_.nodes().empty()) return;
  const std::vector<Node>& nodes = cells_.nodes();
  const Lattice& lattice = cells_.lattice();
  const PreparedSegment prepared(segment);

  // Reports the entries of `e` in `range` that the segment hits and `node` owns: the cell
  // holding the hit's owner point, so that a box held by several cells is reported once.
  const auto visit_hits = [&](const EntryArrays& e, CellRange range, const Node& node) {
    const std::uint32_t shift = level_shift(node.level);
    for (std::uint32_t i = range.begin; i < range.end; ++i) {
      const Box b = e.box(i);
      double t = 0.0;
      if (!prepared.may_meet(&b.min.x, &b.max.x) || !prepared.meets(b, &t)) continue;
      const Vec3 p = prepared.owner_point(b, t);
      if ((lattice.quantize(p.x, 0) >> shift) != node.cell[0] || (lattice.quantize(p.y, 1) >> shift) != node.cell[1] ||
          (lattice.quantize(p.z, 2) >> shift) != node.cell[2]) {
        continue;
      }
      if (!visit(e.id[i])) return false;
    }
    return true;
  };

  // The owner point of a hit is found through the segment's parameter, whose rounding grows
  // with the segment's size: cells are padded by far more than that.
  constexpr double kSegmentRelativePad = 0x1p-30;
  const SegmentWalk walk(nodes, lattice, prepared, prepared.size * kSegmentRelativePad);
  // Depth first, into the children the swept segment may cross.
  auto descend = [&](auto&& self, const Node& node) -> bool {
    if (!visit_hits(cells_.stay_entries(), node.stay, node)) return false;
    if (node.is_leaf()) return visit_hits(cells_.leaf_entries(), node.leaf, node);
    return walk.for_children(node, [&](const Node& child) { return self(self, child); });
  };
  descend(descend, nodes[0]);
}

void GridCore::for_each_overlap(const Box& box, FunctionRef<std::uint32_t> visit) const {
  if (!is_valid(box) || cells_.nodes().empty()) return;
  // The entries of each range that overlap the box and that this node owns.
  for_each_range(0, cells_.lattice().quantize(box), true, [&](const EntryArrays& e, CellRange range, std::uint8_t bits) {
    for (std::uint32_t i = range.begin; i < range.end; ++i) {
      if ((bits | e.owner[i]) == kOwnAllAxes && overlaps_entry(box, e, i) && !visit(e.id[i])) return false;
    }
    return true;
  });
}

}  // namespace agrid::detail

namespace agrid {

void Grid::for_each_overlap(const Box& box, FunctionRef<std::uint32_t> visit) const { core_->for_each_overlap(box, visit); }

void Grid::query(const Box& box, std::vector<std::uint32_t>& out) const {
  out.clear();
  for_each_overlap(box, [&out](std::uint32_t id) { out.push_back(id); });
  std::sort(out.begin(), out.end());
}

void Grid::for_each_hit(const Segment& segment, FunctionRef<std::uint32_t> visit) const { core_->for_each_hit(segment, visit); }

void Grid::query(const Segment& segment, std::vector<std::uint32_t>& out) const {
  out.clear();
  for_each_hit(segment, [&out](std::uint32_t id) { out.push_back(id); });
  std::sort(out.begin(), out.end());
}

}  // namespace agrid
