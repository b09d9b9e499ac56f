// agrid::fcl::Manager against FCL's NaiveCollisionManager (FCL's brute force) for every method
// and both scalars: random scenes with a lattice of touching boxes, objects added, moved and
// removed between calls, early stops, managers of other types, order across calls and threads.

#include <fcl/broadphase/broadphase_bruteforce.h>
#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <thread>

#include "agrid/fcl/manager.h"
#include "fcl_scene.h"

namespace agrid_fcl_test {
namespace {

template <typename S>
class FclManager : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FclManager, Scalars);

// Each object's position in getObjects(): agrid's order of numbers.
template <typename S>
std::map<Object<S>*, std::size_t> ranks(const agrid::fcl::Manager<S>& m) {
  std::vector<Object<S>*> objs;
  m.getObjects(objs);
  std::map<Object<S>*, std::size_t> rank;
  for (std::size_t i = 0; i < objs.size(); ++i) rank[objs[i]] = i;
  return rank;
}

// collide(self) offers (lower, higher) by number, ascending.
template <typename S>
void expect_self_order(const agrid::fcl::Manager<S>& m, const std::vector<ObjectPair<S>>& offered) {
  const auto rank = ranks(m);
  std::vector<std::pair<std::size_t, std::size_t>> keys;
  for (const auto& [a, b] : offered) keys.emplace_back(rank.at(a), rank.at(b));
  for (const auto& [a, b] : keys) EXPECT_LT(a, b);
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
}

template <typename S>
S tolerance() {
  return std::is_same_v<S, float> ? S(1e-4) : S(1e-9);
}

template <typename S>
void expect_same_distance(const fcl::BroadPhaseCollisionManager<S>& ours,
                          const fcl::BroadPhaseCollisionManager<S>& naive, Object<S>* obj) {
  DistanceRecord<S> a, b;
  if (obj != nullptr) {
    ours.distance(obj, &a, &DistanceRecord<S>::callback);
    naive.distance(obj, &b, &DistanceRecord<S>::callback);
  } else {
    ours.distance(&a, &DistanceRecord<S>::callback);
    naive.distance(&b, &DistanceRecord<S>::callback);
  }
  EXPECT_NEAR(a.best, b.best, tolerance<S>() * (1 + b.best));
  // Nearest first: the AABB distances offered do not decrease.
  EXPECT_TRUE(std::is_sorted(a.aabb_distances.begin(), a.aabb_distances.end()));
  EXPECT_LE(a.calls, b.calls + 1);
}

// Ours and Naive hold the same objects; every method answers the same.
template <typename S>
void expect_same(const agrid::fcl::Manager<S>& ours, const fcl::NaiveCollisionManager<S>& naive,
                 const std::vector<Object<S>*>& probes) {
  ASSERT_EQ(ours.size(), naive.size());
  ASSERT_EQ(ours.empty(), naive.empty());
  std::vector<Object<S>*> a, b;
  ours.getObjects(a);
  naive.getObjects(b);
  std::sort(a.begin(), a.end(), std::less<>{});
  std::sort(b.begin(), b.end(), std::less<>{});
  EXPECT_EQ(a, b);

  const auto offered = collide_self(ours);
  EXPECT_EQ(unordered<S>(offered), unordered<S>(collide_self(naive)));
  expect_self_order(ours, offered);
  EXPECT_EQ(offered, collide_self(ours)) << "the same order on every call";

  const auto rank = ranks(ours);
  for (Object<S>* probe : probes) {
    const auto found = collide_one(ours, probe);
    EXPECT_EQ(sorted<S>(found), sorted<S>(collide_one(naive, probe)));
    for (std::size_t i = 0; i < found.size(); ++i) {
      EXPECT_EQ(found[i].first, probe);
      if (i > 0) {
        EXPECT_LT(rank.at(found[i - 1].second), rank.at(found[i].second));
      }
    }
    expect_same_distance<S>(ours, naive, probe);
  }
  expect_same_distance<S>(ours, naive, nullptr);
}

TYPED_TEST(FclManager, MatchesNaiveAsObjectsComeMoveAndGo) {
  using S = TypeParam;
  Scene<S> scene(7);
  auto lattice = scene.lattice(4, 3, fcl::Vector3<S>(S(2), S(2), S(2)));
  auto loose = scene.random(60, S(12));
  std::vector<Object<S>*> all = lattice;
  all.insert(all.end(), loose.begin(), loose.end());

  agrid::fcl::Manager<S> ours;
  fcl::NaiveCollisionManager<S> naive;
  ours.registerObjects(lattice);  // one batch
  naive.registerObjects(lattice);
  for (Object<S>* obj : loose) {
    ours.registerObject(obj);
    naive.registerObject(obj);
  }
  ours.setup();
  naive.setup();
  auto unregistered = scene.random(3, S(12));
  std::vector<Object<S>*> probes = {all[0], all[17], all[50], all.back(), unregistered[0]};
  expect_same(ours, naive, probes);

  std::vector<Object<S>*> live = all;
  for (int round = 0; round < 6; ++round) {
    // Move some, remove some, add some; then update() (and update(objs) in odd rounds).
    std::vector<Object<S>*> moved;
    for (std::size_t i = round; i < live.size(); i += 7) {
      scene.move(live[i], S(12));
      moved.push_back(live[i]);
    }
    if (round % 2 == 0) {
      ours.update();
    } else {
      ours.update(moved);
    }
    naive.update();
    for (int k = 0; k < 3 && !live.empty(); ++k) {
      const std::size_t at = scene.rng()() % live.size();
      ours.unregisterObject(live[at]);
      naive.unregisterObject(live[at]);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(at));
    }
    for (Object<S>* obj : scene.random(4, S(12))) {
      ours.registerObject(obj);
      naive.registerObject(obj);
      live.push_back(obj);
    }
    expect_same(ours, naive, {live.front(), live[live.size() / 2], live.back(), unregistered[1]});
  }
}

