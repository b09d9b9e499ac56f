#include "bt_world.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace agrid::bt_test {

bool default_filter(const btBroadphaseProxy* a, const btBroadphaseProxy* b) {
  return (a->m_collisionFilterGroup & b->m_collisionFilterMask) != 0 &&
         (b->m_collisionFilterGroup & a->m_collisionFilterMask) != 0;
}

bool valid_aabb(const btBroadphaseProxy* p) {
  for (int i = 0; i < 3; ++i) {
    if (!(p->m_aabbMin[i] <= p->m_aabbMax[i])) return false;  // NaN or min > max
  }
  return true;
}

bool stored_overlap(const btBroadphaseProxy* a, const btBroadphaseProxy* b) {
  if (!valid_aabb(a) || !valid_aabb(b)) return false;
  for (int i = 0; i < 3; ++i) {
    if (!(a->m_aabbMin[i] <= b->m_aabbMax[i] && b->m_aabbMin[i] <= a->m_aabbMax[i])) return false;
  }
  return true;
}

std::vector<btBroadphaseProxy*> proxies_of(btCollisionWorld& world) {
  std::vector<btBroadphaseProxy*> out;
  const btCollisionObjectArray& objects = world.getCollisionObjectArray();
  for (int i = 0; i < objects.size(); ++i) {
    if (btBroadphaseProxy* p = objects[i]->getBroadphaseHandle()) out.push_back(p);
  }
  return out;
}

