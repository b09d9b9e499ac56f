// The parts btAdaptiveGridBroadphase wires together (adapters/bullet/src): the proxy table, the
// boxes agrid holds, the step's stats, the filter watch and the cache feed. Each keeps its invariant through its own
// operations, and its problem() finds the invariant damaged from outside.

#include <gtest/gtest.h>

#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "agrid/broadphase.h"
#include "cache_feed.h"
#include "filter_watch.h"
#include "pair_boxes.h"
#include "proxy_table.h"
#include "step_stats.h"

namespace {

using agrid::bullet_detail::CacheFeed;
using agrid::bullet_detail::FilterWatch;
using agrid::bullet_detail::PairBoxes;
using agrid::bullet_detail::ProxyTable;
using agrid::bullet_detail::StepStats;

/// Proxies in a table, each with an object of its own in `broadphase`, boxes along x: box i is
/// [i, i + 1.5] on x, so neighbours overlap.
struct Objects {
  agrid::Broadphase broadphase;
  ProxyTable table;
  FilterWatch filters;

  btAdaptiveGridProxy& add(float x, int group = 1, int mask = -1) {
    const btVector3 lo(x, 0, 0);
    const btVector3 hi(x + 1.5f, 1, 1);
    return table.create(
        lo, hi, nullptr, group, mask,
        [&](const btAdaptiveGridProxy&) { return broadphase.create(agrid::Box{{x, 0, 0}, {x + 1.5f, 1, 1}}); },
        [&](agrid::Handle h) { broadphase.remove(h); });
  }
};

TEST(ProxyTable, KeepsProxiesAtTheirHandlesAndRefusesTheDestroyed) {
  Objects o;
  std::vector<btAdaptiveGridProxy*> proxies;
  for (int i = 0; i < 5; ++i) proxies.push_back(&o.add(static_cast<float>(3 * i)));
  EXPECT_EQ(o.table.live(), 5u);
  for (std::size_t i = 0; i < proxies.size(); ++i) {
    EXPECT_EQ(o.table.find(proxies[i]->m_handle), proxies[i]);
    EXPECT_EQ(proxies[i]->m_uniqueId, static_cast<int>(i) + 1);  // from 1, in creation order
  }
  EXPECT_EQ(o.table.problem(), nullptr);
  // The last two destroyed: refused from then on, their slots held until the step ends, when the
  // table's empty tail goes.
  for (int i = 3; i < 5; ++i) {
    o.broadphase.remove(proxies[i]->m_handle);
    o.table.destroy(*proxies[i]);
    EXPECT_FALSE(ProxyTable::is_live(proxies[i]));
  }
  EXPECT_EQ(o.table.problem(), nullptr);
  o.table.release_destroyed(o.table.live());
  EXPECT_EQ(o.table.by_handle().size(), 3u);
  EXPECT_EQ(o.table.problem(), nullptr);
  // A new proxy takes the next unique id, never a reused one.
  EXPECT_EQ(o.add(100).m_uniqueId, 6);
}

TEST(ProxyTable, ProblemFindsAProxyAwayFromItsHandle) {
  Objects o;
  btAdaptiveGridProxy& a = o.add(0);
  o.add(10);
  ASSERT_EQ(o.table.problem(), nullptr);
  a.m_handle = 1;  // damage: the table holds it at 0
  EXPECT_NE(o.table.problem(), nullptr);
}

TEST(ProxyTable, AHandleThatCannotBeMadeLeavesNothing) {
  ProxyTable table;
  EXPECT_THROW(table.create(btVector3(0, 0, 0), btVector3(1, 1, 1), nullptr, 1, -1,
                            [](const btAdaptiveGridProxy&) -> agrid::Handle { throw std::bad_alloc(); },
                            [](agrid::Handle) { FAIL() << "no handle was made"; }),
               std::bad_alloc);
  EXPECT_EQ(table.live(), 0u);
  EXPECT_EQ(table.problem(), nullptr);
}

TEST(StepStats, CountsEachProxyGivenABoxOnceAStep) {
  Objects o;
  StepStats stats;
  btAdaptiveGridProxy& a = o.add(0);
  btAdaptiveGridProxy& b = o.add(10);
  stats.given_box(a);
  stats.given_box(a);
  stats.given_box(b);
  EXPECT_EQ(stats.problem(o.table.by_handle()), nullptr);
  stats.destroyed(b);
  o.broadphase.remove(b.m_handle);
  o.table.destroy(b);
  EXPECT_EQ(stats.problem(o.table.by_handle()), nullptr);
  stats.begin_step();
  EXPECT_EQ(stats.last().m_setAabbObjects, 1);
  stats.count_pairs(3, 2);
  EXPECT_EQ(stats.last().m_pairsBegan, 3);
  EXPECT_EQ(stats.last().m_pairsEnded, 2);
  EXPECT_EQ(stats.problem(o.table.by_handle()), nullptr);
}

TEST(StepStats, ProblemFindsAProxyStampedBehindItsBack) {
  Objects o;
  StepStats stats;
  btAdaptiveGridProxy& a = o.add(0);
  stats.given_box(a);
  stats.begin_step();
  ASSERT_EQ(stats.problem(o.table.by_handle()), nullptr);
  a.m_setAabbStep += 1;  // damage: stamped with this step, not counted
  EXPECT_NE(stats.problem(o.table.by_handle()), nullptr);
}

TEST(FilterWatch, CountsAgridsPairsPerProxyAndSeesChangedFilters) {
  Objects o;
  std::vector<btAdaptiveGridProxy*> proxies;
  for (int i = 0; i < 4; ++i) proxies.push_back(&o.add(static_cast<float>(i)));  // a chain of overlaps
  o.filters.before_update(o.table);
  o.filters.after_update(o.broadphase.update(), o.table);
  EXPECT_EQ(o.filters.problem(o.broadphase, o.table), nullptr);
  EXPECT_FALSE(o.filters.take_recheck());
  // A filter written into a watched proxy is seen before the next update: the pairs are rechecked.
  proxies[1]->m_collisionFilterMask = 0;
  o.filters.before_update(o.table);
  EXPECT_TRUE(o.filters.take_recheck());
  EXPECT_FALSE(proxies[1]->filterChanged());
  // agrid is given no filter: it still holds the pairs, for the cache to decide.
  o.filters.after_update(o.broadphase.update(), o.table);
  EXPECT_EQ(o.broadphase.pairs().size(), 3u);
  EXPECT_EQ(o.filters.problem(o.broadphase, o.table), nullptr);
  EXPECT_FALSE(o.filters.take_recheck());
}

TEST(FilterWatch, AFirstPairIsDecidedByTheFilterAsItIsAndALaterOneByTheSeen) {
  Objects o;
  btAdaptiveGridProxy& a = o.add(0);
  btAdaptiveGridProxy& far = o.add(20);
  o.filters.before_update(o.table);
  o.filters.after_update(o.broadphase.update(), o.table);
  // Written while `far` overlaps nothing, and not watched with the watch off: its first pair
  // is decided by the cache with this filter, which becomes the one seen; no recheck.
  o.filters.watch_at_rest(false);
  far.m_collisionFilterMask = 2;
  o.broadphase.set_box(far.m_handle, agrid::Box{{1, 0, 0}, {2.5f, 1, 1}});
  o.filters.before_update(o.table);
  o.filters.after_update(o.broadphase.update(), o.table);
  EXPECT_FALSE(far.filterChanged());
  EXPECT_FALSE(o.filters.take_recheck());
  // Written into `a`, now in a pair, unseen until a second pair of a's begins: that pair is
  // decided as it is, and the first one must be asked about again.
  a.m_collisionFilterMask = 2;
  o.add(0.5f);
  o.filters.before_update(o.table);
  o.filters.after_update(o.broadphase.update(), o.table);
  EXPECT_TRUE(o.filters.take_recheck());
  EXPECT_EQ(o.filters.problem(o.broadphase, o.table), nullptr);
}

TEST(FilterWatch, ProblemFindsOverlapsMiscounted) {
  Objects o;
  o.add(0);
  o.add(1);
  o.add(10);
  o.filters.before_update(o.table);
  const agrid::PairChanges changes = o.broadphase.update();
  ASSERT_EQ(changes.began.size(), 1u);
  o.filters.after_update(changes, o.table);
  ASSERT_EQ(o.filters.problem(o.broadphase, o.table), nullptr);
  // damage: the same pair counted as beginning twice
  o.filters.after_update(agrid::PairChanges{changes.began, {}}, o.table);
  EXPECT_NE(o.filters.problem(o.broadphase, o.table), nullptr);
}

TEST(PairBoxes, HoldsTheAabbOrAFatBoxAroundItUntilTheAabbLeaves) {
  Objects o;  // agrid holds the proxies' own AABBs: exact pairs
  const btAdaptiveGridProxy& p = o.add(0);
  PairBoxes boxes;
  EXPECT_EQ(boxes.problem(o.broadphase, o.table), nullptr);
  boxes.set_margin(0.125f);
  const agrid::Box aabb{{0, 0, 0}, {1.5f, 1, 1}};
  const agrid::Box fat = boxes.to_give(aabb);  // grown by 0.125 on every side
  EXPECT_EQ(fat.min.x, -0.125f);
  EXPECT_EQ(fat.max.y, 1.125f);
  o.broadphase.set_box(p.m_handle, fat);
  EXPECT_EQ(boxes.problem(o.broadphase, o.table), nullptr);
  EXPECT_TRUE(boxes.keeps(fat, agrid::Box{{-0.1f, 0, 0}, {1.4f, 1, 1}}));   // trembling inside
  EXPECT_FALSE(boxes.keeps(fat, agrid::Box{{-0.2f, 0, 0}, {1.3f, 1, 1}}));  // out on one side
  const float inf = std::numeric_limits<float>::infinity();
  const agrid::Box plane{{-inf, -inf, -inf}, {inf, 0, inf}};
  EXPECT_TRUE(agrid::detail::same_box(boxes.to_give(plane), agrid::Box{{-inf, -inf, -inf}, {inf, 0.125f, inf}}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(boxes.keeps(fat, agrid::Box{{nan, 0, 0}, {1, 1, 1}}));  // an invalid AABB is given as it is
  boxes.set_margin(0);
  EXPECT_FALSE(boxes.keeps(fat, aabb));
  EXPECT_TRUE(agrid::detail::same_box(boxes.to_give(aabb), aabb));
}

TEST(PairBoxes, ProblemFindsABoxThatDoesNotHoldTheAabb) {
  Objects o;
  const btAdaptiveGridProxy& p = o.add(0);
  PairBoxes boxes;
  boxes.set_margin(0.5f);
  o.broadphase.set_box(p.m_handle, agrid::Box{{-1, -1, -1}, {2, 2, 2}});
  ASSERT_EQ(boxes.problem(o.broadphase, o.table), nullptr);
  o.broadphase.set_box(p.m_handle, agrid::Box{{0.5f, 0, 0}, {2, 2, 2}});  // damage: the AABB sticks out
  EXPECT_NE(boxes.problem(o.broadphase, o.table), nullptr);
  boxes.set_margin(0);  // exact: agrid must hold the AABB itself, and a fat box is not it
  o.broadphase.set_box(p.m_handle, agrid::Box{{-1, -1, -1}, {2, 2, 2}});
  EXPECT_NE(boxes.problem(o.broadphase, o.table), nullptr);
}

/// Refuses every pair.
struct RefuseAll : btOverlapFilterCallback {
  bool needBroadphaseCollision(btBroadphaseProxy*, btBroadphaseProxy*) const override { return false; }
};

TEST(CacheFeed, FeedsAgridsPairsAndKeepsThoseACallbackRefuses) {
  Objects o;
  for (int i = 0; i < 4; ++i) o.add(static_cast<float>(i));
  CacheFeed feed(nullptr);
  const agrid::PairChanges changes = o.broadphase.update();
  ASSERT_EQ(changes.began.size(), 3u);
  const CacheFeed::Counts counts = feed.apply(changes, o.table, nullptr);
  EXPECT_EQ(counts.began, 3);
  EXPECT_EQ(feed.cache()->getNumOverlappingPairs(), 3);
  EXPECT_FALSE(feed.changed_outside(o.broadphase, o.table));
  EXPECT_EQ(feed.problem(o.broadphase), nullptr);
  // A callback that refuses everything: every pair leaves the cache and is kept as refused.
  RefuseAll refuse;
  feed.cache()->setOverlapFilterCallback(&refuse);
  EXPECT_TRUE(feed.look_at_callback());
  const CacheFeed::Counts reconciled = feed.reconcile(o.broadphase, o.table, nullptr);
  EXPECT_EQ(reconciled.ended, 3);
  EXPECT_EQ(feed.cache()->getNumOverlappingPairs(), 0);
  EXPECT_EQ(feed.problem(o.broadphase), nullptr);
}

TEST(CacheFeed, ProblemFindsARefusedPairAgridNoLongerHolds) {
  Objects o;
  btAdaptiveGridProxy& a = o.add(0);
  o.add(1);
  CacheFeed feed(nullptr);
  RefuseAll refuse;
  feed.cache()->setOverlapFilterCallback(&refuse);
  EXPECT_TRUE(feed.look_at_callback());
  feed.apply(o.broadphase.update(), o.table, nullptr);
  ASSERT_EQ(feed.problem(o.broadphase), nullptr);
  // damage: the pair ends in agrid and the feed is not told
  o.broadphase.set_box(a.m_handle, agrid::Box{{50, 0, 0}, {51, 1, 1}});
  (void)o.broadphase.update();
  EXPECT_NE(feed.problem(o.broadphase), nullptr);
}

}  // namespace