TYPED_TEST(FclManager, UpdateOfOneObjectReadsThatObjectOnly) {
  using S = TypeParam;
  Scene<S> scene(3);
  auto objs = scene.lattice(2, 1, fcl::Vector3<S>(0, 0, 0));  // 4 boxes touching in a square
  agrid::fcl::Manager<S> ours;
  ours.registerObjects(objs);
  EXPECT_EQ(collide_self(ours).size(), 6u);  // edges touch diagonally too
  objs[0]->setTranslation(fcl::Vector3<S>(50, 0, 0));
  objs[0]->computeAABB();
  objs[1]->setTranslation(fcl::Vector3<S>(60, 0, 0));
  objs[1]->computeAABB();
  EXPECT_EQ(collide_self(ours).size(), 6u) << "the AABBs as last read";
  ours.update(objs[0]);
  EXPECT_EQ(collide_self(ours).size(), 3u);
  ours.update(std::vector<Object<S>*>{objs[1]});
  EXPECT_EQ(collide_self(ours).size(), 1u);
}

TYPED_TEST(FclManager, EarlyStopOffersTheFirstPairsExactly) {
  using S = TypeParam;
  Scene<S> scene(11);
  auto objs = scene.lattice(3, 3, fcl::Vector3<S>(0, 0, 0));
  agrid::fcl::Manager<S> ours;
  ours.registerObjects(objs);
  const auto all = collide_self(ours);
  ASSERT_GT(all.size(), 10u);
  const auto against = collide_one(ours, objs[13]);
  ASSERT_GT(against.size(), 5u);
  for (std::size_t k = 1; k <= 5; ++k) {
    CollideRecord<S> r;
    r.stop_after = k;
    ours.collide(&r, &CollideRecord<S>::callback);
    EXPECT_EQ(r.calls, k);
    EXPECT_EQ(r.offered, std::vector<ObjectPair<S>>(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k)));
    CollideRecord<S> one;
    one.stop_after = k;
    ours.collide(objs[13], &one, &CollideRecord<S>::callback);
    EXPECT_EQ(one.calls, k);
    EXPECT_EQ(one.offered,
              std::vector<ObjectPair<S>>(against.begin(), against.begin() + static_cast<std::ptrdiff_t>(k)));
  }
}

