#pragma once
// Shared helpers of the Bullet adapter tests: the scene library's world harness with a log of
// the pair cache's adds/removes, and the brute-force pair oracle over stored proxy AABBs.

#include <btBulletDynamicsCommon.h>
#include <BulletCollision/CollisionDispatch/btGhostObject.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "agrid/bullet/btAdaptiveGridBroadphase.h"
#include "agrid_scenes/bullet_harness.h"
#include "support/test_support.h"

namespace agrid::bt_test {

/// Updates after which objects whose AABB did not change have joined agrid's resting tree
/// (Broadphase rests them after Config::rest_after_unchanged, 2, and jittering ones after
/// Config::rest_after, 16).
inline constexpr int kUpdatesToRest = 20;

/// A pair of proxies as (lower unique id, higher unique id).
using IdPair = std::pair<int, int>;

using scenes::BroadphaseKind;

/// Decides whether two proxies may pair; the default is Bullet's (g0 & m1) && (g1 & m0).
using PairFilter = std::function<bool(const btBroadphaseProxy*, const btBroadphaseProxy*)>;

[[nodiscard]] bool default_filter(const btBroadphaseProxy* a, const btBroadphaseProxy* b);

/// No NaN and min <= max on every axis.
[[nodiscard]] bool valid_aabb(const btBroadphaseProxy* p);

/// Both stored AABBs valid and overlapping as closed boxes.
[[nodiscard]] bool stored_overlap(const btBroadphaseProxy* a, const btBroadphaseProxy* b);

/// The broadphase proxies of all the world's collision objects.
[[nodiscard]] std::vector<btBroadphaseProxy*> proxies_of(btCollisionWorld& world);

/// Brute force: every pair of the world's proxies whose stored AABBs overlap and that `filter`
/// accepts, sorted.
[[nodiscard]] std::vector<IdPair> expected_pairs(btCollisionWorld& world, const PairFilter& filter = default_filter);

/// The pairs in the cache, sorted. Duplicates are kept (they are an error the comparison shows).
[[nodiscard]] std::vector<IdPair> cache_pairs(const btOverlappingPairCache& cache);

/// Success iff the sets are equal; else the counts of missing and extra pairs and a few of each.
[[nodiscard]] ::testing::AssertionResult same_pair_set(const std::vector<IdPair>& expected,
                                                       const std::vector<IdPair>& actual);

/// Records every pair the cache really adds or removes (the cache calls its internal ghost
/// pair callback exactly then). Forwards to `next` if set (e.g. a btGhostPairCallback).
class PairEventLog : public btOverlappingPairCallback {
 public:
  btBroadphasePair* addOverlappingPair(btBroadphaseProxy* p0, btBroadphaseProxy* p1) override;
  void* removeOverlappingPair(btBroadphaseProxy* p0, btBroadphaseProxy* p1, btDispatcher* dispatcher) override;
  void removeOverlappingPairsContainingProxy(btBroadphaseProxy*, btDispatcher*) override {}

  void clear() {
    added.clear();
    removed.clear();
  }

  std::vector<IdPair> added;
  std::vector<IdPair> removed;
  btOverlappingPairCallback* next = nullptr;
};

/// The scene library's world harness (with the broadphase's own pair cache unless one is
/// given), plus a log of its cache's pair adds and removes.
class World : public scenes::BulletHarness {
 public:
  explicit World(BroadphaseKind kind = BroadphaseKind::agrid, const agrid::Config& config = {},
                 btVector3 gravity = btVector3(0, 0, 0), std::unique_ptr<btOverlappingPairCache> user_cache = nullptr);

  /// Starts (or stops) logging the cache's pair adds and removes into events().
  void log_events(bool on) { cache().setInternalGhostPairCallback(on ? events_ : nullptr); }
  PairEventLog& events() { return *events_; }

 private:
  PairEventLog* events_;  ///< Owned by the harness as a callback: it outlives the world.
};

/// A uniform float in [lo, hi).
[[nodiscard]] inline float uniform(agrid::test::Rng& rng, double lo, double hi) {
  return static_cast<float>(rng.uniform(lo, hi));
}

/// A random rotation.
[[nodiscard]] btQuaternion random_rotation(agrid::test::Rng& rng);

/// Six static boxes closing the room [-half, half]^3 (walls 1 thick, outside it).
void add_room(World& w, float half);

/// `count` bodies of mixed convex shapes (spheres, boxes, capsules, cylinders) and sizes in
/// [-spread, spread]^3 (y from y_lo to y_hi), with random velocities up to `speed` (a few
/// percent up to 10x faster). Shapes are shared and owned by the world.
struct BodySpec {
  std::uint32_t count = 100;
  float spread = 10.0f;
  float y_lo = -10.0f;
  float y_hi = 10.0f;
  float speed = 0.0f;
  bool never_sleep = false;
  bool boxes_only = false;  ///< Boxes of mixed sizes (which do not roll, so piles sleep).
};
std::vector<btRigidBody*> add_random_bodies(World& w, agrid::test::Rng& rng, const BodySpec& spec);

/// After a step: the cache equals the brute-force set, and the logged adds and removes were
/// only of pairs that began or ended since `before` (the previous expected set). Returns the
/// new expected set.
::testing::AssertionResult check_step(World& w, const std::vector<IdPair>& before, std::vector<IdPair>& now,
                                      const PairEventLog& log, const PairFilter& filter = default_filter);

/// Steps `steps` times, asserting check_step and unique_ids after each; `before_step(s)` may
/// change the world before step s.
void run_checked(World& w, int steps, const std::function<void(int)>& before_step = {},
                 const PairFilter& filter = default_filter);

/// Unique ids of live proxies are unique.
[[nodiscard]] ::testing::AssertionResult unique_ids(btCollisionWorld& world);

}  // namespace agrid::bt_test
