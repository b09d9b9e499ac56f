// A/B benchmark of Bullet broadphases in real worlds: btDbvtBroadphase, bt32BitAxisSweep3 and
// btAdaptiveGridBroadphase on the same scenes, the same steps, in a task arena of 2 threads.
//
// Each benchmark builds its world (untimed), runs warm-up steps (untimed), then times steps of
// 1/60 s, one per iteration. Counters, per step, medians over the timed steps:
//   bp_ms    broadphase time: every setAabb plus calculateOverlappingPairs (TimedBroadphase)
//   step_ms  the whole step (stepSimulation, and the scene's rays in bench-7)
//   rest_ms  step_ms - bp_ms (- ray_ms): narrowphase, solver, integration
//   pairs    pairs in the cache after the last step
//   bp_mean_ms, step_mean_ms   the means of bp_ms and step_ms
//   ray_ms, ray_mean_ms        median and mean of the rays' time (bench-7's 500 rays; else 0)
//   rss_mib  resident memory after the last step over before the world was made (MiB): the
//            whole world's, bodies and shapes included, which are the same for every broadphase,
//            so the difference between two broadphases is theirs. Run one broadphase a process
//            (--benchmark_filter=...agrid$): memory an earlier run freed may stay resident
//   bytes_held_mib  agrid only: lastStepStats().m_bytesHeld after the last step (MiB)
// BM_trigger_zone/scatter-5k/<kind>: what a trigger zone (a btPairCachingGhostObject) lists in
// scatter's world of 5,000 moving bodies, against the objects whose boxes overlap it (bm_trigger_zone).
// BM_broadphase_rays/static-50k/<kind>: the peer of agrid-bench-broadphase's ray benchmark (same
// boxes and rays, agrid_scenes/step_scenes.h) on proxies made by hand, one thread.
// BM_broadphase_aabb_test/static-50k/<kind>: the same proxies, dbvt and agrid; one iteration is
// 500 aabbTest box queries (edges 2 to 5 units, over the whole scene, agrid_scenes/step_scenes.h) with a
// callback that counts what is reported, one thread. Counters:
//   reported      proxies reported by the 500 queries
//   overlapping   pairs of a query and a box that overlap, by brute force (untimed): what an
//                 exact aabbTest reports (agrid's; dbvt's too here: proxies made by hand and
//                 never given setAabb keep leaves of their exact AABBs, without dbvt's margin)
// BM_convex_sweep/static-100k/<kind>: a btCollisionWorld (no dynamics) of 100,000 static unit
// boxes (one btBoxShape) on static-city's grid, each lifted by 0 to 2 and jittered, dbvt and
// agrid; one iteration is 200 convexSweepTest calls of a sphere of radius 0.5, from above the
// boxes 10 to 30 units in a random direction, with a ClosestConvexResultCallback, one thread.
//   hits          sweeps whose callback hasHit()
// BM_broadphase_step/<scene>/<kind>: the peer of agrid-bench-broadphase's BM_broadphase/<scene>
// (frozen-500k, frozen-50k, stream-200k, stream-20k: the same boxes, moves, creates and
// removes, agrid_scenes/step_scenes.h) on btDbvtBroadphase and btAdaptiveGridBroadphase through
// btBroadphaseInterface alone, one thread. One iteration is one step: setAabb for the moved
// boxes, destroyProxy/createProxy for the stream's churn, calculateOverlappingPairs. Counters:
//   median_ms, max_ms   median and slowest timed step
//   pairs               pairs in the cache after the last step
//   bytes_per_object    heap bytes in use after creating the proxies and the warm-up, minus
//                       before creating the broadphase, per live proxy (proxies, tree or grid,
//                       pair cache; glibc's count, both broadphases alike)
// Bullet's own benchmark scenes (BM_bullet/bench-*) run as issue 10 measures them: 300 steps
// from the start, no warm-up.
// BM_world_*/<kind>: worlds that change (issue 31), dbvt and agrid: a btDiscreteDynamicsWorld with
// gravity whose bodies (shared shapes, no motion states) the benchmark adds with addRigidBody and
// removes with removeRigidBody, built untimed (build_s: the addRigidBody calls). Floors are tiles
// (2 x 1 x 2 static boxes laid edge to edge, top at y = 0) and spheres of radius 0.5.
// Bullet 3.24's own share of a removal: removeCollisionObject finds the object by its world array
// index (O(1) in any order), but removeRigidBody first searches the world's list of dynamic bodies
// linearly, for static bodies too (never found there): O(dynamic bodies) per removal, whatever the
// broadphase. bullet_list_* replays that search (on a copy of the list, untimed) to say how much of
// a removal time is Bullet's.
// BM_world_stream/200k/<kind>: a window of 200,000 tiles under 5,000 spheres rolling on its front
// half, setForceUpdateAllAabbs(false); each step the oldest 2,000 tiles are removed, 2,000 new ones
// added ahead, then stepSimulation: an open world streaming its level. /agrid-1-thread: agrid in
// an arena of one thread. 5 warm-up steps, then one
// timed step per iteration (15). Counters, medians over the timed steps:
//   median_ms, max_ms          the whole step (removals + adds + stepSimulation): median, slowest
//   remove_ms, add_ms, step_ms its three parts
//   bp_ms    the broadphase's share of stepSimulation (setAabb + calculateOverlappingPairs)
//   cop_ms   agrid's own lastStepStats().m_calculateOverlappingPairsSeconds (0 for dbvt)
//   bullet_list_ms             of remove_ms, Bullet's search of the 5,000 dynamic bodies
//   pairs, bodies              after the last step
// BM_world_burst/<kind>: 2,000 boxes (never sleeping: the steps before and after see the same
// world) standing in columns on a ground box; one iteration (3 in all) is 10 steps, 5,000 spheres
// of radius 0.25 added in one go just above them, 40 steps (the lower layers land), the 5,000
// removed in one go in the order added, 10 steps. Counters, medians:
//   add_ms, remove_ms          the 5,000 addRigidBody calls, the 5,000 removeRigidBody calls
//   before_ms, during_ms, after_ms   a step before the burst, with the spheres, after them
//   bullet_list_ms             of remove_ms, Bullet's search of the 7,000 dynamic bodies (each
//                              sphere is found after the 2,000 boxes, in any order: at least
//                              10 million comparisons, a floor no broadphase lowers)
//   pairs                      in the cache just before the removal
// BM_world_level/<floor>/<kind>: a level of 1,000,000 tiles (a 1,000 x 1,000 floor) and 1,000
// spheres falling onto it, setForceUpdateAllAabbs(false). <floor>: "touching", tiles edge to edge
// (each overlaps its neighbours: static pairs the filters refuse, which agrid watches by default);
// "touching-unwatched", the same with agrid's setWatchFiltersAtRest(false); "apart", tiles 0.25
// apart (no static overlaps another); "apart-all-updated", the same with Bullet's default
// setForceUpdateAllAabbs(true) (every tile's box recomputed and given to setAabb every step). 10 warm-up steps (warmup_s), then one iteration:
// 20 timed steps, then the level unloaded: every tile removed in creation order with the spheres
// still on them (their pairs in the cache), then the spheres. Counters:
//   step_ms, bp_ms, cop_ms     medians of the step, of the broadphase's share, of agrid's own
//                              calculateOverlappingPairs
//   unload_s                   removing every body
//   after_unload_ms            the step after the unload, in the empty world (memory is read after it)
//   bullet_list_s              of unload_s, Bullet's search of the 1,000 dynamic bodies for each
//                              tile (removing the spheres first would spare it, and empty the
//                              cache: the broadphase's removal would then be measured without pairs)
//   pairs                      before the unload
//   bytes_per_object           heap in use (glibc: heap_in_use) at full level over before the world
//                              was made, per body, the bodies' own 744 bytes included
//   world_bytes_per_object     the same over after the bodies were made: proxies, broadphase, pair
//                              cache, the world's arrays
//   rss_full_mib               resident memory at full level over before (MiB)
//   held_mib, rss_held_mib     heap and resident memory held after the unload, the bodies deleted
//                              and malloc_trim(0), the world alive, over before (MiB)
//   bytes_held_full_mib, bytes_held_mib   agrid only: broadphase().stats().bytes_held at full
//                              level and after the unload
// Run times here (2 cores shared with other builds, 2026-11-27): stream 14-20 s dbvt (5-11 s of
// it the build) and 1.4-2 s agrid; burst 2.5-5 s and 1.3-2 s; level 96-126 s dbvt (build 38-44 s
// and warm-up 42-55 s: dbvt's tree walks after a million inserts in grid order) and 5-8 s agrid.
// The step counts are fixed: a faster broadphase only shortens its run.
// Run:  agrid-bench-bullet [--benchmark_filter=BM_bullet/scatter.*]  (BM_world_ alone: 2-2.5 min)