// A manager against managers of other types, both ways round: (this object, other object).
TYPED_TEST(FclManager, CollidesAndMeasuresAgainstOtherManagers) {
  using S = TypeParam;
  Scene<S> scene(5);
  auto xs = scene.lattice(3, 2, fcl::Vector3<S>(0, 0, 0));
  auto more = scene.random(30, S(8));
  xs.insert(xs.end(), more.begin(), more.end());
  auto ys = scene.lattice(3, 2, fcl::Vector3<S>(S(2), S(1), S(1)));  // touching and overlapping xs
  more = scene.random(60, S(8));  // more than xs: each side is the smaller one in one direction
  ys.insert(ys.end(), more.begin(), more.end());

  for (int direction = 0; direction < 2; ++direction) {
    const auto& mine = direction == 0 ? xs : ys;
    const auto& theirs = direction == 0 ? ys : xs;
    agrid::fcl::Manager<S> ours, ours_other;
    fcl::NaiveCollisionManager<S> naive, naive_other;
    fcl::DynamicAABBTreeCollisionManager<S> tree_other;
    ours.registerObjects(mine);
    naive.registerObjects(mine);
    ours_other.registerObjects(theirs);
    naive_other.registerObjects(theirs);
    tree_other.registerObjects(theirs);
    tree_other.setup();

    const auto expected = sorted<S>(collide_other(naive, naive_other));
    ASSERT_FALSE(expected.empty());
    std::vector<fcl::BroadPhaseCollisionManager<S>*> others = {&naive_other, &tree_other, &ours_other};
    for (auto* other : others) {
      const auto offered = collide_other(ours, *other);
      EXPECT_EQ(sorted<S>(offered), expected);
      EXPECT_EQ(offered, collide_other(ours, *other)) << "the same order on every call";
      DistanceRecord<S> a, b;
      ours.distance(other, &a, &DistanceRecord<S>::callback);
      naive.distance(&naive_other, &b, &DistanceRecord<S>::callback);
      EXPECT_NEAR(a.best, b.best, tolerance<S>() * (1 + b.best));
    }
    // Against itself: collide(self), as NaiveCollisionManager.
    EXPECT_EQ(collide_other(ours, ours), collide_self(ours));
    DistanceRecord<S> a, b;
    ours.distance(&ours, &a, &DistanceRecord<S>::callback);
    naive.distance(&naive, &b, &DistanceRecord<S>::callback);
    EXPECT_NEAR(a.best, b.best, tolerance<S>() * (1 + b.best));
  }
}

TYPED_TEST(FclManager, DistanceStopsOnceNothingNearerRemains) {
  using S = TypeParam;
  Scene<S> scene(2);
  std::vector<Object<S>*> row;
  for (int i = 0; i < 20; ++i) row.push_back(scene.add(fcl::Vector3<S>(1, 1, 1), fcl::Vector3<S>(S(3 * i), 0, 0)));
  agrid::fcl::Manager<S> ours;
  ours.registerObjects(row);
  Object<S>* probe = scene.add(fcl::Vector3<S>(1, 1, 1), fcl::Vector3<S>(S(-3), 0, 0));
  DistanceRecord<S> r;
  ours.distance(probe, &r, &DistanceRecord<S>::callback);
  EXPECT_EQ(r.best, narrowphase_distance(probe, row[0]));
  EXPECT_EQ(r.calls, 1u) << "the next box is 5 away, farther than the at most 2.5 found";
}

// The same calls give the same offers whatever the number of threads.
TYPED_TEST(FclManager, OrderIsTheSameOnOneTwoAndFourThreads) {
  using S = TypeParam;
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> runs;
  for (int threads : {1, 2, 4}) {
    Scene<S> scene(21);  // the same scene each time; objects compared by position in the scene
    auto lattice = scene.lattice(10, 5, fcl::Vector3<S>(0, 0, 0));
    auto loose = scene.random(3000, S(40));
    std::vector<Object<S>*> all = lattice;
    all.insert(all.end(), loose.begin(), loose.end());
    std::vector<ObjectPair<S>> offered;
    tbb::task_arena arena(threads);
    arena.execute([&] {
      agrid::fcl::Manager<S> ours;
      ours.registerObjects(all);
      for (int step = 0; step < 3; ++step) {
        for (std::size_t i = step; i < all.size(); i += 5) scene.move(all[i], S(40));
        ours.update();
        for (const auto& p : collide_self(ours)) offered.push_back(p);
        for (const auto& p : collide_one(ours, all[step])) offered.push_back(p);
      }
    });
    // Addresses differ from run to run: compare by index in `all`.
    std::map<Object<S>*, std::size_t> index;
    for (std::size_t i = 0; i < all.size(); ++i) index[all[i]] = i;
    std::vector<std::pair<std::size_t, std::size_t>> as_indices;
    for (const auto& [a, b] : offered) as_indices.emplace_back(index.at(a), index.at(b));
    runs.push_back(std::move(as_indices));
  }
  ASSERT_FALSE(runs[0].empty());
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_EQ(runs[0], runs[2]);
}

