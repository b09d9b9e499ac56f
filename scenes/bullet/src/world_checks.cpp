// The exact checks of a BulletWorld's broadphase: its pair cache against a plain sort and sweep
// of the proxies' stored AABBs, its rayTest against a brute-force slab test. Neither uses agrid,
// the code under test, nor the broadphase checked; both run outside any timing.

#include <algorithm>
#include <array>
#include <functional>
#include <iterator>
#include <utility>
#include <vector>

#include "agrid_scenes/bullet_worlds.h"
#include "agrid_scenes/pair_check.h"
#include "world_scene.h"

namespace agrid::scenes {
namespace {

constexpr int kAxes = 3;

/// A proxy's stored AABB, widened to double.
struct StoredBox {
  std::array<double, kAxes> lo;
  std::array<double, kAxes> hi;
  btBroadphaseProxy* proxy;
};

// Closed boxes; a NaN or min > max on any axis makes a box that meets nothing.
bool valid(const btVector3& lo, const btVector3& hi) {
  for (int k = 0; k < kAxes; ++k) {
    if (!(lo[k] <= hi[k])) return false;
  }
  return true;
}

// The valid stored boxes of every collision object with a proxy.
std::vector<StoredBox> stored_boxes(const btCollisionWorld& world) {
  std::vector<StoredBox> boxes;
  const btCollisionObjectArray& objects = world.getCollisionObjectArray();
  for (int i = 0; i < objects.size(); ++i) {
    btBroadphaseProxy* proxy = objects[i]->getBroadphaseHandle();
    if (proxy == nullptr || !valid(proxy->m_aabbMin, proxy->m_aabbMax)) continue;
    StoredBox box{{}, {}, proxy};
    for (int k = 0; k < kAxes; ++k) {
      box.lo[static_cast<std::size_t>(k)] = proxy->m_aabbMin[k];
      box.hi[static_cast<std::size_t>(k)] = proxy->m_aabbMax[k];
    }
    boxes.push_back(box);
  }
  return boxes;
}

// Calls visit(a, b) once for every overlapping pair: sorted on x, each box meets the boxes that
// start before it ends on x, then y and z decide.
template <class Visit>
void sweep(std::vector<StoredBox>& boxes, Visit visit) {
  std::sort(boxes.begin(), boxes.end(), [](const StoredBox& a, const StoredBox& b) { return a.lo[0] < b.lo[0]; });
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    for (std::size_t j = i + 1; j < boxes.size() && boxes[j].lo[0] <= boxes[i].hi[0]; ++j) {
      if (boxes[i].hi[1] < boxes[j].lo[1] || boxes[j].hi[1] < boxes[i].lo[1]) continue;
      if (boxes[i].hi[2] < boxes[j].lo[2] || boxes[j].hi[2] < boxes[i].lo[2]) continue;
      visit(boxes[i].proxy, boxes[j].proxy);
    }
  }
}

/// A pair of proxies by address, the lower address first: the same key for (a, b) and (b, a).
using ProxyPair = std::pair<const void*, const void*>;

ProxyPair key(const btBroadphaseProxy* a, const btBroadphaseProxy* b) {
  const std::less<const void*> order;
  return order(a, b) ? ProxyPair{a, b} : ProxyPair{b, a};
}

bool pair_less(const ProxyPair& x, const ProxyPair& y) {
  const std::less<const void*> order;
  if (x.first != y.first) return order(x.first, y.first);
  return order(x.second, y.second);
}

// The pairs the cache should hold: overlapping, and accepted by its filter.
std::vector<ProxyPair> exact_pairs(const btCollisionWorld& world, const btOverlappingPairCache& cache) {
  std::vector<StoredBox> boxes = stored_boxes(world);
  std::vector<ProxyPair> pairs;
  sweep(boxes, [&](btBroadphaseProxy* a, btBroadphaseProxy* b) {
    if (cache.needsBroadphaseCollision(a, b)) pairs.push_back(key(a, b));
  });
  std::sort(pairs.begin(), pairs.end(), pair_less);
  return pairs;
}

// The pairs the cache holds, duplicates kept.
std::vector<ProxyPair> cached_pairs(const btOverlappingPairCache& cache) {
  std::vector<ProxyPair> pairs;
  const btBroadphasePair* array = cache.getOverlappingPairArrayPtr();
  for (int i = 0; i < cache.getNumOverlappingPairs(); ++i) pairs.push_back(key(array[i].m_pProxy0, array[i].m_pProxy1));
  std::sort(pairs.begin(), pairs.end(), pair_less);
  return pairs;
}

// How many of `from` are not in `in` (both sorted); a pair repeated in `from` counts each time
// beyond the ones `in` matches.
std::uint64_t count_not_in(const std::vector<ProxyPair>& from, const std::vector<ProxyPair>& in) {
  std::vector<ProxyPair> difference;
  std::set_difference(from.begin(), from.end(), in.begin(), in.end(), std::back_inserter(difference), pair_less);
  return difference.size();
}

// The closed segment from..to meets the box: the slab test, in double.
bool meets(const btVector3& from, const btVector3& to, const StoredBox& box) {
  double enter = 0;
  double leave = 1;
  for (int k = 0; k < kAxes; ++k) {
    const auto axis = static_cast<std::size_t>(k);
    const double start = from[k];
    const double along = static_cast<double>(to[k]) - start;
    if (along == 0) {
      if (start < box.lo[axis] || start > box.hi[axis]) return false;
      continue;
    }
    double t0 = (box.lo[axis] - start) / along;
    double t1 = (box.hi[axis] - start) / along;
    if (t0 > t1) std::swap(t0, t1);
    enter = std::max(enter, t0);
    leave = std::min(leave, t1);
    if (enter > leave) return false;
  }
  return true;
}

/// Records what a broadphase's rayTest reports, with the ray data set as btCollisionWorld's
/// own ray callback sets it (a unit direction; the ray's length as m_lambda_max).
struct RecordingRayCallback : btBroadphaseRayCallback {
  RecordingRayCallback(const btVector3& from, const btVector3& to) {
    btVector3 direction = to - from;
    direction.normalize();
    for (int k = 0; k < kAxes; ++k) {
      m_rayDirectionInverse[k] = direction[k] == btScalar(0) ? btScalar(BT_LARGE_FLOAT) : btScalar(1) / direction[k];
      m_signs[k] = m_rayDirectionInverse[k] < btScalar(0);
    }
    m_lambda_max = direction.dot(to - from);
  }
  bool process(const btBroadphaseProxy* proxy) override {
    reported.push_back(proxy->m_clientObject);
    return true;
  }
  std::vector<const void*> reported;  ///< The proxies' collision objects.
};

// Compares the objects reported for one ray with those it meets; an object reported twice counts
// as extra once more. (Objects, not proxies: bt32BitAxisSweep3 answers rays from a btDbvtBroadphase
// of its own, whose proxies point to the same objects, as btCollisionWorld's ray callback reads them.)
RayCheck compare(std::vector<const void*> reported, std::vector<const void*> meeting) {
  const std::less<const void*> order;
  std::sort(reported.begin(), reported.end(), order);
  std::sort(meeting.begin(), meeting.end(), order);
  const std::size_t all_reports = reported.size();
  reported.erase(std::unique(reported.begin(), reported.end()), reported.end());
  const auto count_not_in = [&](const std::vector<const void*>& from, const std::vector<const void*>& in) {
    std::vector<const void*> difference;
    std::set_difference(from.begin(), from.end(), in.begin(), in.end(), std::back_inserter(difference), order);
    return static_cast<std::uint64_t>(difference.size());
  };
  RayCheck check;
  check.missed = count_not_in(meeting, reported);
  check.extra = count_not_in(reported, meeting) + (all_reports - reported.size());
  return check;
}

}  // namespace

