#pragma once
// ProxyPool: btAdaptiveGridProxy storage in contiguous blocks, so that Bullet's per-step setAabb
// over every proxy streams through memory instead of chasing allocations spread over the heap.

#include <LinearMath/btAlignedAllocator.h>

#include <cstddef>
#include <vector>

#include "adaptive_grid_proxy.h"

namespace agrid::bullet_detail {

/// Fixed-address, 16-byte aligned slots for proxies, in blocks of kProxiesPerBlock; a released
/// slot is reused first (as btAlignedAlloc would reuse the address).
class ProxyPool {
 public:
  ProxyPool() = default;
  ProxyPool(const ProxyPool&) = delete;
  ProxyPool& operator=(const ProxyPool&) = delete;
  ~ProxyPool() {
    for (void* block : blocks_) btAlignedFree(block);
  }

  /// Uninitialised memory for one proxy.
  void* allocate() {
    if (free_.empty()) add_block();
    void* slot = free_.back();
    free_.pop_back();
    return slot;
  }

  /// Gives back a slot whose proxy has been destroyed.
  void release(void* slot) { free_.push_back(slot); }

  /// Heap memory held: the blocks and the lists of them and of free slots.
  [[nodiscard]] std::size_t bytes_held() const noexcept {
    return blocks_.size() * kSlotBytes * kProxiesPerBlock + (blocks_.capacity() + free_.capacity()) * sizeof(void*);
  }

 private:
  /// Proxies per block: 4,096 of about 80 bytes, a few hundred KiB.
  static constexpr std::size_t kProxiesPerBlock = 4096;
  static constexpr std::size_t kSlotBytes = (sizeof(btAdaptiveGridProxy) + 15) / 16 * 16;

  void add_block() {
    auto* block = static_cast<unsigned char*>(btAlignedAlloc(static_cast<int>(kSlotBytes * kProxiesPerBlock), 16));
    blocks_.push_back(block);
    // Lowest address last, so that slots are handed out in ascending order.
    for (std::size_t i = kProxiesPerBlock; i-- > 0;) free_.push_back(block + i * kSlotBytes);
  }

  std::vector<void*> blocks_;
  std::vector<void*> free_;
};

}  // namespace agrid::bullet_detail
