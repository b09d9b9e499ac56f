// World queries give what btDbvtBroadphase gives, in every state of the adapter: rayTest's and
// convexSweepTest's hits, and contactTest's points on the objects agrid offers (so every point at
// distance <= 0; dbvt's fattened leaves add points at a positive distance only); and a scene
// stepped on 1 and on 2 threads ends bitwise identical.

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bt_world.h"
#include "common/parallel_for.h"  // agrid's loops, whose fork and join ThreadSanitizer sees

namespace agrid::bt_test {
namespace {

using agrid::test::Rng;

/// The same scene in any world: a static plane (y = -6), 300 static and 100 dynamic bodies of
/// mixed shapes (boxes, spheres, capsules, cylinders, cones, a compound) at random rotations.
/// User index 2 numbers the objects in creation order, the same in every world.
void build_query_scene(World& w, std::uint64_t seed) {
  Rng rng(seed);
  auto* plane = w.own(std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), -6.0f));
  w.add_body(plane, 0, btTransform::getIdentity());
  std::vector<btCollisionShape*> shapes;
  for (int i = 0; i < 3; ++i) {
    const float s = 0.3f + 0.4f * static_cast<float>(i);
    shapes.push_back(w.own(std::make_unique<btBoxShape>(btVector3(s, 0.5f * s, 1.5f * s))));
    shapes.push_back(w.own(std::make_unique<btSphereShape>(s)));
    shapes.push_back(w.own(std::make_unique<btCapsuleShape>(0.5f * s, 2 * s)));
    shapes.push_back(w.own(std::make_unique<btCylinderShape>(btVector3(s, s, 0.5f * s))));
    shapes.push_back(w.own(std::make_unique<btConeShape>(s, 2 * s)));
  }
  auto compound = std::make_unique<btCompoundShape>();
  compound->addChildShape(btTransform(btQuaternion::getIdentity(), btVector3(1, 0, 0)), shapes[0]);
  compound->addChildShape(btTransform(btQuaternion::getIdentity(), btVector3(-1, 0.5f, 0)), shapes[6]);
  shapes.push_back(w.own(std::move(compound)));
  // A long thin rod across the scene.
  auto* rod = w.own(std::make_unique<btBoxShape>(btVector3(12, 0.1f, 0.1f)));
  w.add_body(rod, 0, btTransform(btQuaternion(btVector3(0, 1, 1).normalized(), 0.4f), btVector3(0, 1, 0)));
  for (int i = 0; i < 400; ++i) {
    btCollisionShape* shape = shapes[rng.below(static_cast<std::uint32_t>(shapes.size()))];
    const btVector3 at(uniform(rng, -10, 10), uniform(rng, -5, 10), uniform(rng, -10, 10));
    const bool dynamic = i % 4 == 3;
    w.add_body(shape, dynamic ? 1.0f : 0.0f, btTransform(random_rotation(rng), at));
  }
}

int index_of(const btCollisionObject* o) { return o == nullptr ? -1 : o->getUserIndex2(); }

/// Rays of every kind through the scene: random, zero-length, axis-aligned, very long, and
/// along the rod.
std::vector<std::pair<btVector3, btVector3>> query_rays(Rng& rng, int count) {
  std::vector<std::pair<btVector3, btVector3>> rays;
  auto point = [&] { return btVector3(uniform(rng, -13, 13), uniform(rng, -8, 13), uniform(rng, -13, 13)); };
  for (int i = 0; i < count; ++i) {
    const btVector3 from = point();
    btVector3 to = point();
    switch (i % 10) {
      case 0: to = from; break;                                      // a point
      case 1: to = from; to[static_cast<int>(rng.below(3))] += uniform(rng, -20, 20); break;  // along an axis
      case 2: to = from + (to - from) * 1000.0f; break;              // very long
      case 3: to = btVector3(from.x(), -100, from.z()); break;       // straight down onto the plane
      default: break;
    }
    rays.emplace_back(from, to);
  }
  return rays;
}

