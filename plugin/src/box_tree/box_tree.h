#pragma once
// BoxTree: boxes in a tree of 4-wide nodes, for queries: the incremental Broadphase's resting
// objects, its moving ones for queries, and those joining the rest, each in a tree of its own
// (the tree of grids, plugin/src/tree/, is a pair finder). A node keeps its four children's
// bounds side by side in floats, so that a query tests all four at once
// (lanes4.h); a leaf is a child slot holding an object, not a node of its own. Changed one leaf
// at a time (insert, remove: O(depth), with no rotation) or built at once over many.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "agrid/box.h"
#include "box_tree/lanes4.h"
#include "common/agrid_assert.h"
#include "common/segment_math.h"

namespace agrid::detail {

/// A tree of nodes with up to kWidth children each, every child either a node or a leaf (an
/// object with its box). Invariant (problem()): a node's children fill its first `count` slots
/// and the others are empty (inverted bounds, no child); every node but the root has at least
/// two children, and the root at least one, a leaf if it has only one; a child node's parent
/// and slot point back to it and its slot's bounds are exactly the union of its own slots';
/// every leaf's box is valid and `place_` of its object names its slot. Queries are const and
/// safe from several threads at once.
class BoxTree {
 public:
  /// Children of a node.
  static constexpr std::uint32_t kWidth = 4;

  /// One leaf of a build(): an object and its valid box.
  struct Entry {
    Box box;
    std::uint32_t object = 0;
    float order = 0.0f;  ///< The build's scratch: the centre it orders by (set by the build).
  };

  /// Replaces the whole tree by one built top down over `entries` (each node's entries split
  /// in four by two median splits along the widest axis of their centres). Reorders `entries`.
  void build(std::span<Entry> entries);

  /// Removes every leaf, keeping the memory. O(leaves).
  void clear() noexcept;

  /// Adds `object` (not in the tree) with the valid box `box`: down the children whose bounds
  /// grow least, into the first node whose cheapest child is a leaf. O(depth).
  void insert(std::uint32_t object, const Box& box);

  /// Removes `object` (in the tree), refitting the bounds above it. O(depth).
  void remove(std::uint32_t object);

  /// Sets the valid box of the leaf `object` (in the tree), leaving the bounds above it stale
  /// until refit(): for many leaves that move at once. O(1).
  void set_leaf_box(std::uint32_t object, const Box& box) noexcept;

  /// Sets every node's bounds to the union of its children's, from the leaves up, keeping the
  /// tree's shape (Jolt's refit): after set_leaf_box. O(nodes in use).
  void refit() noexcept;

  /// True iff `object` is a leaf.
  [[nodiscard]] bool contains(std::uint32_t object) const noexcept {
    return object < place_.size() && !place_[object].is_absent();
  }

  /// The box of a leaf's object (contains(object)).
  [[nodiscard]] Box box(std::uint32_t object) const noexcept;

  /// Calls `visit(object)` for each leaf whose box overlaps `query` (closed), until it returns
  /// false. Returns false iff stopped.
  template <class Visit>
  bool query(const Box& query, Visit&& visit) const {
    return this->query(query, visit, [](std::uint32_t) {});
  }

  /// As query(query, visit), with `touch` as for a segment.
  template <class Visit, class Touch>
  bool query(const Box& query, Visit&& visit, Touch&& touch) const;

  /// Calls `visit(object)` for each leaf whose box the segment may meet (a superset of those it
  /// meets: NodeSegment), until it returns false. Returns false iff stopped.
  template <class Visit>
  bool query(const NodeSegment& segment, Visit&& visit) const {
    return query(segment, visit, [](std::uint32_t) {});
  }

  /// As query(segment, visit), calling `touch(object)` for all the leaves a node gives before
  /// visiting any of them: for a visitor that reads each object elsewhere, so that it can start
  /// fetching them all and their misses overlap.
  template <class Visit, class Touch>
  bool query(const NodeSegment& segment, Visit&& visit, Touch&& touch) const;

