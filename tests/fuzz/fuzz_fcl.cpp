// Fuzz target: a sequence of agrid::fcl::Manager calls (registerObject one at a time,
// registerObjects, unregisterObject, an AABB changed and read by update(), update(obj) or
// update(objs)) decoded from the fuzzer's bytes, for float or double, with AABBs of any
// coordinates (NaN, infinite, inverted, denormal, huge). After each call (but those whose byte
// asks to skip, so that changes wait in the manager for the next query) every query is checked
// against brute force over the registered objects: collide (self, one object, another manager:
// FCL's NaiveCollisionManager or DynamicAABBTreeCollisionManager, or another agrid one)
// offers exactly the valid pairs whose AABBs overlap, each once, in the documented order; distance
// (the same three) offers, with a callback that never prunes, every valid pair of finite AABB
// distance once, nearest first, and with one that prunes, the brute-force minimum. The checks themselves read no byte: the corpus decodes as it did.

#include <fcl/broadphase/broadphase_bruteforce.h>
#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <tuple>
#include <vector>

#include "adapters/fcl/fcl_scene.h"
#include "agrid/fcl/manager.h"
#include "fuzz_input.h"

namespace {

using agrid::fuzz::FuzzInput;
using agrid::fuzz::require;
using agrid_fcl_test::collide_self;
using agrid_fcl_test::CollideRecord;
using agrid_fcl_test::collide_other;
using agrid_fcl_test::DistanceRecord;
using agrid_fcl_test::EveryPair;
using agrid_fcl_test::narrowphase_distance;
using agrid_fcl_test::Object;
using agrid_fcl_test::ObjectPair;
using agrid_fcl_test::offered_unpruned;
using agrid_fcl_test::brute_force;
using agrid_fcl_test::Numbering;
using agrid_fcl_test::overlapping;
using agrid_fcl_test::TestObject;

/// Registered objects at most: brute force (and the never-pruning distance's every pair) stays quick.
constexpr std::size_t kMaxObjects = 32;
/// Calls decoded at most, each followed by every check: an input's run stays short.
constexpr int kMaxCalls = 48;
/// Objects a registerObjects batch adds at most.
constexpr int kMaxBatch = 8;
/// Objects of the other manager (FCL's NaiveCollisionManager or DynamicAABBTreeCollisionManager,
/// or another agrid one), for collide(other) and distance(other): fewer than ours or more.
constexpr int kOtherObjects = 4;
/// The bit of a call's byte that skips the checks after the call.
constexpr std::uint8_t kUncheckedCall = 0x80;

template <typename S>
fcl::AABB<S> aabb_from(FuzzInput& in) {
  const agrid::Box b = in.box((in.byte() & 7) == 0);  // one in eight of raw floats
  fcl::AABB<S> a;
  a.min_ = fcl::Vector3<S>(b.min.x, b.min.y, b.min.z);
  a.max_ = fcl::Vector3<S>(b.max.x, b.max.y, b.max.z);
  return a;
}

/// The objects, the manager under test and the registered ones in registration-number order (the
/// lowest free number reused, as the manager numbers them).
template <typename S>
struct World {
  std::vector<std::unique_ptr<TestObject<S>>> made;
  agrid::fcl::Manager<S> manager;

  TestObject<S>* make(const fcl::AABB<S>& aabb) {
    made.push_back(std::make_unique<TestObject<S>>(std::make_shared<fcl::Box<S>>(1, 1, 1)));
    made.back()->set_aabb_exactly(aabb.min_, aabb.max_);
    return made.back().get();
  }
  Numbering<S> numbers;  ///< The registered objects by the number the manager gives them.