#include <benchmark/benchmark.h>
#include <malloc.h>
#include <unistd.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <BulletCollision/CollisionDispatch/btGhostObject.h>
#include <btBulletCollisionCommon.h>
#include <btBulletDynamicsCommon.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agrid/broadphase.h"
#include "agrid/bullet/btAdaptiveGridBroadphase.h"
#include "agrid_scenes/boxes.h"
#include "agrid_scenes/bullet_worlds.h"
#include "agrid_scenes/step_scenes.h"

namespace {

/// Threads of the task arena every benchmark runs in: the project machine's two cores.
constexpr int kThreads = 2;

/// A scene of the adapter issue, its size and its steps.
struct AbScene {
  const char* name;
  std::uint32_t bodies;
  int warmup_steps;
  int timed_steps;
};

/// scatter-50k, cluster-50k, pile-5k (warmed until it has landed and piles up) and
/// static-city-100k (100,000 static boxes, 1,000 spheres; warmed until the first have landed).
constexpr AbScene kScenes[] = {
    {"scatter", 50000, 3, 20},
    {"cluster", 50000, 3, 20},
    {"pile", 5000, 120, 60},
    {"static-city", 100000, 100, 30},
};

constexpr agrid::scenes::BroadphaseKind kKinds[] = {
    agrid::scenes::BroadphaseKind::dbvt, agrid::scenes::BroadphaseKind::sap, agrid::scenes::BroadphaseKind::agrid,
    agrid::scenes::BroadphaseKind::agrid_fat};

/// Bullet's benchmark scenes: timed from their first step for this many steps, as the issue's
/// table (means over 300 steps of BenchmarkDemo) measures them.
constexpr int kBenchSceneSteps = 300;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : 0.5 * (v[mid - 1] + v[mid]);
}

double mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double ms(std::chrono::nanoseconds t) { return std::chrono::duration<double, std::milli>(t).count(); }

/// Bytes resident in memory (/proc/self/statm).
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  std::size_t resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

/// Bytes in a MiB.
constexpr double kMiB = 1024.0 * 1024.0;

/// A scene with one broadphase: `warmup_steps` untimed, then one step per iteration; medians and
/// means of the broadphase, the rays (bench-7) and the whole step. (Bench scenes have their own
/// body count and ignore `bodies`.)
void bm_world(benchmark::State& state, std::string_view scene, std::uint32_t bodies, int warmup_steps,
              agrid::scenes::BroadphaseKind kind) {
  const tbb::global_control threads(tbb::global_control::max_allowed_parallelism, kThreads);
  tbb::task_arena arena(kThreads);
  arena.execute([&] {
    malloc_trim(0);  // what earlier benchmarks freed is not counted as this world's
    const auto rss_before = static_cast<double>(resident_bytes());
    agrid::scenes::BulletWorld world(scene, kind, bodies);
    for (int i = 0; i < warmup_steps; ++i) world.step();
    std::vector<double> broadphase_ms;
    std::vector<double> ray_ms;
    std::vector<double> step_ms;
    std::vector<double> rest_ms;
    for (auto _ : state) {
      const auto start = std::chrono::steady_clock::now();
      world.step();
      const double total = ms(std::chrono::steady_clock::now() - start);
      broadphase_ms.push_back(ms(world.broadphase().last_step_time()));
      ray_ms.push_back(ms(world.last_query_time()));
      step_ms.push_back(total);
      rest_ms.push_back(total - broadphase_ms.back() - ray_ms.back());
    }
    state.counters["bp_ms"] = median(broadphase_ms);
    state.counters["bp_mean_ms"] = mean(broadphase_ms);
    state.counters["ray_ms"] = median(ray_ms);
    state.counters["ray_mean_ms"] = mean(ray_ms);
    state.counters["step_ms"] = median(step_ms);
    state.counters["step_mean_ms"] = mean(step_ms);
    state.counters["rest_ms"] = median(rest_ms);
    state.counters["pairs"] = world.pairs();
    state.counters["bodies"] = static_cast<double>(world.world().getNumCollisionObjects());
    state.counters["threads"] = kThreads;
    state.counters["rss_mib"] = (static_cast<double>(resident_bytes()) - rss_before) / kMiB;
    const btAdaptiveGridBroadphase* grid = world.harness().grid();
    state.counters["bytes_held_mib"] = grid != nullptr ? static_cast<double>(grid->lastStepStats().m_bytesHeld) / kMiB : 0;
  });
}

/// BM_trigger_zone's world: scatter's moving bodies, and a zone of this share of the world's
/// extent on each axis at its centre.
constexpr std::uint32_t kTriggerBodies = 5000;
constexpr btScalar kTriggerZoneShare = btScalar(0.3);
constexpr int kTriggerSteps = 120;

/// True iff the two objects' stored AABBs overlap (closed boxes).
bool stored_boxes_overlap(const btCollisionObject& a, const btCollisionObject& b) {
  const btBroadphaseProxy& p = *a.getBroadphaseHandle();
  const btBroadphaseProxy& q = *b.getBroadphaseHandle();
  return TestAabbAgainstAabb2(p.m_aabbMin, p.m_aabbMax, q.m_aabbMin, q.m_aabbMax);
}

/// True iff Bullet's group and mask filter lets the two objects pair.
bool filters_accept(const btCollisionObject& a, const btCollisionObject& b) {
  const btBroadphaseProxy& p = *a.getBroadphaseHandle();
  const btBroadphaseProxy& q = *b.getBroadphaseHandle();
  return (p.m_collisionFilterGroup & q.m_collisionFilterMask) != 0 && (q.m_collisionFilterGroup & p.m_collisionFilterMask) != 0;
}

/// BM_trigger_zone/<kind>: what a game's trigger zone lists. A btPairCachingGhostObject (kept by a
/// btGhostPairCallback, as Bullet's demos and character controller keep theirs) in scatter's world
/// of moving bodies. One iteration is one step; then, untimed, the zone's list is compared with
/// the objects whose stored AABB overlaps the zone's. Counters, means over the steps:
///   listed        objects in the zone's list (getNumOverlappingObjects)
///   overlapping   objects whose stored AABB overlaps the zone's and that its filter accepts
///   apart         listed objects whose stored AABB does not meet the zone's (dbvt's fat extras)
///   missing       overlapping objects not listed (0 for every broadphase)
void bm_trigger_zone(benchmark::State& state, agrid::scenes::BroadphaseKind kind) {
  const tbb::global_control threads(tbb::global_control::max_allowed_parallelism, kThreads);
  tbb::task_arena arena(kThreads);
  arena.execute([&] {
    agrid::scenes::BulletWorld world("scatter", kind, kTriggerBodies);
    agrid::scenes::BulletHarness& harness = world.harness();
    auto ghost_callback = std::make_unique<btGhostPairCallback>();
    harness.cache().setInternalGhostPairCallback(ghost_callback.get());
    harness.own_callback(std::move(ghost_callback));
    btVector3 lo;
    btVector3 hi;
    harness.broadphase().getBroadphaseAabb(lo, hi);
    btCollisionShape* zone_shape = harness.own(std::make_unique<btBoxShape>((hi - lo) * (kTriggerZoneShare / 2)));
    auto* zone = harness.own_object(std::make_unique<btPairCachingGhostObject>());
    zone->setCollisionShape(zone_shape);
    zone->setWorldTransform(btTransform(btQuaternion::getIdentity(), (lo + hi) / 2));
    zone->setCollisionFlags(zone->getCollisionFlags() | btCollisionObject::CF_NO_CONTACT_RESPONSE);
    world.world().addCollisionObject(zone, btBroadphaseProxy::SensorTrigger,
                                     btBroadphaseProxy::AllFilter & ~btBroadphaseProxy::StaticFilter);
    double listed = 0;
    double overlapping = 0;
    double apart = 0;
    double missing = 0;
    for (auto _ : state) {
      world.step();
      state.PauseTiming();
      listed += zone->getNumOverlappingObjects();
      for (int i = 0; i < zone->getNumOverlappingObjects(); ++i) apart += !stored_boxes_overlap(*zone, *zone->getOverlappingObject(i));
      const btCollisionObjectArray& objects = world.world().getCollisionObjectArray();
      for (int i = 0; i < objects.size(); ++i) {
        const btCollisionObject& object = *objects[i];
        if (&object == zone || !filters_accept(*zone, object) || !stored_boxes_overlap(*zone, object)) continue;
        ++overlapping;
        const btAlignedObjectArray<btCollisionObject*>& list = zone->getOverlappingPairs();
        missing += list.findLinearSearch(objects[i]) == list.size();
      }
      state.ResumeTiming();
    }
    const auto steps = static_cast<double>(state.iterations());
    state.counters["listed"] = listed / steps;
    state.counters["overlapping"] = overlapping / steps;
    state.counters["apart"] = apart / steps;
    state.counters["missing"] = missing / steps;
    world.world().removeCollisionObject(zone);
  });
}