  /// Calls `visit(x, y)` for each leaf x of `a` and leaf y of `b` whose boxes overlap (closed):
  /// both trees walked together, so that an upper node is tested once for all the leaves below
  /// the other tree's node it meets, not once a leaf. A fixed order for fixed trees.
  template <class Visit>
  static void for_each_overlap(const BoxTree& a, const BoxTree& b, Visit&& visit);

  /// Calls `visit(x, y)` once for each two leaves of this tree whose boxes overlap (closed), in
  /// a fixed order for a fixed tree.
  template <class Visit>
  void for_each_overlap_within(Visit&& visit) const;

  /// Leaves in the tree.
  [[nodiscard]] std::uint32_t leaves() const noexcept { return leaves_; }

  /// Nodes in use (the others are free, or room to grow).
  [[nodiscard]] std::uint32_t nodes_in_use() const noexcept { return in_use_; }

  /// Leaves a build fits in the nodes held (about kWidth - 1 a node).
  [[nodiscard]] std::size_t leaf_room() const noexcept { return nodes_.capacity() * (kWidth - 1); }

  /// Heap memory held.
  [[nodiscard]] std::size_t bytes_held() const noexcept {
    return nodes_.capacity() * sizeof(Node) + place_.capacity() * sizeof(LeafPlace);
  }

  /// Gives memory back (slack_growth.h's rule): renumbers the nodes compactly when those in use
  /// are far below the room held, and ends the object table at `objects` (no object at or above
  /// it is a leaf). O(nodes in use) when it renumbers. True iff it gave any back.
  bool give_back(std::size_t objects);

  /// Gives back the object table's memory from `objects` on (no object at or above it is a
  /// leaf), keeping the nodes: for a tree built afresh each time over some of the objects.
  bool end_objects_at(std::size_t objects);

  /// Null if the invariant holds, else what is broken. O(n): for AGRID_ASSERT and tests.
  [[nodiscard]] const char* problem() const;

  /// For tests of problem(): changes one bound of the root's first slot by `delta`.
  void damage_for_test(float delta) noexcept;

 private:
  /// A node: its index in nodes_, or none (a free list's end, the root's parent, an empty tree's
  /// root, an empty slot). A type of its own so that a node is never taken for an object nor
  /// compared with a raw sentinel; one word, every call on it inlined, so it costs nothing.
  class NodeId {
   public:
    /// The node at `index` in nodes_, or none from the bits a slot or a stack kept.
    constexpr explicit NodeId(std::uint32_t index) noexcept : index_(index) {}
    [[nodiscard]] static constexpr NodeId none() noexcept { return NodeId(kNone); }
    [[nodiscard]] constexpr bool is_none() const noexcept { return index_ == kNone; }
    /// Its index in nodes_ (not none).
    [[nodiscard]] constexpr std::uint32_t index() const noexcept {
      AGRID_ASSERT(!is_none());
      return index_;
    }
    /// Its bits as a slot or a stack keeps them, none included.
    [[nodiscard]] constexpr std::uint32_t bits() const noexcept { return index_; }
    friend constexpr bool operator==(NodeId, NodeId) noexcept = default;

   private:
    static constexpr std::uint32_t kNone = 0xffffffffu;
    std::uint32_t index_;
  };
  static_assert(sizeof(NodeId) == sizeof(std::uint32_t));

  /// Where an object's leaf is, by object in place_: a node's slot, kept as node * kWidth + slot
  /// in one word (so that the table stays 4 bytes an object), or absent.
  class LeafPlace {
    /// Absent: above every node * kWidth + slot that allocate() lets be.
    static constexpr std::uint32_t kAbsent = 0xffffffffu;

