#pragma once
// ObjectTable: the incremental Broadphase's objects by handle, in columns: the boxes (the one
// copy, read in place by the pair finder and the queries), the filters, what decides where each
// is kept, and each one's life and changes; with the handles to give out and the objects changed
// since the last update.

#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

#include "agrid/broadphase.h"
#include "broadphase/handle_pool.h"
#include "broadphase/world_size.h"
#include "common/agrid_assert.h"
#include "common/bit_set.h"
#include "common/box_ops.h"
#include "common/slack_growth.h"

namespace agrid::detail {

/// Where an object is kept.
enum class Place : std::uint8_t {
  none,     ///< Not yet placed (created since the last update), or removed.
  moving,   ///< In the moving set: paired afresh each update.
  resting,  ///< In the resting set: in its tree (when its box is valid) with its candidates kept.
};

/// What decides where an object is kept: its fat box, when the fat box and the box last changed,
/// and its place. Written by the update only. Stamps are the update after which the change came
/// (the count of updates done then), modulo 2^32. Invariant (after an update): a live valid box
/// lies in its fat box.
struct Motion {
  Box fat;                      ///< Holds the box (when valid); set afresh when the box leaves it.
  std::uint32_t fat_set_at = 0;  ///< The update after which `fat` was last set.
  std::uint32_t changed_at = 0;  ///< The update after which the box or the filter last changed.
  Place place = Place::none;
};

/// True iff a filter may refuse some pair: one whose mask leaves out a group, or that is in no
/// group. Where no live object's may, every pair passes and no filter need be read.
[[nodiscard]] constexpr bool may_refuse(Filter f) noexcept { return f.mask != ~std::uint32_t{0} || f.group == 0; }

/// The objects by handle, in columns, and the objects changed since the last update. set_box
/// writes the object's box and marks it changed, nothing else; the update takes the changes
/// (take_change) in ascending handles. A removed object's box is absent (invalid), so that the
/// box column read whole pairs only live objects. Invariant (problem(), after an update): `live()`
/// and `invalid()` count the live objects and those with an invalid box; no object is marked
/// changed; a live valid box lies in its fat box; a dead object is unplaced with an absent box;
/// the table ends at the highest live handle + 1, and the reusable handles are exactly the dead
/// ones below.
class ObjectTable {
 public:
  /// A new live object, changed: the lowest reusable handle, else one past the table's end.
  /// `grown(size)` is called when the table grew to `size` objects (the caller makes room in
  /// arrays by handle); if it throws, the table is as it was.
  template <class Grown>
  Handle create(const Box& box, Filter filter, Grown&& grown);
  /// Sets a live object's box. False iff unchanged (the same bits).
  bool set_box(Handle h, const Box& box);
  /// Sets a live object's filter: its fat box is set afresh at the update (its candidates were
  /// chosen by the old filter). False iff unchanged.
  bool set_filter(Handle h, Filter filter);
  /// Removes a live object: it stays in the table, dead and changed, until the update after.
  void remove(Handle h);

  /// The box of the live object `h`, or std::invalid_argument naming `what` (the API call).
  const Box& live_box(Handle h, const char* what) const {
    if (!contains(h)) [[unlikely]] throw_not_live(what);
    return boxes_[h];
  }
  /// True iff `h` is a live handle.
  [[nodiscard]] bool contains(Handle h) const noexcept { return h < boxes_.size() && alive(h); }

  // Object `h` (below size()), live or not.
  [[nodiscard]] const Box& box(Handle h) const noexcept { return boxes_[h]; }
  [[nodiscard]] const Filter& filter(Handle h) const noexcept { return filters_[h]; }
  [[nodiscard]] const Motion& motion(Handle h) const noexcept { return motions_[h]; }
  [[nodiscard]] Place place(Handle h) const noexcept { return motions_[h].place; }
  [[nodiscard]] bool alive(Handle h) const noexcept { return alive_.test(h); }
  /// Changed since the last update (listed in dirty()).
  [[nodiscard]] bool dirty(Handle h) const noexcept { return dirty_bits_.test(h); }
  /// Every object's box, by handle: absent (invalid) for the dead.
  [[nodiscard]] std::span<const Box> boxes() const noexcept { return boxes_; }

  /// The table's end: no handle at or above it is live.
  [[nodiscard]] std::size_t size() const noexcept { return boxes_.size(); }
  [[nodiscard]] std::uint32_t live_count() const noexcept { return live_; }
  [[nodiscard]] std::uint32_t invalid_count() const noexcept { return invalid_; }
  /// True iff no live object's filter may refuse a pair (may_refuse): every pair passes.
  [[nodiscard]] bool filters_pass_all() const noexcept { return refusing_ == 0; }
  /// Updates so far (counting the one under way).
  [[nodiscard]] std::uint64_t updates() const noexcept { return updates_; }
  /// The update count modulo 2^32, as objects are stamped: during an update, the one under way.
  [[nodiscard]] std::uint32_t now() const noexcept { return static_cast<std::uint32_t>(updates_); }
  /// The objects changed since the last update, each once (unsorted until take_dirty()).
  [[nodiscard]] std::span<const Handle> dirty() const noexcept { return dirty_; }

