// agrid-bench-peers: every peer (benchmarks/peers) and agrid on the same boxes.
//
// BM_peer/<peer>/<scene>: issue 13's benchmark scenes, for docs/peers.md's table. Serial peers
// run on one thread; parallel ones get /threads:2. agrid appears as agrid-grid (a warm Grid, one
// thread) and agrid-tree (a warm Tree, two threads), and beside the Bullet peers' second frames,
// agrid-broadphase-frame2 (agrid's incremental Broadphase, second frame with the same boxes).
// BM_count/<peer>/<boxes>: uniform-1M scaled from 1k to 1M boxes (the same density), and
// BM_density/<peer>/<range>: the same 100k article boxes in cubes from 2000 (sparse) down to 70
// (heavily overlapping) across: the two charts' curves (scripts/peer-charts draws them).
//
// Every structure runs once untimed before it is timed (warm memory: a one-iteration run of a
// slow peer would otherwise time page faults). A peer that would take more than kMaxSeconds on a
// set of boxes, or cannot take them, is skipped there with the reason.
//
//   agrid-bench-peers --benchmark_filter='BM_peer/.*/article-20k-sparse'

#include <benchmark/benchmark.h>
#include <tbb/task_arena.h>

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agrid/agrid.h"
#include "agrid_scenes/scenes.h"
#include "peer.h"

namespace {

/// Longer than this on a set of boxes, and a peer is skipped there.
constexpr double kMaxSeconds = 30.0;
/// Threads of the parallel peers and of agrid-tree: the project machine's cores.
constexpr int kParallelThreads = 2;

/// Issue 13's scenes, in its order.
constexpr std::array<const char*, 9> kTableScenes = {
    "article-20k-sparse", "article-20k-dense", "article-40k-slab",   "box-pruning-10k",    "box-pruning-100k",
    "uniform-1M",         "paper-1M-dense",    "ball-cluster-500k", "plane-cluster-562k"};
/// The count chart's box counts: uniform-1M at these sizes.
constexpr std::array<int, 10> kChartCounts = {1000,   2000,   5000,   10000,  20000,
                                              50000, 100000, 200000, 500000, 1000000};
/// The density chart's box count.
constexpr std::uint32_t kDensityBoxes = 100000;
/// The density chart's cube edges: each box meets about 100,000 x 512 / range^3 others (article
/// boxes are 4 across), so from 0.006 at 2000 to 150 at 70.
constexpr std::array<int, 8> kDensityRanges = {2000, 1000, 500, 300, 200, 150, 100, 70};
/// The density chart's seed: one set of boxes, only spread over a smaller cube.
constexpr std::uint64_t kDensitySeed = 1;

/// The boxes of a benchmark, made on first use and kept (the scenes take seconds to make).
using BoxSource = std::function<std::vector<agrid::Box>()>;
const std::vector<agrid::Box>& boxes_of(const std::string& key, const BoxSource& make) {
  static std::map<std::string, std::vector<agrid::Box>> cache;
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, make()).first;
  return it->second;
}

void set_counters(benchmark::State& state, std::size_t boxes, std::size_t pairs, int threads) {
  state.counters["boxes"] = static_cast<double>(boxes);
  state.counters["pairs"] = static_cast<double>(pairs);
  state.counters["threads"] = threads;
}

void bm_peer(benchmark::State& state, agrid::peers::Peer& peer, const std::vector<agrid::Box>& boxes, int threads) {
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
    peer.find_pairs(boxes, pairs);  // Warm, like agrid: memory touched once before timing.
    for (auto _ : state) {
      peer.find_pairs(boxes, pairs);
      benchmark::DoNotOptimize(pairs.data());
    }
  });
  set_counters(state, boxes.size(), pairs.size(), threads);
}

