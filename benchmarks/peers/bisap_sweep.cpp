// The sweep of one chunk of parallel-bisap (bisap_sweep.h). The probes are met in v-order; the
// universe's tree holds the members that may still overlap the probe on v: those met before it
// that have not ended on v (removed lazily, the first time a window lists them after they
// ended), and those after it up to a frontier. A probe's candidates are the boxes after it in
// u-order whose min on u is not past its max on u (its u-window: each pair is found once, by
// its first box on u); listing the window in the tree prunes them on v without reading them,
// and the few listed are tested on v and w. A probe whose v-window runs past the frontier
// scans the rest directly, along its u-window or along that rest of its v-window, whichever
// holds fewer candidates. The universe (bisap_sweep.h) keeps the tree and the bounds the sweep
// reads down to the chunk's own boxes, and a listed box's four tests are one compare.

#include "bisap_sweep.h"

#include <algorithm>

namespace agrid::peers::bisap {
namespace {

/// True iff the intervals [min_a, max_a] and [min_b, max_b] overlap (closed). Without
/// short-circuit: each half is a coin toss for a listed box, and one branch on the whole is
/// taken rarely enough to be predicted.
bool meet(float min_a, float max_a, float min_b, float max_b) { return (min_a <= max_b) & (min_b <= max_a); }

/// A pair as one sortable key: the smaller index in the high bits.
std::uint64_t pair_key(std::uint32_t a, std::uint32_t b, int id_bits) {
  return a < b ? std::uint64_t{a} << id_bits | b : std::uint64_t{b} << id_bits | a;
}

/// Where the frontier stands once the probe at v-position q is met: past the probe itself, and
/// as far as its v-window goes, within the reach.
std::uint32_t frontier_target(const Layout& layout, std::uint32_t q) {
  return q + 1 + std::min(layout.frontier_reach, layout.probes[q].end_v - q - 1);
}

/// seeds = the v-positions before `first` whose max on v is not before the min on v at `first`
/// (blocks whose reach ends before it are skipped whole).
void find_seeds(const Layout& layout, std::uint32_t first, std::vector<std::uint32_t>& seeds) {
  seeds.clear();
  if (first == 0) return;
  const float from = layout.probes[first].min_v;
  for (std::uint32_t b = 0; b * kReachBlock < first; ++b) {
    if (layout.reach[b] < from) continue;
    const std::uint32_t last = std::min(first, (b + 1) * kReachBlock);
    for (std::uint32_t q = b * kReachBlock; q < last; ++q) {
      if (layout.probes[q].max_v >= from) seeds.push_back(q);
    }
  }
}

/// The pairs of probe `o` with the boxes of its v-window at or past the frontier, by a direct
/// scan of that rest of its v-window or of its u-window, whichever is shorter.
void scan_beyond(const Layout& layout, const Probe& o, std::uint32_t frontier, std::vector<std::uint64_t>& pairs) {
  if (o.end_v - frontier <= o.end_u - o.pos_u - 1) {
    for (std::uint32_t q = frontier; q < o.end_v; ++q) {
      const Probe& j = layout.probes[q];
      if ((j.pos_u > o.pos_u) & (j.pos_u < o.end_u) & meet(j.min_w, j.max_w, o.min_w, o.max_w)) {
        pairs.push_back(pair_key(o.id, j.id, layout.id_bits));
      }
    }
    return;
  }
  // In v-order, boxes with equal mins keep their u-order: the frontier is a (min, u-position).
  const Probe& f = layout.probes[frontier];
  for (std::uint32_t p = o.pos_u + 1; p < o.end_u; ++p) {
    const Oriented& b = layout.boxes[p];
    const bool past = b.lo[1] > f.min_v || (b.lo[1] == f.min_v && p >= f.pos_u);
    if (past & (b.lo[1] <= o.max_v) & meet(b.lo[2], b.hi[2], o.min_w, o.max_w)) {
      pairs.push_back(pair_key(o.id, b.id, layout.id_bits));
    }
  }
}

/// Finds the pairs of the probe at v-position q with the boxes of its u-window.
void probe(const Layout& layout, std::uint32_t q, std::uint32_t& frontier, Universe& universe,
           std::vector<std::uint64_t>& pairs) {
  const Probe& o = layout.probes[q];
  for (const std::uint32_t target = frontier_target(layout, q); frontier < target; ++frontier) {
    universe.open.insert(universe.local(layout.probes[frontier].pos_u));
  }
  const Lanes limits = {{o.max_v, -o.min_v, o.max_w, -o.min_w}};
  universe.open.visit(universe.local(o.pos_u + 1), universe.local(o.end_u), [&](std::uint32_t i) {
    const unsigned tests = passed(universe.lanes(i), limits);
    if ((tests & kOpen) == 0) return false;
    if (tests == kMeets) pairs.push_back(pair_key(o.id, universe.id(i), layout.id_bits));
    return true;
  });
  if (o.end_v > frontier) scan_beyond(layout, o, frontier, pairs);
}

}  // namespace

void Universe::gather(const Layout& layout, const std::vector<std::uint32_t>& seeds, std::uint32_t first,
                      std::uint32_t end) {
  // One word more than the positions need: local() of the end of the last window reads it.
  const std::size_t words = layout.probes.size() / 64 + 1;
  members_.assign(words, 0);
  const auto mark = [&](std::uint32_t pos) { members_[pos / 64] |= std::uint64_t{1} << (pos % 64); };
  for (const std::uint32_t q : seeds) mark(layout.probes[q].pos_u);
  for (std::uint32_t q = first; q < end; ++q) mark(layout.probes[q].pos_u);
  ranks_.resize(words);
  std::uint32_t count = 0;
  for (std::size_t w = 0; w < words; ++w) {
    ranks_[w] = count;
    count += ones(members_[w]);
  }
  lanes_.resize(count);
  ids_.resize(count);
  for (const std::uint32_t q : seeds) add(layout.probes[q]);
  for (std::uint32_t q = first; q < end; ++q) add(layout.probes[q]);
  open.reset(count);
  for (const std::uint32_t q : seeds) open.insert(local(layout.probes[q].pos_u));
}

void Universe::add(const Probe& p) {
  const std::uint32_t i = local(p.pos_u);
  lanes_[i] = {{p.min_v, -p.max_v, p.min_w, -p.max_w}};
  ids_[i] = p.id;
}

void sweep_chunk(const Layout& layout, std::uint32_t first, std::uint32_t last, SweepScratch& scratch,
                 std::vector<std::uint64_t>& pairs) {
  std::uint32_t end = first;
  for (std::uint32_t q = first; q < last; ++q) end = std::max(end, frontier_target(layout, q));
  find_seeds(layout, first, scratch.seeds);
  scratch.universe.gather(layout, scratch.seeds, first, end);
  std::uint32_t frontier = first;
  for (std::uint32_t q = first; q < last; ++q) probe(layout, q, frontier, scratch.universe, pairs);
}

}  // namespace agrid::peers::bisap