/// Steps run before the broadphase-only rays are timed: bench-7's hulls have landed by then.
constexpr int kRayWarmupSteps = 60;

/// bench-7's 500 rays through the broadphase alone (a callback that only records what is
/// reported, as btCollisionWorld prepares it): what the broadphase costs of the scene's ray time,
/// without the narrowphase, which is the same for every broadphase. One iteration is 500 rays.
void bm_broadphase_rays(benchmark::State& state, agrid::scenes::BroadphaseKind kind) {
  const tbb::global_control threads(tbb::global_control::max_allowed_parallelism, kThreads);
  tbb::task_arena arena(kThreads);
  arena.execute([&] {
    agrid::scenes::BulletWorld world("bench-7", kind, 1);
    for (int i = 0; i < kRayWarmupSteps; ++i) world.step();
    std::size_t reported = 0;
    for (auto _ : state) reported = world.cast_rays_broadphase_only();
    state.counters["reported"] = static_cast<double>(reported);
  });
}

/// Static boxes in the resting-step benchmark: static-city's count; unit boxes this far apart on a
/// cubic lattice.
constexpr int kRestingBoxes = 100000;
constexpr float kRestingSpacing = 2;
/// Steps before the resting-step benchmark's boxes have all joined agrid's resting tree (new
/// objects rest at once; this leaves room for any Config::rest_after_unchanged).
constexpr int kRestingWarmupSteps = 20;

/// The adapter's cost per object at rest: every proxy gets `setAabb` with its unchanged AABB
/// (what Bullet's default setForceUpdateAllAabbs(true) sends for static and sleeping objects
/// every step), then calculateOverlappingPairs. Unit boxes two apart on a grid: no pairs. This
/// is nearly all of static-city's broadphase time, with nothing else in the measurement.
/// (agrid only: dbvt's proxies made by hand behave unlike a world's and would mislead.)
/// With `timed`, setTimeSetAabbCalls(true): what timing every setAabb costs.
void bm_resting_step(benchmark::State& state, bool timed) {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  auto broadphase = std::make_unique<btAdaptiveGridBroadphase>();
  broadphase->setTimeSetAabbCalls(timed);
  std::vector<btCollisionObject> objects(kRestingBoxes);
  std::vector<btBroadphaseProxy*> proxies;
  for (int i = 0; i < kRestingBoxes; ++i) {
    const agrid::Vec3 point = agrid::scenes::cube_lattice_point(static_cast<std::uint32_t>(i), kRestingBoxes, kRestingSpacing);
    const btVector3 at(point.x, point.y, point.z);
    proxies.push_back(broadphase->createProxy(at, at + btVector3(1, 1, 1), BOX_SHAPE_PROXYTYPE, &objects[i],
                                              btBroadphaseProxy::StaticFilter, ~btBroadphaseProxy::StaticFilter,
                                              &dispatcher));
  }
  for (int i = 0; i < kRestingWarmupSteps; ++i) broadphase->calculateOverlappingPairs(&dispatcher);  // at rest now
  for (auto _ : state) {
    for (btBroadphaseProxy* p : proxies) broadphase->setAabb(p, p->m_aabbMin, p->m_aabbMax, &dispatcher);
    broadphase->calculateOverlappingPairs(&dispatcher);
  }
  // Seconds per box and step (shown as e.g. "9n": 9 ns).
  state.counters["per_box"] = benchmark::Counter(static_cast<double>(kRestingBoxes),
                                                 benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  for (btBroadphaseProxy* p : proxies) broadphase->destroyProxy(p, &dispatcher);
}

/// Empties a pair cache from its end: each removal then costs O(1), where destroyProxy and
/// cleanProxyFromPairs scan every pair for each proxy (Bullet's btHashedOverlappingPairCache).
void empty_pair_cache(btOverlappingPairCache& cache, btDispatcher* dispatcher) {
  while (cache.getNumOverlappingPairs() > 0) {
    const btBroadphasePair& last = cache.getOverlappingPairArray()[cache.getNumOverlappingPairs() - 1];
    cache.removeOverlappingPair(last.m_pProxy0, last.m_pProxy1, dispatcher);
  }
}

/// Counts what a broadphase's rayTest reports, with the ray data set as btCollisionWorld's own
/// ray callback sets it (a unit direction; the ray's length as m_lambda_max).
struct CountingRayCallback : btBroadphaseRayCallback {
  CountingRayCallback(const btVector3& from, const btVector3& to) {
    btVector3 direction = to - from;
    direction.normalize();
    for (int k = 0; k < 3; ++k) {
      m_rayDirectionInverse[k] = direction[k] == btScalar(0) ? btScalar(BT_LARGE_FLOAT) : btScalar(1) / direction[k];
      m_signs[k] = m_rayDirectionInverse[k] < btScalar(0);
    }
    m_lambda_max = direction.dot(to - from);
  }
  bool process(const btBroadphaseProxy* /*proxy*/) override {
    ++reported;
    return true;
  }
  std::size_t reported = 0;
};

/// Counts what a broadphase's aabbTest reports.
struct CountingAabbCallback : btBroadphaseAabbCallback {
  bool process(const btBroadphaseProxy* /*proxy*/) override {
    ++reported;
    return true;
  }
  std::size_t reported = 0;
};

btVector3 bt(const agrid::Vec3& v) { return {v.x, v.y, v.z}; }

/// A broadphase of `kind`: btDbvtBroadphase for dbvt, else btAdaptiveGridBroadphase.
std::unique_ptr<btBroadphaseInterface> make_broadphase(agrid::scenes::BroadphaseKind kind) {
  if (kind == agrid::scenes::BroadphaseKind::dbvt) return std::make_unique<btDbvtBroadphase>();
  return std::make_unique<btAdaptiveGridBroadphase>();
}

/// Boxes as proxies made by hand (no world) on a broadphase of `kind`, and one
/// calculateOverlappingPairs; the pairs and proxies destroyed with it, in O(pairs + proxies).
class StaticProxies {
 public:
  StaticProxies(agrid::scenes::BroadphaseKind kind, const std::vector<agrid::Box>& boxes)
      : dispatcher_(&configuration_), broadphase_(make_broadphase(kind)), objects_(boxes.size()) {
    proxies_.reserve(boxes.size());
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      proxies_.push_back(broadphase_->createProxy(bt(boxes[i].min), bt(boxes[i].max), BOX_SHAPE_PROXYTYPE, &objects_[i],
                                                  btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter,
                                                  &dispatcher_));
    }
    broadphase_->calculateOverlappingPairs(&dispatcher_);
  }
  ~StaticProxies() {
    empty_pair_cache(*broadphase_->getOverlappingPairCache(), &dispatcher_);
    for (btBroadphaseProxy* p : proxies_) broadphase_->destroyProxy(p, &dispatcher_);
  }
  StaticProxies(const StaticProxies&) = delete;
  StaticProxies& operator=(const StaticProxies&) = delete;

  btBroadphaseInterface& broadphase() { return *broadphase_; }
  /// Pairs in the cache.
  int pairs() const { return broadphase_->getOverlappingPairCache()->getNumOverlappingPairs(); }

 private:
  btDefaultCollisionConfiguration configuration_;
  btCollisionDispatcher dispatcher_;
  std::unique_ptr<btBroadphaseInterface> broadphase_;
  std::vector<btCollisionObject> objects_;
  std::vector<btBroadphaseProxy*> proxies_;
};

