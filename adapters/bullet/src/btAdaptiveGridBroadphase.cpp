#include "agrid/bullet/btAdaptiveGridBroadphase.h"

#include <chrono>
#include <cstdio>
#include <limits>
#include <string>

#include "adaptive_grid_proxy.h"
#include "agrid/broadphase.h"
#include "agrid/config.h"
#include "cache_feed.h"
#include "common/agrid_assert.h"
#include "common/segment_math.h"
#include "filter_watch.h"
#include "pair_boxes.h"
#include "proxy_table.h"
#include "reports.h"
#include "scalar_conversion.h"
#include "step_stats.h"

namespace {

using agrid::bullet_detail::toBox;
using agrid::bullet_detail::toSegment;
using Clock = std::chrono::steady_clock;

[[nodiscard]] bool sameXyz(const btVector3& a, const btVector3& b) noexcept {
  return a.x() == b.x() && a.y() == b.y() && a.z() == b.z();
}

}  // namespace

/// Everything behind the public class: agrid's broadphase and the parts that wire it to Bullet,
/// each owning its data (proxy_table.h, filter_watch.h, cache_feed.h, step_stats.h, reports.h).
class btAdaptiveGridBroadphase::Impl {
 public:
  Impl(btOverlappingPairCache* pairCache, const agrid::Config& config)
      : m_broadphase(config), m_feed(pairCache) {}

  btBroadphaseProxy* createProxy(const btVector3& aabbMin, const btVector3& aabbMax, void* userPtr,
                                 int collisionFilterGroup, int collisionFilterMask);
  void destroyProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher);
  /// Stores the AABB, counting the proxy in the step's stats.
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
  /// getAabb: the stored AABB, or a misuse for a null proxy.
  void getAabb(btBroadphaseProxy* proxy, btVector3& aabbMin, btVector3& aabbMax) const;
  /// setFatPairMargin: agrid is given every live proxy's box again, fat or exact.
  void setFatPairMargin(btScalar margin);

  agrid::Broadphase m_broadphase;
  agrid::bullet_detail::ProxyTable m_table;
  agrid::bullet_detail::PairBoxes m_boxes;
  agrid::bullet_detail::FilterWatch m_filters;
  agrid::bullet_detail::CacheFeed m_feed;
  agrid::bullet_detail::StepStats m_stats;
  /// Where misuse and warnings go (setMisuseHandler, setWarningHandler).
  agrid::bullet_detail::Reports m_reports;

 private:
  void calculateOverlappingPairs(btDispatcher* dispatcher);
  /// The proxy given by Bullet; null, after reporting the misuse, if it is null or was destroyed
  /// already (and its slot not reused).
  [[nodiscard, gnu::always_inline]] btAdaptiveGridProxy* liveProxy(btBroadphaseProxy* proxy, const char* call) const;
  /// Reports a null or destroyed proxy given to `call`; returns only if the user's handler does.
  [[gnu::cold, gnu::noinline]] void notLive(const char* call) const;
  /// The destroyed proxies' slots go back, and every part gives back memory the world no longer needs.
  void endStep();
  /// Warns of the first invalid AABB held, once in the broadphase's life.
  void warnOfInvalidAabb();
  /// The objects and pairs of the world: what the lists of a step are sized by.
  [[nodiscard]] std::size_t worldSize() const noexcept {
    return m_table.live() + static_cast<std::size_t>(m_feed.cache()->getNumOverlappingPairs());
  }
  /// Heap bytes held by agrid and the adapter (not Bullet's pair cache).
  [[nodiscard]] std::size_t bytesHeld() const noexcept {
    return m_broadphase.stats().bytes_held + m_table.bytes_held() + m_filters.bytes_held() + m_feed.bytes_held();
  }
  /// Empty if every part's invariant holds, else what is wrong; O(proxies + pairs), for AGRID_ASSERT.
  [[nodiscard]] const char* problem() const;
};

// Out of line and cold, so that the check in setAabb inlines to a compare (measured: an inlined
// throw kept liveProxy out of line, 10% of BM_resting_step).
void btAdaptiveGridBroadphase::Impl::notLive(const char* call) const {
  m_reports.misuse(std::string("btAdaptiveGridBroadphase::") + call + ": the proxy is null or was destroyed already");
}

