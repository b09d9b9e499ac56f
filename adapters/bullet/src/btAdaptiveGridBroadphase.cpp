#include "agrid/bullet/btAdaptiveGridBroadphase.h"

#include <LinearMath/btAlignedAllocator.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <typeinfo>

#if defined(__GXX_ABI_VERSION) && defined(__GXX_RTTI)
#include <cxxabi.h>
#endif

#include "adaptive_grid_proxy.h"
#include "agrid/broadphase.h"
#include "agrid/config.h"
#include "common/agrid_assert.h"
#include "common/slack_growth.h"
#include "proxy_pair_cache.h"
#include "proxy_pool.h"
#include "reports.h"
#include "rtti.h"
#include "scalar_conversion.h"
#include "watched_proxies.h"

namespace {

using agrid::bullet_detail::toBox;
using agrid::bullet_detail::toSegment;
using agrid::bullet_detail::ProxyPairCache;
using Clock = std::chrono::steady_clock;

/// Every group meets every mask: what agrid is told while a user's filter callback decides.
constexpr agrid::Filter kPassAll{0xffffffffu, 0xffffffffu};

/// The user's config, with the pairs that have a moving member left to the pair cache to decide:
/// it reads the filters as they are when such a pair begins (see calculateOverlappingPairs).
[[nodiscard]] agrid::Config adapterConfig(agrid::Config config) noexcept {
  config.filter_moving_pairs = false;
  return config;
}


[[nodiscard]] double seconds(Clock::duration d) noexcept { return std::chrono::duration<double>(d).count(); }

[[nodiscard]] bool sameXyz(const btVector3& a, const btVector3& b) noexcept {
  return a.x() == b.x() && a.y() == b.y() && a.z() == b.z();
}

[[nodiscard]] agrid::Handle handleOf(const btBroadphaseProxy* proxy) noexcept {
  return static_cast<const btAdaptiveGridProxy*>(proxy)->m_handle;
}

[[nodiscard]] agrid::Pair handlePair(const btBroadphaseProxy* p0, const btBroadphaseProxy* p1) noexcept {
  const agrid::Handle a = handleOf(p0);
  const agrid::Handle b = handleOf(p1);
  return {std::min(a, b), std::max(a, b)};
}

/// A pair of proxies as a well-mixed 64-bit number, the same in either order; sums of these
/// tell two sets of pairs apart. (The constants are splitmix64's.)
[[nodiscard]] std::uint64_t pairSignature(const btBroadphaseProxy* a, const btBroadphaseProxy* b) noexcept {
  auto x = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(a));
  auto y = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(b));
  if (x > y) std::swap(x, y);
  std::uint64_t h = x * 0x9e3779b97f4a7c15u + y;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9u;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebu;
  return h ^ (h >> 31);
}

/// True iff the cache ignores filter callbacks, as btNullPairCache does: set one and read it
/// back, then put the old one back. (Asked of what the cache does, not of its type: RTTI may be
/// off where the cache's class was compiled.)
[[nodiscard]] bool ignoresFilterCallbacks(btOverlappingPairCache& cache) {
  struct Probe : btOverlapFilterCallback {
    bool needBroadphaseCollision(btBroadphaseProxy*, btBroadphaseProxy*) const override { return true; }
  } probe;
  btOverlapFilterCallback* const old = cache.getOverlapFilterCallback();
  cache.setOverlapFilterCallback(&probe);
  const bool ignores = cache.getOverlapFilterCallback() != &probe;
  cache.setOverlapFilterCallback(old);
  return ignores;
}

/// A btNullPairCache, or one like it: pairs are removed later (never), none are kept, and no
/// filter is kept either.
[[nodiscard]] bool keepsNoPairs(btOverlappingPairCache& cache) {
  return cache.hasDeferredRemoval() && cache.getNumOverlappingPairs() == 0 && ignoresFilterCallbacks(cache);
}

/// The class of `cache` by name, or a description where its class was compiled without RTTI.
[[nodiscard]] std::string classOf(const btOverlappingPairCache& cache) {
#if defined(__GXX_ABI_VERSION) && defined(__GXX_RTTI)
  if (agrid::bullet_detail::has_type_info(cache)) {
    const char* mangled = typeid(cache).name();
    int status = 0;
    char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
    std::string name = status == 0 && demangled != nullptr ? demangled : mangled;
    std::free(demangled);  // NOLINT: __cxa_demangle allocates with malloc
    return name;
  }
#endif
  return "class unknown: compiled without RTTI";
}

}  // namespace

