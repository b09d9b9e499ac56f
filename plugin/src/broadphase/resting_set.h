#pragma once
// RestingSet: the incremental Broadphase's resting objects, in a tree of their fat boxes with
// their candidate pairs kept from update to update.

#include <cstdint>
#include <span>
#include <vector>

#include "agrid/broadphase.h"
#include "broadphase/candidate_pairs.h"
#include "box_tree/lanes4.h"
#include "broadphase/object_table.h"
#include "broadphase/pair_diff.h"
#include "box_tree/box_tree.h"
#include "broadphase/world_size.h"

namespace agrid::detail {

/// A valid box as two four-lane corners (the fourth lanes 0), for testing many pairs of them.
struct alignas(16) ScanBox {
  float min[4];
  float max[4];
  ScanBox() = default;
  explicit ScanBox(const Box& b) noexcept
      : min{b.min.x, b.min.y, b.min.z, 0.0f}, max{b.max.x, b.max.y, b.max.z, 0.0f} {}
  /// boxes_meet of the two boxes.
  [[nodiscard]] bool meets(const ScanBox& o) const noexcept {
    const auto both = (Lanes4::load(min) <= Lanes4::load(o.max)) & (Lanes4::load(o.min) <= Lanes4::load(max));
    return both.bits() == 0xfu;
  }
};

/// The resting objects: a tree whose leaves are their fat boxes, and their candidates (the pairs
/// of them whose fat boxes overlap and whose filters pass, each with whether the exact boxes
/// overlap), so that a resting object that moves inside its fat box costs the re-test of its
/// own candidates. Invariant (problem()): the tree's leaves are exactly the fat boxes of the
/// resting objects with a valid box; every candidate's members are leaves whose fat boxes
/// overlap and whose filters pass, with its hit current; `size()` counts the resting objects.
class RestingSet {
 public:
  /// Makes room for handles below `objects` (more than now).
  void make_room(std::uint32_t objects) { candidates_.resize(objects); }

  /// Starts an update of `table` in which `changed` objects changed, `leaving_leaves` of them
  /// leaves that leave the set: prepares for the changed objects that leave the set or move inside their fat boxes.
  void start_update(const ObjectTable& table, std::size_t changed, std::size_t leaving_leaves);
  /// Takes the resting object `h` out (alive or just removed), its candidate hits to `diff` as
  /// ended; its place becomes none.
  void leave(Handle h, ObjectTable& table, PairDiff& diff);
  /// The resting object `h` moved inside its fat box: its candidates are re-tested by retest_moved().
  void moved_inside(Handle h, const Box& box) {
    retest_.push_back(h);
    if (scan_ready_) scan_boxes_[h] = ScanBox(box);
  }
  /// After every leave() and moved_inside() of the update: the tree rebuilt if many left, and
  /// the candidates of the objects that moved inside their fat boxes re-tested, their changed
  /// hits to `diff`.
  void settle(const ObjectTable& table, PairDiff& diff);
  /// Adds `joining` (ascending, neither moving nor resting) to the set: into the tree, with their
  /// candidates at rest (the new hits to `diff`).
  void join(std::span<const Handle> joining, ObjectTable& table, const Config& config, PairDiff& diff);

  [[nodiscard]] const BoxTree& tree() const noexcept { return tree_; }
  /// True iff this update's join() built the tree afresh (more joined than rested): then
  /// joined_tree() is empty, and any leaf may be new.
  [[nodiscard]] bool joined_in_bulk() const noexcept { return joined_in_bulk_; }
  /// The objects that joined in this update (unless in bulk): a tree of their fat boxes whose
  /// leaves are indices into joined_handles(), until give_back() at the update's end.
  [[nodiscard]] const BoxTree& joined_tree() const noexcept { return joining_tree_; }
  [[nodiscard]] std::span<const Handle> joined_handles() const noexcept { return join_handles_; }
  [[nodiscard]] const CandidatePairs& candidates() const noexcept { return candidates_; }
  /// Resting objects (with an invalid box too).
  [[nodiscard]] std::uint32_t size() const noexcept { return resting_; }

  /// Gives memory back where it is far below what the world asks (slack_growth.h); the table
  /// ends at world.objects_end now.
  [[gnu::cold]] void give_back(const WorldSize& world);
  [[nodiscard]] std::size_t bytes_held() const noexcept;
  /// Null if the invariant holds for `table`, else what is broken. O(objects + candidates).
  [[nodiscard, gnu::cold]] const char* problem(const ObjectTable& table) const;

 private:
  /// True iff `moved` objects' candidates are re-tested in one pass over all of them
  /// (kScanAllShare) in a table of `objects`.
  [[nodiscard]] bool scan_pays(std::size_t moved, std::size_t objects) const noexcept;
  /// The tree afresh over the resting objects with a valid box.
  void rebuild_tree(const ObjectTable& table);
  void retest_list_by_list(const ObjectTable& table, PairDiff& diff);
  /// The records of the objects in retest_, into retest_records_: several lists walked at once.
  void gather_retest_records();
  void retest_in_one_pass(const ObjectTable& table, PairDiff& diff);
  void join_in_bulk(std::span<const Handle> joining, const ObjectTable& table, const Config& config, PairDiff& diff);
  /// Two resting objects whose fat boxes overlap: a candidate, unless their filters refuse it.
  void add_candidate(Handle a, Handle b, const ObjectTable& table, PairDiff& diff);

  BoxTree tree_;
  CandidatePairs candidates_;
  std::uint32_t resting_ = 0;
  // An update's scratch, kept for its memory.
  RecentPeak recent_handles_;                  ///< The most handles the lists below held lately ...
  RecentPeak recent_records_;                  ///< ... and records to re-test.
  std::vector<Handle> retest_;                 ///< Moved inside their fat boxes.
  std::vector<CandidateId> retest_records_;    ///< Candidate records to re-test, in list order.
  /// The joining objects with a valid fat box, a tree over them, and their handles: the tree's
  /// leaves are indices into join_handles_, so that its leaves' places by id take room for the
  /// joining objects, not for the whole table.
  std::vector<BoxTree::Entry> join_entries_;
  BoxTree joining_tree_;
  std::vector<Handle> join_handles_;
  std::vector<ScanBox> scan_boxes_;            ///< By handle: the boxes, for a pass over all candidates ...
  std::vector<std::uint8_t> scan_moved_;       ///< ... and whether the object moved ...
  std::uint64_t scanned_at_ = 0;               ///< ... and the update that last made such a pass.
  bool scan_ready_ = false;                    ///< scan_boxes_ covers the table, and moved_inside() writes it.
  bool rebuild_ = false;                       ///< So many leave that the tree is rebuilt (kRebuildShare).
  bool joined_in_bulk_ = false;                ///< This update's join() built the tree afresh.
  std::uint64_t updates_ = 0;                  ///< The update under way (start_update()).
};

}  // namespace agrid::detail
