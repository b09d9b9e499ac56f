#include "aabb_tree.h"

#include <algorithm>
#include <cfloat>
#include <stdexcept>
#include <utility>

#include "agrid_assert.h"
#include "fat_box.h"
#include "slack_growth.h"

namespace agrid::detail {
namespace {

/// The smallest box holding both.
[[nodiscard]] Box united(const Box& a, const Box& b) noexcept {
  return {{std::min(a.min.x, b.min.x), std::min(a.min.y, b.min.y), std::min(a.min.z, b.min.z)},
          {std::max(a.max.x, b.max.x), std::max(a.max.y, b.max.y), std::max(a.max.z, b.max.z)}};
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

/// The box's centre on `axis`, for ordering: 0 where it is not a number (an edge from -inf to
/// inf), so that the order stays a strict weak one.
[[nodiscard]] float centre(const Box& b, int axis) noexcept {
  const float c = 0.5f * b.min[axis] + 0.5f * b.max[axis];
  return c == c ? c : 0.0f;
}

}  // namespace

void AabbTree::build(std::span<Entry> entries) {
  nodes_.clear();
  free_ = kNone;
  leaves_ = static_cast<std::uint32_t>(entries.size());
  root_ = kNone;
  if (entries.empty()) return;
  nodes_.reserve(2 * entries.size() - 1);
  root_ = build_subtree(entries);
}

std::uint32_t AabbTree::build_subtree(std::span<Entry> entries) {
  if (entries.size() == 1) {
    AGRID_ASSERT(is_valid(entries[0].box));
    const std::uint32_t leaf = allocate();
    nodes_[leaf].box = entries[0].box;
    nodes_[leaf].right = entries[0].object;
    entries[0].leaf = leaf;
    return leaf;
  }
  float lo[3] = {centre(entries[0].box, 0), centre(entries[0].box, 1), centre(entries[0].box, 2)};
  float hi[3] = {lo[0], lo[1], lo[2]};
  for (const Entry& e : entries) {
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], centre(e.box, a));
      hi[a] = std::max(hi[a], centre(e.box, a));
    }
  }
  int axis = 0;
  for (int a = 1; a < 3; ++a) {
    if (static_cast<double>(hi[a]) - lo[a] > static_cast<double>(hi[axis]) - lo[axis]) axis = a;
  }
  const auto middle = entries.begin() + static_cast<std::ptrdiff_t>(entries.size() / 2);
  std::nth_element(entries.begin(), middle, entries.end(),
                   [axis](const Entry& x, const Entry& y) { return centre(x.box, axis) < centre(y.box, axis); });
  const std::uint32_t left = build_subtree(entries.first(entries.size() / 2));
  const std::uint32_t right = build_subtree(entries.subspan(entries.size() / 2));
  const std::uint32_t node = allocate();
  nodes_[node].left = left;
  nodes_[node].right = right;
  nodes_[left].parent = node;
  nodes_[right].parent = node;
  refit(node);
  return node;
}

std::uint32_t AabbTree::allocate() {
  if (free_ != kNone) {
    const std::uint32_t node = free_;
    free_ = nodes_[node].parent;
    nodes_[node] = Node{};
    return node;
  }
  if (nodes_.size() >= kNone) throw std::length_error("agrid::Broadphase: at most 2^32 - 1 tree nodes");
  grow_for_one(nodes_);
  nodes_.emplace_back();
  return static_cast<std::uint32_t>(nodes_.size() - 1);
}