std::vector<IdPair> expected_pairs(btCollisionWorld& world, const PairFilter& filter) {
  const std::vector<btBroadphaseProxy*> proxies = proxies_of(world);
  std::vector<IdPair> out;
  for (std::size_t i = 0; i < proxies.size(); ++i) {
    for (std::size_t j = i + 1; j < proxies.size(); ++j) {
      const btBroadphaseProxy* a = proxies[i];
      const btBroadphaseProxy* b = proxies[j];
      if (stored_overlap(a, b) && filter(a, b)) {
        out.emplace_back(std::min(a->m_uniqueId, b->m_uniqueId), std::max(a->m_uniqueId, b->m_uniqueId));
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<IdPair> cache_pairs(const btOverlappingPairCache& cache) {
  std::vector<IdPair> out;
  const btBroadphasePairArray& pairs = const_cast<btOverlappingPairCache&>(cache).getOverlappingPairArray();
  for (int i = 0; i < pairs.size(); ++i) {
    const int a = pairs[i].m_pProxy0->m_uniqueId;
    const int b = pairs[i].m_pProxy1->m_uniqueId;
    out.emplace_back(std::min(a, b), std::max(a, b));
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

void print_some(std::ostringstream& os, const std::vector<IdPair>& pairs) {
  const std::size_t n = std::min<std::size_t>(pairs.size(), 8);
  for (std::size_t i = 0; i < n; ++i) os << " (" << pairs[i].first << "," << pairs[i].second << ")";
  if (pairs.size() > n) os << " ...";
}

}  // namespace

::testing::AssertionResult same_pair_set(const std::vector<IdPair>& expected, const std::vector<IdPair>& actual) {
  std::vector<IdPair> missing;
  std::vector<IdPair> extra;
  std::set_difference(expected.begin(), expected.end(), actual.begin(), actual.end(), std::back_inserter(missing));
  std::set_difference(actual.begin(), actual.end(), expected.begin(), expected.end(), std::back_inserter(extra));
  const bool duplicates = std::adjacent_find(actual.begin(), actual.end()) != actual.end();
  if (missing.empty() && extra.empty() && !duplicates) return ::testing::AssertionSuccess();
  std::ostringstream os;
  os << "expected " << expected.size() << " pairs, cache has " << actual.size() << ": " << missing.size()
     << " missing, " << extra.size() << " extra" << (duplicates ? ", duplicates" : "");
  if (!missing.empty()) {
    os << "; missing:";
    print_some(os, missing);
  }
  if (!extra.empty()) {
    os << "; extra:";
    print_some(os, extra);
  }
  return ::testing::AssertionFailure() << os.str();
}

btBroadphasePair* PairEventLog::addOverlappingPair(btBroadphaseProxy* p0, btBroadphaseProxy* p1) {
  added.emplace_back(std::min(p0->m_uniqueId, p1->m_uniqueId), std::max(p0->m_uniqueId, p1->m_uniqueId));
  if (next != nullptr) next->addOverlappingPair(p0, p1);
  return nullptr;
}

void* PairEventLog::removeOverlappingPair(btBroadphaseProxy* p0, btBroadphaseProxy* p1, btDispatcher* dispatcher) {
  removed.emplace_back(std::min(p0->m_uniqueId, p1->m_uniqueId), std::max(p0->m_uniqueId, p1->m_uniqueId));
  if (next != nullptr) next->removeOverlappingPair(p0, p1, dispatcher);
  return nullptr;
}

namespace {

scenes::HarnessDef harness_def(BroadphaseKind kind, const agrid::Config& config, btVector3 gravity,
                               std::unique_ptr<btOverlappingPairCache> user_cache) {
  scenes::HarnessDef def;
  def.kind = kind;
  def.config = config;
  def.gravity = gravity;
  def.user_cache = std::move(user_cache);
  return def;
}

}  // namespace

World::World(BroadphaseKind kind, const agrid::Config& config, btVector3 gravity,
             std::unique_ptr<btOverlappingPairCache> user_cache)
    : BulletHarness(harness_def(kind, config, gravity, std::move(user_cache))) {
  auto events = std::make_unique<PairEventLog>();
  events_ = events.get();
  own_callback(std::move(events));
}

btQuaternion random_rotation(agrid::test::Rng& rng) {
  btQuaternion q(uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1));
  if (q.length2() < 1e-3f) return btQuaternion::getIdentity();
  return q.normalized();
}

void add_room(World& w, float half) {
  auto* wall_x = w.own(std::make_unique<btBoxShape>(btVector3(0.5f, half + 1, half + 1)));
  auto* wall_y = w.own(std::make_unique<btBoxShape>(btVector3(half + 1, 0.5f, half + 1)));
  auto* wall_z = w.own(std::make_unique<btBoxShape>(btVector3(half + 1, half + 1, 0.5f)));
  for (const float s : {-1.0f, 1.0f}) {
    w.add_body(wall_x, 0, btTransform(btQuaternion::getIdentity(), btVector3(s * (half + 0.5f), 0, 0)));
    w.add_body(wall_y, 0, btTransform(btQuaternion::getIdentity(), btVector3(0, s * (half + 0.5f), 0)));
    w.add_body(wall_z, 0, btTransform(btQuaternion::getIdentity(), btVector3(0, 0, s * (half + 0.5f))));
  }
}

std::vector<btRigidBody*> add_random_bodies(World& w, agrid::test::Rng& rng, const BodySpec& spec) {
  // A small library of shapes, shared by the bodies.
  std::vector<btCollisionShape*> shapes;
  for (int i = 0; i < 4; ++i) {
    const float s = 0.15f + 0.15f * static_cast<float>(i);
    shapes.push_back(w.own(std::make_unique<btBoxShape>(btVector3(s, 0.7f * s, 1.3f * s))));
    if (spec.boxes_only) continue;
    shapes.push_back(w.own(std::make_unique<btSphereShape>(s)));
    shapes.push_back(w.own(std::make_unique<btCapsuleShape>(0.6f * s, 2 * s)));
    shapes.push_back(w.own(std::make_unique<btCylinderShape>(btVector3(s, 0.8f * s, s))));
  }
  std::vector<btRigidBody*> out;
  for (std::uint32_t i = 0; i < spec.count; ++i) {
    btCollisionShape* shape = shapes[rng.below(static_cast<std::uint32_t>(shapes.size()))];
    const btVector3 at(uniform(rng, -spec.spread, spec.spread), uniform(rng, spec.y_lo, spec.y_hi),
                       uniform(rng, -spec.spread, spec.spread));
    btRigidBody* body = w.add_body(shape, 1.0f, btTransform(random_rotation(rng), at));
    if (spec.speed > 0) {
      const float speed = rng.chance(0.05) ? 10 * spec.speed : spec.speed;
      body->setLinearVelocity(
          btVector3(uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)) * speed);
      body->setAngularVelocity(btVector3(uniform(rng, -2, 2), uniform(rng, -2, 2), uniform(rng, -2, 2)));
    }
    if (spec.never_sleep) body->setActivationState(DISABLE_DEACTIVATION);
    out.push_back(body);
  }
  return out;
}

::testing::AssertionResult check_step(World& w, const std::vector<IdPair>& before, std::vector<IdPair>& now,
                                      const PairEventLog& log, const PairFilter& filter) {
  now = expected_pairs(w.world(), filter);
  const std::vector<IdPair> actual = cache_pairs(w.cache());
  ::testing::AssertionResult same = same_pair_set(now, actual);
  if (!same) return same;
  // Persisting pairs are never removed (and re-added); only pairs that began are added.
  for (const IdPair& p : log.removed) {
    if (std::binary_search(now.begin(), now.end(), p)) {
      return ::testing::AssertionFailure() << "pair (" << p.first << "," << p.second
                                           << ") was removed from the cache although it still overlaps";
    }
  }
  for (const IdPair& p : log.added) {
    if (std::binary_search(before.begin(), before.end(), p)) {
      return ::testing::AssertionFailure() << "pair (" << p.first << "," << p.second
                                           << ") was added to the cache although it was already there";
    }
  }
  std::vector<IdPair> added = log.added;
  std::sort(added.begin(), added.end());
  if (std::adjacent_find(added.begin(), added.end()) != added.end()) {
    return ::testing::AssertionFailure() << "a pair was added twice in one step";
  }
  return ::testing::AssertionSuccess();
}

void run_checked(World& w, int steps, const std::function<void(int)>& before_step, const PairFilter& filter) {
  PairEventLog& log = w.events();
  w.log_events(true);
  std::vector<IdPair> now;
  for (int s = 0; s < steps; ++s) {
    if (before_step) before_step(s);
    if (::testing::Test::HasFatalFailure()) return;
    const std::vector<IdPair> before = cache_pairs(w.cache());
    log.clear();
    w.step();
    ASSERT_TRUE(check_step(w, before, now, log, filter)) << "after step " << s;
    ASSERT_TRUE(unique_ids(w.world())) << "after step " << s;
  }
  w.log_events(false);
}

::testing::AssertionResult unique_ids(btCollisionWorld& world) {
  std::vector<int> ids;
  for (const btBroadphaseProxy* p : proxies_of(world)) ids.push_back(p->m_uniqueId);
  std::sort(ids.begin(), ids.end());
  if (std::adjacent_find(ids.begin(), ids.end()) != ids.end()) {
    return ::testing::AssertionFailure() << "two live proxies share a unique id";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace agrid::bt_test
