#pragma once
// ObjectTable: the incremental Broadphase's objects by handle, the one copy of every box, with
// the handles to give out and the objects changed since the last update.

#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "agrid/broadphase.h"
#include "broadphase/handle_pool.h"
#include "broadphase/world_size.h"
#include "common/agrid_assert.h"
#include "common/box_ops.h"
#include "common/slack_growth.h"

namespace agrid::detail {

/// Where an object is kept.
enum class Place : std::uint8_t {
  none,     ///< Not yet placed (created since the last update), or removed.
  moving,   ///< In the moving set: paired afresh each update.
  resting,  ///< In the resting set: in its tree (when its box is valid) with its candidates kept.
};

/// One object: what set_box reads and writes, in one cache line. Invariant: a valid box lies in
/// its fat box.
struct alignas(64) Object {
  Box box;                               ///< The exact box, as last set.
  Box fat;                               ///< Holds `box` (when valid); reset when `box` leaves it.
  std::uint32_t fat_set_at = 0;          ///< The update count, modulo 2^32, when `fat` was last set.
  std::uint32_t changed_at = 0;          ///< The update count, modulo 2^32, when the box or filter last changed.
  Place place = Place::none;
  bool alive : 1 = false;
  bool dirty : 1 = false;    ///< Changed since the last update (listed in the table's dirty list).
  bool leaving : 1 = false;  ///< Resting, and its box left its fat box or its filter changed.
  bool joining : 1 = false;  ///< Joining the resting set in a bulk join under way.
};
static_assert(sizeof(Object) == 64);

/// True iff a filter may refuse some pair: one whose mask leaves out a group, or that is in no
/// group. Where no live object's may, every pair passes and no filter need be read.
[[nodiscard]] constexpr bool may_refuse(Filter f) noexcept { return f.mask != ~std::uint32_t{0} || f.group == 0; }

/// The objects by handle, their filters, the handles to give out, and the objects changed since
/// the last update. Invariant (problem(), after an update): `live()` and `invalid()` count the
/// live objects and those with an invalid box; no object is dirty; a live valid box lies in its
/// fat box and no transition is left half done; the table ends at the highest live handle + 1,
/// and the reusable handles are exactly the dead ones below.
class ObjectTable {
 public:
  /// A new live object, dirty, with its fat box around `box`: the lowest reusable handle, else
  /// one past the table's end. `grown(size)` is called when the table grew to `size` objects
  /// (the caller makes room in arrays by handle); if it throws, the table is as it was.
  template <class Grown>
  Handle create(const Box& box, Filter filter, float fat_margin, Grown&& grown);
  /// Sets a live object's box; its fat box is reset if the box left it. False iff unchanged
  /// (the same bits).
  bool set_box(Handle h, const Box& box, float fat_margin);
  /// Sets a live object's filter; its fat box is reset (its candidates were chosen by the old
  /// filter). False iff unchanged.
  bool set_filter(Handle h, Filter filter, float fat_margin);
  /// Removes a live object: it stays in the table, dead and dirty, until the update after.
  void remove(Handle h);

  /// The live object `h`, or std::invalid_argument naming `what` (the API call). Inline: every
  /// set_box asks it.
  Object& live(Handle h, const char* what) {
    if (!contains(h)) [[unlikely]] throw_not_live(what);
    return objects_[h];
  }
  const Object& live(Handle h, const char* what) const { return const_cast<ObjectTable*>(this)->live(h, what); }
  /// True iff `h` is a live handle.
  [[nodiscard]] bool contains(Handle h) const noexcept { return h < objects_.size() && objects_[h].alive; }