  /// Starts an update: counts it.
  void start_update() noexcept { ++updates_; }
  /// The changed objects, sorted, for the update to take (take_change() each live one), then
  /// forget_dirty().
  [[nodiscard]] std::span<const Handle> take_dirty();
  /// Takes the change of the changed live object `h`: its fat box is set afresh around its box
  /// (grown by `fat_margin`) if it is new, refiltered or out of it. True iff it was; stamped with
  /// the last update (the change came after it).
  bool take_change(Handle h, float fat_margin);
  /// Asks the processor to fetch what take_change(h) reads soon (a hint: nothing changes).
  void prefetch(Handle h) const noexcept {
    __builtin_prefetch(&motions_[h]);
    prefetch_box(h);
  }
  /// Asks the processor to fetch box(h) soon (a hint).
  void prefetch_box(Handle h) const noexcept { __builtin_prefetch(&boxes_[h]); }
  /// Places object `h` (the update's parts move objects between them).
  void set_place(Handle h, Place place) noexcept { motions_[h].place = place; }
  /// The update has taken every changed object: none is marked changed.
  void forget_dirty() noexcept;
  /// Ends an update: the removed handles become reusable; the dead objects past the highest live
  /// one are dropped (the handles given out do not change: the lowest reusable one is taken
  /// first, so a dropped handle would have been given out only after all below it).
  [[gnu::cold]] void finish_update();
  /// Gives memory back where it is far below what the table and the live objects ask, and the
  /// changed objects' list where it is far below what recent updates changed (slack_growth.h);
  /// `changed` objects were dirty during this one.
  [[gnu::cold]] void give_back(std::size_t changed);
  [[nodiscard]] std::size_t bytes_held() const noexcept;
  /// Null if the invariant holds (after an update), else what is broken. O(objects).
  [[nodiscard, gnu::cold]] const char* problem() const;

 private:
  friend struct TestAccess;  // tests/plugin/test_broadphase_invariants.cpp damages the columns
  /// A dead object's box: invalid, so that it pairs with nothing.
  static constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  static constexpr Box kAbsent{{kNaN, kNaN, kNaN}, {kNaN, kNaN, kNaN}};

  [[noreturn, gnu::cold]] static void throw_not_live(const char* what);
  /// Drops every column's objects from `end` on.
  void truncate(std::size_t end);
  void check_live(Handle h, const char* what) const {
    if (!contains(h)) [[unlikely]] throw_not_live(what);
  }
  void mark_dirty(Handle h) {
    if (dirty_bits_.test(h)) return;
    dirty_bits_.set(h);
    dirty_.push_back(h);
  }

  std::vector<Box> boxes_;
  std::vector<Filter> filters_;
  std::vector<Motion> motions_;
  // Each object's life and changes, a bit each (set_box of a few among many objects touches a
  // word that stays in cache, besides the box).
  BitSet alive_;
  BitSet dirty_bits_;  ///< Changed since the last update (listed in dirty_).
  BitSet refiltered_;  ///< Its filter changed since the last update.
  HandlePool handles_;
  std::vector<Handle> dirty_;
  RecentPeak recent_changed_;  ///< Objects changed in an update, lately.
  std::uint64_t updates_ = 0;
  std::uint32_t live_ = 0;
  std::uint32_t invalid_ = 0;
  std::uint32_t refusing_ = 0;  ///< Live objects whose filter may refuse a pair.
};

template <class Grown>
Handle ObjectTable::create(const Box& box, Filter filter, Grown&& grown) {
  const Handle h = handles_.take(static_cast<Handle>(boxes_.size()));
  if (h == boxes_.size()) {
    if (boxes_.size() >= kMaxObjects) throw std::length_error("agrid::Broadphase::create: at most 2^32 - 2 objects");
    try {
      grow_for_one(boxes_);
      grow_for_one(filters_);
      grow_for_one(motions_);
      boxes_.push_back(kAbsent);
      filters_.emplace_back();
      motions_.emplace_back();
      alive_.push_back();
      dirty_bits_.push_back();
      refiltered_.push_back();
      grown(boxes_.size());
    } catch (...) {
      truncate(h);
      throw;
    }
  }
  AGRID_ASSERT(!alive_.test(h) && !dirty_bits_.test(h) && !refiltered_.test(h) && motions_[h].place == Place::none);
  boxes_[h] = box;
  filters_[h] = filter;
  alive_.set(h);
  ++live_;
  invalid_ += !is_valid(box);
  refusing_ += may_refuse(filter);
  mark_dirty(h);
  return h;
}

inline bool ObjectTable::set_box(Handle h, const Box& box) {
  check_live(h, "set_box");
  Box& old = boxes_[h];
  if (same_box(old, box)) return false;
  invalid_ = invalid_ + !is_valid(box) - !is_valid(old);
  old = box;
  mark_dirty(h);
  return true;
}

inline bool ObjectTable::take_change(Handle h, float fat_margin) {
  AGRID_ASSERT(alive(h) && dirty(h));
  Motion& m = motions_[h];
  const Box& box = boxes_[h];
  const std::uint32_t last = now() - 1;
  m.changed_at = last;
  if (m.place != Place::none && !refiltered_.test(h) && within(box, m.fat)) return false;
  m.fat = fattened(box, fat_margin);
  m.fat_set_at = last;
  return true;
}

}  // namespace agrid::detail