/// Everything behind the public class: the agrid broadphase, the proxies and the pair cache.
class btAdaptiveGridBroadphase::Impl {
 public:
  Impl(btOverlappingPairCache* pairCache, const agrid::Config& config);
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  btBroadphaseProxy* createProxy(const btVector3& aabbMin, const btVector3& aabbMax, void* userPtr,
                                 int collisionFilterGroup, int collisionFilterMask);
  void destroyProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher);
  /// Stores the AABB, stamping the proxy as given one in this step (the step's stats count them).
  void setAabb(btBroadphaseProxy* proxy, const btVector3& aabbMin, const btVector3& aabbMax);
  /// setAabb, timed for the step's stats.
  void timedSetAabb(btBroadphaseProxy* proxy, const btVector3& aabbMin, const btVector3& aabbMax);
  void rayTest(const btVector3& rayFrom, const btVector3& rayTo, btBroadphaseRayCallback& rayCallback,
               const btVector3& aabbMin, const btVector3& aabbMax);
  void aabbTest(const btVector3& aabbMin, const btVector3& aabbMax, btBroadphaseAabbCallback& callback);
  /// calculateOverlappingPairs, timed, with the step's stats.
  void timedCalculateOverlappingPairs(btDispatcher* dispatcher);
  void getBroadphaseAabb(btVector3& aabbMin, btVector3& aabbMax) const;
  void printStats() const;
  /// The step's stats of the world it leaves: agrid's counts, and the bytes of agrid and the adapter.
  void fillWorldStats();
  /// getAabb: the stored AABB, or a misuse for a null proxy.
  void getAabb(btBroadphaseProxy* proxy, btVector3& aabbMin, btVector3& aabbMax) const;

  agrid::Broadphase m_broadphase;
  btOverlappingPairCache* m_pairCache;
  /// The last step's; its pair counts are summed while calculateOverlappingPairs runs.
  btAdaptiveGridBroadphaseStats m_stats;
  /// Two clock reads per setAabb cost more than an unchanged AABB's setAabb itself (53 ns
  /// against 4.4 in BM_resting_step), so its timing is asked for (setTimeSetAabbCalls).
  bool m_timeSetAabb = false;
  /// setWatchFiltersAtRest: the proxies agrid refused a pair among resting objects are looked at.
  bool m_watchFiltersAtRest = true;
  /// Where misuse and warnings go (setMisuseHandler, setWarningHandler).
  agrid::bullet_detail::Reports m_reports;

 private:
  /// A pair to remove from the cache or to offer to it.
  struct ProxyPair {
    btBroadphaseProxy* first;  ///< The lower unique id.
    btBroadphaseProxy* second;
    std::uint32_t offered;     ///< Its index among the offered pairs, or kRemoved.
  };
  static constexpr std::uint32_t kRemoved = 0xffffffffu;

  void calculateOverlappingPairs(btDispatcher* dispatcher);
  /// Brings the cache and the overlap counts in line with one update's changes.
  void applyChanges(const agrid::PairChanges& changes, btDispatcher* dispatcher);
  /// The proxy of a live handle, or of a destroyed one whose pairs agrid has not reported
  /// ended yet (then null).
  [[nodiscard]] btAdaptiveGridProxy* proxyOf(agrid::Handle handle) const noexcept { return m_proxies[handle]; }
  /// The proxy given by Bullet; null, after reporting the misuse, if it is null or was destroyed
  /// already (and its slot not reused).
  [[nodiscard, gnu::always_inline]] btAdaptiveGridProxy* liveProxy(btBroadphaseProxy* proxy, const char* call) const;
  /// Reports a null or destroyed proxy given to `call`; returns only if the user's handler does.
  [[gnu::cold, gnu::noinline]] void notLive(const char* call) const;
  /// Warns of the first invalid AABB held, once in the broadphase's life.
  void warnOfInvalidAabb();
  /// What agrid is told of a proxy's filter: the one last seen, or pass-all while a callback decides.
  [[nodiscard]] agrid::Filter filterOf(const btAdaptiveGridProxy& proxy) const noexcept;
  /// Compares the filters of the watched proxies, and of those agrid refused a pair among
  /// resting objects, with what was last seen; a change sets m_recheckPairs.
  void lookAtWatchedFilters();
  /// The proxy's filter changed: agrid is told (its resting pairs are decided anew at the next
  /// update) and the cache asked again about every pair.
  void syncFilter(btAdaptiveGridProxy& proxy);
  /// Counts the overlaps that began and ended per proxy; a proxy that gains its first is watched.
  void countOverlaps(const agrid::PairChanges& changes);
  [[nodiscard]] bool applyFilterCallback();
  /// True while refused pairs are kept and offered again every step: a filter callback decides,
  /// and its answers may change without anything the adapter can see.
  [[nodiscard]] bool keepsRefused() const noexcept { return m_filterCallback != nullptr; }
  void forgetRefused(const std::vector<agrid::Pair>& ended);
  /// The destroyed proxies' slots go back to the pool, and the table by handle shrinks.
  void releaseDestroyed();
  /// Empty if the adapter's invariants hold (the watched proxies, the pool, the cache's lists),
  /// else what is wrong; O(proxies + pairs), for AGRID_ASSERT.
  [[nodiscard]] const char* problem() const;
  /// Removes `removed` from the cache, then offers it `offered` (none of them removed); those it
  /// refuses join m_refused. Each in ascending unique ids, as Bullet's broadphases do.
  void applyToCache(const std::vector<agrid::Pair>& removed, const std::vector<agrid::Pair>& offered,
                    btDispatcher* dispatcher);
  void appendProxyPairs(const std::vector<agrid::Pair>& pairs, bool offered);
  [[nodiscard]] bool cacheChangedOutside();
  [[nodiscard]] bool cacheHoldsAcceptedPairs() const;
  void reconcile(btDispatcher* dispatcher);

  agrid::bullet_detail::ProxyPool m_proxyPool;
  /// The cache the adapter owns (null when the user gave one).
  ProxyPairCache* m_ownCache = nullptr;
  /// A btNullPairCache was given: no pairs, queries only.
  bool m_queriesOnly = false;
  std::vector<btAdaptiveGridProxy*> m_proxies;  ///< By handle; null once destroyed.
  /// Destroyed since the last step: their slots go back to the pool then, so that a proxy
  /// destroyed twice in a step is refused (its memory still says kDestroyed).
  std::vector<btAdaptiveGridProxy*> m_destroyed;
  /// Created since the last step (some destroyed since, in quarantine): their filters are
  /// compared before the update.
  std::vector<btAdaptiveGridProxy*> m_created;
  /// The proxies whose filter can change a pair: those with an overlapping box.
  agrid::bullet_detail::WatchedProxies m_watched;
  int m_nextUniqueId = 1;
  std::uint32_t m_liveProxies = 0;
  /// Steps counted by calculateOverlappingPairs, and the live proxies created or given setAabb
  /// in this step (each once, through the proxies' stamps): the step's stats.
  std::uint32_t m_step = 1;
  std::uint32_t m_setAabbObjects = 0;
  /// The cache's btOverlapFilterCallback as last seen. While one is set, refused pairs are kept
  /// and offered again every step (keepsRefused).
  btOverlapFilterCallback* m_filterCallback = nullptr;
  /// A watched proxy's filter changed: the cache is asked again about every pair.
  bool m_recheckPairs = false;
  /// A filter was passed on to agrid since its last update began (syncFilter).
  bool m_filtersPassedOn = false;
  /// Pairs of agrid's set (handles, sorted) that the cache's filter callback refused: offered
  /// again every step while they overlap. Empty while no callback is set.
  std::vector<agrid::Pair> m_refused;
  // Scratch, kept between steps: pairs offered, in the cache, to remove, missing; as proxies.
  std::vector<agrid::Pair> m_offered;
  std::vector<agrid::Pair> m_cached;
  std::vector<agrid::Pair> m_stale;
  std::vector<agrid::Pair> m_missing;
  std::vector<ProxyPair> m_scratch;
  std::vector<std::uint8_t> m_refusedNow;  ///< Per offered pair: the cache refused it.
  /// The time of the setAabb calls since the last calculateOverlappingPairs, when timed.
  Clock::duration m_setAabbTime{};
};