/// The stored AABB of the object numbered `index` (user index 2) in `w`.
const btBroadphaseProxy& stored_proxy(World& w, int index) {
  for (const btBroadphaseProxy* p : proxies_of(w.world())) {
    if (index_of(static_cast<const btCollisionObject*>(p->m_clientObject)) == index) return *p;
  }
  throw std::out_of_range("no object numbered " + std::to_string(index));
}

/// True iff the stored AABB of the object numbered `index` overlaps the AABB of `query`'s shape
/// (what contactTest asks the broadphase about).
bool stored_aabb_meets(World& w, int index, const btCollisionObject* query) {
  btVector3 min;
  btVector3 max;
  query->getCollisionShape()->getAabb(query->getWorldTransform(), min, max);
  const btBroadphaseProxy& p = stored_proxy(w, index);
  return TestAabbAgainstAabb2(min, max, p.m_aabbMin, p.m_aabbMax);
}

/// True iff the segment from-to meets the stored AABB (closed) of the object numbered `index`:
/// slabs, in double precision.
bool ray_meets_stored_aabb(World& w, int index, const btVector3& from, const btVector3& to) {
  const btBroadphaseProxy& p = stored_proxy(w, index);
  double enter = 0;
  double leave = 1;
  for (int k = 0; k < 3; ++k) {
    const double origin = from[k];
    const double delta = static_cast<double>(to[k]) - origin;
    if (delta == 0) {
      if (origin < p.m_aabbMin[k] || origin > p.m_aabbMax[k]) return false;
      continue;
    }
    double t0 = (p.m_aabbMin[k] - origin) / delta;
    double t1 = (p.m_aabbMax[k] - origin) / delta;
    if (t0 > t1) std::swap(t0, t1);
    enter = std::max(enter, t0);
    leave = std::min(leave, t1);
    if (enter > leave) return false;
  }
  return true;
}

/// Hits of one ray as (object, fraction), sorted.
std::vector<std::pair<int, float>> all_hits(btCollisionWorld& world, const btVector3& from, const btVector3& to) {
  btCollisionWorld::AllHitsRayResultCallback cb(from, to);
  world.rayTest(from, to, cb);
  std::vector<std::pair<int, float>> hits;
  for (int i = 0; i < cb.m_collisionObjects.size(); ++i) hits.emplace_back(index_of(cb.m_collisionObjects[i]), cb.m_hitFractions[i]);
  std::sort(hits.begin(), hits.end());
  return hits;
}

