#pragma once
// A broadphase wrapper that measures the broadphase's share of a Bullet step.

#include <chrono>
#include <memory>
#include <vector>

#include <btBulletCollisionCommon.h>

namespace agrid::scenes {

/// A btBroadphaseInterface that forwards to another and measures the broadphase's share of a
/// step: every setAabb and calculateOverlappingPairs. setAabb calls are recorded as they come
/// and replayed, timed, in one run just before calculateOverlappingPairs (timing each call
/// would cost more than some broadphases' work); so between the two, the inner broadphase still
/// holds the old boxes, which the worlds here never ask for.
class TimedBroadphase : public btBroadphaseInterface {
 public:
  explicit TimedBroadphase(std::unique_ptr<btBroadphaseInterface> inner);
  ~TimedBroadphase() override;

  btBroadphaseProxy* createProxy(const btVector3& aabbMin, const btVector3& aabbMax, int shapeType, void* userPtr,
                                 int group, int mask, btDispatcher* dispatcher) override;
  void destroyProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher) override;
  void setAabb(btBroadphaseProxy* proxy, const btVector3& aabbMin, const btVector3& aabbMax, btDispatcher* dispatcher) override;
  void getAabb(btBroadphaseProxy* proxy, btVector3& aabbMin, btVector3& aabbMax) const override;
  void rayTest(const btVector3& rayFrom, const btVector3& rayTo, btBroadphaseRayCallback& rayCallback,
               const btVector3& aabbMin = btVector3(0, 0, 0), const btVector3& aabbMax = btVector3(0, 0, 0)) override;
  void aabbTest(const btVector3& aabbMin, const btVector3& aabbMax, btBroadphaseAabbCallback& callback) override;
  void calculateOverlappingPairs(btDispatcher* dispatcher) override;
  btOverlappingPairCache* getOverlappingPairCache() override;
  const btOverlappingPairCache* getOverlappingPairCache() const override;
  void getBroadphaseAabb(btVector3& aabbMin, btVector3& aabbMax) const override;
  void resetPool(btDispatcher* dispatcher) override;
  void printStats() override;

  /// The broadphase's time in the last calculateOverlappingPairs, setAabb replay included.
  [[nodiscard]] std::chrono::nanoseconds last_step_time() const noexcept { return last_; }
  /// The broadphase measured.
  [[nodiscard]] btBroadphaseInterface& inner() noexcept { return *inner_; }

 private:
  void flush(btDispatcher* dispatcher);

  /// A recorded setAabb: 32 bytes, so that replaying costs little beside the broadphase's work.
  struct SetAabb {
    btBroadphaseProxy* proxy;
    float bounds[6];  ///< min x, y, z, max x, y, z
  };
  std::unique_ptr<btBroadphaseInterface> inner_;
  std::vector<SetAabb> pending_;
  btDispatcher* pending_dispatcher_ = nullptr;
  std::chrono::nanoseconds last_{0};
};

}  // namespace agrid::scenes
