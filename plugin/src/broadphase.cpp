// Broadphase: objects by handle; resting ones in a balanced tree of fat boxes with their candidate
// pairs kept; moving ones paired afresh each update by the adaptive grid; the changes found from
// what changed only.

#include "agrid/broadphase.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <iterator>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>

#include <tbb/task_arena.h>

#include "agrid/grid.h"
#include "agrid/tree.h"
#include "agrid_assert.h"
#include "candidate_pairs.h"
#include "checked_config.h"
#include "direct_pairs.h"
#include "fat_box.h"
#include "lanes4.h"
#include "pair_key.h"
#include "parallel_for.h"
#include "segment_math.h"
#include "slack_growth.h"
#include "wide_tree.h"

namespace agrid {
namespace {

using detail::WideTree;
using detail::pair_key;
using detail::pair_of;

/// Moving objects queried against the resting tree per unit of parallel work (large enough that
/// a unit outweighs handing it to a thread).
constexpr std::uint32_t kQueriesPerWork = 256;

/// When at least 1/kScanAllShare of the resting objects moved inside their fat boxes, their
/// candidates are re-tested in one pass over all candidates rather than list by list (measured:
/// bench-2's settling stack, every one of 1,077 resting bodies moved, 68 us list by list). The
/// pass reads a copy of the boxes by handle (32 bytes an object of the table), so it is made only
/// where at least 1/kScanAllShare of the table rests too: a few resting objects among many moving
/// ones are re-tested list by list, without that copy.
constexpr std::size_t kScanAllShare = 4;

/// Candidate records re-tested ahead of which the members' objects are fetched.
constexpr std::size_t kRetestPrefetch = 8;

/// When more than 1/kRebuildShare of the resting tree's leaves leave it in one update (a level
/// unloaded), the tree is built afresh over those that stay instead of losing its leaves one by
/// one, each with its refits and rotations (1,000,000 leaving: 0.95 s one by one).
constexpr std::size_t kRebuildShare = 2;

/// An update where at least 1/kBusyShare of the live objects are new or left their fat box is
/// busy: nothing joins the resting set then, new objects move at once, and one grid pairs them
/// all. Where everything drifts (a crowd, the first update of a world) a pass over the world is
/// paid anyway, and the tree joins, bulk builds and candidate lists that resting would cost are
/// not repaid (measured: all-moving brownian-100k 5.7 ms a frame with them, find_all_pairs on
/// the same boxes 3.05; a first update of 100,000 new objects 85 -> 8 ms). Objects that tremble
/// inside their fat boxes do not count: their candidates' re-test costs less than a grid
/// (bench-2's settling stack: 46 us a step resting, 154 us busy).
constexpr std::size_t kBusyShare = 2;

/// The pair finders' scratch is kept for the most boxes they paired in about this many updates,
/// so that a world which pairs many boxes now and then allocates nothing between, and one that
/// has calmed down gives it back.
constexpr std::uint32_t kEngineMemoryUpdates = 16;

/// Where an object is kept.
enum class Place : std::uint8_t {
  none,     ///< Not yet placed (created since the last update), or removed.
  moving,   ///< In the moving set: paired afresh each update.
  resting,  ///< In the resting tree (when its box is valid) with its candidates kept.
};

/// How the last update found the pairs with a moving member: the one mode of pairing.
enum class Pairing : std::uint8_t {
  none,       ///< It did not (update_queries()): the next update() reports every pair as begun.
  tree_queries,  ///< Few moved: a grid over the moving set, and each moving object's query of the resting tree.
  one_grid,   ///< Many moved: one grid over the moving and the resting boxes.
};

/// One object: what set_box reads and writes, in one cache line. Invariant: a valid box lies in
/// its fat box; the resting tree holds `fat` as the object's leaf iff it rests with a valid box.
struct alignas(64) Object {
  Box box;                               ///< The exact box, as last set.
  Box fat;                               ///< Holds `box` (when valid); reset when `box` leaves it.
  std::uint32_t fat_set_at = 0;          ///< The update count, modulo 2^32, when `fat` was last set ...
  std::uint32_t changed_at = 0;          ///< ... and when the box or filter last changed.
  Place place = Place::none;
  bool alive : 1 = false;
  bool dirty : 1 = false;    ///< Changed since the last update (listed in `dirty`).
  bool leaving : 1 = false;  ///< Resting, and its box left its fat box or its filter changed.
  bool joining : 1 = false;  ///< Joining the resting tree in the update under way.
  bool refused : 1 = false;  ///< Resting, listed in refused_at_rest: a resting neighbour's filter refused it.
};
static_assert(sizeof(Object) == 64);

/// A valid box as two four-lane corners (the fourth lanes 0), for testing many pairs of them.
struct alignas(16) ScanBox {
  float min[4];
  float max[4];
  ScanBox() = default;
  explicit ScanBox(const Box& b) noexcept
      : min{b.min.x, b.min.y, b.min.z, 0.0f}, max{b.max.x, b.max.y, b.max.z, 0.0f} {}
  /// detail::boxes_meet of the two boxes.
  [[nodiscard]] bool meets(const ScanBox& o) const noexcept {
    using detail::Lanes4;
    const auto both = (Lanes4::load(min) <= Lanes4::load(o.max)) & (Lanes4::load(o.min) <= Lanes4::load(max));
    return both.bits() == 0xfu;
  }
};

/// A segment query: its prepared form (for the exact tests) and its float form for the trees'
/// nodes.
struct SegmentQuery {
  detail::PreparedSegment prepared;
  detail::NodeSegment nodes;
  explicit SegmentQuery(const Segment& s) : prepared(s), nodes(prepared) {}
};

// A query's test of one object, and its walk of the tree and of the grid, for a box and for a
// segment.
[[nodiscard]] bool meets(const Box& query, const Box& box) noexcept { return overlaps(query, box); }
[[nodiscard]] bool meets(const SegmentQuery& query, const Box& box) noexcept {
  double t = 0.0;
  return is_valid(box) && query.prepared.meets(box, &t);
}
template <class Visit>
bool walk(const WideTree& tree, const Box& query, Visit&& visit) {
  return tree.query(query, visit);
}
template <class Visit>
bool walk(const WideTree& tree, const SegmentQuery& query, Visit&& visit) {
  return tree.query(query.nodes, visit);
}

/// Heap memory an array holds.
template <class T>
[[nodiscard]] std::size_t bytes(const std::vector<T>& v) noexcept {
  return v.capacity() * sizeof(T);
}

/// What the world asks of the arrays kept for it, by which each gives memory back (slack_growth.h's
/// rule). An array is ready to hold what it held during the update and what the world asks of
/// it, whichever is more: a list of the step's handles keeps room for as many as there are
/// objects, and a list of keys for as many as there are pairs kept. So the lists of a world of a
/// steady size never shrink between a step of many changes and one of few, and they give memory
/// back when the world shrinks. The parts' give_back, trim and renew_engines, and problem(), are
/// [[gnu::cold]]: they cost O(1) an update (problem() runs only with AGRID_ASSERTS), and GCC's
/// inlining of them would use up what it allows this file, whose hot calls then stop being
/// inlined (measured: set_box's helpers and the tree queries' push_back, +10% instructions on
/// BM_broadphase/stream-20k).
struct WorldSize {
  std::size_t objects = 0;  ///< Live objects.
  std::size_t pairs = 0;    ///< Candidates and pairs with a moving member: the keys a step may touch.
  std::size_t objects_end = 0;  ///< The object table's end: no handle at or above it is live.
  std::uint64_t updates = 0;    ///< Updates so far, this one included.
};

/// Appends the keys of sorted `now` not in sorted `before` to `began` and the others to `ended`.
void sorted_differences(const std::vector<std::uint64_t>& now, const std::vector<std::uint64_t>& before,
                        std::vector<Pair>& began, std::vector<Pair>& ended) {
  auto n = now.begin();
  auto b = before.begin();
  while (n != now.end() && b != before.end()) {
    if (*n < *b) {
      began.push_back(pair_of(*n++));
    } else if (*b < *n) {
      ended.push_back(pair_of(*b++));
    } else {
      ++n;
      ++b;
    }
  }
  for (; n != now.end(); ++n) began.push_back(pair_of(*n));
  for (; b != before.end(); ++b) ended.push_back(pair_of(*b));
}

/// Appends the sorted `more` to the sorted `keys`, which stay sorted. Merged from the back, in
/// place: std::inplace_merge allocates a buffer on every call.
void merge_in(std::vector<std::uint64_t>& keys, const std::vector<std::uint64_t>& more) {
  std::size_t kept = keys.size();
  std::size_t added = more.size();
  keys.resize(kept + added);
  for (std::size_t out = kept + added; added > 0;) {
    keys[--out] = kept > 0 && keys[kept - 1] > more[added - 1] ? keys[--kept] : more[--added];
  }
}

/// Sorts `keys` and drops repeats.
void sort_unique(std::vector<std::uint64_t>& keys) {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
}

/// Handles to give out: removed ones become reusable only after the update that reports the end
/// of their pairs, and the lowest is reused first.
class HandlePool {
 public:
  /// A reusable handle, or `next` (the first never used) when there is none.
  [[nodiscard]] Handle take(Handle next) {
    if (free_.empty()) return next;
    const Handle h = free_.back();
    free_.pop_back();
    return h;
  }
  void removed(Handle h) { removed_.push_back(h); }
  /// The update has reported the removed handles' pairs: they are reusable now.
  void recycle() {
    if (removed_.empty()) return;
    free_.insert(free_.end(), removed_.begin(), removed_.end());
    removed_.clear();
    std::sort(free_.begin(), free_.end(), std::greater<>());
  }
  /// The table ends at `end` now: forgets the reusable handles from `end` on. They are the
  /// highest, first in free_; there are some only after an update that removed objects, whose
  /// recycle() sorted all of free_ already.
  void forget_from(Handle end) {
    free_.erase(free_.begin(), std::find_if(free_.begin(), free_.end(), [end](Handle h) { return h < end; }));
  }
  /// Gives memory back where it is far below what `objects` live objects ask (slack_growth.h).
  [[gnu::cold]] void give_back(std::size_t objects) {
    detail::shrink_if_far_below(free_, objects);
    detail::shrink_if_far_below(removed_, objects);
  }
  [[nodiscard]] std::size_t bytes_held() const noexcept { return bytes(free_) + bytes(removed_); }
  /// Reusable handles.
  [[nodiscard]] std::span<const Handle> reusable() const noexcept { return free_; }
  /// Null if, after an update, every removed handle is reusable and the reusable ones descend
  /// below `end`, each once; else what is broken.
  [[nodiscard]] const char* problem(std::size_t end) const {
    if (!removed_.empty()) return "HandlePool: removed handles not reusable after an update";
    if (std::adjacent_find(free_.begin(), free_.end(), std::less_equal<>()) != free_.end()) {
      return "HandlePool: reusable handles do not descend, or repeat";
    }
    if (!free_.empty() && free_.front() >= end) return "HandlePool: a reusable handle is past the table's end";
    return nullptr;
  }

