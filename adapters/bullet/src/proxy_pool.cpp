#include "proxy_pool.h"

#include <LinearMath/btAlignedAllocator.h>

#include <algorithm>
#include <iterator>
#include <new>

#include "common/agrid_assert.h"

namespace agrid::bullet_detail {

namespace {
/// Bullet's proxies are 16-byte aligned (btAlignedAlloc's contract for them).
constexpr int kProxyAlignment = 16;
}  // namespace

ProxyPool::~ProxyPool() {
  for (const Block& block : blocks_) {
    if (block.memory != nullptr) btAlignedFree(block.memory);
  }
}

void* ProxyPool::allocate() {
  while (open_ < blocks_.size() && !blocks_[open_].has_slot()) ++open_;
  const std::size_t b = open_ < blocks_.size() ? open_ : add_block();
  Block& block = blocks_[b];
  std::size_t slot = 0;
  if (!block.released.empty()) {
    slot = block.released.back();
    block.released.pop_back();
  } else {
    slot = block.fresh++;
  }
  if (block.live++ == 0) --empty_blocks_;
  AGRID_ASSERT(slot < kProxiesPerBlock);
  return block.memory + slot * kSlotBytes;
}

void ProxyPool::release(void* slot) {
  AGRID_ASSERT(slot != nullptr && !by_address_.empty());
  const std::size_t b = block_of(slot);
  Block& block = blocks_[b];
  const auto offset = static_cast<std::size_t>(static_cast<unsigned char*>(slot) - block.memory);
  // A slot of this block, at a slot's start, handed out and not given back since.
  AGRID_ASSERT(offset < kSlotBytes * kProxiesPerBlock && offset % kSlotBytes == 0 && block.live > 0);
  block.released.push_back(static_cast<std::uint16_t>(offset / kSlotBytes));
  open_ = std::min(open_, b);
  if (--block.live > 0) return;
  ++empty_blocks_;
  if (empty_blocks_ > 1) free_block(b);
}

std::size_t ProxyPool::add_block() {
  auto* memory = static_cast<unsigned char*>(btAlignedAlloc(static_cast<int>(kSlotBytes * kProxiesPerBlock), kProxyAlignment));
  if (memory == nullptr) throw std::bad_alloc();
  // A freed block's entry is reused first, so that blocks_ does not grow with churn.
  auto hole = std::find_if(blocks_.begin(), blocks_.end(), [](const Block& b) { return b.memory == nullptr; });
  std::size_t index = static_cast<std::size_t>(hole - blocks_.begin());
  try {
    by_address_.reserve(by_address_.size() + 1);
    if (hole == blocks_.end()) blocks_.emplace_back();
  } catch (...) {
    btAlignedFree(memory);
    throw;
  }
  blocks_[index].memory = memory;
  ++empty_blocks_;
  const std::pair<std::uintptr_t, std::size_t> entry(reinterpret_cast<std::uintptr_t>(memory), index);
  by_address_.insert(std::upper_bound(by_address_.begin(), by_address_.end(), entry), entry);
  return index;
}

void ProxyPool::free_block(std::size_t index) {
  Block& block = blocks_[index];
  const auto at = std::lower_bound(by_address_.begin(), by_address_.end(),
                                   std::pair<std::uintptr_t, std::size_t>(reinterpret_cast<std::uintptr_t>(block.memory), 0));
  by_address_.erase(at);
  btAlignedFree(block.memory);
  block = Block{};
  --empty_blocks_;
  // Trailing freed entries go, so that a world that shrank does not keep a long list.
  while (!blocks_.empty() && blocks_.back().memory == nullptr) blocks_.pop_back();
}

std::size_t ProxyPool::block_of(const void* slot) const {
  const auto address = reinterpret_cast<std::uintptr_t>(slot);
  // The last block starting at or below the slot.
  const auto it = std::upper_bound(by_address_.begin(), by_address_.end(), address,
                                   [](std::uintptr_t a, const auto& entry) { return a < entry.first; });
  AGRID_ASSERT(it != by_address_.begin());  // the slot lies in some block
  return std::prev(it)->second;
}

std::size_t ProxyPool::bytes_held() const noexcept {
  std::size_t bytes = blocks_.capacity() * sizeof(Block) + by_address_.capacity() * sizeof(by_address_[0]);
  for (const Block& block : blocks_) {
    if (block.memory != nullptr) bytes += kSlotBytes * kProxiesPerBlock;
    bytes += block.released.capacity() * sizeof(std::uint16_t);
  }
  return bytes;
}

const char* ProxyPool::problem() const {
  std::size_t empty = 0;
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    const Block& block = blocks_[b];
    if (block.memory == nullptr) {
      if (block.live != 0 || !block.released.empty()) return "ProxyPool: a freed block holds slots";
      continue;
    }
    if (block.live + block.released.size() != block.fresh) return "ProxyPool: a block's slots do not add up";
    if (block.live == 0) ++empty;
    if (b < open_ && block.has_slot()) return "ProxyPool: a block below the open one has a slot";
  }
  if (empty != empty_blocks_) return "ProxyPool: the empty blocks are miscounted";
  if (empty_blocks_ > 1) return "ProxyPool: more than one empty block is kept";
  return nullptr;
}

}  // namespace agrid::bullet_detail