   public:
    /// Nodes a place can name: allocate() refuses more.
    static constexpr std::size_t kMaxNodes = std::size_t{kAbsent} / kWidth;
    constexpr LeafPlace(NodeId node, std::uint32_t slot) noexcept : bits_(node.index() * kWidth + slot) {}
    /// An object that is not a leaf.
    [[nodiscard]] static constexpr LeafPlace absent() noexcept { return LeafPlace(kAbsent); }
    [[nodiscard]] constexpr bool is_absent() const noexcept { return bits_ == kAbsent; }
    /// The leaf's node (not absent).
    [[nodiscard]] constexpr NodeId node() const noexcept {
      AGRID_ASSERT(!is_absent());
      return NodeId(bits_ / kWidth);
    }
    /// The leaf's slot in its node (not absent).
    [[nodiscard]] constexpr std::uint32_t slot() const noexcept {
      AGRID_ASSERT(!is_absent());
      return bits_ % kWidth;
    }
    friend constexpr bool operator==(LeafPlace, LeafPlace) noexcept = default;

   private:
    constexpr explicit LeafPlace(std::uint32_t bits) noexcept : bits_(bits) {}
    std::uint32_t bits_;
  };
  static_assert(sizeof(LeafPlace) == sizeof(std::uint32_t));

  /// Nodes a walk has still to visit: in place up to kInline, then on the heap, so that a deep
  /// tree never overflows it and a shallow one allocates nothing.
  class NodeStack {
   public:
    NodeStack() = default;
    NodeStack(const NodeStack&) = delete;
    NodeStack& operator=(const NodeStack&) = delete;
    void push(NodeId node) {
      if (size_ == capacity_) grow();
      data_[size_++] = node.index();
    }
    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
    NodeId pop() noexcept { return NodeId(data_[--size_]); }

   private:
    /// Room in place: a walk keeps at most three nodes a level (a 4-wide tree 20 levels deep).
    static constexpr std::size_t kInline = 64;
    void grow();
    /// Indices, not NodeIds (which have no default constructor): the room in place is left
    /// uninitialised, so that starting a walk costs nothing.
    std::array<std::uint32_t, kInline> inline_;
    std::vector<std::uint32_t> heap_;
    std::uint32_t* data_ = inline_.data();
    std::size_t size_ = 0;
    std::size_t capacity_ = kInline;
  };

  /// Four children: bounds by axis then by slot (so one axis of all four loads at once), what
  /// each is, and the way up. 128 bytes, two cache lines.
  struct alignas(64) Node {
    float lo[3][kWidth];
    float hi[3][kWidth];
    /// A node (none in an empty slot), or an object where leaf_bits says so: read only through
    /// child_node() and child_object(), which say which they expect.
    std::uint32_t child[kWidth];
    NodeId parent = NodeId::none();  ///< None for the root; the next free node while free.
    std::uint8_t slot;               ///< Its slot in its parent.
    std::uint8_t count;              ///< Children, in slots [0, count); 0 while free.
    std::uint8_t leaf_bits;          ///< Bit s set iff child s is an object.
    [[nodiscard]] bool is_leaf(std::uint32_t s) const noexcept { return ((leaf_bits >> s) & 1u) != 0; }
    /// Child s, a node, or none if the slot is empty (!is_leaf(s)).
    [[nodiscard]] NodeId child_node(std::uint32_t s) const noexcept {
      AGRID_ASSERT(!is_leaf(s));
      return NodeId(child[s]);
    }
    /// Child s, an object (is_leaf(s)).
    [[nodiscard]] std::uint32_t child_object(std::uint32_t s) const noexcept {
      AGRID_ASSERT(is_leaf(s));
      return child[s];
    }
    /// Makes child s the node `node`, or none to empty the slot.
    void set_child_node(std::uint32_t s, NodeId node) noexcept {
      child[s] = node.bits();
      leaf_bits = static_cast<std::uint8_t>(leaf_bits & ~(1u << s));
    }
    /// Makes child s the object `object`.
    void set_child_object(std::uint32_t s, std::uint32_t object) noexcept {
      child[s] = object;
      leaf_bits = static_cast<std::uint8_t>(leaf_bits | (1u << s));
    }
  };
  static_assert(sizeof(Node) == 128);

