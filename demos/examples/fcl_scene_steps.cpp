// fcl_scene_steps: a world of 10,000 objects on agrid's FCL manager, 1% of them moved every step:
// update() re-reads every AABB and costs what moved, collide() offers the overlapping pairs. At
// the first and the last step the pairs must be exactly those of fcl::NaiveCollisionManager
// (touching boxes included), each once. Built as C++14.
#include <agrid/fcl/manager.h>
#include <fcl/broadphase/broadphase_bruteforce.h>
#include <fcl/geometry/shape/box.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <random>
#include <utility>
#include <vector>

using Object = fcl::CollisionObjectd;
using Manager = fcl::BroadPhaseCollisionManagerd;
using Pairs = std::vector<std::pair<const Object*, const Object*>>;

namespace {

constexpr int kObjects = 10000;
constexpr int kMovedPerStep = kObjects / 100;
constexpr int kSteps = 20;
constexpr double kExtent = 60.0;  // about 3 neighbours a box

bool record(Object* a, Object* b, void* data) {
  static_cast<Pairs*>(data)->push_back(std::minmax<const Object*>(a, b));
  return false;
}

Pairs pairs_of(const Manager& manager) {
  Pairs pairs;
  manager.collide(&pairs, record);
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace

int main() {
  std::mt19937 random(11);
  std::uniform_real_distribution<double> place(0.0, kExtent);
  std::uniform_int_distribution<int> pick(0, kObjects - 1);
  auto cube = std::make_shared<fcl::Boxd>(1.0, 1.0, 1.0);
  std::vector<std::unique_ptr<Object>> objects;
  std::vector<Object*> all;
  for (int i = 0; i < kObjects; ++i) {
    objects.emplace_back(new Object(cube));
    // Every tenth on a lattice of unit steps, so that faces touch exactly.
    const bool lattice = i % 10 == 0;
    const double x = lattice ? static_cast<double>(i / 10 % 20) : place(random);
    const double y = lattice ? static_cast<double>(i / 200 % 5) : place(random);
    objects.back()->setTranslation(fcl::Vector3d(x, y, lattice ? 0.0 : place(random)));
    objects.back()->computeAABB();
    all.push_back(objects.back().get());
  }
  std::unique_ptr<Manager> manager(new agrid::fcl::Manager<double>());
  manager->registerObjects(all);
  std::unique_ptr<Manager> naive(new fcl::NaiveCollisionManagerd());
  naive->registerObjects(all);

  std::size_t pairs = 0;
  for (int step = 0; step < kSteps; ++step) {
    for (int k = 0; k < kMovedPerStep; ++k) {
      Object& o = *objects[static_cast<std::size_t>(pick(random))];
      o.setTranslation(fcl::Vector3d(place(random), place(random), place(random)));
      o.computeAABB();
    }
    manager->update();
    const Pairs found = pairs_of(*manager);
    if (std::adjacent_find(found.begin(), found.end()) != found.end()) {
      std::fprintf(stderr, "fcl_scene_steps: step %d offered a pair twice\n", step);
      return 1;
    }
    if (step == 0 || step == kSteps - 1) {
      naive->update();
      if (found != pairs_of(*naive)) {
        std::fprintf(stderr, "fcl_scene_steps: step %d: not the pairs of FCL's brute force\n", step);
        return 1;
      }
    }
    pairs = found.size();
  }
  std::printf("%d objects, %d moved a step, %d steps: %zu pairs at the end, as FCL's brute force\n", kObjects,
              kMovedPerStep, kSteps, pairs);
  return pairs > 0 ? 0 : 1;
}
