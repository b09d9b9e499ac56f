#include "box_tree/box_tree.h"

#include <algorithm>
#include <cfloat>
#include <limits>
#include <stdexcept>

#include "common/agrid_assert.h"
#include "common/box_ops.h"
#include "common/slack_growth.h"

namespace agrid::detail {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

/// The bounds of an empty slot: inverted, so that no box query or clipped segment meets it.
constexpr Box kEmptyBox = {{kInf, kInf, kInf}, {-kInf, -kInf, -kInf}};

/// The smallest box holding both.
[[nodiscard]] Box united(const Box& a, const Box& b) noexcept {
  return {{std::min(a.min.x, b.min.x), std::min(a.min.y, b.min.y), std::min(a.min.z, b.min.z)},
          {std::max(a.max.x, b.max.x), std::max(a.max.y, b.max.y), std::max(a.max.z, b.max.z)}};
}

/// True iff two boxes without NaN have equal bounds (0 and -0 equal, unlike same_box).
[[nodiscard]] bool equal_bounds(const Box& a, const Box& b) noexcept {
  return a.min.x == b.min.x && a.min.y == b.min.y && a.min.z == b.min.z && a.max.x == b.max.x &&
         a.max.y == b.max.y && a.max.z == b.max.z;
}

/// One edge of a valid box for the insertion cost, kept finite: an edge of two equal infinities
/// (inf - inf) counts 0 and an infinite or huge one FLT_MAX, so costs never become inf or NaN.
[[nodiscard]] double edge(float lo, float hi) noexcept {
  const double e = static_cast<double>(hi) - static_cast<double>(lo);
  return e >= 0.0 ? std::min(e, static_cast<double>(FLT_MAX)) : 0.0;
}

/// Half the surface area's stand-in: the sum of the edges (Box2D's perimeter cost), finite.
[[nodiscard]] double cost_of(const Box& b) noexcept {
  return edge(b.min.x, b.max.x) + edge(b.min.y, b.max.y) + edge(b.min.z, b.max.z);
}

/// The four slots' edges on one axis for the insertion cost, as edge() keeps them: hi - lo, 0
/// where that is NaN (inf - inf) or negative (an empty slot), at most FLT_MAX.
[[nodiscard]] Lanes4 edges(Lanes4 lo, Lanes4 hi) noexcept {
  return min(max(hi - lo, Lanes4::splat(0.0f)), Lanes4::splat(FLT_MAX));
}

/// The insertion costs of four slots' bounds (`own`) and of each united with `box` (`joint`), in
/// floats, four at once: cost_of's sum of edges, at most FLT_MAX so that a difference of two is
/// never NaN. (An insert reads them at every level it descends.)
struct SlotCosts {
  alignas(16) float own[4];
  alignas(16) float joint[4];
  SlotCosts(const float (&lo)[3][4], const float (&hi)[3][4], const Box& box) noexcept {
    Lanes4 own_sum = Lanes4::splat(0.0f);
    Lanes4 joint_sum = own_sum;
    for (int a = 0; a < 3; ++a) {
      const Lanes4 l = Lanes4::load(lo[a]);
      const Lanes4 h = Lanes4::load(hi[a]);
      own_sum = own_sum + edges(l, h);
      joint_sum = joint_sum + edges(min(l, Lanes4::splat(box.min[a])), max(h, Lanes4::splat(box.max[a])));
    }
    min(own_sum, Lanes4::splat(FLT_MAX)).store(own);
    min(joint_sum, Lanes4::splat(FLT_MAX)).store(joint);
  }
};

/// The box's centre on `axis`, for ordering: 0 where it is not a number (an edge from -inf to
/// inf), so that the order stays a strict weak one.
[[nodiscard]] float centre(const Box& b, int axis) noexcept {
  const float c = 0.5f * b.min[axis] + 0.5f * b.max[axis];
  return c == c ? c : 0.0f;
}

/// Orders `entries` along the widest axis of their centres so that the first `count` come first.
void split_at(std::span<BoxTree::Entry> entries, std::size_t count) {
  float lo[3] = {centre(entries[0].box, 0), centre(entries[0].box, 1), centre(entries[0].box, 2)};
  float hi[3] = {lo[0], lo[1], lo[2]};
  for (const BoxTree::Entry& e : entries) {
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], centre(e.box, a));
      hi[a] = std::max(hi[a], centre(e.box, a));
    }
  }
  int axis = 0;
  for (int a = 1; a < 3; ++a) {
    if (static_cast<double>(hi[a]) - lo[a] > static_cast<double>(hi[axis]) - lo[axis]) axis = a;
  }
  // The centres once, not once a comparison.
  for (BoxTree::Entry& e : entries) e.order = centre(e.box, axis);
  const auto middle = entries.begin() + static_cast<std::ptrdiff_t>(count);
  std::nth_element(entries.begin(), middle, entries.end(),
                   [](const BoxTree::Entry& x, const BoxTree::Entry& y) { return x.order < y.order; });
}

