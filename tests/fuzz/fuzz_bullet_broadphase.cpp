// The broadphase half of the `bullet` fuzz target: a btAdaptiveGridBroadphase (its own pair cache,
// or a user's btHashedOverlappingPairCache) driven as Bullet and its users drive one. After every
// calculateOverlappingPairs the cache holds exactly the pairs of live proxies whose stored AABBs
// are valid and overlap as closed boxes and that the filter accepts now (the callback if set,
// else groups and masks), each once; a pair that stays keeps its algorithm and user data; every
// pair's algorithm is freed once, with the dispatcher, when the pair goes; the step's stats and
// getBroadphaseAabb agree with what happened. aabbTest, between steps, reports exactly the live
// proxies whose stored AABB meets the box. With a fat-pair margin (setFatPairMargin, changed by
// the input at any time) the pairs are those of a model of the fat boxes, kept here by the rule
// of adapters/bullet/src/pair_boxes.h, and aabbTest is exact still.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "agrid/bullet/btAdaptiveGridBroadphase.h"
#include "fuzz_bullet.h"
#include "proxy_pair_cache.h"

namespace agrid::fuzz::bullet {
namespace {

/// Live proxies at most: brute force stays quick.
constexpr std::size_t kMaxProxies = 48;

/// A pair by its proxies' unique ids, lower first: addresses are reused, ids are not.
using IdPair = std::pair<int, int>;

/// A live proxy, the box last given to it, and the box the adapter's agrid should hold for it:
/// the AABB itself, or with a fat-pair margin a fat box around it.
struct Body {
  btBroadphaseProxy* proxy;
  btVector3 min;
  btVector3 max;
  btVector3 held_min;
  btVector3 held_max;
};

/// The fat-pair margins the input chooses from, and those the adapter must refuse.
constexpr btScalar kMargins[] = {0, btScalar(0.05), btScalar(0.5), 4, btScalar(1e30)};
constexpr btScalar kBadMargins[] = {-1, std::numeric_limits<btScalar>::quiet_NaN(),
                                    std::numeric_limits<btScalar>::infinity(), -std::numeric_limits<btScalar>::infinity()};

[[nodiscard]] bool is_valid(const btVector3& min, const btVector3& max) noexcept {
  // Written as "min <= max" so that a NaN makes the box invalid.
  return min.x() <= max.x() && min.y() <= max.y() && min.z() <= max.z();
}

/// Both boxes valid and overlapping as closed boxes (touching counts).
[[nodiscard]] bool overlap(const btVector3& min0, const btVector3& max0, const btVector3& min1,
                           const btVector3& max1) noexcept {
  if (!is_valid(min0, max0) || !is_valid(min1, max1)) return false;
  for (int axis = 0; axis < 3; ++axis) {
    if (!(min0[axis] <= max1[axis] && min1[axis] <= max0[axis])) return false;
  }
  return true;
}

[[nodiscard]] IdPair ids_of(const btBroadphasePair& pair) noexcept {
  return {pair.m_pProxy0->m_uniqueId, pair.m_pProxy1->m_uniqueId};
}

[[nodiscard]] void* tag_pointer(int tag) noexcept { return reinterpret_cast<void*>(static_cast<std::intptr_t>(tag)); }

/// A misuse or warning handler that counts its calls in the int given as context.
void count_message(const char* /*message*/, void* count) { ++*static_cast<int*>(count); }

/// Collects what an aabbTest reports.
struct Hits : btBroadphaseAabbCallback {
  bool process(const btBroadphaseProxy* proxy) override {
    proxies.push_back(proxy);
    return true;
  }
  std::vector<const btBroadphaseProxy*> proxies;
};

/// One input's run of the broadphase half.
class BroadphaseRun {
 public:
  BroadphaseRun(FuzzInput& in, const Options& options);
  BroadphaseRun(const BroadphaseRun&) = delete;
  BroadphaseRun& operator=(const BroadphaseRun&) = delete;

  /// Every operation the input holds, a calculateOverlappingPairs after them, and the teardown.
  void run();

 private:
  void create();
  void destroy();
  void set_aabb();
  void write_filter();
  void edit_pairs();
  void change_callback();
  void use_destroyed();
  void aabb_test();
  void set_margin();
  void step();
  /// The model of the box agrid holds for `body` after its AABB became body.min/max: with a
  /// margin, kept while a valid AABB stays inside, else the AABB grown by the margin (an invalid
  /// AABB as it is); `again` gives it anew (a new margin).
  void hold(Body& body, bool again) const;

