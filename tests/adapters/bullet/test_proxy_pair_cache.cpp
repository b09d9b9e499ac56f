// The adapter's pair cache (adapters/bullet/src/proxy_pair_cache.h) against Bullet's own
// btHashedOverlappingPairCache: the same operations, in random order, on the same proxies, leave
// the same pair array element for element (proxies, algorithms, user data), free the same
// collision algorithms in the same order, and tell a ghost callback the same removals, while
// removing or cleaning a proxy's pairs costs its own pairs. Every list is checked after every
// operation (ProxyPairCache::problem).

#include <gtest/gtest.h>

#include <btBulletCollisionCommon.h>

#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "agrid/bullet/btAdaptiveGridBroadphase.h"
#include "proxy_pair_cache.h"
#include "support/test_support.h"

namespace {

using agrid::bullet_detail::ProxyPairCache;
using agrid::test::Rng;

/// A collision algorithm that does nothing but carry a number, so that which pair's algorithm
/// was freed can be told.
class TaggedAlgorithm : public btCollisionAlgorithm {
 public:
  TaggedAlgorithm(const btCollisionAlgorithmConstructionInfo& info, int number) : btCollisionAlgorithm(info), tag(number) {}
  void processCollision(const btCollisionObjectWrapper*, const btCollisionObjectWrapper*, const btDispatcherInfo&,
                        btManifoldResult*) override {}
  btScalar calculateTimeOfImpact(btCollisionObject*, btCollisionObject*, const btDispatcherInfo&,
                                 btManifoldResult*) override {
    return 1;
  }
  void getAllContactManifolds(btManifoldArray&) override {}
  int tag;
};

/// A dispatcher that records the tags of the algorithms it frees, in order.
class RecordingDispatcher : public btCollisionDispatcher {
 public:
  explicit RecordingDispatcher(btCollisionConfiguration* configuration) : btCollisionDispatcher(configuration) {}
  void freeCollisionAlgorithm(void* memory) override {
    freed.push_back(static_cast<TaggedAlgorithm*>(memory)->tag);  // destroyed, its memory intact
    ::operator delete(memory);
  }
  std::vector<int> freed;
};

/// Records the removals a cache reports to its ghost callback.
struct RemovalLog : btOverlappingPairCallback {
  btBroadphasePair* addOverlappingPair(btBroadphaseProxy*, btBroadphaseProxy*) override { return nullptr; }
  void* removeOverlappingPair(btBroadphaseProxy* a, btBroadphaseProxy* b, btDispatcher*) override {
    removed.emplace_back(a->m_uniqueId, b->m_uniqueId);
    return nullptr;
  }
  void removeOverlappingPairsContainingProxy(btBroadphaseProxy*, btDispatcher*) override {}
  std::vector<std::pair<int, int>> removed;
};

/// Removes the pairs whose lower proxy has an odd id: a user's processAllOverlappingPairs.
struct RemoveOddFirst : btOverlapCallback {
  bool processOverlap(btBroadphasePair& pair) override { return pair.m_pProxy0->m_uniqueId % 2 == 1; }
};

/// One cache under test, its dispatcher and its ghost log.
struct Side {
  explicit Side(btOverlappingPairCache& c) : cache(c), dispatcher(&configuration) {
    cache.setInternalGhostPairCallback(&log);
  }
  btOverlappingPairCache& cache;
  btDefaultCollisionConfiguration configuration;
  RecordingDispatcher dispatcher;
  RemovalLog log;
};

/// Proxies from a btAdaptiveGridBroadphase (the cache's proxies must be its own), and the two
/// caches: Bullet's and the adapter's own.
class ProxyPairCacheTest : public ::testing::Test {
 protected:
  static constexpr int kProxies = 24;

