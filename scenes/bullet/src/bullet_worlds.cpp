#include "agrid_scenes/bullet_worlds.h"

#include <BulletCollision/BroadphaseCollision/btAxisSweep3.h>
#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>

#include <algorithm>
#include <array>
#include <limits>
#include <cmath>
#include <stdexcept>
#include <string>

#include "agrid/agrid.h"
#include "agrid/bullet/btAdaptiveGridBroadphase.h"

namespace agrid::scenes {
namespace {

constexpr std::array<std::string_view, 7> kWorldSceneNames = {"scatter",       "cluster",    "pile",        "static-city",
                                                              "ball-collapse", "plane-pass", "mixed-shapes"};

/// One step of every world: 1/60 s, one substep.
constexpr btScalar kTimeStep = btScalar(1) / 60;
/// Half the edge of the unit boxes, the radius of the unit spheres.
constexpr btScalar kHalf = 0.5f;
/// The cluster's cube, and how far its three far bodies are.
constexpr btScalar kClusterSide = 60;
constexpr btScalar kTeapotDistance = 1500;
/// The pile's lattice spacing and the static city's grid spacing.
constexpr btScalar kPileSpacing = 1.5f;
constexpr btScalar kCitySpacing = 2;
/// One dynamic sphere rains on the static city for this many static boxes.
constexpr std::uint32_t kCityBoxesPerSphere = 100;
/// Margin around a scene's extent for bt32BitAxisSweep3's fixed world bounds; bodies beyond
/// them have left the world.
constexpr btScalar kSapMargin = 100;
/// ball-collapse: the ball's radius per cube root of the body count, and the time the bodies
/// take to reach its centre.
constexpr btScalar kCollapseRadiusPerCbrt = 2;
constexpr btScalar kCollapseSeconds = 3;
/// plane-pass: the layer's spacing and cube edge (almost touching), and its speed across.
constexpr btScalar kPlaneSpacing = 1;
constexpr btScalar kPlaneHalfEdge = 0.49f;
constexpr btScalar kPlaneSpeed = 2;
/// mixed-shapes: the triangle-mesh ground's cells and cell size, and the drop lattice's spacing.
constexpr int kGroundCells = 48;
constexpr btScalar kGroundCell = 2;
constexpr btScalar kMixedSpacing = 2;

/// splitmix64: the worlds' own reproducible numbers.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  /// Uniform in [lo, hi).
  btScalar uniform(btScalar lo, btScalar hi) {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return lo + (hi - lo) * static_cast<btScalar>(static_cast<double>(z >> 40) * 0x1.0p-24);
  }
  btVector3 vector(btScalar lo, btScalar hi) { return {uniform(lo, hi), uniform(lo, hi), uniform(lo, hi)}; }

 private:
  std::uint64_t state_;
};

std::unique_ptr<btBroadphaseInterface> make_broadphase(BroadphaseKind kind, const btVector3& lo, const btVector3& hi) {
  switch (kind) {
    case BroadphaseKind::dbvt: return std::make_unique<btDbvtBroadphase>();
    case BroadphaseKind::sap: return std::make_unique<bt32BitAxisSweep3>(lo, hi);
    case BroadphaseKind::agrid: return std::make_unique<btAdaptiveGridBroadphase>();
  }
  throw std::invalid_argument("agrid::scenes: unknown broadphase");
}

}  // namespace

std::string_view name(BroadphaseKind kind) {
  switch (kind) {
    case BroadphaseKind::dbvt: return "dbvt";
    case BroadphaseKind::sap: return "sap";
    case BroadphaseKind::agrid: return "agrid";
  }
  return "?";
}

// ---- TimedBroadphase --------------------------------------------------------------------

TimedBroadphase::TimedBroadphase(std::unique_ptr<btBroadphaseInterface> inner) : inner_(std::move(inner)) {}
TimedBroadphase::~TimedBroadphase() = default;

void TimedBroadphase::flush(btDispatcher* dispatcher) {
  (void)dispatcher;
  for (const SetAabb& s : pending_) {
    inner_->setAabb(s.proxy, btVector3(s.bounds[0], s.bounds[1], s.bounds[2]), btVector3(s.bounds[3], s.bounds[4], s.bounds[5]),
                    pending_dispatcher_);
  }
  pending_.clear();
}

