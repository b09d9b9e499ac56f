// parallel-bisap: the parallel bi-dimensional sweep and prune of Capannini & Larsson ("Adaptive
// Collision Culling for Large-Scale Simulations by a Parallel Sweep and Prune Algorithm", EGPGV
// 2016) on oneTBB, after the paper's outline: the boxes sorted on two axes, candidates generated
// along one and pruned on the other by a succinct bit structure (the SuccTree, succ_tree.h), in
// three parallel stages (sorting, candidate generation and pairing), the work divided
// adaptively.
//
// Sorting: every call radix-sorts the valid boxes whole on two axes (the paper re-sorts the last
// frame's order; this benchmark gives each call its boxes afresh, and nothing is kept between
// calls): u, whose windows give the candidates, and v, which is swept, chosen per call as the
// two axes along which a box meets the fewest others; the third, w, is only tested. Candidates
// and pairs (bisap_sweep.cpp): the v-order is cut into chunks of equal estimated work, each swept
// by one task in a universe of its own. Output: the chunks' pairs, radix-sorted.

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "bisap_radix_sort.h"
#include "bisap_sweep.h"
#include "peers_impl.h"

namespace agrid::peers {
namespace {

using bisap::Layout;
using bisap::Oriented;
using bisap::Probe;

/// Items per task of the plain parallel loops (filtering, layout, sums).
constexpr std::size_t kGrain = std::size_t{1} << 14;
/// Probes per block of the work plan: chunk bounds fall on block bounds.
constexpr std::uint32_t kPlanBlock = 256;
/// Probes per chunk aimed at: a chunk's universe (these and the boxes open beside them) then
/// fits in the second-level cache, and a chunk's set-up (a pass over one bit per box) is small
/// beside its sweep. On one thread, uniform-1M took 230, 204 and 274 ms of CPU with 4096, 16384
/// and 65536.
constexpr std::uint32_t kChunkProbes = 16384;
/// At least this many chunks per thread, so that work stealing evens out what the estimate
/// misses.
constexpr std::uint32_t kChunksPerThread = 4;
/// The frontier runs ahead of a probe by at most this many mean v-windows, plus kFrontierSlack
/// positions: far enough for the usual box, not so far that one long box fills the tree. On
/// box-pruning-100k (sizes from 0 to twice the mean) 0.5, 1, 1.5, 2 and 3 took 405, 242, 139,
/// 107 and 107 ms of CPU: a direct scan costs more than the boxes listed ahead of their time.
constexpr double kFrontierReach = 2.0;
constexpr std::uint32_t kFrontierSlack = 64;  ///< Positions of reach beyond the mean windows.
/// Estimated cost of one probe apart from the boxes it lists, in boxes listed.
constexpr double kProbeCost = 8.0;
/// Positions a window's end is looked for one by one from the last one's, before galloping.
constexpr std::uint32_t kNearSteps = 8;
/// An extent below this counts as this when the axes are ranked (points would divide by zero).
constexpr double kTinyExtent = 1e-30;

/// Runs body(block, begin, end) for each block of kGrain items of [0, n), in parallel; sums and
/// counts kept per block come out the same for any thread count.
template <class Body>
void parallel_blocks(std::size_t n, const Body& body) {
  const std::size_t blocks = (n + kGrain - 1) / kGrain;
  tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) { body(b, b * kGrain, std::min(n, (b + 1) * kGrain)); });
}