/// Compares every query of the two worlds; `what` names the adapter's state.
void compare_queries(World& grid, World& dbvt, std::uint64_t seed, const char* what) {
  Rng rng(seed);
  int ray_hits = 0;
  for (const auto& ray : query_rays(rng, 300)) {
    // Named copies, not structured bindings: a lambda below captures them (clang 14 cannot).
    const btVector3 from = ray.first;
    const btVector3 to = ray.second;
    btCollisionWorld::ClosestRayResultCallback a(from, to);
    btCollisionWorld::ClosestRayResultCallback b(from, to);
    grid.world().rayTest(from, to, a);
    dbvt.world().rayTest(from, to, b);
    const std::vector<std::pair<int, float>> hits_a = all_hits(grid.world(), from, to);
    // dbvt's hits, less those that agrid rightly does not offer: Bullet's approximate convex
    // casts may report a hit on a shape whose AABB the ray misses, which dbvt's fattened
    // leaves offer.
    std::vector<std::pair<int, float>> hits_b = all_hits(dbvt.world(), from, to);
    std::erase_if(hits_b, [&](const std::pair<int, float>& hit) {
      return !std::binary_search(hits_a.begin(), hits_a.end(), hit) && !ray_meets_stored_aabb(grid, hit.first, from, to);
    });
    ASSERT_EQ(hits_a, hits_b) << what << ": all hits";
    ASSERT_EQ(a.hasHit(), !hits_b.empty()) << what << ": closest ray " << from.x() << "," << from.y() << "," << from.z();
    if (!a.hasHit()) continue;
    ++ray_hits;
    const int dbvt_closest = index_of(b.m_collisionObject);
    if (std::none_of(hits_b.begin(), hits_b.end(), [&](const auto& hit) { return hit.first == dbvt_closest; })) continue;
    ASSERT_EQ(a.m_closestHitFraction, b.m_closestHitFraction) << what;
    if (index_of(a.m_collisionObject) != index_of(b.m_collisionObject)) {  // a tie: same fraction
      const std::pair<int, float> hit(index_of(a.m_collisionObject), a.m_closestHitFraction);
      ASSERT_TRUE(std::binary_search(hits_b.begin(), hits_b.end(), hit)) << what << ": closest object";
    }
  }
  EXPECT_GT(ray_hits, 100) << what;

  auto* sphere = grid.own(std::make_unique<btSphereShape>(0.4f));
  auto* box = grid.own(std::make_unique<btBoxShape>(btVector3(0.6f, 0.2f, 0.3f)));
  int sweep_hits = 0;
  for (int i = 0; i < 150; ++i) {
    btConvexShape* shape = i % 3 == 2 ? static_cast<btConvexShape*>(box) : sphere;
    const btTransform from(random_rotation(rng), btVector3(uniform(rng, -13, 13), uniform(rng, -8, 13), uniform(rng, -13, 13)));
    btTransform to(shape == box ? random_rotation(rng) : from.getRotation(),
                   btVector3(uniform(rng, -13, 13), uniform(rng, -8, 13), uniform(rng, -13, 13)));
    if (i % 10 == 0) to.setOrigin(from.getOrigin());  // a sweep of length zero
    btCollisionWorld::ClosestConvexResultCallback a(from.getOrigin(), to.getOrigin());
    btCollisionWorld::ClosestConvexResultCallback b(from.getOrigin(), to.getOrigin());
    grid.world().convexSweepTest(shape, from, to, a);
    dbvt.world().convexSweepTest(shape, from, to, b);
    ASSERT_EQ(a.hasHit(), b.hasHit()) << what << ": sweep " << i;
    if (!a.hasHit()) continue;
    ++sweep_hits;
    ASSERT_EQ(a.m_closestHitFraction, b.m_closestHitFraction) << what << ": sweep " << i;
    if (index_of(a.m_hitCollisionObject) != index_of(b.m_hitCollisionObject)) {
      // A tie: the other world's object is hit at the same fraction when swept alone.
      btCollisionWorld::ClosestConvexResultCallback again(from.getOrigin(), to.getOrigin());
      const btCollisionObject* other = a.m_hitCollisionObject;
      btCollisionObject* in_dbvt = dbvt.world().getCollisionObjectArray()[0];
      for (int k = 0; k < dbvt.world().getNumCollisionObjects(); ++k) {
        if (index_of(dbvt.world().getCollisionObjectArray()[k]) == index_of(other)) in_dbvt = dbvt.world().getCollisionObjectArray()[k];
      }
      const btTransform& t = in_dbvt->getWorldTransform();
      btCollisionWorld::objectQuerySingle(shape, from, to, in_dbvt, in_dbvt->getCollisionShape(), t, again, 0);
      ASSERT_EQ(again.m_closestHitFraction, a.m_closestHitFraction) << what << ": sweep " << i << " closest object";
    }
  }
  EXPECT_GT(sweep_hits, 50) << what;

  // Bullet's contactTest reports every point the narrowphase finds within its margins, also at a
  // positive distance, for whatever objects the broadphase offers, and dbvt's fattened leaves
  // offer more. So agrid's points (object, distance) must be exactly dbvt's points on the objects
  // agrid offers, and dbvt's other points all at a positive distance on objects whose stored
  // AABB the query's box does not meet: every point at distance <= 0 is the same.
  struct Contacts : btCollisionWorld::ContactResultCallback {
    const btCollisionObject* self = nullptr;
    std::vector<std::pair<int, btScalar>> points;  ///< (object, distance) of every point, sorted after.
    std::set<int> objects;                         ///< Those with a point.
    btScalar addSingleResult(btManifoldPoint& cp, const btCollisionObjectWrapper* w0, int, int,
                             const btCollisionObjectWrapper* w1, int, int) override {
      const btCollisionObject* o0 = w0->getCollisionObject();
      const btCollisionObject* o1 = w1->getCollisionObject();
      const int other = index_of(o0 == self ? o1 : o0);
      objects.insert(other);
      points.emplace_back(other, cp.getDistance());
      return 0;
    }
  };
  int contacts = 0;
  auto* probe_shape = grid.own(std::make_unique<btSphereShape>(1.5f));
  for (int i = 0; i < 80; ++i) {
    Contacts a;
    Contacts b;
    btCollisionObject probe;  // read after the contact tests too (stored_aabb_meets)
    if (i % 2 == 0) {  // a world object
      const int k = static_cast<int>(rng.below(static_cast<std::uint32_t>(grid.world().getNumCollisionObjects())));
      btCollisionObject* oa = grid.world().getCollisionObjectArray()[k];
      btCollisionObject* ob = dbvt.world().getCollisionObjectArray()[k];
      ASSERT_EQ(index_of(oa), index_of(ob));
      a.self = oa;
      b.self = ob;
      grid.world().contactTest(oa, a);
      dbvt.world().contactTest(ob, b);
    } else {  // a probe that is not in the world
      probe.setCollisionShape(probe_shape);
      probe.setWorldTransform(btTransform(btQuaternion::getIdentity(),
                                          btVector3(uniform(rng, -10, 10), uniform(rng, -6, 10), uniform(rng, -10, 10))));
      a.self = &probe;
      b.self = &probe;
      grid.world().contactTest(&probe, a);
      dbvt.world().contactTest(&probe, b);
    }
    std::vector<std::pair<int, btScalar>> dbvt_on_agrids;
    for (const auto& [object, distance] : b.points) {
      if (a.objects.count(object) != 0) {
        dbvt_on_agrids.emplace_back(object, distance);
        continue;
      }
      ASSERT_GT(distance, 0) << what << ": contact test " << i << ", object " << object << " only dbvt offers";
      ASSERT_FALSE(stored_aabb_meets(grid, object, a.self)) << what << ": contact test " << i << ", object " << object;
    }
    std::sort(a.points.begin(), a.points.end());
    std::sort(dbvt_on_agrids.begin(), dbvt_on_agrids.end());
    ASSERT_EQ(a.points, dbvt_on_agrids) << what << ": contact test " << i;
    for (const auto& point : a.points) contacts += point.second <= 0;
  }
  EXPECT_GT(contacts, 40) << what;
}