  /// A child as it is moved between nodes: a node or an object, and its bounds.
  struct Child {
    std::uint32_t id;  ///< A node's index, or an object where `leaf` says so: read by node(), object().
    bool leaf;
    Box box;
    [[nodiscard]] static Child of_node(NodeId node, const Box& node_box) noexcept {
      return {node.index(), false, node_box};
    }
    [[nodiscard]] static Child of_object(std::uint32_t object, const Box& object_box) noexcept {
      return {object, true, object_box};
    }
    /// The node (!leaf).
    [[nodiscard]] NodeId node() const noexcept {
      AGRID_ASSERT(!leaf);
      return NodeId(id);
    }
    /// The object (leaf).
    [[nodiscard]] std::uint32_t object() const noexcept {
      AGRID_ASSERT(leaf);
      return id;
    }
  };

  [[nodiscard]] Box slot_box(NodeId node, std::uint32_t slot) const noexcept;
  void set_slot_box(NodeId node, std::uint32_t slot, const Box& box) noexcept;
  /// The union of a node's children's bounds.
  [[nodiscard]] Box bounds(NodeId node) const noexcept;
  /// Slot `slot` of `node` (filled) as a child to move.
  [[nodiscard]] Child child_at(NodeId node, std::uint32_t slot) const noexcept;
  /// Puts a child into slot `slot` of `node`: its bounds, and its way back (place_ or parent).
  void set_child(NodeId node, std::uint32_t slot, const Child& child) noexcept;
  /// Empties a slot, moving the last child into it.
  void take_slot(NodeId node, std::uint32_t slot) noexcept;
  NodeId allocate();
  void release(NodeId node) noexcept;
  /// The node built over `entries` (at least two), whose union is written to `*box`.
  NodeId build_node(std::span<Entry> entries, Box* box);
  /// Adds `child` to `node`, splitting full nodes on the way up, and refits the bounds above.
  void add_child(NodeId node, Child child);
  /// Gives `child` to a sibling of the full `node` that has room and grows least, if one grows
  /// by no more than the child's size; true iff one took it.
  bool add_to_sibling(NodeId node, const Child& child);
  /// Makes `children` the node's only children.
  void fill(NodeId node, std::span<const Child> children) noexcept;
  /// Orders five children for a split and returns how many go to the first half (2 or 3).
  static std::size_t split_five(std::array<Child, kWidth + 1>& all) noexcept;
  /// Sets the bounds above `node` to its children's union, up to the first that is unchanged.
  void refit_upward(NodeId node) noexcept;
  /// Refits the subtree of `node` from its leaves up; returns its bounds.
  Box refit_below(NodeId node) noexcept;
  /// Calls `visit(object)` for the leaves under the slots `meets(node)` accepts (as bits),
  /// from the node `start` down; `touch(object)` first for each of a node's leaves it accepts.
  template <class Meets, class Visit, class Touch>
  bool walk(NodeId start, Meets&& meets, Visit&& visit, Touch&& touch) const;
  /// Starts fetching a node about to be pushed on a walk's stack, so that the misses of the
  /// several children a walk takes overlap rather than follow one another.
  void prefetch(NodeId node) const noexcept {
    const char* p = reinterpret_cast<const char*>(&nodes_[node.index()]);
    __builtin_prefetch(p);
    __builtin_prefetch(p + 64);
  }
  /// The bits of `node`'s slots whose bounds overlap slot `s` of `other` (closed).
  [[nodiscard]] static unsigned slots_meeting(const Node& node, const Node& other, std::uint32_t s) noexcept;
  /// Meets slot `s` of `x` (in `a`) with slot `t` of `y` (in `b`), whose bounds overlap: visits
  /// two leaves, walks a node's subtree with a leaf's box, or pushes two nodes onto `pairs`.
  template <class Visit>
  static void meet_slots(const BoxTree& a, const Node& x, std::uint32_t s, const BoxTree& b, const Node& y,
                         std::uint32_t t, NodeStack& pairs, Visit& visit);
  /// Meets the node pairs on `pairs` (a node of `a` pushed before one of `b`) until none is left.
  template <class Visit>
  static void meet_pairs(const BoxTree& a, const BoxTree& b, NodeStack& pairs, Visit& visit);

