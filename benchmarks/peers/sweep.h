#pragma once
// What the sweeping peers share (sap, dac, kd-sweep): the valid boxes as entries laid out for
// sweeping, the axes ordered by how much the centres vary, sweeps of one sorted list or of two
// along an axis, and the pairs found, sorted into the Peer's output.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "agrid/box.h"
#include "agrid/pair.h"

namespace agrid::peers::sweep {

/// A valid box and its index into the input; lo[a] and hi[a] by axis index, so that an axis
/// chosen at run time costs one indexed load.
struct Entry {
  float lo[3];
  float hi[3];
  std::uint32_t id;
};

/// Replaces `out` with the valid boxes as entries, in input order (invalid boxes overlap nothing).
void valid_entries(std::span<const Box> boxes, std::vector<Entry>& out);

/// Entries whose centres choose the axes (dac's split, kd-sweep's node axes): an even sample of
/// 64 chose as well as 1,024 and as all of them, at a third of the time on the 20k scenes.
constexpr std::size_t kAxisSamples = 64;
/// Entries whose keys give a median (dac's split, kd-sweep's divider): an even sample of 31
/// splits within about a tenth of the middle, faster than 63 to 255 and than the exact median
/// (kd-sweep on uniform-1M, one thread: 417 -> 215 ms of CPU).
constexpr std::size_t kMedianSamples = 31;

/// The k-th of `count` indices spread evenly over [0, size), count <= size.
[[nodiscard]] inline std::size_t sample_index(std::size_t k, std::size_t count, std::size_t size) {
  return static_cast<std::size_t>(static_cast<std::uint64_t>(k) * size / count);
}

/// The three axes, the one along which the finite centres vary most first (0, 1, 2 when none is
/// finite): the first splits or sweeps best, the second sweeps best across the first. Reads
/// `samples` entries spread evenly (all when 0 or more than there are).
[[nodiscard]] std::array<int, 3> axes_by_variance(std::span<const Entry> entries, std::size_t samples = 0);

/// The median of key(e) over the non-empty `entries` (the upper one for an even count), found in
/// `scratch` so that the entries themselves are not moved; key must never be NaN. Reads `samples`
/// entries spread evenly (all when 0 or more than there are): then the median of that sample.
template <class Key>
[[nodiscard]] float median(std::span<const Entry> entries, Key key, std::vector<float>& scratch,
                           std::size_t samples = 0) {
  const std::size_t count = samples == 0 ? entries.size() : std::min(samples, entries.size());
  scratch.resize(count);
  for (std::size_t k = 0; k < count; ++k) scratch[k] = key(entries[sample_index(k, count, entries.size())]);
  const auto middle = scratch.begin() + static_cast<std::ptrdiff_t>(scratch.size() / 2);
  std::nth_element(scratch.begin(), middle, scratch.end());
  return *middle;
}

/// A run split by a plane on one axis: [below | straddling | above], contiguous in that order.
struct Split {
  std::span<Entry> below;       // the boxes that end before the plane
  std::span<Entry> straddling;  // the boxes that contain it
  std::span<Entry> above;       // the boxes that start after it
};

/// Writes `from` into `to` (as long) split by `plane` on `axis`, with `scratch` for the
/// straddling boxes until their place is known.
Split split_by_plane(std::span<const Entry> from, std::span<Entry> to, int axis, float plane,
                     std::vector<Entry>& scratch);

/// Sorts by lo[axis]; ties in any order (the sweeps find the same pairs, sorted at the end).
void sort_by_min(std::span<Entry> entries, int axis);

/// True iff a and b overlap on `axis` (closed intervals). `&`, not `&&`: both tests cost less than
/// a branch the data cannot predict.
[[nodiscard]] inline bool meet(const Entry& a, const Entry& b, int axis) {
  return (a.lo[axis] <= b.hi[axis]) & (b.lo[axis] <= a.hi[axis]);
}

/// True iff a and b overlap on the two axes other than `axis` (a sweep along it tests that one).
[[nodiscard]] inline bool meet_off(const Entry& a, const Entry& b, int axis) {
  const bool next = meet(a, b, (axis + 1) % 3);
  const bool last = meet(a, b, (axis + 2) % 3);
  return next & last;
}

/// True iff a and b overlap on every axis.
[[nodiscard]] inline bool meet_all(const Entry& a, const Entry& b) {
  const bool x = meet(a, b, 0);
  const bool y = meet(a, b, 1);
  const bool z = meet(a, b, 2);
  return x & y & z;
}

/// The pairs found, as sortable keys (the smaller index in the high bits), appended to by the
/// sweeps; one per thread when a peer runs in parallel.
class PairKeys {
 public:
  /// Starts empty, for indices below `box_count`.
  void reset(std::size_t box_count);
  /// Records the pair of entries a and b.
  void add(const Entry& a, const Entry& b) {
    const std::uint64_t i = std::min(a.id, b.id);
    const std::uint64_t j = std::max(a.id, b.id);
    keys_.push_back(i << shift_ | j);
  }
  /// Moves every key of `other` to this one.
  void append(PairKeys& other);
  /// Replaces `out` with the recorded pairs, sorted (each must have been recorded once).
  void sorted_pairs(std::vector<Pair>& out);