/// Moves `count` bodies of both worlds to the same new places, updating their AABBs (not the pairs).
void move_some(World& grid, World& dbvt, std::uint64_t seed, int count) {
  Rng rng(seed);
  for (int i = 0; i < count; ++i) {
    const int k = 1 + static_cast<int>(rng.below(static_cast<std::uint32_t>(grid.world().getNumCollisionObjects() - 1)));
    const btTransform t(random_rotation(rng), btVector3(uniform(rng, -10, 10), uniform(rng, -5, 10), uniform(rng, -10, 10)));
    for (World* w : {&grid, &dbvt}) {
      btCollisionObject* o = w->world().getCollisionObjectArray()[k];
      o->setWorldTransform(t);
      w->world().updateSingleAabb(o);
    }
  }
}

/// Brings both worlds' broadphases up to date `times` times (AABBs, pairs), without moving.
void detect_collisions(World& grid, World& dbvt, int times) {
  for (int i = 0; i < times; ++i) {
    grid.world().performDiscreteCollisionDetection();
    dbvt.world().performDiscreteCollisionDetection();
  }
}

// Queries in every state of the adapter: objects just created (no update yet), after updates
// (objects resting in agrid's resting tree), moved since the last update, and updated again.
TEST(BulletAdapterQueries, RayTestConvexSweepAndContactTestMatchDbvt) {
  World grid(BroadphaseKind::agrid);
  World dbvt(BroadphaseKind::dbvt);
  build_query_scene(grid, 41);
  build_query_scene(dbvt, 41);
  ASSERT_NO_FATAL_FAILURE(compare_queries(grid, dbvt, 1, "just created"));
  detect_collisions(grid, dbvt, kUpdatesToRest);
  EXPECT_GT(grid.grid()->broadphase().stats().resting, 256u);
  ASSERT_NO_FATAL_FAILURE(compare_queries(grid, dbvt, 2, "updated"));
  move_some(grid, dbvt, 3, 60);
  ASSERT_NO_FATAL_FAILURE(compare_queries(grid, dbvt, 4, "moved, not updated"));
  detect_collisions(grid, dbvt, 1);
  ASSERT_NO_FATAL_FAILURE(compare_queries(grid, dbvt, 5, "moved and updated"));
  // Objects removed from both worlds never show up again.
  for (int i = 0; i < 50; ++i) {
    grid.world().removeCollisionObject(grid.world().getCollisionObjectArray()[10 + i]);
    dbvt.world().removeCollisionObject(dbvt.world().getCollisionObjectArray()[10 + i]);
  }
  ASSERT_NO_FATAL_FAILURE(compare_queries(grid, dbvt, 6, "some removed"));
}