void AabbTree::compact() {
  // Each node goes to the next slot as it is reached, and its parent's link (which still names
  // the old slot) is set to it then; a leaf's `right` is its object and is copied as it is.
  struct Move {
    std::uint32_t node;    ///< Its old slot ...
    std::uint32_t parent;  ///< ... and its parent's new one ...
    bool right;            ///< ... of which it is the right child.
  };
  std::vector<Node> kept;
  kept.reserve(shrunk_capacity(nodes_in_use()));
  std::vector<Move> todo;
  if (root_ != kNone) todo.push_back({root_, kNone, false});
  while (!todo.empty()) {
    const Move move = todo.back();
    todo.pop_back();
    const auto index = static_cast<std::uint32_t>(kept.size());
    const Node& old = nodes_[move.node];
    kept.push_back(old);
    kept.back().parent = move.parent;
    if (move.parent != kNone) (move.right ? kept[move.parent].right : kept[move.parent].left) = index;
    if (!old.is_leaf()) {
      todo.push_back({old.right, index, true});
      todo.push_back({old.left, index, false});
    }
  }
  AGRID_ASSERT(kept.size() == nodes_in_use());
  nodes_.swap(kept);
  root_ = nodes_.empty() ? kNone : 0;
  free_ = kNone;
}

void AabbTree::release(std::uint32_t node) {
  nodes_[node].parent = free_;
  nodes_[node].height = -1;
  free_ = node;
}

std::uint32_t AabbTree::height() const noexcept {
  return root_ == kNone ? 0u : static_cast<std::uint32_t>(nodes_[root_].height);
}

std::uint32_t AabbTree::best_sibling(const Box& box) const {
  // Descend towards the child whose growth costs least, stopping where pairing with the node
  // itself is cheaper (Box2D's greedy descent with inherited cost).
  std::uint32_t index = root_;
  while (!nodes_[index].is_leaf()) {
    const Node& node = nodes_[index];
    const double combined = cost_of(united(node.box, box));
    const double here = 2.0 * combined;
    const double inherited = 2.0 * (combined - cost_of(node.box));
    const auto descend_cost = [&](std::uint32_t child) {
      const Node& c = nodes_[child];
      const double grown = cost_of(united(c.box, box));
      return (c.is_leaf() ? grown : grown - cost_of(c.box)) + inherited;
    };
    const double left = descend_cost(node.left);
    const double right = descend_cost(node.right);
    if (here < left && here < right) break;
    index = left <= right ? node.left : node.right;
  }
  return index;
}

std::uint32_t AabbTree::insert(std::uint32_t object, const Box& box) {
  AGRID_ASSERT(is_valid(box));
  const std::uint32_t leaf = allocate();
  nodes_[leaf].box = box;
  nodes_[leaf].right = object;
  ++leaves_;
  if (root_ == kNone) {
    root_ = leaf;
    return leaf;
  }
  const std::uint32_t sibling = best_sibling(box);
  const std::uint32_t old_parent = nodes_[sibling].parent;
  const std::uint32_t parent = allocate();
  Node& p = nodes_[parent];
  p.parent = old_parent;
  p.left = sibling;
  p.right = leaf;
  p.box = united(nodes_[sibling].box, box);
  p.height = nodes_[sibling].height + 1;
  nodes_[sibling].parent = parent;
  nodes_[leaf].parent = parent;
  if (old_parent == kNone) {
    root_ = parent;
  } else {
    replace_child(old_parent, sibling, parent);
  }
  refit_upward(old_parent);  // the new parent's box and height are set above
  return leaf;
}

void AabbTree::remove(std::uint32_t leaf) {
  AGRID_ASSERT(leaf < nodes_.size() && nodes_[leaf].is_leaf() && nodes_[leaf].height == 0);
  --leaves_;
  const std::uint32_t parent = nodes_[leaf].parent;
  release(leaf);
  if (parent == kNone) {
    root_ = kNone;
    return;
  }
  const std::uint32_t sibling = nodes_[parent].left == leaf ? nodes_[parent].right : nodes_[parent].left;
  const std::uint32_t grandparent = nodes_[parent].parent;
  nodes_[sibling].parent = grandparent;
  if (grandparent == kNone) {
    root_ = sibling;
  } else {
    replace_child(grandparent, parent, sibling);
  }
  release(parent);
  refit_upward(grandparent);
}

