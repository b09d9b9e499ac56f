// kd-sweep: the approach of the Rust crate broccoli, in 3-D. A kd-tree of fixed height is built
// by median split: at each node the boxes that cross the divider stay there, sorted along a
// second axis; the others go to the children. Pairs are found within each node by a sweep, then
// between the node's boxes and those of the descendants that can reach them (the dividers prune
// the rest); then the two subtrees are independent problems, solved in parallel.
//
// In 3-D, unlike broccoli's 2-D alternation, each node splits the axis where its boxes' centres
// vary most and sweeps the one where they vary next most (alternating, a flat scene would leave
// its boxes at the nodes that split its thin axis). Broccoli sweeps an anchor against each descendant node in turn; here the
// descendants' boxes within the anchor's bounds are gathered first and swept against it once
// (15-20% less time on the 1M scenes: the anchor's boxes are walked once, not once per node).

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_invoke.h>

#include <algorithm>
#include <bit>
#include <span>
#include <vector>

#include "peers_impl.h"
#include "sweep.h"

namespace agrid::peers {
namespace {

using sweep::Entry;

/// Boxes a leaf is built for: broccoli's DEFAULT_NUMBER_ELEM_PER_NODE (32 to 256 differ by under
/// 10% here).
constexpr std::size_t kLeafBoxes = 32;
/// Subtrees with fewer boxes are built and searched on one thread: a task costs about a
/// microsecond, far less than such a subtree's work (1,024 to 16,384 differed by no more than
/// the noise).
constexpr std::size_t kParallelMinBoxes = 4096;

/// One node of the tree: its own boxes and, unless a leaf, where its children divide. Its
/// subtree's boxes are contiguous: [left child's subtree | its own | right child's subtree].
struct Node {
  std::uint32_t subtree_begin = 0;  // its subtree's boxes are entries [subtree_begin, subtree_end)
  std::uint32_t subtree_end = 0;    //
  std::uint32_t begin = 0;          // its own, [begin, end)
  std::uint32_t end = 0;            //
  float divider = 0;                // left child's boxes end below it, right child's start above
  int split_axis = 0;               // the axis of the divider
  int sweep_axis = 0;               // the axis its own boxes are sorted and swept along
  bool leaf = true;                 // no children: its own boxes are all of its subtree's
  Entry bounds{};                   // the bounds of its own boxes (id unused)
  float longest = 0;                // the longest of its own boxes along sweep_axis
};

/// The bounds of a non-empty run of entries.
Entry bounds_of(std::span<const Entry> e) {
  Entry b = e.front();
  for (const Entry& x : e) {
    for (int a = 0; a < 3; ++a) {
      b.lo[a] = std::min(b.lo[a], x.lo[a]);
      b.hi[a] = std::max(b.hi[a], x.hi[a]);
    }
  }
  return b;
}

/// Levels of a tree whose leaves get about kLeafBoxes boxes each (each level halves the boxes
/// that go down).
int levels_for(std::size_t boxes) {
  if (boxes <= kLeafBoxes) return 1;
  return 1 + static_cast<int>(std::bit_width((boxes - 1) / kLeafBoxes));
}

/// The peer; its buffers and per-thread scratch are kept between calls.
class KdSweep final : public Peer {
 public:
  [[nodiscard]] std::string_view name() const override { return "kd-sweep"; }
  [[nodiscard]] bool parallel() const override { return true; }

  void find_pairs(std::span<const Box> boxes, std::vector<Pair>& out) override {
    sweep::valid_entries(boxes, entries_);
    spare_.resize(entries_.size());
    levels_ = levels_for(entries_.size());
    nodes_.assign((std::size_t{1} << levels_) - 1, Node{});
    build(0, 0, static_cast<std::uint32_t>(entries_.size()), 0, true);
    box_count_ = boxes.size();
    for (Local& local : locals_) local.fresh = true;
    search(0);
    all_.reset(boxes.size());
    for (Local& local : locals_) {
      if (!local.fresh) all_.append(local.keys);
    }
    all_.sorted_pairs(out);
  }

