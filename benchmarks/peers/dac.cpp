// dac: the divide-and-conquer broadphase of the GameDev.net article, which keeps no structure
// between calls. Split the boxes at the median centre along the axis where the centres vary
// most; the boxes that straddle the split plane meet each other, and the boxes of either side
// that reach the plane, in sweeps along a second axis; then each side recurses on its own (no
// box of one side can meet one of the other) until few enough boxes are left to sweep them or
// to test every pair. The median is that of a sample of centres (the exact one when the sample's
// would leave most boxes on one side), and each split writes the boxes into a second buffer
// without branches on the data: with the sweeps' branch-free tests and the radix sort of the
// pairs, these took article-20k-sparse from 5.5 to 1.6 ms and uniform-1M from 427 to 150 ms.

#include <algorithm>
#include <span>
#include <vector>

#include "peers_impl.h"
#include "sweep.h"

namespace agrid::peers {
namespace {

using sweep::Entry;

/// At most this many boxes are tested pair by pair rather than split again: below it a split's
/// passes cost more than the pairs they save. Measured on the benchmark scenes (2-core EPYC):
/// 8 to 32 differ by under 10%, 32 fastest on most.
constexpr std::size_t kBruteForceMax = 32;
/// At most this many boxes are sorted and swept rather than split again: 16 to 1,024 differ by
/// under 10% on the benchmark scenes, 128 fastest on most.
constexpr std::size_t kSweepMax = 128;
/// A sampled median that leaves more than this share of the boxes on one side is replaced by the
/// exact one (never seen on the benchmark scenes; it bounds the recursion's depth).
constexpr double kMaxSideShare = 0.875;

/// The centre of e on `axis`, kept within [lo, hi] (a [-inf, inf] box has no centre, and halving a
/// subnormal rounds): the box whose centre is the plane must straddle it, or a split could go
/// nowhere.
float centre(const Entry& e, int axis) {
  const float c = 0.5f * e.lo[axis] + 0.5f * e.hi[axis];
  if (!(c >= e.lo[axis])) return e.lo[axis];
  return c <= e.hi[axis] ? c : e.hi[axis];
}

/// The peer; its buffers are kept between calls, the boxes' order is not.
class Dac final : public Peer {
 public:
  [[nodiscard]] std::string_view name() const override { return "dac"; }

  void find_pairs(std::span<const Box> boxes, std::vector<Pair>& out) override {
    sweep::valid_entries(boxes, entries_);
    spare_.resize(entries_.size());
    keys_.reset(boxes.size());
    solve(entries_, spare_);
    keys_.sorted_pairs(out);
  }

 private:
  /// Every pair within `e`; `spare` is as long, and both are overwritten (each split writes the
  /// run into the other buffer, so that no pass moves a box twice).
  void solve(std::span<Entry> e, std::span<Entry> spare) {
    if (e.size() <= kBruteForceMax) {
      brute_force(e);
      return;
    }
    const std::array<int, 3> axes = sweep::axes_by_variance(e, sweep::kAxisSamples);
    if (e.size() <= kSweepMax) {
      sweep_all(e, axes[0]);
      return;
    }
    const sweep::Split parts = split_at_median(e, spare, axes[0]);
    across_plane(parts, axes);
    // Each side now lies in `spare`; its place in `e` is free to be its spare.
    const auto place_in_e = [&](std::span<Entry> side) {
      return e.subspan(static_cast<std::size_t>(side.data() - spare.data()), side.size());
    };
    solve(parts.below, place_in_e(parts.below));
    solve(parts.above, place_in_e(parts.above));
  }

  /// Writes `e` into `spare` split at the median centre on `axis`: that of a sample, or of all
  /// the boxes when the sample's leaves a side with most of them (as an adversarial order could).
  /// The box whose centre is the plane straddles it, so both sides are smaller than e; with the
  /// exact median each side has at most half the boxes, so the recursion is at most log2 n deep.
  sweep::Split split_at_median(std::span<const Entry> e, std::span<Entry> spare, int axis) {
    const auto centre_on_axis = [axis](const Entry& x) { return centre(x, axis); };
    const float sampled = sweep::median(e, centre_on_axis, centres_, sweep::kMedianSamples);
    const sweep::Split parts = sweep::split_by_plane(e, spare, axis, sampled, straddling_);
    const auto largest_side = static_cast<double>(std::max(parts.below.size(), parts.above.size()));
    if (largest_side <= kMaxSideShare * static_cast<double>(e.size())) return parts;
    const float exact = sweep::median(e, centre_on_axis, centres_);
    return sweep::split_by_plane(e, spare, axis, exact, straddling_);
  }

  /// The pairs of the straddling boxes with each other and with the boxes of either side, swept
  /// along axes[1]; the straddling boxes all contain the plane on axes[0].
  void across_plane(const sweep::Split& parts, const std::array<int, 3>& axes) {
    const int split = axes[0];
    const int along = axes[1];
    const int third = axes[2];
    const std::span<Entry> straddling = parts.straddling;
    sweep::sort_by_min(straddling, along);
    sweep::sweep_one(straddling, along, [third](const Entry& a, const Entry& b) { return sweep::meet(a, b, third); },
                     keys_);
    float reach_lo = straddling.front().lo[split];
    float reach_hi = straddling.front().hi[split];
    for (const Entry& s : straddling) {
      reach_lo = std::min(reach_lo, s.lo[split]);
      reach_hi = std::max(reach_hi, s.hi[split]);
    }
    // Only the side's boxes that reach into the straddling boxes' span can meet one.
    near_.clear();
    for (const Entry& x : parts.below) {
      if (x.hi[split] >= reach_lo) near_.push_back(x);
    }
    against_near(straddling, along);
    near_.clear();
    for (const Entry& x : parts.above) {
      if (x.lo[split] <= reach_hi) near_.push_back(x);
    }
    against_near(straddling, along);
  }

  /// The pairs of the straddling boxes (sorted along `along`) with near_, which it sorts so too.
  void against_near(std::span<const Entry> straddling, int along) {
    sweep::sort_by_min(near_, along);
    sweep::sweep_two(straddling, near_, along,
                     [along](const Entry& a, const Entry& b) { return sweep::meet_off(a, b, along); }, keys_);
  }

  /// Every pair within `e`, sorted and swept along `axis`.
  void sweep_all(std::span<Entry> e, int axis) {
    sweep::sort_by_min(e, axis);
    sweep::sweep_one(e, axis, [axis](const Entry& a, const Entry& b) { return sweep::meet_off(a, b, axis); }, keys_);
  }

  /// Every pair within a few boxes, each tested on all axes.
  void brute_force(std::span<const Entry> e) {
    for (std::size_t k = 0; k < e.size(); ++k) {
      for (std::size_t l = k + 1; l < e.size(); ++l) {
        if (sweep::meet_all(e[k], e[l])) keys_.add(e[k], e[l]);
      }
    }
  }

  std::vector<Entry> entries_;      // the valid boxes, rewritten by the recursion ...
  std::vector<Entry> spare_;        // ... and its second buffer
  std::vector<Entry> straddling_;   // a split's straddling boxes, until placed
  std::vector<Entry> near_;         // one side's boxes near the plane, sorted for the sweep
  std::vector<float> centres_;      // the sampled centres whose median is the plane
  sweep::PairKeys keys_;            // the pairs found
};

}  // namespace

std::unique_ptr<Peer> make_dac() { return std::make_unique<Dac>(); }

}  // namespace agrid::peers
