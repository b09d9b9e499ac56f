// agrid::fcl::Manager: FCL's broadphase interface on agrid::Broadphase. The Broadphase is brought
// up to date (update(), then pairs()) by every call that changes it, so the const calls only read.

#include "agrid/fcl/manager.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "agrid/broadphase.h"
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

// The float box holding the AABB (rounded outward: no overlap is lost; the exact test in S
// follows). A NaN stays a NaN, so the box is invalid and pairs with nothing.
template <typename S>
Box to_box(const Aabb<S>& a) {
  return Box{{lower(a.min_[0]), lower(a.min_[1]), lower(a.min_[2])},
             {upper(a.max_[0]), upper(a.max_[1]), upper(a.max_[2])}};
}

// No NaN and min <= max on every axis. fcl::AABB::overlap and ::distance treat a NaN as
// overlapping (every comparison false): such an AABB is kept out of every answer instead.
template <typename S>
bool is_valid(const Aabb<S>& a) {
  return a.min_[0] <= a.max_[0] && a.min_[1] <= a.max_[1] && a.min_[2] <= a.max_[2];
}

template <typename S>
bool same(const Aabb<S>& a, const Aabb<S>& b) {
  return a.min_ == b.min_ && a.max_ == b.max_;
}

void require(bool condition, const char* what) {
  if (!condition) throw std::invalid_argument(what);
}

// A pair of the distance calls: AABB distance first, then the collide order.
template <typename S>
struct Candidate {
  S distance;
  Handle ours;
  std::uint32_t theirs;
  bool operator<(const Candidate& o) const {
    return std::tie(distance, ours, theirs) < std::tie(o.distance, o.ours, o.theirs);
  }
};

// Offers the candidates nearest first until the next is not nearer than the best distance the
// callback has given (NaiveCollisionManager's test, `distance < min_dist`, in order).
// `min_dist` is the best so far, kept across calls; true iff the walk is over (the callback
// said stop, or the next candidate is not nearer than the best).
template <typename S, typename First, typename Second>
bool offer_nearest(std::vector<Candidate<S>>& candidates, First first, Second second, void* cdata,
                   ::fcl::DistanceCallBack<S> callback, S& min_dist) {
  std::sort(candidates.begin(), candidates.end());
  for (const Candidate<S>& c : candidates) {
    if (!(c.distance < min_dist)) return true;
    if (callback(first(c), second(c), cdata, min_dist)) return true;
  }
  return false;
}

template <typename S>
S largest_extent(const Aabb<S>& a) {
  return std::max({a.max_[0] - a.min_[0], a.max_[1] - a.min_[1], a.max_[2] - a.min_[2]});
}

// The AABB grown by `margin` on every side.
template <typename S>
Aabb<S> grown(const Aabb<S>& a, S margin) {
  const ::fcl::Vector3<S> m(margin, margin, margin);
  return Aabb<S>(a.min_ - m, a.max_ + m);
}

}  // namespace

template <typename S>
struct Manager<S>::Impl {
  Broadphase broadphase;
  std::vector<Object<S>*> objects;  ///< By handle; null where free.
  std::vector<Aabb<S>> aabbs;       ///< By handle: each object's AABB as last read.
  std::unordered_map<const Object<S>*, Handle> handles;

  bool registered(const Object<S>* obj) const { return handles.count(obj) != 0; }

  void add(Object<S>* obj) {
    const Aabb<S>& aabb = obj->getAABB();
    const Handle h = broadphase.create(to_box(aabb));
    if (h >= objects.size()) {
      objects.resize(h + std::size_t{1}, nullptr);
      aabbs.resize(h + std::size_t{1});
    }
    objects[h] = obj;
    aabbs[h] = aabb;
    handles.emplace(obj, h);
  }

  void reread(Handle h) {
    const Aabb<S>& aabb = objects[h]->getAABB();
    if (same(aabb, aabbs[h])) return;
    aabbs[h] = aabb;
    broadphase.set_box(h, to_box(aabb));
  }

  // Brings the pairs up to date now, so that the const calls find them current.
  void settle() {
    broadphase.update();
    (void)broadphase.pairs();
  }

