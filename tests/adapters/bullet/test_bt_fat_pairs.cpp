// setFatPairMargin: the pair cache holds the pairs of fat boxes (btDbvtBroadphase's behaviour).
// A model of the fat boxes, kept here by the rule of adapters/bullet/src/pair_boxes.h, is the
// oracle: a fat box is the AABB grown by the margin, kept while the AABB stays inside. Trembling
// changes no pair; queries stay exact; a margin of 0 gives exact pairs again; a bad margin is a
// misuse.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "agrid/broadphase.h"
#include "bt_world.h"

namespace agrid::bt_test {
namespace {

using agrid::test::Rng;

/// A proxy made by hand and the box the model says agrid holds for it.
struct ModelProxy {
  btBroadphaseProxy* proxy = nullptr;
  btVector3 held_min;
  btVector3 held_max;
};

[[nodiscard]] bool valid(const btVector3& lo, const btVector3& hi) {
  return lo.x() <= hi.x() && lo.y() <= hi.y() && lo.z() <= hi.z();  // false with a NaN
}

[[nodiscard]] bool meet(const btVector3& lo0, const btVector3& hi0, const btVector3& lo1, const btVector3& hi1) {
  if (!valid(lo0, hi0) || !valid(lo1, hi1)) return false;
  for (int axis = 0; axis < 3; ++axis) {
    if (!(lo0[axis] <= hi1[axis] && lo1[axis] <= hi0[axis])) return false;
  }
  return true;
}

/// A btAdaptiveGridBroadphase of proxies made by hand, each set through `set` so that the model
/// of its fat box follows.
class FatWorld {
 public:
  explicit FatWorld(btScalar margin) : margin_(margin) { broadphase_.setFatPairMargin(margin); }
  ~FatWorld() {
    for (const ModelProxy& p : proxies_) broadphase_.destroyProxy(p.proxy, &dispatcher_);
  }
  FatWorld(const FatWorld&) = delete;
  FatWorld& operator=(const FatWorld&) = delete;

  ModelProxy& add(const btVector3& lo, const btVector3& hi, int group = 1, int mask = -1) {
    ModelProxy p;
    p.proxy = broadphase_.createProxy(lo, hi, BOX_SHAPE_PROXYTYPE, nullptr, group, mask, &dispatcher_);
    hold(p, true);
    proxies_.push_back(p);
    return proxies_.back();
  }
  void set(ModelProxy& p, const btVector3& lo, const btVector3& hi) {
    broadphase_.setAabb(p.proxy, lo, hi, &dispatcher_);
    hold(p, false);
  }
  void remove(std::size_t i) {
    broadphase_.destroyProxy(proxies_[i].proxy, &dispatcher_);
    proxies_.erase(proxies_.begin() + static_cast<std::ptrdiff_t>(i));
  }
  void set_margin(btScalar margin) {
    broadphase_.setFatPairMargin(margin);
    margin_ = margin;
    for (ModelProxy& p : proxies_) hold(p, true);
  }
  void step() { broadphase_.calculateOverlappingPairs(&dispatcher_); }

  /// The pairs of the model's fat boxes that the filters accept, sorted.
  [[nodiscard]] std::vector<IdPair> expected() const {
    std::vector<IdPair> pairs;
    for (std::size_t i = 0; i < proxies_.size(); ++i) {
      for (std::size_t j = i + 1; j < proxies_.size(); ++j) {
        const ModelProxy& a = proxies_[i];
        const ModelProxy& b = proxies_[j];
        if (!meet(a.held_min, a.held_max, b.held_min, b.held_max) || !default_filter(a.proxy, b.proxy)) continue;
        pairs.emplace_back(std::min(a.proxy->m_uniqueId, b.proxy->m_uniqueId), std::max(a.proxy->m_uniqueId, b.proxy->m_uniqueId));
      }
    }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
  }
  /// The pairs whose stored AABBs overlap and that the filters accept, sorted.
  [[nodiscard]] std::vector<IdPair> exact() const {
    std::vector<IdPair> pairs;
    for (std::size_t i = 0; i < proxies_.size(); ++i) {
      for (std::size_t j = i + 1; j < proxies_.size(); ++j) {
        const btBroadphaseProxy* a = proxies_[i].proxy;
        const btBroadphaseProxy* b = proxies_[j].proxy;
        if (stored_overlap(a, b) && default_filter(a, b)) {
          pairs.emplace_back(std::min(a->m_uniqueId, b->m_uniqueId), std::max(a->m_uniqueId, b->m_uniqueId));
        }
      }
    }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
  }