  ProxyPairCacheTest() {
    for (int i = 0; i < kProxies; ++i) {
      const btVector3 at(static_cast<btScalar>(i), 0, 0);
      proxies_.push_back(broadphase_.createProxy(at, at + btVector3(1, 1, 1), BOX_SHAPE_PROXYTYPE, nullptr,
                                                 btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter,
                                                 nullptr));
    }
  }
  ~ProxyPairCacheTest() override {
    // Each cache's algorithms go back to its own dispatcher first.
    for (Side* side : {&bullet_, &ours_}) {
      for (btBroadphaseProxy* p : proxies_) side->cache.removeOverlappingPairsContainingProxy(p, &side->dispatcher);
      side->cache.setInternalGhostPairCallback(nullptr);
    }
    for (btBroadphaseProxy* p : proxies_) broadphase_.destroyProxy(p, nullptr);
  }

  /// The same operation on both caches; new pairs get an algorithm tagged with `tag`.
  void add(int a, int b, int tag) {
    for (Side* side : {&bullet_, &ours_}) {
      btBroadphasePair* pair = side->cache.addOverlappingPair(proxies_[a], proxies_[b]);
      if (pair != nullptr && pair->m_algorithm == nullptr) {
        btCollisionAlgorithmConstructionInfo info(&side->dispatcher, 0);
        pair->m_algorithm = new (::operator new(sizeof(TaggedAlgorithm))) TaggedAlgorithm(info, tag);
        pair->m_internalInfo1 = reinterpret_cast<void*>(static_cast<std::intptr_t>(tag));
      }
    }
  }

  /// Both caches hold the same pairs in the same order, with the same algorithms and user data,
  /// and have freed and reported the same; the adapter's lists are whole.
  ::testing::AssertionResult same() const {
    const btBroadphasePairArray& x = bullet_.cache.getOverlappingPairArray();
    const btBroadphasePairArray& y = ours_.cache.getOverlappingPairArray();
    if (x.size() != y.size()) return ::testing::AssertionFailure() << x.size() << " pairs against " << y.size();
    for (int i = 0; i < x.size(); ++i) {
      const auto tag = [](const btBroadphasePair& p) {
        return p.m_algorithm == nullptr ? -1 : static_cast<const TaggedAlgorithm*>(p.m_algorithm)->tag;
      };
      if (x[i].m_pProxy0 != y[i].m_pProxy0 || x[i].m_pProxy1 != y[i].m_pProxy1 || tag(x[i]) != tag(y[i]) ||
          x[i].m_internalInfo1 != y[i].m_internalInfo1) {
        return ::testing::AssertionFailure() << "pair " << i << " differs";
      }
    }
    if (bullet_.dispatcher.freed != ours_.dispatcher.freed) return ::testing::AssertionFailure() << "freed differ";
    if (bullet_.log.removed != ours_.log.removed) return ::testing::AssertionFailure() << "removals reported differ";
    if (const char* problem = ours().problem()) return ::testing::AssertionFailure() << problem;
    return ::testing::AssertionSuccess();
  }

  [[nodiscard]] const ProxyPairCache& ours() const { return static_cast<const ProxyPairCache&>(ours_.cache); }