  std::vector<Node> nodes_;
  std::vector<LeafPlace> place_;  ///< By object: its leaf's place, or absent.
  NodeId root_ = NodeId::none();
  NodeId free_ = NodeId::none();
  std::uint32_t leaves_ = 0;
  std::uint32_t in_use_ = 0;
};

template <class Meets, class Visit, class Touch>
bool BoxTree::walk(NodeId start, Meets&& meets, Visit&& visit, Touch&& touch) const {
  if (start.is_none()) return true;
  NodeStack stack;
  stack.push(start);
  while (!stack.empty()) {
    const Node& node = nodes_[stack.pop().index()];
    unsigned hits = meets(node) & ((1u << node.count) - 1u);
    for (unsigned leaves = hits & node.leaf_bits; leaves != 0; leaves &= leaves - 1) {
      touch(node.child_object(static_cast<std::uint32_t>(__builtin_ctz(leaves))));
    }
    while (hits != 0) {
      const auto s = static_cast<std::uint32_t>(__builtin_ctz(hits));
      hits &= hits - 1;
      if (!node.is_leaf(s)) {
        prefetch(node.child_node(s));
        stack.push(node.child_node(s));
      } else if (!visit(node.child_object(s))) {
        return false;
      }
    }
  }
  return true;
}

template <class Visit, class Touch>
bool BoxTree::query(const Box& query, Visit&& visit, Touch&& touch) const {
  const Lanes4 q_lo[3] = {Lanes4::splat(query.min.x), Lanes4::splat(query.min.y), Lanes4::splat(query.min.z)};
  const Lanes4 q_hi[3] = {Lanes4::splat(query.max.x), Lanes4::splat(query.max.y), Lanes4::splat(query.max.z)};
  return walk(
      root_,
      [&](const Node& node) {
        Mask4 m = (q_lo[0] <= Lanes4::load(node.hi[0])) & (Lanes4::load(node.lo[0]) <= q_hi[0]);
        for (int a = 1; a < 3; ++a) {
          m = m & (q_lo[a] <= Lanes4::load(node.hi[a])) & (Lanes4::load(node.lo[a]) <= q_hi[a]);
        }
        return m.bits();
      },
      visit, touch);
}

template <class Visit, class Touch>
bool BoxTree::query(const NodeSegment& segment, Visit&& visit, Touch&& touch) const {
  // Per swept axis, the side the segment reaches first and its slab (the sign of the inverse
  // says which: t_lo <= t_hi when it is positive); per still axis, an overlap with the clip
  // bounds. Empty slots' inverted bounds give an entry of +inf or fail the overlap.
  return walk(
      root_,
      [&](const Node& node) {
        Lanes4 enter = Lanes4::splat(0.0f);
        Lanes4 leave = Lanes4::splat(1.0f);
        Mask4 m = enter <= leave;
        for (int a = 0; a < 3; ++a) {
          const Lanes4 lo = Lanes4::load(node.lo[a]);
          const Lanes4 hi = Lanes4::load(node.hi[a]);
          if (segment.still[a]) {
            m = m & (lo <= Lanes4::splat(segment.clip_hi[a])) & (Lanes4::splat(segment.clip_lo[a]) <= hi);
            continue;
          }
          const Lanes4 inverse = Lanes4::splat(segment.inverse[a]);
          const Lanes4 t_lo = (lo - Lanes4::splat(segment.slab_lo[a])) * inverse;
          const Lanes4 t_hi = (hi - Lanes4::splat(segment.slab_hi[a])) * inverse;
          const bool rising = segment.inverse[a] > 0.0f;
          enter = max(enter, rising ? t_lo : t_hi);
          leave = min(leave, rising ? t_hi : t_lo);
        }
        return (m & (enter <= leave)).bits();
      },
      visit, touch);
}

inline unsigned BoxTree::slots_meeting(const Node& node, const Node& other, std::uint32_t s) noexcept {
  Mask4 m = (Lanes4::splat(other.lo[0][s]) <= Lanes4::load(node.hi[0])) &
            (Lanes4::load(node.lo[0]) <= Lanes4::splat(other.hi[0][s]));
  for (int a = 1; a < 3; ++a) {
    m = m & (Lanes4::splat(other.lo[a][s]) <= Lanes4::load(node.hi[a])) &
        (Lanes4::load(node.lo[a]) <= Lanes4::splat(other.hi[a][s]));
  }
  return m.bits() & ((1u << node.count) - 1u);
}

template <class Visit>
void BoxTree::meet_slots(const BoxTree& a, const Node& x, std::uint32_t s, const BoxTree& b, const Node& y,
                          std::uint32_t t, NodeStack& pairs, Visit& visit) {
  const bool leaf_x = x.is_leaf(s);
  const bool leaf_y = y.is_leaf(t);
  if (leaf_x && leaf_y) {
    visit(x.child_object(s), y.child_object(t));
  } else if (leaf_x) {
    b.walk(y.child_node(t), [&](const Node& node) { return slots_meeting(node, x, s); },
           [&](std::uint32_t object) { visit(x.child_object(s), object); return true; }, [](std::uint32_t) {});
  } else if (leaf_y) {
    a.walk(x.child_node(s), [&](const Node& node) { return slots_meeting(node, y, t); },
           [&](std::uint32_t object) { visit(object, y.child_object(t)); return true; }, [](std::uint32_t) {});
  } else {
    a.prefetch(x.child_node(s));
    b.prefetch(y.child_node(t));
    pairs.push(x.child_node(s));
    pairs.push(y.child_node(t));
  }
}

template <class Visit>
void BoxTree::meet_pairs(const BoxTree& a, const BoxTree& b, NodeStack& pairs, Visit& visit) {
  while (!pairs.empty()) {
    const Node& y = b.nodes_[pairs.pop().index()];
    const Node& x = a.nodes_[pairs.pop().index()];
    for (std::uint32_t s = 0; s < x.count; ++s) {
      for (unsigned hits = slots_meeting(y, x, s); hits != 0; hits &= hits - 1) {
        meet_slots(a, x, s, b, y, static_cast<std::uint32_t>(__builtin_ctz(hits)), pairs, visit);
      }
    }
  }
}

template <class Visit>
void BoxTree::for_each_overlap(const BoxTree& a, const BoxTree& b, Visit&& visit) {
  if (a.root_.is_none() || b.root_.is_none()) return;
  NodeStack pairs;
  pairs.push(a.root_);
  pairs.push(b.root_);
  meet_pairs(a, b, pairs, visit);
}

template <class Visit>
void BoxTree::for_each_overlap_within(Visit&& visit) const {
  // Each node's own children two by two (the later slots only), then the pairs of nodes that
  // those meetings pushed; the children that are nodes in turn.
  if (root_.is_none()) return;
  NodeStack nodes;
  NodeStack pairs;
  nodes.push(root_);
  while (!nodes.empty()) {
    const Node& n = nodes_[nodes.pop().index()];
    for (std::uint32_t s = 0; s < n.count; ++s) {
      if (!n.is_leaf(s)) nodes.push(n.child_node(s));
      for (unsigned later = slots_meeting(n, n, s) & ~((2u << s) - 1u); later != 0; later &= later - 1) {
        meet_slots(*this, n, s, *this, n, static_cast<std::uint32_t>(__builtin_ctz(later)), pairs, visit);
      }
    }
    meet_pairs(*this, *this, pairs, visit);
  }
}

}  // namespace agrid::detail
