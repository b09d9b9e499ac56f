#include "proxy_table.h"

#include <algorithm>

#include "common/slack_growth.h"

namespace agrid::bullet_detail {

void ProxyTable::destroy(btAdaptiveGridProxy& proxy) {
  AGRID_ASSERT(proxy.m_handle < by_handle_.size() && by_handle_[proxy.m_handle] == &proxy);
  by_handle_[proxy.m_handle] = nullptr;
  --live_;
  proxy.m_handle = btAdaptiveGridProxy::kDestroyed;
  destroyed_.push_back(&proxy);
}

void ProxyTable::release_destroyed(std::size_t world) {
  for (btAdaptiveGridProxy* proxy : destroyed_) pool_.release(proxy);
  destroyed_.clear();
  while (!by_handle_.empty() && by_handle_.back() == nullptr) by_handle_.pop_back();
  agrid::detail::shrink_if_far_below(by_handle_, by_handle_.size());
  // Lists of a step: sized by the world, not by one step's peak (slack_growth.h).
  agrid::detail::shrink_if_far_below(destroyed_, world);
}

std::size_t ProxyTable::bytes_held() const noexcept {
  return pool_.bytes_held() +
         (by_handle_.capacity() + destroyed_.capacity()) * sizeof(btAdaptiveGridProxy*);
}

const char* ProxyTable::problem() const {
  std::uint32_t live = 0;
  for (std::size_t h = 0; h < by_handle_.size(); ++h) {
    const btAdaptiveGridProxy* proxy = by_handle_[h];
    if (proxy == nullptr) continue;
    if (proxy->m_handle != h) return "ProxyTable: a proxy is not at its handle";
    ++live;
  }
  if (live != live_) return "ProxyTable: the live proxies are miscounted";
  for (const btAdaptiveGridProxy* proxy : destroyed_) {
    if (proxy->m_handle != btAdaptiveGridProxy::kDestroyed) return "ProxyTable: a destroyed proxy is not marked";
  }
  return pool_.problem();
}

}  // namespace agrid::bullet_detail