// A queries-only world (btNullPairCache, which dbvt accepts too): no pairs are computed, and
// rays, convex sweeps and contact tests give dbvt's hits and points (as above) in every state of
// the adapter.
TEST(BulletAdapterQueries, NullPairCacheWorldAnswersQueries) {
  World grid(BroadphaseKind::agrid, {}, btVector3(0, 0, 0), std::make_unique<btNullPairCache>());
  World dbvt(BroadphaseKind::dbvt, {}, btVector3(0, 0, 0), std::make_unique<btNullPairCache>());
  build_query_scene(grid, 43);
  build_query_scene(dbvt, 43);
  ASSERT_NO_FATAL_FAILURE(compare_queries(grid, dbvt, 7, "queries only, just created"));
  detect_collisions(grid, dbvt, kUpdatesToRest);
  EXPECT_EQ(grid.cache().getNumOverlappingPairs(), 0);
  EXPECT_EQ(grid.grid()->broadphase().stats().pairs, 0u);
  EXPECT_GT(grid.grid()->broadphase().stats().resting, 256u);
  ASSERT_NO_FATAL_FAILURE(compare_queries(grid, dbvt, 8, "queries only, updated"));
  move_some(grid, dbvt, 9, 60);
  ASSERT_NO_FATAL_FAILURE(compare_queries(grid, dbvt, 10, "queries only, moved, not updated"));
  grid.step(2);
  dbvt.step(2);
  ASSERT_NO_FATAL_FAILURE(compare_queries(grid, dbvt, 11, "queries only, stepped"));
  EXPECT_EQ(grid.grid()->broadphase().stats().pairs, 0u);
}

/// Collects the proxies a broadphase rayTest visits; inside each visit it queries the broadphase
/// again (aabbTest on the visited proxy's AABB must find that proxy): queries are re-entrant.
struct ProxyCollector : btBroadphaseRayCallback {
  btBroadphaseInterface* broadphase = nullptr;
  std::vector<int> ids;
  bool nested_ok = true;

  ProxyCollector(btBroadphaseInterface* bp, const btVector3& from, const btVector3& to) : broadphase(bp) {
    // What btCollisionWorld fills in for a broadphase rayTest.
    btVector3 dir = to - from;
    for (int k = 0; k < 3; ++k) m_rayDirectionInverse[k] = dir[k] == 0 ? btScalar(1e18) : 1 / dir[k];
    m_signs[0] = m_rayDirectionInverse[0] < 0;
    m_signs[1] = m_rayDirectionInverse[1] < 0;
    m_signs[2] = m_rayDirectionInverse[2] < 0;
    m_lambda_max = dir.dot(dir) > 0 ? dir.length() : 0;
  }
  bool process(const btBroadphaseProxy* proxy) override {
    ids.push_back(proxy->m_uniqueId);
    struct Find : btBroadphaseAabbCallback {
      const btBroadphaseProxy* wanted = nullptr;
      bool found = false;
      bool process(const btBroadphaseProxy* p) override {
        found = found || p == wanted;
        return true;
      }
    } find;
    find.wanted = proxy;
    broadphase->aabbTest(proxy->m_aabbMin, proxy->m_aabbMax, find);
    nested_ok = nested_ok && find.found;
    return true;
  }
};

