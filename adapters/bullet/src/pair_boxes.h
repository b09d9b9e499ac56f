#pragma once
// PairBoxes: which box of each proxy agrid is given, and so which pairs the cache holds. The
// whole rule, in one place:
//
// * Exact pairs (the default, a margin of 0): agrid holds each proxy's stored AABB, so the cache
//   holds exactly the pairs whose AABBs overlap. A body trembling in a settling stack changes its
//   AABB every step: its candidates are re-tested, and its pairs begin and end as its AABB
//   touches and leaves a neighbour's, each a collision algorithm Bullet frees and makes again.
// * Fat pairs (setFatPairMargin(m), m > 0), btDbvtBroadphase's behaviour: agrid holds a fat box
//   around each AABB, the AABB grown by m on every side, and is given a new one only when the
//   AABB leaves it. The cache holds the pairs whose fat boxes overlap: a pair begins when they
//   meet and ends when they part. A body trembling inside its fat box costs setAabb a
//   containment test and the step nothing; the narrowphase is given pairs whose AABBs need not
//   touch, as with dbvt (whose margin is 0.05).
//
// Either way rayTest and aabbTest are exact on the stored AABBs: the adapter tests each hit's
// AABB before handing it on (a fat box's extra hits stop there).

#include <limits>

#include "adaptive_grid_proxy.h"
#include "agrid/broadphase.h"
#include "common/agrid_assert.h"
#include "common/box_ops.h"
#include "proxy_table.h"
#include "scalar_conversion.h"

namespace agrid::bullet_detail {

/// The boxes agrid holds for the proxies. Invariant (problem()): for each live proxy, agrid
/// holds its AABB (exact pairs, or an invalid AABB) or a box within which the AABB lies (fat
/// pairs).
class PairBoxes {
 public:
  /// setFatPairMargin: 0 for exact pairs, else the growth of the fat boxes (finite). Takes effect
  /// for the boxes given from now on: the adapter gives every live proxy's box again.
  void set_margin(float margin) noexcept {
    AGRID_ASSERT(margin >= 0.0f && margin <= std::numeric_limits<float>::max());
    margin_ = margin;
  }
  [[nodiscard]] float margin() const noexcept { return margin_; }
  /// True iff agrid holds fat boxes.
  [[nodiscard]] bool fat() const noexcept { return margin_ > 0.0f; }

  /// The box agrid is given for a proxy whose AABB is `aabb`.
  [[nodiscard]] agrid::Box to_give(const agrid::Box& aabb) const noexcept {
    return fat() ? agrid::detail::grown(aabb, margin_) : aabb;
  }

  /// True iff agrid, holding `held` for a proxy, keeps it for the new AABB `aabb`: with fat pairs,
  /// while the AABB stays inside.
  [[nodiscard]] bool keeps(const agrid::Box& held, const agrid::Box& aabb) const noexcept {
    return fat() && agrid::detail::within(aabb, held);
  }

  /// Empty if the invariant holds, else what is wrong. O(proxies).
  [[nodiscard]] const char* problem(const agrid::Broadphase& broadphase, const ProxyTable& table) const;

 private:
  float margin_ = 0.0f;
};

}  // namespace agrid::bullet_detail
