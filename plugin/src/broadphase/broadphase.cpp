// Broadphase: the public calls on BroadphaseCore, and the steps of an update across its parts.

#include "agrid/broadphase.h"

#include <algorithm>
#include <iterator>

#include "broadphase/broadphase_core.h"
#include "common/agrid_assert.h"
#include "common/box_ops.h"
#include "common/checked_config.h"
#include "common/parallel_for.h"
#include "common/segment_math.h"

namespace agrid {
namespace detail {
namespace {

/// An update where at least 1/kBusyShare of the live objects are new or left their fat box is
/// busy: nothing joins the resting set then, new objects move at once, and one grid pairs them
/// all. Where everything drifts (a crowd, the first update of a world) a pass over the world is
/// paid anyway, and the tree joins, bulk builds and candidate lists that resting would cost are
/// not repaid (measured: all-moving brownian-100k 5.7 ms a frame with them, find_all_pairs on
/// the same boxes 3.05; a first update of 100,000 new objects 85 -> 8 ms). Objects that tremble
/// inside their fat boxes do not count: their candidates' re-test costs less than a grid
/// (bench-2's settling stack: 46 us a step resting, 154 us busy).
constexpr std::size_t kBusyShare = 2;

/// Changed objects whose columns are fetched ahead of taking their changes: where few among many
/// changed, each one's Motion is a miss, and these overlap.
constexpr std::size_t kTakePrefetch = 8;

/// Changed objects taken per unit of parallel work: where fewer changed, one thread takes them
/// (waking another would cost more than the unit).
constexpr std::size_t kChangesPerChunk = 16384;

/// A segment query: its prepared form (for the exact tests) and its float form for the trees'
/// nodes.
struct SegmentQuery {
  PreparedSegment prepared;
  NodeSegment nodes;
  explicit SegmentQuery(const Segment& s) : prepared(s), nodes(prepared) {}
};

// A query's test of one object, and its walk of a tree, for a box and for a segment.
[[nodiscard]] bool meets(const Box& query, const Box& box) noexcept { return overlaps(query, box); }
[[nodiscard]] bool meets(const SegmentQuery& query, const Box& box) noexcept {
  double t = 0.0;
  return is_valid(box) && query.prepared.meets(box, &t);
}
template <class Visit, class Touch>
bool walk(const BoxTree& tree, const Box& query, Visit&& visit, Touch&& touch) {
  return tree.query(query, visit, touch);
}
template <class Visit, class Touch>
bool walk(const BoxTree& tree, const SegmentQuery& query, Visit&& visit, Touch&& touch) {
  return tree.query(query.nodes, visit, touch);
}

}  // namespace

BroadphaseCore::BroadphaseCore(const Config& config) : config_(config), moving_(config) {}

// ---- update ------------------------------------------------------------------------------------

void BroadphaseCore::update(bool find_pairs) {
  table_.start_update();
  moving_.start_update(table_.live_count());
  diff_.start();
  stats_.changed = static_cast<std::uint32_t>(table_.dirty().size());
  take_changes();
  join_resting();
  moving_.update_members(table_, entering_);
  if (find_pairs) {
    const bool last_reported = moving_.pairing() != Pairing::none;
    moving_.find_pairs(table_, resting_, diff_);
    diff_.report(last_reported, resting_.candidates());
  } else {
    diff_.forget_moving_keys();
    moving_.found_no_pairs();
  }
  all_pairs_.stale();
  table_.finish_update();
  give_back_memory();
  collect_stats();
  AGRID_ASSERT_NO_PROBLEM(problem());
}

void BroadphaseCore::take_changes() {
  // First each changed object's fat box (set afresh where it is new, refiltered or out of it) and
  // what the update does with it, with the counts that decide the update's kind; in parallel
  // chunks where many changed (each writes only its own objects). Then, in ascending handles,
  // removed and leaving objects out of the resting set, so that the re-tests below see only
  // candidates that stay. New objects rest at once (join_resting), leaving ones move.
  const std::span<const Handle> changed = table_.take_dirty();
  changes_.resize(changed.size());
  const std::size_t chunks = (changed.size() + kChangesPerChunk - 1) / kChangesPerChunk;
  chunk_counts_.assign(chunks, ChangeCounts{});
  const auto take_chunk = [&](std::size_t c) {
    const std::size_t end = std::min(changed.size(), (c + 1) * kChangesPerChunk);
    ChangeCounts counts;  // on the stack, not beside the other chunks' in chunk_counts_
    for (std::size_t i = c * kChangesPerChunk; i < end; ++i) {
      if (i + kTakePrefetch < end) table_.prefetch(changed[i + kTakePrefetch]);
      changes_[i] = take_change(changed[i], counts);
    }
    chunk_counts_[c] = counts;
  };
  for_each_unit(chunks, take_chunk);
  ChangeCounts counts;
  for (const ChangeCounts& c : chunk_counts_) {
    counts.restless += c.restless;
    counts.leaving_leaves += c.leaving_leaves;
  }
  busy_ = counts.restless > 0 && counts.restless * kBusyShare >= table_.live_count();
  resting_.start_update(table_, changed.size(), counts.leaving_leaves);
  entering_.clear();
  created_.clear();
  for (std::size_t i = 0; i < changed.size(); ++i) {
    const Handle h = changed[i];
    switch (changes_[i]) {
      case Change::keeps_moving:
        break;
      case Change::moves_inside:
        resting_.moved_inside(h, table_.box(h));
        break;
      case Change::leaves_rest:
        resting_.leave(h, table_, diff_);
        if (table_.alive(h)) enter_moving(h);
        break;
      case Change::ends:
        table_.set_place(h, Place::none);
        break;
      case Change::is_new:
        if (busy_) {
          enter_moving(h);
        } else {
          created_.push_back(h);
        }
        break;
    }
  }
  table_.forget_dirty();
  resting_.settle(table_, diff_);
}

BroadphaseCore::Change BroadphaseCore::take_change(Handle h, ChangeCounts& counts) noexcept {
  const bool alive = table_.alive(h);
  const bool new_fat = alive && table_.take_change(h, config_.fat_margin);
  counts.restless += new_fat;
  switch (table_.place(h)) {
    case Place::none:
      return alive ? Change::is_new : Change::ends;
    case Place::moving:
      return alive ? Change::keeps_moving : Change::ends;
    case Place::resting:
      break;
  }
  if (alive && !new_fat) return Change::moves_inside;
  counts.leaving_leaves += resting_.tree().contains(h);
  return Change::leaves_rest;
}

void BroadphaseCore::enter_moving(Handle h) {
  table_.set_place(h, Place::moving);
  entering_.push_back(h);
}

bool BroadphaseCore::ready_to_rest(const Motion& m) const noexcept {
  // Unless one grid pairs the moving set, moving costs a query of the resting tree every
  // update: objects in their fat box rest sooner then. Drifting bodies leave their fat box first.
  const std::uint32_t now = table_.now();
  const std::uint32_t inside =
      moving_.pairing() != Pairing::one_grid ? config_.rest_after_querying : config_.rest_after;
  return now - m.fat_set_at >= inside || now - m.changed_at >= config_.rest_after_unchanged;
}

void BroadphaseCore::join_resting() {
  ready_.clear();
  if (!busy_) {
    for (const Handle h : moving_.members()) {
      if (table_.place(h) == Place::moving && ready_to_rest(table_.motion(h))) ready_.push_back(h);
    }
  }
  joining_.clear();
  std::merge(created_.begin(), created_.end(), ready_.begin(), ready_.end(), std::back_inserter(joining_));
  resting_.join(joining_, table_, config_, diff_);
}

void BroadphaseCore::give_back_memory() {
  const WorldSize world{table_.live_count(), std::size_t{resting_.candidates().size()} + diff_.moving_keys().size(),
                        table_.size(), table_.updates()};
  table_.give_back(stats_.changed);
  resting_.give_back(world);
  moving_.give_back(world);
  diff_.give_back(world);
  all_pairs_.give_back(world);
  recent_handles_.note(std::max({created_.size(), entering_.size(), ready_.size(), joining_.size()}));
  for (std::vector<Handle>* list : {&created_, &entering_, &ready_, &joining_}) {
    shrink_if_far_below(*list, world.handles(recent_handles_));
  }
}

void BroadphaseCore::collect_stats() {
  const bool found = moving_.pairing() != Pairing::none;
  stats_.objects = table_.live_count();
  stats_.moving = static_cast<std::uint32_t>(moving_.members().size());
  stats_.resting = resting_.size();
  stats_.invalid = table_.invalid_count();
  stats_.pairs = found ? resting_.candidates().hits() + static_cast<std::uint32_t>(diff_.moving_keys().size()) : 0;
  stats_.candidates = resting_.candidates().size();
  stats_.bytes_held = table_.bytes_held() + resting_.bytes_held() + moving_.bytes_held() + diff_.bytes_held() +
                      all_pairs_.bytes_held() +
                      (heap_bytes(created_) + heap_bytes(entering_) + heap_bytes(ready_) + heap_bytes(joining_));
}

std::span<const Pair> BroadphaseCore::pairs() const {
  return all_pairs_.current(table_.updates(), moving_.pairing() != Pairing::none, diff_, resting_.candidates());
}

const char* BroadphaseCore::problem() const {
  if (const char* p = table_.problem()) return p;
  if (const char* p = resting_.problem(table_)) return p;
  if (const char* p = moving_.problem(table_, resting_)) return p;
  if (const char* p = diff_.problem()) return p;
  return all_pairs_.problem();
}

// ---- queries -----------------------------------------------------------------------------------

template <class Query>
void BroadphaseCore::visit_current(const Query& query, FunctionRef<Handle> visit) const {
  // Resting objects and the last update's moving ones, unless changed since; then those changed
  // since (created, moved, refiltered) with their current box.
  const auto unchanged_hit = [&](Handle h) { return !table_.dirty(h) && meets(query, table_.box(h)); };
  const auto visit_unchanged = [&](std::uint32_t h) { return !unchanged_hit(h) || visit(h); };
  // A node's leaves' boxes are fetched together before the first is tested: their misses overlap.
  const auto fetch_box = [&](std::uint32_t h) { table_.prefetch_box(h); };
  if (!walk(resting_.tree(), query, visit_unchanged, fetch_box)) return;
  if (!moving_.members().empty() && !walk(moving_.query_tree(table_), query, visit_unchanged, fetch_box)) return;
  for (const Handle h : table_.dirty()) {
    if (table_.alive(h) && meets(query, table_.box(h)) && !visit(h)) return;
  }
}

void BroadphaseCore::visit(const Box& box, FunctionRef<Handle> visit) const { visit_current(box, visit); }

void BroadphaseCore::visit(const Segment& segment, FunctionRef<Handle> visit) const {
  visit_current(SegmentQuery(segment), visit);
}

}  // namespace detail

// ---- the public calls --------------------------------------------------------------------------

struct Broadphase::Impl : detail::BroadphaseCore {
  using BroadphaseCore::BroadphaseCore;
};

Broadphase::Broadphase(const Config& config) : impl_(std::make_unique<Impl>(detail::checked(config))) {}
Broadphase::~Broadphase() = default;
Broadphase::Broadphase(Broadphase&&) noexcept = default;
Broadphase& Broadphase::operator=(Broadphase&&) noexcept = default;

Handle Broadphase::create(const Box& box, Filter filter) {
  detail::RestingSet& resting = impl_->resting();
  return impl_->table().create(box, filter, [&](std::size_t size) { resting.make_room(static_cast<std::uint32_t>(size)); });
}

void Broadphase::set_box(Handle handle, const Box& box) { impl_->table().set_box(handle, box); }

void Broadphase::set_filter(Handle handle, Filter filter) {
  impl_->table().set_filter(handle, filter);
}

void Broadphase::remove(Handle handle) { impl_->table().remove(handle); }

const PairChanges& Broadphase::update() {
  impl_->update(true);
  return impl_->diff().changes();
}

void Broadphase::update_queries() { impl_->update(false); }

std::span<const Pair> Broadphase::pairs() const { return impl_->pairs(); }

bool Broadphase::contains(Handle handle) const noexcept { return impl_->table().contains(handle); }

Box Broadphase::box(Handle handle) const { return impl_->table().live_box(handle, "box"); }

Filter Broadphase::filter(Handle handle) const {
  impl_->table().live_box(handle, "filter");
  return impl_->table().filter(handle);
}

BroadphaseStats Broadphase::stats() const { return impl_->stats(); }

void Broadphase::for_each_overlap(const Box& box, FunctionRef<Handle> visit) const {
  if (is_valid(box)) impl_->visit(box, visit);
}

void Broadphase::for_each_hit(const Segment& segment, FunctionRef<Handle> visit) const {
  if (is_valid(segment)) impl_->visit(segment, visit);
}

void Broadphase::query(const Box& box, std::vector<Handle>& out) const {
  out.clear();
  for_each_overlap(box, [&out](Handle h) { out.push_back(h); });
  std::sort(out.begin(), out.end());
}

void Broadphase::query(const Segment& segment, std::vector<Handle>& out) const {
  out.clear();
  for_each_hit(segment, [&out](Handle h) { out.push_back(h); });
  std::sort(out.begin(), out.end());
}

}  // namespace agrid
