#include "sweep.h"

#include <bit>
#include <cmath>
#include <utility>

namespace agrid::peers::sweep {
namespace {

/// Bits per radix-sort pass: 1,024 counters (one 8 KB table per pass). Measured on 1.4M pair
/// keys of 40 bits: 10 bits (4 passes) took 11 ms, 8 (5 passes) 13 ms, 11 and 16 16-19 ms.
constexpr int kRadixBits = 10;
/// Counters per radix-sort pass.
constexpr std::size_t kBuckets = std::size_t{1} << kRadixBits;
/// Fewer keys than this are sorted by std::sort: a radix pass's counters would cost more.
constexpr std::size_t kRadixMinKeys = 4096;

/// The digit of `key` that the pass at bit `shift` sorts on.
std::size_t digit(std::uint64_t key, int shift) { return (key >> shift) & (kBuckets - 1); }

/// Turns counts into starting offsets.
void offsets_from_counts(std::span<std::size_t> counts) {
  std::size_t sum = 0;
  for (std::size_t& c : counts) sum += std::exchange(c, sum);
}

}  // namespace

void valid_entries(std::span<const Box> boxes, std::vector<Entry>& out) {
  out.clear();
  out.reserve(boxes.size());
  for (std::uint32_t i = 0; i < boxes.size(); ++i) {
    const Box& b = boxes[i];
    if (is_valid(b)) out.push_back({{b.min.x, b.min.y, b.min.z}, {b.max.x, b.max.y, b.max.z}, i});
  }
}

std::array<int, 3> axes_by_variance(std::span<const Entry> entries, std::size_t samples) {
  double sum[3] = {0, 0, 0};
  double squares[3] = {0, 0, 0};
  double count = 0;
  const std::size_t samples_read = samples == 0 ? entries.size() : std::min(samples, entries.size());
  for (std::size_t k = 0; k < samples_read; ++k) {
    const Entry& e = entries[sample_index(k, samples_read, entries.size())];
    double c[3];
    bool finite = true;
    for (int a = 0; a < 3; ++a) {
      c[a] = 0.5 * e.lo[a] + 0.5 * e.hi[a];
      finite = finite && std::isfinite(c[a]);
    }
    if (!finite) continue;
    for (int a = 0; a < 3; ++a) {
      sum[a] += c[a];
      squares[a] += c[a] * c[a];
    }
    count += 1;
  }
  double variance[3] = {0, 0, 0};
  for (int a = 0; a < 3 && count > 0; ++a) variance[a] = squares[a] / count - (sum[a] / count) * (sum[a] / count);
  std::array<int, 3> axes = {0, 1, 2};
  std::stable_sort(axes.begin(), axes.end(), [&](int x, int y) { return variance[x] > variance[y]; });
  return axes;
}

// Without branches on the data: each box is written at the below cursor (from the front), at
// the above one (from the back) and into scratch, and only its own cursor moves; the others'
// slots lie in the gap still to fill, which the straddling boxes fill at the end.
Split split_by_plane(std::span<const Entry> from, std::span<Entry> to, int axis, float plane,
                     std::vector<Entry>& scratch) {
  if (from.empty()) return {};
  scratch.resize(from.size());
  std::size_t below = 0;
  std::size_t above = from.size() - 1;
  std::size_t straddling = 0;
  for (const Entry& x : from) {
    const bool is_below = x.hi[axis] < plane;
    const bool is_above = x.lo[axis] > plane;
    to[below] = x;
    to[above] = x;
    scratch[straddling] = x;
    below += is_below;
    above -= is_above;
    straddling += !is_below && !is_above;
  }
  std::copy_n(scratch.begin(), straddling, to.begin() + static_cast<std::ptrdiff_t>(below));
  return {to.first(below), to.subspan(below, straddling), to.subspan(below + straddling)};
}

void sort_by_min(std::span<Entry> entries, int axis) {
  std::sort(entries.begin(), entries.end(), [axis](const Entry& a, const Entry& b) { return a.lo[axis] < b.lo[axis]; });
}

void PairKeys::reset(std::size_t box_count) {
  keys_.clear();
  shift_ = std::max(1, static_cast<int>(std::bit_width(box_count)));
}

void PairKeys::append(PairKeys& other) {
  keys_.insert(keys_.end(), other.keys_.begin(), other.keys_.end());
  other.keys_.clear();
}

// LSD radix sort: the counts of every pass in one read, then one stable scatter per pass; the
// last pass writes the pairs themselves. Passes whose digit is the same for every key are
// skipped.
void PairKeys::sorted_pairs(std::vector<Pair>& out) {
  const std::uint64_t low_mask = (std::uint64_t{1} << shift_) - 1;
  const auto to_pair = [&](std::uint64_t key) {
    return Pair{static_cast<std::uint32_t>(key >> shift_), static_cast<std::uint32_t>(key & low_mask)};
  };
  out.resize(keys_.size());
  if (keys_.size() < kRadixMinKeys) {
    std::sort(keys_.begin(), keys_.end());
    std::transform(keys_.begin(), keys_.end(), out.begin(), to_pair);
    return;
  }
  const int passes = (2 * shift_ + kRadixBits - 1) / kRadixBits;
  std::vector<std::size_t> counts(static_cast<std::size_t>(passes) * kBuckets, 0);
  for (const std::uint64_t k : keys_) {
    for (int p = 0; p < passes; ++p) ++counts[static_cast<std::size_t>(p) * kBuckets + digit(k, p * kRadixBits)];
  }
  std::vector<int> needed;
  for (int p = 0; p < passes; ++p) {
    const std::span<std::size_t> c(counts.data() + static_cast<std::size_t>(p) * kBuckets, kBuckets);
    if (std::find(c.begin(), c.end(), keys_.size()) == c.end()) needed.push_back(p);
    offsets_from_counts(c);
  }
  spare_.resize(keys_.size());
  for (std::size_t n = 0; n < needed.size(); ++n) {
    const int shift = needed[n] * kRadixBits;
    std::size_t* start = counts.data() + static_cast<std::size_t>(needed[n]) * kBuckets;
    if (n + 1 == needed.size()) {
      for (const std::uint64_t k : keys_) out[start[digit(k, shift)]++] = to_pair(k);
      return;
    }
    for (const std::uint64_t k : keys_) spare_[start[digit(k, shift)]++] = k;
    keys_.swap(spare_);
  }
  std::transform(keys_.begin(), keys_.end(), out.begin(), to_pair);  // every digit was constant
}

}  // namespace agrid::peers::sweep
