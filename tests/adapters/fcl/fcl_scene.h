#pragma once
// Scenes of fcl::Box objects for the FCL adapter's tests, and callbacks that record what a
// manager offers, so that agrid::fcl::Manager can be compared with FCL's NaiveCollisionManager.

#include <fcl/broadphase/broadphase_collision_manager.h>
#include <fcl/geometry/shape/box.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <random>
#include <utility>
#include <vector>

namespace agrid_fcl_test {

template <typename S>
using Object = fcl::CollisionObject<S>;
template <typename S>
using ObjectPair = std::pair<Object<S>*, Object<S>*>;

/// A collision object whose AABB a test may set directly (an infinite one, a NaN).
template <typename S>
struct TestObject : fcl::CollisionObject<S> {
  using fcl::CollisionObject<S>::CollisionObject;
  void set_aabb(const fcl::AABB<S>& box) { this->aabb = box; }
  /// Sets the AABB's corners as given (fcl::AABB's constructor would sort them).
  void set_aabb_exactly(fcl::Vector3<S> min, fcl::Vector3<S> max) {
    this->aabb.min_ = min;
    this->aabb.max_ = max;
  }
};

/// Owns a scene's objects: boxes on a lattice, touching their neighbours, and random boxes.
template <typename S>
class Scene {
 public:
  explicit Scene(unsigned seed) : random_(seed) {}

  /// A box of the given size at `center`, its AABB computed.
  TestObject<S>* add(fcl::Vector3<S> size, fcl::Vector3<S> center) {
    auto geometry = std::make_shared<fcl::Box<S>>(size);
    fcl::Transform3<S> tf = fcl::Transform3<S>::Identity();
    tf.translation() = center;
    objects_.push_back(std::make_unique<TestObject<S>>(geometry, tf));
    objects_.back()->computeAABB();
    return objects_.back().get();
  }

  /// An n x n x m lattice of unit boxes whose faces touch exactly.
  std::vector<Object<S>*> lattice(int n, int m, fcl::Vector3<S> origin) {
    std::vector<Object<S>*> made;
    for (int x = 0; x < n; ++x)
      for (int y = 0; y < n; ++y)
        for (int z = 0; z < m; ++z)
          made.push_back(add(fcl::Vector3<S>(1, 1, 1), origin + fcl::Vector3<S>(S(x), S(y), S(z))));
    return made;
  }

  /// `count` boxes of random sizes in [0.2, 2) at random places in [0, extent)^3.
  std::vector<Object<S>*> random(int count, S extent) {
    std::vector<Object<S>*> made;
    for (int i = 0; i < count; ++i) made.push_back(add(random_size(), random_point(extent)));
    return made;
  }

  /// Moves the object to a random place in [0, extent)^3 and recomputes its AABB.
  void move(Object<S>* obj, S extent) {
    obj->setTranslation(random_point(extent));
    obj->computeAABB();
  }

  std::mt19937& rng() { return random_; }

 private:
  fcl::Vector3<S> random_point(S extent) {
    std::uniform_real_distribution<S> d(0, extent);
    return {d(random_), d(random_), d(random_)};
  }
  fcl::Vector3<S> random_size() {
    std::uniform_real_distribution<S> d(S(0.2), S(2));
    return {d(random_), d(random_), d(random_)};
  }

  std::mt19937 random_;
  std::vector<std::unique_ptr<TestObject<S>>> objects_;
};

/// What a collide call offered, in order; it asks to stop after `stop_after` pairs. With
/// `overlapping_only`, pairs whose AABBs do not overlap are not recorded (NaiveCollisionManager's
/// collide(obj) offers every object).
template <typename S>
struct CollideRecord {
  std::vector<ObjectPair<S>> offered;
  std::size_t stop_after = std::numeric_limits<std::size_t>::max();
  bool overlapping_only = false;
  std::size_t calls = 0;

