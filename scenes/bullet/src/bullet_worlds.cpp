#include "agrid_scenes/bullet_worlds.h"

#include <BulletCollision/BroadphaseCollision/btAxisSweep3.h>
#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "agrid/bullet/btAdaptiveGridBroadphase.h"
#include "world_scene.h"

namespace agrid::scenes {
namespace {

/// One step of every world: 1/60 s, one substep.
constexpr btScalar kTimeStep = btScalar(1) / 60;
/// Margin around a scene's extent for bt32BitAxisSweep3's fixed world bounds; bodies beyond
/// them have left the world.
constexpr btScalar kSapMargin = 100;

/// Every scene, the A/B ones first.
struct Registry {
  std::vector<const detail::WorldScene*> scenes;
  std::vector<WorldSceneInfo> infos;
  std::vector<std::string_view> names;
};

const Registry& registry() {
  static const Registry r = [] {
    Registry built;
    for (const auto list : {detail::ab_scenes(), detail::bench_scenes()}) {
      for (const detail::WorldScene& scene : list) {
        built.scenes.push_back(&scene);
        built.infos.push_back(scene.info);
        built.names.push_back(scene.info.name);
      }
    }
    return built;
  }();
  return r;
}

const detail::WorldScene& scene_named(std::string_view name) {
  const WorldSceneInfo* info = find_world_scene(name);
  if (info == nullptr) {
    throw std::invalid_argument("agrid::scenes::BulletWorld: unknown scene \"" + std::string(name) + "\"");
  }
  return *registry().scenes[static_cast<std::size_t>(info - registry().infos.data())];
}

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

std::span<const WorldSceneInfo> world_scenes() { return registry().infos; }

std::span<const std::string_view> world_scene_names() { return registry().names; }

const WorldSceneInfo* find_world_scene(std::string_view name) {
  for (const WorldSceneInfo& info : registry().infos) {
    if (info.name == name || (!info.short_name.empty() && info.short_name == name)) return &info;
  }
  return nullptr;
}

BulletWorld::BulletWorld(std::string_view scene, BroadphaseKind kind, std::uint32_t bodies, std::uint64_t seed) {
  const detail::WorldScene& definition = scene_named(scene);
  if (bodies == 0 && !definition.info.fixed_bodies) {
    throw std::invalid_argument("agrid::scenes::BulletWorld: at least one body");
  }
  const detail::Extent extent = definition.extent(bodies);
  bounds_min_ = extent.lo - btVector3(kSapMargin, kSapMargin, kSapMargin);
  bounds_max_ = extent.hi + btVector3(kSapMargin, kSapMargin, kSapMargin);
  configuration_ = std::make_unique<btDefaultCollisionConfiguration>();
  dispatcher_ = std::make_unique<btCollisionDispatcher>(configuration_.get());
  broadphase_ = std::make_unique<TimedBroadphase>(make_broadphase(kind, bounds_min_, bounds_max_));
  solver_ = std::make_unique<btSequentialImpulseConstraintSolver>();
  world_ = std::make_unique<btDiscreteDynamicsWorld>(dispatcher_.get(), broadphase_.get(), solver_.get(), configuration_.get());
  contents_ = std::make_unique<detail::WorldBuilder>(*world_, seed);
  definition.build(*contents_, bodies);
}

BulletWorld::~BulletWorld() = default;

void BulletWorld::step() {
  world_->stepSimulation(kTimeStep, 1, kTimeStep);
  if (!contents_->rays().empty()) cast_rays();
}

void BulletWorld::cast_rays() {
  const auto start = std::chrono::steady_clock::now();
  std::size_t hits = 0;
  for (const detail::Ray& ray : contents_->rays()) {
    btCollisionWorld::ClosestRayResultCallback closest(ray.from, ray.to);
    world_->rayTest(ray.from, ray.to, closest);
    hits += closest.hasHit();
  }
  last_query_time_ = std::chrono::steady_clock::now() - start;
  last_ray_hits_ = hits;
}

std::size_t BulletWorld::rays_per_step() const noexcept { return contents_->rays().size(); }

int BulletWorld::pairs() const { return broadphase_->getOverlappingPairCache()->getNumOverlappingPairs(); }

PhysicsSummary BulletWorld::summary() const {
  PhysicsSummary s;
  double height_sum = 0;
  s.max_height = -std::numeric_limits<double>::infinity();
  for (const auto& body : contents_->bodies()) {
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
  for (const auto& body : contents_->bodies()) {
    if (body->getInvMass() == 0) continue;
    const btVector3 p = body->getCenterOfMassPosition();
    states.push_back({static_cast<float>(p.x()), static_cast<float>(p.y()), static_cast<float>(p.z()),
                      body->getActivationState() == ISLAND_SLEEPING});
  }
  return states;
}

}  // namespace agrid::scenes