/// agrid-bench-broadphase's BM_broadphase_rays/static-50k on a Bullet broadphase: its 50,000
/// static boxes as proxies, one calculateOverlappingPairs, then one iteration is its 500 rays,
/// on one thread (dbvt's rayTest is not thread safe in Debian's Bullet).
void bm_static_rays(benchmark::State& state, agrid::scenes::BroadphaseKind kind) {
  tbb::task_arena arena(1);
  arena.execute([&] {
    const std::vector<agrid::Box> boxes = agrid::scenes::ray_scene_boxes();
    std::vector<std::pair<btVector3, btVector3>> rays;
    for (const agrid::Segment& ray : agrid::scenes::ray_scene_rays()) rays.emplace_back(bt(ray.from), bt(ray.to));
    StaticProxies proxies(kind, boxes);
    state.counters["pairs"] = proxies.pairs();
    std::size_t hits = 0;
    for (auto _ : state) {
      hits = 0;
      for (const auto& [from, to] : rays) {
        CountingRayCallback callback(from, to);
        proxies.broadphase().rayTest(from, to, callback);
        hits += callback.reported;
      }
    }
    state.counters["hits"] = static_cast<double>(hits);
  });
}

/// The same 50,000 static proxies; one iteration is 500 box queries (aabbTest, boxes of 2 to 5
/// units, agrid_scenes/step_scenes.h), one thread.
void bm_static_aabb_tests(benchmark::State& state, agrid::scenes::BroadphaseKind kind) {
  tbb::task_arena arena(1);
  arena.execute([&] {
    const std::vector<agrid::Box> boxes = agrid::scenes::ray_scene_boxes();
    const std::vector<agrid::Box> queries = agrid::scenes::ray_scene_queries();
    std::size_t overlapping = 0;  // what an exact aabbTest reports, by brute force
    for (const agrid::Box& query : queries) {
      overlapping += static_cast<std::size_t>(
          std::count_if(boxes.begin(), boxes.end(), [&](const agrid::Box& box) { return agrid::overlaps(query, box); }));
    }
    std::vector<std::pair<btVector3, btVector3>> bounds;
    for (const agrid::Box& query : queries) bounds.emplace_back(bt(query.min), bt(query.max));
    StaticProxies proxies(kind, boxes);
    std::size_t reported = 0;
    for (auto _ : state) {
      CountingAabbCallback callback;
      for (const auto& [min, max] : bounds) proxies.broadphase().aabbTest(min, max, callback);
      reported = callback.reported;
    }
    state.counters["reported"] = static_cast<double>(reported);
    state.counters["overlapping"] = static_cast<double>(overlapping);
  });
}

/// BM_convex_sweep's city: kSweepBoxes static unit boxes on static-city's grid (spacing 2 on x
/// and z, ceil(sqrt(N)) a side), each lifted by up to kSweepMaxLift (the city's towers are 1 to
/// 3 high) and shifted by up to kSweepJitter on x and z (so at least 0.5 apart).
constexpr int kSweepBoxes = 100000;
constexpr btScalar kSweepSpacing = 2;
constexpr btScalar kSweepMaxLift = 2;
constexpr btScalar kSweepJitter = btScalar(0.25);
/// The sweeps: kSweeps spheres of radius kSweepRadius, each from a point clear of the city's
/// highest box (y from kSweepLowestStart to kSweepHighestStart) kSweepMinLength to
/// kSweepMaxLength along a random direction: most of those heading down hit the city, the others
/// miss (83 of the 200 hit).
constexpr int kSweeps = 200;
constexpr btScalar kSweepRadius = btScalar(0.5);
constexpr btScalar kSweepLowestStart = 1 + kSweepMaxLift + kSweepRadius;  // a box is 1 high
constexpr btScalar kSweepHighestStart = 8;
constexpr btScalar kSweepMinLength = 10;
constexpr btScalar kSweepMaxLength = 30;
constexpr std::uint64_t kSweepSeed = 32;

/// BM_convex_sweep/static-100k: a btCollisionWorld (no dynamics) of the city's static boxes (one
/// shared btBoxShape) on a broadphase of `kind`, its AABBs and pairs brought up to date once
/// (performDiscreteCollisionDetection); one iteration is kSweeps convexSweepTest calls of a
/// sphere with a ClosestConvexResultCallback, one thread.
void bm_convex_sweep(benchmark::State& state, agrid::scenes::BroadphaseKind kind) {
  tbb::task_arena arena(1);
  arena.execute([&] {
    agrid::scenes::Random rng(kSweepSeed);
    const auto uniform = [&](btScalar lo, btScalar hi) { return rng.uniform(lo, hi); };
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher(&configuration);
    const std::unique_ptr<btBroadphaseInterface> broadphase = make_broadphase(kind);
    btBoxShape box(btVector3(btScalar(0.5), btScalar(0.5), btScalar(0.5)));
    btSphereShape sphere(kSweepRadius);
    std::vector<btCollisionObject> objects(kSweepBoxes);  // declared before the world: it outlives them
    btCollisionWorld world(&dispatcher, broadphase.get(), &configuration);
    for (int i = 0; i < kSweepBoxes; ++i) {
      btCollisionObject& object = objects[static_cast<std::size_t>(i)];
      const agrid::Vec3 lot = agrid::scenes::square_lattice_point(static_cast<std::uint32_t>(i), kSweepBoxes, kSweepSpacing);
      const btScalar x = lot.x + uniform(-kSweepJitter, kSweepJitter);
      const btScalar lift = uniform(0, kSweepMaxLift);
      const btScalar z = lot.z + uniform(-kSweepJitter, kSweepJitter);
      object.setCollisionShape(&box);
      object.getWorldTransform().setOrigin(btVector3(x, btScalar(0.5) + lift, z));
      object.setCollisionFlags(btCollisionObject::CF_STATIC_OBJECT);
      world.addCollisionObject(&object, btBroadphaseProxy::StaticFilter,
                               btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter);
    }
    world.performDiscreteCollisionDetection();
    const btScalar extent = kSweepSpacing * static_cast<btScalar>(agrid::scenes::square_lattice_side(kSweepBoxes) - 1);
    std::vector<std::pair<btTransform, btTransform>> sweeps;
    for (int i = 0; i < kSweeps; ++i) {
      const btVector3 from(uniform(0, extent), uniform(kSweepLowestStart, kSweepHighestStart), uniform(0, extent));
      btVector3 direction;
      do {  // a direction uniform on the sphere: a point of the unit ball (not near its centre), normalized
        direction = btVector3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
      } while (direction.length2() > 1 || direction.length2() < btScalar(0.01));
      const btVector3 to = from + direction.normalized() * uniform(kSweepMinLength, kSweepMaxLength);
      sweeps.emplace_back(btTransform(btQuaternion::getIdentity(), from), btTransform(btQuaternion::getIdentity(), to));
    }
    std::size_t hits = 0;
    for (auto _ : state) {
      hits = 0;
      for (const auto& [from, to] : sweeps) {
        btCollisionWorld::ClosestConvexResultCallback callback(from.getOrigin(), to.getOrigin());
        world.convexSweepTest(&sphere, from, to, callback);
        if (callback.hasHit()) ++hits;
      }
    }
    state.counters["hits"] = static_cast<double>(hits);
  });
}

