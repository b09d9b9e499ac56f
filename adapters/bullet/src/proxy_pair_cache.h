#pragma once
// ProxyPairCache: the pair cache btAdaptiveGridBroadphase owns when the user gives none. It is
// Bullet's btHashedOverlappingPairCache (every Bullet API, ghost callbacks and filter callbacks
// work unchanged), with two additions:
// * every proxy lists its own pairs, so that removing a body (cleanProxyFromPairs and
//   removeOverlappingPairsContainingProxy, which Bullet's cache answers by walking every pair
//   of the world) costs that body's pairs, with the same result, element for element;
// * it notices pairs that someone other than the broadphase adds or removes (a user's filter
//   change followed by cleanup, pair surgery), so that the broadphase repairs the cache at the
//   next step without checking every pair every step.
// Its proxies must be btAdaptiveGridProxy: the head of each list lives in the proxy.

#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>

#include <cstdint>
#include <vector>

#include "adaptive_grid_proxy.h"
#include "common/slack_growth.h"

namespace agrid::bullet_detail {

/// A btHashedOverlappingPairCache whose pairs are also listed by proxy, and which records
/// whether pairs were added or removed other than inside an OwnEdits scope.
class ProxyPairCache final : public btHashedOverlappingPairCache {
 public:
  /// While one lives, adds and removes are the broadphase's own and are not recorded.
  class OwnEdits {
   public:
    /// `cache` may be null (a user's cache, which is not watched).
    explicit OwnEdits(ProxyPairCache* cache) noexcept : cache_(cache) {
      if (cache_ != nullptr) cache_->own_edits_ = true;
    }
    ~OwnEdits() {
      if (cache_ != nullptr) cache_->own_edits_ = false;
    }
    OwnEdits(const OwnEdits&) = delete;
    OwnEdits& operator=(const OwnEdits&) = delete;

   private:
    ProxyPairCache* cache_;
  };

  btBroadphasePair* addOverlappingPair(btBroadphaseProxy* proxy0, btBroadphaseProxy* proxy1) override;

  // Every removal goes through here, also processAllOverlappingPairs's and
  // sortOverlappingPairs's (they call it virtually).
  void* removeOverlappingPair(btBroadphaseProxy* proxy0, btBroadphaseProxy* proxy1, btDispatcher* dispatcher) override;

  /// Removes the proxy's pairs in the order Bullet's cache does (lowest index first), so that
  /// the pair array ends the same; O(the proxy's pairs).
  void removeOverlappingPairsContainingProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher) override;

  /// Frees the collision algorithms of the proxy's pairs; O(the proxy's pairs).
  void cleanProxyFromPairs(btBroadphaseProxy* proxy, btDispatcher* dispatcher) override;

  /// True iff someone else changed the set of pairs since the last call.
  [[nodiscard]] bool take_outside_edits() noexcept {
    const bool edited = outside_edits_;
    outside_edits_ = false;
    return edited;
  }

  /// Gives the lists' memory back by agrid's rule (slack_growth.h) when far more is held than the
  /// pairs need. (Bullet's pair array and hash table never shrink.)
  void give_back() { agrid::detail::shrink_if_far_below(links_, links_.size()); }

  /// Heap bytes of the lists (the pair array and hash table are Bullet's).
  [[nodiscard]] std::size_t bytes_held() const noexcept { return links_.capacity() * sizeof(Links); }

  /// Empty if every proxy's list holds exactly its pairs, else what is wrong (for tests and
  /// AGRID_ASSERT; O(pairs)).
  [[nodiscard]] const char* problem() const;

 private:
  /// A pair's place in its two proxies' lists. An *end* is a pair seen from one of its proxies:
  /// end 2i is pair i seen from its m_pProxy0, end 2i + 1 from its m_pProxy1. Each list runs
  /// through ends; kNone closes it.
  struct Links {
    std::int32_t next[2];
    std::int32_t prev[2];
  };
  static constexpr std::int32_t kNone = btAdaptiveGridProxy::kNoPairs;

  [[nodiscard]] static btAdaptiveGridProxy& proxyOf(const btBroadphasePair& pair, int side) noexcept {
    return *static_cast<btAdaptiveGridProxy*>(side == 0 ? pair.m_pProxy0 : pair.m_pProxy1);
  }
  [[nodiscard]] std::int32_t& next(std::int32_t end) noexcept { return links_[end >> 1].next[end & 1]; }
  [[nodiscard]] std::int32_t& prev(std::int32_t end) noexcept { return links_[end >> 1].prev[end & 1]; }
  /// Puts pair `index` at the front of both its proxies' lists.
  void link(int index);
  /// Takes pair `index` out of both lists.
  void unlink(int index);
  /// Bullet moved the last pair into `index`: its list entries follow it.
  void moved(int from, int to);
  /// The proxy's pairs' indices, ascending, into scratch_.
  void collectPairs(const btBroadphaseProxy* proxy);
  void note(int before) noexcept {
    if (!own_edits_ && getNumOverlappingPairs() != before) outside_edits_ = true;
  }

  std::vector<Links> links_;  ///< By pair index, as the pair array.
  std::vector<int> scratch_;
  bool own_edits_ = false;
  bool outside_edits_ = false;
};

}  // namespace agrid::bullet_detail