// Broadphase ray queries from four threads at once, right after an update that used the tree
// (whose moving grid is built lazily by the first query), give the same proxies as one thread,
// and a query made from inside a query's callback works.
TEST(BulletAdapterQueries, ConcurrentAndNestedBroadphaseQueries) {
  agrid::test::in_arena(4, [] {
    agrid::Config config;
    config.tree_min_boxes = 100;
    World w(BroadphaseKind::agrid, config);
    Rng rng(61);
    add_room(w, 8);
    add_random_bodies(w, rng, {.count = 800, .spread = 7.5f, .y_lo = -7.5f, .y_hi = 7.5f, .speed = 3, .never_sleep = true});
    std::vector<std::pair<btVector3, btVector3>> rays = query_rays(rng, 400);
    for (int round = 0; round < 3; ++round) {
      w.step();
      std::vector<std::vector<int>> parallel(rays.size());
      std::vector<char> nested(rays.size(), 0);
      detail::parallel_for(std::size_t{0}, rays.size(), [&](std::size_t i) {
        ProxyCollector c(&w.broadphase(), rays[i].first, rays[i].second);
        w.broadphase().rayTest(rays[i].first, rays[i].second, c);
        std::sort(c.ids.begin(), c.ids.end());
        parallel[i] = std::move(c.ids);
        nested[i] = c.nested_ok;
      });
      std::size_t visits = 0;
      for (std::size_t i = 0; i < rays.size(); ++i) {
        ProxyCollector c(&w.broadphase(), rays[i].first, rays[i].second);
        w.broadphase().rayTest(rays[i].first, rays[i].second, c);
        std::sort(c.ids.begin(), c.ids.end());
        ASSERT_EQ(c.ids, parallel[i]) << "ray " << i << ", round " << round;
        ASSERT_TRUE(nested[i]) << "ray " << i;
        ASSERT_TRUE(std::adjacent_find(c.ids.begin(), c.ids.end()) == c.ids.end()) << "a proxy visited twice";
        // Never a miss: every proxy the segment meets is visited.
        for (const btBroadphaseProxy* p : proxies_of(w.world())) {
          btScalar lambda = 1;
          btVector3 normal;
          const btVector3 from = rays[i].first;
          const btVector3 to = rays[i].second;
          bool inside = true;
          for (int k = 0; k < 3; ++k) inside = inside && p->m_aabbMin[k] <= from[k] && from[k] <= p->m_aabbMax[k];
          const bool meets = inside || btRayAabb(from, to, p->m_aabbMin, p->m_aabbMax, lambda, normal);
          if (meets) {
            ASSERT_TRUE(std::binary_search(c.ids.begin(), c.ids.end(), p->m_uniqueId)) << "ray " << i << " missed a proxy";
          }
        }
        visits += c.ids.size();
      }
      EXPECT_GT(visits, 400u);
    }
  });
}

