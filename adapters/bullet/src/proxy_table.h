#pragma once
// ProxyTable: the adapter's proxies. Their memory (ProxyPool), the table from agrid handle to
// proxy, Bullet's unique ids, and the proxies destroyed since the last step.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <span>
#include <stdexcept>
#include <vector>

#include "adaptive_grid_proxy.h"
#include "agrid/broadphase.h"
#include "common/agrid_assert.h"
#include "proxy_pool.h"

namespace agrid::bullet_detail {

/// Every live proxy, by its agrid handle. Invariant (problem()): the proxy at index h has
/// m_handle == h and is live; `live()` counts them; the table ends with a proxy after a step
/// (release_destroyed trims its empty tail); a proxy destroyed since the last step is marked
/// kDestroyed and out of the table, its slot still held so that a second destroy is refused;
/// the pool's own invariant.
class ProxyTable {
 public:
  ProxyTable() = default;
  ProxyTable(const ProxyTable&) = delete;
  ProxyTable& operator=(const ProxyTable&) = delete;

  /// True iff `proxy` is one of this table's live proxies as far as its memory tells: not null
  /// and not destroyed (a destroyed proxy's slot keeps kDestroyed until the next step).
  [[nodiscard]] static bool is_live(const btBroadphaseProxy* proxy) noexcept {
    return proxy != nullptr && static_cast<const btAdaptiveGridProxy*>(proxy)->m_handle != btAdaptiveGridProxy::kDestroyed;
  }

  /// A new proxy with the next unique id (from 1, never reused, as btDbvtBroadphase), its handle
  /// `make_handle(proxy)` (agrid's create). If anything throws, nothing is kept:
  /// `forget_handle(handle)` undoes a handle made.
  template <class MakeHandle, class ForgetHandle>
  btAdaptiveGridProxy& create(const btVector3& aabbMin, const btVector3& aabbMax, void* userPtr, int group, int mask,
                              MakeHandle&& make_handle, ForgetHandle&& forget_handle);

  /// Takes the live `proxy` out of the table, marked kDestroyed; its slot is given back at
  /// release_destroyed().
  void destroy(btAdaptiveGridProxy& proxy);

  /// The proxy of handle `h`, or null: destroyed (agrid reports a destroyed object's pairs ended
  /// at its next update) or beyond the table.
  [[nodiscard]] btAdaptiveGridProxy* find(agrid::Handle h) const noexcept {
    return h < by_handle_.size() ? by_handle_[h] : nullptr;
  }
  /// The proxy of a handle that is live.
  [[nodiscard]] btAdaptiveGridProxy& at(agrid::Handle h) const noexcept {
    AGRID_ASSERT(h < by_handle_.size() && by_handle_[h] != nullptr);
    return *by_handle_[h];
  }
  /// The table by handle: null where no proxy lives.
  [[nodiscard]] std::span<btAdaptiveGridProxy* const> by_handle() const noexcept { return by_handle_; }
  /// How many proxies live.
  [[nodiscard]] std::uint32_t live() const noexcept { return live_; }

  /// A step ends: the destroyed proxies' slots go back to the pool, the table's empty tail is
  /// trimmed (agrid reuses the lowest free handles first, so a shrinking world empties it), and
  /// lists give memory back by agrid's rule, sized by `world` (objects and pairs).
  void release_destroyed(std::size_t world);

  /// Heap bytes held: the pool and the lists.
  [[nodiscard]] std::size_t bytes_held() const noexcept;

  /// Empty if the invariant holds, else what is wrong. O(proxies).
  [[nodiscard]] const char* problem() const;

 private:
  ProxyPool pool_;
  std::vector<btAdaptiveGridProxy*> by_handle_;  ///< Null once destroyed.
  /// Destroyed since the last step: their slots go back to the pool then, so that a proxy
  /// destroyed twice in a step is refused (its memory still says kDestroyed).
  std::vector<btAdaptiveGridProxy*> destroyed_;
  int next_unique_id_ = 1;
  std::uint32_t live_ = 0;
};

template <class MakeHandle, class ForgetHandle>
btAdaptiveGridProxy& ProxyTable::create(const btVector3& aabbMin, const btVector3& aabbMax, void* userPtr, int group,
                                        int mask, MakeHandle&& make_handle, ForgetHandle&& forget_handle) {
  if (next_unique_id_ == std::numeric_limits<int>::max()) {
    throw std::length_error("btAdaptiveGridBroadphase::createProxy: unique ids exhausted");
  }
  void* memory = pool_.allocate();
  auto* proxy = new (memory) btAdaptiveGridProxy(aabbMin, aabbMax, userPtr, group, mask);
  proxy->m_uniqueId = next_unique_id_;
  bool made = false;
  try {
    proxy->m_handle = make_handle(*proxy);
    made = true;
    if (by_handle_.size() <= proxy->m_handle) by_handle_.resize(proxy->m_handle + std::size_t{1}, nullptr);
  } catch (...) {
    if (made) forget_handle(proxy->m_handle);  // no object without its proxy
    pool_.release(proxy);
    throw;
  }
  AGRID_ASSERT(by_handle_[proxy->m_handle] == nullptr);  // agrid hands out free handles only
  by_handle_[proxy->m_handle] = proxy;
  ++next_unique_id_;
  ++live_;
  return *proxy;
}

}  // namespace agrid::bullet_detail
