#include "agrid_scenes/timed_broadphase.h"

namespace agrid::scenes {

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

}  // namespace agrid::scenes
