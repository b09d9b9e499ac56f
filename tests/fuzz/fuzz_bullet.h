#pragma once
// What the two halves of the `bullet` fuzz target share (fuzz_bullet.cpp): collision algorithms
// that pairs carry so that their freeing can be checked, the dispatcher that hands them out and
// records their freeing, filter callbacks whose answers follow from the proxies alone, and
// filters and boxes from the fuzzer's bytes.

#include <btBulletCollisionCommon.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "fuzz_input.h"

namespace agrid::fuzz::bullet {

/// Stops the run with a printf-style message: libFuzzer saves the input, the replay test fails.
[[noreturn]] void fail(const char* format, ...) __attribute__((format(printf, 1, 2)));

/// A collision algorithm that does nothing. A pair's algorithm is what Bullet frees when the
/// pair is removed or cleaned: giving every pair one checks that none is lost or freed twice.
class InertAlgorithm final : public btCollisionAlgorithm {
 public:
  explicit InertAlgorithm(const btCollisionAlgorithmConstructionInfo& info) : btCollisionAlgorithm(info) {}
  void processCollision(const btCollisionObjectWrapper*, const btCollisionObjectWrapper*, const btDispatcherInfo&,
                        btManifoldResult*) override {}
  btScalar calculateTimeOfImpact(btCollisionObject*, btCollisionObject*, const btDispatcherInfo&,
                                 btManifoldResult*) override {
    return 1;
  }
  void getAllContactManifolds(btManifoldArray&) override {}
};

/// A dispatcher that hands out tagged algorithms and records the tags of those freed, in order.
/// One lives for the whole run (a btDefaultCollisionConfiguration is costly to make); reset()
/// starts an input.
class AlgorithmLedger final : public btCollisionDispatcher {
 public:
  explicit AlgorithmLedger(btCollisionConfiguration* configuration) : btCollisionDispatcher(configuration) {}
  ~AlgorithmLedger() override { reset(); }
  AlgorithmLedger(const AlgorithmLedger&) = delete;
  AlgorithmLedger& operator=(const AlgorithmLedger&) = delete;

  /// Gives `pair` a new algorithm known by `tag`.
  void give(btBroadphasePair& pair, int tag);
  /// The tag of a live algorithm (-1 for none).
  [[nodiscard]] int tag_of(const btCollisionAlgorithm* algorithm) const;
  /// Bullet calls this after the algorithm's destructor: the tag is looked up by address.
  void freeCollisionAlgorithm(void* memory) override;
  /// Frees the algorithms still live (lost with their pairs when removed without a
  /// dispatcher) and forgets what was freed.
  void reset();

  std::unordered_map<const void*, int> live;  ///< Algorithms given and not freed, by address.
  std::vector<int> freed;                     ///< Tags of the freed algorithms, in order.
};

/// The two dispatchers of a run: the cache-against-cache half uses both, one a cache.
AlgorithmLedger& ledger(int which);

/// A filter callback whose answer is a function of the two proxies as they are now (their ids,
/// groups and masks), the same in either order, and that only ever widens by its own state: so
/// that the adapter's promise holds for it (docs/broadphase.md: narrowing through a callback's
/// own state needs it reinstalled, widening is seen at once).
class FilterCallback final : public btOverlapFilterCallback {
 public:
  /// What a callback decides, before its widening.
  enum class Rule : std::uint8_t { kGroupsAndMasks, kAll, kNone, kGroupsAndMasksOrEveryThird };

  explicit FilterCallback(Rule rule) noexcept : rule_(rule) {}
  bool needBroadphaseCollision(btBroadphaseProxy* proxy0, btBroadphaseProxy* proxy1) const override;
  /// Accepts more pairs from now on (a few more each time, all of them after eight).
  void widen() noexcept {
    if (widened_ < 8) ++widened_;
  }

 private:
  Rule rule_;
  int widened_ = 0;
};

/// Bullet's own rule, when no callback is set.
[[nodiscard]] inline bool groups_and_masks_accept(const btBroadphaseProxy& a, const btBroadphaseProxy& b) noexcept {
  return (a.m_collisionFilterGroup & b.m_collisionFilterMask) != 0 &&
         (b.m_collisionFilterGroup & a.m_collisionFilterMask) != 0;
}

/// A filter group from two bits: Bullet's default, static and kinematic groups, and all bits.
[[nodiscard]] int filter_group(std::uint8_t bits) noexcept;
/// A filter mask from two bits: everything, everything but statics (a static body's), the
/// default group only, nothing.
[[nodiscard]] int filter_mask(std::uint8_t bits) noexcept;

/// A box from the input (FuzzInput::box: raw floats, or coded ones that touch, NaN, infinite,
/// huge, inverted), as Bullet's two corners.
void read_box(FuzzInput& in, bool raw, btVector3& min, btVector3& max);

/// The same number, or both NaN: what setAabb's "unchanged" means (it compares with ==).
[[nodiscard]] bool same_value(const btVector3& a, const btVector3& b) noexcept;

/// Flags of the input's first byte, each half's own.
struct Options {
  bool raw_floats;  ///< Boxes of raw floats, else coded ones.
  bool user_cache;  ///< The broadphase half: a btHashedOverlappingPairCache of the user's.
};

/// The broadphase against brute force (fuzz_bullet_broadphase.cpp).
void run_broadphase(FuzzInput& in, const Options& options);
/// The adapter's pair cache against Bullet's (fuzz_bullet_cache.cpp).
void run_cache(FuzzInput& in, const Options& options);

}  // namespace agrid::fuzz::bullet