btAdaptiveGridBroadphase::Impl::Impl(btOverlappingPairCache* pairCache, const agrid::Config& config)
    : m_broadphase(adapterConfig(config)), m_pairCache(pairCache) {
  if (pairCache != nullptr && pairCache->hasDeferredRemoval()) {
    m_queriesOnly = keepsNoPairs(*pairCache);
    if (!m_queriesOnly) {
      throw std::invalid_argument("btAdaptiveGridBroadphase: the pair cache given (" + classOf(*pairCache) +
                                  ") has deferred removal, which is not supported; pass a "
                                  "btHashedOverlappingPairCache, a btNullPairCache (queries only) or none");
    }
  }
  if (pairCache == nullptr) {
    void* memory = btAlignedAlloc(sizeof(ProxyPairCache), 16);
    m_ownCache = new (memory) ProxyPairCache();
    m_pairCache = m_ownCache;
  }
}

btAdaptiveGridBroadphase::Impl::~Impl() {
  // The proxies need no destructor (adaptive_grid_proxy.h); the pool frees their memory.
  if (m_ownCache != nullptr) {
    m_ownCache->~ProxyPairCache();
    btAlignedFree(m_ownCache);
  }
}

// Out of line and cold, so that the check in setAabb inlines to a compare (measured: an inlined
// throw kept liveProxy out of line, 10% of BM_resting_step).
void btAdaptiveGridBroadphase::Impl::notLive(const char* call) const {
  m_reports.misuse(std::string("btAdaptiveGridBroadphase::") + call + ": the proxy is null or was destroyed already");
}

inline btAdaptiveGridProxy* btAdaptiveGridBroadphase::Impl::liveProxy(btBroadphaseProxy* proxy, const char* call) const {
  auto* p = static_cast<btAdaptiveGridProxy*>(proxy);
  if (p == nullptr || p->m_handle == btAdaptiveGridProxy::kDestroyed) [[unlikely]] {
    notLive(call);
    return nullptr;
  }
  return p;
}

btBroadphaseProxy* btAdaptiveGridBroadphase::Impl::createProxy(const btVector3& aabbMin, const btVector3& aabbMax,
                                                               void* userPtr, int collisionFilterGroup,
                                                               int collisionFilterMask) {
  if (m_nextUniqueId == std::numeric_limits<int>::max()) {
    throw std::length_error("btAdaptiveGridBroadphase::createProxy: unique ids exhausted");
  }
  void* memory = m_proxyPool.allocate();
  auto* proxy = new (memory) btAdaptiveGridProxy(aabbMin, aabbMax, userPtr, collisionFilterGroup, collisionFilterMask);
  proxy->m_uniqueId = m_nextUniqueId++;  // from 1, never reused, as btDbvtBroadphase
  bool created = false;
  try {
    proxy->m_handle = m_broadphase.create(toBox(aabbMin, aabbMax), filterOf(*proxy));
    created = true;
    if (m_proxies.size() <= proxy->m_handle) m_proxies.resize(proxy->m_handle + std::size_t{1}, nullptr);
  } catch (...) {
    if (created) m_broadphase.remove(proxy->m_handle);  // no object without its proxy
    m_proxyPool.release(proxy);
    throw;
  }
  m_proxies[proxy->m_handle] = proxy;
  m_created.push_back(proxy);
  ++m_liveProxies;
  proxy->m_setAabbStep = m_step;  // counted in the step's stats as an object given a box
  ++m_setAabbObjects;
  return proxy;
}

