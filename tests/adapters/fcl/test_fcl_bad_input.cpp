// agrid::fcl::Manager on bad input: NaN, infinite and huge AABBs; objects registered twice, not
// registered, null; an empty manager. Each has a defined answer, never a crash or a lost pair.

#include <fcl/broadphase/broadphase_bruteforce.h>
#include <fcl/geometry/shape/halfspace.h>
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "agrid/fcl/manager.h"
#include "fcl_scene.h"

namespace agrid_fcl_test {
namespace {

template <typename S>
class FclBadInput : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FclBadInput, Scalars);

template <typename S>
std::vector<ObjectPair<S>> self_pairs(const fcl::BroadPhaseCollisionManager<S>& m) {
  return unordered<S>(collide_self(m));
}

template <typename S>
std::size_t involving(const std::vector<ObjectPair<S>>& pairs, const Object<S>* obj) {
  return static_cast<std::size_t>(std::count_if(pairs.begin(), pairs.end(),
                                                [&](const auto& p) { return p.first == obj || p.second == obj; }));
}

TYPED_TEST(FclBadInput, NanAabbPairsWithNothingUntilValidAgain) {
  using S = TypeParam;
  Scene<S> scene(1);
  auto objs = scene.lattice(3, 1, fcl::Vector3<S>(0, 0, 0));
  agrid::fcl::Manager<S> ours;
  fcl::NaiveCollisionManager<S> naive;
  ours.registerObjects(objs);
  naive.registerObjects(objs);
  const auto before = self_pairs(ours);
  ASSERT_EQ(before, self_pairs(naive));

  auto* center = static_cast<TestObject<S>*>(objs[4]);
  const fcl::AABB<S> valid = center->getAABB();
  const S nan = std::numeric_limits<S>::quiet_NaN();
  center->set_aabb(fcl::AABB<S>(fcl::Vector3<S>(nan, 0, 0), fcl::Vector3<S>(nan, 1, 1)));
  ours.update();
  const auto during = self_pairs(ours);
  EXPECT_EQ(involving<S>(during, center), 0u);
  EXPECT_EQ(during.size(), before.size() - involving<S>(before, center));
  // Queries with it and distances to it: nothing.
  CollideRecord<S> r;
  ours.collide(center, &r, &CollideRecord<S>::callback);
  EXPECT_EQ(r.calls, 0u);
  DistanceRecord<S> d;
  ours.distance(center, &d, &DistanceRecord<S>::callback);
  EXPECT_EQ(d.calls, 0u);
  DistanceRecord<S> all;
  ours.distance(&all, &DistanceRecord<S>::callback);
  EXPECT_GT(all.calls, 0u);

  center->set_aabb(valid);
  ours.update(center);
  EXPECT_EQ(self_pairs(ours), before);
}

TYPED_TEST(FclBadInput, InfiniteAndHugeAabbsAreValid) {
  using S = TypeParam;
  Scene<S> scene(2);
  auto objs = scene.random(40, S(10));
  // A half-space's AABB spans +-max() on its free axes; one whose AABB is infinite; one huge box.
  auto floor = std::make_shared<fcl::Halfspace<S>>(fcl::Vector3<S>(0, 0, 1), S(3));
  TestObject<S> halfspace(floor, fcl::Transform3<S>::Identity());
  halfspace.computeAABB();
  auto* infinite = scene.add(fcl::Vector3<S>(1, 1, 1), fcl::Vector3<S>(0, 0, 0));
  const S inf = std::numeric_limits<S>::infinity();
  infinite->set_aabb(fcl::AABB<S>(fcl::Vector3<S>(-inf, 4, -inf), fcl::Vector3<S>(inf, 5, inf)));
  auto* huge = scene.add(fcl::Vector3<S>(S(1e30), S(1e30), S(1)), fcl::Vector3<S>(0, 0, S(8)));
  objs.push_back(&halfspace);
  objs.push_back(infinite);
  objs.push_back(huge);
  agrid::fcl::Manager<S> ours;
  fcl::NaiveCollisionManager<S> naive;
  ours.registerObjects(objs);
  naive.registerObjects(objs);
  const auto pairs = self_pairs(ours);
  EXPECT_EQ(pairs, self_pairs(naive));
  EXPECT_GT(involving<S>(pairs, &halfspace), 0u);
  EXPECT_GT(involving<S>(pairs, infinite), 0u);
  EXPECT_GT(involving<S>(pairs, huge), 0u);
}

TYPED_TEST(FclBadInput, MisuseIsAnErrorOrANoOp) {
  using S = TypeParam;
  Scene<S> scene(3);
  auto objs = scene.lattice(2, 1, fcl::Vector3<S>(0, 0, 0));
  auto stranger = scene.random(1, S(1))[0];
  agrid::fcl::Manager<S> ours;
  ours.registerObjects({objs[0], objs[1]});
  const auto pairs = self_pairs(ours);
  ASSERT_EQ(pairs.size(), 1u);

  EXPECT_THROW(ours.registerObject(nullptr), std::invalid_argument);
  EXPECT_THROW(ours.registerObject(objs[0]), std::invalid_argument);
  EXPECT_THROW(ours.registerObjects({objs[2], objs[0]}), std::invalid_argument);  // one registered
  EXPECT_THROW(ours.registerObjects({objs[2], objs[2]}), std::invalid_argument);  // one twice
  EXPECT_THROW(ours.registerObjects({objs[2], nullptr}), std::invalid_argument);
  EXPECT_EQ(ours.size(), 2u) << "a refused batch adds none";
  EXPECT_EQ(self_pairs(ours), pairs);

  ours.unregisterObject(stranger);  // no-ops
  ours.unregisterObject(nullptr);
  ours.update(stranger);
  ours.update(static_cast<Object<S>*>(nullptr));
  ours.update(std::vector<Object<S>*>{stranger, nullptr});
  EXPECT_EQ(ours.size(), 2u);
  EXPECT_EQ(self_pairs(ours), pairs);

  CollideRecord<S> r;
  DistanceRecord<S> d;
  EXPECT_THROW(ours.collide(static_cast<Object<S>*>(nullptr), &r, &CollideRecord<S>::callback),
               std::invalid_argument);
  EXPECT_THROW(ours.distance(static_cast<Object<S>*>(nullptr), &d, &DistanceRecord<S>::callback),
               std::invalid_argument);
  EXPECT_THROW(ours.collide(static_cast<fcl::BroadPhaseCollisionManager<S>*>(nullptr), &r,
                            &CollideRecord<S>::callback),
               std::invalid_argument);
  EXPECT_THROW(ours.collide(&r, nullptr), std::invalid_argument);
  EXPECT_THROW(ours.distance(&d, nullptr), std::invalid_argument);

  // Removed and registered again: the same pairs.
  ours.unregisterObject(objs[0]);
  EXPECT_TRUE(self_pairs(ours).empty());
  ours.registerObject(objs[0]);
  EXPECT_EQ(self_pairs(ours), pairs);
  ours.clear();
  EXPECT_TRUE(ours.empty());
  ours.registerObjects(objs);
  EXPECT_EQ(self_pairs(ours).size(), 6u);
}

TYPED_TEST(FclBadInput, AnEmptyManagerAnswersEveryCall) {
  using S = TypeParam;
  Scene<S> scene(4);
  auto obj = scene.random(1, S(1))[0];
  agrid::fcl::Manager<S> ours, other;
  fcl::NaiveCollisionManager<S> naive;
  naive.registerObject(obj);
  ours.setup();
  ours.update();
  ours.update(std::vector<Object<S>*>{});
  ours.registerObjects({});
  EXPECT_TRUE(ours.empty());
  EXPECT_EQ(ours.size(), 0u);
  std::vector<Object<S>*> objs = {obj};
  ours.getObjects(objs);
  EXPECT_TRUE(objs.empty());
  CollideRecord<S> r;
  DistanceRecord<S> d;
  ours.collide(&r, &CollideRecord<S>::callback);
  ours.collide(obj, &r, &CollideRecord<S>::callback);
  ours.collide(&other, &r, &CollideRecord<S>::callback);
  ours.collide(&naive, &r, &CollideRecord<S>::callback);
  ours.distance(&d, &DistanceRecord<S>::callback);
  ours.distance(obj, &d, &DistanceRecord<S>::callback);
  ours.distance(&other, &d, &DistanceRecord<S>::callback);
  ours.distance(&naive, &d, &DistanceRecord<S>::callback);
  EXPECT_EQ(r.calls, 0u);
  EXPECT_EQ(d.calls, 0u);
}

}  // namespace
}  // namespace agrid_fcl_test
