// Broadphase: objects in handles, a resting grid rebuilt rarely, a moving set rebuilt each update,
// and the pairs diffed against the last update's.

#include "agrid/broadphase.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <functional>
#include <mutex>
#include <limits>
#include <stdexcept>
#include <string>

#include <tbb/task_arena.h>

#include "agrid/grid.h"
#include "agrid/tree.h"
#include "checked_config.h"
#include "pair_key.h"
#include "parallel_for.h"

namespace agrid {
namespace {

/// An object whose box has stayed near where its fat box was set for this many updates may join
/// the resting grid (measured: 2 let bodies drifting at walking pace join and leave again, each
/// batch a rebuild; 16 keeps them out and still rests a settling stack in a quarter second) ...
constexpr std::uint64_t kRestAfterUpdates = 16;
/// ... times 2^backoff, where an object's backoff grows by one (up to this) each time it leaves
/// the grid soon after joining: bodies rolling through a pile would otherwise join and leave
/// every few steps, and each batch of them costs a rebuild.
constexpr std::uint8_t kMaxRestBackoff = 6;
/// Leaving after a rest this many times longer than the wait to join resets the backoff.
constexpr std::uint64_t kLongRestFactor = 4;
/// The resting grid is rebuilt when the objects ready to join it are at least this many ...
constexpr std::uint32_t kMinRestingBatch = 256;
/// ... or, in a world too small for that, at least 1/kSmallWorldShare of its live objects (a
/// rebuild of a small world costs about a step of its moving set) ...
constexpr std::uint32_t kSmallWorldShare = 4;
/// ... and at least 1/kMovingShareToRest of the moving set (every moving object queries the
/// resting grid, however few rest in it: a handful resting among 50,000 moving would cost them
/// all a query) ...
constexpr std::uint32_t kMovingShareToRest = 8;
/// ... and at least 1/kRestingGrowthDivisor of its members (or when the whole moving set is
/// ready); or when that many members have left it (moved, changed filter, removed), since they
/// still cost in its queries.
constexpr std::uint32_t kRestingGrowthDivisor = 8;
/// Moving objects queried against the resting grid per unit of parallel work.
constexpr std::uint32_t kQueriesPerWork = 256;

[[nodiscard]] bool same_box(const Box& a, const Box& b) noexcept {
  // Bitwise, so that a NaN box set again counts as unchanged, and -0 as a change (harmless).
  return std::memcmp(&a, &b, sizeof(Box)) == 0;
}

/// A moving object counts as still only while its box stays within this share of its fat margin
/// around where the fat box was set: bodies that drift or roll soon leave that and stay moving,
/// where a jittering one rests; once resting, an object may use all of its fat box.
constexpr float kSettleShare = 0.25f;

/// How far the fat box of `box` reaches beyond it on every side: `margin` times its longest
/// edge; 0 for an invalid box (it pairs with nothing and never rests in a fat box).
[[nodiscard]] float fat_growth(const Box& box, float margin) noexcept {
  if (margin == 0.0f || !is_valid(box)) return 0.0f;
  const float grow = margin * std::max({box.max.x - box.min.x, box.max.y - box.min.y, box.max.z - box.min.z});
  return grow >= 0.0f ? grow : 0.0f;  // an edge of inf - inf: the box is already unbounded there
}

/// `box` grown by `grow` on every side (never less than `box`: rounding to nearest never moves
/// min up or max down), or shrunk by -grow.
[[nodiscard]] Box grown(const Box& box, float grow) noexcept {
  return {{box.min.x - grow, box.min.y - grow, box.min.z - grow}, {box.max.x + grow, box.max.y + grow, box.max.z + grow}};
}

/// is_valid(box), without branches.
[[nodiscard]] bool valid(const Box& box) noexcept {
  return (box.min.x <= box.max.x) & (box.min.y <= box.max.y) & (box.min.z <= box.max.z);
}

/// True iff `inner` is valid and lies within `outer` (closed boxes). Without branches: in a
/// world of drifting bodies the answer is a coin toss, and each mispredicted branch cost more
/// than all the comparisons (measured on scatter-50k's set_box).
[[nodiscard]] bool within(const Box& inner, const Box& outer) noexcept {
  return valid(inner) & (outer.min.x <= inner.min.x) & (outer.min.y <= inner.min.y) & (outer.min.z <= inner.min.z) &
         (inner.max.x <= outer.max.x) & (inner.max.y <= outer.max.y) & (inner.max.z <= outer.max.z);
}

// Selections without branches: `mask` is all ones to take `a`, zero to take `b` (compilers turn
// a ?: into a branch, which costs more than both sides when the condition is a coin toss).
[[nodiscard]] std::uint32_t select(std::uint32_t mask, std::uint32_t a, std::uint32_t b) noexcept {
  return (a & mask) | (b & ~mask);
}
[[nodiscard]] float select(std::uint32_t mask, float a, float b) noexcept {
  return std::bit_cast<float>(select(mask, std::bit_cast<std::uint32_t>(a), std::bit_cast<std::uint32_t>(b)));
}
[[nodiscard]] Box select(std::uint32_t mask, const Box& a, const Box& b) noexcept {
  return {{select(mask, a.min.x, b.min.x), select(mask, a.min.y, b.min.y), select(mask, a.min.z, b.min.z)},
          {select(mask, a.max.x, b.max.x), select(mask, a.max.y, b.max.y), select(mask, a.max.z, b.max.z)}};
}

/// Appends the keys of `now` not in `before` to `began` and those of `before` not in `now` to
/// `ended`: both set differences of two sorted key lists, in one pass.
void sorted_differences(const std::vector<std::uint64_t>& now, const std::vector<std::uint64_t>& before,
                        std::vector<std::uint64_t>& began, std::vector<std::uint64_t>& ended) {
  auto n = now.begin();
  auto b = before.begin();
  while (n != now.end() && b != before.end()) {
    if (*n < *b) {
      began.push_back(*n++);
    } else if (*b < *n) {
      ended.push_back(*b++);
    } else {
      ++n;
      ++b;
    }
  }
  began.insert(began.end(), n, now.end());
  ended.insert(ended.end(), b, before.end());
}

// A grid query, and the same test on one box, for a query box and for a query segment.
void query_grid(const Grid& grid, const Box& box, FunctionRef<std::uint32_t> visit) { grid.for_each_overlap(box, visit); }
void query_grid(const Grid& grid, const Segment& segment, FunctionRef<std::uint32_t> visit) { grid.for_each_hit(segment, visit); }
[[nodiscard]] bool meets(const Box& query, const Box& box) noexcept { return overlaps(query, box); }
[[nodiscard]] bool meets(const Segment& query, const Box& box) noexcept { return hits(query, box); }

}  // namespace

struct Broadphase::Impl {
  /// What set_box reads and writes, in one cache line (scatter-50k's 50,000 drifting bodies
  /// measured the larger layout); the filter and the time of the last rest are in arrays of their
  /// own.
  struct alignas(64) Object {
    Box box;  ///< The exact box, as last set.
    /// Contains `box`; reset when `box` leaves it. The resting grid holds fat boxes, so that
    /// a resting object may jitter inside its fat box and stay where it is.
    Box fat;
    float growth = 0.0f;           ///< How far `fat` reaches beyond the box it was set around.
    /// The update count, modulo 2^32, when its box or filter last changed (an object unchanged
    /// for 2^32 updates may wait once more to rest: harmless).
    std::uint32_t changed_at = 0;
    std::uint32_t rest_index = 0;  ///< Its index among the resting grid's members, while resting.
    bool alive = false;
    bool dirty = false;            ///< Changed since the last update (in dirty_handles).
    bool resting = false;          ///< A member of the resting grid, unchanged since it was built.
    std::uint8_t rest_backoff = 0; ///< Doublings of the wait before it may join the resting grid.