/// Heap bytes in use (glibc): chunks in use in the arenas' heap (uordblks) plus the chunks
/// glibc gave their own mmap (hblkhd: large blocks, such as a big tree's or pair cache's arrays,
/// which uordblks does not count).
std::size_t heap_in_use() {
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

/// A step scene (agrid_scenes/step_scenes.h's FrozenStepRun or StreamStepRun) on a Bullet broadphase:
/// its proxies made by hand (no world, no narrowphase), `warmup` steps untimed, then one timed
/// step per iteration, one thread.
template <class Run>
void bm_broadphase_step(benchmark::State& state, Run& run, int warmup, agrid::scenes::BroadphaseKind kind) {
  tbb::task_arena arena(1);
  arena.execute([&] {
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher(&configuration);
    const std::size_t heap_before = heap_in_use();
    const std::unique_ptr<btBroadphaseInterface> broadphase = make_broadphase(kind);
    const auto create = [&](const agrid::Box& box) {
      return broadphase->createProxy(bt(box.min), bt(box.max), BOX_SHAPE_PROXYTYPE, nullptr,
                                     btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter, &dispatcher);
    };
    const auto remove = [&](btBroadphaseProxy* proxy) { broadphase->destroyProxy(proxy, &dispatcher); };
    const auto set_box = [&](btBroadphaseProxy* proxy, const agrid::Box& box) {
      broadphase->setAabb(proxy, bt(box.min), bt(box.max), &dispatcher);
    };
    const auto step = [&] {
      run.step(create, remove, set_box);
      broadphase->calculateOverlappingPairs(&dispatcher);
    };
    run.start(create);
    broadphase->calculateOverlappingPairs(&dispatcher);
    for (int i = 0; i < warmup; ++i) {
      run.prepare();
      step();
    }
    const double bytes = static_cast<double>(heap_in_use() - heap_before);
    std::vector<double> step_ms;
    step_ms.reserve(agrid::scenes::kStepTimedSteps);
    for (auto _ : state) {
      state.PauseTiming();
      run.prepare();
      state.ResumeTiming();
      const auto start = std::chrono::steady_clock::now();
      step();
      step_ms.push_back(ms(std::chrono::steady_clock::now() - start));
    }
    btOverlappingPairCache& cache = *broadphase->getOverlappingPairCache();
    state.counters["median_ms"] = median(step_ms);
    state.counters["max_ms"] = step_ms.empty() ? 0 : *std::max_element(step_ms.begin(), step_ms.end());
    state.counters["pairs"] = cache.getNumOverlappingPairs();
    state.counters["bytes_per_object"] = bytes / static_cast<double>(run.objects());
    empty_pair_cache(cache, &dispatcher);
    run.for_each_handle(remove);
  });
}

// ---- Worlds that change: streaming, a burst, a level loaded and unloaded ---------------------

/// The broadphases of the world benchmarks.
constexpr agrid::scenes::BroadphaseKind kWorldKinds[] = {agrid::scenes::BroadphaseKind::dbvt,
                                                         agrid::scenes::BroadphaseKind::agrid};

/// A floor tile of the streaming and level worlds: 2 x 1 x 2, laid edge to edge (spacing 2) with
/// its top at y = 0, so that the spheres on it roll and never fall through.
constexpr btScalar kTileHalfWidth = 1;
constexpr btScalar kTileHalfHeight = btScalar(0.5);
constexpr btScalar kTileSpacing = 2 * kTileHalfWidth;
/// The spheres rolling or falling on the tiles.
constexpr btScalar kSphereRadius = btScalar(0.5);
constexpr btScalar kSphereMass = 1;
/// Seed of every world benchmark's random positions and velocities.
constexpr std::uint64_t kWorldSeed = 31;

using BodyPtr = std::unique_ptr<btRigidBody>;

/// A duration in seconds.
double seconds(std::chrono::nanoseconds t) { return std::chrono::duration<double>(t).count(); }


/// A timed world with gravity on the chosen broadphase; its bodies are made and owned by the
/// benchmark (the harness's own destroy_body searches its lists: O(bodies) per removal).
agrid::scenes::HarnessDef world_def(agrid::scenes::BroadphaseKind kind) {
  agrid::scenes::HarnessDef def;
  def.kind = kind;
  def.timed = true;
  def.gravity = btVector3(0, -10, 0);
  return def;
}

/// A rigid body at `at`, static if `mass` is 0, without a motion state, not yet in a world.
BodyPtr make_body(btCollisionShape* shape, btScalar mass, const btVector3& at) {
  btVector3 inertia(0, 0, 0);
  if (mass > 0) shape->calculateLocalInertia(mass, inertia);
  btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, shape, inertia);
  info.m_startWorldTransform.setOrigin(at);
  return std::make_unique<btRigidBody>(info);
}

/// The tile of floor row `row` (along x) and column `column` (along z), `spacing` apart.
btVector3 tile_at(int row, int column, btScalar spacing = kTileSpacing) {
  return {spacing * static_cast<btScalar>(row), -kTileHalfHeight, spacing * static_cast<btScalar>(column)};
}

/// A sphere resting on the floor at (x, z), rolling at `speed` in a random horizontal direction.
BodyPtr rolling_sphere(btCollisionShape* sphere, btScalar x, btScalar z, btScalar speed, agrid::scenes::Random& rng) {
  BodyPtr body = make_body(sphere, kSphereMass, btVector3(x, kSphereRadius, z));
  const btScalar angle = rng.uniform(btScalar(0), 2 * SIMD_PI);
  body->setLinearVelocity(btVector3(speed * std::cos(angle), 0, speed * std::sin(angle)));
  return body;
}

/// What removeRigidBody spends in its own list of dynamic bodies to remove `bodies` in this
/// order (m_nonStaticRigidBodies.remove: a linear search, made for static bodies too, which are
/// not in the list): the same removals replayed on a copy of the list. Bullet's cost, the same
/// for every broadphase.
double dynamic_list_ms(const btDiscreteDynamicsWorld& world, std::span<const BodyPtr> bodies) {
  btAlignedObjectArray<btRigidBody*> list(world.getNonStaticRigidBodies());
  const auto start = std::chrono::steady_clock::now();
  for (const BodyPtr& body : bodies) list.remove(body.get());
  const auto time = std::chrono::steady_clock::now() - start;
  int left = list.size();
  benchmark::DoNotOptimize(left);
  return ms(time);
}

/// Untimed teardown in O(bodies): empties the pair cache, removes the dynamic bodies (each
/// found first in removeRigidBody's search of their list), then the others from the end of the
/// world's array. The bodies stay with their owners.
void clear_world(btDiscreteDynamicsWorld& world) {
  empty_pair_cache(*world.getBroadphase()->getOverlappingPairCache(), world.getDispatcher());
  while (world.getNonStaticRigidBodies().size() > 0) world.removeRigidBody(world.getNonStaticRigidBodies()[0]);
  while (world.getNumCollisionObjects() > 0) {
    world.removeCollisionObject(world.getCollisionObjectArray()[world.getNumCollisionObjects() - 1]);
  }
}

/// BM_world_stream's floor: a window of kStreamBatches batches of kStreamBatch tiles, each batch
/// kStreamRowsPerBatch rows (x) of kStreamColumns tiles (z). Every step the oldest batch leaves
/// and a new one joins ahead, as an open world streams its level around the player.
constexpr int kStreamColumns = 200;
constexpr int kStreamBatch = 2000;
constexpr int kStreamBatches = 100;
constexpr int kStreamRowsPerBatch = kStreamBatch / kStreamColumns;
/// Spheres rolling on the window's front half: the back of the window never reaches them.
constexpr int kStreamMovers = 5000;
constexpr int kStreamMoverFirstRow = kStreamBatches * kStreamRowsPerBatch / 2;
constexpr btScalar kStreamMoverMinSpeed = 2;
constexpr btScalar kStreamMoverMaxSpeed = 4;
constexpr int kStreamWarmupSteps = 5;
constexpr int kStreamTimedSteps = 15;
static_assert((kStreamWarmupSteps + kStreamTimedSteps + 1) * kStreamRowsPerBatch < kStreamMoverFirstRow,
              "the stream's window must not pass under its spheres");

/// One batch of the stream: the tiles of kStreamRowsPerBatch rows from `first_row` on, static.
std::vector<BodyPtr> stream_batch(btCollisionShape* tile, int first_row) {
  std::vector<BodyPtr> batch;
  batch.reserve(kStreamBatch);
  for (int row = first_row; row < first_row + kStreamRowsPerBatch; ++row) {
    for (int column = 0; column < kStreamColumns; ++column) batch.push_back(make_body(tile, 0, tile_at(row, column)));
  }
  return batch;
}