void btAdaptiveGridBroadphase::Impl::destroyProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher) {
  btAdaptiveGridProxy* live = liveProxy(proxy, "destroyProxy");
  if (live == nullptr) return;  // a misuse the user's handler let pass: nothing to destroy
  btAdaptiveGridProxy& p = *live;
  // Bullet expects the proxy's pairs gone at once (the adapter's cache: O(the proxy's pairs));
  // the next update reports them as ended, and then finds nothing left to remove.
  {
    const ProxyPairCache::OwnEdits own(m_ownCache);
    m_pairCache->removeOverlappingPairsContainingProxy(&p, dispatcher);
  }
  m_broadphase.remove(p.m_handle);
  m_proxies[p.m_handle] = nullptr;
  m_watched.destroyed(p.m_handle);
  --m_liveProxies;
  if (p.m_setAabbStep == m_step) --m_setAabbObjects;
  p.m_handle = btAdaptiveGridProxy::kDestroyed;
  m_destroyed.push_back(&p);
}

void btAdaptiveGridBroadphase::Impl::setAabb(btBroadphaseProxy* proxy, const btVector3& aabbMin,
                                             const btVector3& aabbMax) {
  btAdaptiveGridProxy* live = liveProxy(proxy, "setAabb");
  if (live == nullptr) [[unlikely]] return;  // a misuse the user's handler let pass
  btAdaptiveGridProxy& p = *live;
  // The filter is looked at here, on the proxy's own cache line: agrid decides the pairs of an
  // object at rest that moves inside its fat box by the filter it was last given. The step's
  // stamp counts each proxy once, for the step's stats.
  m_setAabbObjects += p.m_setAabbStep != m_step ? 1u : 0u;
  p.m_setAabbStep = m_step;
  if (p.filterChanged()) syncFilter(p);
  // Static and sleeping objects get their unchanged AABB every step: answer from the proxy.
  // (A NaN compares unequal and takes the long way, where agrid compares bitwise.)
  if (sameXyz(p.m_aabbMin, aabbMin) && sameXyz(p.m_aabbMax, aabbMax)) return;
  p.m_aabbMin = aabbMin;
  p.m_aabbMax = aabbMax;
  m_broadphase.set_box(p.m_handle, toBox(aabbMin, aabbMax));
}

void btAdaptiveGridBroadphase::Impl::timedSetAabb(btBroadphaseProxy* proxy, const btVector3& aabbMin,
                                                  const btVector3& aabbMax) {
  const Clock::time_point start = Clock::now();
  setAabb(proxy, aabbMin, aabbMax);
  m_setAabbTime += Clock::now() - start;
}

void btAdaptiveGridBroadphase::Impl::rayTest(const btVector3& rayFrom, const btVector3& rayTo,
                                             btBroadphaseRayCallback& rayCallback, const btVector3& aabbMin,
                                             const btVector3& aabbMax) {
  // Bullet's ray callbacks carry the distance along the ray that matters (m_lambda_max): a
  // shorter one ends the segment early, as in btDbvtBroadphase. A value that is not a length
  // (NaN, negative, past the end) leaves the whole ray.
  btVector3 end = rayTo;
  const btVector3 direction = rayTo - rayFrom;
  const btScalar length = direction.length();
  if (length > 0 && rayCallback.m_lambda_max >= 0 && rayCallback.m_lambda_max < length) {
    end = rayFrom + direction * (rayCallback.m_lambda_max / length);
  }
  m_broadphase.for_each_hit(toSegment(rayFrom, end, aabbMin, aabbMax), [&](agrid::Handle h) { rayCallback.process(m_proxies[h]); });
}

void btAdaptiveGridBroadphase::Impl::aabbTest(const btVector3& aabbMin, const btVector3& aabbMax,
                                              btBroadphaseAabbCallback& callback) {
  m_broadphase.for_each_overlap(toBox(aabbMin, aabbMax), [&](agrid::Handle h) { callback.process(m_proxies[h]); });
}

agrid::Filter btAdaptiveGridBroadphase::Impl::filterOf(const btAdaptiveGridProxy& proxy) const noexcept {
  if (m_filterCallback != nullptr) return kPassAll;
  return {static_cast<std::uint32_t>(proxy.m_seenGroup), static_cast<std::uint32_t>(proxy.m_seenMask)};
}

void btAdaptiveGridBroadphase::Impl::syncFilter(btAdaptiveGridProxy& proxy) {
  proxy.seeFilter();
  m_broadphase.set_filter(proxy.m_handle, filterOf(proxy));
  m_recheckPairs = true;
  m_filtersPassedOn = true;
}

void btAdaptiveGridBroadphase::Impl::lookAtWatchedFilters() {
  // Only a proxy whose box overlaps another's can gain or lose a pair by a filter change. Those
  // in a pair of agrid's (which holds every overlap with a moving member, whatever the filters
  // say) are the watched list; those agrid refused a pair among resting objects it lists itself.
  // The others' filters are read when a pair of theirs begins, as the cache decides on it. So a
  // static level whose objects overlap nothing of their own costs nothing here. (Even when every
  // proxy got its setAabb in the step: a filter may have been written after it.) With the watch
  // off, only setAabb looks; the list is still kept, in handle order.
  const bool look = m_watchFiltersAtRest;
  m_watched.sweep(look, [&](agrid::Handle h) {
    btAdaptiveGridProxy* p = proxyOf(h);
    if (p != nullptr && p->filterChanged()) syncFilter(*p);
  });
  if (!look) return;
  for (const agrid::Handle h : m_broadphase.refused_at_rest()) {
    btAdaptiveGridProxy* p = h < m_proxies.size() ? m_proxies[h] : nullptr;  // removed ones linger
    if (p != nullptr && p->filterChanged()) syncFilter(*p);
  }
}