    /// True iff it may join the resting grid at update `now`.
    [[nodiscard]] bool ready_to_rest(std::uint64_t now) const noexcept {
      return static_cast<std::uint32_t>(now) - changed_at >= (kRestAfterUpdates << rest_backoff);
    }
  };
  static_assert(sizeof(Object) == 64);

  Config config;
  std::vector<Object> objects;
  std::vector<Filter> filters;           ///< By handle.
  std::vector<std::uint64_t> rested_at;  ///< By handle: the update count when it last joined the resting grid.
  std::vector<Handle> free_handles;     ///< Reusable now, lowest last.
  std::vector<Handle> removed_handles;  ///< Removed since the last update: reusable after it.
  std::vector<Handle> dirty_handles;    ///< Changed since the last update.
  std::vector<Handle> changed_handles;  ///< Those of the update under way.
  std::vector<Handle> next_moving;      ///< Scratch of update_moving_set.
  std::uint32_t invalid = 0;            ///< Live objects with an invalid box.
  std::uint64_t updates = 0;
  std::uint32_t live = 0;
  std::uint64_t resting_rebuilds = 0;

  // The resting grid: its members (ascending handles) and their fat boxes as built, their exact
  // boxes now, and their candidate pairs with each one's exact overlap as of the last update.
  // Members are indexed by their order in the grid; the arrays are compact so that walking the
  // candidates is cheap.
  Grid resting_grid;
  std::vector<Handle> resting_handles;
  std::vector<Box> resting_boxes;
  std::vector<Box> resting_exact;
  std::vector<std::uint8_t> resting_live;             ///< 1 while the member has not left.
  /// Pairs of members (by index) whose fat boxes overlap and whose filters pass. Sorted; so are
  /// their handle pairs.
  std::vector<Pair> resting_candidates;
  std::vector<std::uint8_t> resting_hits;             ///< Exact overlap; 0 once a member left.
  std::uint32_t resting_pair_count = 0;               ///< Candidates that are hits.
  bool resting_changed = false;              ///< A member moved in its fat box or left since the last update.
  std::uint32_t resting_left = 0;            ///< Members that have left since the build.
  bool resting_keys_stale = false;           ///< Built by update_queries(), without its pairs.

