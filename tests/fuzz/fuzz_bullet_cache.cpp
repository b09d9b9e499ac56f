// The pair-cache half of the `bullet` fuzz target: the adapter's ProxyPairCache (the cache a
// btAdaptiveGridBroadphase owns, never stepped here) and Bullet's btHashedOverlappingPairCache
// get the same operations on the same proxies: pairs added (of a proxy with itself too),
// removed, removed or cleaned by proxy, removed by processAllOverlappingPairs, sorted; filters
// and filter callbacks changed; proxies destroyed. After each, the two pair arrays are the same
// element by element (proxies, algorithms, user data), the same algorithms were freed in the same
// order, the ghost callbacks were told the same, findPair finds each pair where it is, and the
// adapter's lists are whole (ProxyPairCache::problem).

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <vector>

#include "agrid/bullet/btAdaptiveGridBroadphase.h"
#include "fuzz_bullet.h"
#include "proxy_pair_cache.h"

namespace agrid::fuzz::bullet {
namespace {

/// Live proxies at most: few, so that pairs meet again often.
constexpr std::size_t kMaxProxies = 16;

/// What a cache tells its ghost pair callback, in order: (added?, id, id).
struct GhostLog final : btOverlappingPairCallback {
  btBroadphasePair* addOverlappingPair(btBroadphaseProxy* a, btBroadphaseProxy* b) override {
    events.emplace_back(true, a->m_uniqueId, b->m_uniqueId);
    return nullptr;
  }
  void* removeOverlappingPair(btBroadphaseProxy* a, btBroadphaseProxy* b, btDispatcher*) override {
    events.emplace_back(false, a->m_uniqueId, b->m_uniqueId);
    return nullptr;
  }
  void removeOverlappingPairsContainingProxy(btBroadphaseProxy*, btDispatcher*) override {}
  std::vector<std::tuple<bool, int, int>> events;
};

/// Removes the pairs whose ids match a rule from one byte: a user's processAllOverlappingPairs.
struct RemoveByRule final : btOverlapCallback {
  explicit RemoveByRule(std::uint8_t b) noexcept : rule(b) {}
  bool processOverlap(btBroadphasePair& pair) override {
    const int key = pair.m_pProxy0->m_uniqueId * 3 + pair.m_pProxy1->m_uniqueId;
    return (key & (rule >> 4)) == (rule & 0x0f & (rule >> 4));
  }
  std::uint8_t rule;
};

/// One cache, its dispatcher and its ghost log.
struct Side {
  btOverlappingPairCache* cache;
  AlgorithmLedger* ledger;
  GhostLog ghosts;
};

/// One input's run of the cache half.
class CacheRun {
 public:
  explicit CacheRun(FuzzInput& in);
  CacheRun(const CacheRun&) = delete;
  CacheRun& operator=(const CacheRun&) = delete;

  /// Every operation the input holds, a check after each, and the teardown.
  void run();

 private:
  void create();
  void add();
  void remove();
  void remove_existing();
  void remove_proxy_pairs();
  void clean_proxy_pairs();
  void remove_by_rule();
  void sort();
  void write_filter();
  void change_callback();
  void destroy();

  /// The live proxy a byte names, or null when none lives.
  [[nodiscard]] btBroadphaseProxy* pick();
  /// The dispatcher to remove with: a side's, or none (Bullet allows it: the algorithm is then
  /// no one's), as a byte says.
  [[nodiscard]] btDispatcher* dispatcher(const Side& side, std::uint8_t b) const {
    return (b & 1) != 0 ? nullptr : side.ledger;
  }
  /// The two caches agree, and the adapter's lists are whole.
  void check() const;
  void teardown();

