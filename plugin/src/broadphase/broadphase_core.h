#pragma once
// BroadphaseCore: agrid::Broadphase's state, in its parts, and the steps of an update.

#include <cstdint>
#include <span>
#include <vector>

#include "agrid/broadphase.h"
#include "broadphase/all_pairs.h"
#include "broadphase/moving_set.h"
#include "broadphase/object_table.h"
#include "broadphase/pair_diff.h"
#include "broadphase/resting_set.h"

namespace agrid::detail {

/// The incremental broadphase (agrid::Broadphase's implementation): objects by handle; resting
/// ones in a tree of fat boxes with their candidate pairs kept; moving ones paired afresh each
/// update by the adaptive grid; the changes found from what changed only. Each part keeps its
/// own invariant; problem() checks them all after an update (with AGRID_ASSERTS, after every one).
class BroadphaseCore {
 public:
  explicit BroadphaseCore(const Config& config);

  /// Broadphase::update (`find_pairs`) or Broadphase::update_queries.
  void update(bool find_pairs);
  /// Broadphase::pairs.
  [[nodiscard]] std::span<const Pair> pairs() const;
  /// Broadphase::for_each_overlap and for_each_hit, for a valid query.
  void visit(const Box& box, FunctionRef<Handle> visit) const;
  void visit(const Segment& segment, FunctionRef<Handle> visit) const;

  [[nodiscard]] const Config& config() const noexcept { return config_; }
  [[nodiscard]] const BroadphaseStats& stats() const noexcept { return stats_; }
  // The parts: the public calls read and write them; tests look into them.
  [[nodiscard]] ObjectTable& table() noexcept { return table_; }
  [[nodiscard]] const ObjectTable& table() const noexcept { return table_; }
  [[nodiscard]] RestingSet& resting() noexcept { return resting_; }
  [[nodiscard]] const RestingSet& resting() const noexcept { return resting_; }
  [[nodiscard]] const MovingSet& moving() const noexcept { return moving_; }
  [[nodiscard]] PairDiff& diff() noexcept { return diff_; }
  [[nodiscard]] const PairDiff& diff() const noexcept { return diff_; }
  [[nodiscard]] const AllPairs& all_pairs() const noexcept { return all_pairs_; }

  /// Null if every part's invariant holds (after an update), else what is broken.
  [[nodiscard, gnu::cold]] const char* problem() const;

 private:
  /// Takes the changed objects: removed and leaving ones out of the resting set, the re-test of
  /// those that moved inside their fat boxes, new ones to rest, the others to move.
  void take_changes();
  /// What an update does with a changed object.
  enum class Change : std::uint8_t {
    is_new,        ///< Created since the last update: rests at once, or moves if the update is busy.
    keeps_moving,  ///< Moving, and still alive.
    moves_inside,  ///< Resting, its box moved inside its fat box: its candidates are re-tested.
    leaves_rest,   ///< Resting, and removed or given a new fat box: leaves the resting set (and moves if alive).
    ends,          ///< Removed, and not resting: unplaced.
  };
  /// The counts of an update's changes that decide its kind.
  struct ChangeCounts {
    std::size_t restless = 0;        ///< Live objects given a new fat box (new ones included).
    std::size_t leaving_leaves = 0;  ///< Leaves of the resting tree that leave the resting set.
  };
  /// Takes the change of object `h` from its columns (its fat box set afresh where it must be),
  /// adds it to `counts` and says what the update does with it. Writes only `h`'s Motion.
  [[nodiscard]] Change take_change(Handle h, ChangeCounts& counts) noexcept;
  void enter_moving(Handle h);
  /// A moving object rests once its box has stayed in its fat box long enough (jittering), or
  /// has not changed for a while (stopped).
  [[nodiscard]] bool ready_to_rest(const Motion& m) const noexcept;
  /// New objects, and moving ones ready to rest, join the resting set.
  void join_resting();
  /// After an update: gives memory back where the world now asks far less than is held.
  [[gnu::cold]] void give_back_memory();
  void collect_stats();
  template <class Query>
  void visit_current(const Query& query, FunctionRef<Handle> visit) const;

  Config config_;
  BroadphaseStats stats_;
  ObjectTable table_;
  RestingSet resting_;
  MovingSet moving_;
  PairDiff diff_;
  AllPairs all_pairs_;
  // An update's lists, kept for their memory.
  std::vector<Change> changes_;             ///< By changed object, in take_dirty()'s order.
  std::vector<ChangeCounts> chunk_counts_;  ///< By chunk of changes taken in parallel.
  std::vector<Handle> created_;   ///< New since the last update: resting from now.
  std::vector<Handle> entering_;  ///< Placed moving in this update.
  std::vector<Handle> ready_;     ///< Moving, and still long enough to rest.
  std::vector<Handle> joining_;   ///< Joining the resting set: created_ and ready_.
  RecentPeak recent_handles_;     ///< The most handles the lists above held lately.
  bool busy_ = false;             ///< In this update, 1/kBusyShare of the objects are new or left their fat box.
};

}  // namespace agrid::detail
