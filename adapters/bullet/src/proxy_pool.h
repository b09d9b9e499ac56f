#pragma once
// ProxyPool: btAdaptiveGridProxy storage in contiguous blocks, so that Bullet's per-step setAabb
// over every proxy streams through memory instead of chasing allocations spread over the heap;
// blocks whose proxies are all gone are given back.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "adaptive_grid_proxy.h"

namespace agrid::bullet_detail {

/// Fixed-address, 16-byte aligned slots for proxies, in blocks of kProxiesPerBlock. A slot comes
/// from the lowest block that has one free, so that live proxies gather in the low blocks and the
/// high ones empty when the world shrinks; an empty block is freed once another empty block is
/// kept (one spare, so that a world breathing across a block's edge does not allocate every
/// step). Invariant (problem()): each block's live count and free slots add up to the slots it
/// has handed out; `open_` is at most the lowest block with a slot to give.
class ProxyPool {
 public:
  ProxyPool() = default;
  ProxyPool(const ProxyPool&) = delete;
  ProxyPool& operator=(const ProxyPool&) = delete;
  ~ProxyPool();

  /// Uninitialised memory for one proxy.
  [[nodiscard]] void* allocate();

  /// Gives back a slot whose proxy has been destroyed; may free its block.
  void release(void* slot);

  /// Heap bytes held: the blocks and the pool's own lists.
  [[nodiscard]] std::size_t bytes_held() const noexcept;

  /// Empty if the invariant holds, else what is wrong.
  [[nodiscard]] const char* problem() const;

  /// Proxies per block: 4,096 of 96 bytes, 384 KiB.
  static constexpr std::size_t kProxiesPerBlock = 4096;
  static constexpr std::size_t kSlotBytes = (sizeof(btAdaptiveGridProxy) + 15) / 16 * 16;

 private:
  struct Block {
    unsigned char* memory = nullptr;      ///< Null once freed (the entry is reused by a new block).
    std::uint32_t live = 0;               ///< Slots handed out and not released.
    std::uint32_t fresh = 0;              ///< Slots [0, fresh) have been handed out at least once.
    std::vector<std::uint16_t> released;  ///< Slots given back, to hand out again.
    [[nodiscard]] bool has_slot() const noexcept {
      return memory != nullptr && (!released.empty() || fresh < kProxiesPerBlock);
    }
  };
  static_assert(kProxiesPerBlock <= 65536, "slot indices are 16-bit");

  [[nodiscard]] std::size_t add_block();
  void free_block(std::size_t index);
  [[nodiscard]] std::size_t block_of(const void* slot) const;

  std::vector<Block> blocks_;
  /// (address, block index) of every block, ascending by address: release() finds a slot's block.
  std::vector<std::pair<std::uintptr_t, std::size_t>> by_address_;
  std::size_t open_ = 0;         ///< No block below this one has a slot to give.
  std::size_t empty_blocks_ = 0;  ///< Blocks with memory and no live proxy.
};

}  // namespace agrid::bullet_detail