  /// The live body a byte names, or none when nothing lives.
  [[nodiscard]] Body* pick();
  [[nodiscard]] bool accepts(btBroadphaseProxy* a, btBroadphaseProxy* b) const;
  /// The cache against brute force, after a step.
  void check_pairs() const;
  /// Pairs in the cache before and after a step kept their user data (so were not re-added).
  void check_kept(const std::map<IdPair, void*>& before) const;
  /// lastStepStats() after a step that began with `pairs_before` pairs in the cache.
  void check_stats(int pairs_before) const;
  /// getBroadphaseAabb: the bounds of the live proxies' valid stored AABBs, or a zero box.
  void check_bounds() const;
  /// Every pair without a tag gets one (m_internalInfo1), and without an algorithm one with its
  /// tag, as a dispatcher would give it.
  void tag_pairs();
  /// The adapter's cache's lists, after every operation.
  void check_lists() const;
  /// No pair of the cache holds `proxy`.
  void check_gone(const btBroadphaseProxy* proxy) const;
  void teardown();

  FuzzInput& in_;
  bool raw_;
  AlgorithmLedger& dispatcher_;
  std::unique_ptr<btHashedOverlappingPairCache> user_cache_;
  std::unique_ptr<btAdaptiveGridBroadphase> broadphase_;
  btOverlappingPairCache* cache_ = nullptr;
  const bullet_detail::ProxyPairCache* own_cache_ = nullptr;
  std::vector<Body> bodies_;
  std::vector<btBroadphaseProxy*> destroyed_;  ///< Since the last step: refused until then.
  std::set<const btBroadphaseProxy*> given_box_;  ///< Live, created or given setAabb since the last step.
  FilterCallback callbacks_[4] = {FilterCallback(FilterCallback::Rule::kGroupsAndMasks),
                                  FilterCallback(FilterCallback::Rule::kAll),
                                  FilterCallback(FilterCallback::Rule::kNone),
                                  FilterCallback(FilterCallback::Rule::kGroupsAndMasksOrEveryThird)};
  FilterCallback* callback_ = nullptr;  ///< The one installed.
  int warnings_ = 0;          ///< The adapter's warnings so far (its warning handler counts them).
  bool saw_invalid_ = false;  ///< A step has left an invalid AABB: its one warning is due.
  int next_tag_ = 1;
  int last_id_ = 0;
  float margin_ = 0;  ///< The fat-pair margin set, as the adapter holds it (a float).
};

BroadphaseRun::BroadphaseRun(FuzzInput& in, const Options& options)
    : in_(in), raw_(options.raw_floats), dispatcher_(ledger(0)) {
  dispatcher_.reset();
  const Config config = in.broadphase_config();
  if (options.user_cache) user_cache_ = std::make_unique<btHashedOverlappingPairCache>();
  broadphase_ = std::make_unique<btAdaptiveGridBroadphase>(user_cache_.get(), config);
  cache_ = broadphase_->getOverlappingPairCache();
  broadphase_->setWarningHandler(count_message, &warnings_);
  require((cache_ == user_cache_.get()) == options.user_cache, "the cache used (not the one given)");
  own_cache_ = dynamic_cast<const bullet_detail::ProxyPairCache*>(cache_);
  require(options.user_cache || own_cache_ != nullptr, "the adapter's own cache (not a ProxyPairCache)");
}

void BroadphaseRun::run() {
  while (!in_.empty()) {
    switch (in_.byte() % 11) {
      case 0:
        create();
        break;
      case 1:
        destroy();
        break;
      case 2:
        set_aabb();
        break;
      case 3:
        write_filter();
        break;
      case 4:
        edit_pairs();
        break;
      case 5:
        change_callback();
        break;
      case 6:
        use_destroyed();
        break;
      case 7:
        aabb_test();
        break;
      case 8:
        set_margin();
        break;
      default:
        step();
    }
    check_lists();
  }
  step();
  teardown();
}

Body* BroadphaseRun::pick() {
  const std::uint8_t b = in_.byte();
  return bodies_.empty() ? nullptr : &bodies_[b % bodies_.size()];
}

void BroadphaseRun::create() {
  if (bodies_.size() >= kMaxProxies) return;
  Body body{};
  read_box(in_, raw_, body.min, body.max);
  const std::uint8_t filter = in_.byte();
  const int group = filter_group(filter);
  const int mask = filter_mask(filter >> 2);
  body.proxy = broadphase_->createProxy(body.min, body.max, BOX_SHAPE_PROXYTYPE, &bodies_, group, mask, &dispatcher_);
  const btBroadphaseProxy& p = *body.proxy;
  require(reinterpret_cast<std::uintptr_t>(body.proxy) % 16 == 0, "createProxy (a proxy not 16-byte aligned)");
  require(p.m_uniqueId > last_id_, "createProxy (a unique id not above every earlier one)");
  require(p.m_clientObject == &bodies_ && p.m_collisionFilterGroup == group && p.m_collisionFilterMask == mask,
          "createProxy (the user pointer, group or mask)");
  require(same_value(p.m_aabbMin, body.min) && same_value(p.m_aabbMax, body.max), "createProxy (the stored AABB)");
  last_id_ = p.m_uniqueId;
  hold(body, true);
  bodies_.push_back(body);
  given_box_.insert(body.proxy);
}

void BroadphaseRun::destroy() {
  Body* body = pick();
  const bool clean_first = (in_.byte() & 1) != 0;
  if (body == nullptr) return;
  btBroadphaseProxy* proxy = body->proxy;
  // btCollisionWorld::removeCollisionObject cleans the proxy's pairs first; others do not.
  if (clean_first) cache_->cleanProxyFromPairs(proxy, &dispatcher_);
  broadphase_->destroyProxy(proxy, &dispatcher_);
  check_gone(proxy);
  given_box_.erase(proxy);
  bodies_.erase(bodies_.begin() + (body - bodies_.data()));
  destroyed_.push_back(proxy);
}

void BroadphaseRun::set_aabb() {
  Body* body = pick();
  const std::uint8_t kind = in_.byte();
  if (body == nullptr) return;
  btVector3 min = body->proxy->m_aabbMin;  // unchanged (what Bullet sends static objects every step)
  btVector3 max = body->proxy->m_aabbMax;
  if (kind % 3 == 0) {
    read_box(in_, raw_, min, max);
  } else if (kind % 3 == 1) {
    const Body* other = pick();  // an equal box
    min = other->min;
    max = other->max;
  }
  broadphase_->setAabb(body->proxy, min, max, &dispatcher_);
  given_box_.insert(body->proxy);
  body->min = min;
  body->max = max;
  hold(*body, false);
  require(same_value(body->proxy->m_aabbMin, min) && same_value(body->proxy->m_aabbMax, max), "setAabb (the stored AABB)");
}

void BroadphaseRun::write_filter() {
  // As Bullet users do: on the live proxy, without telling the broadphase.
  Body* body = pick();
  const std::uint8_t filter = in_.byte();
  if (body == nullptr) return;
  if ((filter & 0x10) == 0) body->proxy->m_collisionFilterGroup = filter_group(filter);
  if ((filter & 0x20) == 0) body->proxy->m_collisionFilterMask = filter_mask(filter >> 2);
}

void BroadphaseRun::edit_pairs() {
  const std::uint8_t kind = in_.byte();
  Body* body = pick();
  if (body == nullptr) return;
  switch (kind % 4) {
    case 0: {
      const int count = cache_->getNumOverlappingPairs();
      if (count == 0) return;
      const btBroadphasePair& pair = cache_->getOverlappingPairArray()[in_.byte() % count];
      btBroadphaseProxy* proxy0 = pair.m_pProxy0;
      btBroadphaseProxy* proxy1 = pair.m_pProxy1;
      cache_->removeOverlappingPair(proxy0, proxy1, &dispatcher_);
      require(cache_->findPair(proxy0, proxy1) == nullptr, "removeOverlappingPair (the pair stays)");
      return;
    }
    case 1: {
      // Any two live proxies, overlapping or not, filtered or not, the same one twice even.
      const Body* other = pick();
      btBroadphasePair* pair = cache_->addOverlappingPair(body->proxy, other->proxy);
      if (pair != nullptr && pair->m_internalInfo1 == nullptr) {
        pair->m_internalInfo1 = tag_pointer(next_tag_);
        dispatcher_.give(*pair, next_tag_++);
      }
      return;
    }
    case 2:
      cache_->removeOverlappingPairsContainingProxy(body->proxy, &dispatcher_);
      check_gone(body->proxy);
      return;
    default:
      cache_->cleanProxyFromPairs(body->proxy, &dispatcher_);
  }
}

void BroadphaseRun::change_callback() {
  const std::uint8_t kind = in_.byte() % 6;
  if (kind < 4) {
    callback_ = &callbacks_[kind];
  } else if (kind == 4) {
    callback_ = nullptr;
  } else if (callback_ != nullptr) {
    callback_->widen();  // seen at once: refused pairs are offered again every step
  }
  cache_->setOverlapFilterCallback(callback_);
}

void BroadphaseRun::use_destroyed() {
  const std::uint8_t b = in_.byte();
  if (destroyed_.empty()) return;
  btBroadphaseProxy* proxy = destroyed_[b % destroyed_.size()];
  if ((b & 0x40) != 0) {  // a handler that returns, as in a game without exceptions: the call does nothing
    int misuses = 0;
    broadphase_->setMisuseHandler(count_message, &misuses);
    if ((b & 0x80) != 0) {
      broadphase_->destroyProxy(proxy, &dispatcher_);
    } else {
      broadphase_->setAabb(proxy, btVector3(0, 0, 0), btVector3(1, 1, 1), &dispatcher_);
    }
    broadphase_->setMisuseHandler(nullptr);
    require(misuses == 1, "the misuse handler (a destroyed proxy given again) was not called exactly once");
    return;
  }
  try {
    if ((b & 0x80) != 0) {
      broadphase_->destroyProxy(proxy, &dispatcher_);
    } else {
      broadphase_->setAabb(proxy, btVector3(0, 0, 0), btVector3(1, 1, 1), &dispatcher_);
    }
  } catch (const std::invalid_argument&) {
    return;
  }
  fail("a proxy destroyed since the last step was accepted by %s", (b & 0x80) != 0 ? "destroyProxy" : "setAabb");
}

void BroadphaseRun::aabb_test() {
  btVector3 min;
  btVector3 max;
  read_box(in_, raw_, min, max);
  Hits hits;
  broadphase_->aabbTest(min, max, hits);
  std::vector<const btBroadphaseProxy*> expected;
  for (const Body& body : bodies_) {
    if (overlap(min, max, body.proxy->m_aabbMin, body.proxy->m_aabbMax)) expected.push_back(body.proxy);
  }
  std::sort(expected.begin(), expected.end());
  std::sort(hits.proxies.begin(), hits.proxies.end());
  if (hits.proxies != expected) {
    fail("aabbTest reported %zu proxies, brute force %zu (a miss, an extra, a duplicate or a destroyed proxy)",
         hits.proxies.size(), expected.size());
  }
}

void BroadphaseRun::hold(Body& body, bool again) const {
  const bool valid = is_valid(body.min, body.max);
  if (!again && margin_ > 0 && valid) {
    bool inside = true;
    for (int axis = 0; axis < 3; ++axis) {
      inside = inside && body.held_min[axis] <= body.min[axis] && body.max[axis] <= body.held_max[axis];
    }
    if (inside) return;
  }
  body.held_min = body.min;
  body.held_max = body.max;
  if (margin_ == 0 || !valid) return;
  for (int axis = 0; axis < 3; ++axis) {  // in floats, as agrid holds boxes
    body.held_min[axis] = static_cast<float>(body.min[axis]) - margin_;
    body.held_max[axis] = static_cast<float>(body.max[axis]) + margin_;
  }
}

void BroadphaseRun::set_margin() {
  const std::uint8_t b = in_.byte();
  if ((b & 0x80) != 0) {  // refused: the margin stays
    int misuses = 0;
    broadphase_->setMisuseHandler(count_message, &misuses);
    broadphase_->setFatPairMargin(kBadMargins[b % std::size(kBadMargins)]);
    broadphase_->setMisuseHandler(nullptr);
    require(misuses == 1, "setFatPairMargin (a negative or non-finite margin was not refused once)");
    require(broadphase_->getFatPairMargin() == margin_, "setFatPairMargin (a refused margin changed the margin)");
    return;
  }
  const btScalar margin = kMargins[b % std::size(kMargins)];
  broadphase_->setFatPairMargin(margin);
  const auto rounded = static_cast<float>(margin);  // each is a float already
  require(broadphase_->getFatPairMargin() == rounded, "getFatPairMargin (not the margin set)");
  if (rounded == margin_) return;  // the same margin: nothing is given again
  margin_ = rounded;
  for (Body& body : bodies_) hold(body, true);
}

void BroadphaseRun::step() {
  const int pairs_before = cache_->getNumOverlappingPairs();
  std::map<IdPair, void*> before;
  const btBroadphasePairArray& pairs = cache_->getOverlappingPairArray();
  for (int i = 0; i < pairs.size(); ++i) before[ids_of(pairs[i])] = pairs[i].m_internalInfo1;
  broadphase_->calculateOverlappingPairs(&dispatcher_);
  check_pairs();
  check_kept(before);
  check_stats(pairs_before);
  check_bounds();
  saw_invalid_ = saw_invalid_ || broadphase_->lastStepStats().m_invalidObjects > 0;
  require(warnings_ == (saw_invalid_ ? 1 : 0), "the invalid-AABB warning (once, after the first step that left one)");
  destroyed_.clear();
  given_box_.clear();
  tag_pairs();
}

bool BroadphaseRun::accepts(btBroadphaseProxy* a, btBroadphaseProxy* b) const {
  if (a->m_uniqueId > b->m_uniqueId) std::swap(a, b);  // as the cache asks
  return callback_ != nullptr ? callback_->needBroadphaseCollision(a, b) : groups_and_masks_accept(*a, *b);
}

void BroadphaseRun::check_pairs() const {
  std::map<const btBroadphaseProxy*, const Body*> live;
  for (const Body& body : bodies_) {
    live[body.proxy] = &body;
    require(same_value(body.proxy->m_aabbMin, body.min) && same_value(body.proxy->m_aabbMax, body.max),
            "the stored AABB (not the last one given)");
  }
  std::vector<IdPair> expected;
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    for (std::size_t j = i + 1; j < bodies_.size(); ++j) {
      const Body& a_body = bodies_[i];
      const Body& b_body = bodies_[j];
      btBroadphaseProxy* a = a_body.proxy;
      btBroadphaseProxy* b = b_body.proxy;
      if (overlap(a_body.held_min, a_body.held_max, b_body.held_min, b_body.held_max) && accepts(a, b)) {
        expected.emplace_back(std::min(a->m_uniqueId, b->m_uniqueId), std::max(a->m_uniqueId, b->m_uniqueId));
      }
    }
  }
  std::vector<IdPair> actual;
  const btBroadphasePairArray& pairs = cache_->getOverlappingPairArray();
  for (int i = 0; i < pairs.size(); ++i) {
    if (!live.contains(pairs[i].m_pProxy0) || !live.contains(pairs[i].m_pProxy1)) {
      fail("pair %d of the cache holds a destroyed proxy", i);
    }
    const IdPair ids = ids_of(pairs[i]);
    if (ids.first >= ids.second) fail("pair %d of the cache is (%d, %d): not in ascending ids", i, ids.first, ids.second);
    actual.push_back(ids);
  }
  std::sort(expected.begin(), expected.end());
  std::sort(actual.begin(), actual.end());
  if (const auto twice = std::adjacent_find(actual.begin(), actual.end()); twice != actual.end()) {
    fail("the cache holds the pair (%d, %d) twice", twice->first, twice->second);
  }
  std::vector<IdPair> missing;
  std::vector<IdPair> extra;
  std::set_difference(expected.begin(), expected.end(), actual.begin(), actual.end(), std::back_inserter(missing));
  std::set_difference(actual.begin(), actual.end(), expected.begin(), expected.end(), std::back_inserter(extra));
  if (!missing.empty() || !extra.empty()) {
    const IdPair first = missing.empty() ? extra.front() : missing.front();
    fail("after calculateOverlappingPairs the cache misses %zu pairs and holds %zu extra (%s the pair (%d, %d))",
         missing.size(), extra.size(), missing.empty() ? "holds" : "misses", first.first, first.second);
  }
}

void BroadphaseRun::check_kept(const std::map<IdPair, void*>& before) const {
  const btBroadphasePairArray& pairs = cache_->getOverlappingPairArray();
  for (int i = 0; i < pairs.size(); ++i) {
    const auto found = before.find(ids_of(pairs[i]));
    if (found != before.end() && found->second != pairs[i].m_internalInfo1) {
      fail("the pair (%d, %d) stayed but was removed and added again (its user data is gone)",
           found->first.first, found->first.second);
    }
  }
}

void BroadphaseRun::check_stats(int pairs_before) const {
  const btAdaptiveGridBroadphaseStats& stats = broadphase_->lastStepStats();
  require(stats.m_pairs == cache_->getNumOverlappingPairs(), "lastStepStats().m_pairs (the pairs held)");
  require(stats.m_pairsBegan >= 0 && stats.m_pairsEnded >= 0 &&
              stats.m_pairs == pairs_before + stats.m_pairsBegan - stats.m_pairsEnded,
          "lastStepStats() (the pairs held before, begun, ended and held after do not add up)");
  const auto invalid = std::count_if(bodies_.begin(), bodies_.end(), [](const Body& b) { return !is_valid(b.min, b.max); });
  require(stats.m_invalidObjects == invalid, "lastStepStats().m_invalidObjects (the live proxies with a NaN or min > max)");
  if (stats.m_setAabbObjects != static_cast<int>(given_box_.size())) {
    fail("lastStepStats().m_setAabbObjects is %d; %zu live proxies were created or given setAabb in the step",
         stats.m_setAabbObjects, given_box_.size());
  }
}

void BroadphaseRun::check_bounds() const {
  btVector3 expected_min(0, 0, 0);
  btVector3 expected_max(0, 0, 0);
  bool any = false;
  for (const Body& body : bodies_) {
    const btVector3& min = body.proxy->m_aabbMin;
    const btVector3& max = body.proxy->m_aabbMax;
    if (!is_valid(min, max)) continue;
    for (int axis = 0; axis < 3; ++axis) {
      expected_min[axis] = any ? std::min(expected_min[axis], min[axis]) : min[axis];
      expected_max[axis] = any ? std::max(expected_max[axis], max[axis]) : max[axis];
    }
    any = true;
  }
  btVector3 min;
  btVector3 max;
  broadphase_->getBroadphaseAabb(min, max);
  require(same_value(min, expected_min) && same_value(max, expected_max), "getBroadphaseAabb (the bounds of the valid stored AABBs)");
}

void BroadphaseRun::tag_pairs() {
  btBroadphasePairArray& pairs = cache_->getOverlappingPairArray();
  for (int i = 0; i < pairs.size(); ++i) {
    if (pairs[i].m_internalInfo1 == nullptr) pairs[i].m_internalInfo1 = tag_pointer(next_tag_++);
    const auto tag = static_cast<int>(reinterpret_cast<std::intptr_t>(pairs[i].m_internalInfo1));
    if (pairs[i].m_algorithm == nullptr) {
      dispatcher_.give(pairs[i], tag);
    } else {
      require(dispatcher_.tag_of(pairs[i].m_algorithm) == tag, "a pair's algorithm (another pair's)");
    }
  }
}

void BroadphaseRun::check_lists() const {
  if (own_cache_ == nullptr) return;
  if (const char* problem = own_cache_->problem()) fail("%s", problem);
}

void BroadphaseRun::check_gone(const btBroadphaseProxy* proxy) const {
  const btBroadphasePairArray& pairs = cache_->getOverlappingPairArray();
  for (int i = 0; i < pairs.size(); ++i) {
    if (pairs[i].m_pProxy0 == proxy || pairs[i].m_pProxy1 == proxy) {
      fail("pair %d of the cache still holds a proxy whose pairs were removed", i);
    }
  }
}

void BroadphaseRun::teardown() {
  for (const Body& body : bodies_) broadphase_->destroyProxy(body.proxy, &dispatcher_);
  bodies_.clear();
  require(cache_->getNumOverlappingPairs() == 0, "the cache after every proxy was destroyed (pairs left)");
  require(dispatcher_.live.empty(), "the algorithms freed (some never were)");
  cache_->setOverlapFilterCallback(nullptr);
  broadphase_.reset();
  user_cache_.reset();
  dispatcher_.reset();
}

}  // namespace

void run_broadphase(FuzzInput& in, const Options& options) {
  BroadphaseRun run(in, options);
  run.run();
}

}  // namespace agrid::fuzz::bullet