/// A node's children in a build: at most kWidth groups of entries, in place (a build makes a
/// node for every three leaves or so; a heap list each would cost an allocation each).
struct Groups {
  std::array<std::span<BoxTree::Entry>, BoxTree::kWidth> spans;
  std::uint32_t count = 0;
  void push_back(std::span<BoxTree::Entry> group) noexcept {
    AGRID_ASSERT(count < BoxTree::kWidth);
    spans[count++] = group;
  }
};

/// Cuts `entries` into groups of `unit` (the last one smaller), appended to `groups`: the whole
/// units of the lower half of the span first, along the widest axis, then the rest, recursively.
void cut_into_units(std::span<BoxTree::Entry> entries, std::size_t unit, Groups& groups) {
  if (entries.size() <= unit) {
    groups.push_back(entries);
    return;
  }
  const std::size_t units = (entries.size() + unit - 1) / unit;
  const std::size_t lower = (units + 1) / 2 * unit;
  split_at(entries, lower);
  cut_into_units(entries.first(lower), unit, groups);
  cut_into_units(entries.subspan(lower), unit, groups);
}

}  // namespace

void BoxTree::NodeStack::grow() {
  std::vector<std::uint32_t> bigger(2 * capacity_);
  std::copy(data_, data_ + size_, bigger.begin());
  heap_.swap(bigger);
  data_ = heap_.data();
  capacity_ = heap_.size();
}

Box BoxTree::box(std::uint32_t object) const noexcept {
  AGRID_ASSERT(contains(object));
  return slot_box(place_[object].node(), place_[object].slot());
}

Box BoxTree::slot_box(NodeId node, std::uint32_t slot) const noexcept {
  const Node& n = nodes_[node.index()];
  return {{n.lo[0][slot], n.lo[1][slot], n.lo[2][slot]}, {n.hi[0][slot], n.hi[1][slot], n.hi[2][slot]}};
}

void BoxTree::set_slot_box(NodeId node, std::uint32_t slot, const Box& box) noexcept {
  Node& n = nodes_[node.index()];
  for (int a = 0; a < 3; ++a) {
    n.lo[a][slot] = box.min[a];
    n.hi[a][slot] = box.max[a];
  }
}

Box BoxTree::bounds(NodeId node) const noexcept {
  // An empty slot's inverted bounds (+inf, -inf) change no least or greatest.
  const Node& n = nodes_[node.index()];
  const auto least = [&](int a) { return Lanes4::load(n.lo[a]).min_lane(); };
  const auto greatest = [&](int a) { return Lanes4::load(n.hi[a]).max_lane(); };
  return {{least(0), least(1), least(2)}, {greatest(0), greatest(1), greatest(2)}};
}

BoxTree::Child BoxTree::child_at(NodeId node, std::uint32_t slot) const noexcept {
  const Node& n = nodes_[node.index()];
  const Box b = slot_box(node, slot);
  return n.is_leaf(slot) ? Child::of_object(n.child_object(slot), b) : Child::of_node(n.child_node(slot), b);
}

void BoxTree::set_child(NodeId node, std::uint32_t slot, const Child& child) noexcept {
  Node& n = nodes_[node.index()];
  set_slot_box(node, slot, child.box);
  if (child.leaf) {
    n.set_child_object(slot, child.object());
    place_[child.object()] = LeafPlace(node, slot);
  } else {
    n.set_child_node(slot, child.node());
    nodes_[child.node().index()].parent = node;
    nodes_[child.node().index()].slot = static_cast<std::uint8_t>(slot);
  }
}