btBroadphaseProxy* TimedBroadphase::createProxy(const btVector3& aabbMin, const btVector3& aabbMax, int shapeType,
                                                void* userPtr, int group, int mask, btDispatcher* dispatcher) {
  return inner_->createProxy(aabbMin, aabbMax, shapeType, userPtr, group, mask, dispatcher);
}

void TimedBroadphase::destroyProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher) {
  flush(dispatcher);  // no pending call may outlive its proxy
  inner_->destroyProxy(proxy, dispatcher);
}

void TimedBroadphase::setAabb(btBroadphaseProxy* proxy, const btVector3& aabbMin, const btVector3& aabbMax,
                              btDispatcher* dispatcher) {
  pending_.push_back({proxy, {aabbMin.x(), aabbMin.y(), aabbMin.z(), aabbMax.x(), aabbMax.y(), aabbMax.z()}});
  pending_dispatcher_ = dispatcher;  // the world's one dispatcher
}

void TimedBroadphase::getAabb(btBroadphaseProxy* proxy, btVector3& aabbMin, btVector3& aabbMax) const {
  for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) {
    if (it->proxy == proxy) {
      aabbMin = btVector3(it->bounds[0], it->bounds[1], it->bounds[2]);
      aabbMax = btVector3(it->bounds[3], it->bounds[4], it->bounds[5]);
      return;
    }
  }
  inner_->getAabb(proxy, aabbMin, aabbMax);
}

void TimedBroadphase::rayTest(const btVector3& rayFrom, const btVector3& rayTo, btBroadphaseRayCallback& rayCallback,
                              const btVector3& aabbMin, const btVector3& aabbMax) {
  flush(nullptr);
  inner_->rayTest(rayFrom, rayTo, rayCallback, aabbMin, aabbMax);
}

void TimedBroadphase::aabbTest(const btVector3& aabbMin, const btVector3& aabbMax, btBroadphaseAabbCallback& callback) {
  flush(nullptr);
  inner_->aabbTest(aabbMin, aabbMax, callback);
}

void TimedBroadphase::calculateOverlappingPairs(btDispatcher* dispatcher) {
  const auto start = std::chrono::steady_clock::now();
  flush(dispatcher);
  inner_->calculateOverlappingPairs(dispatcher);
  last_ = std::chrono::steady_clock::now() - start;
}

btOverlappingPairCache* TimedBroadphase::getOverlappingPairCache() { return inner_->getOverlappingPairCache(); }
const btOverlappingPairCache* TimedBroadphase::getOverlappingPairCache() const { return inner_->getOverlappingPairCache(); }
void TimedBroadphase::getBroadphaseAabb(btVector3& aabbMin, btVector3& aabbMax) const { inner_->getBroadphaseAabb(aabbMin, aabbMax); }
void TimedBroadphase::resetPool(btDispatcher* dispatcher) { inner_->resetPool(dispatcher); }
void TimedBroadphase::printStats() { inner_->printStats(); }

// ---- the worlds -------------------------------------------------------------------------

std::span<const std::string_view> world_scene_names() { return kWorldSceneNames; }