  // The moving set of the last update: everything alive and not resting. Its grid serves
  // queries; when the tree found the pairs, the grid is built by the first query that needs it.
  mutable Grid moving_grid;
  mutable std::mutex moving_grid_mutex;
  mutable std::atomic<bool> moving_grid_built{false};
  Tree moving_tree;
  std::vector<Handle> moving_handles;
  std::vector<Box> moving_boxes;
  std::vector<Pair> moving_pairs;

  // Pairs with a moving member, as sorted handle keys: this update's and the last one's.
  std::vector<std::vector<std::uint64_t>> query_keys;  ///< Per unit of moving x resting work.
  std::vector<std::uint64_t> keys;
  std::vector<std::uint64_t> moving_keys;

  // All pairs, made from the resting hits and the moving keys when first asked for after an
  // update (most updates need only the changes).
  mutable std::vector<Pair> pairs;
  mutable std::mutex pairs_mutex;
  mutable std::atomic<bool> pairs_current{true};

  // Scratch of the incremental diff.
  std::vector<Pair> next_pairs;
  std::vector<std::uint64_t> left_keys;  ///< Resting pairs whose member left, sorted.
  std::vector<Pair> resting_began;
  std::vector<Pair> resting_ended;
  std::vector<std::uint64_t> moving_began;
  std::vector<std::uint64_t> moving_ended;
  PairChanges changes;
  BroadphaseStats stats;

  explicit Impl(const Config& c) : config(c), resting_grid(c), moving_grid(c), moving_tree(c) {}

  Object& live_object(Handle h, const char* what) {
    if (h >= objects.size() || !objects[h].alive) {
      throw std::invalid_argument(std::string("agrid::Broadphase::") + what + ": not a live handle");
    }
    return objects[h];
  }

  // The object changed: it leaves the resting grid and is rebuilt at the next update.
  void touch(Handle h) {
    Object& o = objects[h];
    if (o.resting) {
      o.resting = false;
      resting_live[o.rest_index] = 0;
      resting_changed = true;
      ++resting_left;
    }
    if (!o.dirty) {
      o.dirty = true;
      dirty_handles.push_back(h);
    }
  }