 private:
  std::vector<Handle> free_;     ///< Reusable now, lowest last.
  std::vector<Handle> removed_;  ///< Removed since the last update.
};

}  // namespace

/// The objects by handle: the one copy of every box. Invariant (Impl::problem): `live` and
/// `invalid` count the live objects and those with an invalid box; `dirty` lists each object
/// marked dirty once, and is empty after an update; after an update the table ends at the
/// highest live handle + 1, and the reusable handles are exactly the dead ones below.
struct ObjectTable {
  std::vector<Object> objects;
  std::vector<Filter> filters;
  HandlePool handles;
  std::vector<Handle> dirty;  ///< Changed since the last update.
  std::uint64_t updates = 0;
  std::uint32_t live = 0;
  std::uint32_t invalid = 0;

  /// After an update (every removed handle reusable): drops the dead objects past the highest
  /// live one, and their handles. The handles given out do not change: the lowest reusable one
  /// is taken first, so a dropped handle would have been given out only after all below it.
  /// O(objects dropped), and O(1) when none is.
  [[gnu::cold]] void trim() {
    std::size_t end = objects.size();
    while (end > 0 && !objects[end - 1].alive) --end;
    if (end == objects.size()) return;
    objects.erase(objects.begin() + static_cast<std::ptrdiff_t>(end), objects.end());
    filters.erase(filters.begin() + static_cast<std::ptrdiff_t>(end), filters.end());
    handles.forget_from(static_cast<Handle>(end));
  }
  /// After trim(): gives memory back where it is far below what the table and the live objects
  /// ask (slack_growth.h); `changed` objects were dirty during the update.
  [[gnu::cold]] void give_back(std::size_t changed) {
    detail::shrink_if_far_below(objects, objects.size());
    detail::shrink_if_far_below(filters, filters.size());
    detail::shrink_if_far_below(dirty, std::max<std::size_t>(changed, live));
    handles.give_back(live);
  }
  [[nodiscard]] std::size_t bytes_held() const noexcept {
    return bytes(objects) + bytes(filters) + bytes(dirty) + handles.bytes_held();
  }
};

/// The resting objects. Invariant (Impl::problem): the tree's leaves are the fat boxes of the
/// resting objects with a valid box; the candidates are the pairs of them whose fat boxes
/// overlap and whose filters pass, each with its exact overlap; `resting` counts the resting
/// objects (with an invalid box too).
struct RestingSet {
  WideTree resting_tree;
  detail::CandidatePairs candidates;
  std::uint32_t resting = 0;
  /// The objects whose `refused` is set, each once, and some whose flag was cleared since (or
  /// that were removed): compacted when those are the most. Invariant: every object with
  /// `refused` is listed once; `refused_count` counts them.
  std::vector<Handle> refused_list;
  std::uint32_t refused_count = 0;
  std::size_t refused_new_from = 0;  ///< refused_list[refused_new_from, end) was listed in the last update.