void BoxTree::take_slot(NodeId node, std::uint32_t slot) noexcept {
  Node& n = nodes_[node.index()];
  AGRID_ASSERT(slot < n.count);
  const std::uint32_t last = n.count - 1u;
  if (slot != last) set_child(node, slot, child_at(node, last));
  n.set_child_node(last, NodeId::none());
  set_slot_box(node, last, kEmptyBox);
  --n.count;
}

BoxTree::NodeId BoxTree::allocate() {
  NodeId node = free_;
  if (!node.is_none()) {
    free_ = nodes_[node.index()].parent;
  } else {
    // A leaf's place is node * kWidth + slot in 32 bits.
    if (nodes_.size() >= LeafPlace::kMaxNodes) {
      throw std::length_error("agrid::Broadphase: at most 2^30 - 1 nodes in a box tree");
    }
    grow_for_one(nodes_);
    nodes_.emplace_back();
    node = NodeId(static_cast<std::uint32_t>(nodes_.size() - 1));
  }
  Node& n = nodes_[node.index()];
  for (std::uint32_t s = 0; s < kWidth; ++s) {
    n.set_child_node(s, NodeId::none());
    set_slot_box(node, s, kEmptyBox);
  }
  n.parent = NodeId::none();
  n.slot = 0;
  n.count = 0;
  n.leaf_bits = 0;
  ++in_use_;
  return node;
}

void BoxTree::release(NodeId node) noexcept {
  nodes_[node.index()].count = 0;
  nodes_[node.index()].parent = free_;
  free_ = node;
  --in_use_;
}

void BoxTree::clear() noexcept {
  for (const Node& n : nodes_) {
    for (std::uint32_t s = 0; s < n.count; ++s) {
      if (n.is_leaf(s)) place_[n.child_object(s)] = LeafPlace::absent();
    }
  }
  nodes_.clear();
  free_ = NodeId::none();
  root_ = NodeId::none();
  in_use_ = 0;
  leaves_ = 0;
}

void BoxTree::build(std::span<Entry> entries) {
  clear();
  leaves_ = static_cast<std::uint32_t>(entries.size());
  for (const Entry& e : entries) {
    if (e.object >= place_.size()) place_.resize(std::size_t{e.object} + 1, LeafPlace::absent());
  }
  if (entries.empty()) return;
  nodes_.reserve(entries.size() / (kWidth - 1) + 1);
  Box box;
  if (entries.size() == 1) {
    root_ = allocate();
    nodes_[root_.index()].count = 1;
    set_child(root_, 0, Child::of_object(entries[0].object, entries[0].box));
    return;
  }
  root_ = build_node(entries, &box);
}

BoxTree::NodeId BoxTree::build_node(std::span<Entry> entries, Box* box) {
  AGRID_ASSERT(entries.size() >= 2);
  const NodeId node = allocate();
  // Each child's subtree as full as can be: units of the largest power of kWidth below the
  // entries (whole 4-wide nodes at the bottom: about one node for three leaves).
  std::size_t unit = 1;
  while (unit * kWidth < entries.size()) unit *= kWidth;
  Groups groups;
  cut_into_units(entries, unit, groups);
  AGRID_ASSERT(groups.count >= 2);
  const std::uint32_t count = groups.count;
  nodes_[node.index()].count = static_cast<std::uint8_t>(count);
  Box all = kEmptyBox;
  for (std::uint32_t s = 0; s < count; ++s) {
    const std::span<Entry> group = groups.spans[s];
    Box child_box = group[0].box;
    if (group.size() == 1) {
      AGRID_ASSERT(is_valid(child_box));
      set_child(node, s, Child::of_object(group[0].object, child_box));
    } else {
      const NodeId child = build_node(group, &child_box);  // may move nodes_
      set_child(node, s, Child::of_node(child, child_box));
    }
    all = united(all, child_box);
  }
  *box = all;
  return node;
}

