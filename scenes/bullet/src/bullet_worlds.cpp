#include "agrid_scenes/bullet_worlds.h"

#include <BulletCollision/BroadphaseCollision/btAxisSweep3.h>
#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "agrid/bullet/btAdaptiveGridBroadphase.h"

namespace agrid::scenes {
namespace {

constexpr std::array<std::string_view, 4> kWorldSceneNames = {"scatter", "cluster", "pile", "static-city"};

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
/// Margin around a scene's extent for bt32BitAxisSweep3's fixed world bounds.
constexpr btScalar kSapMargin = 100;

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
  } else {
    throw std::invalid_argument("agrid::scenes::BulletWorld: unknown scene \"" + std::string(scene) + "\"");
  }
  lo -= btVector3(kSapMargin, kSapMargin, kSapMargin);
  hi += btVector3(kSapMargin, kSapMargin, kSapMargin);

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

}  // namespace agrid::scenes