// What every const call answers, recorded: compared between threads.
template <typename S>
struct ConstAnswers {
  std::vector<Object<S>*> objects;
  std::vector<ObjectPair<S>> collided;
  std::vector<S> distances;
  bool operator==(const ConstAnswers& o) const {
    return objects == o.objects && collided == o.collided && distances == o.distances;
  }
};

template <typename S>
ConstAnswers<S> ask_every_const_call(const agrid::fcl::Manager<S>& m, const std::vector<Object<S>*>& probes,
                                     fcl::BroadPhaseCollisionManager<S>& other) {
  ConstAnswers<S> a;
  m.getObjects(a.objects);
  a.collided = collide_self(m);
  for (Object<S>* probe : probes) {
    for (const auto& p : collide_one(m, probe)) a.collided.push_back(p);
    DistanceRecord<S> d;
    m.distance(probe, &d, &DistanceRecord<S>::callback);
    a.distances.push_back(d.best);
  }
  for (const auto& p : collide_other(m, other)) a.collided.push_back(p);
  DistanceRecord<S> self, across;
  m.distance(&self, &DistanceRecord<S>::callback);
  m.distance(&other, &across, &DistanceRecord<S>::callback);
  a.distances.push_back(self.best);
  a.distances.push_back(across.best);
  a.distances.push_back(static_cast<S>(m.size()));
  return a;
}

// The const calls read only: four threads asking every one of them at once, right after an
// update (the first query builds agrid's query structure), get what one thread gets alone. Run
// under ThreadSanitizer by CI.
TYPED_TEST(FclManager, ConstCallsFromFourThreadsAtOnceAnswerAsOneThread) {
  using S = TypeParam;
  Scene<S> scene(31);
  auto objects = scene.lattice(6, 3, fcl::Vector3<S>(0, 0, 0));
  const auto loose = scene.random(800, S(30));
  objects.insert(objects.end(), loose.begin(), loose.end());
  const auto probes = scene.random(20, S(30));
  fcl::NaiveCollisionManager<S> other;
  other.registerObjects(scene.random(30, S(30)));
  agrid::fcl::Manager<S> ours;
  ours.registerObjects(objects);

  for (int round = 0; round < 3; ++round) {
    for (std::size_t i = round; i < objects.size(); i += 9) scene.move(objects[i], S(30));
    ours.update();
    // Changes made one at a time wait for the first const call, which the threads race to.
    for (Object<S>* obj : scene.random(5, S(30))) ours.registerObject(obj);
    ours.unregisterObject(objects[static_cast<std::size_t>(round)]);
    scene.move(objects[10], S(30));
    ours.update(objects[10]);
    constexpr int kThreads = 4;
    std::vector<ConstAnswers<S>> answers(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] { answers[static_cast<std::size_t>(t)] = ask_every_const_call(ours, probes, other); });
    }
    for (std::thread& t : threads) t.join();
    const ConstAnswers<S> alone = ask_every_const_call(ours, probes, other);
    ASSERT_FALSE(alone.collided.empty());
    for (const ConstAnswers<S>& a : answers) EXPECT_TRUE(a == alone);
  }
}

}  // namespace
// `offered` holds each of `expected` exactly once (as unordered pairs), nearest first.
template <typename S>
void expect_every_pair_once_nearest_first(const std::vector<ObjectPair<S>>& offered,
                                          const std::vector<ObjectPair<S>>& expected) {
  EXPECT_EQ(unordered<S>(offered), unordered<S>(expected)) << "every pair once";
  std::vector<S> distances;
  for (const auto& [a, b] : offered) distances.push_back(a->getAABB().distance(b->getAABB()));
  EXPECT_TRUE(std::is_sorted(distances.begin(), distances.end())) << "nearest first";
}

