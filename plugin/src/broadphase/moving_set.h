#pragma once
// MovingSet: the incremental Broadphase's moving objects, paired afresh each update, and the
// tree their queries walk.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "agrid/broadphase.h"
#include "agrid/pair_finder.h"
#include "broadphase/object_table.h"
#include "broadphase/pair_diff.h"
#include "broadphase/resting_set.h"
#include "box_tree/box_tree.h"
#include "broadphase/world_size.h"
#include "grid/direct_pairs.h"
#include "common/slack_growth.h"

namespace agrid::detail {

/// How the last update found the pairs with a moving member: the one mode of pairing.
enum class Pairing : std::uint8_t {
  none,          ///< It did not (update_queries()): the next update() reports every pair as begun.
  tree_queries,  ///< Few moved: a grid over the moving set, and each moving object's query of the resting tree.
  one_grid,      ///< Many moved: one grid over the moving and the resting boxes.
};

/// The moving objects, the pair finder that pairs them, and the tree their queries walk.
/// Invariant (problem()): members() are exactly the live objects placed moving, ascending; the
/// query tree, when current, holds their valid boxes as they were at the first query after the
/// last update; after an update that paired by tree queries, the near lists are of members, and
/// each holds every resting leaf whose fat box meets its member's fat box.
class MovingSet {
 public:
  explicit MovingSet(const Config& config) : config_(config), finder_(config) {}

  /// Starts an update of a world of `live` objects: the query tree is stale, and the pair
  /// finder is made afresh when it holds far more room than recent updates used.
  void start_update(std::size_t live);
  /// The moving objects, ascending.
  [[nodiscard]] std::span<const Handle> members() const noexcept { return moving_; }
  /// After the resting set's changes: drops the members no longer placed moving, and adds
  /// `entering` (ascending, placed moving since the last update).
  void update_members(const ObjectTable& table, std::span<const Handle> entering);
  /// Writes this update's keys of the pairs with a moving member to diff.next_moving_keys(),
  /// sorted: by a grid over the moving boxes and queries of `resting`'s tree when few move, by
  /// one grid over the moving and resting boxes when many do.
  void find_pairs(const ObjectTable& table, const RestingSet& resting, PairDiff& diff);
  /// The update found no pairs (update_queries()).
  void found_no_pairs() noexcept {
    pairing_ = Pairing::none;
    near_current_ = false;  // the near lists were not carried through this update's joins
  }
  /// How the last update paired the moving objects.
  [[nodiscard]] Pairing pairing() const noexcept { return pairing_; }

  /// The tree for queries over the members' boxes in `table`, brought up to date if it is stale
  /// (refitted, or built afresh: kQueryTreeRefits). Safe from several queries at once (the first
  /// brings it up to date under a lock).
  const BoxTree& query_tree(const ObjectTable& table) const;

  /// Gives memory back where it is far below what the world asks (slack_growth.h).
  [[gnu::cold]] void give_back(const WorldSize& world);
  [[nodiscard]] std::size_t bytes_held() const noexcept;
  /// Null if the invariant holds for `table` and `resting`, else what is broken. O(objects), and
  /// a query of the resting tree a member with a near list.
  [[nodiscard, gnu::cold]] const char* problem(const ObjectTable& table, const RestingSet& resting) const;
  /// Null if the query tree's leaves are the members with a valid box, each with its box in
  /// `table`, and its own invariant holds: right after it was brought up to date. O(members).
  [[nodiscard, gnu::cold]] const char* query_tree_problem(const ObjectTable& table) const;

 private:
  /// True iff the filters let a and b pair, or they do not decide this update's pairs
  /// (filters_decide_).
  [[nodiscard]] bool passes_filters(const ObjectTable& table, Handle a, Handle b) const noexcept {
    return !filters_decide_ || passes(table.filter(a), table.filter(b));
  }
  /// Lists of resting objects by moving object: the members ascending, each with its list.
  struct NearLists {
    std::vector<Handle> members;
    std::vector<std::uint32_t> starts;  ///< By member: where its list starts in `handles`.
    std::vector<Handle> handles;
    void clear() noexcept {
      members.clear();
      starts.clear();
      handles.clear();
    }
    /// Starts the list of `a` (above every member so far); returns where it starts.
    std::size_t start(Handle a) {
      members.push_back(a);
      starts.push_back(static_cast<std::uint32_t>(handles.size()));
      return handles.size();
    }
    /// The list of `a`; false if `a` has none.
    [[nodiscard]] bool find(Handle a, std::span<const Handle>* list) const noexcept;
    /// Adds `other`'s lists, whose members are above these.
    void append(const NearLists& other);
    /// Gives memory back where far below what the lists now use (slack_growth.h).
    void give_back() {
      shrink_if_far_below(members, members.size());
      shrink_if_far_below(starts, starts.size());
      shrink_if_far_below(handles, handles.size());
    }
    [[nodiscard]] std::size_t bytes_held() const noexcept { return heap_bytes(members) + heap_bytes(starts) + heap_bytes(handles); }
  };

