// bt-dbvt, bt-axis-sweep and their -frame2 twins: Bullet's btDbvtBroadphase and
// bt32BitAxisSweep3 (the float Bullet agrid's adapter links) used as all-pairs engines. A first
// frame makes a new broadphase with its pair cache, creates a proxy per valid box (its index in
// the proxy's client object), runs calculateOverlappingPairs once and reads the cache. A second
// frame gives every proxy the same box again (setAabb) and runs calculateOverlappingPairs: the
// -frame2 peers build their first frame in prepare() and time the second, which is what a
// Bullet world pays each step for bodies that have not moved.
//
// The sweep quantizes each coordinate over fixed world bounds to an integer below 2^31, even for
// a min and odd for a max (so that boxes that overlap still do), and clamps what lies outside: it
// finds every pair and, at times, a few whose boxes are apart, so it is conservative. Its insertion moves each new edge down a sorted array, O(n) a
// box, so its first frame is quadratic: estimated_seconds() says so and large scenes are skipped.

#include <BulletCollision/BroadphaseCollision/btAxisSweep3.h>
#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "peers_impl.h"

namespace agrid::peers {
namespace {

/// Every proxy meets every other: Bullet pairs two proxies only if each one's group is in the
/// other's mask.
constexpr int kFilterGroup = btBroadphaseProxy::DefaultFilter;
constexpr int kFilterMask = btBroadphaseProxy::AllFilter;

/// Coordinates past this magnitude (and infinite ones) are left out of the sweep's world bounds
/// and clamped to them by the sweep: bounds stretched to the 1e30 or FLT_MAX of the adversarial
/// scenes would put a whole scene of unit boxes into one quantization step (every pair a pair).
/// Floats at 1e6 are already 1/16 apart; physics scenes live well inside.
constexpr float kWorldLimit = 1e6f;
/// Smallest world extent per axis, relative to its coordinates' magnitude (at least 1): the sweep
/// divides 2^31 by the extent, and a flat or empty scene would divide by zero.
constexpr float kMinWorldExtent = 1e-3f;
/// Seconds per squared box of the sweep's first frame (its insertion), measured on the project's
/// machine (CPU time; wall time ran up to twice as long with the machine shared): 1.5 s for
/// box-pruning-10k, 6.2 s for article-20k-sparse, 31 s for article-40k-slab.
constexpr double kSweepSecondsPerBoxSquared = 2.0e-8;

/// Seconds per box of btDbvtBroadphase's first frame, the most measured on the benchmark scenes
/// on the project's machine (CPU time): 11.8 s for plane-cluster-562k (13.5 s for paper-1M-dense).
constexpr double kDbvtSecondsPerBox = 2.5e-5;

/// Which Bullet broadphase: btDbvtBroadphase or bt32BitAxisSweep3.
enum class Kind { dbvt, axis_sweep };

/// A point as Bullet's (float) vector.
btVector3 to_bt(const Vec3& v) { return {v.x, v.y, v.z}; }

/// A box index carried in a proxy's client object, so that pairs map back to boxes.
void* as_client(std::uint32_t index) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(index)); }

/// The index of the box a proxy stands for.
std::uint32_t index_of(const btBroadphaseProxy* proxy) {
  return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(proxy->m_clientObject));
}

/// The sweep's world bounds on one axis: the extent of the valid boxes' coordinates within
/// kWorldLimit, widened to kMinWorldExtent when flat.
void world_axis(std::span<const Box> boxes, int axis, float& lo, float& hi) {
  lo = kWorldLimit;
  hi = -kWorldLimit;
  for (const Box& b : boxes) {
    if (!is_valid(b)) continue;
    for (const float c : {b.min[axis], b.max[axis]}) {
      if (std::abs(c) > kWorldLimit) continue;  // false for NaN too, but valid boxes have none
      lo = std::min(lo, c);
      hi = std::max(hi, c);
    }
  }
  if (lo > hi) lo = hi = 0.0f;  // no coordinate within the limit
  const float least = kMinWorldExtent * std::max({1.0f, std::abs(lo), std::abs(hi)});
  if (!(hi - lo >= least)) hi = lo + least;
}

/// A bt32BitAxisSweep3 over world_axis()'s bounds, with a handle per valid box.
std::unique_ptr<btBroadphaseInterface> make_axis_sweep(std::span<const Box> boxes, std::size_t valid) {
  float lo[3];
  float hi[3];
  for (int a = 0; a < 3; ++a) world_axis(boxes, a, lo[a], hi[a]);
  // The ray accelerator is a second btDbvtBroadphase fed every proxy: off, it is not broadphase.
  constexpr bool kNoRayAccelerator = true;
  return std::make_unique<bt32BitAxisSweep3>(btVector3(lo[0], lo[1], lo[2]), btVector3(hi[0], hi[1], hi[2]),
                                             static_cast<unsigned int>(valid), nullptr, kNoRayAccelerator);
}