BulletWorld::BulletWorld(std::string_view scene, BroadphaseKind kind, std::uint32_t bodies, std::uint64_t seed) {
  if (bodies == 0) throw std::invalid_argument("agrid::scenes::BulletWorld: at least one body");
  const auto n = static_cast<btScalar>(bodies);
  btVector3 lo;
  btVector3 hi;
  if (scene == "scatter") {
    const btScalar side = 4 * std::cbrt(n);
    lo = btVector3(-side, -side, -side);
    hi = btVector3(2 * side, 2 * side, 2 * side);
  } else if (scene == "cluster") {
    lo = btVector3(-kClusterSide, -kClusterSide, -kClusterSide);
    hi = btVector3(kTeapotDistance + kClusterSide, kTeapotDistance + kClusterSide, kTeapotDistance + kClusterSide);
  } else if (scene == "pile") {
    const btScalar side = kPileSpacing * std::cbrt(n) + 1;
    lo = btVector3(-4 * side, -1, -4 * side);
    hi = btVector3(4 * side, 2 * side + 10, 4 * side);
  } else if (scene == "static-city") {
    const btScalar side = kCitySpacing * std::sqrt(n) + 1;
    lo = btVector3(-side, -1, -side);
    hi = btVector3(2 * side, 60, 2 * side);
  } else if (scene == "ball-collapse") {
    const btScalar r = kCollapseRadiusPerCbrt * std::cbrt(n) + 1;
    lo = btVector3(-2 * r, -2 * r, -2 * r);
    hi = btVector3(2 * r, 2 * r, 2 * r);
  } else if (scene == "plane-pass") {
    const btScalar side = kPlaneSpacing * std::sqrt(n) + 1;
    lo = btVector3(-1, -1, -1);
    hi = btVector3(side, 60, side);
  } else if (scene == "mixed-shapes") {
    const btScalar side = kGroundCells * kGroundCell;
    lo = btVector3(-side, -10, -side);
    hi = btVector3(2 * side, 20 + kMixedSpacing * n / (side * side / (kMixedSpacing * kMixedSpacing)), 2 * side);
  } else {
    throw std::invalid_argument("agrid::scenes::BulletWorld: unknown scene \"" + std::string(scene) + "\"");
  }
  lo -= btVector3(kSapMargin, kSapMargin, kSapMargin);
  hi += btVector3(kSapMargin, kSapMargin, kSapMargin);
  bounds_min_ = lo;
  bounds_max_ = hi;

  configuration_ = std::make_unique<btDefaultCollisionConfiguration>();
  dispatcher_ = std::make_unique<btCollisionDispatcher>(configuration_.get());
  broadphase_ = std::make_unique<TimedBroadphase>(make_broadphase(kind, lo, hi));
  solver_ = std::make_unique<btSequentialImpulseConstraintSolver>();
  world_ = std::make_unique<btDiscreteDynamicsWorld>(dispatcher_.get(), broadphase_.get(), solver_.get(), configuration_.get());
  shapes_.push_back(std::make_unique<btBoxShape>(btVector3(kHalf, kHalf, kHalf)));
  shapes_.push_back(std::make_unique<btSphereShape>(kHalf));
  btCollisionShape* box = shapes_[0].get();
  btCollisionShape* sphere = shapes_[1].get();
  Random random(seed);

  if (scene == "scatter" || scene == "cluster") {
    world_->setGravity(btVector3(0, 0, 0));
    const bool cluster = scene == "cluster";
    const btScalar side = cluster ? kClusterSide : 4 * std::cbrt(n);
    const btScalar speed = cluster ? 0.5f : 2.0f;
    for (std::uint32_t i = 0; i < bodies; ++i) {
      add_body(i % 2 == 0 ? box : sphere, 1, random.vector(0, side), random.vector(-speed, speed));
    }
    if (cluster) {
      for (int k = 0; k < 3; ++k) {
        const btScalar far = kTeapotDistance + 2 * static_cast<btScalar>(k);
        add_body(box, 1, btVector3(far, far, far), btVector3(0, 0, 0));
      }
    }
  } else if (scene == "pile") {
    shapes_.push_back(std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), 0));
    add_body(shapes_.back().get(), 0, btVector3(0, 0, 0), btVector3(0, 0, 0));
    const auto per_side = static_cast<std::uint32_t>(std::ceil(std::cbrt(n)));
    for (std::uint32_t i = 0; i < bodies; ++i) {
      const std::uint32_t x = i % per_side, z = (i / per_side) % per_side, y = i / (per_side * per_side);
      const btVector3 jitter = random.vector(-0.05f, 0.05f);  // so that columns topple as piles do
      add_body(i % 2 == 0 ? box : sphere, 1,
               btVector3(kPileSpacing * static_cast<btScalar>(x), 1 + kPileSpacing * static_cast<btScalar>(y),
                         kPileSpacing * static_cast<btScalar>(z)) + jitter,
               btVector3(0, 0, 0));
    }
  } else if (scene == "ball-collapse") {
    world_->setGravity(btVector3(0, 0, 0));
    const btScalar r = kCollapseRadiusPerCbrt * std::cbrt(n);
    for (std::uint32_t i = 0; i < bodies;) {
      const btVector3 p = random.vector(-r, r);
      if (p.length2() > r * r) continue;
      add_body(i % 2 == 0 ? box : sphere, 1, p, -p / kCollapseSeconds);
      ++i;
    }
  } else if (scene == "plane-pass") {
    world_->setGravity(btVector3(0, 0, 0));
    shapes_.push_back(std::make_unique<btBoxShape>(btVector3(kPlaneHalfEdge, kPlaneHalfEdge, kPlaneHalfEdge)));
    btCollisionShape* cube = shapes_.back().get();
    const auto per_side = static_cast<std::uint32_t>(std::ceil(std::sqrt(n)));
    for (std::uint32_t i = 0; i < bodies; ++i) {
      const std::uint32_t x = i % per_side, z = i / per_side;
      const btVector3 at(kPlaneSpacing * static_cast<btScalar>(x), random.uniform(-0.01f, 0.01f),
                         kPlaneSpacing * static_cast<btScalar>(z));
      const btVector3 drift(random.uniform(-0.05f, 0.05f), kPlaneSpeed, random.uniform(-0.05f, 0.05f));
      add_body(cube, 1, at, drift);
    }
  } else if (scene == "mixed-shapes") {
    // The ground: a gently waving triangle mesh.
    ground_mesh_ = std::make_unique<btTriangleMesh>();
    const auto vertex = [](int x, int z) {
      const double h = std::sin(0.3 * x) * std::cos(0.3 * z);
      return btVector3(kGroundCell * static_cast<btScalar>(x), static_cast<btScalar>(h), kGroundCell * static_cast<btScalar>(z));
    };
    for (int x = 0; x < kGroundCells; ++x) {
      for (int z = 0; z < kGroundCells; ++z) {
        ground_mesh_->addTriangle(vertex(x, z), vertex(x, z + 1), vertex(x + 1, z));
        ground_mesh_->addTriangle(vertex(x + 1, z), vertex(x, z + 1), vertex(x + 1, z + 1));
      }
    }
    shapes_.push_back(std::make_unique<btBvhTriangleMeshShape>(ground_mesh_.get(), true));
    add_body(shapes_.back().get(), 0, btVector3(0, 0, 0), btVector3(0, 0, 0));
    shapes_.push_back(std::make_unique<btCapsuleShape>(0.3f, 0.6f));
    btCollisionShape* capsule = shapes_.back().get();
    auto hull = std::make_unique<btConvexHullShape>();
    for (const btVector3& v : {btVector3(0.5f, 0, 0), btVector3(-0.5f, 0, 0), btVector3(0, 0.5f, 0), btVector3(0, -0.5f, 0),
                               btVector3(0, 0, 0.5f), btVector3(0, 0, -0.5f)}) {
      hull->addPoint(v, false);
    }
    hull->recalcLocalAabb();
    btCollisionShape* octahedron = hull.get();
    shapes_.push_back(std::move(hull));
    btCollisionShape* kinds[4] = {box, sphere, capsule, octahedron};
    const auto per_side = static_cast<std::uint32_t>(kGroundCells * kGroundCell / kMixedSpacing) - 2;
    for (std::uint32_t i = 0; i < bodies; ++i) {
      const std::uint32_t x = i % per_side, z = (i / per_side) % per_side, y = i / (per_side * per_side);
      const btVector3 at(kMixedSpacing * static_cast<btScalar>(x + 1), 3 + kMixedSpacing * static_cast<btScalar>(y),
                         kMixedSpacing * static_cast<btScalar>(z + 1));
      add_body(kinds[i % 4], 1, at + random.vector(-0.1f, 0.1f), btVector3(0, 0, 0));
    }
  } else {  // static-city
    const auto per_side = static_cast<std::uint32_t>(std::ceil(std::sqrt(n)));
    for (int h = 1; h <= 3; ++h) shapes_.push_back(std::make_unique<btBoxShape>(btVector3(kHalf, kHalf * static_cast<btScalar>(h), kHalf)));
    for (std::uint32_t i = 0; i < bodies; ++i) {
      const std::uint32_t x = i % per_side, z = i / per_side;
      const int height = 1 + static_cast<int>(random.uniform(0, 3));
      add_body(shapes_[1 + static_cast<std::size_t>(std::min(height, 3))].get(), 0,
               btVector3(kCitySpacing * static_cast<btScalar>(x), kHalf * static_cast<btScalar>(height),
                         kCitySpacing * static_cast<btScalar>(z)),
               btVector3(0, 0, 0));
    }
    const btScalar extent = kCitySpacing * static_cast<btScalar>(per_side);
    for (std::uint32_t i = 0; i < std::max(1u, bodies / kCityBoxesPerSphere); ++i) {
      btVector3 at = random.vector(0, extent);
      at.setY(random.uniform(8, 40));
      add_body(sphere, 1, at, btVector3(0, 0, 0));
    }
  }
}