  FuzzInput& in_;
  btAdaptiveGridBroadphase broadphase_;  ///< Makes the proxies; its cache is the adapter's.
  btHashedOverlappingPairCache bullet_cache_;
  Side sides_[2];  ///< Bullet's, the adapter's.
  const bullet_detail::ProxyPairCache& ours_;
  std::vector<btBroadphaseProxy*> proxies_;
  FilterCallback callbacks_[2] = {FilterCallback(FilterCallback::Rule::kGroupsAndMasksOrEveryThird),
                                  FilterCallback(FilterCallback::Rule::kNone)};
  int next_tag_ = 1;
};

CacheRun::CacheRun(FuzzInput& in)
    : in_(in),
      sides_{{&bullet_cache_, &ledger(0), {}}, {broadphase_.getOverlappingPairCache(), &ledger(1), {}}},
      ours_(dynamic_cast<const bullet_detail::ProxyPairCache&>(*broadphase_.getOverlappingPairCache())) {
  for (Side& side : sides_) {
    side.ledger->reset();
    side.cache->setInternalGhostPairCallback(&side.ghosts);
  }
}

void CacheRun::run() {
  while (!in_.empty()) {
    switch (in_.byte() % 13) {
      case 0:
        create();
        break;
      case 1:
      case 2:
        add();
        break;
      case 3:
        remove();
        break;
      case 4:
        remove_existing();
        break;
      case 5:
        remove_proxy_pairs();
        break;
      case 6:
        clean_proxy_pairs();
        break;
      case 7:
        remove_by_rule();
        break;
      case 8:
        sort();
        break;
      case 9:
        write_filter();
        break;
      case 10:
        change_callback();
        break;
      case 11:
        destroy();
        break;
      default:
        create();
    }
    check();
  }
  teardown();
}

btBroadphaseProxy* CacheRun::pick() {
  const std::uint8_t b = in_.byte();
  return proxies_.empty() ? nullptr : proxies_[b % proxies_.size()];
}

void CacheRun::create() {
  const std::uint8_t filter = in_.byte();
  if (proxies_.size() >= kMaxProxies) return;
  // The box does not matter: the broadphase is never stepped.
  proxies_.push_back(broadphase_.createProxy(btVector3(0, 0, 0), btVector3(1, 1, 1), BOX_SHAPE_PROXYTYPE, nullptr,
                                             filter_group(filter), filter_mask(filter >> 2), nullptr));
}

void CacheRun::add() {
  btBroadphaseProxy* a = pick();
  btBroadphaseProxy* b = pick();  // the same one too: a pair of a proxy with itself, as a user may add
  if (a == nullptr) return;
  btBroadphasePair* added[2];
  for (int s = 0; s < 2; ++s) added[s] = sides_[s].cache->addOverlappingPair(a, b);
  require((added[0] == nullptr) == (added[1] == nullptr), "addOverlappingPair (one cache refused the pair)");
  if (added[0] == nullptr) return;
  for (int s = 0; s < 2; ++s) {
    const btBroadphasePair* array = sides_[s].cache->getOverlappingPairArrayPtr();
    if (added[s] - array != added[0] - bullet_cache_.getOverlappingPairArrayPtr()) {
      fail("addOverlappingPair returned pair %td in Bullet's cache, %td in the adapter's",
           added[0] - bullet_cache_.getOverlappingPairArrayPtr(), added[1] - array);
    }
  }
  require((added[0]->m_algorithm == nullptr) == (added[1]->m_algorithm == nullptr),
          "addOverlappingPair (a new pair in one cache, an existing one in the other)");
  if (added[0]->m_algorithm != nullptr) return;
  for (int s = 0; s < 2; ++s) {
    sides_[s].ledger->give(*added[s], next_tag_);
    added[s]->m_internalInfo1 = reinterpret_cast<void*>(static_cast<std::intptr_t>(next_tag_));
  }
  ++next_tag_;
}

void CacheRun::remove() {
  btBroadphaseProxy* a = pick();
  btBroadphaseProxy* b = pick();
  const std::uint8_t with = in_.byte();
  if (a == nullptr) return;
  void* info[2];
  for (int s = 0; s < 2; ++s) info[s] = sides_[s].cache->removeOverlappingPair(a, b, dispatcher(sides_[s], with));
  require(info[0] == info[1], "removeOverlappingPair (the user data returned)");
}

void CacheRun::remove_existing() {
  const std::uint8_t index = in_.byte();
  const std::uint8_t with = in_.byte();
  const int count = bullet_cache_.getNumOverlappingPairs();
  if (count == 0) return;
  // Copied first: the array changes under the call.
  const btBroadphasePair pair = bullet_cache_.getOverlappingPairArray()[index % count];
  for (Side& side : sides_) side.cache->removeOverlappingPair(pair.m_pProxy0, pair.m_pProxy1, dispatcher(side, with));
}

void CacheRun::remove_proxy_pairs() {
  btBroadphaseProxy* proxy = pick();
  const std::uint8_t with = in_.byte();
  if (proxy == nullptr) return;
  for (Side& side : sides_) side.cache->removeOverlappingPairsContainingProxy(proxy, dispatcher(side, with));
}

void CacheRun::clean_proxy_pairs() {
  btBroadphaseProxy* proxy = pick();
  const std::uint8_t with = in_.byte();
  if (proxy == nullptr) return;
  for (Side& side : sides_) side.cache->cleanProxyFromPairs(proxy, dispatcher(side, with));
}

void CacheRun::remove_by_rule() {
  RemoveByRule rule(in_.byte());
  const std::uint8_t with = in_.byte();
  for (Side& side : sides_) side.cache->processAllOverlappingPairs(&rule, dispatcher(side, with));
}

void CacheRun::sort() {
  // Bullet's sort removes every pair (freeing algorithms) and adds them back, filtered again.
  const std::uint8_t with = in_.byte();
  for (Side& side : sides_) side.cache->sortOverlappingPairs(dispatcher(side, with));
}

void CacheRun::write_filter() {
  btBroadphaseProxy* proxy = pick();
  const std::uint8_t filter = in_.byte();
  if (proxy == nullptr) return;
  proxy->m_collisionFilterGroup = filter_group(filter);
  proxy->m_collisionFilterMask = filter_mask(filter >> 2);
}

void CacheRun::change_callback() {
  const std::uint8_t kind = in_.byte() % 4;
  btOverlapFilterCallback* callback = kind < 2 ? &callbacks_[kind] : nullptr;
  if (kind == 3) {
    for (FilterCallback& c : callbacks_) c.widen();
    callback = bullet_cache_.getOverlapFilterCallback();
  }
  for (Side& side : sides_) side.cache->setOverlapFilterCallback(callback);
}

void CacheRun::destroy() {
  btBroadphaseProxy* proxy = pick();
  const std::uint8_t with = in_.byte();
  if (proxy == nullptr) return;
  // As btCollisionWorld::removeCollisionObject, when the byte says: the pairs cleaned first.
  if ((with & 2) != 0) {
    for (Side& side : sides_) side.cache->cleanProxyFromPairs(proxy, dispatcher(side, with));
  }
  bullet_cache_.removeOverlappingPairsContainingProxy(proxy, dispatcher(sides_[0], with));
  broadphase_.destroyProxy(proxy, dispatcher(sides_[1], with));  // the adapter's cache, through the broadphase
  std::erase(proxies_, proxy);
}

void CacheRun::check() const {
  const btBroadphasePairArray& x = bullet_cache_.getOverlappingPairArray();
  const btBroadphasePairArray& y = ours_.getOverlappingPairArray();
  if (x.size() != y.size()) fail("Bullet's cache holds %d pairs, the adapter's %d", x.size(), y.size());
  for (int i = 0; i < x.size(); ++i) {
    if (x[i].m_pProxy0 != y[i].m_pProxy0 || x[i].m_pProxy1 != y[i].m_pProxy1) {
      fail("pair %d: (%d, %d) in Bullet's cache, (%d, %d) in the adapter's", i, x[i].m_pProxy0->m_uniqueId,
           x[i].m_pProxy1->m_uniqueId, y[i].m_pProxy0->m_uniqueId, y[i].m_pProxy1->m_uniqueId);
    }
    if (sides_[0].ledger->tag_of(x[i].m_algorithm) != sides_[1].ledger->tag_of(y[i].m_algorithm) ||
        x[i].m_internalInfo1 != y[i].m_internalInfo1) {
      fail("pair %d: its algorithm or user data differ between the caches", i);
    }
    for (const Side& side : sides_) {
      const btBroadphasePair& pair = side.cache->getOverlappingPairArray()[i];
      if (side.cache->findPair(pair.m_pProxy0, pair.m_pProxy1) != &pair) fail("findPair does not find pair %d", i);
    }
  }
  require(sides_[0].ledger->freed == sides_[1].ledger->freed, "the algorithms freed, and their order");
  require(sides_[0].ghosts.events == sides_[1].ghosts.events, "what the ghost callbacks were told");
  if (const char* problem = ours_.problem()) fail("%s", problem);
}

void CacheRun::teardown() {
  for (btBroadphaseProxy* proxy : proxies_) {
    bullet_cache_.removeOverlappingPairsContainingProxy(proxy, sides_[0].ledger);
    broadphase_.destroyProxy(proxy, sides_[1].ledger);
    check();
  }
  proxies_.clear();
  require(sides_[0].ledger->live.size() == sides_[1].ledger->live.size(), "the algorithms lost (not freed)");
  for (Side& side : sides_) {
    side.cache->setInternalGhostPairCallback(nullptr);
    side.cache->setOverlapFilterCallback(nullptr);
    side.ledger->reset();
  }
}

}  // namespace

void run_cache(FuzzInput& in, const Options& /*options*/) {
  CacheRun run(in);
  run.run();
}

}  // namespace agrid::fuzz::bullet