  btAdaptiveGridBroadphase broadphase_;
  std::vector<btBroadphaseProxy*> proxies_;
  btHashedOverlappingPairCache bullet_cache_;
  Side bullet_{bullet_cache_};
  Side ours_{*broadphase_.getOverlappingPairCache()};
};

TEST_F(ProxyPairCacheTest, TheAdaptersCacheIsOne) {
  EXPECT_NE(dynamic_cast<ProxyPairCache*>(broadphase_.getOverlappingPairCache()), nullptr);
}

// Random adds, removes, whole-proxy removals and cleanings, a user's processAllOverlappingPairs
// and sortOverlappingPairs: after every operation the two caches agree element for element.
TEST_F(ProxyPairCacheTest, EveryOperationLeavesTheSameArrayAsBulletsCache) {
  Rng rng(311);
  int tag = 0;
  for (int op = 0; op < 4000; ++op) {
    const auto a = static_cast<int>(rng.below(kProxies));
    const auto b = static_cast<int>(rng.below(kProxies));
    const std::uint32_t kind = rng.below(100);
    if (kind < 55) {
      add(a, b, ++tag);  // a == b too: a pair of a proxy with itself, which a user may add
    } else if (kind < 80) {
      for (Side* side : {&bullet_, &ours_}) side->cache.removeOverlappingPair(proxies_[a], proxies_[b], &side->dispatcher);
    } else if (kind < 90) {
      for (Side* side : {&bullet_, &ours_}) side->cache.removeOverlappingPairsContainingProxy(proxies_[a], &side->dispatcher);
    } else if (kind < 97) {
      for (Side* side : {&bullet_, &ours_}) side->cache.cleanProxyFromPairs(proxies_[a], &side->dispatcher);
    } else if (kind < 99) {
      RemoveOddFirst odd;
      for (Side* side : {&bullet_, &ours_}) side->cache.processAllOverlappingPairs(&odd, &side->dispatcher);
    } else {
      for (Side* side : {&bullet_, &ours_}) side->cache.sortOverlappingPairs(&side->dispatcher);
    }
    ASSERT_TRUE(same()) << "after operation " << op << " (kind " << kind << ")";
  }
  EXPECT_GT(ours_.cache.getNumOverlappingPairs(), 20) << "the scene emptied: the test lost its teeth";
  EXPECT_GT(ours_.dispatcher.freed.size(), 500u);
}

// A proxy with many pairs, removed: its pairs go, the others stay in Bullet's order. (The pair of
// a proxy with itself, which only a user can add, is removed once.)
TEST_F(ProxyPairCacheTest, AProxyWithManyPairsIsRemovedWhole) {
  int tag = 0;
  for (int a = 0; a < kProxies; ++a) {
    for (int b = a + 1; b < kProxies; ++b) add(a, b, ++tag);
  }
  add(3, 3, ++tag);
  ASSERT_TRUE(same());
  for (const int gone : {3, 0, kProxies - 1, 11}) {
    for (Side* side : {&bullet_, &ours_}) side->cache.removeOverlappingPairsContainingProxy(proxies_[gone], &side->dispatcher);
    ASSERT_TRUE(same()) << "after removing proxy " << gone;
    EXPECT_EQ(static_cast<btAdaptiveGridProxy*>(proxies_[gone])->m_pairs, btAdaptiveGridProxy::kNoPairs) << gone;
    const btBroadphasePairArray& left = ours_.cache.getOverlappingPairArray();
    for (int i = 0; i < left.size(); ++i) {
      EXPECT_TRUE(left[i].m_pProxy0 != proxies_[gone] && left[i].m_pProxy1 != proxies_[gone]) << "pair " << i << " kept";
    }
  }
}

// Pairs removed with a null dispatcher (Bullet allows it: the algorithm is then kept by no one)
// keep the lists whole too.
TEST_F(ProxyPairCacheTest, RemovalWithoutADispatcher) {
  for (int a = 0; a + 1 < kProxies; ++a) {
    ASSERT_NE(ours_.cache.addOverlappingPair(proxies_[a], proxies_[a + 1]), nullptr);
  }
  ours_.cache.removeOverlappingPairsContainingProxy(proxies_[5], nullptr);
  ours_.cache.removeOverlappingPair(proxies_[9], proxies_[10], nullptr);
  EXPECT_EQ(ours_.cache.getNumOverlappingPairs(), kProxies - 1 - 3);
  EXPECT_EQ(ours().problem(), nullptr);
  EXPECT_EQ(ours_.cache.findPair(proxies_[4], proxies_[5]), nullptr);
  EXPECT_NE(ours_.cache.findPair(proxies_[3], proxies_[4]), nullptr);
}

}  // namespace
