// agrid::fcl::Manager: FCL's broadphase interface on agrid::Broadphase. The calls that change the
// manager hand their changes to the Broadphase at once (O(1) each) and leave its update() to the
// first call that reads it (FoldingBroadphase), so that a loop of registrations or updates costs
// one agrid update; agrid's list of every pair is made only when collide(self) asks for it.

#include "agrid/fcl/manager.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "agrid/broadphase.h"
#include "agrid/config.h"
#include "agrid/float_rounding.h"

namespace agrid {
namespace fcl {
namespace {

template <typename S>
using Object = ::fcl::CollisionObject<S>;
template <typename S>
using Aabb = ::fcl::AABB<S>;

float lower(double x) { return round_down_to_float(x); }
float upper(double x) { return round_up_to_float(x); }
float lower(float x) { return x; }
float upper(float x) { return x; }

// No NaN and min <= max on every axis. fcl::AABB::overlap and ::distance treat a NaN as
// overlapping (every comparison false): such an AABB is kept out of every answer instead.
template <typename S>
bool is_valid(const Aabb<S>& a) {
  return a.min_[0] <= a.max_[0] && a.min_[1] <= a.max_[1] && a.min_[2] <= a.max_[2];
}

// The float box holding the AABB, rounded outward (no overlap is lost; the exact test in S
// follows), or a NaN box, which agrid pairs with nothing, if the AABB is not valid (rounding alone
// could make a slightly inverted AABB valid).
template <typename S>
Box to_box(const Aabb<S>& a) {
  if (!is_valid(a)) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    return Box{{nan, nan, nan}, {nan, nan, nan}};
  }
  return Box{{lower(a.min_[0]), lower(a.min_[1]), lower(a.min_[2])},
             {upper(a.max_[0]), upper(a.max_[1]), upper(a.max_[2])}};
}

template <typename S>
bool same(const Aabb<S>& a, const Aabb<S>& b) {
  return a.min_ == b.min_ && a.max_ == b.max_;
}

void require(bool condition, const char* what) {
  if (!condition) throw std::invalid_argument(what);
}

// A pair of the distance calls, with its AABB distance: ordered by that distance, then by the
// collide order ((lower, higher) number for the manager with itself; (ours, theirs) otherwise).
template <typename S>
struct Candidate {
  S distance;
  Handle first;
  std::uint32_t second;
  bool operator<(const Candidate& o) const {
    return std::tie(distance, first, second) < std::tie(o.distance, o.first, o.second);
  }
};

// Objects of another manager read this many ahead of the one probing: each is an object of its own
// in the heap, so reading their AABBs one after another waits for memory each time.
constexpr std::uint32_t kPrefetchAhead = 8;

// All of space: an infinite reach's box, and the bounds of a side not worth bounding.
Box everywhere() {
  const float inf = std::numeric_limits<float>::infinity();
  return Box{{-inf, -inf, -inf}, {inf, inf, inf}};
}

// The first reach of a probe that is a point (its largest extent is 0), in the scene's units.
constexpr double kPointReach = 1.0;
// Each round's reach is this many times the last after a round in which the callback lowered the
// best distance; after one in which it did not (no pair in reach, or a callback that never prunes),
// the factor squares, so that far outliers and unpruned walks cost a few rounds, not hundreds.
constexpr double kReachGrowth = 2.0;

// The first round's reach: twice the square root of the smallest normal S. A gap this wide or
// wider squares to a normal number, which is what makes reach_box exact (below).
template <typename S>
S first_round_reach() {
  return 2 * std::sqrt(std::numeric_limits<S>::min());
}

template <typename S>
S largest_extent(const Aabb<S>& a) {
  return std::max({a.max_[0] - a.min_[0], a.max_[1] - a.min_[1], a.max_[2] - a.min_[2]});
}

// The box to query for every object whose AABB distance from `a`, as fcl::AABB::distance computes
// it, is below `reach` (at least first_round_reach): `a` grown by the reach in S, rounded outward
// to floats; all of space when the reach is infinite. Rounding hides none. An object outside
// has, on some axis, a coordinate p beyond the rounded a.max + reach, so at least one step of S
// beyond it: p - a.max > reach exactly, and the rounded gap is at least the reach. Its square is
// then normal, and with round-to-nearest, sqrt(gap^2 + other squares) is at least the gap.
template <typename S>
Box reach_box(const Aabb<S>& a, S reach) {
  if (std::isinf(reach)) return everywhere();
  const ::fcl::Vector3<S> margin(reach, reach, reach);
  return to_box(Aabb<S>(a.min_ - margin, a.max_ + margin));
}

// Offers the pairs of a distance call nearest first, in rounds of widening reach, with
// NaiveCollisionManager's pruning (`distance < min_dist`, the best distance the callback has given
// so far, at first the largest S). A round gathers the pairs whose AABB distance lies in
// [done, reach), found by reach_box queries, sorts and offers them; every pair not offered yet is
// then at least `reach` away, so the walk ends once the best distance is within the reach. The
// reaches: first_round_reach (the overlapping and touching pairs), then `first_reach`, growing as
// kReachGrowth says, and infinity after a round whose queries found every object.
// `gather(done, reach, round)` appends the round's pairs and says whether its queries found every
// object; `objects(c)` gives the pair of a candidate.
template <typename S, typename Gather, typename Objects>
void offer_nearest_in_rounds(S first_reach, Gather gather, Objects objects, void* cdata,
                             ::fcl::DistanceCallBack<S> callback) {
  const S inf = std::numeric_limits<S>::infinity();
  S min_dist = std::numeric_limits<S>::max();
  S done = 0;
  S reach = first_round_reach<S>();
  S growth = S(kReachGrowth);
  std::vector<Candidate<S>> round;
  for (;;) {
    round.clear();
    const bool found_everything = gather(done, reach, round);
    std::sort(round.begin(), round.end());
    const S best_before = min_dist;
    for (const Candidate<S>& c : round) {
      if (!(c.distance < min_dist)) return;
      const auto pair = objects(c);
      if (callback(pair.first, pair.second, cdata, min_dist)) return;
    }
    if (min_dist <= reach || reach == inf) return;
    growth = min_dist < best_before ? S(kReachGrowth) : growth * growth;
    done = reach;
    reach = found_everything ? inf : std::max(growth * reach, first_reach);
  }
}

// The first reach of a round of queries around probes this large: their mean largest extent
// (kPointReach for points, or when none is finite).
template <typename S>
class FirstReach {
 public:
  void add(const Aabb<S>& a) {
    const S extent = largest_extent(a);
    if (!is_valid(a) || !std::isfinite(extent)) return;
    sum_ += extent;
    ++count_;
  }
  S get() const {
    const S mean = count_ == 0 ? S(0) : sum_ / static_cast<S>(count_);
    return mean > 0 && std::isfinite(mean) ? mean : static_cast<S>(kPointReach);
  }