// A scene for the distance rounds: boxes at random and on a lattice, and one of each scale and
// trap: far away and flat, a gap so small that its square underflows (1e-30: 0 as a float
// distance), huge coordinates (a float distance that overflows to infinity), an infinite box, a
// point at infinity, a NaN and an inverted AABB.
template <typename S>
std::vector<Object<S>*> rounds_scene(Scene<S>& scene) {
  const S inf = std::numeric_limits<S>::infinity();
  const S nan = std::numeric_limits<S>::quiet_NaN();
  std::vector<Object<S>*> objects = scene.random(300, S(30));
  const auto lattice = scene.lattice(4, 2, fcl::Vector3<S>(40, 40, 40));
  objects.insert(objects.end(), lattice.begin(), lattice.end());
  const auto with_aabb = [&](fcl::Vector3<S> min, fcl::Vector3<S> max) {
    auto* o = scene.add(fcl::Vector3<S>(1, 1, 1), fcl::Vector3<S>(0, 0, 0));
    o->set_aabb_exactly(min, max);
    objects.push_back(o);
  };
  with_aabb({S(1e6), 0, 0}, {S(1e6), S(1), S(1)});
  with_aabb({S(-1), S(-1), S(-1)}, {0, 0, 0});
  with_aabb({S(1e-30), S(-1), S(-1)}, {S(1), 0, 0});
  with_aabb({S(1e30), S(1e30), S(1e30)}, {S(2e30), S(2e30), S(2e30)});
  with_aabb({-inf, -inf, -inf}, {inf, 0, inf});
  with_aabb({inf, inf, inf}, {inf, inf, inf});
  with_aabb({nan, 0, 0}, {1, 1, 1});
  with_aabb({S(5), S(5), S(5)}, {S(4), S(6), S(6)});
  return objects;
}

// The distance rounds lose no pair and offer none twice: with a callback that never prunes,
// distance(obj), distance(self) and distance(other) offer exactly the pairs
// NaiveCollisionManager would (all but those with an invalid AABB or an infinite distance), each
// once, nearest first, on a scene of every scale.
TYPED_TEST(FclManager, DistanceRoundsOfferEveryPairOnceNearestFirstWhenNothingPrunes) {
  using S = TypeParam;
  Scene<S> scene(23);
  const std::vector<Object<S>*> objects = rounds_scene(scene);
  agrid::fcl::Manager<S> ours;
  ours.registerObjects(objects);

  std::vector<Object<S>*> probes(objects.end() - 10, objects.end());
  auto* point = scene.add(fcl::Vector3<S>(1, 1, 1), fcl::Vector3<S>(0, 0, 0));
  point->set_aabb(fcl::AABB<S>(fcl::Vector3<S>(5, 5, 5), fcl::Vector3<S>(5, 5, 5)));
  probes.push_back(point);
  probes.push_back(scene.add(fcl::Vector3<S>(S(0.01), S(0.01), S(0.01)), fcl::Vector3<S>(-500, 3, 3)));
  probes.push_back(scene.add(fcl::Vector3<S>(S(1e4), S(1e4), S(1e4)), fcl::Vector3<S>(0, 0, 0)));
  probes.push_back(objects[3]);
  for (Object<S>* probe : probes) {
    EveryPair<S> got;
    ours.distance(probe, &got, &EveryPair<S>::callback);
    std::vector<ObjectPair<S>> expected;
    for (Object<S>* o : objects) {
      if (offered_unpruned(probe, o)) expected.emplace_back(probe, o);
    }
    for (const auto& [a, b] : got.offered) EXPECT_EQ(a, probe);
    expect_every_pair_once_nearest_first<S>(got.offered, expected);
  }

  EveryPair<S> self;
  ours.distance(&self, &EveryPair<S>::callback);
  std::vector<ObjectPair<S>> expected;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    for (std::size_t j = i + 1; j < objects.size(); ++j) {
      if (offered_unpruned(objects[i], objects[j])) expected.emplace_back(objects[i], objects[j]);
    }
  }
  ASSERT_GT(expected.size(), objects.size());
  expect_every_pair_once_nearest_first<S>(self.offered, expected);

  // Against other managers holding the same scene's traps and a few more, (ours, theirs): a
  // NaiveCollisionManager, and agrid managers smaller and larger than ours (the smaller side's
  // objects probe the larger's broadphase).
  std::vector<Object<S>*> theirs(objects.end() - 12, objects.end());
  const auto more = scene.random(40, S(30));
  theirs.insert(theirs.end(), more.begin(), more.end());
  fcl::NaiveCollisionManager<S> naive_other;
  naive_other.registerObjects(theirs);
  agrid::fcl::Manager<S> agrid_other;
  agrid_other.registerObjects(theirs);
  const auto expect_across = [&](const fcl::BroadPhaseCollisionManager<S>& mine, const std::vector<Object<S>*>& my_objects,
                                 fcl::BroadPhaseCollisionManager<S>& other, const std::vector<Object<S>*>& other_objects) {
    EveryPair<S> across;
    mine.distance(&other, &across, &EveryPair<S>::callback);
    std::vector<ObjectPair<S>> expected_across;
    for (Object<S>* a : my_objects) {
      for (Object<S>* b : other_objects) {
        if (offered_unpruned(a, b)) expected_across.emplace_back(a, b);
      }
    }
    for (const auto& [a, b] : across.offered) {
      EXPECT_NE(std::find(my_objects.begin(), my_objects.end(), a), my_objects.end()) << "mine first";
    }
    expect_every_pair_once_nearest_first<S>(across.offered, expected_across);
  };
  expect_across(ours, objects, naive_other, theirs);
  expect_across(ours, objects, agrid_other, theirs);
  expect_across(agrid_other, theirs, ours, objects);
}


