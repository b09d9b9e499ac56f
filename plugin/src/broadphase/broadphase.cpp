// Broadphase: the public calls on BroadphaseCore, and the steps of an update across its parts.

#include "agrid/broadphase.h"

#include <algorithm>
#include <iterator>

#include "broadphase/broadphase_core.h"
#include "common/agrid_assert.h"
#include "common/box_ops.h"
#include "common/checked_config.h"
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
template <class Visit>
bool walk(const WideTree& tree, const Box& query, Visit&& visit) {
  return tree.query(query, visit);
}
template <class Visit>
bool walk(const WideTree& tree, const SegmentQuery& query, Visit&& visit) {
  return tree.query(query.nodes, visit);
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
  // Removed and leaving objects first, so that the re-tests below see only candidates that stay.
  // New objects rest at once (join_resting), leaving ones move.
  // One pass counts what decides the update's kind: objects that are new or out of their fat box
  // (set_box and create reset it then), and resting leaves that leave.
  const std::span<const Handle> changed = table_.take_dirty();
  std::size_t restless = 0;
  std::size_t leaving_leaves = 0;
  const std::uint32_t last = table_.now() - 1;
  for (const Handle h : changed) {
    const Object& o = table_[h];
    restless += o.alive && o.fat_set_at == last;
    leaving_leaves += RestingSet::leaves(o) && resting_.tree().contains(h);
  }
  busy_ = restless > 0 && restless * kBusyShare >= table_.live_count();
  resting_.start_update(table_, changed.size(), leaving_leaves);
  entering_.clear();
  created_.clear();
  for (const Handle h : changed) {
    Object& o = table_[h];
    o.dirty = false;
    const bool is_new = o.place == Place::none;
    if (RestingSet::leaves(o)) {
      resting_.leave(h, table_, diff_);
    } else if (o.place == Place::resting) {
      resting_.moved_inside(h, o.box);
    }
    if (!o.alive) {
      o.place = Place::none;
    } else if (is_new && !busy_) {
      created_.push_back(h);
    } else if (o.place == Place::none) {
      o.place = Place::moving;
      entering_.push_back(h);
    }
  }
  table_.forget_dirty();
  resting_.settle(table_, diff_);
}

bool BroadphaseCore::ready_to_rest(const Object& o) const noexcept {
  // Unless one grid pairs the moving set, moving costs a query of the resting tree every
  // update: objects in their fat box rest sooner then. Drifting bodies leave their fat box first.
  const std::uint32_t now = table_.now();
  const std::uint32_t inside =
      moving_.pairing() != Pairing::one_grid ? config_.rest_after_querying : config_.rest_after;
  return now - o.fat_set_at >= inside || now - o.changed_at >= config_.rest_after_unchanged;
}

void BroadphaseCore::join_resting() {
  ready_.clear();
  if (!busy_) {
    for (const Handle h : moving_.members()) {
      if (table_[h].place == Place::moving && ready_to_rest(table_[h])) ready_.push_back(h);
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
  if (const char* p = moving_.problem(table_)) return p;
  if (const char* p = diff_.problem()) return p;
  return all_pairs_.problem();
}

// ---- queries -----------------------------------------------------------------------------------

template <class Query>
void BroadphaseCore::visit_current(const Query& query, FunctionRef<Handle> visit) const {
  // Resting objects and the last update's moving ones, unless changed since; then those changed
  // since (created, moved, refiltered) with their current box.
  const auto unchanged_hit = [&](Handle h) { return !table_[h].dirty && meets(query, table_[h].box); };
  const auto visit_unchanged = [&](std::uint32_t h) { return !unchanged_hit(h) || visit(h); };
  if (!walk(resting_.tree(), query, visit_unchanged)) return;
  if (!moving_.members().empty() && !walk(moving_.query_tree(table_), query, visit_unchanged)) return;
  for (const Handle h : table_.dirty()) {
    if (table_[h].alive && meets(query, table_[h].box) && !visit(h)) return;
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
  return impl_->table().create(box, filter, impl_->config().fat_margin,
                               [&](std::size_t size) { resting.make_room(static_cast<std::uint32_t>(size)); });
}

void Broadphase::set_box(Handle handle, const Box& box) { impl_->table().set_box(handle, box, impl_->config().fat_margin); }

void Broadphase::set_filter(Handle handle, Filter filter) {
  impl_->table().set_filter(handle, filter, impl_->config().fat_margin);
}

void Broadphase::remove(Handle handle) { impl_->table().remove(handle); }

const PairChanges& Broadphase::update() {
  impl_->update(true);
  return impl_->diff().changes();
}

void Broadphase::update_queries() { impl_->update(false); }

std::span<const Pair> Broadphase::pairs() const { return impl_->pairs(); }

bool Broadphase::contains(Handle handle) const noexcept { return impl_->table().contains(handle); }

Box Broadphase::box(Handle handle) const { return impl_->table().live(handle, "box").box; }

Filter Broadphase::filter(Handle handle) const {
  impl_->table().live(handle, "filter");
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