/// BM_world_stream/200k: the stream's window (200,000 static tiles) under 5,000 rolling spheres,
/// setForceUpdateAllAabbs(false) (a streamed level is big: Bullet would recompute every tile's
/// box every step otherwise). One iteration is one step: the oldest batch removed
/// (removeRigidBody), a new batch added (addRigidBody; the bodies were made untimed), then
/// stepSimulation.
/// On `thread_count` threads (kThreads, or 1 to say what the second thread brings).
void bm_world_stream(benchmark::State& state, agrid::scenes::BroadphaseKind kind, int thread_count) {
  const tbb::global_control threads(tbb::global_control::max_allowed_parallelism, thread_count);
  tbb::task_arena arena(thread_count);
  arena.execute([&] {
    agrid::scenes::BulletHarness harness(world_def(kind));
    btDiscreteDynamicsWorld& world = harness.world();
    world.setForceUpdateAllAabbs(false);
    btCollisionShape* tile = harness.own(std::make_unique<btBoxShape>(btVector3(kTileHalfWidth, kTileHalfHeight, kTileHalfWidth)));
    btCollisionShape* sphere = harness.own(std::make_unique<btSphereShape>(kSphereRadius));
    agrid::scenes::Random rng(kWorldSeed);
    std::vector<std::vector<BodyPtr>> window(kStreamBatches);  // a ring: window[oldest] leaves next
    std::size_t oldest = 0;
    int next_row = 0;
    for (std::vector<BodyPtr>& batch : window) {
      batch = stream_batch(tile, next_row);
      next_row += kStreamRowsPerBatch;
    }
    std::vector<BodyPtr> movers;
    const btScalar first_x = kTileSpacing * static_cast<btScalar>(kStreamMoverFirstRow);
    const btScalar last_x = kTileSpacing * static_cast<btScalar>(next_row - 1);
    const btScalar last_z = kTileSpacing * static_cast<btScalar>(kStreamColumns - 2);
    for (int i = 0; i < kStreamMovers; ++i) {
      const btScalar x = rng.uniform(first_x, last_x);
      const btScalar z = rng.uniform(kTileSpacing, last_z);
      const btScalar speed = rng.uniform(kStreamMoverMinSpeed, kStreamMoverMaxSpeed);
      movers.push_back(rolling_sphere(sphere, x, z, speed, rng));
    }
    const auto build_start = std::chrono::steady_clock::now();
    for (const std::vector<BodyPtr>& batch : window) {
      for (const BodyPtr& body : batch) world.addRigidBody(body.get());
    }
    for (const BodyPtr& body : movers) world.addRigidBody(body.get());
    const double build_s = seconds(std::chrono::steady_clock::now() - build_start);

    struct ChurnTimes {
      double remove_ms, add_ms, step_ms, total_ms;
    };
    // Unload the batch behind, load the one ahead, step.
    const auto churn = [&](const std::vector<BodyPtr>& fresh) {
      const auto start = std::chrono::steady_clock::now();
      for (const BodyPtr& body : window[oldest]) world.removeRigidBody(body.get());
      const auto removed = std::chrono::steady_clock::now();
      for (const BodyPtr& body : fresh) world.addRigidBody(body.get());
      const auto added = std::chrono::steady_clock::now();
      harness.step();
      const auto stepped = std::chrono::steady_clock::now();
      return ChurnTimes{ms(removed - start), ms(added - removed), ms(stepped - added), ms(stepped - start)};
    };
    const auto advance = [&](std::vector<BodyPtr> fresh) {
      window[oldest] = std::move(fresh);  // deletes the batch removed
      oldest = (oldest + 1) % window.size();
      next_row += kStreamRowsPerBatch;
    };
    for (int i = 0; i < kStreamWarmupSteps; ++i) {
      std::vector<BodyPtr> fresh = stream_batch(tile, next_row);
      churn(fresh);
      advance(std::move(fresh));
    }
    std::vector<double> total_ms, remove_ms, add_ms, step_ms, broadphase_ms, pairs_ms, list_ms;
    for (auto _ : state) {
      state.PauseTiming();
      std::vector<BodyPtr> fresh = stream_batch(tile, next_row);
      list_ms.push_back(dynamic_list_ms(world, window[oldest]));
      state.ResumeTiming();
      const ChurnTimes t = churn(fresh);
      state.PauseTiming();
      advance(std::move(fresh));
      total_ms.push_back(t.total_ms);
      remove_ms.push_back(t.remove_ms);
      add_ms.push_back(t.add_ms);
      step_ms.push_back(t.step_ms);
      broadphase_ms.push_back(ms(harness.timed()->last_step_time()));
      if (harness.grid() != nullptr) pairs_ms.push_back(1e3 * harness.grid()->lastStepStats().m_calculateOverlappingPairsSeconds);
      state.ResumeTiming();
    }
    state.counters["median_ms"] = median(total_ms);
    state.counters["max_ms"] = total_ms.empty() ? 0 : *std::max_element(total_ms.begin(), total_ms.end());
    state.counters["remove_ms"] = median(remove_ms);
    state.counters["add_ms"] = median(add_ms);
    state.counters["step_ms"] = median(step_ms);
    state.counters["bp_ms"] = median(broadphase_ms);
    state.counters["cop_ms"] = median(pairs_ms);
    state.counters["bullet_list_ms"] = median(list_ms);
    state.counters["pairs"] = harness.cache().getNumOverlappingPairs();
    state.counters["bodies"] = world.getNumCollisionObjects();
    state.counters["build_s"] = build_s;
    state.counters["threads"] = thread_count;
    clear_world(world);
  });
}

/// BM_world_burst's pile: kBurstPileSide x kBurstPileLayers x kBurstPileSide unit boxes dropped
/// from a lattice of spacing 1.5 onto a static ground box (they land as columns of 5), settled
/// by the warm-up steps. They never sleep, so that the steps before and after the burst see the
/// same world (a sleeping pile would make them depend on how long it has rested: 2 s).
constexpr int kBurstPileSide = 20;
constexpr int kBurstPileLayers = 5;
constexpr btScalar kBurstPileSpacing = btScalar(1.5);
constexpr btScalar kBurstGroundHalfWidth = 60;
constexpr int kBurstWarmupSteps = 90;
/// The burst: kBurstSide x kBurstLayers x kBurstSide spheres of radius 0.25 (debris of a
/// demolition) appearing at once just above the pile (its top is at y = 5), falling onto it,
/// removed at once. They are 0.75 apart, beyond the reach of dbvt's fattened leaves
/// (2 x (0.25 + 0.02 + 0.05)), so that both broadphases hold about as many pairs: at 0.6 apart
/// dbvt held 58,000 pairs to agrid's 6,400, and the removal, O(pairs) per body in Bullet's cache,
/// compared pair counts rather than broadphases.
constexpr int kBurstSide = 25;
constexpr int kBurstLayers = 8;
constexpr btScalar kBurstRadius = btScalar(0.25);
constexpr btScalar kBurstSpacing = btScalar(0.75);
constexpr btScalar kBurstLowest = 6;
/// Steps timed before the burst, with it (the step after the add included: the lower layers
/// have landed by the removal), and after the removal; the cycle is run this many times in one
/// world.
constexpr int kBurstStepsBefore = 10;
constexpr int kBurstStepsDuring = 40;
constexpr int kBurstStepsAfter = 10;
constexpr int kBurstCycles = 3;

/// The burst's 5,000 spheres, made (not added).
std::vector<BodyPtr> burst_debris(btCollisionShape* debris) {
  std::vector<BodyPtr> bodies;
  bodies.reserve(static_cast<std::size_t>(kBurstSide * kBurstSide * kBurstLayers));
  const btScalar offset = -kBurstSpacing * static_cast<btScalar>(kBurstSide - 1) / 2;
  for (int y = 0; y < kBurstLayers; ++y) {
    for (int z = 0; z < kBurstSide; ++z) {
      for (int x = 0; x < kBurstSide; ++x) {
        const btVector3 at(offset + kBurstSpacing * static_cast<btScalar>(x), kBurstLowest + kBurstSpacing * static_cast<btScalar>(y),
                           offset + kBurstSpacing * static_cast<btScalar>(z));
        bodies.push_back(make_body(debris, kSphereMass, at));
      }
    }
  }
  return bodies;
}