inline btAdaptiveGridProxy* btAdaptiveGridBroadphase::Impl::liveProxy(btBroadphaseProxy* proxy, const char* call) const {
  if (!agrid::bullet_detail::ProxyTable::is_live(proxy)) [[unlikely]] {
    notLive(call);
    return nullptr;
  }
  return static_cast<btAdaptiveGridProxy*>(proxy);
}

btBroadphaseProxy* btAdaptiveGridBroadphase::Impl::createProxy(const btVector3& aabbMin, const btVector3& aabbMax,
                                                               void* userPtr, int collisionFilterGroup,
                                                               int collisionFilterMask) {
  btAdaptiveGridProxy& proxy = m_table.create(
      aabbMin, aabbMax, userPtr, collisionFilterGroup, collisionFilterMask,
      // No filter: agrid pairs every overlap, the pair cache decides (filter_watch.h).
      [&](const btAdaptiveGridProxy&) { return m_broadphase.create(m_boxes.to_give(toBox(aabbMin, aabbMax))); },
      [&](agrid::Handle h) { m_broadphase.remove(h); });
  AGRID_ASSERT(m_table.find(proxy.m_handle) == &proxy);
  m_stats.given_box(proxy);
  return &proxy;
}

void btAdaptiveGridBroadphase::Impl::destroyProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher) {
  btAdaptiveGridProxy* live = liveProxy(proxy, "destroyProxy");
  if (live == nullptr) return;  // a misuse the user's handler let pass: nothing to destroy
  AGRID_ASSERT(m_table.find(live->m_handle) == live);  // a live proxy is this broadphase's
  // Bullet expects the proxy's pairs gone at once; the next update reports them as ended, and
  // then finds nothing left to remove.
  m_feed.remove_pairs_of(*live, dispatcher);
  m_broadphase.remove(live->m_handle);
  m_filters.destroyed(live->m_handle);
  m_stats.destroyed(*live);
  m_table.destroy(*live);
}

void btAdaptiveGridBroadphase::Impl::setAabb(btBroadphaseProxy* proxy, const btVector3& aabbMin,
                                             const btVector3& aabbMax) {
  btAdaptiveGridProxy* live = liveProxy(proxy, "setAabb");
  if (live == nullptr) [[unlikely]] return;  // a misuse the user's handler let pass
  btAdaptiveGridProxy& p = *live;
  AGRID_ASSERT(m_table.find(p.m_handle) == &p);  // a live proxy is this broadphase's
  // The filter is looked at here, on the proxy's own cache line (filter_watch.h).
  m_stats.given_box(p);
  m_filters.look(p);
  // Static and sleeping objects get their unchanged AABB every step: answer from the proxy.
  // (A NaN compares unequal and takes the long way, where agrid compares bitwise.)
  if (sameXyz(p.m_aabbMin, aabbMin) && sameXyz(p.m_aabbMax, aabbMax)) return;
  p.m_aabbMin = aabbMin;
  p.m_aabbMax = aabbMax;
  const agrid::Box aabb = toBox(aabbMin, aabbMax);
  // With fat pairs a body trembling inside its fat box leaves agrid untouched (pair_boxes.h).
  if (m_boxes.fat() && m_boxes.keeps(m_broadphase.box(p.m_handle), aabb)) return;
  m_broadphase.set_box(p.m_handle, m_boxes.to_give(aabb));
}

void btAdaptiveGridBroadphase::Impl::setFatPairMargin(btScalar margin) {
  if (!(margin >= 0 && agrid::bullet_detail::roundUp(margin) <= std::numeric_limits<float>::max())) {
    m_reports.misuse("btAdaptiveGridBroadphase::setFatPairMargin: the margin must be finite and at least 0, is " +
                     std::to_string(margin));
    return;
  }
  const float rounded = agrid::bullet_detail::roundUp(margin);  // a fat box never smaller than asked
  if (rounded == m_boxes.margin()) return;
  m_boxes.set_margin(rounded);
  for (const btAdaptiveGridProxy* proxy : m_table.by_handle()) {
    if (proxy != nullptr) m_broadphase.set_box(proxy->m_handle, m_boxes.to_give(toBox(proxy->m_aabbMin, proxy->m_aabbMax)));
  }
}