template <class Structure>
void bm_agrid(benchmark::State& state, const std::vector<agrid::Box>& boxes, int threads) {
  Structure structure;
  std::vector<agrid::Pair> pairs;
  tbb::task_arena arena(threads);
  arena.execute([&] {
    structure.build(boxes);  // Warm: the structure's memory is sized before timing.
    structure.find_pairs(pairs);
    for (auto _ : state) {
      structure.build(boxes);
      structure.find_pairs(pairs);
      benchmark::DoNotOptimize(pairs.data());
    }
  });
  set_counters(state, boxes.size(), pairs.size(), threads);
}

/// agrid's incremental Broadphase on its second frame with the same boxes, as bt-dbvt-frame2 and
/// bt-axis-sweep-frame2 time Bullet's: every box set again (unchanged), one update(), the pairs
/// read out. Not in the charts: it answers a different question from the one-shot peers.
void bm_broadphase_frame2(benchmark::State& state, const std::vector<agrid::Box>& boxes) {
  agrid::Broadphase broadphase;
  std::vector<agrid::Handle> handles;
  for (const agrid::Box& box : boxes) handles.push_back(broadphase.create(box));
  broadphase.update();  // The first frame, untimed.
  std::vector<agrid::Pair> pairs;
  for (auto _ : state) {
    for (std::size_t i = 0; i < boxes.size(); ++i) broadphase.set_box(handles[i], boxes[i]);
    broadphase.update();
    const auto all = broadphase.pairs();
    pairs.assign(all.begin(), all.end());
    benchmark::DoNotOptimize(pairs.data());
  }
  set_counters(state, boxes.size(), pairs.size(), 1);
}

void add(const std::string& name, std::function<void(benchmark::State&)> run) {
  benchmark::RegisterBenchmark(name.c_str(), std::move(run))->Unit(benchmark::kMillisecond)->UseRealTime();
}

/// Registers agrid-grid, agrid-tree and every peer on the boxes `make` gives, as
/// <family>/<peer>/<label>, with /threads:2 for the parallel ones.
void register_everyone(const std::vector<std::unique_ptr<agrid::peers::Peer>>& peers, const std::string& family,
                       const std::string& label, const BoxSource& make) {
  const std::string key = family + "/" + label;
  add(family + "/agrid-grid/" + label,
      [key, make](benchmark::State& s) { bm_agrid<agrid::Grid>(s, boxes_of(key, make), 1); });
  add(family + "/agrid-tree/" + label + "/threads:2",
      [key, make](benchmark::State& s) { bm_agrid<agrid::Tree>(s, boxes_of(key, make), kParallelThreads); });
  for (const auto& peer : peers) {
    agrid::peers::Peer* p = peer.get();
    const int threads = p->parallel() ? kParallelThreads : 1;
    const std::string suffix = p->parallel() ? "/threads:2" : "";
    add(family + "/" + std::string(p->name()) + "/" + label + suffix,
        [p, key, make, threads](benchmark::State& s) { bm_peer(s, *p, boxes_of(key, make), threads); });
  }
}

}  // namespace

int main(int argc, char** argv) {
  static const std::vector<std::unique_ptr<agrid::peers::Peer>> peers = agrid::peers::make_peers();
  for (const char* scene : kTableScenes) {
    const BoxSource make = [scene] { return agrid::scenes::make_scene(scene, 1.0, 1).boxes; };
    register_everyone(peers, "BM_peer", scene, make);
    const std::string key = std::string("BM_peer/") + scene;
    add(std::string("BM_peer/agrid-broadphase-frame2/") + scene,
        [key, make](benchmark::State& s) { bm_broadphase_frame2(s, boxes_of(key, make)); });
  }
  for (const int count : kChartCounts) {
    const double scale = count / 1e6;
    register_everyone(peers, "BM_count", std::to_string(count),
                      [scale] { return agrid::scenes::make_scene("uniform-1M", scale, 1).boxes; });
  }
  for (const int range : kDensityRanges) {
    const auto edge = static_cast<float>(range);
    register_everyone(peers, "BM_density", std::to_string(range), [edge] {
      return agrid::scenes::article(kDensityBoxes, {edge, edge, edge}, kDensitySeed);
    });
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
