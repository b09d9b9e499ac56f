#pragma once
// agrid::fcl::Manager: agrid as an FCL broadphase, a drop-in for fcl::DynamicAABBTreeCollisionManager.
//
// This header compiles as C++14, 17 and 20, as FCL 0.7's own headers do: the library behind it
// is C++20 and compiled already, and this class only holds a pointer to it.

#include <fcl/broadphase/broadphase_collision_manager.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace agrid {
namespace fcl {

/// FCL's BroadPhaseCollisionManager on agrid::Broadphase (S = float or double): replace
/// `new fcl::DynamicAABBTreeCollisionManager<S>()` with `new agrid::fcl::Manager<S>()`.
///
/// * Each object's box is its `getAABB()` when it is registered or updated (call
///   `computeAABB()` after `setTransform()`, as with FCL's managers); update() re-reads every
///   object's AABB and costs what changed, update(obj) and update(objs) those objects only.
/// * Objects are numbered in the order they come (the lowest free number is reused after an
///   unregisterObject); getObjects() lists them in that order.
/// * collide() offers exactly the pairs whose AABBs overlap by fcl::AABB::overlap (touching
///   included), each once, until the callback returns true: collide(cdata, f) as
///   f(lower, higher) ascending by (lower, higher) number; collide(obj, ...) as f(obj, other)
///   for the registered objects overlapping obj in ascending number, obj itself included when it
///   is registered (as NaiveCollisionManager); collide(other, ...) as f(ours, theirs) ascending by
///   (our number, position in other->getObjects()), or collide(cdata, f) when other is this;
///   against another agrid manager, the smaller one's objects query the larger one; against a
///   manager of another type, the objects of other->getObjects() query this one (those outside
///   the bounds of this one's objects skipped by one box test when this one holds fewer).
/// * distance() offers the pairs nearest first by AABB distance (ties by the same order as
///   collide), passing the best distance so far (initially the largest S), and stops once the
///   next pair's AABB distance is not below it or the callback returns true: the same minimum
///   as NaiveCollisionManager. Each distance call asks agrid for boxes around its probes (obj,
///   every object, or other's objects) in rounds of widening reach, the first finding the
///   overlapping pairs, until the best distance is within the reach (docs/fcl.md).
/// * An AABB with a NaN pairs with nothing (in collide and distance) until it is valid again;
///   infinite and huge AABBs are valid (rounded outward to floats: no pair is lost).
/// * Misuse: registering a null object or one already registered throws std::invalid_argument
///   (registerObjects checks every object before adding any); unregisterObject and update of an
///   object that is not registered (or null) do nothing, as FCL's managers; collide and
///   distance with a null object, manager or callback throw std::invalid_argument.
/// * A call that changes the manager hands its change to agrid in O(1) and leaves agrid's update
///   (which costs what changed) to the first const call after it, which makes it under a lock,
///   or to a registration after a removal (to take the number freed): a loop of registerObject
///   costs what one registerObjects does. agrid's list of every pair is made only when
///   collide(cdata, f) asks. The const calls are safe from several threads at once while no other
///   call runs. setup() does nothing.
template <typename S>
class Manager final : public ::fcl::BroadPhaseCollisionManager<S> {
 public:
  /// An empty manager.
  Manager();
  ~Manager() override;
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  /// Adds the objects in one batch; throws std::invalid_argument, adding none, if one is null,
  /// listed twice or registered already.
  void registerObjects(const std::vector<::fcl::CollisionObject<S>*>& other_objs) override;
  /// Adds the object (O(1), agrid's update left to the next query); throws std::invalid_argument
  /// if it is null or registered already.
  void registerObject(::fcl::CollisionObject<S>* obj) override;
  /// Removes the object (O(1), agrid's update left to the next query or registration); does
  /// nothing if it is not registered.
  void unregisterObject(::fcl::CollisionObject<S>* obj) override;
  /// Does nothing: the first query after a change brings the manager up to date.
  void setup() override;
  /// Re-reads every object's AABB; unchanged ones cost a comparison.
  void update() override;
  /// Re-reads the object's AABB; does nothing if it is not registered.
  void update(::fcl::CollisionObject<S>* updated_obj) override;
  /// Re-reads these objects' AABBs; those not registered are skipped.
  void update(const std::vector<::fcl::CollisionObject<S>*>& updated_objs) override;
  /// Removes every object.
  void clear() override;
  /// Replaces `objs` with the registered objects, in ascending number.
  void getObjects(std::vector<::fcl::CollisionObject<S>*>& objs) const override;
  /// Offers (obj, o) for each registered o whose AABB overlaps obj's, ascending.
  void collide(::fcl::CollisionObject<S>* obj, void* cdata, ::fcl::CollisionCallBack<S> callback) const override;
  /// Offers (obj, o) for the registered objects, nearest first, pruned by the best distance.
  void distance(::fcl::CollisionObject<S>* obj, void* cdata, ::fcl::DistanceCallBack<S> callback) const override;
  /// Offers each overlapping pair of registered objects once, as (lower, higher), ascending.
  void collide(void* cdata, ::fcl::CollisionCallBack<S> callback) const override;
  /// Offers the pairs of registered objects, nearest first, pruned by the best distance.
  void distance(void* cdata, ::fcl::DistanceCallBack<S> callback) const override;
  /// Offers (ours, theirs) for each overlapping pair; collide(cdata, callback) if other is this.
  void collide(::fcl::BroadPhaseCollisionManager<S>* other_manager, void* cdata,
               ::fcl::CollisionCallBack<S> callback) const override;
  /// Offers (ours, theirs) nearest first, pruned; distance(cdata, callback) if other is this.
  void distance(::fcl::BroadPhaseCollisionManager<S>* other_manager, void* cdata,
                ::fcl::DistanceCallBack<S> callback) const override;
  /// True iff no object is registered.
  bool empty() const override;
  /// The number of registered objects.
  std::size_t size() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

extern template class Manager<float>;
extern template class Manager<double>;

}  // namespace fcl
}  // namespace agrid
