// agrid::fcl::Manager against every FCL 0.7 broadphase manager, on the scenes of issue 34. The
// callbacks only record (a pair count, or the AABB distance as the distance), so that the
// broadphases are timed, not FCL's narrowphase.
//
// BM_fcl_steps/<n>/<manager>: n unit boxes (one in ten on a lattice where faces touch, the rest
//   random, about three neighbours each), 1% moved a step (untimed: setTranslation and
//   computeAABB are the user's, the same for every manager); timed: update() + collide(self).
// BM_fcl_idle/<n>/<manager>: update() with nothing moved.
// BM_fcl_collide_obj/10k/<manager>: 1,000 collide(obj) of random unit boxes against the scene.
// BM_fcl_collide_other/10k/<manager>: 100 managers of 10 random unit boxes (a robot's links), each
//   collide(scene), the scene's manager of the same type.
// BM_fcl_distance_obj/10k/<manager>: 100 distance(obj) of random boxes against the scene.
// BM_fcl_planning/<manager>: a six-link arm's 10,000 checks (each link's collide(obj)) against a
//   cluttered table of 300 objects.
// Counters: ms (median of the frames, steps or call batches), pairs (or hits) as a check that
// every manager found the same.
//
//   build/benchmarks/agrid-bench-fcl --benchmark_filter=BM_fcl_steps/10k

#include <benchmark/benchmark.h>
#include <fcl/broadphase/broadphase_SSaP.h>
#include <fcl/broadphase/broadphase_SaP.h>
#include <fcl/broadphase/broadphase_bruteforce.h>
#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/broadphase/broadphase_dynamic_AABB_tree_array.h>
#include <fcl/broadphase/broadphase_interval_tree.h>
#include <fcl/broadphase/broadphase_spatialhash.h>
#include <fcl/geometry/shape/box.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "agrid/fcl/manager.h"

namespace {

using Object = fcl::CollisionObjectd;
using Manager = fcl::BroadPhaseCollisionManagerd;
using MakeManager = std::function<std::unique_ptr<Manager>(double extent)>;

/// Scenes' boxes are unit cubes in [0, extent)^3 unless said otherwise.
constexpr double kCellSize = 2.0;  // the spatial hash's cell: about two boxes wide

struct Named {
  const char* name;
  MakeManager make;
  bool quadratic;  ///< Every pair is tested: skipped for the 100,000-object scene.
};

std::vector<Named> managers() {
  return {
      {"agrid", [](double) { return std::unique_ptr<Manager>(new agrid::fcl::Manager<double>()); }, false},
      {"naive", [](double) { return std::unique_ptr<Manager>(new fcl::NaiveCollisionManagerd()); }, true},
      {"sap", [](double) { return std::unique_ptr<Manager>(new fcl::SaPCollisionManagerd()); }, false},
      {"ssap", [](double) { return std::unique_ptr<Manager>(new fcl::SSaPCollisionManagerd()); }, false},
      {"interval-tree", [](double) { return std::unique_ptr<Manager>(new fcl::IntervalTreeCollisionManagerd()); }, false},
      {"spatial-hash",
       [](double extent) {
         const auto cells = static_cast<unsigned>(std::pow(extent / kCellSize, 3));
         return std::unique_ptr<Manager>(new fcl::SpatialHashingCollisionManagerd(
             kCellSize, fcl::Vector3d(-1, -1, -1), fcl::Vector3d(extent + 1, extent + 1, extent + 1), cells));
       },
       false},
      {"dynamic-tree", [](double) { return std::unique_ptr<Manager>(new fcl::DynamicAABBTreeCollisionManagerd()); }, false},
      {"dynamic-tree-array",
       [](double) { return std::unique_ptr<Manager>(new fcl::DynamicAABBTreeCollisionManager_Arrayd()); }, false},
  };
}

bool count_pair(Object*, Object*, void* data) {
  ++*static_cast<std::size_t*>(data);
  return false;
}

/// The AABB distance as the pair's distance: the broadphase's pruning, without a narrowphase.
bool aabb_distance(Object* a, Object* b, void* data, double& dist) {
  const double d = a->getAABB().distance(b->getAABB());
  double& best = *static_cast<double*>(data);
  best = std::min(best, d);
  dist = std::min(dist, d);
  return dist <= 0;
}

/// A world of unit cubes: one in ten on a lattice (touching faces), the rest at random.
class World {
 public:
  World(int objects, unsigned seed) : random_(seed), extent_(std::cbrt(objects / 0.16)) {
    cube_ = std::make_shared<fcl::Boxd>(1.0, 1.0, 1.0);
    for (int i = 0; i < objects; ++i) {
      objects_.emplace_back(new Object(cube_));
      if (i % 10 == 0) {
        const int k = i / 10;
        place(*objects_.back(), k % 20, k / 20 % 20, k / 400);
      } else {
        place_at_random(*objects_.back());
      }
      all_.push_back(objects_.back().get());
    }
  }
  double extent() const { return extent_; }
  const std::vector<Object*>& all() const { return all_; }
  /// Moves this many random objects to random places.
  void move(int count) {
    std::uniform_int_distribution<std::size_t> pick(0, objects_.size() - 1);
    for (int k = 0; k < count; ++k) place_at_random(*objects_[pick(random_)]);
  }
  /// A unit cube at a random place, for queries.
  std::unique_ptr<Object> probe() {
    std::unique_ptr<Object> o(new Object(cube_));
    place_at_random(*o);
    return o;
  }