void BoxTree::insert(std::uint32_t object, const Box& box) {
  AGRID_ASSERT(is_valid(box) && !contains(object));
  if (object >= place_.size()) {
    grow_for_one(place_);
    place_.resize(std::size_t{object} + 1, LeafPlace::absent());
  }
  if (root_.is_none()) {
    root_ = allocate();
    nodes_[root_.index()].count = 1;
    set_child(root_, 0, Child::of_object(object, box));
    ++leaves_;
    return;
  }
  // Down the child whose bounds grow least (then the smaller), to the first node whose choice
  // is a leaf: the object joins that node.
  NodeId node = root_;
  for (;;) {
    const Node& n = nodes_[node.index()];
    const SlotCosts costs(n.lo, n.hi, box);
    std::uint32_t best = 0;
    float best_growth = kInf;
    float best_cost = 0.0f;
    for (std::uint32_t s = 0; s < n.count; ++s) {
      const float growth = costs.joint[s] - costs.own[s];
      if (growth < best_growth || (growth == best_growth && costs.joint[s] < best_cost)) {
        best = s;
        best_growth = growth;
        best_cost = costs.joint[s];
      }
    }
    if (n.is_leaf(best)) break;
    node = n.child_node(best);
  }
  ++leaves_;
  add_child(node, Child::of_object(object, box));
}

void BoxTree::add_child(NodeId node, Child child) {
  // A full node splits in two as a B-tree's does, and its new half joins the parent: the tree
  // deepens only when the root splits, so leaves arriving in one place never grow a chain.
  for (;;) {
    if (nodes_[node.index()].count < kWidth) {
      const std::uint32_t slot = nodes_[node.index()].count++;
      set_child(node, slot, child);
      refit_upward(node);
      return;
    }
    if (node != root_ && add_to_sibling(node, child)) return;
    std::array<Child, kWidth + 1> all;
    for (std::uint32_t s = 0; s < kWidth; ++s) all[s] = child_at(node, s);
    all[kWidth] = child;
    const std::size_t keep = split_five(all);
    const NodeId sibling = allocate();  // may move nodes_
    fill(node, std::span<const Child>(all).first(keep));
    fill(sibling, std::span<const Child>(all).subspan(keep));
    if (node == root_) {
      root_ = allocate();
      fill(root_, std::array<Child, 2>{Child::of_node(node, bounds(node)), Child::of_node(sibling, bounds(sibling))});
      return;
    }
    const NodeId parent = nodes_[node.index()].parent;
    set_slot_box(parent, nodes_[node.index()].slot, bounds(node));
    child = Child::of_node(sibling, bounds(sibling));
    node = parent;
  }
}

bool BoxTree::add_to_sibling(NodeId node, const Child& child) {
  // A full node's sibling with room takes the child instead, when that grows it by no more than
  // the child's own size: the nodes stay fuller than splits alone leave them (a B*-tree's
  // redistribution), which holds less memory and visits fewer nodes.
  const NodeId parent = nodes_[node.index()].parent;
  const Node& p = nodes_[parent.index()];
  std::uint32_t best = kWidth;  // no slot
  double best_growth = cost_of(child.box);
  for (std::uint32_t s = 0; s < p.count; ++s) {
    if (p.is_leaf(s) || s == nodes_[node.index()].slot || nodes_[p.child_node(s).index()].count == kWidth) continue;
    const Box sibling = slot_box(parent, s);
    const double growth = cost_of(united(sibling, child.box)) - cost_of(sibling);
    if (growth <= best_growth) {
      best = s;
      best_growth = growth;
    }
  }
  if (best == kWidth) return false;
  const NodeId sibling = p.child_node(best);
  const std::uint32_t slot = nodes_[sibling.index()].count++;
  set_child(sibling, slot, child);
  refit_upward(sibling);
  refit_upward(node);  // after a split below it, its own bounds shrank
  return true;
}

void BoxTree::fill(NodeId node, std::span<const Child> children) noexcept {
  AGRID_ASSERT(children.size() <= kWidth);
  Node& n = nodes_[node.index()];
  for (std::uint32_t s = 0; s < kWidth; ++s) {
    n.set_child_node(s, NodeId::none());
    set_slot_box(node, s, kEmptyBox);
  }
  n.leaf_bits = 0;
  n.count = static_cast<std::uint8_t>(children.size());
  for (std::uint32_t s = 0; s < children.size(); ++s) set_child(node, s, children[s]);
}

