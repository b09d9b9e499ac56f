#include "broadphase/resting_set.h"

#include <algorithm>
#include <array>

#include "agrid/grid.h"
#include "common/agrid_assert.h"
#include "common/box_ops.h"
#include "common/pair_key.h"
#include "common/slack_growth.h"

namespace agrid::detail {
namespace {

/// When at least 1/kScanAllShare of the resting objects moved inside their fat boxes, their
/// candidates are re-tested in one pass over all candidates rather than list by list (measured:
/// bench-2's settling stack, every one of 1,077 resting bodies moved, 68 us list by list). The
/// pass reads a copy of the boxes by handle (32 bytes an object of the table), so it is made only
/// where at least 1/kScanAllShare of the table rests too: a few resting objects among many moving
/// ones are re-tested list by list, without that copy.
constexpr std::size_t kScanAllShare = 4;

/// Candidate records re-tested ahead of which the members' boxes are fetched (frozen-500k's
/// step 0.94-0.96x with 16 against 8; 32 no better).
constexpr std::size_t kRetestPrefetch = 16;

/// Candidate lists walked at once when the re-tests gather their records (each a chain of
/// dependent misses): frozen-500k's step 0.84x with 8 against one at a time, 0.95x again with
/// 16 against 8; 32 no better.
constexpr std::size_t kListsWalkedAtOnce = 16;

/// When more than 1/kRebuildShare of the tree's leaves leave it in one update (a level
/// unloaded), the tree is built afresh over those that stay instead of losing its leaves one by
/// one (1,000,000 leaving: 0.95 s one by one).
constexpr std::size_t kRebuildShare = 2;

}  // namespace

bool RestingSet::scan_pays(std::size_t moved, std::size_t objects) const noexcept {
  return resting_ > 0 && moved * kScanAllShare >= resting_ && std::size_t{resting_} * kScanAllShare >= objects;
}

void RestingSet::start_update(const ObjectTable& table, std::size_t changed, std::size_t leaving_leaves) {
  updates_ = table.updates();
  retest_.clear();
  rebuild_ = leaving_leaves * kRebuildShare > tree_.leaves();
  // Enough may move for a pass over all candidates: the boxes of those that move are written for
  // it by moved_inside(), where their objects are at hand.
  scan_ready_ = scan_pays(changed, table.size());
  if (scan_ready_) scan_boxes_.resize(table.size());
}

void RestingSet::leave(Handle h, ObjectTable& table, PairDiff& diff) {
  AGRID_ASSERT(table.place(h) == Place::resting);
  for (CandidateId r = candidates_.first(h); !r.is_none(); r = candidates_.first(h)) {
    if (candidates_.hit(r)) diff.hit_before(candidates_.key(r));
    candidates_.remove(r);
  }
  if (!rebuild_ && tree_.contains(h)) tree_.remove(h);
  table.set_place(h, Place::none);
  --resting_;
}

void RestingSet::settle(const ObjectTable& table, PairDiff& diff) {
  if (rebuild_) rebuild_tree(table);
  rebuild_ = false;
  // Object by object through their lists; or, when many moved (a settling stack), one pass over
  // all candidates in memory order, which costs less than that many list walks.
  if (retest_.empty()) return;
  if (scan_pays(retest_.size(), table.size())) {
    retest_in_one_pass(table, diff);
  } else {
    retest_list_by_list(table, diff);
  }
}

void RestingSet::rebuild_tree(const ObjectTable& table) {
  std::vector<BoxTree::Entry> entries;
  for (Handle h = 0; h < table.size(); ++h) {
    if (table.place(h) == Place::resting && tree_.contains(h)) entries.push_back({table.motion(h).fat, h});
  }
  tree_.build(entries);
}

void RestingSet::retest_list_by_list(const ObjectTable& table, PairDiff& diff) {
  // The records first (several lists walked at once), then their re-tests with the members'
  // boxes fetched a few records ahead: each re-test's miss then overlaps others' (frozen-500k:
  // half of a step is these misses).
  retest_records_.clear();
  gather_retest_records();
  for (std::size_t i = 0; i < retest_records_.size(); ++i) {
    if (i + kRetestPrefetch < retest_records_.size()) {
      const CandidateId ahead = retest_records_[i + kRetestPrefetch];
      __builtin_prefetch(&table.box(candidates_.first_member(ahead)));
      __builtin_prefetch(&table.box(candidates_.second_member(ahead)));
    }
    const CandidateId r = retest_records_[i];
    const bool hit = boxes_meet(table.box(candidates_.first_member(r)), table.box(candidates_.second_member(r)));
    if (hit == candidates_.hit(r)) continue;
    if (hit) {
      diff.hit_now(candidates_.key(r));
    } else {
      diff.hit_before(candidates_.key(r));
    }
    candidates_.set_hit(r, hit);
  }
}

void RestingSet::gather_retest_records() {
  // A list is a chain of dependent misses, one a record: kListsWalkedAtOnce lists are walked at
  // once, a record of each in turn, each next record fetched as soon as it is known, so that
  // their misses overlap. The order is fixed by the moved objects' order alone.
  struct Walk {
    Handle object;
    CandidateId record;
  };
  std::array<Walk, kListsWalkedAtOnce> walks;
  std::size_t walking = 0;
  std::size_t next_object = 0;
  const auto start = [&](Walk& walk) {
    while (next_object < retest_.size()) {
      const Handle h = retest_[next_object++];
      const CandidateId first = candidates_.first(h);
      if (first.is_none()) continue;
      candidates_.prefetch(first);
      walk = {h, first};
      return true;
    }
    return false;
  };
  while (walking < walks.size() && start(walks[walking])) ++walking;
  while (walking > 0) {
    for (std::size_t k = 0; k < walking;) {
      Walk& walk = walks[k];
      retest_records_.push_back(walk.record);
      walk.record = candidates_.next(walk.record, walk.object);
      if (!walk.record.is_none()) {
        candidates_.prefetch(walk.record);
        ++k;
      } else if (start(walk)) {
        ++k;
      } else {
        walk = walks[--walking];
      }
    }
  }
}

void RestingSet::retest_in_one_pass(const ObjectTable& table, PairDiff& diff) {
  // The boxes are read densely, four lanes a corner (moved_inside() wrote those of the objects
  // that moved), with a moved flag each: the pass then reads 32 bytes a member (not a 64-byte
  // object), which for a few thousand objects stay in L1, and tests a pair with two four-lane
  // compares.
  AGRID_ASSERT(scan_ready_ && scan_boxes_.size() >= table.size());
  const ScanBox* const boxes = scan_boxes_.data();
  const auto meets = [&](std::uint32_t a, std::uint32_t b) { return boxes[a].meets(boxes[b]); };
  const auto changed = [&](CandidateId r, bool hit) {
    if (hit) {
      diff.hit_now(candidates_.key(r));
    } else {
      diff.hit_before(candidates_.key(r));
    }
  };
  if (retest_.size() == resting_) {
    // Every resting object moved (a settling stack): every box is written already, and no
    // candidate is skipped, no flag looked at.
    candidates_.retest_where([](std::uint32_t) { return true; }, meets, changed);
  } else {
    for (Handle h = 0; h < table.size(); ++h) scan_boxes_[h] = ScanBox(table.box(h));
    scan_moved_.assign(table.size(), 0);
    for (const Handle h : retest_) scan_moved_[h] = 1;
    const std::uint8_t* const moved = scan_moved_.data();
    candidates_.retest_where([&](std::uint32_t h) { return moved[h] != 0; }, meets, changed);
  }
  scan_moved_.clear();  // its room is kept, as large as the table (give_back)
  scanned_at_ = updates_;
}

void RestingSet::join(std::span<const Handle> joining, ObjectTable& table, const Config& config, PairDiff& diff) {
  AGRID_ASSERT(std::is_sorted(joining.begin(), joining.end()));
  for (const Handle h : joining) {
    AGRID_ASSERT(table.alive(h) && table.place(h) != Place::resting && !tree_.contains(h));
    table.set_place(h, Place::resting);
  }
  resting_ += static_cast<std::uint32_t>(joining.size());
  joined_in_bulk_ = joining.size() > tree_.leaves();
  if (joined_in_bulk_) {
    join_in_bulk(joining, table, config, diff);
    return;
  }
  // A few: their fat boxes in a tree of their own, walked once with the resting tree for their
  // candidates at rest and once within itself for those among them (one walk each, not a query
  // a joining object), then into the resting tree in that tree's order (neighbours one after
  // another, so the resting tree's nodes they reach are warm).
  join_entries_.clear();
  join_handles_.clear();
  for (const Handle h : joining) {
    const Box& fat = table.motion(h).fat;
    if (!is_valid(fat)) continue;
    join_entries_.push_back({fat, static_cast<std::uint32_t>(join_handles_.size())});
    join_handles_.push_back(h);
  }
  joining_tree_.build(join_entries_);
  const Handle* const handle = join_handles_.data();
  BoxTree::for_each_overlap(joining_tree_, tree_, [&](std::uint32_t x, Handle b) { add_candidate(handle[x], b, table, diff); });
  joining_tree_.for_each_overlap_within(
      [&](std::uint32_t x, std::uint32_t y) { add_candidate(handle[x], handle[y], table, diff); });
  for (const BoxTree::Entry& e : join_entries_) tree_.insert(handle[e.object], e.box);
  // joining_tree_ stays for the moving set's queries (joined_tree()), cleared by give_back().
}

void RestingSet::join_in_bulk(std::span<const Handle> joining, const ObjectTable& table, const Config& config,
                              PairDiff& diff) {
  // More join than rest already: the tree is built afresh over all resting objects (a better
  // tree than one grown leaf by leaf), and one grid finds the candidates with a joining member.
  // The grid and its scratch are this call's own: the moving set's keep their memory.
  std::vector<BoxTree::Entry> entries;
  std::vector<Box> fat_boxes;
  std::vector<std::uint8_t> entry_joins;  // by entry: whether its object is joining
  auto next_joining = joining.begin();
  for (Handle h = 0; h < table.size(); ++h) {
    const Motion& m = table.motion(h);
    if (m.place != Place::resting || !table.alive(h)) continue;
    while (next_joining != joining.end() && *next_joining < h) ++next_joining;
    if (!is_valid(m.fat)) continue;
    entries.push_back({m.fat, h});
    fat_boxes.push_back(m.fat);
    entry_joins.push_back(next_joining != joining.end() && *next_joining == h);
  }
  std::vector<Pair> pairs;
  Grid grid(config);
  grid.build(fat_boxes);
  grid.find_pairs(pairs);
  for (const auto [i, j] : pairs) {
    if (entry_joins[i] | entry_joins[j]) add_candidate(entries[i].object, entries[j].object, table, diff);
  }
  tree_.build(entries);
}

void RestingSet::add_candidate(Handle a, Handle b, const ObjectTable& table, PairDiff& diff) {
  AGRID_ASSERT(a != b && table.place(a) == Place::resting && table.place(b) == Place::resting);
  if (!passes(table.filter(a), table.filter(b))) return;
  const bool hit = boxes_meet(table.box(a), table.box(b));
  candidates_.add(a, b, hit);
  if (hit) diff.hit_now(pair_key(a, b));
}

void RestingSet::give_back(const WorldSize& world) {
  candidates_.forget_from(static_cast<std::uint32_t>(world.objects_end));
  tree_.give_back(world.objects_end);
  candidates_.give_back();
  recent_handles_.note(std::max(retest_.size(), join_entries_.size()));
  recent_records_.note(retest_records_.size());
  const std::size_t handles = world.handles(recent_handles_);
  shrink_if_far_below(retest_, handles);
  shrink_if_far_below(retest_records_, world.keys(recent_records_));
  // The joining tree, built afresh each update, keeps room as a list of the step's handles does.
  joining_tree_.clear();  // its memory is kept; no leaf outlives the update
  if (far_below(handles, joining_tree_.leaf_room(), joining_tree_.bytes_held())) joining_tree_ = BoxTree();
  joining_tree_.end_objects_at(handles);
  shrink_if_far_below(join_entries_, handles);
  shrink_if_far_below(join_handles_, handles);
  // By handle: as large as the table, whose end may have come down, while passes are made
  // (a settling stack makes one an update); given back when none was for kRecentUses.
  if (scan_boxes_.size() > world.objects_end) scan_boxes_.resize(world.objects_end);
  if (world.updates - scanned_at_ > kRecentUses) {
    scan_boxes_.clear();
    scan_moved_.clear();
  }
  shrink_if_far_below(scan_boxes_, world.objects_end);
  shrink_if_far_below(scan_moved_, world.objects_end);
  scan_ready_ = false;
}

std::size_t RestingSet::bytes_held() const noexcept {
  return tree_.bytes_held() + candidates_.bytes_held() + heap_bytes(retest_) +
         heap_bytes(retest_records_) + heap_bytes(join_entries_) + joining_tree_.bytes_held() + heap_bytes(join_handles_) +
         heap_bytes(scan_boxes_) +
         heap_bytes(scan_moved_);
}

const char* RestingSet::problem(const ObjectTable& table) const {
  if (const char* p = tree_.problem()) return p;
  if (const char* p = candidates_.problem()) return p;
  std::uint32_t rest = 0;
  std::uint32_t leaves = 0;
  for (Handle h = 0; h < table.size(); ++h) {
    const bool alive = table.alive(h);
    if (!alive && (tree_.contains(h) || !candidates_.first(h).is_none())) {
      return "RestingSet: a removed object is still kept";
    }
    const bool rests = alive && table.place(h) == Place::resting;
    rest += rests;
    const bool in_tree = rests && is_valid(table.box(h));
    if (in_tree != tree_.contains(h)) return "RestingSet: a resting valid box is not a leaf, or another is";
    if (in_tree) {
      ++leaves;
      if (!same_box(tree_.box(h), table.motion(h).fat)) return "RestingSet: a leaf's box is not its object's fat box";
    }
  }
  if (rest != resting_ || leaves != tree_.leaves()) return "RestingSet: the resting objects are miscounted";
  const char* bad_candidate = nullptr;
  candidates_.for_each([&](CandidateId r) {
    const Handle a = candidates_.first_member(r);
    const Handle b = candidates_.second_member(r);
    if (!tree_.contains(a) || !tree_.contains(b)) bad_candidate = "RestingSet: a candidate's member is not in the tree";
    else if (!boxes_meet(table.motion(a).fat, table.motion(b).fat)) bad_candidate = "RestingSet: a candidate's fat boxes do not overlap";
    else if (!passes(table.filter(a), table.filter(b))) bad_candidate = "RestingSet: a candidate's filters refuse it";
    else if (candidates_.hit(r) != boxes_meet(table.box(a), table.box(b))) bad_candidate = "RestingSet: a candidate's hit is stale";
  });
  return bad_candidate;
}

}  // namespace agrid::detail