  btAdaptiveGridBroadphase& broadphase() { return broadphase_; }
  std::vector<ModelProxy>& proxies() { return proxies_; }

 private:
  /// The rule: kept while a valid AABB stays inside, else the AABB grown by the margin in floats
  /// (an invalid AABB as it is); `again` gives it anew.
  void hold(ModelProxy& p, bool again) const {
    const btVector3& lo = p.proxy->m_aabbMin;
    const btVector3& hi = p.proxy->m_aabbMax;
    if (!again && margin_ > 0 && valid(lo, hi)) {
      bool inside = true;
      for (int axis = 0; axis < 3; ++axis) inside = inside && p.held_min[axis] <= lo[axis] && hi[axis] <= p.held_max[axis];
      if (inside) return;
    }
    p.held_min = lo;
    p.held_max = hi;
    if (margin_ == 0 || !valid(lo, hi)) return;
    for (int axis = 0; axis < 3; ++axis) {
      p.held_min[axis] = static_cast<float>(lo[axis]) - static_cast<float>(margin_);
      p.held_max[axis] = static_cast<float>(hi[axis]) + static_cast<float>(margin_);
    }
  }

  btDefaultCollisionConfiguration configuration_;
  btCollisionDispatcher dispatcher_{&configuration_};
  btAdaptiveGridBroadphase broadphase_;
  btScalar margin_;
  std::vector<ModelProxy> proxies_;
};

[[nodiscard]] btVector3 point(Rng& rng, double lo, double hi) {
  return {uniform(rng, lo, hi), uniform(rng, lo, hi), uniform(rng, lo, hi)};
}

// Boxes tremble (most steps), jump, shrink, come and go, get NaN and infinite AABBs and filters
// that refuse: after every step the cache holds exactly the model's fat pairs, and so every exact
// pair among them.
TEST(BulletAdapterFatPairs, MatchAModelOfTheFatBoxesThroughTremblingJumpsAndChurn) {
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    Rng rng(seed);
    FatWorld w(btScalar(0.25));
    const auto random_box = [&](ModelProxy& p, bool create) {
      const btVector3 lo = point(rng, -12, 12);
      const btVector3 hi = lo + point(rng, 0.2, 2.5);
      if (create) {
        const int group = rng.below(5) == 0 ? 2 : 1;
        w.add(lo, hi, group, rng.below(5) == 0 ? ~2 : -1);
      } else {
        w.set(p, lo, hi);
      }
    };
    ModelProxy none;
    for (int i = 0; i < 300; ++i) random_box(none, true);
    for (int step = 0; step < 60; ++step) {
      for (std::size_t i = 0; i < w.proxies().size(); ++i) {
        ModelProxy& p = w.proxies()[i];
        const std::uint32_t what = rng.below(100);
        const btVector3 lo = p.proxy->m_aabbMin;
        const btVector3 hi = p.proxy->m_aabbMax;
        if (what < 70 && valid(lo, hi)) {  // trembles, mostly inside its fat box
          const btVector3 shake = point(rng, -0.08, 0.08);
          w.set(p, lo + shake, hi + shake);
        } else if (what < 78) {
          random_box(p, false);
        } else if (what < 80) {  // shrinks inside: the fat box stays
          w.set(p, lo + btVector3(0.05f, 0.05f, 0.05f), hi - btVector3(0.05f, 0.05f, 0.05f));
        } else if (what < 81) {
          const float nan = std::numeric_limits<float>::quiet_NaN();
          w.set(p, btVector3(nan, 0, 0), btVector3(1, 1, 1));
        } else if (what < 82) {
          const float inf = std::numeric_limits<float>::infinity();
          w.set(p, btVector3(-inf, -1, -inf), btVector3(inf, 0, inf));  // a ground plane
        }
      }
      for (int churn = 0; churn < 3; ++churn) {
        w.remove(rng.below(static_cast<std::uint32_t>(w.proxies().size())));
        random_box(none, true);
      }
      w.step();
      const std::vector<IdPair> cached = cache_pairs(*w.broadphase().getOverlappingPairCache());
      ASSERT_TRUE(same_pair_set(w.expected(), cached)) << "seed " << seed << ", step " << step;
      const std::vector<IdPair> exact = w.exact();
      ASSERT_TRUE(std::includes(cached.begin(), cached.end(), exact.begin(), exact.end())) << "an exact pair is missing";
    }
  }
}

// Two boxes 0.2 apart, fat boxes grown by 0.25: one pair, kept (the same btBroadphasePair) while
// they tremble inside their fat boxes, ended once one leaves and its new fat box misses.
TEST(BulletAdapterFatPairs, ABodyTremblingInsideItsFatBoxChangesNoPair) {
  FatWorld w(btScalar(0.25));
  w.add(btVector3(0, 0, 0), btVector3(1, 1, 1));
  w.add(btVector3(1.2f, 0, 0), btVector3(2.2f, 1, 1));
  w.step();
  btOverlappingPairCache& cache = *w.broadphase().getOverlappingPairCache();
  ASSERT_EQ(cache.getNumOverlappingPairs(), 1);
  cache.getOverlappingPairArray()[0].m_internalInfo1 = &cache;  // marks this pair
  for (int step = 0; step < 20; ++step) {
    const float shake = step % 2 == 0 ? 0.1f : -0.1f;
    w.set(w.proxies()[0], btVector3(shake, 0, 0), btVector3(1 + shake, 1, 1));
    w.step();
    ASSERT_EQ(cache.getNumOverlappingPairs(), 1);
    EXPECT_EQ(cache.getOverlappingPairArray()[0].m_internalInfo1, &cache) << "the pair was made again";
    EXPECT_EQ(w.broadphase().lastStepStats().m_pairsBegan, 0);
    EXPECT_EQ(w.broadphase().lastStepStats().m_pairsEnded, 0);
    EXPECT_EQ(w.broadphase().broadphase().stats().changed, 0u) << "agrid was given a box";
  }
  w.set(w.proxies()[0], btVector3(-0.4f, 0, 0), btVector3(0.6f, 1, 1));  // out: a new fat box, to 0.85 < 1.2 - 0.25
  w.step();
  EXPECT_EQ(cache.getNumOverlappingPairs(), 0);
  EXPECT_EQ(w.broadphase().lastStepStats().m_pairsEnded, 1);
}

/// Collects what an aabbTest reports.
struct Collected : btBroadphaseAabbCallback {
  bool process(const btBroadphaseProxy* proxy) override {
    ids.push_back(proxy->m_uniqueId);
    return true;
  }
  std::vector<int> ids;
};

// Boxes 0.1 apart in a row, fat boxes grown by 0.5: every neighbour is a fat pair, and an
// aabbTest that reaches into the fat boxes only reports the stored AABBs it overlaps.
TEST(BulletAdapterFatPairs, AabbTestStaysExactOnTheStoredAabbs) {
  FatWorld w(btScalar(0.5));
  for (int i = 0; i < 20; ++i) {
    const auto x = static_cast<float>(i) * 1.1f;
    w.add(btVector3(x, 0, 0), btVector3(x + 1, 1, 1));
  }
  w.step();
  // Neighbours, 0.1 apart, meet by their fat boxes; boxes 1.2 apart do not (1 < 1.2).
  EXPECT_EQ(w.broadphase().getOverlappingPairCache()->getNumOverlappingPairs(), 19);
  for (int i = 0; i < 20; ++i) {
    const auto x = static_cast<float>(i) * 1.1f;
    Collected hits;
    w.broadphase().aabbTest(btVector3(x + 0.3f, 0.2f, 0.2f), btVector3(x + 0.7f, 0.8f, 1.4f), hits);
    ASSERT_EQ(hits.ids.size(), 1u) << "box " << i;
    EXPECT_EQ(hits.ids[0], w.proxies()[static_cast<std::size_t>(i)].proxy->m_uniqueId);
    Collected gap;  // the gap to the next box: in two fat boxes, in no AABB
    w.broadphase().aabbTest(btVector3(x + 1.02f, 0, 0), btVector3(x + 1.08f, 1, 1), gap);
    EXPECT_TRUE(gap.ids.empty()) << "box " << i;
  }
}

// Fat, then exact again, then fat: after each step the cache holds the model's pairs, and with a
// margin of 0 exactly the overlapping pairs.
TEST(BulletAdapterFatPairs, AMarginOfZeroGivesExactPairsAgain) {
  Rng rng(9);
  FatWorld w(btScalar(0.3));
  for (int i = 0; i < 200; ++i) {
    const btVector3 lo = point(rng, -8, 8);
    w.add(lo, lo + point(rng, 0.2, 1.5));
  }
  w.step();
  ASSERT_TRUE(same_pair_set(w.expected(), cache_pairs(*w.broadphase().getOverlappingPairCache())));
  ASSERT_GT(w.expected().size(), w.exact().size());  // the margin makes a difference here
  w.set_margin(0);
  w.step();
  EXPECT_EQ(w.broadphase().getFatPairMargin(), 0);
  EXPECT_TRUE(same_pair_set(w.exact(), cache_pairs(*w.broadphase().getOverlappingPairCache())));
  w.set_margin(btScalar(0.3));
  w.step();
  EXPECT_TRUE(same_pair_set(w.expected(), cache_pairs(*w.broadphase().getOverlappingPairCache())));
}

/// Counts the messages given to it in the int it is given as context.
void count_message(const char* /*message*/, void* count) { ++*static_cast<int*>(count); }

TEST(BulletAdapterFatPairs, ANegativeOrNonFiniteMarginIsAMisuse) {
  btAdaptiveGridBroadphase broadphase;
  broadphase.setFatPairMargin(btScalar(0.05));
  for (const btScalar bad : {btScalar(-0.01), std::numeric_limits<btScalar>::quiet_NaN(),
                             std::numeric_limits<btScalar>::infinity(), -std::numeric_limits<btScalar>::infinity()}) {
    EXPECT_THROW(broadphase.setFatPairMargin(bad), std::invalid_argument);
    int misuses = 0;
    broadphase.setMisuseHandler(count_message, &misuses);
    broadphase.setFatPairMargin(bad);
    broadphase.setMisuseHandler(nullptr);
    EXPECT_EQ(misuses, 1);
    EXPECT_EQ(broadphase.getFatPairMargin(), btScalar(0.05f)) << "a refused margin changed it";
  }
}

// In Bullet worlds (a pile settling on a floor, with agrid-fat as the demos and benchmarks build
// it), every step's cache holds every exact pair.
TEST(BulletAdapterFatPairs, InAWorldTheCacheHoldsEveryExactPair) {
  World w(BroadphaseKind::agrid_fat, {}, btVector3(0, -10, 0));
  Rng rng(17);
  add_room(w, 12);
  BodySpec spec;
  spec.count = 300;
  spec.spread = 8;
  spec.y_lo = -10;
  spec.y_hi = 10;
  add_random_bodies(w, rng, spec);
  ASSERT_NE(w.grid(), nullptr);
  EXPECT_GT(w.grid()->getFatPairMargin(), 0);
  for (int step = 0; step < 120; ++step) {
    w.step(1);
    const std::vector<IdPair> exact = expected_pairs(w.world());
    const std::vector<IdPair> cached = cache_pairs(w.cache());
    ASSERT_TRUE(std::includes(cached.begin(), cached.end(), exact.begin(), exact.end())) << "step " << step;
  }
}

}  // namespace
}  // namespace agrid::bt_test