 private:
  /// What each thread appends to.
  struct Local {
    sweep::PairKeys keys;           // the pairs it found
    std::vector<Entry> gathered;    // descendants' boxes near an anchor, sorted along its axis
    std::vector<float> lows;        // the sampled lows whose median is a divider
    std::vector<Entry> straddling;  // a split's crossing boxes, until placed
    bool fresh = true;              // keys not yet reset in this call
  };

  /// Builds node i over boxes [begin, end) at depth `level`, which lie in entries_ or, if not
  /// `in_entries`, in spare_; the split writes them into the other, and each node's own boxes
  /// end in entries_.
  void build(std::size_t i, std::uint32_t begin, std::uint32_t end, int level, bool in_entries) {
    Node& node = nodes_[i];
    node.subtree_begin = node.begin = node.end = begin;
    node.subtree_end = end;
    if (begin == end) return;
    const std::span<Entry> all = run(in_entries, begin, end);
    const std::array<int, 3> axes = sweep::axes_by_variance(all, sweep::kAxisSamples);
    if (level + 1 == levels_ || all.size() <= kLeafBoxes) {
      finish(node, begin, in_entries ? all : place(all, begin), axes[0]);
      return;
    }
    const int split = axes[0];
    Local& local = locals_.local();
    const float divider =
        sweep::median(all, [split](const Entry& x) { return x.lo[split]; }, local.lows, sweep::kMedianSamples);
    // The median box crosses the divider, so each child has fewer boxes.
    const sweep::Split parts =
        sweep::split_by_plane(all, run(!in_entries, begin, end), split, divider, local.straddling);
    const auto own_begin = begin + static_cast<std::uint32_t>(parts.below.size());
    finish(node, own_begin, in_entries ? place(parts.straddling, own_begin) : parts.straddling, axes[1]);
    node.leaf = false;
    node.divider = divider;
    node.split_axis = split;
    const auto own_end = node.end;
    const auto build_left = [&] { build(2 * i + 1, begin, own_begin, level + 1, !in_entries); };
    const auto build_right = [&] { build(2 * i + 2, own_end, end, level + 1, !in_entries); };
    if (all.size() >= kParallelMinBoxes) {
      tbb::parallel_invoke(build_left, build_right);
    } else {
      build_left();
      build_right();
    }
  }

  /// Boxes [begin, end) of entries_ or of spare_.
  std::span<Entry> run(bool in_entries, std::uint32_t begin, std::uint32_t end) {
    return std::span<Entry>(in_entries ? entries_ : spare_).subspan(begin, end - begin);
  }

  /// Copies boxes that lie in spare_ to entries_ from `begin` on, and returns them there.
  std::span<Entry> place(std::span<const Entry> boxes, std::uint32_t begin) {
    const std::span<Entry> to = run(true, begin, begin + static_cast<std::uint32_t>(boxes.size()));
    std::copy(boxes.begin(), boxes.end(), to.begin());
    return to;
  }

  /// Makes `own`, entries_ from `begin` on, node's own boxes: sorted along `axis`, bounded.
  static void finish(Node& node, std::uint32_t begin, std::span<Entry> own, int axis) {
    node.begin = begin;
    node.end = begin + static_cast<std::uint32_t>(own.size());
    node.sweep_axis = axis;
    if (own.empty()) return;
    sweep::sort_by_min(own, axis);
    node.bounds = bounds_of(own);
    for (const Entry& x : own) node.longest = std::max(node.longest, x.hi[axis] - x.lo[axis]);
  }

  /// Every pair within the subtree of node i.
  void search(std::size_t i) {
    const Node& node = nodes_[i];
    if (node.subtree_end == node.subtree_begin) return;
    if (node.end > node.begin) {
      Local& local = local_for_this_thread();
      within(node, local);
      if (!node.leaf) with_descendants(node, i, local);
    }
    if (node.leaf) return;
    const auto left = [&] { search(2 * i + 1); };
    const auto right = [&] { search(2 * i + 2); };
    if (node.subtree_end - node.subtree_begin >= kParallelMinBoxes) {
      tbb::parallel_invoke(left, right);
    } else {
      left();
      right();
    }
  }