void btAdaptiveGridBroadphase::Impl::countOverlaps(const agrid::PairChanges& changes) {
  for (const agrid::Pair& pair : changes.ended) {
    for (const agrid::Handle h : {pair.first, pair.second}) {
      if (proxyOf(h) != nullptr) m_watched.ended(h);  // a destroyed proxy's count went with it
    }
  }
  // From its first pair a proxy is watched, and the cache decides its pairs with its filter as
  // it is now: that is the filter seen from here (a change unseen is passed on at once, and the
  // pairs asked about again), so that a later change back is not missed.
  for (const agrid::Pair& pair : changes.began) {
    for (const agrid::Handle h : {pair.first, pair.second}) {
      btAdaptiveGridProxy* p = proxyOf(h);
      AGRID_ASSERT(p != nullptr);  // pairs begin between live objects
      if (p->filterChanged()) syncFilter(*p);
      m_watched.began(h);
    }
  }
}

bool btAdaptiveGridBroadphase::Impl::applyFilterCallback() {
  // A user's filter callback may accept pairs that groups and masks refuse, and change its mind:
  // while one is set, refused pairs are offered again every step. When the callback comes, goes
  // or is replaced, every pair is asked about again.
  btOverlapFilterCallback* const callback = m_pairCache->getOverlapFilterCallback();
  if (callback == m_filterCallback) return false;
  const bool modeChanged = (callback == nullptr) != (m_filterCallback == nullptr);
  m_filterCallback = callback;
  if (!keepsRefused()) m_refused.clear();
  if (modeChanged) {  // agrid filters by group and mask exactly while no callback is set
    for (btAdaptiveGridProxy* proxy : m_proxies) {
      if (proxy != nullptr) m_broadphase.set_filter(proxy->m_handle, filterOf(*proxy));
    }
  }
  return true;
}

void btAdaptiveGridBroadphase::Impl::appendProxyPairs(const std::vector<agrid::Pair>& pairs, bool offered) {
  for (std::uint32_t i = 0; i < pairs.size(); ++i) {
    btBroadphaseProxy* pa = proxyOf(pairs[i].first);
    btBroadphaseProxy* pb = proxyOf(pairs[i].second);
    if (pa == nullptr || pb == nullptr) continue;  // destroyed: its pairs were purged then
    if (pa->m_uniqueId > pb->m_uniqueId) std::swap(pa, pb);
    m_scratch.push_back({pa, pb, offered ? i : kRemoved});
  }
}

void btAdaptiveGridBroadphase::Impl::applyToCache(const std::vector<agrid::Pair>& removed,
                                                  const std::vector<agrid::Pair>& offered, btDispatcher* dispatcher) {
  // Bullet dispatches and solves in the cache's order: both lists in ascending unique ids, sorted
  // together once (no pair is in both).
  m_scratch.clear();
  appendProxyPairs(removed, false);
  appendProxyPairs(offered, true);
  std::sort(m_scratch.begin(), m_scratch.end(), [](const ProxyPair& x, const ProxyPair& y) {
    return x.first->m_uniqueId != y.first->m_uniqueId ? x.first->m_uniqueId < y.first->m_uniqueId
                                                      : x.second->m_uniqueId < y.second->m_uniqueId;
  });
  // The stats count what the cache holds before and after, so a pair it did not hold (refused
  // before, or removed by others) or held already (added by others) is not counted.
  const int heldBefore = m_pairCache->getNumOverlappingPairs();
  for (const ProxyPair& p : m_scratch) {
    if (p.offered == kRemoved) m_pairCache->removeOverlappingPair(p.first, p.second, dispatcher);
  }
  const int heldAfterRemoving = m_pairCache->getNumOverlappingPairs();
  m_refusedNow.assign(keepsRefused() ? offered.size() : 0, 0);
  for (const ProxyPair& p : m_scratch) {
    if (p.offered == kRemoved) continue;
    const bool refused = m_pairCache->addOverlappingPair(p.first, p.second) == nullptr;
    if (refused && keepsRefused()) m_refusedNow[p.offered] = 1;
  }
  m_stats.m_pairsEnded += heldBefore - heldAfterRemoving;
  m_stats.m_pairsBegan += m_pairCache->getNumOverlappingPairs() - heldAfterRemoving;
  // Refused pairs in the offered pairs' order (by handle), merged into m_refused, which is sorted.
  const auto before = static_cast<std::ptrdiff_t>(m_refused.size());
  for (std::uint32_t i = 0; i < m_refusedNow.size(); ++i) {
    if (m_refusedNow[i] != 0) m_refused.push_back(offered[i]);
  }
  std::inplace_merge(m_refused.begin(), m_refused.begin() + before, m_refused.end());
}

void btAdaptiveGridBroadphase::Impl::timedCalculateOverlappingPairs(btDispatcher* dispatcher) {
  const Clock::time_point start = Clock::now();
  m_stats.m_pairsBegan = 0;
  m_stats.m_pairsEnded = 0;
  m_stats.m_setAabbObjects = static_cast<int>(m_setAabbObjects);  // before the step resets it
  calculateOverlappingPairs(dispatcher);
  m_stats.m_pairs = m_pairCache->getNumOverlappingPairs();
  fillWorldStats();
  m_stats.m_setAabbSeconds = seconds(m_setAabbTime);
  m_setAabbTime = Clock::duration::zero();
  m_stats.m_calculateOverlappingPairsSeconds = seconds(Clock::now() - start);
  // After the stats are whole and timed: the warning's printing is not the step's cost, and a
  // handler that throws leaves them complete.
  if (m_stats.m_invalidObjects > 0 && m_reports.invalid_aabb_unreported()) warnOfInvalidAabb();
}