void AabbTree::replace_child(std::uint32_t parent, std::uint32_t old_child, std::uint32_t new_child) {
  Node& p = nodes_[parent];
  (p.left == old_child ? p.left : p.right) = new_child;
}

void AabbTree::refit(std::uint32_t node) {
  Node& n = nodes_[node];
  n.box = united(nodes_[n.left].box, nodes_[n.right].box);
  n.height = 1 + std::max(nodes_[n.left].height, nodes_[n.right].height);
}

void AabbTree::refit_upward(std::uint32_t node) {
  // Up to the first node that neither rotates nor changes: the ones above it cannot change.
  while (node != kNone) {
    const bool rotated = rotate(node);
    const Box old_box = nodes_[node].box;
    const std::int32_t old_height = nodes_[node].height;
    refit(node);
    if (!rotated && same_box(old_box, nodes_[node].box) && old_height == nodes_[node].height) return;
    node = nodes_[node].parent;
  }
}

bool AabbTree::rotate(std::uint32_t a) {
  // A tree rotation (Kopta et al. 2012, as Box2D v3): swap one child of `a` with a grandchild
  // under its other child where that shrinks the child whose leaves change; a's own box stays.
  // The best of the (up to) four swaps, or none.
  const Node& node = nodes_[a];
  if (node.is_leaf()) return false;
  struct Swap {
    std::uint32_t child;       ///< The child of a that moves down ...
    std::uint32_t grandchild;  ///< ... and the grandchild (under the other child) that moves up.
    double gain;
  } best{kNone, kNone, 0.0};
  const auto consider = [&](std::uint32_t child, std::uint32_t other) {
    const Node& o = nodes_[other];
    if (o.is_leaf()) return;
    const double now = cost_of(o.box);
    // child replaces o.left: other then holds child and o.right; or it replaces o.right.
    const double with_left_gone = now - cost_of(united(nodes_[child].box, nodes_[o.right].box));
    const double with_right_gone = now - cost_of(united(nodes_[child].box, nodes_[o.left].box));
    if (with_left_gone > best.gain) best = {child, o.left, with_left_gone};
    if (with_right_gone > best.gain) best = {child, o.right, with_right_gone};
  };
  consider(node.left, node.right);
  consider(node.right, node.left);
  if (best.child == kNone) return false;
  const std::uint32_t other = nodes_[best.grandchild].parent;
  replace_child(a, best.child, best.grandchild);
  nodes_[best.grandchild].parent = a;
  replace_child(other, best.grandchild, best.child);
  nodes_[best.child].parent = other;
  refit(other);
  return true;
}

const char* AabbTree::problem() const {
  if (root_ == kNone) return leaves_ == 0 ? nullptr : "AabbTree: leaves counted but no root";
  if (nodes_[root_].parent != kNone) return "AabbTree: the root has a parent";
  std::uint32_t leaves = 0;
  std::vector<std::uint32_t> stack{root_};
  while (!stack.empty()) {
    const std::uint32_t index = stack.back();
    stack.pop_back();
    const Node& n = nodes_[index];
    if (n.height < 0) return "AabbTree: a free node is reachable";
    if (n.is_leaf()) {
      if (n.height != 0) return "AabbTree: a leaf's height is not 0";
      if (!is_valid(n.box)) return "AabbTree: a leaf's box is invalid";
      ++leaves;
      continue;
    }
    const Node& l = nodes_[n.left];
    const Node& r = nodes_[n.right];
    if (l.parent != index || r.parent != index) return "AabbTree: a child's parent is not its parent";
    if (n.height != 1 + std::max(l.height, r.height)) return "AabbTree: a height is not 1 + the taller child's";
    if (!within(l.box, n.box) || !within(r.box, n.box)) return "AabbTree: a box does not hold its child's";
    stack.push_back(n.left);
    stack.push_back(n.right);
  }
  return leaves == leaves_ ? nullptr : "AabbTree: leaf count disagrees with the leaves reachable";
}

}  // namespace agrid::detail
