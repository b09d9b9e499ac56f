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
// BM_broadphase_rays/static-50k/<kind>: the peer of agrid-bench-broadphase's ray benchmark (same
// boxes and rays, broadphase_scenes.h) on proxies made by hand, one thread.
// BM_broadphase_step/<scene>/<kind>: the peer of agrid-bench-broadphase's BM_broadphase/<scene>
// (frozen-500k, frozen-50k, stream-200k, stream-20k: the same boxes, moves, creates and
// removes, broadphase_scenes.h) on btDbvtBroadphase and btAdaptiveGridBroadphase through
// btBroadphaseInterface alone, one thread. One iteration is one step: setAabb for the moved
// boxes, destroyProxy/createProxy for the stream's churn, calculateOverlappingPairs. Counters:
//   median_ms, max_ms   median and slowest timed step
//   pairs               pairs in the cache after the last step
//   bytes_per_object    heap bytes in use after creating the proxies and the warm-up, minus
//                       before creating the broadphase, per live proxy (proxies, tree or grid,
//                       pair cache; glibc's count, both broadphases alike)
// Bullet's own benchmark scenes (BM_bullet/bench-*) run as issue 10 measures them: 300 steps
// from the start, no warm-up.
// Run:  agrid-bench-bullet [--benchmark_filter=BM_bullet/scatter.*]

#include <benchmark/benchmark.h>
#include <malloc.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <btBulletCollisionCommon.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <memory>
#include <numeric>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <cstdlib>

#include "agrid/bullet/btAdaptiveGridBroadphase.h"
#include "agrid_scenes/bullet_worlds.h"
#include "broadphase_scenes.h"

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

constexpr agrid::scenes::BroadphaseKind kKinds[] = {agrid::scenes::BroadphaseKind::dbvt,
                                                    agrid::scenes::BroadphaseKind::sap,
                                                    agrid::scenes::BroadphaseKind::agrid};

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