std::size_t BoxTree::split_five(std::array<Child, kWidth + 1>& all) noexcept {
  // Ordered along the widest axis of their centres, cut where the two halves' bounds cost least.
  Box centres = kEmptyBox;
  for (const Child& c : all) {
    const Box point{{centre(c.box, 0), centre(c.box, 1), centre(c.box, 2)}, {centre(c.box, 0), centre(c.box, 1), centre(c.box, 2)}};
    centres = united(centres, point);
  }
  int axis = 0;
  for (int a = 1; a < 3; ++a) {
    if (static_cast<double>(centres.max[a]) - centres.min[a] > static_cast<double>(centres.max[axis]) - centres.min[axis]) axis = a;
  }
  std::sort(all.begin(), all.end(), [axis](const Child& x, const Child& y) { return centre(x.box, axis) < centre(y.box, axis); });
  const auto cost_of_cut = [&](std::size_t cut) {
    Box lower = kEmptyBox;
    Box upper = kEmptyBox;
    for (std::size_t i = 0; i < all.size(); ++i) (i < cut ? lower : upper) = united(i < cut ? lower : upper, all[i].box);
    return cost_of(lower) + cost_of(upper);
  };
  return cost_of_cut(2) <= cost_of_cut(3) ? 2 : 3;
}

void BoxTree::refit_upward(NodeId node) noexcept {
  for (;;) {
    const NodeId parent = nodes_[node.index()].parent;
    if (parent.is_none()) return;
    const std::uint32_t slot = nodes_[node.index()].slot;
    const Box fitted = bounds(node);
    if (equal_bounds(slot_box(parent, slot), fitted)) return;
    set_slot_box(parent, slot, fitted);
    node = parent;
  }
}

void BoxTree::set_leaf_box(std::uint32_t object, const Box& box) noexcept {
  AGRID_ASSERT(contains(object) && is_valid(box));
  set_slot_box(place_[object].node(), place_[object].slot(), box);
}

void BoxTree::refit() noexcept {
  if (!root_.is_none()) refit_below(root_);
}

Box BoxTree::refit_below(NodeId node) noexcept {
  // Recursion as deep as the tree: a 4-wide tree kept balanced by its splits (insert) or built
  // by median splits is about log4(leaves) deep.
  const std::uint32_t count = nodes_[node.index()].count;
  for (std::uint32_t s = 0; s < count; ++s) {
    if (!nodes_[node.index()].is_leaf(s)) set_slot_box(node, s, refit_below(nodes_[node.index()].child_node(s)));
  }
  return bounds(node);
}

void BoxTree::remove(std::uint32_t object) {
  AGRID_ASSERT(contains(object));
  NodeId node = place_[object].node();
  take_slot(node, place_[object].slot());
  place_[object] = LeafPlace::absent();
  --leaves_;
  Node& n = nodes_[node.index()];
  if (node == root_) {
    if (n.count == 0) {
      release(node);
      root_ = NodeId::none();
    } else if (n.count == 1 && !n.is_leaf(0)) {
      root_ = n.child_node(0);  // a root of one node child: that child is the root
      nodes_[root_.index()].parent = NodeId::none();
      release(node);
    }
    return;
  }
  // A node whose children fit in its parent's slots (its own among them) gives them to it:
  // always below two children, and so the nodes stay full as leaves come and go (measured: a
  // world breathing by 5% a step otherwise drifted to 7% more memory in 50 steps).
  const NodeId parent = n.parent;
  if (nodes_[parent.index()].count - 1u + n.count <= kWidth) {
    set_child(parent, n.slot, child_at(node, 0));
    for (std::uint32_t s = 1; s < nodes_[node.index()].count; ++s) {
      const std::uint32_t slot = nodes_[parent.index()].count++;
      set_child(parent, slot, child_at(node, s));
    }
    release(node);
    node = parent;
    if (node == root_) return;
  }
  refit_upward(node);
}

bool BoxTree::end_objects_at(std::size_t objects) {
  AGRID_ASSERT(std::all_of(place_.begin() + static_cast<std::ptrdiff_t>(std::min(objects, place_.size())), place_.end(),
                           [](LeafPlace p) { return p.is_absent(); }));
  if (place_.size() > objects) place_.resize(objects, LeafPlace::absent());
  return shrink_if_far_below(place_, place_.size());
}