 private:
  S sum_ = 0;
  std::size_t count_ = 0;
};

// agrid's settings for FCL's users, whose objects mostly move by small steps (a robot's links, what
// they push) on one thread, measured side by side on agrid-bench-fcl's small-step scene (10,000
// mixed boxes, a tenth stepping; docs/benchmarks.md): fat boxes grown by 0.3 of the longest edge
// (the core's 0.1 lets a stepping box out every few steps, to be re-inserted) and the moving
// objects querying the resting tree while they are fewer than a quarter of the resting ones (the
// core's sixteenth, chosen with the tree of grids on several threads, makes one grid over the
// world each step): update()+collide(self) 0.9-1.0 ms a step before, 0.29-0.33 after; the
// teleporting scene within its spread (0.42-0.54 ms before, 0.45-0.60 after, a busy machine).
constexpr float kFatMargin = 0.3f;
constexpr std::uint32_t kRestingQueryCost = 4;

Config manager_config() {
  Config config;
  config.fat_margin = kFatMargin;
  config.resting_query_cost = kRestingQueryCost;
  return config;
}

// The Broadphase with the changes made since its last update() folded in by the first call that
// reads it. Changes come only from the manager's non-const calls, which never run beside another
// call; reads come from the const calls, several at once: the first folds under the lock, the
// others wait for it, and none reads while a fold runs.
class FoldingBroadphase {
 public:
  /// The Broadphase to change; its update() is left to the next read.
  Broadphase& edit() {
    pending_.store(true, std::memory_order_relaxed);
    return broadphase_;
  }
  /// The Broadphase as of every change made: updated first if a change is pending.
  const Broadphase& read() const {
    if (pending_.load(std::memory_order_acquire)) {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (pending_.load(std::memory_order_relaxed)) {
        broadphase_.update();
        pending_.store(false, std::memory_order_release);
      }
    }
    return broadphase_;
  }