void btAdaptiveGridBroadphase::Impl::timedSetAabb(btBroadphaseProxy* proxy, const btVector3& aabbMin,
                                                  const btVector3& aabbMax) {
  const Clock::time_point start = Clock::now();
  setAabb(proxy, aabbMin, aabbMax);
  m_stats.add_set_aabb_time(Clock::now() - start);
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
  const agrid::Segment segment = toSegment(rayFrom, end, aabbMin, aabbMax);
  if (!m_boxes.fat()) {
    m_broadphase.for_each_hit(segment, [&](agrid::Handle h) { rayCallback.process(&m_table.at(h)); });
    return;
  }
  // agrid holds fat boxes: a hit counts only if the stored AABB is hit too, as agrid::hits
  // decides, with the segment prepared once rather than at each hit.
  if (!agrid::is_valid(segment)) return;  // hits nothing
  const agrid::detail::PreparedSegment prepared(segment);
  m_broadphase.for_each_hit(segment, [&](agrid::Handle h) {
    btAdaptiveGridProxy& proxy = m_table.at(h);
    const agrid::Box aabb = toBox(proxy.m_aabbMin, proxy.m_aabbMax);
    double enter = 0;
    if (agrid::is_valid(aabb) && prepared.meets(aabb, &enter)) rayCallback.process(&proxy);
  });
}

void btAdaptiveGridBroadphase::Impl::aabbTest(const btVector3& aabbMin, const btVector3& aabbMax,
                                              btBroadphaseAabbCallback& callback) {
  const agrid::Box box = toBox(aabbMin, aabbMax);
  // As rayTest: with fat pairs, only the stored AABBs that overlap.
  m_broadphase.for_each_overlap(box, [&](agrid::Handle h) {
    btAdaptiveGridProxy& proxy = m_table.at(h);
    if (!m_boxes.fat() || agrid::overlaps(box, toBox(proxy.m_aabbMin, proxy.m_aabbMax))) callback.process(&proxy);
  });
}

void btAdaptiveGridBroadphase::Impl::timedCalculateOverlappingPairs(btDispatcher* dispatcher) {
  const Clock::time_point start = Clock::now();
  m_stats.begin_step();
  calculateOverlappingPairs(dispatcher);
  m_stats.end_step(m_broadphase.stats(), m_feed.cache()->getNumOverlappingPairs(), bytesHeld(), Clock::now() - start);
  // After the stats are whole and timed: the warning's printing is not the step's cost, and a
  // handler that throws leaves them complete.
  if (m_stats.last().m_invalidObjects > 0 && m_reports.invalid_aabb_unreported()) warnOfInvalidAabb();
}

void btAdaptiveGridBroadphase::Impl::calculateOverlappingPairs(btDispatcher* dispatcher) {
  if (m_feed.queries_only()) {  // btNullPairCache: keep the queries current, find no pairs
    m_broadphase.update_queries();
    endStep();
    return;
  }
  const bool callbackChanged = m_feed.look_at_callback();
  m_filters.before_update(m_table);
  const agrid::PairChanges& changes = m_broadphase.update();
  m_filters.after_update(changes, m_table);
  const agrid::bullet_detail::CacheFeed::Counts counts = m_feed.apply(changes, m_table, dispatcher);
  m_stats.count_pairs(counts.began, counts.ended);
  // The cache now holds agrid's accepted pairs, unless someone else edited it since the last
  // step or a filter's answers may have changed: then it is repaired in full. (changed_outside
  // goes first: it also clears what the adapter's cache noted.)
  const bool changedOutside = m_feed.changed_outside(m_broadphase, m_table);
  if (m_filters.take_recheck() || changedOutside || callbackChanged) {
    const agrid::bullet_detail::CacheFeed::Counts repaired = m_feed.reconcile(m_broadphase, m_table, dispatcher);
    m_stats.count_pairs(repaired.began, repaired.ended);
  }
  endStep();
  AGRID_ASSERT_NO_PROBLEM(problem());
}