  /// Gives memory back where the tree's nodes or the candidate records in use are far below the
  /// room held (slack_growth.h); no object at or above `objects` rests.
  [[gnu::cold]] void give_back(std::size_t objects) {
    resting_tree.give_back(objects);
    candidates.give_back();
    detail::shrink_if_far_below(refused_list, refused_list.size());
  }
  [[nodiscard]] std::size_t bytes_held() const noexcept {
    return resting_tree.bytes_held() + candidates.bytes_held() + refused_list.capacity() * sizeof(Handle);
  }
};

/// The moving objects, the grid that pairs them, and the tree their queries walk. Invariant
/// (Impl::problem): `moving` holds the moving objects, ascending; `moving_keys` are the sorted
/// keys of the pairs with a moving member; `query_tree`, when `query_tree_current`, holds the
/// moving objects' boxes as they were at the first query after the last update.
struct MovingSet {
  std::vector<Handle> moving;
  std::vector<Box> grid_boxes;      ///< The boxes the grid pairs (during an update) ...
  std::vector<Handle> grid_handles;  ///< ... and their objects, when they are not `moving`'s ...
  std::vector<std::uint8_t> grid_moving;  ///< ... and then whether each moves.
  Grid moving_grid;
  Tree moving_tree;
  detail::DirectPairs direct_pairs;  ///< Pairs few boxes instead of moving_grid.
  std::vector<std::uint64_t> moving_keys;
  std::size_t grid_sized_for = 0;    ///< The most boxes moving_grid was built over since it was made ...
  std::size_t tree_sized_for = 0;    ///< ... and moving_tree: their scratch holds room for about that many.
  Pairing pairing = Pairing::one_grid;  ///< How the last update paired the moving set.
  std::size_t paired_recently = 0;   ///< note_paired(): the most boxes paired lately ...
  std::uint32_t paired_recently_age = 0;  ///< ... and updates since that was set.
  bool busy = false;                 ///< In this update, 1/kBusyShare of the objects are new or left their fat box.
  /// The moving set for queries: built by the first query after an update (Box2D's tree of
  /// moving proxies, made only when asked), so that an update that is not queried builds
  /// nothing for queries, and a query walks two trees of the same kind.
  mutable WideTree query_tree;
  mutable std::atomic<bool> query_tree_current{false};
  mutable std::mutex query_tree_mutex;
  mutable std::vector<WideTree::Entry> query_entries;  ///< The build's scratch, under the lock.

  explicit MovingSet(const Config& c) : moving_grid(c), moving_tree(c) {}

  void build_grid(std::span<const Box> boxes) {
    moving_grid.build(boxes);
    grid_sized_for = std::max(grid_sized_for, boxes.size());
  }
  void build_tree(std::span<const Box> boxes) {
    moving_tree.build(boxes);
    tree_sized_for = std::max(tree_sized_for, boxes.size());
  }

  /// After an update's pairs: notes how many boxes the grid (or tree of grids) paired, into the
  /// most it paired over about the last kEngineMemoryUpdates updates.
  void note_paired(std::size_t boxes) noexcept {
    if (boxes >= paired_recently || ++paired_recently_age > kEngineMemoryUpdates) {
      paired_recently = boxes;
      paired_recently_age = 0;
    }
  }
  /// Before an update builds them: makes the grid and the tree of grids afresh when the boxes
  /// they paired recently (note_paired), or the live objects, are far below the boxes they were
  /// sized for (slack_growth.h). Their scratch, kept so that a frame of the same size allocates
  /// nothing, holds room for that many: after a busy update over the whole world (its first),
  /// a world where few move gives it back.
  [[gnu::cold]] void renew_engines(std::size_t live) {
    const std::size_t objects = std::min(live, paired_recently);
    if (detail::far_below(objects, grid_sized_for, moving_grid.stats().bytes_held)) {
      moving_grid = Grid(moving_grid.config());
      grid_sized_for = 0;
    }
    if (detail::far_below(objects, tree_sized_for, moving_tree.stats().bytes_held)) {
      moving_tree = Tree(moving_tree.config());
      tree_sized_for = 0;
    }
  }
  /// Gives memory back where it is far below what the world asks (slack_growth.h).
  [[gnu::cold]] void give_back(const WorldSize& world) {
    // The boxes paired lately, not the world: after a busy update over the whole world the
    // lists for the grid's boxes are given back once few move.
    const std::size_t paired = std::min(world.objects, paired_recently);
    detail::shrink_if_far_below(moving, paired);
    detail::shrink_if_far_below(grid_boxes, paired);
    detail::shrink_if_far_below(grid_handles, paired);
    detail::shrink_if_far_below(grid_moving, paired);
    detail::shrink_if_far_below(moving_keys, world.pairs);
    // The query tree is rebuilt from nothing when asked: when the moving sets of late are far
    // smaller than it has room for, it is dropped (kept otherwise, so a queried world of a steady
    // size allocates nothing a step).
    if (detail::far_below(paired, query_tree.leaf_room(), query_tree.bytes_held())) {
      query_tree = WideTree();
      query_tree_current.store(false, std::memory_order_relaxed);
    }
    detail::shrink_if_far_below(query_entries, moving.size());
  }
  [[nodiscard]] std::size_t bytes_held() const noexcept {
    return bytes(moving) + bytes(grid_boxes) + bytes(grid_handles) + bytes(grid_moving) +
           moving_grid.stats().bytes_held + moving_tree.stats().bytes_held + direct_pairs.bytes_held() +
           bytes(moving_keys) + query_tree.bytes_held() + bytes(query_entries);
  }

  /// At the start of an update: the query tree is stale (emptied, its memory kept).
  void forget_query_tree() {
    if (!query_tree_current.load(std::memory_order_relaxed)) return;
    query_tree.clear();
    query_tree_current.store(false, std::memory_order_relaxed);
  }
  /// The query tree, built over the moving objects' `objects` boxes if it is stale. Safe from
  /// several queries at once (the first builds it under a lock).
  template <class Objects>
  const WideTree& current_query_tree(const Objects& objects) const {
    if (query_tree_current.load(std::memory_order_acquire)) return query_tree;
    const std::lock_guard<std::mutex> lock(query_tree_mutex);
    if (!query_tree_current.load(std::memory_order_relaxed)) {
      query_entries.clear();
      for (const Handle h : moving) {
        if (is_valid(objects[h].box)) query_entries.push_back({objects[h].box, h});
      }
      query_tree.build(query_entries);
      query_tree_current.store(true, std::memory_order_release);
    }
    return query_tree;
  }
};

/// The pairs that began and ended, and what they are found from: the pairs an update may have
/// changed, as they were and as they are (sorted keys), and this update's moving keys.
struct ChangeLists {
  PairChanges changes;
  std::vector<std::uint64_t> touched_before;
  std::vector<std::uint64_t> touched_now;
  std::vector<std::uint64_t> next_keys;
  std::vector<std::uint64_t> resting_keys;  ///< This update's moving x resting keys, sorted apart.

  /// At the start of an update: empties the lists of the last one (their memory is kept).
  void start() {
    touched_before.clear();
    touched_now.clear();
    next_keys.clear();
    resting_keys.clear();
  }
  /// Gives memory back where it is far below what the world asks (slack_growth.h). The changes
  /// are the update's result and are kept.
  [[gnu::cold]] void give_back(const WorldSize& world) {
    for (std::vector<Pair>* list : {&changes.began, &changes.ended}) detail::shrink_if_far_below(*list, world.pairs);
    for (std::vector<std::uint64_t>* list : {&touched_before, &touched_now, &next_keys, &resting_keys}) {
      detail::shrink_if_far_below(*list, world.pairs);
    }
  }
  [[nodiscard]] std::size_t bytes_held() const noexcept {
    return bytes(changes.began) + bytes(changes.ended) + bytes(touched_before) + bytes(touched_now) + bytes(next_keys) +
           bytes(resting_keys);
  }
};

/// All pairs, brought up to date lazily by pairs() (which may run on several threads at once).
struct PairList {
  mutable std::vector<Pair> all_pairs;
  mutable std::uint64_t all_pairs_at = 0;  ///< The update they are of.
  mutable std::mutex all_pairs_mutex;
  mutable std::atomic<bool> all_pairs_current{true};

