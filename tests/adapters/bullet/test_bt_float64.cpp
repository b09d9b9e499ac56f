// agrid::bullet_float64: btAdaptiveGridBroadphase built against Debian's double-precision Bullet
// (bullet-float64, BT_USE_DOUBLE_PRECISION). AABBs are rounded outward to floats, so every pair of
// double AABBs that overlap is in the cache and every ray reports every AABB it meets; a pair may
// be added whose double AABBs are a rounding step apart (it overlaps as floats). A world of boxes
// settles on a plane as with single precision.

#include <gtest/gtest.h>

#include <agrid/bullet/btAdaptiveGridBroadphase.h>
#include <btBulletDynamicsCommon.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "agrid_scenes/random.h"
#include "segment_reference.h"

static_assert(sizeof(btScalar) == sizeof(double), "this test is built with BT_USE_DOUBLE_PRECISION");

namespace {

struct Aabb {
  btVector3 lo;
  btVector3 hi;
};

// The AABB rounded outward to floats, as the adapter promises to see it.
Aabb as_floats(const Aabb& b) {
  Aabb f;
  for (int axis = 0; axis < 3; ++axis) {
    float lo = static_cast<float>(b.lo[axis]);
    if (static_cast<double>(lo) > b.lo[axis]) lo = std::nextafter(lo, -INFINITY);
    float hi = static_cast<float>(b.hi[axis]);
    if (static_cast<double>(hi) < b.hi[axis]) hi = std::nextafter(hi, INFINITY);
    f.lo[axis] = lo;
    f.hi[axis] = hi;
  }
  return f;
}

bool overlap(const Aabb& a, const Aabb& b) {
  for (int axis = 0; axis < 3; ++axis) {
    if (a.hi[axis] < b.lo[axis] || b.hi[axis] < a.lo[axis]) return false;
  }
  return true;
}

// A broadphase with a dispatcher, filled with proxies of the given AABBs.
class Float64Broadphase {
 public:
  explicit Float64Broadphase(const std::vector<Aabb>& boxes) : dispatcher_(&configuration_) {
    for (const Aabb& b : boxes) proxies_.push_back(broadphase_.createProxy(b.lo, b.hi, 0, nullptr, 1, -1, &dispatcher_));
    broadphase_.calculateOverlappingPairs(&dispatcher_);
  }
  ~Float64Broadphase() {
    for (btBroadphaseProxy* p : proxies_) broadphase_.destroyProxy(p, &dispatcher_);
  }
  Float64Broadphase(const Float64Broadphase&) = delete;
  Float64Broadphase& operator=(const Float64Broadphase&) = delete;

  // The cached pairs, as sorted pairs of proxy indices.
  std::set<std::pair<int, int>> pairs() {
    std::set<std::pair<int, int>> out;
    const btBroadphasePairArray& array = broadphase_.getOverlappingPairCache()->getOverlappingPairArray();
    for (int i = 0; i < array.size(); ++i) {
      const int a = index(array[i].m_pProxy0);
      const int b = index(array[i].m_pProxy1);
      out.insert({std::min(a, b), std::max(a, b)});
    }
    return out;
  }
  btAdaptiveGridBroadphase& broadphase() { return broadphase_; }
  int index(const btBroadphaseProxy* p) const {
    return static_cast<int>(std::find(proxies_.begin(), proxies_.end(), p) - proxies_.begin());
  }