void btAdaptiveGridBroadphase::Impl::endStep() {
  m_table.release_destroyed(worldSize());
  m_filters.trim(m_table.by_handle().size());
  m_feed.give_back(worldSize());
}

const char* btAdaptiveGridBroadphase::Impl::problem() const {
  if (const char* p = m_table.problem()) return p;
  if (const char* p = m_boxes.problem(m_broadphase, m_table)) return p;
  if (const char* p = m_filters.problem(m_broadphase, m_table)) return p;
  if (const char* p = m_feed.problem(m_broadphase)) return p;
  return m_stats.problem(m_table.by_handle());
}

void btAdaptiveGridBroadphase::Impl::getBroadphaseAabb(btVector3& aabbMin, btVector3& aabbMax) const {
  // Bounds of all proxies with valid AABBs; an empty world reports a zero box.
  bool any = false;
  for (const btAdaptiveGridProxy* proxy : m_table.by_handle()) {
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

void btAdaptiveGridBroadphase::Impl::warnOfInvalidAabb() {
  // Once in the broadphase's life, so the walk over the proxies happens once too.
  for (const btAdaptiveGridProxy* proxy : m_table.by_handle()) {
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
  const btAdaptiveGridBroadphaseStats& s = m_stats.last();
  std::printf(
      "btAdaptiveGridBroadphase: %d objects (%d moving, %d resting, %d invalid), %d pairs, %u candidates, "
      "%zu bytes\n",
      s.m_objects, s.m_movingObjects, s.m_restingObjects, s.m_invalidObjects, s.m_pairs,
      m_broadphase.stats().candidates, s.m_bytesHeld);
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
  if (m_impl->m_stats.times_set_aabb()) {
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

btOverlappingPairCache* btAdaptiveGridBroadphase::getOverlappingPairCache() { return m_impl->m_feed.cache(); }

const btOverlappingPairCache* btAdaptiveGridBroadphase::getOverlappingPairCache() const { return m_impl->m_feed.cache(); }

void btAdaptiveGridBroadphase::getBroadphaseAabb(btVector3& aabbMin, btVector3& aabbMax) const {
  m_impl->getBroadphaseAabb(aabbMin, aabbMax);
}

void btAdaptiveGridBroadphase::resetPool(btDispatcher* /*dispatcher*/) {
  // Nothing to do: every calculateOverlappingPairs gives back the memory the world no longer
  // needs (releaseDestroyed, and agrid's update).
}

void btAdaptiveGridBroadphase::printStats() { m_impl->printStats(); }

const agrid::Broadphase& btAdaptiveGridBroadphase::broadphase() const { return m_impl->m_broadphase; }

const btAdaptiveGridBroadphaseStats& btAdaptiveGridBroadphase::lastStepStats() const { return m_impl->m_stats.last(); }

void btAdaptiveGridBroadphase::setTimeSetAabbCalls(bool on) { m_impl->m_stats.time_set_aabb(on); }

bool btAdaptiveGridBroadphase::getTimeSetAabbCalls() const { return m_impl->m_stats.times_set_aabb(); }

void btAdaptiveGridBroadphase::setWatchFiltersAtRest(bool on) { m_impl->m_filters.watch_at_rest(on); }

bool btAdaptiveGridBroadphase::getWatchFiltersAtRest() const { return m_impl->m_filters.watches_at_rest(); }

void btAdaptiveGridBroadphase::setFatPairMargin(btScalar margin) { m_impl->setFatPairMargin(margin); }

btScalar btAdaptiveGridBroadphase::getFatPairMargin() const { return m_impl->m_boxes.margin(); }

void btAdaptiveGridBroadphase::setMisuseHandler(btAdaptiveGridMessageHandler handler, void* context) {
  m_impl->m_reports.set_misuse_handler(handler, context);
}

void btAdaptiveGridBroadphase::setWarningHandler(btAdaptiveGridMessageHandler handler, void* context) {
  m_impl->m_reports.set_warning_handler(handler, context);
}