  template <typename Visit>
  void for_each_live(Visit visit) const {
    for (Handle h = 0; h < objects.size(); ++h) {
      if (objects[h] != nullptr) visit(h);
    }
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
  impl_->settle();
}

template <typename S>
void Manager<S>::registerObject(Object<S>* obj) {
  require(obj != nullptr, "agrid::fcl::Manager::registerObject: a null object");
  require(!impl_->registered(obj), "agrid::fcl::Manager::registerObject: an object registered already");
  impl_->add(obj);
  impl_->settle();
}

template <typename S>
void Manager<S>::unregisterObject(Object<S>* obj) {
  const auto it = impl_->handles.find(obj);
  if (it == impl_->handles.end()) return;
  const Handle h = it->second;
  impl_->handles.erase(it);
  impl_->objects[h] = nullptr;
  impl_->broadphase.remove(h);
  impl_->settle();
}

template <typename S>
void Manager<S>::setup() {}

template <typename S>
void Manager<S>::update() {
  impl_->for_each_live([&](Handle h) { impl_->reread(h); });
  impl_->settle();
}

template <typename S>
void Manager<S>::update(Object<S>* updated_obj) {
  const auto it = impl_->handles.find(updated_obj);
  if (it == impl_->handles.end()) return;
  impl_->reread(it->second);
  impl_->settle();
}

template <typename S>
void Manager<S>::update(const std::vector<Object<S>*>& updated_objs) {
  for (const Object<S>* obj : updated_objs) {
    const auto it = impl_->handles.find(obj);
    if (it != impl_->handles.end()) impl_->reread(it->second);
  }
  impl_->settle();
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
  impl_->broadphase.query(to_box(aabb), found);
  for (const Handle h : found) {
    if (aabb.overlap(impl_->aabbs[h]) && callback(obj, impl_->objects[h], cdata)) return;
  }
}

template <typename S>
void Manager<S>::distance(Object<S>* obj, void* cdata, ::fcl::DistanceCallBack<S> callback) const {
  require(obj != nullptr, "agrid::fcl::Manager::distance: a null object");
  require(callback != nullptr, "agrid::fcl::Manager::distance: a null callback");
  const Aabb<S>& aabb = obj->getAABB();
  if (!is_valid(aabb)) return;
  const auto first = [&](const Candidate<S>&) { return obj; };
  const auto second = [&](const Candidate<S>& c) { return impl_->objects[c.ours]; };
  // Rounds of widening box queries, nearest first across rounds: a round offers the objects
  // whose AABB distance lies in [done, reach), found by a query grown by twice the reach (so that
  // no rounding of the distance hides one), and ends the walk once the best distance is within
  // the reach (every object not offered is farther) or every valid object was offered. The first
  // reach is the box's largest extent (1 for a point).
  const BroadphaseStats stats = impl_->broadphase.stats();
  const std::size_t valid_objects = stats.objects - stats.invalid;
  const S extent = largest_extent(aabb);
  S reach = extent > 0 ? extent : S(1);
  S done = 0;
  S min_dist = std::numeric_limits<S>::max();
  std::vector<Handle> found;
  std::vector<Candidate<S>> round;
  while (std::isfinite(2 * reach)) {
    impl_->broadphase.query(to_box(grown(aabb, 2 * reach)), found);
    bool all_offered = found.size() == valid_objects;
    round.clear();
    for (const Handle h : found) {
      if (!is_valid(impl_->aabbs[h])) continue;
      const S d = aabb.distance(impl_->aabbs[h]);
      if (!(d < reach)) {
        all_offered = false;
      } else if (d >= done) {
        round.push_back({d, h, 0});
      }
    }
    if (offer_nearest<S>(round, first, second, cdata, callback, min_dist)) return;
    if (all_offered || min_dist <= reach) return;
    done = reach;
    reach *= 2;
  }
  // A reach too large for a finite query (an infinite box, or objects far beyond the floats'
  // range): the rest by a scan of every object.
  round.clear();
  impl_->for_each_live([&](Handle h) {
    if (!is_valid(impl_->aabbs[h])) return;
    const S d = aabb.distance(impl_->aabbs[h]);
    if (d >= done) round.push_back({d, h, 0});
  });
  (void)offer_nearest<S>(round, first, second, cdata, callback, min_dist);
}

template <typename S>
void Manager<S>::collide(void* cdata, ::fcl::CollisionCallBack<S> callback) const {
  require(callback != nullptr, "agrid::fcl::Manager::collide: a null callback");
  for (const Pair& p : impl_->broadphase.pairs()) {
    if (!impl_->aabbs[p.first].overlap(impl_->aabbs[p.second])) continue;  // touching only as floats
    if (callback(impl_->objects[p.first], impl_->objects[p.second], cdata)) return;
  }
}

template <typename S>
void Manager<S>::distance(void* cdata, ::fcl::DistanceCallBack<S> callback) const {
  require(callback != nullptr, "agrid::fcl::Manager::distance: a null callback");
  std::vector<Handle> valid;
  impl_->for_each_live([&](Handle h) {
    if (is_valid(impl_->aabbs[h])) valid.push_back(h);
  });
  std::vector<Candidate<S>> candidates;
  for (std::size_t i = 0; i < valid.size(); ++i) {
    for (std::size_t j = i + 1; j < valid.size(); ++j) {
      candidates.push_back({impl_->aabbs[valid[i]].distance(impl_->aabbs[valid[j]]), valid[i], valid[j]});
    }
  }
  S min_dist = std::numeric_limits<S>::max();
  (void)offer_nearest<S>(
      candidates, [&](const Candidate<S>& c) { return impl_->objects[c.ours]; },
      [&](const Candidate<S>& c) { return impl_->objects[c.theirs]; }, cdata, callback, min_dist);
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
  std::vector<Object<S>*> theirs;
  other_manager->getObjects(theirs);
  std::vector<std::pair<Handle, std::uint32_t>> found;
  std::vector<Handle> hits;
  for (std::uint32_t j = 0; j < theirs.size(); ++j) {
    const Aabb<S>& aabb = theirs[j]->getAABB();
    if (!is_valid(aabb)) continue;
    impl_->broadphase.query(to_box(aabb), hits);
    for (const Handle h : hits) {
      if (impl_->aabbs[h].overlap(aabb)) found.emplace_back(h, j);
    }
  }
  std::sort(found.begin(), found.end());
  for (const auto& [h, j] : found) {
    if (callback(impl_->objects[h], theirs[j], cdata)) return;
  }
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
  std::vector<Object<S>*> theirs;
  other_manager->getObjects(theirs);
  std::vector<Candidate<S>> candidates;
  for (std::uint32_t j = 0; j < theirs.size(); ++j) {
    const Aabb<S>& aabb = theirs[j]->getAABB();
    if (!is_valid(aabb)) continue;
    impl_->for_each_live([&](Handle h) {
      if (is_valid(impl_->aabbs[h])) candidates.push_back({impl_->aabbs[h].distance(aabb), h, j});
    });
  }
  S min_dist = std::numeric_limits<S>::max();
  (void)offer_nearest<S>(
      candidates, [&](const Candidate<S>& c) { return impl_->objects[c.ours]; },
      [&](const Candidate<S>& c) { return theirs[c.theirs]; }, cdata, callback, min_dist);
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
