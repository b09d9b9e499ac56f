#include "pair_boxes.h"

namespace agrid::bullet_detail {

const char* PairBoxes::problem(const agrid::Broadphase& broadphase, const ProxyTable& table) const {
  for (const btAdaptiveGridProxy* proxy : table.by_handle()) {
    if (proxy == nullptr) continue;
    const agrid::Box aabb = toBox(proxy->m_aabbMin, proxy->m_aabbMax);
    const agrid::Box held = broadphase.box(proxy->m_handle);
    // An invalid AABB is held as it is in either mode: it pairs with nothing.
    const bool holds = fat() && agrid::is_valid(aabb) ? agrid::detail::within(aabb, held) : agrid::detail::same_box(aabb, held);
    if (!holds) return fat() ? "PairBoxes: agrid's fat box does not hold the AABB" : "PairBoxes: agrid does not hold the AABB";
  }
  return nullptr;
}

}  // namespace agrid::bullet_detail
