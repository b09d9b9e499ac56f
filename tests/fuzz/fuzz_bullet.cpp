// Fuzz target: the Bullet adapter. The input's first byte chooses one of two halves:
// * the broadphase (fuzz_bullet_broadphase.cpp): a btAdaptiveGridBroadphase, with its own pair
//   cache or a user's, driven as Bullet and its users drive one (proxies created, destroyed,
//   moved; filters written on live proxies; filter callbacks; pairs edited by hand); after every
//   calculateOverlappingPairs the cache must hold exactly the pairs brute force finds;
// * the pair cache (fuzz_bullet_cache.cpp): the adapter's ProxyPairCache and Bullet's
//   btHashedOverlappingPairCache given the same operations must hold the same pair array after
//   each, element for element.

#include "fuzz_bullet.h"

#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>

namespace agrid::fuzz::bullet {

void fail(const char* format, ...) {
  std::va_list arguments;
  va_start(arguments, format);
  std::fputs("fuzz_bullet: ", stderr);
  std::vfprintf(stderr, format, arguments);
  std::fputc('\n', stderr);
  va_end(arguments);
  std::abort();
}

void AlgorithmLedger::give(btBroadphasePair& pair, int tag) {
  btCollisionAlgorithmConstructionInfo info(this, 0);
  btCollisionAlgorithm* algorithm = new (::operator new(sizeof(InertAlgorithm))) InertAlgorithm(info);
  pair.m_algorithm = algorithm;
  live[algorithm] = tag;
}

int AlgorithmLedger::tag_of(const btCollisionAlgorithm* algorithm) const {
  if (algorithm == nullptr) return -1;
  const auto found = live.find(algorithm);
  require(found != live.end(), "a pair's collision algorithm (one never given, or freed)");
  return found->second;
}

void AlgorithmLedger::freeCollisionAlgorithm(void* memory) {
  const auto found = live.find(memory);
  require(found != live.end(), "the freed collision algorithms (one never given, or freed twice)");
  freed.push_back(found->second);
  live.erase(found);
  ::operator delete(memory);
}

void AlgorithmLedger::reset() {
  for (const auto& [memory, tag] : live) {
    auto* algorithm = static_cast<btCollisionAlgorithm*>(const_cast<void*>(memory));
    algorithm->~btCollisionAlgorithm();
    ::operator delete(algorithm);
  }
  live.clear();
  freed.clear();
}

AlgorithmLedger& ledger(int which) {
  static btDefaultCollisionConfiguration configuration;
  static AlgorithmLedger ledgers[2] = {AlgorithmLedger(&configuration), AlgorithmLedger(&configuration)};
  return ledgers[which];
}

bool FilterCallback::needBroadphaseCollision(btBroadphaseProxy* proxy0, btBroadphaseProxy* proxy1) const {
  const int a = proxy0->m_uniqueId;
  const int b = proxy1->m_uniqueId;
  if (((a ^ b) & 7) < widened_) return true;
  switch (rule_) {
    case Rule::kGroupsAndMasks:
      return groups_and_masks_accept(*proxy0, *proxy1);
    case Rule::kAll:
      return true;
    case Rule::kNone:
      return false;
    case Rule::kGroupsAndMasksOrEveryThird:
      return groups_and_masks_accept(*proxy0, *proxy1) || (a + b) % 3 == 0;
  }
  return false;
}

int filter_group(std::uint8_t bits) noexcept {
  constexpr int kGroups[4] = {btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::StaticFilter,
                              btBroadphaseProxy::KinematicFilter, btBroadphaseProxy::AllFilter};
  return kGroups[bits & 3];
}

int filter_mask(std::uint8_t bits) noexcept {
  constexpr int kMasks[4] = {btBroadphaseProxy::AllFilter,
                             btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter,
                             btBroadphaseProxy::DefaultFilter, 0};
  return kMasks[bits & 3];
}

void read_box(FuzzInput& in, bool raw, btVector3& min, btVector3& max) {
  const Box box = in.box(raw);
  min.setValue(box.min.x, box.min.y, box.min.z);
  max.setValue(box.max.x, box.max.y, box.max.z);
}

bool same_value(const btVector3& a, const btVector3& b) noexcept {
  for (int axis = 0; axis < 3; ++axis) {
    if (!(a[axis] == b[axis] || (std::isnan(a[axis]) && std::isnan(b[axis])))) return false;
  }
  return true;
}

}  // namespace agrid::fuzz::bullet

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agrid::fuzz::bullet;
  agrid::fuzz::FuzzInput in(data, size);
  // Bit 0: which half; bit 1: raw floats; bit 2: the broadphase half with a user's cache.
  const std::uint8_t flags = in.byte();
  const Options options{(flags & 2) != 0, (flags & 4) != 0};
  if ((flags & 1) != 0) {
    run_cache(in, options);
  } else {
    run_broadphase(in, options);
  }
  return 0;
}