 private:
  void place(Object& o, double x, double y, double z) {
    o.setTranslation(fcl::Vector3d(x, y, z));
    o.computeAABB();
  }
  void place_at_random(Object& o) {
    std::uniform_real_distribution<double> at(0.0, extent_);
    place(o, at(random_), at(random_), at(random_));
  }

  std::mt19937 random_;
  double extent_;
  std::shared_ptr<fcl::Boxd> cube_;
  std::vector<std::unique_ptr<Object>> objects_;
  std::vector<Object*> all_;
};

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// A scene of 10,000 objects in a manager, and `calls` probes: collide_obj's and distance_obj's.
struct ProbedScene {
  static constexpr int kObjects = 10000;
  ProbedScene(unsigned seed, int calls, const MakeManager& make) : world(kObjects, seed), manager(make(world.extent())) {
    manager->registerObjects(world.all());
    manager->setup();
    for (int i = 0; i < calls; ++i) probes.push_back(world.probe());
  }
  World world;
  std::unique_ptr<Manager> manager;
  std::vector<std::unique_ptr<Object>> probes;
};

/// Each iteration calls `untimed()`, then times `batch()`; sets the ms counter to the median batch.
template <typename Untimed, typename Batch>
void time_batches(benchmark::State& state, Untimed untimed, Batch batch) {
  std::vector<double> ms;
  for (auto _ : state) {
    untimed();
    const auto start = std::chrono::steady_clock::now();
    batch();
    const double took = ms_since(start);
    state.SetIterationTime(took / 1e3);
    ms.push_back(took);
  }
  state.counters["ms"] = median(ms);
}

void bm_steps(benchmark::State& state, int objects, const MakeManager& make, bool idle) {
  World world(objects, 1);
  std::unique_ptr<Manager> manager = make(world.extent());
  manager->registerObjects(world.all());
  manager->setup();
  std::size_t pairs = 0;
  time_batches(
      state, [&] { if (!idle) world.move(objects / 100); },
      [&] {
        manager->update();
        if (!idle) {
          pairs = 0;
          manager->collide(&pairs, count_pair);
        }
      });
  state.counters["pairs"] = static_cast<double>(pairs);
}

void bm_collide_obj(benchmark::State& state, const MakeManager& make) {
  ProbedScene scene(2, 1000, make);
  std::size_t hits = 0;
  time_batches(state, [] {}, [&] {
    hits = 0;
    for (const auto& probe : scene.probes) scene.manager->collide(probe.get(), &hits, count_pair);
  });
  state.counters["pairs"] = static_cast<double>(hits);
}

void bm_distance_obj(benchmark::State& state, const MakeManager& make) {
  ProbedScene scene(3, 100, make);
  double total = 0;
  time_batches(state, [] {}, [&] {
    total = 0;
    for (const auto& probe : scene.probes) {
      double best = std::numeric_limits<double>::max();
      scene.manager->distance(probe.get(), &best, aabb_distance);
      total += best;
    }
  });
  state.counters["pairs"] = total;  // the sum of the minimum distances: the same for every manager
}

/// A robot's manager against the world's, as a planner checks them: 100 managers of 10 objects
/// each (of the same type as the world's), each asked collide(world).
void bm_collide_other(benchmark::State& state, const MakeManager& make) {
  constexpr int kRobots = 100;
  constexpr int kLinks = 10;
  ProbedScene scene(4, kRobots * kLinks, make);
  std::vector<std::unique_ptr<Manager>> robots;
  for (int r = 0; r < kRobots; ++r) {
    robots.push_back(make(scene.world.extent()));
    for (int k = 0; k < kLinks; ++k) robots.back()->registerObject(scene.probes[static_cast<std::size_t>(r * kLinks + k)].get());
    robots.back()->setup();
  }
  std::size_t hits = 0;
  time_batches(state, [] {}, [&] {
    hits = 0;
    for (const auto& robot : robots) robot->collide(scene.manager.get(), &hits, count_pair);
  });
  state.counters["pairs"] = static_cast<double>(hits);
}

/// A six-link arm stepping at random over a table of 300 boxes: each check poses the arm (the
/// user's part, untimed) and asks the scene for each link's collide(obj).
void bm_planning(benchmark::State& state, const MakeManager& make) {
  constexpr int kClutter = 300;
  constexpr int kLinks = 6;
  constexpr int kChecks = 10000;
  std::mt19937 random(4);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<std::unique_ptr<Object>> scene;
  std::vector<Object*> scene_objects;
  for (int k = 0; k < kClutter; ++k) {
    scene.emplace_back(new Object(std::make_shared<fcl::Boxd>(0.05 + 0.15 * unit(random), 0.05 + 0.15 * unit(random),
                                                              0.05 + 0.3 * unit(random))));
    scene.back()->setTranslation(fcl::Vector3d(-0.5 + 2.6 * unit(random), -1.3 + 2.6 * unit(random), 0.8 + 0.3 * unit(random)));
    scene.back()->computeAABB();
    scene_objects.push_back(scene.back().get());
  }
  std::vector<std::unique_ptr<Object>> links;
  for (int i = 0; i < kLinks; ++i) links.emplace_back(new Object(std::make_shared<fcl::Boxd>(0.5, 0.08, 0.08)));
  std::unique_ptr<Manager> manager = make(3.0);
  manager->registerObjects(scene_objects);
  manager->setup();
  std::vector<double> q(kLinks + 1, 0.0);
  std::vector<double> ms;
  std::size_t hits = 0;
  for (auto _ : state) {
    hits = 0;
    double took = 0;
    for (int check = 0; check < kChecks; ++check) {
      for (double& angle : q) angle += 0.3 * (unit(random) - 0.5);
      fcl::Transform3d joint = fcl::Transform3d::Identity();
      joint.translation() = fcl::Vector3d(-0.8, 0, 0.9);
      joint.rotate(fcl::AngleAxisd(q[0], fcl::Vector3d::UnitZ()));
      for (int i = 0; i < kLinks; ++i) {
        joint.rotate(fcl::AngleAxisd(q[static_cast<std::size_t>(i) + 1], fcl::Vector3d::UnitY()));
        fcl::Transform3d middle = joint;
        middle.translate(fcl::Vector3d(0.25, 0, 0));
        links[static_cast<std::size_t>(i)]->setTransform(middle);
        links[static_cast<std::size_t>(i)]->computeAABB();
        joint.translate(fcl::Vector3d(0.5, 0, 0));
      }
      const auto start = std::chrono::steady_clock::now();
      for (const auto& link : links) manager->collide(link.get(), &hits, count_pair);
      took += ms_since(start);
    }
    state.SetIterationTime(took / 1e3);
    ms.push_back(took);
  }
  state.counters["ms"] = median(ms);
  state.counters["pairs"] = static_cast<double>(hits);
}

}  // namespace