 private:
  mutable Broadphase broadphase_{manager_config()};
  mutable std::mutex mutex_;
  mutable std::atomic<bool> pending_{false};
};

Box united(const Box& a, const Box& b) {
  return Box{{std::min(a.min.x, b.min.x), std::min(a.min.y, b.min.y), std::min(a.min.z, b.min.z)},
             {std::max(a.max.x, b.max.x), std::max(a.max.y, b.max.y), std::max(a.max.z, b.max.z)}};
}

}  // namespace

template <typename S>
struct Manager<S>::Impl {
  FoldingBroadphase broadphase;
  std::vector<Object<S>*> objects;  ///< By handle; null where free; the last one not null.
  std::vector<Aabb<S>> aabbs;       ///< By handle: each object's AABB as last read.
  std::unordered_map<const Object<S>*, Handle> handles;
  /// Objects removed since the Broadphase's last update: it gives their handles out again only
  /// after one.
  bool removed_since_update = false;

  bool registered(const Object<S>* obj) const { return handles.count(obj) != 0; }

  // Objects are numbered by their handles, and the Broadphase gives out the lowest free handle,
  // counting the removed ones only after an update: so an addition after a removal updates it
  // first (one agrid update, of the changes pending), and takes the number freed.
  void add(Object<S>* obj) {
    if (removed_since_update) {
      (void)broadphase.read();
      removed_since_update = false;
    }
    const Aabb<S>& aabb = obj->getAABB();
    const Handle h = broadphase.edit().create(to_box(aabb));
    if (h >= objects.size()) {
      objects.resize(h + std::size_t{1}, nullptr);
      aabbs.resize(h + std::size_t{1});
    }
    objects[h] = obj;
    aabbs[h] = aabb;
    handles.emplace(obj, h);
  }

  void remove(Handle h) {
    handles.erase(objects[h]);
    objects[h] = nullptr;
    while (!objects.empty() && objects.back() == nullptr) objects.pop_back();
    aabbs.resize(objects.size());
    broadphase.edit().remove(h);
    removed_since_update = true;
  }

  void reread(Handle h) {
    const Aabb<S>& aabb = objects[h]->getAABB();
    if (same(aabb, aabbs[h])) return;
    aabbs[h] = aabb;
    broadphase.edit().set_box(h, to_box(aabb));
  }

  template <typename Visit>
  void for_each_live(Visit visit) const {
    for (Handle h = 0; h < objects.size(); ++h) {
      if (objects[h] != nullptr) visit(h);
    }
  }

  template <typename Visit>
  void for_each_valid(Visit visit) const {
    for_each_live([&](Handle h) {
      if (is_valid(aabbs[h])) visit(h);
    });
  }

  // The float bounds of the valid objects' boxes: a query outside them finds nothing here.
  Box bounds() const {
    const float inf = std::numeric_limits<float>::infinity();
    Box all{{inf, inf, inf}, {-inf, -inf, -inf}};  // inverted: meets nothing while no object is valid
    for_each_valid([&](Handle h) { all = united(all, to_box(aabbs[h])); });
    return all;
  }

  // Calls visit(h) for each registered object whose AABB overlaps the valid `aabb` by
  // fcl::AABB::overlap, in no particular order.
  template <typename Visit>
  void for_each_overlapping(const Aabb<S>& aabb, Visit visit) const {
    broadphase.read().for_each_overlap(to_box(aabb), [&](Handle h) {
      if (aabbs[h].overlap(aabb)) visit(h);
    });
  }

  // Pairs between the objects here and those of `them` (another agrid manager, or this one) are
  // found by the smaller side's objects querying the larger side's broadphase: calls
  // probe(aabb, probed, pair_of) for each valid object of the smaller side, where probed is the
  // larger side and pair_of(h) gives (ours, theirs) for a probed object h.
  template <typename Probe>
  void for_each_probe(const Impl& them, Probe probe) const {
    if (handles.size() <= them.handles.size()) {
      for_each_valid([&](Handle h) { probe(aabbs[h], them, [h](Handle t) { return std::make_pair(h, t); }); });
    } else {
      them.for_each_valid([&](Handle t) { probe(them.aabbs[t], *this, [t](Handle h) { return std::make_pair(h, t); }); });
    }
  }