/// BM_world_burst: a settled pile of 2,000 boxes on a ground; one iteration is one cycle:
/// kBurstStepsBefore steps, 5,000 spheres added in one go (addRigidBody), kBurstStepsDuring
/// steps, the 5,000 removed in one go in the order they were added (removeRigidBody),
/// kBurstStepsAfter steps.
void bm_world_burst(benchmark::State& state, agrid::scenes::BroadphaseKind kind) {
  const tbb::global_control threads(tbb::global_control::max_allowed_parallelism, kThreads);
  tbb::task_arena arena(kThreads);
  arena.execute([&] {
    agrid::scenes::BulletHarness harness(world_def(kind));
    btDiscreteDynamicsWorld& world = harness.world();
    btCollisionShape* ground_shape =
        harness.own(std::make_unique<btBoxShape>(btVector3(kBurstGroundHalfWidth, btScalar(0.5), kBurstGroundHalfWidth)));
    btCollisionShape* box = harness.own(std::make_unique<btBoxShape>(btVector3(btScalar(0.5), btScalar(0.5), btScalar(0.5))));
    btCollisionShape* debris_shape = harness.own(std::make_unique<btSphereShape>(kBurstRadius));
    const BodyPtr ground = make_body(ground_shape, 0, btVector3(0, btScalar(-0.5), 0));
    world.addRigidBody(ground.get());
    std::vector<BodyPtr> pile;
    const btScalar offset = -kBurstPileSpacing * static_cast<btScalar>(kBurstPileSide - 1) / 2;
    for (int y = 0; y < kBurstPileLayers; ++y) {
      for (int z = 0; z < kBurstPileSide; ++z) {
        for (int x = 0; x < kBurstPileSide; ++x) {
          const btVector3 at(offset + kBurstPileSpacing * static_cast<btScalar>(x),
                             btScalar(0.75) + kBurstPileSpacing * static_cast<btScalar>(y),
                             offset + kBurstPileSpacing * static_cast<btScalar>(z));
          pile.push_back(make_body(box, 1, at));
          pile.back()->setActivationState(DISABLE_DEACTIVATION);
          world.addRigidBody(pile.back().get());
        }
      }
    }
    harness.step(kBurstWarmupSteps);
    std::vector<double> before_ms, during_ms, after_ms, add_ms, remove_ms, list_ms, pairs;
    const auto timed_steps = [&](int steps, std::vector<double>& into) {
      for (int i = 0; i < steps; ++i) {
        const auto start = std::chrono::steady_clock::now();
        harness.step();
        into.push_back(ms(std::chrono::steady_clock::now() - start));
      }
    };
    for (auto _ : state) {
      timed_steps(kBurstStepsBefore, before_ms);
      state.PauseTiming();
      std::vector<BodyPtr> debris = burst_debris(debris_shape);
      state.ResumeTiming();
      const auto add_start = std::chrono::steady_clock::now();
      for (const BodyPtr& body : debris) world.addRigidBody(body.get());
      add_ms.push_back(ms(std::chrono::steady_clock::now() - add_start));
      timed_steps(kBurstStepsDuring, during_ms);
      state.PauseTiming();
      list_ms.push_back(dynamic_list_ms(world, debris));
      pairs.push_back(harness.cache().getNumOverlappingPairs());
      state.ResumeTiming();
      const auto remove_start = std::chrono::steady_clock::now();
      for (const BodyPtr& body : debris) world.removeRigidBody(body.get());
      remove_ms.push_back(ms(std::chrono::steady_clock::now() - remove_start));
      timed_steps(kBurstStepsAfter, after_ms);
      state.PauseTiming();
      debris.clear();
      state.ResumeTiming();
    }
    state.counters["add_ms"] = median(add_ms);
    state.counters["remove_ms"] = median(remove_ms);
    state.counters["before_ms"] = median(before_ms);
    state.counters["during_ms"] = median(during_ms);
    state.counters["after_ms"] = median(after_ms);
    state.counters["bullet_list_ms"] = median(list_ms);
    state.counters["pairs"] = median(pairs);
    state.counters["threads"] = kThreads;
    clear_world(world);
  });
}

/// BM_world_level: a kLevelSide x kLevelSide floor of static tiles (1,000,000) and kLevelSpheres
/// spheres falling onto it from heights up to kLevelHighest (all land within ~40 steps).
constexpr int kLevelSide = 1000;
constexpr int kLevelSpheres = 1000;
constexpr btScalar kLevelLowest = btScalar(0.6);
constexpr btScalar kLevelHighest = btScalar(2.6);
constexpr int kLevelWarmupSteps = 10;
constexpr int kLevelTimedSteps = 20;
/// The "apart" level's tiles leave this gap between them (more than Bullet's contact threshold
/// grows each box by on each side, 0.02): its static objects overlap nothing of their own.
constexpr btScalar kLevelGap = btScalar(0.25);

/// The level's floor and how agrid watches filters there.
struct LevelVariant {
  const char* name;        ///< The benchmark's middle part.
  bool apart;              ///< Tiles kLevelGap apart, else edge to edge (touching: every tile's box overlaps its neighbours').
  bool watch_at_rest;      ///< btAdaptiveGridBroadphase::setWatchFiltersAtRest.
  bool force_update_all;   ///< btCollisionWorld::setForceUpdateAllAabbs: Bullet's default is true.
};
constexpr LevelVariant kLevelVariants[] = {
    {"touching", false, true, false},
    {"touching-unwatched", false, false, false},
    {"apart", true, true, false},
    {"apart-all-updated", true, true, true},
};

/// BM_world_level: a big static level with setForceUpdateAllAabbs(false), as its users run it
/// (and with Bullet's default, true, to say what that costs).
/// Built untimed (build_s), kLevelWarmupSteps steps, then one iteration: kLevelTimedSteps
/// steps, then the level unloaded: every tile removed (removeRigidBody) with the spheres still
/// on them, then the spheres. Memory is read before the world is made, at full level (after the
/// steps) and after the unload, the bodies deleted and malloc_trim(0), the world still alive.
void bm_world_level(benchmark::State& state, agrid::scenes::BroadphaseKind kind, const LevelVariant& variant) {
  const tbb::global_control threads(tbb::global_control::max_allowed_parallelism, kThreads);
  tbb::task_arena arena(kThreads);
  arena.execute([&] {
    malloc_trim(0);
    const std::size_t heap_before = heap_in_use();
    const std::size_t rss_before = resident_bytes();
    agrid::scenes::BulletHarness harness(world_def(kind));
    btDiscreteDynamicsWorld& world = harness.world();
    world.setForceUpdateAllAabbs(variant.force_update_all);
    if (harness.grid() != nullptr) harness.grid()->setWatchFiltersAtRest(variant.watch_at_rest);
    const btScalar spacing = kTileSpacing + (variant.apart ? kLevelGap : 0);
    btCollisionShape* tile = harness.own(std::make_unique<btBoxShape>(btVector3(kTileHalfWidth, kTileHalfHeight, kTileHalfWidth)));
    btCollisionShape* sphere = harness.own(std::make_unique<btSphereShape>(kSphereRadius));
    std::vector<BodyPtr> tiles;
    tiles.reserve(static_cast<std::size_t>(kLevelSide) * kLevelSide);
    for (int row = 0; row < kLevelSide; ++row) {
      for (int column = 0; column < kLevelSide; ++column) tiles.push_back(make_body(tile, 0, tile_at(row, column, spacing)));
    }
    std::vector<BodyPtr> spheres;
    agrid::scenes::Random rng(kWorldSeed);
    const btScalar across = spacing * static_cast<btScalar>(kLevelSide - 1);
    for (int i = 0; i < kLevelSpheres; ++i) {
      const btScalar x = rng.uniform(btScalar(0), across);
      const btScalar y = rng.uniform(kLevelLowest, kLevelHighest);
      const btScalar z = rng.uniform(btScalar(0), across);
      spheres.push_back(make_body(sphere, kSphereMass, btVector3(x, y, z)));
    }
    const std::size_t heap_made = heap_in_use();
    const auto build_start = std::chrono::steady_clock::now();
    for (const BodyPtr& body : tiles) world.addRigidBody(body.get());
    for (const BodyPtr& body : spheres) world.addRigidBody(body.get());
    const double build_s = seconds(std::chrono::steady_clock::now() - build_start);
    const double bodies = static_cast<double>(world.getNumCollisionObjects());
    const auto warmup_start = std::chrono::steady_clock::now();
    harness.step(kLevelWarmupSteps);
    const double warmup_s = seconds(std::chrono::steady_clock::now() - warmup_start);

    std::vector<double> step_ms, broadphase_ms, pairs_ms;
    double unload_s = 0;
    double after_unload_ms = 0;
    double list_s = 0;
    double pairs = 0;
    std::size_t heap_full = 0;
    std::size_t rss_full = 0;
    std::size_t grid_bytes_full = 0;
    for (auto _ : state) {
      for (int i = 0; i < kLevelTimedSteps; ++i) {
        const auto start = std::chrono::steady_clock::now();
        harness.step();
        step_ms.push_back(ms(std::chrono::steady_clock::now() - start));
        broadphase_ms.push_back(ms(harness.timed()->last_step_time()));
        if (harness.grid() != nullptr) pairs_ms.push_back(1e3 * harness.grid()->lastStepStats().m_calculateOverlappingPairsSeconds);
      }
      state.PauseTiming();
      heap_full = heap_in_use();
      rss_full = resident_bytes();
      if (harness.grid() != nullptr) grid_bytes_full = harness.grid()->broadphase().stats().bytes_held;
      pairs = harness.cache().getNumOverlappingPairs();
      list_s = 1e-3 * (dynamic_list_ms(world, tiles) + dynamic_list_ms(world, spheres));
      state.ResumeTiming();
      // Tiles first: their pairs with the spheres are still in the cache, as when a game unloads
      // a level under the bodies still on it. (Spheres first would spare Bullet's search of its
      // dynamic list, list_s, but leave the cache empty, hiding what removal costs with pairs.)
      const auto unload_start = std::chrono::steady_clock::now();
      for (const BodyPtr& body : tiles) world.removeRigidBody(body.get());
      for (const BodyPtr& body : spheres) world.removeRigidBody(body.get());
      unload_s = seconds(std::chrono::steady_clock::now() - unload_start);
      // The game steps on (an empty world, or the next level's): the step after an unload is
      // where a broadphase that defers its work does it, and where agrid gives memory back.
      const auto after_start = std::chrono::steady_clock::now();
      harness.step();
      after_unload_ms = ms(std::chrono::steady_clock::now() - after_start);
    }
    clear_world(world);  // a no-op, unless the timed loop did not run
    std::vector<BodyPtr>().swap(tiles);  // deletes the bodies and frees the vectors
    std::vector<BodyPtr>().swap(spheres);
    malloc_trim(0);
    const std::size_t heap_after = heap_in_use();
    const std::size_t rss_after = resident_bytes();
    const auto signed_mib = [](std::size_t after, std::size_t before) {
      return (static_cast<double>(after) - static_cast<double>(before)) / kMiB;
    };
    state.counters["step_ms"] = median(step_ms);
    state.counters["bp_ms"] = median(broadphase_ms);
    state.counters["cop_ms"] = median(pairs_ms);
    state.counters["pairs"] = pairs;
    state.counters["build_s"] = build_s;
    state.counters["warmup_s"] = warmup_s;
    state.counters["unload_s"] = unload_s;
    state.counters["after_unload_ms"] = after_unload_ms;
    state.counters["bullet_list_s"] = list_s;
    state.counters["bytes_per_object"] = (static_cast<double>(heap_full) - static_cast<double>(heap_before)) / bodies;
    state.counters["world_bytes_per_object"] = (static_cast<double>(heap_full) - static_cast<double>(heap_made)) / bodies;
    state.counters["rss_full_mib"] = signed_mib(rss_full, rss_before);
    state.counters["held_mib"] = signed_mib(heap_after, heap_before);
    state.counters["rss_held_mib"] = signed_mib(rss_after, rss_before);
    if (harness.grid() != nullptr) {
      state.counters["bytes_held_full_mib"] = static_cast<double>(grid_bytes_full) / kMiB;
      state.counters["bytes_held_mib"] = static_cast<double>(harness.grid()->broadphase().stats().bytes_held) / kMiB;
    }
    state.counters["bodies"] = bodies;
    state.counters["threads"] = kThreads;
  });
}

}  // namespace

