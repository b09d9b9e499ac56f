#pragma once
// CacheFeed: agrid's pairs into Bullet's pair cache. The pairs that ended leave it and those
// that began are offered to it (it decides with the filters as they are then), in ascending
// unique ids, as Bullet's broadphases do; while a filter callback decides, the pairs it refused
// are offered again every step; and after someone else edited the cache (pair surgery, a
// user's cache) or the filters' answers may have changed, the cache is made to hold exactly
// agrid's pairs that the filters accept.

#include <cstddef>
#include <cstdint>
#include <vector>

#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>

#include "agrid/broadphase.h"
#include "proxy_pair_cache.h"
#include "proxy_table.h"

namespace agrid::bullet_detail {

/// The pair cache and what the adapter keeps to feed it. Invariant (problem()): the pairs kept
/// as refused are sorted, unique, held by agrid, and kept only while a filter callback decides;
/// the adapter's own cache's invariant.
class CacheFeed {
 public:
  /// Pairs the cache gained and lost in one call.
  struct Counts {
    int began = 0;
    int ended = 0;
  };

  /// Feeds `given`, or a cache of the adapter's own (ProxyPairCache) when null. Throws
  /// std::invalid_argument for a cache with deferred removal other than a btNullPairCache.
  explicit CacheFeed(btOverlappingPairCache* given);
  ~CacheFeed();
  CacheFeed(const CacheFeed&) = delete;
  CacheFeed& operator=(const CacheFeed&) = delete;

  [[nodiscard]] btOverlappingPairCache* cache() const noexcept { return cache_; }
  /// A btNullPairCache was given: no pairs, queries only.
  [[nodiscard]] bool queries_only() const noexcept { return queries_only_; }

  /// Removes `proxy`'s pairs from the cache now, as Bullet expects of destroyProxy (the adapter's
  /// cache: O(the proxy's pairs)).
  void remove_pairs_of(btBroadphaseProxy& proxy, btDispatcher* dispatcher);

  /// True iff the cache's filter callback came, went or was replaced since the last call: every
  /// pair must be asked about again.
  [[nodiscard]] bool look_at_callback();
  /// A filter callback decides: it may accept pairs that groups and masks refuse, and change its
  /// mind, so the pairs it refuses are kept and offered again every step.
  [[nodiscard]] bool callback_decides() const noexcept { return callback_ != nullptr; }

  /// Brings the cache in line with one update of agrid's.
  Counts apply(const agrid::PairChanges& changes, const ProxyTable& table, btDispatcher* dispatcher);

  /// True iff the cache may not hold what the feed gave it: the adapter's cache noted an edit by
  /// someone else (the note is cleared), or a user's cache does not hold agrid's accepted pairs.
  [[nodiscard]] bool changed_outside(const agrid::Broadphase& broadphase, const ProxyTable& table);

  /// Makes the cache hold exactly agrid's pairs that its filters accept now.
  Counts reconcile(const agrid::Broadphase& broadphase, const ProxyTable& table, btDispatcher* dispatcher);

  /// Gives memory back by agrid's rule, the lists sized by `world` (objects and pairs).
  void give_back(std::size_t world);

  /// Heap bytes held by the feed's lists and the per-proxy lists of the adapter's own cache.
  [[nodiscard]] std::size_t bytes_held() const noexcept;

  /// Empty if the invariant holds, else what is wrong. O(agrid's pairs + the cache's).
  [[nodiscard]] const char* problem(const agrid::Broadphase& broadphase) const;

 private:
  /// A pair to remove from the cache or to offer to it.
  struct ProxyPair {
    btBroadphaseProxy* first;  ///< The lower unique id.
    btBroadphaseProxy* second;
    std::uint32_t offered;     ///< Its index among the offered pairs, or kRemoved.
  };
  static constexpr std::uint32_t kRemoved = 0xffffffffu;

  /// Removes `removed` from the cache, then offers it `offered` (none of them removed); those it
  /// refuses join refused_ while a callback decides. Each in ascending unique ids.
  Counts edit(const std::vector<agrid::Pair>& removed, const std::vector<agrid::Pair>& offered,
              const ProxyTable& table, btDispatcher* dispatcher);
  void append(const std::vector<agrid::Pair>& pairs, bool offered, const ProxyTable& table);
  void forget_refused(const std::vector<agrid::Pair>& ended);
  [[nodiscard]] bool holds_accepted_pairs(const agrid::Broadphase& broadphase, const ProxyTable& table) const;

  btOverlappingPairCache* cache_;
  /// The cache the adapter owns (null when the user gave one).
  ProxyPairCache* own_ = nullptr;
  bool queries_only_ = false;
  /// The cache's btOverlapFilterCallback as last seen.
  btOverlapFilterCallback* callback_ = nullptr;
  /// Pairs of agrid's (handles, sorted) that the filter callback refused: offered again every
  /// step while they overlap. Empty while no callback is set.
  std::vector<agrid::Pair> refused_;
  // Scratch, kept between steps: pairs offered, in the cache, to remove, missing; as proxies.
  std::vector<agrid::Pair> offered_;
  std::vector<agrid::Pair> cached_;
  std::vector<agrid::Pair> stale_;
  std::vector<agrid::Pair> missing_;
  std::vector<ProxyPair> scratch_;
  std::vector<std::uint8_t> refused_now_;  ///< Per offered pair: the cache refused it.
};

}  // namespace agrid::bullet_detail