// collide(other) and distance(other) against FCL's own managers: exactly brute force's pairs in
// the documented order, (our number, position in other->getObjects()), with ours fewer than
// theirs (their objects outside our bounds skip the query) and more; boxes touching our bounds'
// faces from outside, far ones, an infinite and a NaN one on each side.
TYPED_TEST(FclManager, CollidesAndMeasuresAgainstFclManagersInTheDocumentedOrder) {
  using S = TypeParam;
  const S inf = std::numeric_limits<S>::infinity();
  const S nan = std::numeric_limits<S>::quiet_NaN();
  Scene<S> scene(41);
  const auto with_aabb = [&](std::vector<Object<S>*>& into, fcl::Vector3<S> min, fcl::Vector3<S> max) {
    auto* o = scene.add(fcl::Vector3<S>(1, 1, 1), fcl::Vector3<S>(0, 0, 0));
    o->set_aabb_exactly(min, max);
    into.push_back(o);
  };
  for (const int ours_count : {3, 8, 150}) {
    std::vector<Object<S>*> mine = scene.random(ours_count, S(10));
    std::vector<Object<S>*> theirs = scene.random(60, S(30));
    // Boxes of theirs touching our bounds' faces from outside (and the box of ours there), a far
    // one; an invalid one for NaiveCollisionManager only (FCL's tree does not take a NaN).
    const auto by_x = [](Object<S>* a, Object<S>* b) { return a->getAABB().max_[0] < b->getAABB().max_[0]; };
    const fcl::AABB<S> right = (*std::max_element(mine.begin(), mine.end(), by_x))->getAABB();
    const fcl::AABB<S> left = (*std::min_element(mine.begin(), mine.end(), [](Object<S>* a, Object<S>* b) {
                                return a->getAABB().min_[0] < b->getAABB().min_[0];
                              }))->getAABB();
    with_aabb(theirs, {right.max_[0], right.min_[1], right.min_[2]}, {right.max_[0] + 1, right.max_[1], right.max_[2]});
    with_aabb(theirs, {left.min_[0] - 1, left.min_[1], left.min_[2]}, {left.min_[0], left.max_[1], left.max_[2]});
    with_aabb(theirs, {std::nextafter(right.max_[0], inf), right.min_[1], right.min_[2]},
              {right.max_[0] + 1, right.max_[1], right.max_[2]});
    with_aabb(theirs, {S(1e6), 0, 0}, {S(1e6) + 1, 1, 1});
    std::vector<Object<S>*> theirs_with_nan = theirs;
    with_aabb(theirs_with_nan, {nan, 0, 0}, {1, 1, 1});
    if (ours_count == 150) {
      with_aabb(mine, {-inf, -inf, -inf}, {inf, S(-5), inf});  // our bounds infinite
      with_aabb(mine, {nan, nan, nan}, {nan, nan, nan});
    }
    agrid::fcl::Manager<S> ours;
    for (Object<S>* o : mine) ours.registerObject(o);
    fcl::NaiveCollisionManager<S> naive_other;
    fcl::DynamicAABBTreeCollisionManager<S> tree_other;
    naive_other.registerObjects(theirs_with_nan);
    tree_other.registerObjects(theirs);
    tree_other.setup();
    for (fcl::BroadPhaseCollisionManager<S>* other :
         std::vector<fcl::BroadPhaseCollisionManager<S>*>{&naive_other, &tree_other}) {
      std::vector<Object<S>*> listed;
      other->getObjects(listed);
      const auto expected = brute_force<S>(mine, listed, false, overlapping<S>);
      ASSERT_FALSE(expected.empty());
      EXPECT_EQ(collide_other(ours, *other), expected) << ours_count << " of ours";
      EveryPair<S> every;
      ours.distance(other, &every, &EveryPair<S>::callback);
      expect_every_pair_once_nearest_first<S>(every.offered, brute_force<S>(mine, listed, false, offered_unpruned<S>));
      DistanceRecord<S> a, b;
      ours.distance(other, &a, &DistanceRecord<S>::callback);
      fcl::NaiveCollisionManager<S> naive_ours;
      naive_ours.registerObjects(mine);
      naive_ours.distance(&naive_other, &b, &DistanceRecord<S>::callback);
      EXPECT_NEAR(a.best, b.best, tolerance<S>() * (1 + b.best));
    }
  }
}