int main(int argc, char** argv) {
  for (const Named& m : managers()) {
    const std::string name = m.name;
    const MakeManager make = m.make;
    for (const int n : {10000, 100000}) {
      if (n > 10000 && m.quadratic) continue;  // 5e9 tests a step
      const std::string size = n == 10000 ? "10k" : "100k";
      benchmark::RegisterBenchmark(("BM_fcl_steps/" + size + "/" + name).c_str(),
                                   [=](benchmark::State& s) { bm_steps(s, n, make, false); })
          ->Iterations(n > 10000 ? 10 : 30)->UseManualTime()->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("BM_fcl_idle/" + size + "/" + name).c_str(),
                                   [=](benchmark::State& s) { bm_steps(s, n, make, true); })
          ->Iterations(30)->UseManualTime()->Unit(benchmark::kMillisecond);
    }
    benchmark::RegisterBenchmark(("BM_fcl_collide_obj/10k/" + name).c_str(),
                                 [=](benchmark::State& s) { bm_collide_obj(s, make); })
        ->Iterations(10)->UseManualTime()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_fcl_collide_other/10k/" + name).c_str(),
                                 [=](benchmark::State& s) { bm_collide_other(s, make); })
        ->Iterations(10)->UseManualTime()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_fcl_distance_obj/10k/" + name).c_str(),
                                 [=](benchmark::State& s) { bm_distance_obj(s, make); })
        ->Iterations(10)->UseManualTime()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_fcl_planning/" + name).c_str(), [=](benchmark::State& s) { bm_planning(s, make); })
        ->Iterations(3)->UseManualTime()->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