void btAdaptiveGridBroadphase::Impl::calculateOverlappingPairs(btDispatcher* dispatcher) {
  // A new step: no proxy has been given a box in it. (Should the count wrap, a stale stamp equal
  // to the new step only makes the stats' count smaller.)
  ++m_step;
  m_setAabbObjects = 0;
  if (m_queriesOnly) {  // btNullPairCache: keep the queries current, find no pairs
    m_created.clear();
    m_broadphase.update_queries();
    releaseDestroyed();
    return;
  }
  const bool callbackChanged = applyFilterCallback();
  lookAtWatchedFilters();
  // New proxies' filters may have been written since createProxy.
  for (btAdaptiveGridProxy* p : m_created) {
    if (p->m_handle != btAdaptiveGridProxy::kDestroyed && p->filterChanged()) syncFilter(*p);
  }
  m_created.clear();
  // agrid decides the pairs of objects that join its resting tree by the filters it was last
  // given: where a filter turns out changed unseen (in a pair that began, or refused one, as a
  // proxy at rest that overlapped nothing meets a new one), agrid is told and updated once more,
  // until no filter it used was stale. (Each proxy is passed on at most once a step.)
  do {
    m_filtersPassedOn = false;
    applyChanges(m_broadphase.update(), dispatcher);
    for (const agrid::Handle h : m_broadphase.newly_refused_at_rest()) {
      btAdaptiveGridProxy* p = h < m_proxies.size() ? m_proxies[h] : nullptr;
      if (p != nullptr && p->filterChanged()) syncFilter(*p);
    }
  } while (m_filtersPassedOn);
  // The cache now holds agrid's accepted pairs, unless someone else edited it since the last
  // step or a filter's answers may have changed: then it is repaired in full.
  // (cacheChangedOutside goes first: it also clears what the adapter's cache noted.)
  if (cacheChangedOutside() || callbackChanged || m_recheckPairs) reconcile(dispatcher);
  m_recheckPairs = false;
  releaseDestroyed();
  AGRID_ASSERT_NO_PROBLEM(problem());
}

void btAdaptiveGridBroadphase::Impl::applyChanges(const agrid::PairChanges& changes, btDispatcher* dispatcher) {
  countOverlaps(changes);
  {
    const ProxyPairCache::OwnEdits own(m_ownCache);
    if (keepsRefused()) {
      // The pairs that began, and those refused before (the callback may accept them now).
      forgetRefused(changes.ended);
      m_offered.clear();
      std::merge(changes.began.begin(), changes.began.end(), m_refused.begin(), m_refused.end(),
                 std::back_inserter(m_offered));
      m_refused.clear();
      applyToCache(changes.ended, m_offered, dispatcher);
    } else {
      applyToCache(changes.ended, changes.began, dispatcher);
    }
  }
}

void btAdaptiveGridBroadphase::Impl::releaseDestroyed() {
  for (btAdaptiveGridProxy* p : m_destroyed) m_proxyPool.release(p);
  m_destroyed.clear();
  // agrid reuses the lowest free handles first: when the world shrinks, the table's tail empties.
  while (!m_proxies.empty() && m_proxies.back() == nullptr) m_proxies.pop_back();
  agrid::detail::shrink_if_far_below(m_proxies, m_proxies.size());
  m_watched.trim(m_proxies.size());
  if (m_ownCache != nullptr) m_ownCache->give_back();
  agrid::detail::shrink_if_far_below(m_refused, m_refused.size());
  // By agrid's rule (slack_growth.h). Scratch of a step: sized by the world (its objects and
  // pairs), not by one step's peak.
  const std::size_t world = m_liveProxies + static_cast<std::size_t>(m_pairCache->getNumOverlappingPairs());
  agrid::detail::shrink_if_far_below(m_destroyed, world);
  agrid::detail::shrink_if_far_below(m_created, world);
  agrid::detail::shrink_if_far_below(m_offered, world);
  agrid::detail::shrink_if_far_below(m_cached, world);
  agrid::detail::shrink_if_far_below(m_stale, world);
  agrid::detail::shrink_if_far_below(m_missing, world);
  agrid::detail::shrink_if_far_below(m_scratch, world);
  agrid::detail::shrink_if_far_below(m_refusedNow, world);
}

const char* btAdaptiveGridBroadphase::Impl::problem() const {
  const auto live = static_cast<std::uint32_t>(std::count_if(m_proxies.begin(), m_proxies.end(), [](const btAdaptiveGridProxy* p) { return p != nullptr; }));
  if (live != m_liveProxies) return "btAdaptiveGridBroadphase: the live proxies are miscounted";
  if (const char* p = m_watched.problem()) return p;
  // Every proxy's overlaps are counted: agrid's pairs, per handle.
  std::vector<std::uint32_t> overlaps(m_proxies.size(), 0);
  for (const agrid::Pair& pair : m_broadphase.pairs()) {
    ++overlaps[pair.first];
    ++overlaps[pair.second];
  }
  for (agrid::Handle h = 0; h < overlaps.size(); ++h) {
    if (m_proxies[h] != nullptr && overlaps[h] != m_watched.overlaps(h)) return "btAdaptiveGridBroadphase: overlaps miscounted";
  }
  if (const char* p = m_proxyPool.problem()) return p;
  if (m_ownCache != nullptr) return m_ownCache->problem();
  return nullptr;
}

void btAdaptiveGridBroadphase::Impl::forgetRefused(const std::vector<agrid::Pair>& ended) {
  if (m_refused.empty() || ended.empty()) return;
  m_offered.clear();
  std::set_difference(m_refused.begin(), m_refused.end(), ended.begin(), ended.end(), std::back_inserter(m_offered));
  std::swap(m_refused, m_offered);
}

