// The adapter's proxy pool (adapters/bullet/src/proxy_pool.h): aligned slots that never move,
// the lowest block first, and blocks given back when their proxies are gone, keeping one spare.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "proxy_pool.h"
#include "support/test_support.h"

namespace {

using agrid::bullet_detail::ProxyPool;
using agrid::test::Rng;

constexpr std::size_t kBlock = ProxyPool::kProxiesPerBlock;
constexpr std::size_t kBlockBytes = ProxyPool::kSlotBytes * kBlock;

TEST(ProxyPool, SlotsAreAlignedDistinctAndStay) {
  ProxyPool pool;
  std::set<void*> seen;
  for (std::size_t i = 0; i < 3 * kBlock + 5; ++i) {
    void* slot = pool.allocate();
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(slot) % 16, 0u);
    EXPECT_TRUE(seen.insert(slot).second) << "a slot handed out twice";
  }
  EXPECT_EQ(pool.problem(), nullptr);
}

// The world grows to many blocks and shrinks to a few proxies: all blocks but those holding a
// proxy and one spare are freed; growing again reuses and allocates as needed.
TEST(ProxyPool, EmptyBlocksAreGivenBackKeepingOneSpare) {
  ProxyPool pool;
  std::vector<void*> slots;
  for (std::size_t i = 0; i < 10 * kBlock; ++i) slots.push_back(pool.allocate());
  const std::size_t full = pool.bytes_held();
  EXPECT_GE(full, 10 * kBlockBytes);
  // Keep the first slot of the first block only.
  for (std::size_t i = 1; i < slots.size(); ++i) pool.release(slots[i]);
  EXPECT_EQ(pool.problem(), nullptr);
  EXPECT_LE(pool.bytes_held(), 2 * kBlockBytes + kBlock * sizeof(std::uint16_t) * 2 + 4096)
      << "more than the live block and one spare are held";
  // Slots come from the lowest block first: the live block fills before another is used.
  for (std::size_t i = 1; i < kBlock; ++i) {
    void* slot = pool.allocate();
    const auto offset = static_cast<unsigned char*>(slot) - static_cast<unsigned char*>(slots[0]);
    EXPECT_TRUE(offset > 0 && static_cast<std::size_t>(offset) < kBlockBytes) << "slot " << i << " not in the low block";
  }
  EXPECT_EQ(pool.problem(), nullptr);
}

// A world that breathes across a block's edge (a few proxies in and out every step) neither
// frees nor allocates a block every step: the spare absorbs it.
TEST(ProxyPool, BreathingAcrossABlockEdgeKeepsItsBlocks) {
  ProxyPool pool;
  std::vector<void*> slots;
  for (std::size_t i = 0; i < kBlock; ++i) slots.push_back(pool.allocate());
  const std::size_t held = pool.bytes_held();
  for (int step = 0; step < 50; ++step) {
    for (int k = 0; k < 3; ++k) slots.push_back(pool.allocate());  // into a second block
    for (int k = 0; k < 3; ++k) {
      pool.release(slots.back());
      slots.pop_back();
    }
    EXPECT_LE(pool.bytes_held(), held + kBlockBytes + kBlock * sizeof(std::uint16_t) + 4096) << "step " << step;
  }
  EXPECT_EQ(pool.problem(), nullptr);
}

// Random churn: the invariant holds and no slot is ever handed out while it is live.
TEST(ProxyPool, RandomChurnKeepsTheInvariant) {
  ProxyPool pool;
  Rng rng(17);
  std::vector<void*> live;
  std::set<void*> live_set;
  for (int round = 0; round < 60; ++round) {
    const std::size_t target = rng.below(static_cast<std::uint32_t>(4 * kBlock));
    while (live.size() < target) {
      void* slot = pool.allocate();
      ASSERT_TRUE(live_set.insert(slot).second);
      live.push_back(slot);
    }
    while (live.size() > target) {
      const std::size_t k = rng.below(static_cast<std::uint32_t>(live.size()));
      pool.release(live[k]);
      live_set.erase(live[k]);
      live[k] = live.back();
      live.pop_back();
    }
    ASSERT_EQ(pool.problem(), nullptr) << "round " << round;
  }
  for (void* slot : live) pool.release(slot);
  EXPECT_LE(pool.bytes_held(), kBlockBytes + 4 * kBlock * sizeof(std::uint16_t) + 4096);
}

}  // namespace
