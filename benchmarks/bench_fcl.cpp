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
// The small-step scenes: n boxes of mixed sizes (edges 0.2-2) at random, of which every tenth (a
//   robot's links and what they push) moves by a small step each frame (up to 0.05 an axis):
// BM_fcl_small_steps/<n>/<manager>: update() + collide(self) a frame (the step untimed);
//   BM_fcl_small_steps_all/10k/<manager> the same with every object stepping.
// BM_fcl_small_idle/10k/<manager>: update() with nothing moved, after 20 frames of steps.
// BM_fcl_small_collide_obj/10k/<manager>: 1,000 collide(obj) of random mixed boxes, after 20 frames.
// BM_fcl_register_one_by_one/20k/<manager>: 20,000 mixed boxes registered by registerObject in
//   a loop, then setup() and one collide(obj) (so that work a manager defers is counted);
//   BM_fcl_register_batch/20k/<manager> the same with one registerObjects.
// BM_fcl_arm_vs_world/20k/<world>: a seven-link arm in agrid's manager, 100 poses, each
//   arm.update() + arm.collide(world), the world 20,000 mixed boxes in a manager of that type.
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
/// Objects a unit of volume: about three neighbours each for unit cubes.
constexpr double kDensity = 0.16;
/// The mixed boxes' edges, each drawn in [kMinEdge, kMaxEdge).
constexpr double kMinEdge = 0.2;
constexpr double kMaxEdge = 2.0;
/// In the small-step scenes every kMoverEvery-th object moves (every one in the "_all" scene), by
/// up to kSmallStep an axis a frame.
constexpr int kMoverEvery = 10;
constexpr double kSmallStep = 0.05;
/// Frames stepped before the small-step scenes' idle and query benchmarks.
constexpr int kWarmFrames = 20;

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

/// The boxes of a World: unit cubes, one in ten on a lattice (touching faces), or mixed boxes.
enum class Shapes { unit_cubes, mixed };