 private:
  std::vector<std::uint64_t> keys_;   // one per pair: smaller index << shift_ | larger index
  std::vector<std::uint64_t> spare_;  // the radix sort's second buffer, kept between calls
  int shift_ = 0;                      // bits of the larger index
};

/// Every overlapping pair within `e`, sorted by lo[axis]: each entry meets the later ones whose
/// lo is not past its hi on `axis`, then `others_meet(a, b)` tests the remaining axes.
template <class OthersMeet>
void sweep_one(std::span<const Entry> e, int axis, OthersMeet others_meet, PairKeys& keys) {
  const std::size_t n = e.size();
  for (std::size_t k = 0; k < n; ++k) {
    const float end = e[k].hi[axis];
    for (std::size_t l = k + 1; l < n && e[l].lo[axis] <= end; ++l) {
      if (others_meet(e[k], e[l])) keys.add(e[k], e[l]);
    }
  }
}

/// Every overlapping pair (x, y), x in `a`, y in `b`, both sorted by lo[axis]: the lists are
/// merged by lo, and each entry meets the other list's entries whose lo lies in [its lo, its hi]
/// (ties go to `a` first, so that each pair is found once); `others_meet` tests the other axes.
template <class OthersMeet>
void sweep_two(std::span<const Entry> a, std::span<const Entry> b, int axis, OthersMeet others_meet,
               PairKeys& keys) {
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].lo[axis] <= b[j].lo[axis]) {
      const float end = a[i].hi[axis];
      for (std::size_t m = j; m < b.size() && b[m].lo[axis] <= end; ++m) {
        if (others_meet(a[i], b[m])) keys.add(a[i], b[m]);
      }
      ++i;
    } else {
      const float end = b[j].hi[axis];
      for (std::size_t m = i; m < a.size() && a[m].lo[axis] <= end; ++m) {
        if (others_meet(a[m], b[j])) keys.add(a[m], b[j]);
      }
      ++j;
    }
  }
}

/// The entries of `sorted` (sorted by lo[axis], none longer than `longest` on it) that may meet
/// [from, to] on `axis`: those whose lo lies in [from - longest, to], found by binary search.
[[nodiscard]] inline std::span<const Entry> reaching(std::span<const Entry> sorted, int axis, float from, float to,
                                                     float longest) {
  const auto lo_below = [axis](const Entry& e, float v) { return e.lo[axis] < v; };
  const auto lo_above = [axis](float v, const Entry& e) { return v < e.lo[axis]; };
  const float start = from - longest;  // NaN (inf - inf) cuts nothing: every comparison fails
  const auto first = std::lower_bound(sorted.begin(), sorted.end(), start, lo_below);
  const auto past = std::upper_bound(first, sorted.end(), to, lo_above);
  return {first, past};
}

}  // namespace agrid::peers::sweep
