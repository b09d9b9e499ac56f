#pragma once
// WatchedPairCache: the pair cache btAdaptiveGridBroadphase owns when the user gives none. It is
// Bullet's btHashedOverlappingPairCache, and it notices pairs that someone other than the
// broadphase adds or removes (a user's filter change followed by cleanup, pair surgery), so that
// the broadphase repairs the cache at the next step without checking every pair every step.

#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>

namespace agrid::bullet_detail {

/// A btHashedOverlappingPairCache that records whether pairs were added or removed other than
/// inside an OwnEdits scope.
class WatchedPairCache final : public btHashedOverlappingPairCache {
 public:
  /// While one lives, adds and removes are the broadphase's own and are not recorded.
  class OwnEdits {
   public:
    /// `cache` may be null (a user's cache, which is not watched).
    explicit OwnEdits(WatchedPairCache* cache) noexcept : cache_(cache) {
      if (cache_ != nullptr) cache_->own_edits_ = true;
    }
    ~OwnEdits() {
      if (cache_ != nullptr) cache_->own_edits_ = false;
    }
    OwnEdits(const OwnEdits&) = delete;
    OwnEdits& operator=(const OwnEdits&) = delete;

   private:
    WatchedPairCache* cache_;
  };

  btBroadphasePair* addOverlappingPair(btBroadphaseProxy* proxy0, btBroadphaseProxy* proxy1) override {
    const int before = getNumOverlappingPairs();
    btBroadphasePair* pair = btHashedOverlappingPairCache::addOverlappingPair(proxy0, proxy1);
    note(before);
    return pair;
  }

  // Every removal goes through here, also removeOverlappingPairsContainingProxy's and
  // processAllOverlappingPairs's (they call it virtually).
  void* removeOverlappingPair(btBroadphaseProxy* proxy0, btBroadphaseProxy* proxy1, btDispatcher* dispatcher) override {
    const int before = getNumOverlappingPairs();
    void* info = btHashedOverlappingPairCache::removeOverlappingPair(proxy0, proxy1, dispatcher);
    note(before);
    return info;
  }

  /// True iff someone else changed the set of pairs since the last call.
  [[nodiscard]] bool take_outside_edits() noexcept {
    const bool edited = outside_edits_;
    outside_edits_ = false;
    return edited;
  }

 private:
  void note(int before) noexcept {
    if (!own_edits_ && getNumOverlappingPairs() != before) outside_edits_ = true;
  }

  bool own_edits_ = false;
  bool outside_edits_ = false;
};

}  // namespace agrid::bullet_detail