BulletWorld::~BulletWorld() {
  for (auto& body : bodies_) world_->removeRigidBody(body.get());
}

void BulletWorld::add_body(btCollisionShape* shape, float mass, const btVector3& position, const btVector3& velocity) {
  btTransform transform;
  transform.setIdentity();
  transform.setOrigin(position);
  btVector3 inertia(0, 0, 0);
  if (mass > 0) shape->calculateLocalInertia(mass, inertia);
  motion_states_.push_back(std::make_unique<btDefaultMotionState>(transform));
  btRigidBody::btRigidBodyConstructionInfo info(mass, motion_states_.back().get(), shape, inertia);
  bodies_.push_back(std::make_unique<btRigidBody>(info));
  btRigidBody* body = bodies_.back().get();
  if (mass > 0) body->setLinearVelocity(velocity);
  world_->addRigidBody(body);
}

void BulletWorld::step() { world_->stepSimulation(kTimeStep, 1, kTimeStep); }

int BulletWorld::pairs() const { return broadphase_->getOverlappingPairCache()->getNumOverlappingPairs(); }

std::uint64_t BulletWorld::missing_pairs() const {
  const btCollisionObjectArray& objects = world_->getCollisionObjectArray();
  std::vector<btBroadphaseProxy*> proxies;
  std::vector<agrid::Box> boxes;
  for (int i = 0; i < objects.size(); ++i) {
    btBroadphaseProxy* proxy = objects[i]->getBroadphaseHandle();
    if (proxy == nullptr) continue;
    proxies.push_back(proxy);
    boxes.push_back({{static_cast<float>(proxy->m_aabbMin.x()), static_cast<float>(proxy->m_aabbMin.y()),
                      static_cast<float>(proxy->m_aabbMin.z())},
                     {static_cast<float>(proxy->m_aabbMax.x()), static_cast<float>(proxy->m_aabbMax.y()),
                      static_cast<float>(proxy->m_aabbMax.z())}});
  }
  btOverlappingPairCache* cache = broadphase_->getOverlappingPairCache();
  std::uint64_t missing = 0;
  for (const auto [i, j] : agrid::find_all_pairs(boxes)) {
    btBroadphaseProxy* a = proxies[i];
    btBroadphaseProxy* b = proxies[j];
    if (!cache->needsBroadphaseCollision(a, b)) continue;
    missing += cache->findPair(a, b) == nullptr;
  }
  return missing;
}

