// agrid::fcl::Manager: FCL's broadphase interface on agrid::Broadphase. The Broadphase is brought
// up to date (update(), then pairs()) by every call that changes it, so the const calls only read.

#include "agrid/fcl/manager.h"

#include <algorithm>
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
template <typename S, typename First, typename Second>
void offer_nearest(std::vector<Candidate<S>>& candidates, First first, Second second, void* cdata,
                   ::fcl::DistanceCallBack<S> callback) {
  std::sort(candidates.begin(), candidates.end());
  S min_dist = std::numeric_limits<S>::max();
  for (const Candidate<S>& c : candidates) {
    if (!(c.distance < min_dist)) return;
    if (callback(first(c), second(c), cdata, min_dist)) return;
  }
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
  std::vector<Candidate<S>> candidates;
  impl_->for_each_live([&](Handle h) {
    if (is_valid(impl_->aabbs[h])) candidates.push_back({aabb.distance(impl_->aabbs[h]), h, 0});
  });
  offer_nearest<S>(
      candidates, [&](const Candidate<S>&) { return obj; },
      [&](const Candidate<S>& c) { return impl_->objects[c.ours]; }, cdata, callback);
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
  offer_nearest<S>(
      candidates, [&](const Candidate<S>& c) { return impl_->objects[c.ours]; },
      [&](const Candidate<S>& c) { return impl_->objects[c.theirs]; }, cdata, callback);
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
  offer_nearest<S>(
      candidates, [&](const Candidate<S>& c) { return impl_->objects[c.ours]; },
      [&](const Candidate<S>& c) { return theirs[c.theirs]; }, cdata, callback);
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
