#pragma once
// Broadphase: the incremental front a physics engine talks to, in handles, once per step.

// Below C++20: one clear error, not dozens from what follows. (GCC 10 and older report 201709 in
// their C++2a mode: let through.)
#if __cplusplus <= 201703L
#error "agrid/broadphase.h needs C++20; a Bullet program of an older standard includes <agrid/bullet/btAdaptiveGridBroadphase.h> (C++11) instead"
#else

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "agrid/box.h"
#include "agrid/callback.h"
#include "agrid/config.h"
#include "agrid/pair.h"
#include "agrid/segment.h"

namespace agrid {

/// An object's handle: an index, stable for the object's life. A removed object's handle is
/// reused only after the update() that reports the end of its pairs (or the update_queries()
/// that forgets them).
using Handle = std::uint32_t;

/// A collision filter, as Bullet's: two objects may pair iff each one's group meets the other's
/// mask.
struct Filter {
  std::uint32_t group = 1;           ///< The groups the object belongs to, one bit each.
  std::uint32_t mask = 0xffffffffu;  ///< The groups the object may pair with.
};

/// True iff objects with filters a and b may pair.
[[nodiscard]] constexpr bool passes(Filter a, Filter b) noexcept {
  return (a.group & b.mask) != 0 && (b.group & a.mask) != 0;
}

/// What one update() changed: pairs of handles (first < second), each list sorted ascending.
struct PairChanges {
  std::vector<Pair> began;  ///< Pairs that began: they overlap and pass the filters now, and did not.
  std::vector<Pair> ended;  ///< Pairs that ended, those of removed objects included.
};

/// Counts describing the broadphase after its last update().
struct BroadphaseStats {
  std::uint32_t objects = 0;     ///< Live objects.
  std::uint32_t moving = 0;      ///< Objects whose pairs are found afresh each update (changed lately, or new).
  std::uint32_t resting = 0;     ///< Objects kept in the resting tree, costing nothing while unchanged.
  std::uint32_t invalid = 0;     ///< Live objects whose box has a NaN or min > max.
  std::uint32_t pairs = 0;       ///< Overlapping pairs that pass the filters.
  std::uint32_t candidates = 0;  ///< Kept pairs of resting objects whose fat boxes overlap.
  std::uint32_t changed = 0;     ///< Objects created, moved, refiltered or removed before the last update.
  std::size_t bytes_held = 0;    ///< Heap memory kept between updates.
};

/// Overlapping pairs of objects that come, move and go, at a cost per update that follows what
/// changed, not the size of the world. Each object has a *fat* box (its box grown by
/// Config::fat_margin of its longest edge), set afresh by an update that finds its box outside
/// it. An object whose box
/// has stayed in its fat box for Config::rest_after updates *rests*: its fat box sits in a
/// balanced tree, and the pairs of resting objects whose fat boxes overlap are kept as
/// candidates, so that a resting object that moves inside its fat box costs the exact re-test of
/// its own candidates, and an unchanged one nothing. The other objects are *moving*: each update
/// finds their pairs with the adaptive grid (the tree of grids on all threads when many) and
/// tests their boxes against the resting objects their fat boxes meet (found in the resting
/// tree when the fat box is set, kept while the box stays inside it). Pairs and queries are exact on the boxes as given
/// (floats, compared without tolerance; double input is rounded outward to floats first, see
/// agrid/float_rounding.h). Boxes are closed; an invalid box pairs with nothing. Results do not depend on the number of threads. See
/// docs/broadphase.md for the costs of each kind of change.
class Broadphase {
 public:
  /// Throws std::invalid_argument if config.problem() is not empty.
  explicit Broadphase(const Config& config = {});
  ~Broadphase();
  /// Takes over the other's objects; the moved-from broadphase may only be destroyed or assigned.
  Broadphase(Broadphase&&) noexcept;
  /// Takes over the other's objects; the moved-from broadphase may only be destroyed or assigned.
  Broadphase& operator=(Broadphase&&) noexcept;
  Broadphase(const Broadphase&) = delete;
  Broadphase& operator=(const Broadphase&) = delete;

  /// Adds an object; its pairs begin at the next update(). Throws std::length_error when
  /// 2^32 - 2 objects are live.
  Handle create(const Box& box, Filter filter = {});

  /// Sets the object's box; O(1), and nearly free when the box is unchanged.
  void set_box(Handle handle, const Box& box);

  /// Sets the object's filter; its pairs are re-evaluated at the next update().
  void set_filter(Handle handle, Filter filter);

  /// Removes the object; its pairs are reported as ended by the next update().
  void remove(Handle handle);

  /// Brings the pairs up to date; returns those that began and ended since the last update.
  /// Valid until the next update().
  const PairChanges& update();

  /// Brings the queries up to date without finding the moving objects' pairs, for a world that
  /// only queries (rays, box tests). pairs() is empty afterwards and the next update() reports
  /// every pair as begun.
  void update_queries();

  /// All pairs as of the last update(), sorted. Brought up to date by the first call after an
  /// update (which itself needs only the changes); valid until the next update().
  [[nodiscard]] std::span<const Pair> pairs() const;

  /// True iff `handle` is a live object.
  [[nodiscard]] bool contains(Handle handle) const noexcept;

  /// The object's current box (a copy: a reference would dangle once create() grows the table).
  /// `handle` must be live.
  [[nodiscard]] Box box(Handle handle) const;
  /// The object's current filter. `handle` must be live.
  [[nodiscard]] Filter filter(Handle handle) const;

  /// Replaces the contents of `out` with the live objects whose current box overlaps `box`,
  /// sorted ascending.
  void query(const Box& box, std::vector<Handle>& out) const;

  /// Calls `visit` once with each live object whose current box overlaps `box` (in no
  /// particular but deterministic order) until it returns false.
  void for_each_overlap(const Box& box, FunctionRef<Handle> visit) const;

  /// Replaces the contents of `out` with the live objects whose current box hits(segment, box),
  /// sorted ascending.
  void query(const Segment& segment, std::vector<Handle>& out) const;

  /// Calls `visit` once with each live object whose current box hits(segment, box) until it
  /// returns false.
  void for_each_hit(const Segment& segment, FunctionRef<Handle> visit) const;

  /// Counts describing the last update().
  [[nodiscard]] BroadphaseStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agrid

#endif  // C++20