 private:
  btDefaultCollisionConfiguration configuration_;
  btCollisionDispatcher dispatcher_;
  btAdaptiveGridBroadphase broadphase_;
  std::vector<btBroadphaseProxy*> proxies_;
};

TEST(BulletFloat64, BoxesTouchingAtADoubleNoFloatHoldsPair) {
  // 0.1 is no float: rounded to nearest, both boxes' faces would move the same way and might
  // part; rounded outward, the first ends above 0.1 and the second starts below it. The third
  // starts a double step past the first's end: apart as doubles, it may pair as floats.
  const double face = 0.1;
  const std::vector<Aabb> boxes = {{btVector3(-1, -1, -1), btVector3(face, 1, 1)},
                                   {btVector3(face, -1, -1), btVector3(2, 1, 1)},
                                   {btVector3(std::nextafter(face, 1.0), -1, -1), btVector3(2, 1, 1)},
                                   {btVector3(0.2, -1, -1), btVector3(2, 1, 1)}};
  Float64Broadphase world(boxes);
  const std::set<std::pair<int, int>> pairs = world.pairs();
  EXPECT_TRUE(pairs.count({0, 1})) << "two AABBs touching at x = 0.1 lost their pair";
  EXPECT_TRUE(pairs.count({1, 2}));
  EXPECT_TRUE(pairs.count({0, 2})) << "as floats the first box reaches past the third's start";
  EXPECT_FALSE(pairs.count({0, 3})) << "a pair a float step apart or more is never added";
}

TEST(BulletFloat64, EveryDoubleOverlapIsCachedAndEveryCachedPairOverlapsAsFloats) {
  agrid::scenes::Random rng(64);
  const auto position = [&rng] { return rng.uniform(0.0, 20.0); };
  const auto size = [&rng] { return rng.uniform(1e-7, 1.5); };
  std::vector<Aabb> boxes;
  for (int i = 0; i < 600; ++i) {
    const btVector3 lo{position(), position(), position()};
    boxes.push_back({lo, lo + btVector3{size(), size(), size()}});
  }
  // And boxes placed to touch others at coordinates no float holds.
  for (int i = 0; i < 200; ++i) {
    const Aabb& other = boxes[static_cast<std::size_t>(i)];
    boxes.push_back({btVector3(other.hi.x(), other.lo.y(), other.lo.z()), other.hi + btVector3(1, 0, 0)});
  }
  Float64Broadphase world(boxes);
  const std::set<std::pair<int, int>> pairs = world.pairs();
  int overlapping = 0;
  for (int i = 0; i < static_cast<int>(boxes.size()); ++i) {
    for (int j = i + 1; j < static_cast<int>(boxes.size()); ++j) {
      const bool cached = pairs.count({i, j}) != 0;
      if (overlap(boxes[static_cast<std::size_t>(i)], boxes[static_cast<std::size_t>(j)])) {
        ++overlapping;
        ASSERT_TRUE(cached) << "missing pair " << i << ", " << j;
      } else if (cached) {
        ASSERT_TRUE(overlap(as_floats(boxes[static_cast<std::size_t>(i)]), as_floats(boxes[static_cast<std::size_t>(j)])))
            << "extra pair " << i << ", " << j << " does not overlap even as floats";
      }
    }
  }
  EXPECT_GT(overlapping, 200);
}

// Collects the proxies a ray reports.
struct Collector : btBroadphaseRayCallback {
  std::vector<const btBroadphaseProxy*> seen;
  bool process(const btBroadphaseProxy* proxy) override {
    seen.push_back(proxy);
    return true;
  }
};

TEST(BulletFloat64, RaysReportEveryBoxTheyMeet) {
  agrid::scenes::Random rng(65);
  const auto position = [&rng] { return rng.uniform(0.0, 20.0); };
  std::vector<Aabb> boxes;
  for (int i = 0; i < 400; ++i) {
    const btVector3 lo{position(), position(), position()};
    boxes.push_back({lo, lo + btVector3(0.7, 0.9, 1.1)});
  }
  Float64Broadphase world(boxes);
  int met = 0;
  for (int r = 0; r < 200; ++r) {
    // Rays from a box corner through another box's corner: the hardest grazing cases.
    const Aabb& a = boxes[static_cast<std::size_t>(r)];
    const Aabb& b = boxes[static_cast<std::size_t>(r + 200)];
    const btVector3 from = a.lo;
    const btVector3 to = from + (b.hi - from) * 1.5;
    Collector c;
    c.m_lambda_max = (to - from).length();
    world.broadphase().rayTest(from, to, c);
    for (int i = 0; i < static_cast<int>(boxes.size()); ++i) {
      const Aabb& box = boxes[static_cast<std::size_t>(i)];
      if (!agrid::test::segment_meets(from, to, box.lo, box.hi)) continue;
      ++met;
      const bool reported = std::count_if(c.seen.begin(), c.seen.end(), [&](const btBroadphaseProxy* p) {
                              return world.index(p) == i;
                            }) == 1;
      ASSERT_TRUE(reported) << "ray " << r << " missed box " << i;
    }
  }
  EXPECT_GE(met, 400);  // each ray meets at least the two boxes it is aimed through
}

TEST(BulletFloat64, ABoxSettlesOnAPlane) {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btAdaptiveGridBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
  world.setGravity(btVector3(0, -10, 0));
  btStaticPlaneShape ground_shape(btVector3(0, 1, 0), 0);
  btRigidBody ground(btRigidBody::btRigidBodyConstructionInfo(0, nullptr, &ground_shape));
  world.addRigidBody(&ground);
  btBoxShape box_shape(btVector3(0.5, 0.5, 0.5));
  btVector3 inertia;
  box_shape.calculateLocalInertia(1, inertia);
  btTransform start;
  start.setIdentity();
  start.setOrigin(btVector3(0, 3, 0));
  btDefaultMotionState motion(start);
  btRigidBody box(btRigidBody::btRigidBodyConstructionInfo(1, &motion, &box_shape, inertia));
  world.addRigidBody(&box);
  for (int step = 0; step < 180; ++step) world.stepSimulation(1.0 / 60, 1, 1.0 / 60);
  EXPECT_NEAR(box.getWorldTransform().getOrigin().y(), 0.5, 0.05);
  EXPECT_EQ(broadphase.getOverlappingPairCache()->getNumOverlappingPairs(), 1);
  world.removeRigidBody(&box);
  world.removeRigidBody(&ground);
}

}  // namespace