  // Pairs between the objects here and `theirs` (any manager's getObjects()) are found by their
  // valid objects querying this broadphase. Where ours are fewer, those of theirs outside our
  // bounds skip the query (one box test): building a structure over theirs would cost more
  // than that test, and reading their list costs as much already. Calls probe(aabb, near, j)
  // for theirs[j], `near` the bounds that a query must meet to find anything.
  template <typename Probe>
  void for_each_probe(const std::vector<Object<S>*>& theirs, Probe probe) const {
    const Box near = handles.size() < theirs.size() ? bounds() : everywhere();
    for (std::uint32_t j = 0; j < theirs.size(); ++j) {
      if (j + kPrefetchAhead < theirs.size()) __builtin_prefetch(&theirs[j + kPrefetchAhead]->getAABB());
      const Aabb<S>& aabb = theirs[j]->getAABB();
      if (is_valid(aabb)) probe(aabb, near, j);
    }
  }

  // Calls visit(ours, theirs) for each pair of an object here and one of `them` whose AABBs
  // overlap.
  template <typename Visit>
  void for_each_overlapping(const Impl& them, Visit visit) const {
    for_each_probe(them, [&](const Aabb<S>& aabb, const Impl& probed, auto pair_of) {
      probed.for_each_overlapping(aabb, [&](Handle h) {
        const auto [ours, theirs] = pair_of(h);
        visit(ours, theirs);
      });
    });
  }

  // Calls visit(ours, j) for each pair of an object here and theirs[j] whose AABBs overlap.
  template <typename Visit>
  void for_each_overlapping(const std::vector<Object<S>*>& theirs, Visit visit) const {
    for_each_probe(theirs, [&](const Aabb<S>& aabb, const Box& near, std::uint32_t j) {
      if (overlaps(to_box(aabb), near)) for_each_overlapping(aabb, [&](Handle h) { visit(h, j); });
    });
  }

  // One probe's part of a distance round: visit(h, d) for each registered object h whose AABB
  // distance d from `probe` lies in [done, reach), unless the query misses `near`. True iff the
  // query found every valid object.
  template <typename Visit>
  bool visit_within(const Aabb<S>& probe, S done, S reach, const Box& near, Visit visit) const {
    const Broadphase& current = broadphase.read();
    const Box query = reach_box(probe, reach);
    std::size_t found = 0;
    if (overlaps(query, near)) {
      current.for_each_overlap(query, [&](Handle h) {
        ++found;
        const S d = probe.distance(aabbs[h]);
        if (d >= done && d < reach) visit(h, d);
      });
    }
    const BroadphaseStats stats = current.stats();
    return found == stats.objects - stats.invalid;
  }

  // A distance round between the objects here and those of `them` (this same Impl for the manager
  // with itself): visit(ours, theirs, d) for each pair whose AABB distance d lies in [done, reach),
  // the smaller side's objects probing the larger side. True iff every probe found every valid
  // object.
  template <typename Visit>
  bool visit_within(const Impl& them, S done, S reach, Visit visit) const {
    bool found_everything = true;
    for_each_probe(them, [&](const Aabb<S>& aabb, const Impl& probed, auto pair_of) {
      found_everything &= probed.visit_within(aabb, done, reach, everywhere(), [&](Handle h, S d) {
        const auto [ours, theirs] = pair_of(h);
        visit(ours, theirs, d);
      });
    });
    return found_everything;
  }

  // A distance round between the objects here and `theirs`: visit(ours, j, d) as above.
  template <typename Visit>
  bool visit_within(const std::vector<Object<S>*>& theirs, S done, S reach, Visit visit) const {
    bool found_everything = true;
    for_each_probe(theirs, [&](const Aabb<S>& aabb, const Box& near, std::uint32_t j) {
      found_everything &= visit_within(aabb, done, reach, near, [&](Handle h, S d) { visit(h, j, d); });
    });
    return found_everything;
  }