/// A world of boxes at random places in [0, extent)^3, the extent set by kDensity.
class World {
 public:
  World(int objects, unsigned seed, Shapes shapes = Shapes::unit_cubes)
      : random_(seed), extent_(std::cbrt(objects / kDensity)), shapes_(shapes) {
    cube_ = std::make_shared<fcl::Boxd>(1.0, 1.0, 1.0);
    for (int i = 0; i < objects; ++i) {
      objects_.push_back(shape());
      if (shapes == Shapes::unit_cubes && i % 10 == 0) {
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
  /// Moves every `every`-th object by a small step.
  void step(int every = kMoverEvery) {
    std::uniform_real_distribution<double> by(-kSmallStep, kSmallStep);
    for (std::size_t i = 0; i < objects_.size(); i += static_cast<std::size_t>(every)) {
      Object& o = *objects_[i];
      o.setTranslation(o.getTranslation() + fcl::Vector3d(by(random_), by(random_), by(random_)));
      o.computeAABB();
    }
  }
  /// A box of the world's shapes at a random place, for queries.
  std::unique_ptr<Object> probe() {
    std::unique_ptr<Object> o = shape();
    place_at_random(*o);
    return o;
  }

 private:
  std::unique_ptr<Object> shape() {
    if (shapes_ == Shapes::unit_cubes) return std::unique_ptr<Object>(new Object(cube_));
    std::uniform_real_distribution<double> edge(kMinEdge, kMaxEdge);
    return std::unique_ptr<Object>(new Object(std::make_shared<fcl::Boxd>(edge(random_), edge(random_), edge(random_))));
  }

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
  Shapes shapes_;
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
/// Small-step scenes are stepped kWarmFrames frames first.
struct ProbedScene {
  static constexpr int kObjects = 10000;
  ProbedScene(unsigned seed, int calls, const MakeManager& make, Shapes shapes = Shapes::unit_cubes)
      : world(kObjects, seed, shapes), manager(make(world.extent())) {
    manager->registerObjects(world.all());
    manager->setup();
    for (int frame = 0; shapes == Shapes::mixed && frame < kWarmFrames; ++frame) {
      world.step();
      manager->update();
    }
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

/// Frames of update() + collide(self) (none with `idle`: update() alone, nothing moved), each
/// after the teleports of 1% of the unit cubes, or the small steps of every `mover_every`-th mixed box.
void bm_steps(benchmark::State& state, int objects, const MakeManager& make, bool idle, Shapes shapes,
              int mover_every = kMoverEvery) {
  World world(objects, 1, shapes);
  std::unique_ptr<Manager> manager = make(world.extent());
  manager->registerObjects(world.all());
  manager->setup();
  const auto move = [&] { shapes == Shapes::mixed ? world.step(mover_every) : world.move(objects / 100); };
  for (int frame = 0; shapes == Shapes::mixed && idle && frame < kWarmFrames; ++frame) {
    move();
    manager->update();
  }
  std::size_t pairs = 0;
  time_batches(
      state, [&] { if (!idle) move(); },
      [&] {
        manager->update();
        if (!idle) {
          pairs = 0;
          manager->collide(&pairs, count_pair);
        }
      });
  state.counters["pairs"] = static_cast<double>(pairs);
}

void bm_collide_obj(benchmark::State& state, const MakeManager& make, Shapes shapes) {
  ProbedScene scene(2, 1000, make, shapes);
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

/// A serial arm of box links (kLinkLength long, kLinkWidth wide) from a base, whose joints step at
/// random from the last pose: the first turns about z, the others about y.
class Arm {
 public:
  static constexpr double kLinkLength = 0.5;
  static constexpr double kLinkWidth = 0.08;
  /// Each joint steps by up to half this angle (radians) a pose.
  static constexpr double kJointStep = 0.3;

  Arm(int links, const fcl::Vector3d& base) : q_(static_cast<std::size_t>(links) + 1, 0.0), base_(base) {
    for (int i = 0; i < links; ++i) {
      links_.emplace_back(new Object(std::make_shared<fcl::Boxd>(kLinkLength, kLinkWidth, kLinkWidth)));
      objects_.push_back(links_.back().get());
    }
  }
  /// Steps every joint and places the links, their AABBs computed.
  void step(std::mt19937& random) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (double& angle : q_) angle += kJointStep * (unit(random) - 0.5);
    fcl::Transform3d joint = fcl::Transform3d::Identity();
    joint.translation() = base_;
    joint.rotate(fcl::AngleAxisd(q_[0], fcl::Vector3d::UnitZ()));
    for (std::size_t i = 0; i < links_.size(); ++i) {
      joint.rotate(fcl::AngleAxisd(q_[i + 1], fcl::Vector3d::UnitY()));
      fcl::Transform3d middle = joint;
      middle.translate(fcl::Vector3d(kLinkLength / 2, 0, 0));
      links_[i]->setTransform(middle);
      links_[i]->computeAABB();
      joint.translate(fcl::Vector3d(kLinkLength, 0, 0));
    }
  }
  const std::vector<Object*>& links() const { return objects_; }

 private:
  std::vector<double> q_;
  fcl::Vector3d base_;
  std::vector<std::unique_ptr<Object>> links_;
  std::vector<Object*> objects_;
};

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
  Arm arm(kLinks, fcl::Vector3d(-0.8, 0, 0.9));
  std::unique_ptr<Manager> manager = make(3.0);
  manager->registerObjects(scene_objects);
  manager->setup();
  std::vector<double> ms;
  std::size_t hits = 0;
  for (auto _ : state) {
    hits = 0;
    double took = 0;
    for (int check = 0; check < kChecks; ++check) {
      arm.step(random);
      const auto start = std::chrono::steady_clock::now();
      for (Object* link : arm.links()) manager->collide(link, &hits, count_pair);
      took += ms_since(start);
    }
    state.SetIterationTime(took / 1e3);
    ms.push_back(took);
  }
  state.counters["ms"] = median(ms);
  state.counters["pairs"] = static_cast<double>(hits);
}

/// A seven-link arm in agrid's manager against a world of 20,000 mixed boxes in a manager made by
/// `make_world`: 100 poses, each arm.update() + arm.collide(world) (the posing untimed).
void bm_arm_vs_world(benchmark::State& state, const MakeManager& make_world) {
  constexpr int kObjects = 20000;
  constexpr int kLinks = 7;
  constexpr int kPoses = 100;
  World world(kObjects, 5, Shapes::mixed);
  std::unique_ptr<Manager> scene = make_world(world.extent());
  scene->registerObjects(world.all());
  scene->setup();
  const double middle = world.extent() / 2;
  Arm arm(kLinks, fcl::Vector3d(middle, middle, middle));
  std::mt19937 random(6);
  arm.step(random);
  agrid::fcl::Manager<double> robot;
  robot.registerObjects(arm.links());
  std::vector<double> ms;
  std::size_t hits = 0;
  for (auto _ : state) {
    hits = 0;
    double took = 0;
    for (int pose = 0; pose < kPoses; ++pose) {
      arm.step(random);
      const auto start = std::chrono::steady_clock::now();
      robot.update();
      robot.collide(scene.get(), &hits, count_pair);
      took += ms_since(start);
    }
    state.SetIterationTime(took / 1e3);
    ms.push_back(took);
  }
  state.counters["ms"] = median(ms);
  state.counters["pairs"] = static_cast<double>(hits);
}

/// 20,000 mixed boxes registered one at a time (or in one batch), then setup() and one
/// collide(obj), into a fresh manager each iteration (made and destroyed untimed).
void bm_register(benchmark::State& state, const MakeManager& make, bool one_by_one) {
  constexpr int kObjects = 20000;
  World world(kObjects, 7, Shapes::mixed);
  const std::unique_ptr<Object> probe = world.probe();
  std::unique_ptr<Manager> manager;
  std::size_t hits = 0;
  time_batches(
      state, [&] { manager = make(world.extent()); },
      [&] {
        if (one_by_one) {
          for (Object* obj : world.all()) manager->registerObject(obj);
        } else {
          manager->registerObjects(world.all());
        }
        manager->setup();
        hits = 0;
        manager->collide(probe.get(), &hits, count_pair);
      });
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
                                   [=](benchmark::State& s) { bm_steps(s, n, make, false, Shapes::unit_cubes); })
          ->Iterations(n > 10000 ? 10 : 30)->UseManualTime()->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("BM_fcl_idle/" + size + "/" + name).c_str(),
                                   [=](benchmark::State& s) { bm_steps(s, n, make, true, Shapes::unit_cubes); })
          ->Iterations(30)->UseManualTime()->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("BM_fcl_small_steps/" + size + "/" + name).c_str(),
                                   [=](benchmark::State& s) { bm_steps(s, n, make, false, Shapes::mixed); })
          ->Iterations(n > 10000 ? 10 : 30)->UseManualTime()->Unit(benchmark::kMillisecond);
    }
    benchmark::RegisterBenchmark(("BM_fcl_small_steps_all/10k/" + name).c_str(),
                                 [=](benchmark::State& s) { bm_steps(s, 10000, make, false, Shapes::mixed, 1); })
        ->Iterations(30)->UseManualTime()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_fcl_small_idle/10k/" + name).c_str(),
                                 [=](benchmark::State& s) { bm_steps(s, 10000, make, true, Shapes::mixed); })
        ->Iterations(30)->UseManualTime()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_fcl_small_collide_obj/10k/" + name).c_str(),
                                 [=](benchmark::State& s) { bm_collide_obj(s, make, Shapes::mixed); })
        ->Iterations(10)->UseManualTime()->Unit(benchmark::kMillisecond);
    if (!m.quadratic) {
      benchmark::RegisterBenchmark(("BM_fcl_register_one_by_one/20k/" + name).c_str(),
                                   [=](benchmark::State& s) { bm_register(s, make, true); })
          ->Iterations(5)->UseManualTime()->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("BM_fcl_register_batch/20k/" + name).c_str(),
                                   [=](benchmark::State& s) { bm_register(s, make, false); })
          ->Iterations(5)->UseManualTime()->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("BM_fcl_arm_vs_world/20k/" + name).c_str(),
                                   [=](benchmark::State& s) { bm_arm_vs_world(s, make); })
          ->Iterations(10)->UseManualTime()->Unit(benchmark::kMillisecond);
    }
    benchmark::RegisterBenchmark(("BM_fcl_collide_obj/10k/" + name).c_str(),
                                 [=](benchmark::State& s) { bm_collide_obj(s, make, Shapes::unit_cubes); })
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