  /// Object `h` (below size()), live or not: the update's steps read and move objects.
  [[nodiscard]] Object& operator[](Handle h) noexcept { return objects_[h]; }
  [[nodiscard]] const Object& operator[](Handle h) const noexcept { return objects_[h]; }
  [[nodiscard]] const Filter& filter(Handle h) const noexcept { return filters_[h]; }
  /// The table's end: no handle at or above it is live.
  [[nodiscard]] std::size_t size() const noexcept { return objects_.size(); }
  [[nodiscard]] std::uint32_t live_count() const noexcept { return live_; }
  [[nodiscard]] std::uint32_t invalid_count() const noexcept { return invalid_; }
  /// True iff no live object's filter may refuse a pair (may_refuse): every pair passes.
  [[nodiscard]] bool filters_pass_all() const noexcept { return refusing_ == 0; }
  /// Updates so far (counting the one under way).
  [[nodiscard]] std::uint64_t updates() const noexcept { return updates_; }
  /// The update count modulo 2^32, as objects note it.
  [[nodiscard]] std::uint32_t now() const noexcept { return static_cast<std::uint32_t>(updates_); }
  /// The objects changed since the last update, each once (unsorted until take_dirty()).
  [[nodiscard]] std::span<const Handle> dirty() const noexcept { return dirty_; }

  /// Starts an update: counts it.
  void start_update() noexcept { ++updates_; }
  /// The changed objects, sorted, for the update to take: it clears each one's `dirty` and then
  /// calls forget_dirty().
  [[nodiscard]] std::span<const Handle> take_dirty();
  /// The update has taken every changed object.
  void forget_dirty();
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
  [[noreturn, gnu::cold]] static void throw_not_live(const char* what);
  void mark_dirty(Handle h);
  /// The object's box left its fat box or its filter changed: a new fat box, and a resting
  /// object leaves the resting set at the next update.
  void reset_fat(Object& o, float fat_margin);

  std::vector<Object> objects_;
  std::vector<Filter> filters_;
  HandlePool handles_;
  std::vector<Handle> dirty_;
  RecentPeak recent_changed_;  ///< Objects changed in an update, lately.
  std::uint64_t updates_ = 0;
  std::uint32_t live_ = 0;
  std::uint32_t invalid_ = 0;
  std::uint32_t refusing_ = 0;  ///< Live objects whose filter may refuse a pair.
};

template <class Grown>
Handle ObjectTable::create(const Box& box, Filter filter, float fat_margin, Grown&& grown) {
  const Handle h = handles_.take(static_cast<Handle>(objects_.size()));
  if (h == objects_.size()) {
    if (objects_.size() >= kMaxObjects) throw std::length_error("agrid::Broadphase::create: at most 2^32 - 2 objects");
    try {
      grow_for_one(objects_);
      grow_for_one(filters_);
      objects_.emplace_back();
      filters_.emplace_back();
      grown(objects_.size());
    } catch (...) {
      objects_.resize(h);
      filters_.resize(h);
      throw;
    }
  }
  AGRID_ASSERT(!objects_[h].alive && !objects_[h].dirty);
  Object& o = objects_[h];
  o = Object{};
  o.box = box;
  o.alive = true;
  filters_[h] = filter;
  reset_fat(o, fat_margin);
  ++live_;
  invalid_ += !is_valid(box);
  refusing_ += may_refuse(filter);
  mark_dirty(h);
  return h;
}

inline bool ObjectTable::set_box(Handle h, const Box& box, float fat_margin) {
  Object& o = live(h, "set_box");
  if (same_box(o.box, box)) return false;
  invalid_ = invalid_ + !is_valid(box) - !is_valid(o.box);
  o.box = box;
  o.changed_at = now();
  if (!within(box, o.fat)) reset_fat(o, fat_margin);
  mark_dirty(h);
  return true;
}

inline void ObjectTable::mark_dirty(Handle h) {
  if (objects_[h].dirty) return;
  objects_[h].dirty = true;
  dirty_.push_back(h);
}

inline void ObjectTable::reset_fat(Object& o, float fat_margin) {
  o.fat = fattened(o.box, fat_margin);
  o.fat_set_at = now();
  o.changed_at = o.fat_set_at;
  o.leaving = o.place == Place::resting;
}

}  // namespace agrid::detail