  Object<S>* pick(std::uint8_t b) const {
    const auto r = numbers.registered();
    return r.empty() ? nullptr : r[b % r.size()];
  }
};

/// The offered pairs are exactly the expected ones, nearest first by AABB distance, ties in the
/// expected (collide) order.
template <typename S>
bool nearest_first(const std::vector<ObjectPair<S>>& offered, std::vector<ObjectPair<S>> expected) {
  const auto distance = [](const ObjectPair<S>& p) { return p.first->getAABB().distance(p.second->getAABB()); };
  std::stable_sort(expected.begin(), expected.end(),
                   [&](const ObjectPair<S>& a, const ObjectPair<S>& b) { return distance(a) < distance(b); });
  return offered == expected;
}

/// The smallest stand-in narrowphase distance over the pairs a never-pruning walk offers: what a
/// pruning walk must find.
template <typename S>
S brute_force_minimum(const std::vector<ObjectPair<S>>& pairs) {
  S best = std::numeric_limits<S>::max();
  for (const auto& [a, b] : pairs) best = std::min(best, narrowphase_distance(a, b));
  return best;
}

template <typename S>
void check_distance(const std::vector<ObjectPair<S>>& offered, const std::vector<ObjectPair<S>>& expected,
                    S pruned_best, const char* what) {
  require(nearest_first<S>(offered, expected), what);
  const S best = brute_force_minimum<S>(expected);
  require(pruned_best == best, what);
}

template <typename S>
void check_everything(World<S>& world, Object<S>* probe, fcl::BroadPhaseCollisionManager<S>& other) {
  const agrid::fcl::Manager<S>& m = world.manager;
  const std::vector<Object<S>*> ours = world.numbers.registered();
  std::vector<Object<S>*> listed;
  m.getObjects(listed);
  require(listed == ours && m.size() == ours.size() && m.empty() == ours.empty(), "getObjects");

  require(collide_self(m) == brute_force<S>(ours, ours, true, overlapping<S>), "collide(self)");
  CollideRecord<S> one;
  m.collide(probe, &one, &CollideRecord<S>::callback);
  require(one.offered == brute_force<S>({probe}, ours, false, overlapping<S>), "collide(obj)");
  std::vector<Object<S>*> theirs;
  other.getObjects(theirs);
  require(collide_other(m, other) == brute_force<S>(ours, theirs, false, overlapping<S>), "collide(other)");

  EveryPair<S> all;
  DistanceRecord<S> pruned;
  m.distance(&all, &EveryPair<S>::callback);
  m.distance(&pruned, &DistanceRecord<S>::callback);
  check_distance<S>(all.offered, brute_force<S>(ours, ours, true, offered_unpruned<S>), pruned.best, "distance(self)");
  all = {};
  pruned = {};
  m.distance(probe, &all, &EveryPair<S>::callback);
  m.distance(probe, &pruned, &DistanceRecord<S>::callback);
  check_distance<S>(all.offered, brute_force<S>({probe}, ours, false, offered_unpruned<S>), pruned.best, "distance(obj)");
  all = {};
  pruned = {};
  m.distance(&other, &all, &EveryPair<S>::callback);
  m.distance(&other, &pruned, &DistanceRecord<S>::callback);
  check_distance<S>(all.offered, brute_force<S>(ours, theirs, false, offered_unpruned<S>), pruned.best, "distance(other)");
}

/// The other manager's type, from the input's first byte.
enum class Other { naive, agrid, dynamic_tree };

template <typename S>
std::unique_ptr<fcl::BroadPhaseCollisionManager<S>> make_other(Other kind) {
  switch (kind) {
    case Other::agrid:
      return std::make_unique<agrid::fcl::Manager<S>>();
    case Other::dynamic_tree:
      return std::make_unique<fcl::DynamicAABBTreeCollisionManager<S>>();
    case Other::naive:
      break;
  }
  return std::make_unique<fcl::NaiveCollisionManager<S>>();
}

template <typename S>
void run(FuzzInput& in, Other other_kind) {
  World<S> world;
  const std::unique_ptr<fcl::BroadPhaseCollisionManager<S>> other = make_other<S>(other_kind);
  for (int k = 0; k < kOtherObjects; ++k) other->registerObject(world.make(aabb_from<S>(in)));
  for (int call = 0; call < kMaxCalls && !in.empty(); ++call) {
    const std::uint8_t op = in.byte();
    // A call with the high bit skips the checks after it: the changes of several calls then wait
    // in the manager for the next query, which folds them in at once.
    const bool check = (op & kUncheckedCall) == 0;
    Object<S>* probe = nullptr;
    switch (op % 5) {
      case 0: {  // one object
        if (world.numbers.registered().size() >= kMaxObjects) break;
        Object<S>* obj = world.make(aabb_from<S>(in));
        world.manager.registerObject(obj);
        world.numbers.add(obj);
        break;
      }
      case 1: {  // a batch
        std::vector<Object<S>*> batch;
        const int count = 1 + in.byte() % kMaxBatch;
        for (int k = 0; k < count && world.numbers.registered().size() + batch.size() < kMaxObjects; ++k) {
          batch.push_back(world.make(aabb_from<S>(in)));
        }
        world.manager.registerObjects(batch);
        for (Object<S>* obj : batch) world.numbers.add(obj);
        break;
      }
      case 2: {  // unregister
        Object<S>* obj = world.pick(in.byte());
        if (obj == nullptr) break;
        world.manager.unregisterObject(obj);
        world.numbers.remove(obj);
        break;
      }
      default: {  // an AABB changed, read by one of the three updates
        auto* obj = static_cast<TestObject<S>*>(world.pick(in.byte()));
        if (obj == nullptr) break;
        const fcl::AABB<S> aabb = aabb_from<S>(in);
        obj->set_aabb_exactly(aabb.min_, aabb.max_);
        const std::uint8_t how = in.byte();
        if (how % 3 == 0) world.manager.update();
        if (how % 3 == 1) world.manager.update(obj);
        if (how % 3 == 2) world.manager.update(std::vector<Object<S>*>{obj});
        probe = obj;
        break;
      }
    }
    if (probe == nullptr) probe = world.make(aabb_from<S>(in));
    if (check) check_everything<S>(world, probe, *other);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzInput in(data, size);
  const std::uint8_t kinds = in.byte();  // the scalar, and the other manager's type
  const Other other = (kinds & 2) != 0 ? Other::agrid : (kinds & 4) != 0 ? Other::dynamic_tree : Other::naive;
  if ((kinds & 1) == 0) {
    run<float>(in, other);
  } else {
    run<double>(in, other);
  }
  return 0;
}
