#pragma once
// AabbTree: a dynamic bounding volume hierarchy of boxes keyed by object, changed one leaf at a
// time (insert, remove) and kept balanced by rotations, for the incremental Broadphase's resting
// objects: a change costs O(log n), a query visits only the branches whose boxes it meets.

#include <cstdint>
#include <span>
#include <vector>

#include "agrid/box.h"
#include "segment_math.h"
#include "slack_growth.h"

namespace agrid::detail {

/// A binary tree whose leaves hold one object's box each and whose inner nodes hold the union of
/// their children's. Invariant (problem()): every child's parent points back to it; an inner
/// node's box contains both children's and its height is one more than the taller child's; every
/// leaf's box is valid. Leaves are inserted next to the sibling that grows the tree's surface
/// least (Box2D's rule), and each change rotates the nodes on its way to the root where swapping a
/// child with a grandchild makes a box smaller (Box2D v3's rule), which keeps boxes tight as
/// objects come and go. Queries are const and safe from several threads at once.
class AabbTree {
 public:
  /// No node, and no leaf: an object not in the tree.
  static constexpr std::uint32_t kNone = 0xffffffffu;

  /// One leaf of a build(): the object, its valid box, and (set by build) its leaf's node.
  struct Entry {
    Box box;
    std::uint32_t object = 0;
    std::uint32_t leaf = kNone;
  };

  /// Replaces the whole tree by one over `entries`, built top down by median splits along the
  /// widest axis of their centres (a better tree than the same leaves inserted one by one);
  /// sets each entry's leaf. Reorders `entries`.
  void build(std::span<Entry> entries);

  /// Adds a leaf for `object` with the valid box `box`; returns the leaf's node.
  std::uint32_t insert(std::uint32_t object, const Box& box);

  /// Removes the leaf `leaf` (a node insert() returned and remove() has not yet taken).
  void remove(std::uint32_t leaf);

  /// The box of a node.
  [[nodiscard]] const Box& box(std::uint32_t node) const noexcept { return nodes_[node].box; }
  /// The object of a leaf.
  [[nodiscard]] std::uint32_t object(std::uint32_t leaf) const noexcept { return nodes_[leaf].right; }

  /// Calls `visit(object)` for each leaf whose box overlaps `query`, until it returns false;
  /// `stack` is scratch. Returns false iff stopped.
  template <class Visit>
  bool query(const Box& query, std::vector<std::uint32_t>& stack, Visit&& visit) const;

  /// Calls `visit(object)` for each leaf whose box the prepared segment may meet (a superset of
  /// those it meets), until it returns false. Returns false iff stopped.
  template <class Visit>
  bool query(const PreparedSegment& segment, std::vector<std::uint32_t>& stack, Visit&& visit) const;

  /// Leaves in the tree.
  [[nodiscard]] std::uint32_t leaves() const noexcept { return leaves_; }

  /// Height of the root (0 for a single leaf or an empty tree).
  [[nodiscard]] std::uint32_t height() const noexcept;

  /// Heap memory held.
  [[nodiscard]] std::size_t bytes_held() const noexcept { return nodes_.capacity() * sizeof(Node); }

  /// Nodes in use (the others are free, or room to grow).
  [[nodiscard]] std::uint32_t nodes_in_use() const noexcept { return leaves_ == 0 ? 0 : 2 * leaves_ - 1; }

  /// Gives memory back when the nodes in use are far_below() the room held (slack_growth.h): the
  /// nodes are renumbered compactly, the tree's shape kept, and `relink(object, leaf)` is called
  /// with each leaf's new node. O(nodes in use), when it happens. True iff it did.
  template <class Relink>
  bool give_back(Relink&& relink);

  /// Null if the invariant holds, else what is broken. O(n): for AGRID_ASSERT and tests.
  [[nodiscard]] const char* problem() const;

 private:
  struct Node {
    Box box;
    std::uint32_t parent = kNone;  ///< Also the next free node, while free.
    std::uint32_t left = kNone;    ///< kNone for a leaf.
    std::uint32_t right = kNone;   ///< For a leaf: its object.
    std::int32_t height = 0;       ///< 0 for a leaf, -1 while free.
    [[nodiscard]] bool is_leaf() const noexcept { return left == kNone; }
  };

  /// Calls `visit(object)` for each leaf under the nodes whose boxes `meets` accepts.
  template <class Meets, class Visit>
  bool walk(Meets&& meets, std::vector<std::uint32_t>& stack, Visit&& visit) const;
  std::uint32_t allocate();
  void release(std::uint32_t node);
  [[nodiscard]] std::uint32_t best_sibling(const Box& box) const;
  /// Refits the boxes and heights from `node` up to the root, rotating where that shrinks them.
  void refit_upward(std::uint32_t node);
  /// Swaps a child of `node` with a grandchild where that makes the tree's boxes smaller; true
  /// iff it did.
  bool rotate(std::uint32_t node);
  void replace_child(std::uint32_t parent, std::uint32_t old_child, std::uint32_t new_child);
  void refit(std::uint32_t node);
  /// The root of a subtree built over `entries`, its parent set by the caller.
  std::uint32_t build_subtree(std::span<Entry> entries);
  /// Copies the nodes in use, depth first from the root, into an array of shrunk_capacity().
  void compact();

  std::vector<Node> nodes_;
  std::uint32_t root_ = kNone;
  std::uint32_t free_ = kNone;
  std::uint32_t leaves_ = 0;
};

/// True iff two valid boxes overlap (closed), without branches.
[[nodiscard]] inline bool boxes_meet(const Box& a, const Box& b) noexcept {
  return (a.min.x <= b.max.x) & (b.min.x <= a.max.x) & (a.min.y <= b.max.y) & (b.min.y <= a.max.y) &
         (a.min.z <= b.max.z) & (b.min.z <= a.max.z);
}

template <class Relink>
bool AabbTree::give_back(Relink&& relink) {
  if (!far_below(nodes_in_use(), nodes_.capacity(), bytes_held())) return false;
  compact();
  for (std::uint32_t node = 0; node < nodes_.size(); ++node) {
    if (nodes_[node].is_leaf()) relink(nodes_[node].right, node);
  }
  return true;
}

template <class Meets, class Visit>
bool AabbTree::walk(Meets&& meets, std::vector<std::uint32_t>& stack, Visit&& visit) const {
  if (root_ == kNone) return true;
  stack.clear();
  stack.push_back(root_);
  while (!stack.empty()) {
    const Node& node = nodes_[stack.back()];
    stack.pop_back();
    if (!meets(node.box)) continue;
    if (node.is_leaf()) {
      if (!visit(node.right)) return false;
      continue;
    }
    stack.push_back(node.right);
    stack.push_back(node.left);
  }
  return true;
}

template <class Visit>
bool AabbTree::query(const Box& query, std::vector<std::uint32_t>& stack, Visit&& visit) const {
  return walk([&](const Box& box) { return boxes_meet(box, query); }, stack, visit);
}

template <class Visit>
bool AabbTree::query(const PreparedSegment& segment, std::vector<std::uint32_t>& stack, Visit&& visit) const {
  return walk(
      [&](const Box& box) {
        const float lo[3] = {box.min.x, box.min.y, box.min.z};
        const float hi[3] = {box.max.x, box.max.y, box.max.z};
        return segment.may_meet(lo, hi);
      },
      stack, visit);
}

}  // namespace agrid::detail
