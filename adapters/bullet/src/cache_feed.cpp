#include "cache_feed.h"

#include <LinearMath/btAlignedAllocator.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <new>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <utility>

#if defined(__GXX_ABI_VERSION) && defined(__GXX_RTTI)
#include <cxxabi.h>
#endif

#include "common/agrid_assert.h"
#include "common/slack_growth.h"
#include "rtti.h"

namespace agrid::bullet_detail {

namespace {

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
  if (has_type_info(cache)) {
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

CacheFeed::CacheFeed(btOverlappingPairCache* given) : cache_(given) {
  if (given != nullptr && given->hasDeferredRemoval()) {
    queries_only_ = keepsNoPairs(*given);
    if (!queries_only_) {
      throw std::invalid_argument("btAdaptiveGridBroadphase: the pair cache given (" + classOf(*given) +
                                  ") has deferred removal, which is not supported; pass a "
                                  "btHashedOverlappingPairCache, a btNullPairCache (queries only) or none");
    }
  }
  if (given == nullptr) {
    void* memory = btAlignedAlloc(sizeof(ProxyPairCache), 16);
    own_ = new (memory) ProxyPairCache();
    cache_ = own_;
  }
}

CacheFeed::~CacheFeed() {
  if (own_ != nullptr) {
    own_->~ProxyPairCache();
    btAlignedFree(own_);
  }
}

void CacheFeed::remove_pairs_of(btBroadphaseProxy& proxy, btDispatcher* dispatcher) {
  AGRID_ASSERT(ProxyTable::is_live(&proxy));  // before the table marks it destroyed
  const ProxyPairCache::OwnEdits own(own_);
  cache_->removeOverlappingPairsContainingProxy(&proxy, dispatcher);
}

bool CacheFeed::look_at_callback() {
  btOverlapFilterCallback* const callback = cache_->getOverlapFilterCallback();
  if (callback == callback_) return false;
  callback_ = callback;
  if (!callback_decides()) refused_.clear();
  return true;
}

CacheFeed::Counts CacheFeed::apply(const agrid::PairChanges& changes, const ProxyTable& table, btDispatcher* dispatcher) {
  AGRID_ASSERT(!queries_only_);
  const ProxyPairCache::OwnEdits own(own_);
  if (!callback_decides()) return edit(changes.ended, changes.began, table, dispatcher);
  // The pairs that began, and those refused before (the callback may accept them now).
  forget_refused(changes.ended);
  offered_.clear();
  std::merge(changes.began.begin(), changes.began.end(), refused_.begin(), refused_.end(), std::back_inserter(offered_));
  refused_.clear();
  return edit(changes.ended, offered_, table, dispatcher);
}

void CacheFeed::append(const std::vector<agrid::Pair>& pairs, bool offered, const ProxyTable& table) {
  for (std::uint32_t i = 0; i < pairs.size(); ++i) {
    btBroadphaseProxy* pa = table.find(pairs[i].first);
    btBroadphaseProxy* pb = table.find(pairs[i].second);
    if (pa == nullptr || pb == nullptr) continue;  // destroyed: its pairs were purged then
    if (pa->m_uniqueId > pb->m_uniqueId) std::swap(pa, pb);
    scratch_.push_back({pa, pb, offered ? i : kRemoved});
  }
}

CacheFeed::Counts CacheFeed::edit(const std::vector<agrid::Pair>& removed, const std::vector<agrid::Pair>& offered,
                                  const ProxyTable& table, btDispatcher* dispatcher) {
  AGRID_ASSERT(std::is_sorted(offered.begin(), offered.end()));  // refused_now_ merges in this order
  // Bullet dispatches and solves in the cache's order: both lists in ascending unique ids, sorted
  // together once (no pair is in both).
  scratch_.clear();
  append(removed, false, table);
  append(offered, true, table);
  std::sort(scratch_.begin(), scratch_.end(), [](const ProxyPair& x, const ProxyPair& y) {
    return x.first->m_uniqueId != y.first->m_uniqueId ? x.first->m_uniqueId < y.first->m_uniqueId
                                                      : x.second->m_uniqueId < y.second->m_uniqueId;
  });
  // Counted by what the cache holds before and after, so a pair it did not hold (refused
  // before, or removed by others) or held already (added by others) is not counted.
  const int heldBefore = cache_->getNumOverlappingPairs();
  for (const ProxyPair& p : scratch_) {
    if (p.offered == kRemoved) cache_->removeOverlappingPair(p.first, p.second, dispatcher);
  }
  const int heldAfterRemoving = cache_->getNumOverlappingPairs();
  refused_now_.assign(callback_decides() ? offered.size() : 0, 0);
  for (const ProxyPair& p : scratch_) {
    if (p.offered == kRemoved) continue;
    const bool refused = cache_->addOverlappingPair(p.first, p.second) == nullptr;
    if (refused && callback_decides()) refused_now_[p.offered] = 1;
  }
  // Refused pairs in the offered pairs' order (by handle), merged into refused_, which is sorted.
  const auto before = static_cast<std::ptrdiff_t>(refused_.size());
  for (std::uint32_t i = 0; i < refused_now_.size(); ++i) {
    if (refused_now_[i] != 0) refused_.push_back(offered[i]);
  }
  std::inplace_merge(refused_.begin(), refused_.begin() + before, refused_.end());
  return {cache_->getNumOverlappingPairs() - heldAfterRemoving, heldBefore - heldAfterRemoving};
}

void CacheFeed::forget_refused(const std::vector<agrid::Pair>& ended) {
  if (refused_.empty() || ended.empty()) return;
  offered_.clear();
  std::set_difference(refused_.begin(), refused_.end(), ended.begin(), ended.end(), std::back_inserter(offered_));
  std::swap(refused_, offered_);
}

bool CacheFeed::changed_outside(const agrid::Broadphase& broadphase, const ProxyTable& table) {
  if (own_ != nullptr) return own_->take_outside_edits();
  // A user's cache cannot be watched: compare what it holds with what it should hold.
  return !holds_accepted_pairs(broadphase, table);
}

bool CacheFeed::holds_accepted_pairs(const agrid::Broadphase& broadphase, const ProxyTable& table) const {
  // agrid's pairs that the filters accept (the refused ones are kept while a callback decides,
  // else the groups and masks tell), against the cache's pairs: same count, same sum of
  // signatures. One pass over each, no lookups.
  const btBroadphasePairArray& cached = cache_->getOverlappingPairArray();
  std::size_t accepted = 0;
  std::uint64_t expected = 0;
  auto refused = refused_.begin();
  for (const agrid::Pair& p : broadphase.pairs()) {
    if (refused != refused_.end() && *refused == p) {
      ++refused;
      continue;
    }
    btAdaptiveGridProxy& a = table.at(p.first);
    btAdaptiveGridProxy& b = table.at(p.second);
    if (!callback_decides() && !cache_->needsBroadphaseCollision(&a, &b)) continue;
    ++accepted;
    expected += pairSignature(&a, &b);
  }
  if (static_cast<std::size_t>(cached.size()) != accepted) return false;
  std::uint64_t actual = 0;
  for (int i = 0; i < cached.size(); ++i) actual += pairSignature(cached[i].m_pProxy0, cached[i].m_pProxy1);
  return actual == expected;
}

CacheFeed::Counts CacheFeed::reconcile(const agrid::Broadphase& broadphase, const ProxyTable& table,
                                       btDispatcher* dispatcher) {
  // Remove what agrid does not have and what the filter now refuses, offer what is missing.
  cached_.clear();
  const btBroadphasePairArray& cached = cache_->getOverlappingPairArray();
  for (int i = 0; i < cached.size(); ++i) cached_.push_back(handlePair(cached[i].m_pProxy0, cached[i].m_pProxy1));
  std::sort(cached_.begin(), cached_.end());
  stale_.clear();
  missing_.clear();
  refused_.clear();
  auto inCache = cached_.begin();
  for (const agrid::Pair& p : broadphase.pairs()) {
    for (; inCache != cached_.end() && *inCache < p; ++inCache) stale_.push_back(*inCache);
    if (inCache == cached_.end() || p < *inCache) {
      missing_.push_back(p);
      continue;
    }
    ++inCache;
    if (!cache_->needsBroadphaseCollision(&table.at(p.first), &table.at(p.second))) {
      stale_.push_back(p);
      if (callback_decides()) refused_.push_back(p);
    }
  }
  stale_.insert(stale_.end(), inCache, cached_.end());
  AGRID_ASSERT(stale_.size() + missing_.size() >= refused_.size());  // a refused pair is stale
  const ProxyPairCache::OwnEdits own(own_);
  return edit(stale_, missing_, table, dispatcher);
}

void CacheFeed::give_back(std::size_t world) {
  if (own_ != nullptr) own_->give_back();
  agrid::detail::shrink_if_far_below(refused_, refused_.size());
  // Scratch of a step: sized by the world, not by one step's peak (slack_growth.h).
  agrid::detail::shrink_if_far_below(offered_, world);
  agrid::detail::shrink_if_far_below(cached_, world);
  agrid::detail::shrink_if_far_below(stale_, world);
  agrid::detail::shrink_if_far_below(missing_, world);
  agrid::detail::shrink_if_far_below(scratch_, world);
  agrid::detail::shrink_if_far_below(refused_now_, world);
}

std::size_t CacheFeed::bytes_held() const noexcept {
  const std::size_t pairLists =
      refused_.capacity() + offered_.capacity() + cached_.capacity() + stale_.capacity() + missing_.capacity();
  return pairLists * sizeof(agrid::Pair) + scratch_.capacity() * sizeof(ProxyPair) + refused_now_.capacity() +
         (own_ != nullptr ? own_->bytes_held() : 0);
}

const char* CacheFeed::problem(const agrid::Broadphase& broadphase) const {
  if (!callback_decides() && !refused_.empty()) return "CacheFeed: refused pairs kept while no callback decides";
  if (std::adjacent_find(refused_.begin(), refused_.end(), [](const agrid::Pair& a, const agrid::Pair& b) { return !(a < b); }) !=
      refused_.end()) {
    return "CacheFeed: the refused pairs are not sorted and unique";
  }
  const std::span<const agrid::Pair> pairs = broadphase.pairs();
  if (!std::includes(pairs.begin(), pairs.end(), refused_.begin(), refused_.end())) {
    return "CacheFeed: a refused pair is not agrid's";
  }
  return own_ != nullptr ? own_->problem() : nullptr;
}

}  // namespace agrid::bullet_detail