int main(int argc, char** argv) {
  for (const AbScene& scene : kScenes) {
    for (const auto kind : kKinds) {
      const std::string name = std::string("BM_bullet/") + scene.name + "-" + std::to_string(scene.bodies / 1000) + "k/" +
                               std::string(agrid::scenes::name(kind));
      benchmark::RegisterBenchmark(name.c_str(), [scene, kind](benchmark::State& state) {
        bm_world(state, scene.name, scene.bodies, scene.warmup_steps, kind);
      })
          ->Iterations(scene.timed_steps)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  for (const agrid::scenes::WorldSceneInfo& scene : agrid::scenes::world_scenes()) {
    if (!scene.fixed_bodies) continue;
    for (const auto kind : kKinds) {
      const std::string name = "BM_bullet/" + std::string(scene.name) + "/" + std::string(agrid::scenes::name(kind));
      const std::string_view scene_name = scene.name;
      benchmark::RegisterBenchmark(name.c_str(), [scene_name, kind](benchmark::State& state) {
        bm_world(state, scene_name, 1, 0, kind);
      })
          ->Iterations(kBenchSceneSteps)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  for (const auto kind : kKinds) {
    const std::string name = "BM_broadphase_rays/bench-7/" + std::string(agrid::scenes::name(kind));
    benchmark::RegisterBenchmark(name.c_str(), [kind](benchmark::State& state) { bm_broadphase_rays(state, kind); })
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
  }
  for (const auto kind : {agrid::scenes::BroadphaseKind::dbvt, agrid::scenes::BroadphaseKind::agrid}) {
    const std::string name = "BM_trigger_zone/scatter-5k/" + std::string(agrid::scenes::name(kind));
    benchmark::RegisterBenchmark(name.c_str(), [kind](benchmark::State& state) { bm_trigger_zone(state, kind); })
        ->Iterations(kTriggerSteps)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const auto kind : {agrid::scenes::BroadphaseKind::dbvt, agrid::scenes::BroadphaseKind::agrid}) {
    const std::string name = "BM_broadphase_rays/static-50k/" + std::string(agrid::scenes::name(kind));
    benchmark::RegisterBenchmark(name.c_str(), [kind](benchmark::State& state) { bm_static_rays(state, kind); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const auto kind : {agrid::scenes::BroadphaseKind::dbvt, agrid::scenes::BroadphaseKind::agrid}) {
    const std::string name = "BM_broadphase_aabb_test/static-50k/" + std::string(agrid::scenes::name(kind));
    benchmark::RegisterBenchmark(name.c_str(), [kind](benchmark::State& state) { bm_static_aabb_tests(state, kind); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const auto kind : {agrid::scenes::BroadphaseKind::dbvt, agrid::scenes::BroadphaseKind::agrid}) {
    const std::string name = "BM_convex_sweep/static-100k/" + std::string(agrid::scenes::name(kind));
    benchmark::RegisterBenchmark(name.c_str(), [kind](benchmark::State& state) { bm_convex_sweep(state, kind); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  constexpr agrid::scenes::BroadphaseKind kStepKinds[] = {agrid::scenes::BroadphaseKind::dbvt,
                                                          agrid::scenes::BroadphaseKind::agrid};
  for (const agrid::scenes::FrozenStepScene& scene : agrid::scenes::kFrozenStepScenes) {
    for (const auto kind : kStepKinds) {
      const std::string name =
          "BM_broadphase_step/" + std::string(scene.name) + "/" + std::string(agrid::scenes::name(kind));
      benchmark::RegisterBenchmark(name.c_str(), [&scene, kind](benchmark::State& state) {
        agrid::scenes::FrozenStepRun<btBroadphaseProxy*> run(scene);
        bm_broadphase_step(state, run, agrid::scenes::kFrozenStepWarmup, kind);
      })
          ->Iterations(agrid::scenes::kStepTimedSteps)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  for (const agrid::scenes::StreamStepScene& scene : agrid::scenes::kStreamStepScenes) {
    for (const auto kind : kStepKinds) {
      const std::string name =
          "BM_broadphase_step/" + std::string(scene.name) + "/" + std::string(agrid::scenes::name(kind));
      benchmark::RegisterBenchmark(name.c_str(), [&scene, kind](benchmark::State& state) {
        agrid::scenes::StreamStepRun<btBroadphaseProxy*> run(scene);
        bm_broadphase_step(state, run, agrid::scenes::kStreamStepWarmup, kind);
      })
          ->Iterations(agrid::scenes::kStepTimedSteps)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  for (const bool timed : {false, true}) {
    benchmark::RegisterBenchmark(timed ? "BM_resting_step/100k/agrid-timed" : "BM_resting_step/100k/agrid",
                                 [timed](benchmark::State& state) { bm_resting_step(state, timed); })
        ->Unit(benchmark::kMicrosecond);
  }
  for (const auto kind : kWorldKinds) {
    const std::string kind_name(agrid::scenes::name(kind));
    benchmark::RegisterBenchmark(("BM_world_stream/200k/" + kind_name).c_str(),
                                 [kind](benchmark::State& state) { bm_world_stream(state, kind, kThreads); })
        ->Iterations(kStreamTimedSteps)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    if (kind == agrid::scenes::BroadphaseKind::agrid) {
      benchmark::RegisterBenchmark("BM_world_stream/200k/agrid-1-thread",
                                   [kind](benchmark::State& state) { bm_world_stream(state, kind, 1); })
          ->Iterations(kStreamTimedSteps)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
    benchmark::RegisterBenchmark(("BM_world_burst/" + kind_name).c_str(),
                                 [kind](benchmark::State& state) { bm_world_burst(state, kind); })
        ->Iterations(kBurstCycles)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const LevelVariant& variant : kLevelVariants) {
    for (const auto kind : kWorldKinds) {
      // The watch is the adapter's: dbvt runs the touching and apart levels once each, and
      // Bullet's default only where it costs least, apart.
      if (!variant.watch_at_rest && kind != agrid::scenes::BroadphaseKind::agrid) continue;
      const std::string name = "BM_world_level/" + std::string(variant.name) + "/" + std::string(agrid::scenes::name(kind));
      benchmark::RegisterBenchmark(name.c_str(), [kind, &variant](benchmark::State& state) {
        bm_world_level(state, kind, variant);
      })
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