  /// Within its fat box a resting object stays in the resting grid (pairs and queries test the
  /// exact box); out of it, it leaves the grid with a new fat box, and waits longer to rest
  /// again if it rested only briefly, no longer than at first if it rested long.
  void set_resting_box(Handle h, const Box& box) {
    Object& o = objects[h];
    if (within(box, o.fat)) {  // both valid: the invalid count stands
      o.box = box;
      resting_exact[o.rest_index] = box;
      resting_changed = true;
      return;
    }
    const std::uint64_t wait = kRestAfterUpdates << o.rest_backoff;
    if (updates - rested_at[h] >= kLongRestFactor * wait) {
      o.rest_backoff = 0;
    } else if (o.rest_backoff < kMaxRestBackoff) {
      ++o.rest_backoff;
    }
    set_moving_box(h, box);
  }

  /// A moving object counts as still, and may join the resting grid, while close to where its
  /// fat box was set; otherwise its fat box is set around its box. Either way it is marked dirty,
  /// so that queries before the next update see the new box. Written without branches on
  /// `still`: for drifting bodies it is a coin toss, and a mispredicted branch cost more than
  /// setting the fat box (measured on scatter-50k).
  void set_moving_box(Handle h, const Box& box) {
    Object& o = objects[h];
    const bool still = (config.fat_margin > 0.0f) & within(box, grown(o.fat, -(1.0f - kSettleShare) * o.growth));
    invalid += !valid(box);  // both valid when still: no change then
    invalid -= !valid(o.box);
    const float growth = fat_growth(box, config.fat_margin);
    const std::uint32_t keep = 0u - static_cast<std::uint32_t>(still);
    o.fat = select(keep, o.fat, grown(box, growth));
    o.growth = select(keep, o.growth, growth);
    o.changed_at = select(keep, o.changed_at, static_cast<std::uint32_t>(updates));
    o.box = box;
    touch(h);
  }

  /// True iff objects a and b pair now: their filters pass and their exact boxes overlap (a
  /// resting object's fat box only says they may).
  [[nodiscard]] bool accepts(Handle a, Handle b) const noexcept {
    return passes(filters[a], filters[b]) && overlaps(objects[a].box, objects[b].box);
  }