PairCheck check_pair_cache(const btCollisionWorld& world, const btOverlappingPairCache& cache) {
  const std::vector<ProxyPair> exact = exact_pairs(world, cache);
  const std::vector<ProxyPair> cached = cached_pairs(cache);
  return {count_not_in(exact, cached), count_not_in(cached, exact)};
}

PairCheck BulletWorld::check_pairs() const { return check_pair_cache(harness_->world(), harness_->cache()); }

std::size_t BulletWorld::cast_rays_broadphase_only() {
  std::size_t reported = 0;
  for (const detail::Ray& ray : contents_->rays()) {
    RecordingRayCallback callback(ray.from, ray.to);
    harness_->broadphase().rayTest(ray.from, ray.to, callback);
    reported += callback.reported.size();
  }
  return reported;
}

RayCheck BulletWorld::check_rays() const {
  RayCheck total;
  const std::vector<StoredBox> boxes = stored_boxes(harness_->world());
  for (const detail::Ray& ray : contents_->rays()) {
    RecordingRayCallback callback(ray.from, ray.to);
    harness_->broadphase().rayTest(ray.from, ray.to, callback);
    std::vector<const void*> meeting;
    for (const StoredBox& box : boxes) {
      if (meets(ray.from, ray.to, box)) meeting.push_back(box.proxy->m_clientObject);
    }
    const RayCheck check = compare(std::move(callback.reported), std::move(meeting));
    total.missed += check.missed;
    total.extra += check.extra;
  }
  return total;
}

}  // namespace agrid::scenes