  /// The pairs among a node's own boxes: a sweep along its axis; off a leaf they all cross the
  /// divider, so the split axis needs no test.
  void within(const Node& node, Local& local) const {
    const std::span<const Entry> own = boxes_of(node);
    const int s = node.sweep_axis;
    if (node.leaf) {
      sweep::sweep_one(own, s, [s](const Entry& a, const Entry& b) { return sweep::meet_off(a, b, s); }, local.keys);
      return;
    }
    const int third = 3 - s - node.split_axis;
    sweep::sweep_one(own, s, [third](const Entry& a, const Entry& b) { return sweep::meet(a, b, third); }, local.keys);
  }

  /// The pairs of an anchor's boxes with those of its descendants, gathered (those within its
  /// bounds), sorted along its axis and swept against its own in one pass.
  void with_descendants(const Node& anchor, std::size_t i, Local& local) const {
    local.gathered.clear();
    gather(anchor, 2 * i + 1, local.gathered);
    gather(anchor, 2 * i + 2, local.gathered);
    if (local.gathered.empty()) return;
    const int s = anchor.sweep_axis;
    sweep::sort_by_min(local.gathered, s);
    float reach_hi = local.gathered.front().hi[s];
    for (const Entry& x : local.gathered) reach_hi = std::max(reach_hi, x.hi[s]);
    const std::span<const Entry> mine =
        sweep::reaching(boxes_of(anchor), s, local.gathered.front().lo[s], reach_hi, anchor.longest);
    sweep::sweep_two(mine, local.gathered, s, [s](const Entry& a, const Entry& b) { return sweep::meet_off(a, b, s); },
                     local.keys);
  }

  /// Appends to `out` the boxes of node d and its descendants within the anchor's bounds: a
  /// child lies wholly on one side of its parent's divider, so a side the anchor's bounds do not
  /// reach is skipped, and so is a node whose own boxes' bounds miss them.
  void gather(const Node& anchor, std::size_t d, std::vector<Entry>& out) const {
    const Node& node = nodes_[d];
    if (node.subtree_end == node.subtree_begin) return;
    if (node.end > node.begin && sweep::meet_all(anchor.bounds, node.bounds)) {
      for (const Entry& x : boxes_of(node)) {
        if (sweep::meet_all(x, anchor.bounds)) out.push_back(x);
      }
    }
    if (node.leaf) return;
    if (node.divider > anchor.bounds.lo[node.split_axis]) gather(anchor, 2 * d + 1, out);
    if (node.divider < anchor.bounds.hi[node.split_axis]) gather(anchor, 2 * d + 2, out);
  }

  /// A node's own boxes.
  [[nodiscard]] std::span<const Entry> boxes_of(const Node& node) const {
    return {entries_.data() + node.begin, node.end - node.begin};
  }

  /// This thread's Local, reset on its first use in this call.
  Local& local_for_this_thread() {
    Local& local = locals_.local();
    if (local.fresh) {
      local.keys.reset(box_count_);
      local.fresh = false;
    }
    return local;
  }

  std::vector<Entry> entries_;                         // the valid boxes, in tree order ...
  std::vector<Entry> spare_;                           // ... and the build's second buffer
  std::vector<Node> nodes_;                            // the tree, children of i at 2i+1 and 2i+2
  int levels_ = 1;                                     // the tree's height
  std::size_t box_count_ = 0;                          // the input's size, for the pair keys
  tbb::enumerable_thread_specific<Local> locals_;      // per-thread pairs and scratch
  sweep::PairKeys all_;                                // every thread's pairs, to sort
};

}  // namespace

std::unique_ptr<Peer> make_kd_sweep() { return std::make_unique<KdSweep>(); }

}  // namespace agrid::peers
