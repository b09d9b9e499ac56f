// agrid-bench-peers: every peer (benchmarks/peers) and agrid on the scene library's benchmark
// scenes, the same boxes for all. BM_peer/<peer>/<scene> for serial peers (one thread), with
// /threads:2 for parallel ones; agrid appears as agrid-grid (a warm Grid, one thread) and
// agrid-tree (a warm Tree, two threads). A peer that would take more than kMaxSeconds on a scene,
// or cannot take its boxes, is skipped there with the reason.
//
//   agrid-bench-peers --benchmark_filter='BM_peer/.*/article-20k-sparse'

#include <benchmark/benchmark.h>
#include <tbb/task_arena.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agrid/agrid.h"
#include "agrid_scenes/scenes.h"
#include "peer.h"

namespace {

/// Longer than this on a scene, and a peer is skipped there.
constexpr double kMaxSeconds = 30.0;
/// Threads of the parallel peers and of agrid-tree: the project machine's cores.
constexpr int kParallelThreads = 2;

const std::vector<agrid::Box>& scene_boxes(const std::string& scene) {
  static std::map<std::string, std::vector<agrid::Box>> cache;
  auto it = cache.find(scene);
  if (it == cache.end()) it = cache.emplace(scene, agrid::scenes::make_scene(scene, 1.0, 1).boxes).first;
  return it->second;
}

void set_counters(benchmark::State& state, std::size_t boxes, std::size_t pairs, int threads) {
  state.counters["boxes"] = static_cast<double>(boxes);
  state.counters["pairs"] = static_cast<double>(pairs);
  state.counters["threads"] = threads;
}

void bm_peer(benchmark::State& state, agrid::peers::Peer& peer, const std::string& scene, int threads) {
  const auto& boxes = scene_boxes(scene);
  if (const std::string why = peer.cannot_take(boxes); !why.empty()) {
    state.SkipWithError(("skipped: " + why).c_str());
    return;
  }
  if (peer.estimated_seconds(boxes) > kMaxSeconds) {
    state.SkipWithError("skipped: would take more than 30 s");
    return;
  }
  std::vector<agrid::Pair> pairs;
  tbb::task_arena arena(threads);
  arena.execute([&] {
    peer.prepare(boxes);
    for (auto _ : state) {
      peer.find_pairs(boxes, pairs);
      benchmark::DoNotOptimize(pairs.data());
    }
  });
  set_counters(state, boxes.size(), pairs.size(), threads);
}

template <class Structure>
void bm_agrid(benchmark::State& state, const std::string& scene, int threads) {
  const auto& boxes = scene_boxes(scene);
  Structure structure;
  std::vector<agrid::Pair> pairs;
  tbb::task_arena arena(threads);
  arena.execute([&] {
    for (auto _ : state) {
      structure.build(boxes);
      structure.find_pairs(pairs);
      benchmark::DoNotOptimize(pairs.data());
    }
  });
  set_counters(state, boxes.size(), pairs.size(), threads);
}

}  // namespace

int main(int argc, char** argv) {
  static std::vector<std::unique_ptr<agrid::peers::Peer>> peers = agrid::peers::make_peers();
  for (const std::string_view view : agrid::scenes::benchmark_scene_names()) {
    const std::string scene(view);
    benchmark::RegisterBenchmark(("BM_peer/agrid-grid/" + scene).c_str(),
                                 [scene](benchmark::State& s) { bm_agrid<agrid::Grid>(s, scene, 1); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("BM_peer/agrid-tree/" + scene + "/threads:2").c_str(),
                                 [scene](benchmark::State& s) { bm_agrid<agrid::Tree>(s, scene, kParallelThreads); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    for (auto& peer : peers) {
      agrid::peers::Peer* p = peer.get();
      const int threads = p->parallel() ? kParallelThreads : 1;
      const std::string suffix = p->parallel() ? "/threads:2" : "";
      benchmark::RegisterBenchmark(("BM_peer/" + std::string(p->name()) + "/" + scene + suffix).c_str(),
                                   [p, scene, threads](benchmark::State& s) { bm_peer(s, *p, scene, threads); })
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