bool btAdaptiveGridBroadphase::Impl::cacheChangedOutside() {
  if (m_ownCache != nullptr) return m_ownCache->take_outside_edits();
  // A user's cache cannot be watched: compare what it holds with what it should hold.
  return !cacheHoldsAcceptedPairs();
}

bool btAdaptiveGridBroadphase::Impl::cacheHoldsAcceptedPairs() const {
  // agrid's pairs that the filters accept (the refused ones are kept while a callback decides,
  // else the groups and masks tell), against the cache's pairs: same count, same sum of
  // signatures. One pass over each, no lookups.
  const std::span<const agrid::Pair> all = m_broadphase.pairs();
  const btBroadphasePairArray& cached = m_pairCache->getOverlappingPairArray();
  std::size_t accepted = 0;
  std::uint64_t expected = 0;
  auto refused = m_refused.begin();
  for (const agrid::Pair& p : all) {
    if (refused != m_refused.end() && *refused == p) {
      ++refused;
      continue;
    }
    btAdaptiveGridProxy* a = proxyOf(p.first);
    btAdaptiveGridProxy* b = proxyOf(p.second);
    if (!keepsRefused() && !m_pairCache->needsBroadphaseCollision(a, b)) continue;
    ++accepted;
    expected += pairSignature(a, b);
  }
  if (static_cast<std::size_t>(cached.size()) != accepted) return false;
  std::uint64_t actual = 0;
  for (int i = 0; i < cached.size(); ++i) actual += pairSignature(cached[i].m_pProxy0, cached[i].m_pProxy1);
  return actual == expected;
}

void btAdaptiveGridBroadphase::Impl::reconcile(btDispatcher* dispatcher) {
  // Make the cache hold exactly agrid's pairs that its filter accepts now: remove what agrid
  // does not have and what the filter now refuses, offer what is missing.
  m_cached.clear();
  const btBroadphasePairArray& cached = m_pairCache->getOverlappingPairArray();
  for (int i = 0; i < cached.size(); ++i) m_cached.push_back(handlePair(cached[i].m_pProxy0, cached[i].m_pProxy1));
  std::sort(m_cached.begin(), m_cached.end());
  m_stale.clear();
  m_missing.clear();
  m_refused.clear();
  auto inCache = m_cached.begin();
  for (const agrid::Pair& p : m_broadphase.pairs()) {
    for (; inCache != m_cached.end() && *inCache < p; ++inCache) m_stale.push_back(*inCache);
    if (inCache == m_cached.end() || p < *inCache) {
      m_missing.push_back(p);
      continue;
    }
    ++inCache;
    if (!m_pairCache->needsBroadphaseCollision(proxyOf(p.first), proxyOf(p.second))) {
      m_stale.push_back(p);
      if (keepsRefused()) m_refused.push_back(p);
    }
  }
  m_stale.insert(m_stale.end(), inCache, m_cached.end());
  const ProxyPairCache::OwnEdits own(m_ownCache);
  applyToCache(m_stale, m_missing, dispatcher);
}

void btAdaptiveGridBroadphase::Impl::getBroadphaseAabb(btVector3& aabbMin, btVector3& aabbMax) const {
  // Bounds of all proxies with valid AABBs; an empty world reports a zero box.
  bool any = false;
  for (const btAdaptiveGridProxy* proxy : m_proxies) {
    if (proxy == nullptr || !agrid::is_valid(toBox(proxy->m_aabbMin, proxy->m_aabbMax))) continue;
    if (!any) {
      aabbMin = proxy->m_aabbMin;
      aabbMax = proxy->m_aabbMax;
      any = true;
      continue;
    }
    aabbMin.setMin(proxy->m_aabbMin);
    aabbMax.setMax(proxy->m_aabbMax);
  }
  if (!any) aabbMin = aabbMax = btVector3(0, 0, 0);
}

void btAdaptiveGridBroadphase::Impl::fillWorldStats() {
  const agrid::BroadphaseStats s = m_broadphase.stats();
  m_stats.m_objects = static_cast<int>(s.objects);
  m_stats.m_invalidObjects = static_cast<int>(s.invalid);
  m_stats.m_movingObjects = static_cast<int>(s.moving);
  m_stats.m_restingObjects = static_cast<int>(s.resting);
  const std::size_t pairLists = m_refused.capacity() + m_offered.capacity() + m_cached.capacity() +
                                m_stale.capacity() + m_missing.capacity();
  const std::size_t proxyLists = m_proxies.capacity() + m_destroyed.capacity() + m_created.capacity();
  m_stats.m_bytesHeld = s.bytes_held + m_proxyPool.bytes_held() + proxyLists * sizeof(btAdaptiveGridProxy*) +
                        pairLists * sizeof(agrid::Pair) + m_scratch.capacity() * sizeof(ProxyPair) +
                        m_refusedNow.capacity() + m_watched.bytes_held() +
                        (m_ownCache != nullptr ? m_ownCache->bytes_held() : 0);
}

void btAdaptiveGridBroadphase::Impl::warnOfInvalidAabb() {
  // Once in the broadphase's life, so the walk over the proxies happens once too.
  for (const btAdaptiveGridProxy* proxy : m_proxies) {
    if (proxy == nullptr || agrid::is_valid(toBox(proxy->m_aabbMin, proxy->m_aabbMax))) continue;
    m_reports.invalid_aabb_reported();  // first: a handler that throws is not called again
    m_reports.warn(agrid::bullet_detail::invalid_aabb_warning(*proxy));
    return;
  }
}