PhysicsSummary BulletWorld::summary() const {
  PhysicsSummary s;
  double height_sum = 0;
  s.max_height = -std::numeric_limits<double>::infinity();
  for (const auto& body : bodies_) {
    if (body->getInvMass() == 0) continue;
    ++s.dynamic_bodies;
    const btVector3 p = body->getCenterOfMassPosition();
    if (!std::isfinite(p.x()) || !std::isfinite(p.y()) || !std::isfinite(p.z())) {
      ++s.not_finite;
      continue;
    }
    s.asleep += body->getActivationState() == ISLAND_SLEEPING;
    height_sum += p.y();
    s.max_height = std::max<double>(s.max_height, p.y());
    const btVector3 v = body->getLinearVelocity();
    const btVector3 w = body->getAngularVelocity();
    const btVector3 inertia = body->getLocalInertia();
    s.kinetic_energy += 0.5 * (v.length2() / body->getInvMass()) +
                        0.5 * (inertia.x() * w.x() * w.x() + inertia.y() * w.y() * w.y() + inertia.z() * w.z() * w.z());
    const bool inside = p.x() >= bounds_min_.x() && p.y() >= bounds_min_.y() && p.z() >= bounds_min_.z() &&
                        p.x() <= bounds_max_.x() && p.y() <= bounds_max_.y() && p.z() <= bounds_max_.z();
    s.left_world += !inside;
  }
  const std::uint32_t finite = s.dynamic_bodies - s.not_finite;
  s.mean_height = finite > 0 ? height_sum / finite : 0;
  if (finite == 0) s.max_height = 0;
  return s;
}

std::vector<BulletWorld::BodyState> BulletWorld::body_states() const {
  std::vector<BodyState> states;
  for (const auto& body : bodies_) {
    if (body->getInvMass() == 0) continue;
    const btVector3 p = body->getCenterOfMassPosition();
    states.push_back({static_cast<float>(p.x()), static_cast<float>(p.y()), static_cast<float>(p.z()),
                      body->getActivationState() == ISLAND_SLEEPING});
  }
  return states;
}

}  // namespace agrid::scenes