/// One Bullet broadphase with a proxy per valid box of one set of boxes.
class World {
 public:
  World(Kind kind, std::span<const Box> boxes) : kind_(kind) {
    const auto valid = static_cast<std::size_t>(std::count_if(boxes.begin(), boxes.end(), is_valid));
    if (kind == Kind::dbvt) {
      broadphase_ = std::make_unique<btDbvtBroadphase>();
    } else {
      broadphase_ = make_axis_sweep(boxes, valid);
    }
    proxies_.reserve(valid);
    for (std::uint32_t i = 0; i < boxes.size(); ++i) {
      if (!is_valid(boxes[i])) continue;
      proxies_.push_back(broadphase_->createProxy(to_bt(boxes[i].min), to_bt(boxes[i].max), BOX_SHAPE_PROXYTYPE,
                                                  as_client(i), kFilterGroup, kFilterMask, nullptr));
    }
  }

  World(const World&) = delete;
  World& operator=(const World&) = delete;

  ~World() {
    broadphase_.reset();
    // btDbvtBroadphase leaves its proxies to the caller, and destroyProxy would scan the whole
    // pair cache for each one (quadratic): they are freed as destroyProxy frees them, once the
    // broadphase is gone. The sweep's proxies live in an array of its own.
    if (kind_ == Kind::dbvt) {
      for (btBroadphaseProxy* proxy : proxies_) btAlignedFree(proxy);
    }
  }

  /// Gives every proxy its box again (a step in which nothing moved).
  void update(std::span<const Box> boxes) {
    for (btBroadphaseProxy* proxy : proxies_) {
      const Box& b = boxes[index_of(proxy)];
      broadphase_->setAabb(proxy, to_bt(b.min), to_bt(b.max), nullptr);
    }
  }

  /// One calculateOverlappingPairs, then the cache's pairs as sorted (i, j), i < j.
  void collide(std::vector<Pair>& out) {
    broadphase_->calculateOverlappingPairs(nullptr);
    const btBroadphasePairArray& pairs = broadphase_->getOverlappingPairCache()->getOverlappingPairArray();
    out.clear();
    out.reserve(static_cast<std::size_t>(pairs.size()));
    for (int k = 0; k < pairs.size(); ++k) {
      const std::uint32_t a = index_of(pairs[k].m_pProxy0);
      const std::uint32_t b = index_of(pairs[k].m_pProxy1);
      out.push_back({std::min(a, b), std::max(a, b)});
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }

 private:
  Kind kind_;
  std::unique_ptr<btBroadphaseInterface> broadphase_;
  std::vector<btBroadphaseProxy*> proxies_;
};

/// True iff both spans hold the same boxes, bit for bit (so NaN boxes compare equal).
bool same_boxes(std::span<const Box> a, std::span<const Box> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size_bytes()) == 0);
}

/// One of the four Bullet peers: a broadphase kind, timed on its first or its second frame.
class BulletPeer final : public Peer {
 public:
  BulletPeer(Kind kind, bool second_frame) : kind_(kind), second_frame_(second_frame) {}

  [[nodiscard]] std::string_view name() const override {
    if (kind_ == Kind::dbvt) return second_frame_ ? "bt-dbvt-frame2" : "bt-dbvt";
    return second_frame_ ? "bt-axis-sweep-frame2" : "bt-axis-sweep";
  }

  [[nodiscard]] bool conservative() const override { return kind_ == Kind::axis_sweep; }

  /// The first frame's (the sweep's is quadratic); a -frame2 peer pays it in prepare(), untimed
  /// but run all the same.
  [[nodiscard]] double estimated_seconds(std::span<const Box> boxes) const override {
    const auto n = static_cast<double>(boxes.size());
    return kind_ == Kind::dbvt ? kDbvtSecondsPerBox * n : kSweepSecondsPerBoxSquared * n * n;
  }

  void prepare(std::span<const Box> boxes) override {
    if (second_frame_) build(boxes);
  }

  void find_pairs(std::span<const Box> boxes, std::vector<Pair>& out) override {
    if (!second_frame_) {
      World(kind_, boxes).collide(out);  // the world is freed in the timed call, as it must be
      return;
    }
    if (!world_ || !same_boxes(boxes, built_for_)) build(boxes);
    world_->update(boxes);
    world_->collide(out);
  }

 private:
  /// A new world on these boxes, through its first frame.
  void build(std::span<const Box> boxes) {
    world_.reset();
    world_ = std::make_unique<World>(kind_, boxes);
    std::vector<Pair> first;
    world_->collide(first);
    built_for_.assign(boxes.begin(), boxes.end());
  }

  Kind kind_;
  bool second_frame_;
  std::unique_ptr<World> world_;  ///< The -frame2 peer's world, built for built_for_.
  std::vector<Box> built_for_;
};

}  // namespace

std::unique_ptr<Peer> make_bt_dbvt() { return std::make_unique<BulletPeer>(Kind::dbvt, false); }
std::unique_ptr<Peer> make_bt_dbvt_frame2() { return std::make_unique<BulletPeer>(Kind::dbvt, true); }
std::unique_ptr<Peer> make_bt_axis_sweep() { return std::make_unique<BulletPeer>(Kind::axis_sweep, false); }
std::unique_ptr<Peer> make_bt_axis_sweep_frame2() { return std::make_unique<BulletPeer>(Kind::axis_sweep, true); }

}  // namespace agrid::peers