bool BoxTree::give_back(std::size_t objects) {
  const bool gave = end_objects_at(objects);
  if (!far_below(in_use_, nodes_.capacity(), nodes_.capacity() * sizeof(Node))) return gave;
  // Depth first from the root into a compact array: each node is copied where it is reached
  // and its parent's link set then.
  std::vector<Node> kept;
  kept.reserve(shrunk_capacity(in_use_));
  struct Move {
    NodeId node;    ///< Its old index ...
    NodeId parent;  ///< ... and its parent's new one.
  };
  std::vector<Move> todo;
  if (!root_.is_none()) todo.push_back({root_, NodeId::none()});
  while (!todo.empty()) {
    const Move move = todo.back();
    todo.pop_back();
    const NodeId index(static_cast<std::uint32_t>(kept.size()));
    kept.push_back(nodes_[move.node.index()]);
    Node& n = kept.back();
    n.parent = move.parent;
    if (!move.parent.is_none()) kept[move.parent.index()].set_child_node(n.slot, index);
    for (std::uint32_t s = 0; s < n.count; ++s) {
      if (n.is_leaf(s)) {
        place_[n.child_object(s)] = LeafPlace(index, s);
      } else {
        todo.push_back({n.child_node(s), index});
      }
    }
  }
  AGRID_ASSERT(kept.size() == in_use_);
  nodes_.swap(kept);
  root_ = nodes_.empty() ? NodeId::none() : NodeId(0);
  free_ = NodeId::none();
  return true;
}

void BoxTree::damage_for_test(float delta) noexcept {
  if (!root_.is_none()) nodes_[root_.index()].hi[0][0] += delta;
}

const char* BoxTree::problem() const {
  std::uint32_t leaves = 0;
  std::uint32_t nodes = 0;
  if (!root_.is_none()) {
    const Node& root = nodes_[root_.index()];
    if (!root.parent.is_none()) return "BoxTree: the root has a parent";
    if (root.count == 0) return "BoxTree: the root is empty";
    if (root.count == 1 && !root.is_leaf(0)) return "BoxTree: the root has one node child";
  }
  std::vector<NodeId> todo;
  if (!root_.is_none()) todo.push_back(root_);
  while (!todo.empty()) {
    const NodeId node = todo.back();
    todo.pop_back();
    if (++nodes > in_use_) return "BoxTree: more nodes reached than are in use (a cycle?)";
    const Node& n = nodes_[node.index()];
    if (n.count > kWidth || (node != root_ && n.count < 2)) return "BoxTree: a node has too few or too many children";
    if ((n.leaf_bits >> n.count) != 0) return "BoxTree: an empty slot is marked a leaf";
    for (std::uint32_t s = n.count; s < kWidth; ++s) {
      if (!n.child_node(s).is_none() || !equal_bounds(slot_box(node, s), kEmptyBox)) return "BoxTree: an empty slot is not empty";
    }
    for (std::uint32_t s = 0; s < n.count; ++s) {
      const Box b = slot_box(node, s);
      if (n.is_leaf(s)) {
        ++leaves;
        if (!is_valid(b)) return "BoxTree: a leaf's box is invalid";
        const std::uint32_t object = n.child_object(s);
        if (object >= place_.size() || place_[object] != LeafPlace(node, s)) {
          return "BoxTree: a leaf's object does not name its slot";
        }
        continue;
      }
      const NodeId child = n.child_node(s);
      if (child.is_none() || child.index() >= nodes_.size()) return "BoxTree: a child node is out of range";
      const Node& c = nodes_[child.index()];
      if (c.parent != node || c.slot != s) return "BoxTree: a child does not point back";
      if (!equal_bounds(b, bounds(child))) return "BoxTree: a slot's bounds are not its child's union";
      todo.push_back(child);
    }
  }
  if (nodes != in_use_) return "BoxTree: nodes in use are miscounted";
  if (leaves != leaves_) return "BoxTree: leaves are miscounted";
  std::uint32_t placed = 0;
  for (const LeafPlace p : place_) {
    if (p.is_absent()) continue;
    ++placed;
    const NodeId node = p.node();
    const std::uint32_t slot = p.slot();
    if (node.index() >= nodes_.size() || slot >= nodes_[node.index()].count || !nodes_[node.index()].is_leaf(slot)) {
      return "BoxTree: an object's place is not a leaf";
    }
  }
  return placed == leaves_ ? nullptr : "BoxTree: objects placed and leaves disagree";
}

}  // namespace agrid::detail