  // The first reach of a distance round with `them`: that of the probing side's objects.
  S first_reach(const Impl& them) const {
    FirstReach<S> reach;
    for_each_probe(them, [&](const Aabb<S>& aabb, const Impl&, auto) { reach.add(aabb); });
    return reach.get();
  }
};

template <typename S>
Manager<S>::Manager() : impl_(new Impl) {}

template <typename S>
Manager<S>::~Manager() = default;

template <typename S>
void Manager<S>::registerObjects(const std::vector<Object<S>*>& other_objs) {
  std::unordered_set<const Object<S>*> batch;
  for (const Object<S>* obj : other_objs) {
    require(obj != nullptr, "agrid::fcl::Manager::registerObjects: a null object");
    require(!impl_->registered(obj), "agrid::fcl::Manager::registerObjects: an object registered already");
    require(batch.insert(obj).second, "agrid::fcl::Manager::registerObjects: an object listed twice");
  }
  for (Object<S>* obj : other_objs) impl_->add(obj);
}

template <typename S>
void Manager<S>::registerObject(Object<S>* obj) {
  require(obj != nullptr, "agrid::fcl::Manager::registerObject: a null object");
  require(!impl_->registered(obj), "agrid::fcl::Manager::registerObject: an object registered already");
  impl_->add(obj);
}

template <typename S>
void Manager<S>::unregisterObject(Object<S>* obj) {
  const auto it = impl_->handles.find(obj);
  if (it != impl_->handles.end()) impl_->remove(it->second);
}

template <typename S>
void Manager<S>::setup() {}

template <typename S>
void Manager<S>::update() {
  impl_->for_each_live([&](Handle h) { impl_->reread(h); });
}

template <typename S>
void Manager<S>::update(Object<S>* updated_obj) {
  const auto it = impl_->handles.find(updated_obj);
  if (it != impl_->handles.end()) impl_->reread(it->second);
}

template <typename S>
void Manager<S>::update(const std::vector<Object<S>*>& updated_objs) {
  for (const Object<S>* obj : updated_objs) {
    const auto it = impl_->handles.find(obj);
    if (it != impl_->handles.end()) impl_->reread(it->second);
  }
}

template <typename S>
void Manager<S>::clear() {
  impl_.reset(new Impl);
}

template <typename S>
void Manager<S>::getObjects(std::vector<Object<S>*>& objs) const {
  objs.clear();
  objs.reserve(impl_->handles.size());
  impl_->for_each_live([&](Handle h) { objs.push_back(impl_->objects[h]); });
}

template <typename S>
void Manager<S>::collide(Object<S>* obj, void* cdata, ::fcl::CollisionCallBack<S> callback) const {
  require(obj != nullptr, "agrid::fcl::Manager::collide: a null object");
  require(callback != nullptr, "agrid::fcl::Manager::collide: a null callback");
  const Aabb<S>& aabb = obj->getAABB();
  if (!is_valid(aabb)) return;
  std::vector<Handle> found;
  impl_->for_each_overlapping(aabb, [&](Handle h) { found.push_back(h); });
  std::sort(found.begin(), found.end());
  for (const Handle h : found) {
    if (callback(obj, impl_->objects[h], cdata)) return;
  }
}

template <typename S>
void Manager<S>::distance(Object<S>* obj, void* cdata, ::fcl::DistanceCallBack<S> callback) const {
  require(obj != nullptr, "agrid::fcl::Manager::distance: a null object");
  require(callback != nullptr, "agrid::fcl::Manager::distance: a null callback");
  const Aabb<S>& aabb = obj->getAABB();
  if (!is_valid(aabb)) return;
  FirstReach<S> first_reach;
  first_reach.add(aabb);
  offer_nearest_in_rounds<S>(
      first_reach.get(),
      [&](S done, S reach, std::vector<Candidate<S>>& round) {
        return impl_->visit_within(aabb, done, reach, everywhere(), [&](Handle h, S d) { round.push_back({d, h, 0}); });
      },
      [&](const Candidate<S>& c) { return std::make_pair(obj, impl_->objects[c.first]); }, cdata, callback);
}

template <typename S>
void Manager<S>::collide(void* cdata, ::fcl::CollisionCallBack<S> callback) const {
  require(callback != nullptr, "agrid::fcl::Manager::collide: a null callback");
  for (const Pair& p : impl_->broadphase.read().pairs()) {
    if (!impl_->aabbs[p.first].overlap(impl_->aabbs[p.second])) continue;  // touching only as floats
    if (callback(impl_->objects[p.first], impl_->objects[p.second], cdata)) return;
  }
}

template <typename S>
void Manager<S>::distance(void* cdata, ::fcl::DistanceCallBack<S> callback) const {
  require(callback != nullptr, "agrid::fcl::Manager::distance: a null callback");
  const Impl& all = *impl_;
  offer_nearest_in_rounds<S>(
      all.first_reach(all),
      [&](S done, S reach, std::vector<Candidate<S>>& round) {
        return all.visit_within(all, done, reach, [&](Handle lower, Handle higher, S d) {
          if (lower < higher) round.push_back({d, lower, higher});
        });
      },
      [&](const Candidate<S>& c) { return std::make_pair(all.objects[c.first], all.objects[c.second]); }, cdata,
      callback);
}

template <typename S>
void Manager<S>::collide(::fcl::BroadPhaseCollisionManager<S>* other_manager, void* cdata,
                         ::fcl::CollisionCallBack<S> callback) const {
  require(other_manager != nullptr, "agrid::fcl::Manager::collide: a null manager");
  require(callback != nullptr, "agrid::fcl::Manager::collide: a null callback");
  if (other_manager == this) {
    collide(cdata, callback);
    return;
  }
  // (our number, their key) ascending: the key is the position in other->getObjects(), or for an
  // agrid manager its number, which orders getObjects() as well.
  std::vector<std::pair<Handle, std::uint32_t>> found;
  const auto offer = [&](auto their_object) {
    std::sort(found.begin(), found.end());
    for (const auto& [h, key] : found) {
      if (callback(impl_->objects[h], their_object(key), cdata)) return;
    }
  };
  if (const auto* agrid_other = dynamic_cast<const Manager*>(other_manager)) {
    const Impl& them = *agrid_other->impl_;
    impl_->for_each_overlapping(them, [&](Handle h, Handle t) { found.emplace_back(h, t); });
    offer([&](std::uint32_t t) { return them.objects[t]; });
    return;
  }
  std::vector<Object<S>*> theirs;
  other_manager->getObjects(theirs);
  impl_->for_each_overlapping(theirs, [&](Handle h, std::uint32_t j) { found.emplace_back(h, j); });
  offer([&](std::uint32_t j) { return theirs[j]; });
}

template <typename S>
void Manager<S>::distance(::fcl::BroadPhaseCollisionManager<S>* other_manager, void* cdata,
                          ::fcl::DistanceCallBack<S> callback) const {
  require(other_manager != nullptr, "agrid::fcl::Manager::distance: a null manager");
  require(callback != nullptr, "agrid::fcl::Manager::distance: a null callback");
  if (other_manager == this) {
    distance(cdata, callback);
    return;
  }
  // Candidates as in collide(other): (our number, their key).
  if (const auto* agrid_other = dynamic_cast<const Manager*>(other_manager)) {
    const Impl& them = *agrid_other->impl_;
    offer_nearest_in_rounds<S>(
        impl_->first_reach(them),
        [&](S done, S reach, std::vector<Candidate<S>>& round) {
          return impl_->visit_within(them, done, reach, [&](Handle h, Handle t, S d) { round.push_back({d, h, t}); });
        },
        [&](const Candidate<S>& c) { return std::make_pair(impl_->objects[c.first], them.objects[c.second]); }, cdata,
        callback);
    return;
  }
  std::vector<Object<S>*> theirs;
  other_manager->getObjects(theirs);
  FirstReach<S> first_reach;
  for (const Object<S>* obj : theirs) first_reach.add(obj->getAABB());
  offer_nearest_in_rounds<S>(
      first_reach.get(),
      [&](S done, S reach, std::vector<Candidate<S>>& round) {
        return impl_->visit_within(theirs, done, reach,
                                   [&](Handle h, std::uint32_t j, S d) { round.push_back({d, h, j}); });
      },
      [&](const Candidate<S>& c) { return std::make_pair(impl_->objects[c.first], theirs[c.second]); }, cdata,
      callback);
}

template <typename S>
bool Manager<S>::empty() const {
  return impl_->handles.empty();
}

template <typename S>
std::size_t Manager<S>::size() const {
  return impl_->handles.size();
}

template class Manager<float>;
template class Manager<double>;

}  // namespace fcl
}  // namespace agrid