  static bool callback(Object<S>* a, Object<S>* b, void* data) {
    auto* self = static_cast<CollideRecord*>(data);
    ++self->calls;
    if (self->overlapping_only && !a->getAABB().overlap(b->getAABB())) return false;
    self->offered.emplace_back(a, b);
    return self->offered.size() >= self->stop_after;
  }
};

/// What collide(self) offers, in order.
template <typename S>
std::vector<ObjectPair<S>> collide_self(const fcl::BroadPhaseCollisionManager<S>& m) {
  CollideRecord<S> r;
  m.collide(&r, &CollideRecord<S>::callback);
  return r.offered;
}

/// What collide(obj) offers of the pairs whose AABBs overlap, in order.
template <typename S>
std::vector<ObjectPair<S>> collide_one(const fcl::BroadPhaseCollisionManager<S>& m, Object<S>* obj) {
  CollideRecord<S> r;
  r.overlapping_only = true;
  m.collide(obj, &r, &CollideRecord<S>::callback);
  return r.offered;
}

/// What collide(other) offers, in order.
template <typename S>
std::vector<ObjectPair<S>> collide_other(const fcl::BroadPhaseCollisionManager<S>& m,
                                         fcl::BroadPhaseCollisionManager<S>& other) {
  CollideRecord<S> r;
  m.collide(&other, &r, &CollideRecord<S>::callback);
  return r.offered;
}

/// The pairs as a sorted list of unordered pairs (each (lower address, higher address)).
template <typename S>
std::vector<ObjectPair<S>> unordered(std::vector<ObjectPair<S>> pairs) {
  for (auto& p : pairs)
    if (std::less<>{}(p.second, p.first)) std::swap(p.first, p.second);
  std::sort(pairs.begin(), pairs.end(), std::less<>{});
  return pairs;
}

/// The pairs as a sorted list of ordered pairs.
template <typename S>
std::vector<ObjectPair<S>> sorted(std::vector<ObjectPair<S>> pairs) {
  std::sort(pairs.begin(), pairs.end(), std::less<>{});
  return pairs;
}

/// What a distance call offers when its callback never prunes: every pair, in order.
template <typename S>
struct EveryPair {
  std::vector<ObjectPair<S>> offered;
  static bool callback(Object<S>* a, Object<S>* b, void* data, S&) {
    static_cast<EveryPair*>(data)->offered.emplace_back(a, b);
    return false;  // dist untouched: nothing is pruned
  }
};

template <typename S>
bool is_valid_aabb(const fcl::AABB<S>& a) {
  return a.min_[0] <= a.max_[0] && a.min_[1] <= a.max_[1] && a.min_[2] <= a.max_[2];
}

/// Whether both AABBs are valid and overlap (by fcl::AABB::overlap): a pair collide offers.
template <typename S>
bool overlapping(Object<S>* a, Object<S>* b) {
  return is_valid_aabb(a->getAABB()) && is_valid_aabb(b->getAABB()) && a->getAABB().overlap(b->getAABB());
}

/// Every pair (ours[i], theirs[j]) for which `keep` holds, ascending by (i, j); pairs of one list
/// with itself (`self`) once, as (lower, higher): collide's order, by brute force.
template <typename S, typename Keep>
std::vector<ObjectPair<S>> brute_force(const std::vector<Object<S>*>& ours, const std::vector<Object<S>*>& theirs,
                                       bool self, Keep keep) {
  std::vector<ObjectPair<S>> pairs;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    for (std::size_t j = self ? i + 1 : 0; j < theirs.size(); ++j) {
      if (keep(ours[i], theirs[j])) pairs.emplace_back(ours[i], theirs[j]);
    }
  }
  return pairs;
}

/// The numbers agrid::fcl::Manager gives its objects, kept by hand: in the order they come, the
/// lowest free number taken again after an unregisterObject.
template <typename S>
class Numbering {
 public:
  void add(Object<S>* obj) {
    const auto free = std::find(by_number_.begin(), by_number_.end(), nullptr);
    if (free != by_number_.end()) {
      *free = obj;
    } else {
      by_number_.push_back(obj);
    }
  }
  void remove(Object<S>* obj) { *std::find(by_number_.begin(), by_number_.end(), obj) = nullptr; }
  /// The registered objects by ascending number: what getObjects() lists.
  std::vector<Object<S>*> registered() const {
    std::vector<Object<S>*> r;
    for (Object<S>* o : by_number_)
      if (o != nullptr) r.push_back(o);
    return r;
  }

 private:
  std::vector<Object<S>*> by_number_;  ///< Null where a number is free.
};

/// Whether NaiveCollisionManager, with a callback that never prunes, offers (a, b): their AABB
/// distance is below the largest S (so not infinite, not NaN); and whether agrid's manager does:
/// that, and both AABBs valid (an invalid one pairs with nothing).
template <typename S>
bool offered_unpruned(Object<S>* a, Object<S>* b) {
  return is_valid_aabb(a->getAABB()) && is_valid_aabb(b->getAABB()) &&
         a->getAABB().distance(b->getAABB()) < std::numeric_limits<S>::max();
}

/// A stand-in narrowphase distance: the AABB distance plus up to half a unit that depends on where
/// the two boxes are, the same for (a, b) and (b, a). Never below the AABB distance, as a true
/// narrowphase distance, and not always least for the nearest AABBs, so pruning is put to the test
/// (FCL's fcl::distance would instantiate its whole narrowphase: minutes and gigabytes to compile
/// under ASan).
template <typename S>
S narrowphase_distance(Object<S>* a, Object<S>* b) {
  const fcl::Vector3<S> centres = a->getAABB().center() + b->getAABB().center();
  const S wave = std::sin(centres[0] + S(2) * centres[1] + S(3) * centres[2]);
  return a->getAABB().distance(b->getAABB()) + S(0.25) * (1 + wave);
}

/// The smallest distance a distance call found, by narrowphase_distance on each offered pair; it
/// never stops the walk, and returns the best distance so far for pruning.
template <typename S>
struct DistanceRecord {
  S best = std::numeric_limits<S>::max();
  std::size_t calls = 0;
  std::vector<S> aabb_distances;  ///< The offered pairs' AABB distances, in order.

  static bool callback(Object<S>* a, Object<S>* b, void* data, S& dist) {
    auto* self = static_cast<DistanceRecord*>(data);
    ++self->calls;
    self->aabb_distances.push_back(a->getAABB().distance(b->getAABB()));
    self->best = std::min(self->best, narrowphase_distance(a, b));
    dist = self->best;
    return false;
  }
};

}  // namespace agrid_fcl_test