void btAdaptiveGridBroadphase::Impl::getAabb(btBroadphaseProxy* proxy, btVector3& aabbMin, btVector3& aabbMax) const {
  if (proxy == nullptr) {
    notLive("getAabb");
    return;
  }
  aabbMin = proxy->m_aabbMin;
  aabbMax = proxy->m_aabbMax;
}

void btAdaptiveGridBroadphase::Impl::printStats() const {
  // As the last calculateOverlappingPairs left them: the counts of lastStepStats(), and agrid's
  // candidate pairs.
  std::printf(
      "btAdaptiveGridBroadphase: %d objects (%d moving, %d resting, %d invalid), %d pairs, %u candidates, "
      "%zu bytes\n",
      m_stats.m_objects, m_stats.m_movingObjects, m_stats.m_restingObjects, m_stats.m_invalidObjects, m_stats.m_pairs,
      m_broadphase.stats().candidates, m_stats.m_bytesHeld);
}

// ---- The public class: every call goes to the implementation --------------------------------

btAdaptiveGridBroadphase::btAdaptiveGridBroadphase(btOverlappingPairCache* pairCache)
    : btAdaptiveGridBroadphase(pairCache, agrid::Config{}) {}

btAdaptiveGridBroadphase::btAdaptiveGridBroadphase(btOverlappingPairCache* pairCache, const agrid::Config& config)
    : m_impl(std::make_unique<Impl>(pairCache, config)) {}

btAdaptiveGridBroadphase::~btAdaptiveGridBroadphase() = default;

btBroadphaseProxy* btAdaptiveGridBroadphase::createProxy(const btVector3& aabbMin, const btVector3& aabbMax,
                                                         int /*shapeType*/, void* userPtr, int collisionFilterGroup,
                                                         int collisionFilterMask, btDispatcher* /*dispatcher*/) {
  return m_impl->createProxy(aabbMin, aabbMax, userPtr, collisionFilterGroup, collisionFilterMask);
}

void btAdaptiveGridBroadphase::destroyProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher) {
  m_impl->destroyProxy(proxy, dispatcher);
}

void btAdaptiveGridBroadphase::setAabb(btBroadphaseProxy* proxy, const btVector3& aabbMin, const btVector3& aabbMax,
                                       btDispatcher* /*dispatcher*/) {
  // The untimed call goes straight to the implementation: a wrapper that could also time it cost
  // the untimed call 20-30% in BM_resting_step.
  if (m_impl->m_timeSetAabb) {
    m_impl->timedSetAabb(proxy, aabbMin, aabbMax);
  } else {
    m_impl->setAabb(proxy, aabbMin, aabbMax);
  }
}

void btAdaptiveGridBroadphase::getAabb(btBroadphaseProxy* proxy, btVector3& aabbMin, btVector3& aabbMax) const {
  m_impl->getAabb(proxy, aabbMin, aabbMax);
}

void btAdaptiveGridBroadphase::rayTest(const btVector3& rayFrom, const btVector3& rayTo,
                                       btBroadphaseRayCallback& rayCallback, const btVector3& aabbMin,
                                       const btVector3& aabbMax) {
  m_impl->rayTest(rayFrom, rayTo, rayCallback, aabbMin, aabbMax);
}

void btAdaptiveGridBroadphase::aabbTest(const btVector3& aabbMin, const btVector3& aabbMax,
                                        btBroadphaseAabbCallback& callback) {
  m_impl->aabbTest(aabbMin, aabbMax, callback);
}

void btAdaptiveGridBroadphase::calculateOverlappingPairs(btDispatcher* dispatcher) {
  m_impl->timedCalculateOverlappingPairs(dispatcher);
}

btOverlappingPairCache* btAdaptiveGridBroadphase::getOverlappingPairCache() { return m_impl->m_pairCache; }

const btOverlappingPairCache* btAdaptiveGridBroadphase::getOverlappingPairCache() const { return m_impl->m_pairCache; }

void btAdaptiveGridBroadphase::getBroadphaseAabb(btVector3& aabbMin, btVector3& aabbMax) const {
  m_impl->getBroadphaseAabb(aabbMin, aabbMax);
}

void btAdaptiveGridBroadphase::resetPool(btDispatcher* /*dispatcher*/) {
  // Nothing to do: every calculateOverlappingPairs gives back the memory the world no longer
  // needs (releaseDestroyed, and agrid's update).
}

void btAdaptiveGridBroadphase::printStats() { m_impl->printStats(); }

const agrid::Broadphase& btAdaptiveGridBroadphase::broadphase() const { return m_impl->m_broadphase; }

const btAdaptiveGridBroadphaseStats& btAdaptiveGridBroadphase::lastStepStats() const { return m_impl->m_stats; }

void btAdaptiveGridBroadphase::setTimeSetAabbCalls(bool on) { m_impl->m_timeSetAabb = on; }

bool btAdaptiveGridBroadphase::getTimeSetAabbCalls() const { return m_impl->m_timeSetAabb; }

void btAdaptiveGridBroadphase::setWatchFiltersAtRest(bool on) { m_impl->m_watchFiltersAtRest = on; }

bool btAdaptiveGridBroadphase::getWatchFiltersAtRest() const { return m_impl->m_watchFiltersAtRest; }

void btAdaptiveGridBroadphase::setMisuseHandler(btAdaptiveGridMessageHandler handler, void* context) {
  m_impl->m_reports.set_misuse_handler(handler, context);
}

void btAdaptiveGridBroadphase::setWarningHandler(btAdaptiveGridMessageHandler handler, void* context) {
  m_impl->m_reports.set_warning_handler(handler, context);
}