  /// After update number `updates`: gives memory back where it is far below what the world asks
  /// (slack_growth.h). The pairs are kept while the next pairs() may start from them (they are
  /// of the last update), else dropped. Not while pairs() may run.
  [[gnu::cold]] void give_back(const WorldSize& world, std::uint64_t updates) {
    if (all_pairs_at + 1 != updates) all_pairs.clear();
    detail::shrink_if_far_below(all_pairs, world.pairs);
  }
  [[nodiscard]] std::size_t bytes_held() const noexcept { return bytes(all_pairs); }
};

/// Scratch of update(), kept for its memory.
struct UpdateScratch {
  std::vector<Handle> retest;    ///< Resting, moved inside their fat boxes.
  std::vector<Handle> joining;   ///< Joining the resting tree.
  std::vector<Handle> entering;  ///< Left the resting tree: moving from now.
  std::vector<Handle> created;   ///< New since the last update: resting from now.
  std::vector<Handle> ready;     ///< Moving, and still long enough to rest.
  std::vector<Handle> next_moving;
  std::vector<std::vector<std::uint64_t>> unit_keys;  ///< Per unit of tree queries.
  std::vector<Pair> grid_pairs;
  std::vector<std::uint32_t> retest_records;  ///< Candidate records to re-test, in list order.
  std::vector<WideTree::Entry> join_entries;  ///< The joining objects with a valid fat box ...
  WideTree joining_tree;                      ///< ... and a tree over them.
  std::vector<ScanBox> scan_boxes;            ///< By handle: the boxes, for a pass over all candidates ...
  std::vector<std::uint8_t> scan_moved;       ///< ... and whether the object moved ...
  std::uint64_t scanned_at = 0;               ///< ... and the update that last made such a pass.

  /// At the start of an update: empties the lists of the last one (their memory is kept), so
  /// that what they hold at its end is what this update used.
  void start() {
    for (std::vector<Handle>* list : {&retest, &joining, &entering, &created, &ready, &next_moving}) list->clear();
    for (std::vector<std::uint64_t>& keys : unit_keys) keys.clear();
    grid_pairs.clear();
  }
  /// Gives memory back where it is far below what the world asks (slack_growth.h): a unit of
  /// tree queries is kept for each kQueriesPerWork objects.
  [[gnu::cold]] void give_back(const WorldSize& world) {
    for (std::vector<Handle>* list : {&retest, &joining, &entering, &created, &ready, &next_moving}) {
      detail::shrink_if_far_below(*list, world.objects);
    }
    const std::size_t units = (world.objects + kQueriesPerWork - 1) / kQueriesPerWork;
    if (detail::far_below(units, unit_keys.size(), unit_keys_bytes())) unit_keys.resize(units);
    detail::shrink_if_far_below(unit_keys, units);
    for (std::vector<std::uint64_t>& keys : unit_keys) detail::shrink_if_far_below(keys, world.pairs);
    detail::shrink_if_far_below(grid_pairs, world.pairs);
    detail::shrink_if_far_below(retest_records, world.pairs);
    // The joining tree, built afresh each update, keeps room as a list of the step's handles does.
    if (detail::far_below(world.objects, joining_tree.leaf_room(), joining_tree.bytes_held())) joining_tree = WideTree();
    joining_tree.end_objects_at(world.objects_end);
    detail::shrink_if_far_below(join_entries, world.objects);
    // By handle: as large as the table, whose end may have come down, while passes are made
    // (a settling stack makes one an update); given back when none was for kEngineMemoryUpdates.
    if (scan_boxes.size() > world.objects_end) scan_boxes.resize(world.objects_end);
    if (world.updates - scanned_at > kEngineMemoryUpdates) {
      scan_boxes.clear();
      scan_moved.clear();
    }
    detail::shrink_if_far_below(scan_boxes, world.objects_end);
    detail::shrink_if_far_below(scan_moved, world.objects_end);
  }
  [[nodiscard]] std::size_t unit_keys_bytes() const noexcept {
    std::size_t total = bytes(unit_keys);
    for (const std::vector<std::uint64_t>& keys : unit_keys) total += bytes(keys);
    return total;
  }
  [[nodiscard]] std::size_t bytes_held() const noexcept {
    return bytes(retest) + bytes(joining) + bytes(entering) + bytes(created) + bytes(ready) + bytes(next_moving) +
           unit_keys_bytes() + bytes(grid_pairs) + bytes(retest_records) + bytes(join_entries) + joining_tree.bytes_held() + bytes(scan_boxes) +
           bytes(scan_moved);
  }
};

/// The broadphase: its parts, each a small type above, and the steps of an update.
struct Broadphase::Impl : ObjectTable, RestingSet, MovingSet, ChangeLists, PairList, UpdateScratch {
  Config config;
  BroadphaseStats stats;

  explicit Impl(const Config& c) : MovingSet(c), config(c) {}

  Object& live_object(Handle h, const char* what) {
    if (h >= objects.size() || !objects[h].alive) {
      throw std::invalid_argument(std::string("agrid::Broadphase::") + what + ": not a live handle");
    }
    return objects[h];
  }
  [[nodiscard]] const Object& live_object(Handle h, const char* what) const {
    return const_cast<Impl*>(this)->live_object(h, what);
  }

  void mark_dirty(Handle h) {
    if (objects[h].dirty) return;
    objects[h].dirty = true;
    dirty.push_back(h);
  }

  /// The object's filter changed or its box left its fat box: a resting object leaves the tree
  /// at the next update.
  void reset_fat(Handle h) {
    Object& o = objects[h];
    o.fat = detail::fattened(o.box, config.fat_margin);
    o.fat_set_at = static_cast<std::uint32_t>(updates);
    o.changed_at = o.fat_set_at;
    o.leaving = o.place == Place::resting;
  }

  /// A moving object rests once its box has stayed in its fat box long enough (jittering), or
  /// has not changed for a while (stopped); drifting bodies leave their fat box first.
  [[nodiscard]] bool ready_to_rest(const Object& o) const noexcept {
    // Unless one grid pairs the moving set, moving costs a query of the resting tree every
    // update: objects in their fat box rest sooner then.
    const auto now = static_cast<std::uint32_t>(updates);
    const std::uint32_t inside = pairing != Pairing::one_grid ? config.rest_after_querying : config.rest_after;
    return now - o.fat_set_at >= inside || now - o.changed_at >= config.rest_after_unchanged;
  }