// registerObject, unregisterObject and update(obj) one at a time, in runs of up to a few calls
// between queries (the changes wait for the next query, which folds them in): every query answers
// as brute force over the objects registered, numbered as the header says (the lowest free number
// taken again), on a scene with a lattice of touching boxes, NaN and infinite AABBs.
TYPED_TEST(FclManager, OneAtATimeChangesBetweenQueriesAnswerAsBruteForce) {
  using S = TypeParam;
  constexpr int kCalls = 400;
  constexpr unsigned kMostCallsBetweenQueries = 6;
  const S inf = std::numeric_limits<S>::infinity();
  const S nan = std::numeric_limits<S>::quiet_NaN();
  Scene<S> scene(43);
  std::vector<Object<S>*> pool = scene.lattice(3, 2, fcl::Vector3<S>(0, 0, 0));
  const auto loose = scene.random(60, S(8));
  pool.insert(pool.end(), loose.begin(), loose.end());
  static_cast<TestObject<S>*>(pool[5])->set_aabb_exactly({nan, 0, 0}, {1, 1, 1});
  static_cast<TestObject<S>*>(pool[7])->set_aabb_exactly({-inf, -inf, 0}, {inf, inf, S(0.5)});
  agrid::fcl::Manager<S> ours;
  Numbering<S> numbers;
  fcl::DynamicAABBTreeCollisionManager<S> tree_other;
  tree_other.registerObjects(scene.random(20, S(8)));
  tree_other.setup();
  std::vector<Object<S>*> theirs;
  tree_other.getObjects(theirs);
  std::mt19937& random = scene.rng();
  unsigned until_query = 0;
  for (int call = 0; call < kCalls; ++call) {
    const auto registered = numbers.registered();
    Object<S>* obj = pool[random() % pool.size()];
    const bool is_registered = std::find(registered.begin(), registered.end(), obj) != registered.end();
    if (!is_registered) {
      ours.registerObject(obj);
      numbers.add(obj);
    } else if (random() % 3 == 0) {
      scene.move(obj, S(8));
      ours.update(obj);
    } else {
      ours.unregisterObject(obj);
      numbers.remove(obj);
    }
    if (until_query-- > 0) continue;
    until_query = static_cast<unsigned>(random() % kMostCallsBetweenQueries);
    const auto now = numbers.registered();
    std::vector<Object<S>*> listed;
    ours.getObjects(listed);
    ASSERT_EQ(listed, now) << "call " << call;
    EXPECT_EQ(ours.size(), now.size());
    EXPECT_EQ(collide_self(ours), brute_force<S>(now, now, true, overlapping<S>)) << "call " << call;
    Object<S>* probe = pool[random() % pool.size()];
    CollideRecord<S> one;
    ours.collide(probe, &one, &CollideRecord<S>::callback);
    EXPECT_EQ(one.offered, brute_force<S>({probe}, now, false, overlapping<S>)) << "call " << call;
    EXPECT_EQ(collide_other(ours, tree_other), brute_force<S>(now, theirs, false, overlapping<S>)) << "call " << call;
    EveryPair<S> every;
    ours.distance(probe, &every, &EveryPair<S>::callback);
    expect_every_pair_once_nearest_first<S>(every.offered, brute_force<S>({probe}, now, false, offered_unpruned<S>));
  }
}

}  // namespace agrid_fcl_test