/// A float's bits, mapped so that unsigned order is float order (-0 taken as +0).
std::uint32_t ordered_bits(float f) {
  const auto bits = std::bit_cast<std::uint32_t>(f + 0.0f);
  return (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
}

/// The first position in [first, last) whose sorted min is past `limit` (or `last`).
template <class Min>
std::uint32_t first_past(const Min& min, std::uint32_t first, std::uint32_t last, float limit) {
  while (first < last) {
    const std::uint32_t mid = first + (last - first) / 2;
    if (min(mid) <= limit) first = mid + 1;
    else last = mid;
  }
  return first;
}

/// The first position in [from, n) whose sorted min (min(position)) is past `limit`,
/// galloping forward from `from`, where it is not.
template <class Min>
std::uint32_t gallop_up(const Min& min, std::uint32_t n, std::uint32_t from, float limit) {
  for (std::uint32_t step = 1;; step *= 2) {
    const std::uint32_t next = std::min(n, from + step);
    if (next == n || min(next) > limit) return first_past(min, from + 1, next, limit);
    from = next;
  }
}

/// The first position in [floor, to] whose sorted min is past `limit`, galloping back from
/// `to`, where it is (or which is the end).
template <class Min>
std::uint32_t gallop_down(const Min& min, std::uint32_t floor, std::uint32_t to, float limit) {
  for (std::uint32_t step = 1;; step *= 2) {
    const std::uint32_t next = to - std::min(step, to - floor);
    if (next == floor || min(next) <= limit) return first_past(min, next, to, limit);
    to = next;
  }
}

/// The end of a window: the first of n positions at or after `from` whose sorted min is past
/// `limit`. Searched from `hint`, the previous box's answer: neighbours in a sorted order have
/// windows that end close together, most often within kNearSteps, stepped through one by one
/// (one mispredicted branch where a search costs several).
template <class Min>
std::uint32_t window_end(const Min& min, std::uint32_t n, std::uint32_t from, std::uint32_t hint, float limit) {
  hint = std::max(hint, from);
  if (hint < n && min(hint) <= limit) {
    for (std::uint32_t near = std::min(n, hint + kNearSteps); ++hint < near;) {
      if (min(hint) > limit) return hint;
    }
    return hint == n ? n : gallop_up(min, n, hint - 1, limit);
  }
  for (const std::uint32_t near = hint - std::min(hint - from, kNearSteps); hint > near; --hint) {
    if (min(hint - 1) <= limit) return hint;
  }
  return gallop_down(min, from, hint, limit);
}

/// Sums for ranking the axes: the moments of the centres and the extents of valid finite boxes.
struct Moments {
  double count = 0;
  double sum[3] = {0, 0, 0};
  double squares[3] = {0, 0, 0};
  double extent[3] = {0, 0, 0};

  void add(const Box& b) {
    double c[3];
    for (int a = 0; a < 3; ++a) c[a] = 0.5 * b.min[a] + 0.5 * b.max[a];
    if (!is_valid(b) || !std::isfinite(c[0]) || !std::isfinite(c[1]) || !std::isfinite(c[2])) return;
    for (int a = 0; a < 3; ++a) {
      sum[a] += c[a];
      squares[a] += c[a] * c[a];
      extent[a] += static_cast<double>(b.max[a]) - b.min[a];
    }
    count += 1;
  }

  void merge(const Moments& o) {
    count += o.count;
    for (int a = 0; a < 3; ++a) {
      sum[a] += o.sum[a];
      squares[a] += o.squares[a];
      extent[a] += o.extent[a];
    }
  }
};

/// The axes by role: u is the one along which a box meets the fewest others (centres spread
/// most for their extent), v the next, w the least selective, so that only pairs crossing on
/// both u and v are listed. Summed by fixed blocks: any thread count ranks them the same.
std::array<int, 3> choose_axes(std::span<const Box> boxes) {
  std::vector<Moments> parts((boxes.size() + kGrain - 1) / kGrain);
  parallel_blocks(boxes.size(), [&](std::size_t b, std::size_t begin, std::size_t end) {
    Moments part;  // summed apart: the parts of neighbouring blocks share cache lines
    for (std::size_t i = begin; i < end; ++i) part.add(boxes[i]);
    parts[b] = part;
  });
  Moments all;
  for (const Moments& p : parts) all.merge(p);
  double spread[3] = {0, 0, 0};
  for (int a = 0; a < 3 && all.count > 0; ++a) {
    const double mean = all.sum[a] / all.count;
    const double extent = std::max(all.extent[a] / all.count, kTinyExtent);
    spread[a] = (all.squares[a] / all.count - mean * mean) / (extent * extent);
  }
  std::array<int, 3> axes = {0, 1, 2};
  std::stable_sort(axes.begin(), axes.end(), [&](int a, int b) { return spread[a] > spread[b]; });
  return axes;
}

class ParallelBisap final : public Peer {
 public:
  [[nodiscard]] std::string_view name() const override { return "parallel-bisap"; }
  [[nodiscard]] bool parallel() const override { return true; }

  void find_pairs(std::span<const Box> boxes, std::vector<Pair>& out) override {
    out.clear();
    collect(boxes, choose_axes(boxes));
    if (layout_.boxes.size() < 2) return;
    layout_.id_bits = static_cast<int>(std::bit_width(boxes.size() - 1));
    bisap::radix_sort(layout_.boxes, spare_boxes_, [](const Oriented& b) { return ordered_bits(b.lo[0]); }, 0, 32);
    lay_out_u();
    // Stable on the u-order: boxes with equal mins on v keep their u-order (bisap_sweep.cpp
    // relies on it).
    bisap::radix_sort(layout_.probes, spare_probes_, [](const Probe& p) { return ordered_bits(p.min_v); }, 0, 32);
    lay_out_v();
    lay_out_reach();
    plan_chunks();
    sweep_chunks();
    gather(out);
  }

 private:
  /// layout_.boxes = the valid boxes in input order, their coordinates permuted to (u, v, w).
  void collect(std::span<const Box> boxes, std::array<int, 3> axes) {
    std::vector<std::uint32_t> counts((boxes.size() + kGrain - 1) / kGrain + 1, 0);
    parallel_blocks(boxes.size(), [&](std::size_t b, std::size_t begin, std::size_t end) {
      counts[b + 1] = static_cast<std::uint32_t>(std::count_if(boxes.begin() + begin, boxes.begin() + end, is_valid));
    });
    for (std::size_t b = 1; b < counts.size(); ++b) counts[b] += counts[b - 1];
    layout_.boxes.resize(counts.back());
    parallel_blocks(boxes.size(), [&](std::size_t b, std::size_t begin, std::size_t end) {
      std::uint32_t next = counts[b];
      for (std::size_t i = begin; i < end; ++i) {
        const Box& box = boxes[i];
        if (!is_valid(box)) continue;
        Oriented& o = layout_.boxes[next++];
        for (int r = 0; r < 3; ++r) o.lo[r] = box.min[axes[r]], o.hi[r] = box.max[axes[r]];
        o.id = static_cast<std::uint32_t>(i);
      }
    });
  }

  /// With the boxes in u-order: their u-windows, and the probes in u-order (v-windows to come).
  void lay_out_u() {
    const std::vector<Oriented>& boxes = layout_.boxes;
    const auto m = static_cast<std::uint32_t>(boxes.size());
    const auto min_u = [&](std::uint32_t p) { return boxes[p].lo[0]; };
    layout_.probes.resize(m);
    parallel_blocks(m, [&](std::size_t, std::size_t begin, std::size_t end) {
      std::uint32_t end_u = 0;
      for (auto p = static_cast<std::uint32_t>(begin); p < end; ++p) {
        const Oriented& b = boxes[p];
        end_u = window_end(min_u, m, p + 1, end_u, b.hi[0]);
        layout_.probes[p] = {p, end_u, 0, b.id, b.lo[1], b.hi[1], b.lo[2], b.hi[2]};
      }
    });
  }

  /// With the probes in v-order: their v-windows.
  void lay_out_v() {
    std::vector<Probe>& probes = layout_.probes;
    const auto m = static_cast<std::uint32_t>(probes.size());
    const auto min_v = [&](std::uint32_t q) { return probes[q].min_v; };
    parallel_blocks(m, [&](std::size_t, std::size_t begin, std::size_t end) {
      std::uint32_t end_v = 0;
      for (auto q = static_cast<std::uint32_t>(begin); q < end; ++q) {
        end_v = probes[q].end_v = window_end(min_v, m, q + 1, end_v, probes[q].max_v);
      }
    });
  }

  /// layout_.reach[b] = the largest max on v among the probes of block b.
  void lay_out_reach() {
    const std::vector<Probe>& probes = layout_.probes;
    layout_.reach.resize((probes.size() + bisap::kReachBlock - 1) / bisap::kReachBlock);
    tbb::parallel_for(std::size_t{0}, layout_.reach.size(), [&](std::size_t b) {
      const std::size_t last = std::min(probes.size(), (b + 1) * bisap::kReachBlock);
      float reach = -HUGE_VALF;
      for (std::size_t q = b * bisap::kReachBlock; q < last; ++q) reach = std::max(reach, probes[q].max_v);
      layout_.reach[b] = reach;
    });
  }

  /// The frontier's reach, and chunk bounds that split the estimated work evenly.
  void plan_chunks() {
    const auto m = static_cast<std::uint32_t>(layout_.probes.size());
    const std::size_t blocks = (m + kPlanBlock - 1) / kPlanBlock;
    std::vector<double> v_windows(blocks, 0);
    tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) { v_windows[b] = block_v_windows(b); });
    double total_v = 0;
    for (const double w : v_windows) total_v += w;
    const double mean_v = total_v / m;
    layout_.frontier_reach = static_cast<std::uint32_t>(std::min<double>(m, kFrontierReach * mean_v + kFrontierSlack));
    // The boxes open on v beside a probe: its v-window on either side.
    const double open_share = std::min(1.0, (2.0 * mean_v + 1.0) / m);
    std::vector<double> work(blocks + 1, 0);
    tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) { work[b + 1] = block_work(b, open_share); });
    for (std::size_t b = 1; b <= blocks; ++b) work[b] += work[b - 1];
    cut_chunks(work, m);
  }

  /// The sum of the v-windows' lengths in plan block b.
  double block_v_windows(std::size_t b) const {
    const std::size_t end = std::min(layout_.probes.size(), (b + 1) * kPlanBlock);
    double sum = 0;
    for (std::size_t q = b * kPlanBlock; q < end; ++q) sum += layout_.probes[q].end_v - static_cast<double>(q) - 1;
    return sum;
  }

  /// The estimated work of plan block b: per probe, the boxes it lists (its u-window's share of
  /// the boxes open on v) and a fixed cost.
  double block_work(std::size_t b, double open_share) const {
    const std::size_t end = std::min(layout_.probes.size(), (b + 1) * kPlanBlock);
    double sum = 0;
    for (std::size_t q = b * kPlanBlock; q < end; ++q) {
      const double window = layout_.probes[q].end_u - layout_.probes[q].pos_u - 1;
      sum += kProbeCost + window * open_share;
    }
    return sum;
  }

  /// bounds_ = chunk bounds on v-positions where the cumulative work crosses equal shares.
  void cut_chunks(const std::vector<double>& work, std::uint32_t m) {
    const auto threads = static_cast<std::uint32_t>(tbb::this_task_arena::max_concurrency());
    const std::uint32_t chunks = std::max({1u, m / kChunkProbes, kChunksPerThread * threads});
    bounds_.assign(1, 0);
    for (std::uint32_t c = 1; c < chunks; ++c) {
      const double share = work.back() * c / chunks;
      const auto block = static_cast<std::uint32_t>(std::lower_bound(work.begin(), work.end(), share) - work.begin());
      const std::uint32_t bound = std::min(m, block * kPlanBlock);
      if (bound > bounds_.back()) bounds_.push_back(bound);
    }
    if (bounds_.back() < m) bounds_.push_back(m);
  }

  /// Sweeps every chunk, each into its own list of pair keys.
  void sweep_chunks() {
    const std::size_t chunks = bounds_.size() - 1;
    if (chunk_pairs_.size() < chunks) chunk_pairs_.resize(chunks);
    tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t c) {
      chunk_pairs_[c].clear();
      bisap::sweep_chunk(layout_, bounds_[c], bounds_[c + 1], scratch_.local(), chunk_pairs_[c]);
    });
  }

  /// out = every chunk's pairs, sorted.
  void gather(std::vector<Pair>& out) {
    const std::size_t chunks = bounds_.size() - 1;
    std::vector<std::size_t> offsets(chunks + 1, 0);
    for (std::size_t c = 0; c < chunks; ++c) offsets[c + 1] = offsets[c] + chunk_pairs_[c].size();
    keys_.resize(offsets.back());
    tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t c) {
      std::copy(chunk_pairs_[c].begin(), chunk_pairs_[c].end(), keys_.begin() + static_cast<std::ptrdiff_t>(offsets[c]));
    });
    bisap::radix_sort(keys_, spare_keys_, [](std::uint64_t k) { return k; }, 0, 2 * layout_.id_bits);
    out.resize(keys_.size());
    const int bits = layout_.id_bits;
    const std::uint64_t low = (std::uint64_t{1} << bits) - 1;
    parallel_blocks(keys_.size(), [&](std::size_t, std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        out[i] = {static_cast<std::uint32_t>(keys_[i] >> bits), static_cast<std::uint32_t>(keys_[i] & low)};
      }
    });
  }

  std::vector<Oriented> spare_boxes_;   ///< The radix sort's other buffer of boxes.
  std::vector<Probe> spare_probes_;     ///< And of probes.
  Layout layout_;                       ///< What the sweep reads.
  std::vector<std::uint32_t> bounds_;   ///< Chunk bounds on v-positions.
  std::vector<std::vector<std::uint64_t>> chunk_pairs_;     ///< Pair keys found per chunk.
  std::vector<std::uint64_t> keys_;                         ///< All pair keys, sorted.
  std::vector<std::uint64_t> spare_keys_;                   ///< The radix sort's other buffer.
  tbb::enumerable_thread_specific<bisap::SweepScratch> scratch_;  ///< Per thread.
};

}  // namespace

std::unique_ptr<Peer> make_parallel_bisap() { return std::make_unique<ParallelBisap>(); }

}  // namespace agrid::peers