/// The proxies btAdaptiveGridBroadphase::rayTest reports must be exactly those whose stored AABB
/// the segment meets (agrid::hits on the stored boxes), the segment being from `from` toward `to`
/// for the callback's m_lambda_max (Bullet's callbacks may shorten the ray).
std::vector<int> brute_force_ray(World& w, const btVector3& from, const btVector3& to, btScalar lambda_max) {
  const btVector3 dir = to - from;
  const btScalar length = dir.length();
  const btVector3 end = length > 0 && lambda_max < length ? from + dir * (lambda_max / length) : to;
  const agrid::Segment segment{{from.x(), from.y(), from.z()}, {end.x(), end.y(), end.z()}, {}};
  std::vector<int> ids;
  for (const btBroadphaseProxy* p : proxies_of(w.world())) {
    const agrid::Box box{{p->m_aabbMin.x(), p->m_aabbMin.y(), p->m_aabbMin.z()}, {p->m_aabbMax.x(), p->m_aabbMax.y(), p->m_aabbMax.z()}};
    if (agrid::hits(segment, box)) ids.push_back(p->m_uniqueId);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

// Rays that start inside boxes, run along their faces and edges, pass through corners, have
// zero length, or are shortened by the callback: rayTest reports exactly the brute force's
// proxies, before and after an update, on resting, moving and just-moved objects; with fat pairs
// too, where agrid holds boxes grown by dbvt's margin and the rays graze them.
class BulletAdapterRays : public ::testing::TestWithParam<BroadphaseKind> {};

TEST_P(BulletAdapterRays, AdversarialRaysMatchBruteForce) {
  World w(GetParam());
  auto* cube = w.own(std::make_unique<btBoxShape>(btVector3(0.5f, 0.5f, 0.5f)));
  std::vector<btRigidBody*> bodies;
  for (int i = 0; i < 400; ++i) {  // a lattice of unit boxes, a third dynamic, none asleep
    const btVector3 at(static_cast<float>(i % 10) * 1.5f, static_cast<float>(i / 10 % 4) * 1.5f, static_cast<float>(i / 40) * 1.5f);
    bodies.push_back(w.add_body(cube, i % 3 == 0 ? 1.0f : 0.0f, btTransform(btQuaternion::getIdentity(), at)));
    bodies.back()->setActivationState(DISABLE_DEACTIVATION);
  }
  const auto check_all = [&](const char* state) {
    std::vector<std::pair<btVector3, btVector3>> rays;
    for (int i = 0; i < 40; ++i) {
      const btBroadphaseProxy* p = bodies[static_cast<std::size_t>(i * 7 % 400)]->getBroadphaseHandle();
      const btVector3 lo = p->m_aabbMin;
      const btVector3 hi = p->m_aabbMax;
      const btVector3 mid = (lo + hi) * 0.5f;
      rays.emplace_back(mid, mid + btVector3(30, 7, -3));                                // starts inside
      rays.emplace_back(btVector3(lo.x() - 5, hi.y(), mid.z()), btVector3(hi.x() + 5, hi.y(), mid.z()));  // along a face
      rays.emplace_back(btVector3(lo.x() - 5, hi.y(), hi.z()), btVector3(hi.x() + 5, hi.y(), hi.z()));    // along an edge
      rays.emplace_back(lo - btVector3(1, 1, 1), lo);                                    // ends at a corner
      rays.emplace_back(hi, hi + btVector3(2, 3, 5));                                    // starts at a corner
      rays.emplace_back(mid, mid);                                                       // zero length, inside
      rays.emplace_back(hi, hi);                                                         // zero length, on a corner
      rays.emplace_back(btVector3(mid.x(), 50, mid.z()), btVector3(mid.x(), -1000, mid.z()));  // straight down
    }
    for (const auto& [from, to] : rays) {
      for (const btScalar shorten : {btScalar(1), btScalar(0.5), btScalar(0.01), btScalar(0)}) {
        ProxyCollector c(&w.broadphase(), from, to);
        c.m_lambda_max *= shorten;
        const btScalar lambda_max = c.m_lambda_max;
        w.broadphase().rayTest(from, to, c);
        std::sort(c.ids.begin(), c.ids.end());
        ASSERT_EQ(c.ids, brute_force_ray(w, from, to, lambda_max))
            << state << ": ray (" << from.x() << ", " << from.y() << ", " << from.z() << ") to (" << to.x() << ", "
            << to.y() << ", " << to.z() << "), shortened to " << shorten;
      }
    }
  };
  ASSERT_NO_FATAL_FAILURE(check_all("just created"));
  w.step(kUpdatesToRest);  // the statics rest, the dynamic ones fall
  ASSERT_NO_FATAL_FAILURE(check_all("stepped"));
  for (std::size_t i = 0; i < bodies.size(); i += 5) {
    bodies[i]->setWorldTransform(btTransform(btQuaternion::getIdentity(), btVector3(3, 40, static_cast<float>(i))));
    w.world().updateSingleAabb(bodies[i]);
  }
  ASSERT_NO_FATAL_FAILURE(check_all("moved, not yet updated"));
}

INSTANTIATE_TEST_SUITE_P(ExactAndFatPairs, BulletAdapterRays, ::testing::Values(BroadphaseKind::agrid, BroadphaseKind::agrid_fat),
                         [](const ::testing::TestParamInfo<BroadphaseKind>& param) {
                           return param.param == BroadphaseKind::agrid ? std::string("exact") : std::string("fat");
                         });

// ---------------------------------------------------------------------------------------------
// Determinism across thread counts

struct Snapshot {
  std::vector<std::uint32_t> bits;  ///< Origins and bases of all bodies, as float bits.
  std::uint32_t most_moving = 0;
  int concurrency = 0;
  int moved = 0;  ///< Bodies more than 0.1 from where they started.
};

Snapshot run_spheres(int threads) {
  Snapshot out;
  agrid::test::in_arena(threads, [&] {
    out.concurrency = tbb::this_task_arena::max_concurrency();
    agrid::Config config;
    config.tree_min_boxes = 500;  // so that the moving set takes the tree's parallel path
    World w(BroadphaseKind::agrid, config);
    Rng rng(51);
    add_room(w, 9);
    std::vector<btCollisionShape*> spheres;
    for (int i = 0; i < 4; ++i) spheres.push_back(w.own(std::make_unique<btSphereShape>(0.25f + 0.08f * static_cast<float>(i))));
    for (int i = 0; i < 3000; ++i) {
      const btVector3 at(uniform(rng, -8.5, 8.5), uniform(rng, -8.5, 8.5), uniform(rng, -8.5, 8.5));
      btRigidBody* b = w.add_body(spheres[rng.below(4)], 1, btTransform(btQuaternion::getIdentity(), at));
      b->setLinearVelocity(btVector3(uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)) * 3.0f);
      b->setActivationState(DISABLE_DEACTIVATION);
    }
    std::vector<btVector3> start;
    for (const btRigidBody* b : w.bodies()) start.push_back(b->getWorldTransform().getOrigin());
    for (int s = 0; s < 60; ++s) {
      w.step();
      out.most_moving = std::max(out.most_moving, w.grid()->broadphase().stats().moving);
    }
    EXPECT_TRUE(same_pair_set(expected_pairs(w.world()), cache_pairs(w.cache()))) << threads << " threads";
    for (std::size_t i = 0; i < start.size(); ++i) {
      out.moved += (w.bodies()[i]->getWorldTransform().getOrigin() - start[i]).length() > 0.1f;
    }
    for (const btRigidBody* b : w.bodies()) {
      const btTransform& t = b->getWorldTransform();
      for (int k = 0; k < 3; ++k) {
        out.bits.push_back(std::bit_cast<std::uint32_t>(t.getOrigin()[k]));
        for (int j = 0; j < 3; ++j) out.bits.push_back(std::bit_cast<std::uint32_t>(t.getBasis()[k][j]));
      }
    }
  });
  return out;
}

TEST(BulletAdapterDeterminism, OneAndTwoThreadsGiveBitwiseIdenticalBodies) {
  const Snapshot one = run_spheres(1);
  const Snapshot two = run_spheres(2);
  const Snapshot two_again = run_spheres(2);
  EXPECT_EQ(one.concurrency, 1);
  EXPECT_EQ(two.concurrency, 2);
  EXPECT_GE(two.most_moving, 500u);  // at least tree_min_boxes (500, above): the parallel path ran
  ASSERT_EQ(one.bits.size(), two.bits.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < one.bits.size(); ++i) differing += one.bits[i] != two.bits[i];
  EXPECT_EQ(differing, 0u) << "of " << one.bits.size() << " floats differ between 1 and 2 threads";
  EXPECT_TRUE(two.bits == two_again.bits) << "two runs on 2 threads differ";
  // The scene did move (the comparison is not of untouched start positions).
  EXPECT_GT(one.moved, 2500);
}

}  // namespace
}  // namespace agrid::bt_test