  /// Brings the grids up to date and, if `find_pairs`, the pairs and their changes.
  void update(bool find_pairs);
  /// Calls `visit` with each live object whose current box meets the query (a Box or a Segment).
  template <class Query>
  void visit_current(const Query& query, FunctionRef<Handle> visit) const;
  void ensure_moving_grid() const;
  void rebuild_resting(bool find_pairs);
  void update_moving_set();
  void gather_moving_boxes();
  void find_moving_pairs();
  void forget_pairs();
  /// The changes since the last update, when the resting grid was rebuilt: all pairs compared.
  void diff_all_pairs();
  /// The changes since the last update, from the moving keys and the resting candidates.
  void diff_changed_pairs();
  void walk_resting_candidates();
  /// Makes `pairs` hold all pairs of the last update.
  void make_pairs() const;
};

Broadphase::Broadphase(const Config& config) : impl_(std::make_unique<Impl>(detail::checked(config))) {}
Broadphase::~Broadphase() = default;
Broadphase::Broadphase(Broadphase&&) noexcept = default;
Broadphase& Broadphase::operator=(Broadphase&&) noexcept = default;

Handle Broadphase::create(const Box& box, Filter filter) {
  Impl& m = *impl_;
  Handle h;
  if (!m.free_handles.empty()) {
    h = m.free_handles.back();
    m.free_handles.pop_back();
  } else {
    if (m.objects.size() >= std::numeric_limits<Handle>::max() - 1) {
      throw std::length_error("agrid::Broadphase::create: at most 2^32 - 2 objects");
    }
    h = static_cast<Handle>(m.objects.size());
    m.objects.emplace_back();
    m.filters.emplace_back();
    m.rested_at.emplace_back();
  }
  m.objects[h] = Impl::Object{};
  Impl::Object& o = m.objects[h];
  o.box = box;
  o.growth = fat_growth(box, m.config.fat_margin);
  o.fat = o.growth > 0.0f ? grown(box, o.growth) : box;
  m.filters[h] = filter;
  o.changed_at = static_cast<std::uint32_t>(m.updates);
  o.alive = true;
  ++m.live;
  m.invalid += !is_valid(box);
  m.touch(h);
  return h;
}

void Broadphase::set_box(Handle handle, const Box& box) {
  Impl::Object& o = impl_->live_object(handle, "set_box");
  if (same_box(o.box, box)) return;
  if (o.resting) {
    impl_->set_resting_box(handle, box);
  } else {
    impl_->set_moving_box(handle, box);
  }
}

void Broadphase::set_filter(Handle handle, Filter filter) {
  Impl::Object& o = impl_->live_object(handle, "set_filter");
  Filter& old = impl_->filters[handle];
  if (old.group == filter.group && old.mask == filter.mask) return;
  old = filter;
  o.changed_at = static_cast<std::uint32_t>(impl_->updates);
  impl_->touch(handle);
}

void Broadphase::remove(Handle handle) {
  Impl& m = *impl_;
  m.live_object(handle, "remove");
  m.touch(handle);
  m.objects[handle].alive = false;
  --m.live;
  m.invalid -= !is_valid(m.objects[handle].box);
  m.removed_handles.push_back(handle);
}

const PairChanges& Broadphase::update() {
  impl_->update(true);
  return impl_->changes;
}

void Broadphase::update_queries() { impl_->update(false); }

std::span<const Pair> Broadphase::pairs() const {
  impl_->make_pairs();
  return impl_->pairs;
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

void Broadphase::Impl::update(bool find_pairs) {
  ++updates;
  for (const Handle h : dirty_handles) objects[h].dirty = false;
  std::swap(changed_handles, dirty_handles);  // the moving set takes them in below
  dirty_handles.clear();

  // Objects unchanged for a while join the resting grid in batches: a rebuild costs a full
  // build of the grid and its pairs, so it waits until it is worth it.
  std::uint32_t ready = 0;
  for (const Handle h : moving_handles) ready += objects[h].ready_to_rest(updates);
  const auto members = static_cast<std::uint32_t>(resting_handles.size());
  const auto moving = static_cast<std::uint32_t>(moving_handles.size());
  const std::uint32_t batch = std::max({std::min(kMinRestingBatch, live / kSmallWorldShare), members / kRestingGrowthDivisor,
                                        moving / kMovingShareToRest, 1u});
  // When nothing moves any more, one rebuild makes every later step free. (An object that
  // keeps stopping and starting backs off, so this cannot come back every few steps.)
  const bool all_still = ready > 0 && ready == moving;
  // Resting pairs skipped by update_queries() are needed again as soon as pairs are.
  const bool rebuild = ready >= batch || all_still || resting_left >= batch || (find_pairs && resting_keys_stale);
  if (rebuild) {
    if (find_pairs) make_pairs();  // the last update's, to compare with
    rebuild_resting(find_pairs);
  } else {
    update_moving_set();
  }

  gather_moving_boxes();
  if (find_pairs) {
    find_moving_pairs();
    if (rebuild) {
      diff_all_pairs();
    } else {
      diff_changed_pairs();
    }
    std::swap(moving_keys, keys);
  } else {
    moving_grid_built.store(false, std::memory_order_release);  // built by the first query
    forget_pairs();
  }

  // Removed handles are reusable now that their pairs have been reported as ended.
  if (!removed_handles.empty()) {
    free_handles.insert(free_handles.end(), removed_handles.begin(), removed_handles.end());
    removed_handles.clear();
    std::sort(free_handles.begin(), free_handles.end(), std::greater<>());  // lowest handle reused first
  }

  stats.objects = live;
  stats.resting = static_cast<std::uint32_t>(resting_handles.size()) - resting_left;
  stats.moving = static_cast<std::uint32_t>(moving_handles.size());
  stats.invalid = invalid;
  stats.pairs = resting_pair_count + static_cast<std::uint32_t>(moving_keys.size());
  stats.resting_rebuilds = resting_rebuilds;
  stats.bytes_held = objects.capacity() * sizeof(Object) + filters.capacity() * sizeof(Filter) +
                     rested_at.capacity() * sizeof(std::uint64_t) + resting_grid.stats().bytes_held +
                     moving_grid.stats().bytes_held + moving_tree.stats().bytes_held +
                     (keys.capacity() + moving_keys.capacity()) * sizeof(std::uint64_t) +
                     resting_candidates.capacity() * (sizeof(Pair) + 1) +
                     (resting_exact.capacity() + resting_boxes.capacity()) * sizeof(Box) +
                     (pairs.capacity() + next_pairs.capacity() + moving_pairs.capacity()) * sizeof(Pair);
}

void Broadphase::Impl::ensure_moving_grid() const {
  if (moving_grid_built.load(std::memory_order_acquire)) return;
  const std::lock_guard<std::mutex> lock(moving_grid_mutex);  // queries only, never the pair path
  if (moving_grid_built.load(std::memory_order_relaxed)) return;
  moving_grid.build(moving_boxes);
  moving_grid_built.store(true, std::memory_order_release);
}

void Broadphase::Impl::rebuild_resting(bool find_pairs) {
  ++resting_rebuilds;
  resting_handles.clear();
  resting_boxes.clear();
  resting_exact.clear();
  for (Handle h = 0; h < objects.size(); ++h) {
    Object& o = objects[h];
    if (!o.alive || !(o.resting || o.ready_to_rest(updates))) continue;
    if (!o.resting) rested_at[h] = updates;
    o.resting = true;
    o.rest_index = static_cast<std::uint32_t>(resting_handles.size());
    resting_handles.push_back(h);
    resting_boxes.push_back(o.fat);
    resting_exact.push_back(o.box);
  }
  resting_live.assign(resting_handles.size(), 1);
  resting_left = 0;
  resting_changed = false;
  moving_handles.clear();
  for (Handle h = 0; h < objects.size(); ++h) {
    if (objects[h].alive && !objects[h].resting) moving_handles.push_back(h);
  }
  resting_grid.build(resting_boxes);
  resting_candidates.clear();
  resting_hits.clear();
  resting_pair_count = 0;
  resting_keys_stale = !find_pairs;
  if (!find_pairs) return;
  std::vector<Pair>& found = moving_pairs;  // scratch: the moving pairs are found after this
  resting_grid.find_pairs(found);
  for (const auto [i, j] : found) {
    if (!passes(filters[resting_handles[i]], filters[resting_handles[j]])) continue;
    const bool hit = overlaps(resting_exact[i], resting_exact[j]);
    resting_candidates.push_back({i, j});
    resting_hits.push_back(hit ? 1 : 0);
    resting_pair_count += hit ? 1 : 0;
  }
  // Members are in ascending handle order and the grid's pairs sorted: so are the candidates.
}

void Broadphase::Impl::update_moving_set() {
  // Last update's moving objects that are still alive, and those changed since (new, moved, or
  // left the resting grid): in ascending handles, each once.
  std::sort(changed_handles.begin(), changed_handles.end());
  next_moving.clear();
  auto changed = changed_handles.begin();
  const auto take_changed_below = [&](Handle limit) {
    for (; changed != changed_handles.end() && *changed < limit; ++changed) {
      if (objects[*changed].alive) next_moving.push_back(*changed);
    }
  };
  for (const Handle h : moving_handles) {
    take_changed_below(h);
    if (changed != changed_handles.end() && *changed == h) ++changed;
    if (objects[h].alive) next_moving.push_back(h);
  }
  take_changed_below(std::numeric_limits<Handle>::max());
  std::swap(moving_handles, next_moving);
  changed_handles.clear();
}

void Broadphase::Impl::gather_moving_boxes() {
  changed_handles.clear();
  moving_boxes.clear();
  for (const Handle h : moving_handles) moving_boxes.push_back(objects[h].box);
}

void Broadphase::Impl::find_moving_pairs() {
  // Moving x moving, on all threads when there are many.
  if (moving_boxes.size() >= config.tree_min_boxes && tbb::this_task_arena::max_concurrency() > 1) {
    moving_tree.build(moving_boxes);
    moving_tree.find_pairs(moving_pairs);
    moving_grid_built.store(false, std::memory_order_release);
  } else {
    moving_grid.build(moving_boxes);
    moving_grid.find_pairs(moving_pairs);
    moving_grid_built.store(true, std::memory_order_release);
  }
  // The pairs are sorted and the moving handles ascending: so are these keys.
  keys.clear();
  for (const auto [i, j] : moving_pairs) {
    const Handle a = moving_handles[i];
    const Handle b = moving_handles[j];
    if (passes(filters[a], filters[b])) keys.push_back(detail::pair_key(a, b));
  }

  // Moving x resting: each moving object queries the resting grid, in fixed units of work.
  const auto units = (moving_handles.size() + kQueriesPerWork - 1) / kQueriesPerWork;
  if (resting_handles.size() - resting_left == 0) return;
  if (query_keys.size() < units) query_keys.resize(units);
  const auto query_unit = [&](std::size_t u) {
    std::vector<std::uint64_t>& out = query_keys[u];
    out.clear();
    const std::size_t end = std::min(moving_handles.size(), (u + 1) * kQueriesPerWork);
    for (std::size_t k = u * kQueriesPerWork; k < end; ++k) {
      const Handle a = moving_handles[k];
      resting_grid.for_each_overlap(objects[a].box, [&](std::uint32_t r) {
        const Handle b = resting_handles[r];
        if (objects[b].resting && accepts(a, b)) out.push_back(detail::pair_key(a, b));
      });
    }
  };
  if (units == 1) {
    query_unit(0);  // waking other threads would cost more than the unit
  } else {
    detail::parallel_for(std::size_t{0}, units, query_unit);
  }
  const auto moving_moving = static_cast<std::ptrdiff_t>(keys.size());
  for (std::size_t u = 0; u < units; ++u) keys.insert(keys.end(), query_keys[u].begin(), query_keys[u].end());
  std::sort(keys.begin() + moving_moving, keys.end());
  std::inplace_merge(keys.begin(), keys.begin() + moving_moving, keys.end());
}

void Broadphase::Impl::make_pairs() const {
  if (pairs_current.load(std::memory_order_acquire)) return;
  const std::lock_guard<std::mutex> lock(pairs_mutex);
  if (pairs_current.load(std::memory_order_relaxed)) return;
  // The resting hits and the moving keys, both sorted, merged.
  pairs.clear();
  auto moving = moving_keys.begin();
  for (std::size_t k = 0; k < resting_candidates.size(); ++k) {
    if (resting_hits[k] == 0) continue;
    const std::uint64_t key = detail::pair_key(resting_handles[resting_candidates[k].first], resting_handles[resting_candidates[k].second]);
    for (; moving != moving_keys.end() && *moving < key; ++moving) pairs.push_back(detail::pair_of(*moving));
    pairs.push_back(detail::pair_of(key));
  }
  for (; moving != moving_keys.end(); ++moving) pairs.push_back(detail::pair_of(*moving));
  pairs_current.store(true, std::memory_order_release);
}

void Broadphase::Impl::forget_pairs() {
  // No pairs were found: report no change now, and every pair as begun by the next update().
  changes.began.clear();
  changes.ended.clear();
  std::fill(resting_hits.begin(), resting_hits.end(), std::uint8_t{0});
  resting_pair_count = 0;
  moving_keys.clear();
  pairs.clear();
  pairs_current.store(true, std::memory_order_release);
}

void Broadphase::Impl::diff_all_pairs() {
  // `pairs` holds the last update's pairs; this update's are the resting hits and the keys.
  std::swap(moving_keys, keys);  // as make_pairs() reads them
  std::swap(pairs, next_pairs);
  pairs_current.store(false, std::memory_order_relaxed);
  make_pairs();
  std::swap(moving_keys, keys);
  changes.began.clear();
  changes.ended.clear();
  std::set_difference(pairs.begin(), pairs.end(), next_pairs.begin(), next_pairs.end(), std::back_inserter(changes.began));
  std::set_difference(next_pairs.begin(), next_pairs.end(), pairs.begin(), pairs.end(), std::back_inserter(changes.ended));
}

void Broadphase::Impl::walk_resting_candidates() {
  // Members moved within their fat boxes (their pairs may begin or end) or left the grid (their
  // pairs leave the resting set: they go on as moving pairs, or end).
  resting_began.clear();
  resting_ended.clear();
  left_keys.clear();
  if (!resting_changed) return;
  resting_changed = false;
  // Raw pointers: the pushes below would otherwise make the compiler reload every array.
  const Pair* const candidates = resting_candidates.data();
  const Box* const exact = resting_exact.data();
  const std::uint8_t* const member_live = resting_live.data();
  std::uint8_t* const hits = resting_hits.data();
  for (std::size_t k = 0; k < resting_candidates.size(); ++k) {
    const auto [a, b] = candidates[k];
    const bool both_rest = (member_live[a] & member_live[b]) != 0;
    // Candidates' boxes are valid: invalid boxes are in no candidate, and stay put in a fat box.
    const Box& x = exact[a];
    const Box& y = exact[b];
    const bool meet = (x.min.x <= y.max.x) & (y.min.x <= x.max.x) & (x.min.y <= y.max.y) & (y.min.y <= x.max.y) &
                      (x.min.z <= y.max.z) & (y.min.z <= x.max.z);
    const auto hit = static_cast<std::uint8_t>(both_rest & meet);
    if (hit == hits[k]) continue;
    hits[k] = hit;
    const Pair p{resting_handles[a], resting_handles[b]};
    if (hit != 0) {
      ++resting_pair_count;
      resting_began.push_back(p);
      continue;
    }
    --resting_pair_count;
    if (both_rest) {
      resting_ended.push_back(p);
    } else {
      left_keys.push_back(detail::pair_key(p.first, p.second));
    }
  }
}

void Broadphase::Impl::diff_changed_pairs() {
  walk_resting_candidates();
  // Moving keys that began and ended; a pair that left the resting set and is a moving key now
  // goes on, one that is not has ended.
  moving_began.clear();
  moving_ended.clear();
  sorted_differences(keys, moving_keys, moving_began, moving_ended);
  const auto merge_into = [](std::vector<Pair>& out, const std::vector<std::uint64_t>& sorted_keys) {
    const std::size_t middle = out.size();
    for (const std::uint64_t key : sorted_keys) out.push_back(detail::pair_of(key));
    std::inplace_merge(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(middle), out.end());
  };
  std::vector<std::uint64_t>& began = moving_began;  // less the pairs that went on
  std::erase_if(began, [&](std::uint64_t key) { return std::binary_search(left_keys.begin(), left_keys.end(), key); });
  changes.began = resting_began;
  merge_into(changes.began, began);
  changes.ended = resting_ended;
  merge_into(changes.ended, moving_ended);
  std::vector<std::uint64_t>& left_ended = left_keys;
  std::erase_if(left_ended, [&](std::uint64_t key) { return std::binary_search(keys.begin(), keys.end(), key); });
  merge_into(changes.ended, left_ended);
  pairs_current.store(false, std::memory_order_release);
}

template <class Query>
void Broadphase::Impl::visit_current(const Query& query, FunctionRef<Handle> visit) const {
  // Resting members that have not left; moving objects of the last update not changed since;
  // then everything changed since (created, moved), with its current box.
  bool go_on = true;
  query_grid(resting_grid, query, [&](std::uint32_t r) {
    const Handle h = resting_handles[r];
    if (objects[h].resting && meets(query, objects[h].box)) go_on = visit(h);
    return go_on;
  });
  if (!go_on) return;
  ensure_moving_grid();
  query_grid(moving_grid, query, [&](std::uint32_t k) {
    const Handle h = moving_handles[k];
    if (objects[h].alive && !objects[h].dirty) go_on = visit(h);
    return go_on;
  });
  if (!go_on) return;
  for (const Handle h : dirty_handles) {
    if (objects[h].alive && meets(query, objects[h].box) && !visit(h)) return;
  }
}

void Broadphase::for_each_overlap(const Box& box, FunctionRef<Handle> visit) const {
  if (is_valid(box)) impl_->visit_current(box, visit);
}

void Broadphase::for_each_hit(const Segment& segment, FunctionRef<Handle> visit) const {
  impl_->visit_current(segment, visit);
}

}  // namespace agrid