  /// True iff the filters let a and b pair, or filters do not decide pairs with a moving member.
  [[nodiscard]] bool moving_pair_passes(Handle a, Handle b) const noexcept {
    return !config.filter_moving_pairs || passes(filters[a], filters[b]);
  }
  /// Two resting objects whose fat boxes overlap and whose filters refuse each other.
  void note_refused(Handle a, Handle b);
  void forget_refused(Handle h);
  void compact_refused();
  void update(bool find_pairs);
  void take_changes();
  /// Takes a resting object out of the resting set; its leaf too unless the tree is rebuilt.
  void leave_resting(Handle h, bool remove_leaf);
  /// The resting tree afresh over the resting objects with a valid box.
  void rebuild_resting_tree();
  void retest_moved();
  /// True iff `moved` resting objects' candidates are re-tested in one pass over all (kScanAllShare).
  [[nodiscard]] bool scan_pays(std::size_t moved) const noexcept {
    return resting > 0 && moved * kScanAllShare >= resting && std::size_t{resting} * kScanAllShare >= objects.size();
  }
  void retest_candidate(std::uint32_t record);
  void join_resting();
  /// Two resting objects whose fat boxes overlap: a candidate, or refused by their filters.
  void add_candidate(Handle a, Handle b);
  void join_in_bulk();
  void pair_in_one_grid();
  /// Makes grid_pairs hold the pairs of `boxes` (by index), sorted: all against all for a few,
  /// else with the grid or the tree of grids (which then hold `boxes`).
  void find_grid_pairs(std::span<const Box> boxes);
  void update_moving_set();
  void find_moving_keys();
  /// The pairs that began and ended; all that hold began unless `last_reported` (the last update
  /// found its pairs).
  void report_changes(bool last_reported);
  /// After an update: gives memory back where the world now asks far less than is held (cold:
  /// see WorldSize).
  [[gnu::cold]] void give_back_memory();
  void collect_stats();
  void bring_pairs_up_to_date() const;
  template <class Query>
  void visit_current(const Query& query, FunctionRef<Handle> visit) const;
  [[nodiscard, gnu::cold]] const char* problem() const;
  [[nodiscard, gnu::cold]] const char* refused_problem() const;
};

Broadphase::Broadphase(const Config& config) : impl_(std::make_unique<Impl>(detail::checked(config))) {}
Broadphase::~Broadphase() = default;
Broadphase::Broadphase(Broadphase&&) noexcept = default;
Broadphase& Broadphase::operator=(Broadphase&&) noexcept = default;

Handle Broadphase::create(const Box& box, Filter filter) {
  Impl& m = *impl_;
  const Handle h = m.handles.take(static_cast<Handle>(m.objects.size()));
  if (h == m.objects.size()) {
    if (m.objects.size() >= std::numeric_limits<Handle>::max() - 1) {
      throw std::length_error("agrid::Broadphase::create: at most 2^32 - 2 objects");
    }
    try {
      detail::grow_for_one(m.objects);
      detail::grow_for_one(m.filters);
      m.objects.emplace_back();
      m.filters.emplace_back();
      m.candidates.resize(static_cast<std::uint32_t>(m.objects.size()));
    } catch (...) {
      m.objects.resize(h);
      m.filters.resize(h);
      throw;
    }
  }
  Object& o = m.objects[h];
  o = Object{};
  o.box = box;
  o.alive = true;
  m.filters[h] = filter;
  m.reset_fat(h);
  ++m.live;
  m.invalid += !is_valid(box);
  m.mark_dirty(h);
  return h;
}

void Broadphase::set_box(Handle handle, const Box& box) {
  Impl& m = *impl_;
  Object& o = m.live_object(handle, "set_box");
  if (detail::same_box(o.box, box)) return;
  m.invalid = m.invalid + !is_valid(box) - !is_valid(o.box);
  o.box = box;
  o.changed_at = static_cast<std::uint32_t>(m.updates);
  if (!detail::within(box, o.fat)) m.reset_fat(handle);
  m.mark_dirty(handle);
}

void Broadphase::set_filter(Handle handle, Filter filter) {
  Impl& m = *impl_;
  m.live_object(handle, "set_filter");
  Filter& old = m.filters[handle];
  if (old.group == filter.group && old.mask == filter.mask) return;
  old = filter;
  m.reset_fat(handle);  // its candidates were chosen by the old filter
  m.mark_dirty(handle);
}

void Broadphase::remove(Handle handle) {
  Impl& m = *impl_;
  Object& o = m.live_object(handle, "remove");
  o.alive = false;
  --m.live;
  m.invalid -= !is_valid(o.box);
  m.handles.removed(handle);
  m.mark_dirty(handle);
}

const PairChanges& Broadphase::update() {
  impl_->update(true);
  return impl_->changes;
}

void Broadphase::update_queries() { impl_->update(false); }

std::span<const Pair> Broadphase::pairs() const {
  impl_->bring_pairs_up_to_date();
  return impl_->all_pairs;
}

bool Broadphase::contains(Handle handle) const noexcept {
  return handle < impl_->objects.size() && impl_->objects[handle].alive;
}

const Box& Broadphase::box(Handle handle) const { return impl_->live_object(handle, "box").box; }

Filter Broadphase::filter(Handle handle) const {
  impl_->live_object(handle, "filter");
  return impl_->filters[handle];
}

BroadphaseStats Broadphase::stats() const { return impl_->stats; }

std::span<const Handle> Broadphase::refused_at_rest() const noexcept { return impl_->refused_list; }

std::span<const Handle> Broadphase::newly_refused_at_rest() const noexcept {
  return std::span<const Handle>(impl_->refused_list).subspan(impl_->refused_new_from);
}

void Broadphase::for_each_overlap(const Box& box, FunctionRef<Handle> visit) const {
  if (is_valid(box)) impl_->visit_current(box, visit);
}

void Broadphase::for_each_hit(const Segment& segment, FunctionRef<Handle> visit) const {
  if (is_valid(segment)) impl_->visit_current(SegmentQuery(segment), visit);
}

// ---- update ------------------------------------------------------------------------------------

void Broadphase::Impl::update(bool find_pairs) {
  ++updates;
  forget_query_tree();
  grid_handles.clear();
  ChangeLists::start();
  UpdateScratch::start();
  renew_engines(live);
  compact_refused();
  refused_new_from = refused_list.size();
  stats.changed = static_cast<std::uint32_t>(dirty.size());
  take_changes();
  join_resting();
  update_moving_set();
  changes.began.clear();
  changes.ended.clear();
  if (find_pairs) {
    const bool last_reported = pairing != Pairing::none;
    find_moving_keys();
    report_changes(last_reported);
    note_paired(grid_boxes.size());
  } else {
    moving_keys.clear();
    pairing = Pairing::none;
  }
  all_pairs_current.store(false, std::memory_order_release);
  handles.recycle();
  give_back_memory();
  collect_stats();
  AGRID_ASSERT_NO_PROBLEM(problem());
}

void Broadphase::Impl::take_changes() {
  // Removed and leaving objects first, so that the re-tests below see only candidates that stay.
  // New objects rest at once (join_resting), leaving ones move.
  // (Engines set boxes in the order they made the objects: mostly ascending already.)
  if (!std::is_sorted(dirty.begin(), dirty.end())) std::sort(dirty.begin(), dirty.end());
  retest.clear();
  entering.clear();
  created.clear();
  const auto leaves_resting = [&](const Object& o) { return o.place == Place::resting && (!o.alive || o.leaving); };
  std::size_t leaving_leaves = 0;
  std::size_t restless = 0;  // new, or out of their fat box (set_box and create reset it then)
  const auto now = static_cast<std::uint32_t>(updates - 1);
  for (const Handle h : dirty) {
    leaving_leaves += leaves_resting(objects[h]) && resting_tree.contains(h);
    restless += objects[h].alive && objects[h].fat_set_at == now;
  }
  busy = restless > 0 && restless * kBusyShare >= live;
  const bool rebuild = leaving_leaves * kRebuildShare > resting_tree.leaves();
  // Enough may move for retest_moved's pass over all candidates: the boxes of those that move
  // are written for it here, where their objects are at hand.
  const bool may_scan = scan_pays(dirty.size());
  if (may_scan) scan_boxes.resize(objects.size());
  for (const Handle h : dirty) {
    Object& o = objects[h];
    o.dirty = false;
    const bool is_new = o.place == Place::none;
    if (leaves_resting(o)) {
      leave_resting(h, !rebuild);
    } else if (o.place == Place::resting) {
      retest.push_back(h);  // moved inside its fat box
      if (may_scan) scan_boxes[h] = ScanBox(o.box);
    }
    if (!o.alive) {
      o.place = Place::none;
    } else if (is_new && !busy) {
      created.push_back(h);
    } else if (o.place == Place::none) {
      o.place = Place::moving;
      entering.push_back(h);
    }
  }
  dirty.clear();
  if (rebuild) rebuild_resting_tree();
  retest_moved();
}

void Broadphase::Impl::rebuild_resting_tree() {
  std::vector<WideTree::Entry> entries;
  for (Handle h = 0; h < objects.size(); ++h) {
    if (objects[h].place == Place::resting && resting_tree.contains(h)) entries.push_back({objects[h].fat, h});
  }
  resting_tree.build(entries);
}

void Broadphase::Impl::leave_resting(Handle h, bool remove_leaf) {
  Object& o = objects[h];
  for (std::uint32_t r = candidates.first(h); r != detail::CandidatePairs::kNone; r = candidates.first(h)) {
    if (candidates.hit(r)) touched_before.push_back(candidates.key(r));
    candidates.remove(r);
  }
  if (remove_leaf && resting_tree.contains(h)) resting_tree.remove(h);
  o.leaving = false;
  o.place = Place::none;  // enters the moving set below, if alive
  forget_refused(h);
  --resting;
}

void Broadphase::Impl::retest_moved() {
  // Object by object through their lists; or, when many moved (a settling stack), one pass over
  // all candidates in memory order, which costs less than that many list walks.
  if (retest.empty()) return;
  if (!scan_pays(retest.size())) {
    // The records first (each list walked as one chain), then their re-tests with the other
    // member's object fetched a few records ahead: each re-test's miss then overlaps others'
    // (frozen-500k: nearly all of a step is these misses).
    retest_records.clear();
    for (std::size_t i = 0; i < retest.size(); ++i) {
      if (i + kRetestPrefetch < retest.size()) {
        const std::uint32_t first = candidates.first(retest[i + kRetestPrefetch]);
        if (first != detail::CandidatePairs::kNone) candidates.prefetch(first);
      }
      const Handle h = retest[i];
      for (std::uint32_t r = candidates.first(h); r != detail::CandidatePairs::kNone; r = candidates.next(r, h)) {
        retest_records.push_back(r);
      }
    }
    for (std::size_t i = 0; i < retest_records.size(); ++i) {
      if (i + kRetestPrefetch < retest_records.size()) {
        const std::uint32_t ahead = retest_records[i + kRetestPrefetch];
        __builtin_prefetch(&objects[candidates.first_member(ahead)]);
        __builtin_prefetch(&objects[candidates.second_member(ahead)]);
      }
      retest_candidate(retest_records[i]);
    }
    return;
  }
  // The boxes are read densely, four lanes a corner (take_changes wrote those of the objects that
  // moved), with a moved flag each: the pass then reads 32 bytes a member (not a 64-byte
  // object), which for a few thousand objects stay in L1, and tests a pair with two four-lane
  // compares.
  AGRID_ASSERT(scan_boxes.size() >= objects.size());
  const ScanBox* const boxes = scan_boxes.data();
  const auto meets = [&](std::uint32_t a, std::uint32_t b) { return boxes[a].meets(boxes[b]); };
  const auto changed = [&](std::uint32_t r, bool hit) {
    (hit ? touched_now : touched_before).push_back(candidates.key(r));
  };
  if (retest.size() == resting) {
    // Every resting object moved (a settling stack): every box is written already, and no
    // candidate is skipped, no flag looked at.
    candidates.retest_where([](std::uint32_t) { return true; }, meets, changed);
  } else {
    for (Handle h = 0; h < objects.size(); ++h) scan_boxes[h] = ScanBox(objects[h].box);
    scan_moved.assign(objects.size(), 0);
    for (const Handle h : retest) scan_moved[h] = 1;
    const std::uint8_t* const moved = scan_moved.data();
    candidates.retest_where([&](std::uint32_t h) { return moved[h] != 0; }, meets, changed);
  }
  scan_moved.clear();  // its room is kept, as large as the table (give_back)
  scanned_at = updates;
}

void Broadphase::Impl::retest_candidate(std::uint32_t r) {
  const bool hit = detail::boxes_meet(objects[candidates.first_member(r)].box, objects[candidates.second_member(r)].box);
  if (hit == candidates.hit(r)) return;
  (hit ? touched_now : touched_before).push_back(candidates.key(r));
  candidates.set_hit(r, hit);
}

void Broadphase::Impl::join_resting() {
  // New objects, and moving ones whose box has stayed in its fat box long enough, rest.
  ready.clear();
  for (const Handle h : moving) {
    if (!busy && objects[h].place == Place::moving && ready_to_rest(objects[h])) ready.push_back(h);
  }
  joining.clear();
  std::merge(created.begin(), created.end(), ready.begin(), ready.end(), std::back_inserter(joining));
  for (const Handle h : joining) objects[h].place = Place::resting;
  resting += static_cast<std::uint32_t>(joining.size());
  if (joining.size() > resting_tree.leaves()) {
    join_in_bulk();
    return;
  }
  // A few: their fat boxes in a tree of their own, walked once with the resting tree for their
  // candidates at rest and once within itself for those among them (one walk each, not a query
  // a joining object), then into the resting tree in that tree's order (neighbours one after
  // another, so the resting tree's nodes they reach are warm).
  join_entries.clear();
  for (const Handle h : joining) {
    if (is_valid(objects[h].fat)) join_entries.push_back({objects[h].fat, h});
  }
  joining_tree.build(join_entries);
  const auto add = [&](Handle a, Handle b) { add_candidate(a, b); };
  WideTree::for_each_overlap(joining_tree, resting_tree, add);
  joining_tree.for_each_overlap_within(add);
  for (const WideTree::Entry& e : join_entries) resting_tree.insert(e.object, e.box);
  joining_tree.clear();  // its memory is kept; no leaf outlives the update
}

void Broadphase::Impl::join_in_bulk() {
  // More join than rest already: the tree is built afresh over all resting objects (a better
  // tree than one grown leaf by leaf), and one grid finds the candidates with a joining member.
  // The grid and its scratch are this call's own: the moving set's keep their memory.
  std::vector<WideTree::Entry> entries;
  std::vector<Box> fat_boxes;
  for (Handle h = 0; h < objects.size(); ++h) {
    Object& o = objects[h];
    if (o.alive && o.place == Place::resting && is_valid(o.fat)) {
      o.joining = std::binary_search(joining.begin(), joining.end(), h);
      entries.push_back({o.fat, h});
      fat_boxes.push_back(o.fat);
    }
  }
  std::vector<Pair> pairs;
  Grid grid(config);
  grid.build(fat_boxes);
  grid.find_pairs(pairs);
  for (const auto [i, j] : pairs) {
    const Handle a = entries[i].object;
    const Handle b = entries[j].object;
    if (objects[a].joining || objects[b].joining) add_candidate(a, b);
  }
  for (const WideTree::Entry& e : entries) objects[e.object].joining = false;
  resting_tree.build(entries);
}

void Broadphase::Impl::find_grid_pairs(std::span<const Box> boxes) {
  // On all threads when there are many (the tree of grids), else one grid; a few all against all
  // (a grid's fixed costs would outweigh their tests).
  if (boxes.size() < 2) {  // no pair (a world at rest moves nothing in most updates)
    grid_pairs.clear();
    return;
  }
  if (boxes.size() <= detail::kDirectPairsMaxBoxes) {
    direct_pairs.find_pairs(boxes, config.kernel, grid_pairs);
    return;
  }
  if (boxes.size() >= config.tree_min_boxes && tbb::this_task_arena::max_concurrency() > 1) {
    build_tree(boxes);
    moving_tree.find_pairs(grid_pairs);
    return;
  }
  build_grid(boxes);
  moving_grid.find_pairs(grid_pairs);
}

void Broadphase::Impl::add_candidate(Handle a, Handle b) {
  if (!passes(filters[a], filters[b])) {
    note_refused(a, b);
    return;
  }
  const bool hit = detail::boxes_meet(objects[a].box, objects[b].box);
  candidates.add(a, b, hit);
  if (hit) touched_now.push_back(pair_key(a, b));
}

void Broadphase::Impl::note_refused(Handle a, Handle b) {
  // Only a pair that can begin while both rest matters: one's box moving inside its fat box onto
  // the other's box. (Both moving inside their fat boxes is for the engine to see: it gave them
  // their new boxes.)
  const Object& x = objects[a];
  const Object& y = objects[b];
  if (!detail::boxes_meet(x.fat, y.box) && !detail::boxes_meet(x.box, y.fat)) return;
  for (const Handle h : {a, b}) {
    if (objects[h].refused) continue;
    objects[h].refused = true;
    ++refused_count;
    refused_list.push_back(h);
  }
}

void Broadphase::Impl::forget_refused(Handle h) {
  if (!objects[h].refused) return;
  objects[h].refused = false;  // stays listed until compact_refused()
  --refused_count;
}

void Broadphase::Impl::compact_refused() {
  // Stale entries are dropped when they outnumber the listed objects: O(1) amortised per entry.
  // (A removed object's handle may be reused by one that is refused in turn: sorted, the repeat
  // goes too.)
  if (refused_list.size() <= 2 * static_cast<std::size_t>(refused_count)) return;
  std::erase_if(refused_list, [&](Handle h) { return h >= objects.size() || !objects[h].refused; });
  std::sort(refused_list.begin(), refused_list.end());
  refused_list.erase(std::unique(refused_list.begin(), refused_list.end()), refused_list.end());
}

void Broadphase::Impl::update_moving_set() {
  // Last update's moving objects that still move, and those that entered, in ascending handles.
  std::erase_if(moving, [&](Handle h) { return objects[h].place != Place::moving; });
  next_moving.clear();
  std::merge(moving.begin(), moving.end(), entering.begin(), entering.end(), std::back_inserter(next_moving));
  std::swap(moving, next_moving);
  grid_boxes.clear();
  for (const Handle h : moving) grid_boxes.push_back(objects[h].box);
}

void Broadphase::Impl::find_moving_keys() {
  // A few moving objects query the resting tree one by one; many are paired with the resting
  // objects by one grid over both, which costs less than their queries.
  next_keys.clear();
  const bool query = static_cast<std::uint64_t>(moving.size()) * config.tree_query_cost < resting_tree.leaves();
  pairing = query ? Pairing::tree_queries : Pairing::one_grid;
  if (!query) {
    pair_in_one_grid();
    return;
  }
  // Moving x moving: the grid's pairs come sorted and the moving handles ascending, so the keys
  // come sorted.
  find_grid_pairs(grid_boxes);
  for (const auto [i, j] : grid_pairs) {
    const Handle a = moving[i];
    const Handle b = moving[j];
    if (moving_pair_passes(a, b)) next_keys.push_back(pair_key(a, b));
  }
  // Moving x resting: each moving object queries the tree, in fixed units of work.
  const std::size_t units = resting_tree.leaves() == 0 ? 0 : (moving.size() + kQueriesPerWork - 1) / kQueriesPerWork;
  if (unit_keys.size() < units) unit_keys.resize(units);
  const auto query_unit = [&](std::size_t u) {
    std::vector<std::uint64_t>& out = unit_keys[u];
    out.clear();
    const std::size_t end = std::min(moving.size(), (u + 1) * kQueriesPerWork);
    for (std::size_t k = u * kQueriesPerWork; k < end; ++k) {
      const Handle a = moving[k];
      const Box& box = objects[a].box;
      if (!is_valid(box)) continue;
      resting_tree.query(box, [&](std::uint32_t b) {
        if (detail::boxes_meet(box, objects[b].box) && moving_pair_passes(a, b)) out.push_back(pair_key(a, b));
        return true;
      });
    }
  };
  if (units == 1) {
    query_unit(0);  // waking other threads would cost more than the unit
  } else if (units > 1) {
    detail::parallel_for(std::size_t{0}, units, query_unit);
  }
  resting_keys.clear();
  for (std::size_t u = 0; u < units; ++u) resting_keys.insert(resting_keys.end(), unit_keys[u].begin(), unit_keys[u].end());
  std::sort(resting_keys.begin(), resting_keys.end());
  merge_in(next_keys, resting_keys);
}

void Broadphase::Impl::pair_in_one_grid() {
  // The grid holds the moving and the resting boxes in ascending handles: its pairs come sorted,
  // and so do their keys, with no sort or merge after. Those with a moving member are kept.
  grid_handles.clear();
  grid_boxes.clear();
  grid_moving.clear();
  for (Handle h = 0; h < objects.size(); ++h) {
    const Object& o = objects[h];
    const bool is_moving = o.place == Place::moving;
    if (is_moving || (o.place == Place::resting && resting_tree.contains(h))) {
      grid_handles.push_back(h);
      grid_boxes.push_back(o.box);
      grid_moving.push_back(is_moving);
    }
  }
  if (grid_boxes.size() <= detail::kDirectPairsMaxBoxes) {
    // Few: all against all, straight to keys (their ids the handles), only pairs with a moving
    // member (about moving x all tests).
    direct_pairs.find_keys(grid_boxes, grid_handles, grid_moving, config.kernel, next_keys);
    if (config.filter_moving_pairs) {
      std::erase_if(next_keys, [&](std::uint64_t key) { return !moving_pair_passes(pair_of(key).first, pair_of(key).second); });
    }
    return;
  }
  find_grid_pairs(grid_boxes);
  for (const auto [i, j] : grid_pairs) {
    if (!(grid_moving[i] | grid_moving[j])) continue;  // resting x resting: kept as candidates
    const Handle a = grid_handles[i];
    const Handle b = grid_handles[j];
    if (moving_pair_passes(a, b)) next_keys.push_back(pair_key(a, b));
  }
}

void Broadphase::Impl::report_changes(bool last_reported) {
  // Only pairs with a moving member and candidates whose hit changed can have begun or ended:
  // compare them as they were (the last moving keys, the old hits) with how they are now.
  if (!last_reported) {
    // After update_queries() nothing was reported: every pair begins.
    touched_now.clear();
    candidates.for_each([&](std::uint32_t r) {
      if (candidates.hit(r)) touched_now.push_back(candidates.key(r));
    });
    touched_before.clear();
    moving_keys.clear();
  }
  sort_unique(touched_before);
  sort_unique(touched_now);
  if (touched_before.empty() && touched_now.empty()) {
    // Only moving keys (every object moving, or the resting ones' hits unchanged): compared as
    // they are, not copied into the lists first (bench-8: 1,500 keys an update).
    sorted_differences(next_keys, moving_keys, changes.began, changes.ended);
    std::swap(moving_keys, next_keys);
    return;
  }
  merge_in(touched_before, moving_keys);
  merge_in(touched_now, next_keys);
  // A candidate's members rest and a moving key has a moving member, so the halves share no pair;
  // unique() keeps the lists sets should that ever change.
  touched_before.erase(std::unique(touched_before.begin(), touched_before.end()), touched_before.end());
  touched_now.erase(std::unique(touched_now.begin(), touched_now.end()), touched_now.end());
  sorted_differences(touched_now, touched_before, changes.began, changes.ended);
  std::swap(moving_keys, next_keys);
}

void Broadphase::Impl::give_back_memory() {
  // The table first: the candidates' lists by object follow its end.
  trim();
  candidates.forget_from(static_cast<std::uint32_t>(objects.size()));
  const WorldSize world{live, std::size_t{candidates.size()} + moving_keys.size(), objects.size(), updates};
  ObjectTable::give_back(stats.changed);
  RestingSet::give_back(objects.size());
  MovingSet::give_back(world);
  ChangeLists::give_back(world);
  PairList::give_back(world, updates);
  UpdateScratch::give_back(world);
}

void Broadphase::Impl::collect_stats() {
  stats.objects = live;
  stats.moving = static_cast<std::uint32_t>(moving.size());
  stats.resting = resting;
  stats.invalid = invalid;
  stats.pairs = pairing != Pairing::none ? candidates.hits() + static_cast<std::uint32_t>(moving_keys.size()) : 0;
  stats.candidates = candidates.size();
  stats.bytes_held = ObjectTable::bytes_held() + RestingSet::bytes_held() + MovingSet::bytes_held() +
                     ChangeLists::bytes_held() + PairList::bytes_held() + UpdateScratch::bytes_held();
}

void Broadphase::Impl::bring_pairs_up_to_date() const {
  if (all_pairs_current.load(std::memory_order_acquire)) return;
  const std::lock_guard<std::mutex> lock(all_pairs_mutex);
  if (all_pairs_current.load(std::memory_order_relaxed)) return;
  if (pairing == Pairing::none) {
    all_pairs.clear();
  } else if (all_pairs_at + 1 == updates) {
    // Last update's pairs, less those that ended, with those that began: one merge.
    std::vector<Pair> kept;
    kept.reserve(all_pairs.size() - changes.ended.size() + changes.began.size());
    std::set_difference(all_pairs.begin(), all_pairs.end(), changes.ended.begin(), changes.ended.end(),
                        std::back_inserter(kept));
    all_pairs.clear();
    std::merge(kept.begin(), kept.end(), changes.began.begin(), changes.began.end(), std::back_inserter(all_pairs));
  } else {
    // Not asked for since an earlier update: made afresh from the candidates and moving keys.
    std::vector<std::uint64_t> keys(moving_keys);
    candidates.for_each([&](std::uint32_t r) {
      if (candidates.hit(r)) keys.push_back(candidates.key(r));
    });
    std::sort(keys.begin(), keys.end());
    all_pairs.clear();
    for (const std::uint64_t key : keys) all_pairs.push_back(pair_of(key));
  }
  all_pairs_at = updates;
  all_pairs_current.store(true, std::memory_order_release);
}

// ---- queries -----------------------------------------------------------------------------------

template <class Query>
void Broadphase::Impl::visit_current(const Query& query, FunctionRef<Handle> visit) const {
  // Resting objects and the last update's moving ones, unless changed since; then those changed
  // since (created, moved, refiltered) with their current box.
  const auto unchanged_hit = [&](Handle h) { return !objects[h].dirty && meets(query, objects[h].box); };
  const auto visit_unchanged = [&](std::uint32_t h) { return !unchanged_hit(h) || visit(h); };
  if (!walk(resting_tree, query, visit_unchanged)) return;
  if (!moving.empty() && !walk(current_query_tree(objects), query, visit_unchanged)) return;
  for (const Handle h : dirty) {
    if (objects[h].alive && meets(query, objects[h].box) && !visit(h)) return;
  }
}

// ---- invariant ---------------------------------------------------------------------------------

const char* Broadphase::Impl::refused_problem() const {
  std::vector<std::uint8_t> listed(objects.size(), 0);
  for (const Handle h : refused_list) {
    if (h < objects.size()) listed[h] = 1;
  }
  std::uint32_t count = 0;
  for (Handle h = 0; h < objects.size(); ++h) {
    if (!objects[h].refused) continue;
    ++count;
    if (objects[h].place != Place::resting) return "Broadphase: a refused object does not rest";
    if (listed[h] == 0) return "Broadphase: a refused object is not listed";
  }
  return count == refused_count ? nullptr : "Broadphase: the refused objects are miscounted";
}

const char* Broadphase::Impl::problem() const {
  if (const char* p = resting_tree.problem()) return p;
  if (const char* p = candidates.problem()) return p;
  if (const char* p = handles.problem(objects.size())) return p;
  if (!dirty.empty()) return "Broadphase: changes left after an update";
  if (filters.size() != objects.size()) return "Broadphase: filters and objects disagree in number";
  if (!objects.empty() && !objects.back().alive) return "Broadphase: the table goes on past the highest live object";
  if (handles.reusable().size() != objects.size() - live) return "Broadphase: reusable handles are not the dead objects";
  for (const Handle h : handles.reusable()) {
    if (objects[h].alive) return "Broadphase: a reusable handle is live";
  }
  std::uint32_t alive = 0;
  std::uint32_t rest = 0;
  std::uint32_t leaves = 0;
  std::uint32_t move = 0;
  for (Handle h = 0; h < objects.size(); ++h) {
    const Object& o = objects[h];
    if (!o.alive) {
      if (o.place != Place::none || resting_tree.contains(h) || candidates.first(h) != detail::CandidatePairs::kNone) {
        return "Broadphase: a removed object is still kept";
      }
      continue;
    }
    ++alive;
    if (is_valid(o.box) && !detail::within(o.box, o.fat)) return "Broadphase: a box is not in its fat box";
    if (o.leaving || o.joining) return "Broadphase: a transition left half done";
    if (o.place == Place::moving) ++move;
    if (o.place == Place::resting) ++rest;
    const bool in_tree = o.place == Place::resting && is_valid(o.box);
    if (in_tree != resting_tree.contains(h)) return "Broadphase: a resting valid box is not a leaf, or another is";
    if (in_tree) {
      ++leaves;
      if (!detail::same_box(resting_tree.box(h), o.fat)) return "Broadphase: a leaf's box is not its object's fat box";
    }
  }
  if (alive != live || rest != resting || leaves != resting_tree.leaves()) return "Broadphase: counts disagree";
  if (const char* p = refused_problem()) return p;
  if (move != moving.size() || !std::is_sorted(moving.begin(), moving.end())) return "Broadphase: the moving set is off";
  for (const Handle h : moving) {
    if (objects[h].place != Place::moving) return "Broadphase: the moving set holds an object that does not move";
  }
  const char* bad_candidate = nullptr;
  candidates.for_each([&](std::uint32_t r) {
    const Handle a = candidates.first_member(r);
    const Handle b = candidates.second_member(r);
    const Object& x = objects[a];
    const Object& y = objects[b];
    if (!resting_tree.contains(a) || !resting_tree.contains(b)) bad_candidate = "Broadphase: a candidate's member is not in the tree";
    else if (!detail::boxes_meet(x.fat, y.fat)) bad_candidate = "Broadphase: a candidate's fat boxes do not overlap";
    else if (!passes(filters[a], filters[b])) bad_candidate = "Broadphase: a candidate's filters refuse it";
    else if (candidates.hit(r) != detail::boxes_meet(x.box, y.box)) bad_candidate = "Broadphase: a candidate's hit is stale";
  });
  if (bad_candidate != nullptr) return bad_candidate;
  if (pairing != Pairing::none && !std::is_sorted(moving_keys.begin(), moving_keys.end())) return "Broadphase: moving keys unsorted";
  return nullptr;
}

}  // namespace agrid
