// fcl_manager: FCL's collision checking on agrid's broadphase (one line changed from
// fcl::DynamicAABBTreeCollisionManager). Three unit boxes in a row, each touching the next:
// two pairs, offered as (lower, higher) in registration order. Built as C++14.
#include <agrid/fcl/manager.h>
#include <fcl/geometry/shape/box.h>

#include <cstdio>
#include <memory>
#include <vector>

using Object = fcl::CollisionObjectd;

static bool count_pair(Object*, Object*, void* data) {
  ++*static_cast<int*>(data);
  return false;  // true would stop the walk
}

int main() {
  auto box = std::make_shared<fcl::Boxd>(1.0, 1.0, 1.0);
  std::vector<std::unique_ptr<Object>> objects;
  std::vector<Object*> registered;
  for (int i = 0; i < 3; ++i) {
    objects.emplace_back(new Object(box));
    objects.back()->setTranslation(fcl::Vector3d(i, 0, 0));
    objects.back()->computeAABB();  // the manager reads getAABB(), as FCL's own managers do
    registered.push_back(objects.back().get());
  }

  std::unique_ptr<fcl::BroadPhaseCollisionManagerd> manager(new agrid::fcl::Manager<double>());
  manager->registerObjects(registered);
  manager->setup();

  int pairs = 0;
  manager->collide(&pairs, count_pair);
  std::printf("%d touching pairs\n", pairs);

  objects[2]->setTranslation(fcl::Vector3d(5, 0, 0));  // move one away
  objects[2]->computeAABB();
  manager->update();
  int after = 0;
  manager->collide(&after, count_pair);
  std::printf("%d after the move\n", after);
  return pairs == 2 && after == 1 ? 0 : 1;
}
