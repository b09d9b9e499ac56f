#include "agrid_scenes/bullet_worlds.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "world_scene.h"

namespace agrid::scenes {
namespace {

/// Margin around a scene's extent for bt32BitAxisSweep3's fixed world bounds; bodies beyond
/// them have left the world.
constexpr btScalar kSapMargin = 100;
/// btDiscreteDynamicsWorld's own gravity, which scenes that set none have always had.
const btVector3 kBulletDefaultGravity(0, -10, 0);
/// btSimpleBroadphase's capacity per body asked for: room for a scene's extra bodies (static-city's
/// spheres, grounds); it allocates them all up front.
constexpr int kSimpleProxiesPerBody = 2;

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

}  // namespace

// ---- the worlds -------------------------------------------------------------------------

std::span<const WorldSceneInfo> world_scenes() { return registry().infos; }

std::span<const std::string_view> world_scene_names() { return registry().names; }

const WorldSceneInfo* find_world_scene(std::string_view name) {
  for (const WorldSceneInfo& info : registry().infos) {
    if (info.name == name || (!info.short_name.empty() && info.short_name == name)) return &info;
  }
  return nullptr;
}

BulletWorld::BulletWorld(std::string_view scene, BroadphaseKind kind, std::uint32_t bodies, std::uint64_t seed,
                         const agrid::Config& config) {
  const detail::WorldScene& definition = scene_named(scene);
  if (bodies == 0 && !definition.info.fixed_bodies) {
    throw std::invalid_argument("agrid::scenes::BulletWorld: at least one body");
  }
  const detail::Extent extent = definition.extent(bodies);
  bounds_min_ = extent.lo - btVector3(kSapMargin, kSapMargin, kSapMargin);
  bounds_max_ = extent.hi + btVector3(kSapMargin, kSapMargin, kSapMargin);
  HarnessDef def;
  def.kind = kind;
  def.config = config;
  def.gravity = kBulletDefaultGravity;
  def.timed = true;
  def.motion_states = true;
  def.sap_min = bounds_min_;
  def.sap_max = bounds_max_;
  def.simple_max_proxies = std::max(kDefaultSimpleMaxProxies, kSimpleProxiesPerBody * static_cast<int>(bodies));
  harness_ = std::make_unique<BulletHarness>(std::move(def));
  contents_ = std::make_unique<detail::WorldBuilder>(*harness_, seed);
  definition.build(*contents_, bodies);
}

BulletWorld::~BulletWorld() = default;

void BulletWorld::step() {
  harness_->step();
  if (!contents_->rays().empty()) cast_rays();
}

void BulletWorld::cast_rays() {
  const auto start = std::chrono::steady_clock::now();
  std::size_t hits = 0;
  last_rays_.clear();  // keeps its memory: after the first step, recording allocates nothing
  for (const detail::Ray& ray : contents_->rays()) {
    btCollisionWorld::ClosestRayResultCallback closest(ray.from, ray.to);
    world().rayTest(ray.from, ray.to, closest);
    hits += closest.hasHit();
    last_rays_.push_back({ray.from, closest.hasHit() ? closest.m_hitPointWorld : ray.to, closest.hasHit()});
  }
  last_query_time_ = std::chrono::steady_clock::now() - start;
  last_ray_hits_ = hits;
}

std::size_t BulletWorld::rays_per_step() const noexcept { return contents_->rays().size(); }

int BulletWorld::pairs() const { return harness_->cache().getNumOverlappingPairs(); }

PhysicsSummary BulletWorld::summary() const {
  PhysicsSummary s;
  double height_sum = 0;
  s.max_height = -std::numeric_limits<double>::infinity();
  for (const btRigidBody* body : harness_->bodies()) {
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
  for (const btRigidBody* body : harness_->bodies()) {
    if (body->getInvMass() == 0) continue;
    const btVector3 p = body->getCenterOfMassPosition();
    states.push_back({static_cast<float>(p.x()), static_cast<float>(p.y()), static_cast<float>(p.z()),
                      body->getActivationState() == ISLAND_SLEEPING});
  }
  return states;
}

}  // namespace agrid::scenes
