#include "simulation.h"

#include <chrono>
#include <utility>

#include <btBulletDynamicsCommon.h>
#include <tbb/info.h>

namespace agrid::viewer {
namespace {

/// A shot box: a 1-unit cube (the piles' bodies' size), heavy enough to scatter them.
constexpr btScalar kShotHalfExtent = 0.5f;
constexpr btScalar kShotMass = 5.0f;
/// Its speed, in units per second: it crosses a 5,000-body pile in about a second.
constexpr btScalar kShotSpeed = 40.0f;

using Milliseconds = std::chrono::duration<double, std::milli>;

unsigned concurrency(unsigned threads) {
  return threads > 0 ? threads : static_cast<unsigned>(tbb::info::default_concurrency());
}

glm::vec3 to_glm(const btVector3& v) { return {float(v.x()), float(v.y()), float(v.z())}; }

// A ground (a plane, a triangle mesh, a height field) pairs with whatever rests on it; a line
// to its origin would only clutter the picture.
bool is_ground(const btCollisionObject& object) {
  const btCollisionShape* shape = object.getCollisionShape();
  return shape->isInfinite() || shape->isConcave();
}

// As the renderer colours it.
const char* state_name(const btCollisionObject& object) {
  if (object.isStaticOrKinematicObject()) return "static";
  const int activation = object.getActivationState();
  return activation == ISLAND_SLEEPING || activation == DISABLE_SIMULATION ? "asleep" : "awake";
}

int index_of(const btBroadphaseProxy* proxy) {
  return static_cast<const btCollisionObject*>(proxy->m_clientObject)->getWorldArrayIndex();
}

}  // namespace

Simulation::Simulation(std::string scene, std::uint32_t bodies, std::uint64_t seed, scenes::BroadphaseKind kind,
                       unsigned threads)
    : scene_(std::move(scene)), bodies_(bodies), seed_(seed), kind_(kind), threads_(concurrency(threads)),
      arena_(static_cast<int>(threads_)) {
  rebuild(kind);
}

void Simulation::rebuild(scenes::BroadphaseKind kind) {
  kind_ = kind;
  world_.reset();  // one world at a time: a 5,000-body scene twice would double the memory
  world_ = std::make_unique<scenes::BulletWorld>(scene_, kind_, bodies_, seed_);
  steps_ = 0;
  objects_ = world_->world().getNumCollisionObjects();
  history_.clear();
}

void Simulation::set_threads(unsigned threads) {
  const unsigned wanted = concurrency(threads);
  if (wanted == threads_) return;
  threads_ = wanted;
  arena_.terminate();
  arena_.initialize(static_cast<int>(threads_));
}

void Simulation::step() {
  const auto start = std::chrono::steady_clock::now();
  arena_.execute([this] { world_->step(); });
  const double step_ms = Milliseconds(std::chrono::steady_clock::now() - start).count();
  const double broadphase_ms = Milliseconds(world_->broadphase().last_step_time()).count();
  ++steps_;
  history_.add(static_cast<float>(step_ms), static_cast<float>(broadphase_ms), static_cast<float>(world_->pairs()));
  BroadphaseTotals& totals = totals_[static_cast<std::size_t>(kind_)];
  ++totals.steps;
  totals.step_ms += step_ms;
  totals.broadphase_ms += broadphase_ms;
}

void Simulation::shoot_box(const glm::vec3& from, const glm::vec3& direction) {
  scenes::BulletHarness& harness = world_->harness();
  btCollisionShape* shape =
      harness.own(std::make_unique<btBoxShape>(btVector3(kShotHalfExtent, kShotHalfExtent, kShotHalfExtent)));
  btTransform start;
  start.setIdentity();
  start.setOrigin(btVector3(from.x, from.y, from.z));
  btRigidBody* box = harness.add_body(shape, kShotMass, start);
  box->setLinearVelocity(btVector3(direction.x, direction.y, direction.z) * kShotSpeed);
  ++objects_;
}

std::vector<glm::vec3> Simulation::pair_lines() const {
  btBroadphasePairArray& pairs = world_->harness().cache().getOverlappingPairArray();
  std::vector<glm::vec3> ends;
  ends.reserve(2 * static_cast<std::size_t>(pairs.size()));
  for (int i = 0; i < pairs.size(); ++i) {
    const auto* a = static_cast<const btCollisionObject*>(pairs[i].m_pProxy0->m_clientObject);
    const auto* b = static_cast<const btCollisionObject*>(pairs[i].m_pProxy1->m_clientObject);
    if (is_ground(*a) || is_ground(*b)) continue;
    ends.push_back(to_glm(a->getWorldTransform().getOrigin()));
    ends.push_back(to_glm(b->getWorldTransform().getOrigin()));
  }
  return ends;
}

std::optional<int> Simulation::pick(const glm::vec3& from, const glm::vec3& to) const {
  const btVector3 start(from.x, from.y, from.z);
  const btVector3 end(to.x, to.y, to.z);
  btCollisionWorld::ClosestRayResultCallback closest(start, end);
  world_->world().rayTest(start, end, closest);
  if (!closest.hasHit()) return std::nullopt;
  return closest.m_collisionObject->getWorldArrayIndex();
}

std::optional<BodyInfo> Simulation::body_info(int index) const {
  const btCollisionObjectArray& objects = world_->world().getCollisionObjectArray();
  if (index < 0 || index >= objects.size()) return std::nullopt;
  const btCollisionObject& object = *objects[index];
  BodyInfo info;
  info.index = index;
  info.shape = object.getCollisionShape()->getName();
  info.state = state_name(object);
  info.pairs = pair_counts()[static_cast<std::size_t>(index)];
  const btBroadphaseProxy* proxy = object.getBroadphaseHandle();
  info.aabb = {to_glm(proxy->m_aabbMin), to_glm(proxy->m_aabbMax)};
  return info;
}

std::vector<int> Simulation::pair_counts() const {
  std::vector<int> counts(static_cast<std::size_t>(world_->world().getNumCollisionObjects()), 0);
  const btBroadphasePairArray& pairs = world_->harness().cache().getOverlappingPairArray();
  for (int i = 0; i < pairs.size(); ++i) {
    ++counts[static_cast<std::size_t>(index_of(pairs[i].m_pProxy0))];
    ++counts[static_cast<std::size_t>(index_of(pairs[i].m_pProxy1))];
  }
  return counts;
}

std::vector<Box> Simulation::aabbs() const {
  const btCollisionObjectArray& objects = world_->world().getCollisionObjectArray();
  std::vector<Box> boxes;
  boxes.reserve(static_cast<std::size_t>(objects.size()));
  for (int i = 0; i < objects.size(); ++i) {
    const btBroadphaseProxy* proxy = objects[i]->getBroadphaseHandle();
    const btVector3& lo = proxy->m_aabbMin;
    const btVector3& hi = proxy->m_aabbMax;
    boxes.push_back({{float(lo.x()), float(lo.y()), float(lo.z())}, {float(hi.x()), float(hi.y()), float(hi.z())}});
  }
  return boxes;
}

std::vector<glm::vec3> Simulation::ray_lines() const {
  std::vector<glm::vec3> ends;
  ends.reserve(2 * world_->last_rays().size());
  for (const scenes::CastRay& ray : world_->last_rays()) {
    ends.push_back(to_glm(ray.from));
    ends.push_back(to_glm(ray.end));
  }
  return ends;
}

}  // namespace agrid::viewer