/// A scene with one broadphase: `warmup_steps` untimed, then one step per iteration; medians and
/// means of the broadphase, the rays (bench-7) and the whole step. (Bench scenes have their own
/// body count and ignore `bodies`.)
void bm_world(benchmark::State& state, std::string_view scene, std::uint32_t bodies, int warmup_steps,
              agrid::scenes::BroadphaseKind kind) {
  const tbb::global_control threads(tbb::global_control::max_allowed_parallelism, kThreads);
  tbb::task_arena arena(kThreads);
  arena.execute([&] {
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
      if (getenv("PS") && kind == agrid::scenes::BroadphaseKind::agrid) world.broadphase().inner().printStats();
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

/// Static boxes in the resting-step benchmark: static-city's count.
constexpr int kRestingBoxes = 100000;
/// Steps before the resting-step benchmark's boxes have all joined agrid's resting tree (new
/// objects rest at once; this leaves room for any Config::rest_after_unchanged).
constexpr int kRestingWarmupSteps = 20;

/// The adapter's cost per object at rest: every proxy gets `setAabb` with its unchanged AABB
/// (what Bullet's default setForceUpdateAllAabbs(true) sends for static and sleeping objects
/// every step), then calculateOverlappingPairs. Unit boxes two apart on a grid: no pairs. This
/// is nearly all of static-city's broadphase time, with nothing else in the measurement.
/// (agrid only: dbvt's proxies made by hand behave unlike a world's and would mislead.)
void bm_resting_step(benchmark::State& state) {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  auto broadphase = std::make_unique<btAdaptiveGridBroadphase>();
  std::vector<btCollisionObject> objects(kRestingBoxes);
  std::vector<btBroadphaseProxy*> proxies;
  const int side = static_cast<int>(std::cbrt(static_cast<double>(kRestingBoxes))) + 1;
  for (int i = 0; i < kRestingBoxes; ++i) {
    const btVector3 at(btScalar(2 * (i % side)), btScalar(2 * (i / side % side)), btScalar(2 * (i / side / side)));
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

btVector3 bt(const agrid::Vec3& v) { return {v.x, v.y, v.z}; }

/// agrid-bench-broadphase's BM_broadphase_rays/static-50k on a Bullet broadphase: its 50,000
/// static boxes as proxies, one calculateOverlappingPairs, then one iteration is its 500 rays,
/// on one thread (dbvt's rayTest is not thread safe in Debian's Bullet).
void bm_static_rays(benchmark::State& state, agrid::scenes::BroadphaseKind kind) {
  tbb::task_arena arena(1);
  arena.execute([&] {
    const std::vector<agrid::Box> boxes = agrid::bench::ray_scene_boxes();
    std::vector<std::pair<btVector3, btVector3>> rays;
    for (const agrid::Segment& ray : agrid::bench::ray_scene_rays()) rays.emplace_back(bt(ray.from), bt(ray.to));
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher(&configuration);
    std::unique_ptr<btBroadphaseInterface> broadphase;
    if (kind == agrid::scenes::BroadphaseKind::dbvt) {
      broadphase = std::make_unique<btDbvtBroadphase>();
    } else {
      broadphase = std::make_unique<btAdaptiveGridBroadphase>();
    }
    std::vector<btCollisionObject> objects(boxes.size());
    std::vector<btBroadphaseProxy*> proxies;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      proxies.push_back(broadphase->createProxy(bt(boxes[i].min), bt(boxes[i].max), BOX_SHAPE_PROXYTYPE, &objects[i],
                                                btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter,
                                                &dispatcher));
    }
    broadphase->calculateOverlappingPairs(&dispatcher);
    btOverlappingPairCache& cache = *broadphase->getOverlappingPairCache();
    state.counters["pairs"] = cache.getNumOverlappingPairs();
    std::size_t hits = 0;
    for (auto _ : state) {
      hits = 0;
      for (const auto& [from, to] : rays) {
        CountingRayCallback callback(from, to);
        broadphase->rayTest(from, to, callback);
        hits += callback.reported;
      }
    }
    state.counters["hits"] = static_cast<double>(hits);
    // Empty the cache from its end first: destroyProxy alone scans every pair for each proxy.
    while (cache.getNumOverlappingPairs() > 0) {
      const btBroadphasePair& last = cache.getOverlappingPairArray()[cache.getNumOverlappingPairs() - 1];
      cache.removeOverlappingPair(last.m_pProxy0, last.m_pProxy1, &dispatcher);
    }
    for (btBroadphaseProxy* p : proxies) broadphase->destroyProxy(p, &dispatcher);
  });
}

/// Heap bytes in use (glibc): chunks in use in the arenas' heap (uordblks) plus the chunks
/// glibc gave their own mmap (hblkhd: large blocks, such as a big tree's or pair cache's arrays,
/// which uordblks does not count).
std::size_t heap_in_use() {
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

/// A step scene (broadphase_scenes.h's FrozenStepRun or StreamStepRun) on a Bullet broadphase:
/// its proxies made by hand (no world, no narrowphase), `warmup` steps untimed, then one timed
/// step per iteration, one thread.
template <class Run>
void bm_broadphase_step(benchmark::State& state, Run& run, int warmup, agrid::scenes::BroadphaseKind kind) {
  tbb::task_arena arena(1);
  arena.execute([&] {
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher(&configuration);
    const std::size_t heap_before = heap_in_use();
    std::unique_ptr<btBroadphaseInterface> broadphase;
    if (kind == agrid::scenes::BroadphaseKind::dbvt) {
      broadphase = std::make_unique<btDbvtBroadphase>();
    } else {
      broadphase = std::make_unique<btAdaptiveGridBroadphase>();
    }
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
    step_ms.reserve(agrid::bench::kStepTimedSteps);
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
    // Empty the cache from its end first: destroyProxy alone scans every pair for each proxy.
    while (cache.getNumOverlappingPairs() > 0) {
      const btBroadphasePair& last = cache.getOverlappingPairArray()[cache.getNumOverlappingPairs() - 1];
      cache.removeOverlappingPair(last.m_pProxy0, last.m_pProxy1, &dispatcher);
    }
    run.for_each_handle(remove);
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
    const std::string name = "BM_broadphase_rays/static-50k/" + std::string(agrid::scenes::name(kind));
    benchmark::RegisterBenchmark(name.c_str(), [kind](benchmark::State& state) { bm_static_rays(state, kind); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  constexpr agrid::scenes::BroadphaseKind kStepKinds[] = {agrid::scenes::BroadphaseKind::dbvt,
                                                          agrid::scenes::BroadphaseKind::agrid};
  for (const agrid::bench::FrozenStepScene& scene : agrid::bench::kFrozenStepScenes) {
    for (const auto kind : kStepKinds) {
      const std::string name =
          "BM_broadphase_step/" + std::string(scene.name) + "/" + std::string(agrid::scenes::name(kind));
      benchmark::RegisterBenchmark(name.c_str(), [&scene, kind](benchmark::State& state) {
        agrid::bench::FrozenStepRun<btBroadphaseProxy*> run(scene);
        bm_broadphase_step(state, run, agrid::bench::kFrozenStepWarmup, kind);
      })
          ->Iterations(agrid::bench::kStepTimedSteps)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  for (const agrid::bench::StreamStepScene& scene : agrid::bench::kStreamStepScenes) {
    for (const auto kind : kStepKinds) {
      const std::string name =
          "BM_broadphase_step/" + std::string(scene.name) + "/" + std::string(agrid::scenes::name(kind));
      benchmark::RegisterBenchmark(name.c_str(), [&scene, kind](benchmark::State& state) {
        agrid::bench::StreamStepRun<btBroadphaseProxy*> run(scene);
        bm_broadphase_step(state, run, agrid::bench::kStreamStepWarmup, kind);
      })
          ->Iterations(agrid::bench::kStepTimedSteps)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  benchmark::RegisterBenchmark("BM_resting_step/100k/agrid", bm_resting_step)->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