  void pair_with_tree_queries(const ObjectTable& table, const RestingSet& resting, std::vector<std::uint64_t>& keys);
  /// Appends the list of the moving object `a` (valid box) to `out`: every resting object whose
  /// fat box meets a's, and maybe some that no longer do. `lists_hold`: near_ holds the last
  /// update's lists, and every leaf since joined one by one.
  void find_near(const ObjectTable& table, const RestingSet& resting, bool lists_hold, Handle a, NearLists& out) const;
  void pair_in_one_grid(const ObjectTable& table, std::vector<std::uint64_t>& keys);
  /// Makes grid_pairs_ hold the pairs of `boxes` (by index), sorted, found by the pair finder.
  void find_grid_pairs(std::span<const Box> boxes);
  /// Under the lock: builds the query tree afresh over the members with a valid box.
  void build_query_tree(const ObjectTable& table) const;
  /// Under the lock: brings the query tree to the members' boxes in place (the members that
  /// left out, those that came in, the others' leaves set and the bounds refitted); false,
  /// having changed nothing, if so many came or left that a build pays.
  bool refit_query_tree(const ObjectTable& table) const;

  Config config_;
  /// In find_pairs(): the filters decide pairs with a moving member, and some may refuse one
  /// (else no filter is read: a random read a pair, where many pairs are found).
  bool filters_decide_ = true;
  std::vector<Handle> moving_;
  Pairing pairing_ = Pairing::one_grid;
  // The pair finder, all against all over the one grid's few boxes with a moving member, the
  // most boxes paired lately, and the most keys found lately.
  PairFinder finder_;
  DirectPairs direct_pairs_;
  RecentPeak paired_recently_;
  RecentPeak keys_recently_;
  // An update's scratch, kept for its memory.
  std::vector<Handle> next_moving_;
  std::vector<Box> grid_boxes_;              ///< The moving boxes, for their grid.
  std::vector<std::uint8_t> grid_moving_;    ///< One grid over all: whether each object moves, by handle.
  std::vector<Pair> grid_pairs_;
  std::vector<std::vector<std::uint64_t>> unit_keys_;  ///< Per unit of tree queries ...
  std::vector<NearLists> unit_near_;                   ///< ... and its members' near lists.
  /// The move buffer (Box2D's): the last update's near lists, where it paired by tree queries
  /// (near_current_). A moving object that stays in its fat box tests its box against its list
  /// and the objects that joined since, rather than query the whole resting tree again.
  NearLists near_;
  bool near_current_ = false;
  std::vector<std::uint64_t> resting_keys_;  ///< The moving x resting keys, sorted apart.
  /// The moving set for queries: brought up to date by the first query after an update (Box2D's
  /// tree of moving proxies, made only when asked), so that an update that is not queried costs
  /// nothing for queries, and a query walks two trees of the same kind. Kept between updates and
  /// refitted (Jolt's way: a refit is O(leaves), a build O(leaves log leaves)), built afresh
  /// every kQueryTreeRefits refits, as its bounds spread.
  mutable BoxTree query_tree_;
  mutable std::atomic<bool> query_tree_current_{false};
  mutable std::mutex query_tree_mutex_;
  mutable std::vector<BoxTree::Entry> query_entries_;  ///< The build's scratch, under the lock.
  mutable std::vector<Handle> query_leaves_;            ///< The tree's leaves, ascending.
  mutable std::vector<Handle> query_next_leaves_;       ///< A refit's scratch.
  mutable std::uint32_t query_refits_ = 0;              ///< Refits since the tree was last built.
};

}  // namespace agrid::detail
