// Consumer of agrid::fcl, however it was taken (installed package, pkg-config), in any C++
// standard from 14: the one-line swap of FCL's broadphase manager. Four unit boxes on the x axis,
// at 0, 0.5, 1.5 and 5: the first two overlap, the second and third touch (FCL's AABB::overlap
// counts touching), the fourth is apart, so collide() must offer exactly the pairs (0, 1) and
// (1, 2), in that order; after the fourth moves onto the third, update() and collide() must offer
// (2, 3) as well. agrid's version must be the one the build expects (EXPECTED_VERSION, when
// given). Exits 0 only if all hold.

#include <agrid/fcl/manager.h>
#include <agrid/version.h>
#include <fcl/geometry/shape/box.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

// The standard asked for must be the one used: Debian's fcl.pc puts -std=c++11 in the flags
// pkg-config gives, and the last -std on a command line wins.
#if __cplusplus < 201402L
#error "fcl_consumer is built as C++14 or later: give -std after $(pkg-config --cflags agrid-fcl)"
#endif

namespace {

using Object = fcl::CollisionObjectd;

// What the callback sees: the registered objects, and the pairs offered as their indices.
struct Seen {
  std::vector<Object*> objects;
  std::vector<std::pair<int, int>> pairs;
};

int index_of(const Seen& seen, const Object* o) {
  for (std::size_t i = 0; i < seen.objects.size(); ++i) {
    if (seen.objects[i] == o) return static_cast<int>(i);
  }
  return -1;
}

bool record_pair(Object* a, Object* b, void* data) {
  Seen& seen = *static_cast<Seen*>(data);
  seen.pairs.emplace_back(index_of(seen, a), index_of(seen, b));
  return false;  // true would stop the walk
}

// Fails (prints why, returns false) unless collide() offered exactly `expected`, in order.
bool offered(const char* when, const Seen& seen, const std::vector<std::pair<int, int>>& expected) {
  if (seen.pairs == expected) return true;
  std::printf("consumer: %s, collide offered %zu pairs:", when, seen.pairs.size());
  for (const auto& p : seen.pairs) std::printf(" (%d, %d)", p.first, p.second);
  std::printf("; expected %zu:", expected.size());
  for (const auto& p : expected) std::printf(" (%d, %d)", p.first, p.second);
  std::printf("\n");
  return false;
}

}  // namespace

int main() {
#ifdef EXPECTED_VERSION
  if (std::strcmp(AGRID_VERSION_STRING, EXPECTED_VERSION) != 0) {
    std::printf("consumer: agrid/version.h says %s, the build expected %s\n", AGRID_VERSION_STRING, EXPECTED_VERSION);
    return 1;
  }
#endif
  auto box = std::make_shared<fcl::Boxd>(1.0, 1.0, 1.0);
  const double xs[] = {0.0, 0.5, 1.5, 5.0};
  std::vector<std::unique_ptr<Object>> owned;
  Seen seen;
  for (double x : xs) {
    owned.emplace_back(new Object(box));
    owned.back()->setTranslation(fcl::Vector3d(x, 0, 0));
    owned.back()->computeAABB();  // the manager reads getAABB(), as FCL's own managers do
    seen.objects.push_back(owned.back().get());
  }

  // was: new fcl::DynamicAABBTreeCollisionManagerd()
  std::unique_ptr<fcl::BroadPhaseCollisionManagerd> manager(new agrid::fcl::Manager<double>());
  manager->registerObjects(seen.objects);
  manager->setup();
  manager->collide(&seen, record_pair);
  if (!offered("registered", seen, {{0, 1}, {1, 2}})) return 1;

  owned[3]->setTranslation(fcl::Vector3d(2.5, 0, 0));  // now touching the third
  owned[3]->computeAABB();
  manager->update();
  seen.pairs.clear();
  manager->collide(&seen, record_pair);
  if (!offered("after the move", seen, {{0, 1}, {1, 2}, {2, 3}})) return 1;

  std::printf("consumer: ok, agrid %s, C++%ld: %zu objects, collide offered the %zu pairs expected\n",
              AGRID_VERSION_STRING, __cplusplus / 100 % 100, manager->size(), seen.pairs.size());
  return 0;
}
