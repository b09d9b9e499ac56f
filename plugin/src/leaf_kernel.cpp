#include "leaf_kernel.h"

#include <algorithm>

namespace agrid::detail {
namespace {

// The hot loop of the grid: entry i against entries [j_begin, j_end). The first loop is
// branch-free so that it vectorises; it is compiled for AVX-512 and AVX2 too and the widest
// the CPU runs is chosen at load time, while the library itself stays plain x86-64.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__)
#define AGRID_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define AGRID_VECTOR_CLONES
#endif

AGRID_VECTOR_CLONES
void test_entries(const EntrySpan& c, bool sorted_by_min_x, std::uint8_t* __restrict hit,
                  std::vector<std::uint64_t>& keys) {
  const float* __restrict lo0 = c.lo[0];
  const float* __restrict lo1 = c.lo[1];
  const float* __restrict lo2 = c.lo[2];
  const float* __restrict hi0 = c.hi[0];
  const float* __restrict hi1 = c.hi[1];
  const float* __restrict hi2 = c.hi[2];
  const std::uint8_t* __restrict start = c.start;
  for (std::uint32_t i = 0; i + 1 < c.count; ++i) {
    const float l0 = lo0[i], l1 = lo1[i], l2 = lo2[i], h0 = hi0[i], h1 = hi1[i], h2 = hi2[i];
    const std::uint8_t s = start[i];
    // Sorted by min x, only the entries starting before this one ends can overlap it.
    const std::uint32_t end = sorted_by_min_x ? static_cast<std::uint32_t>(std::upper_bound(lo0 + i + 1, lo0 + c.count, h0) - lo0)
                                              : c.count;
    for (std::uint32_t j = i + 1; j < end; ++j) {
      hit[j] = static_cast<std::uint8_t>((lo0[j] <= h0) & (l0 <= hi0[j]) & (lo1[j] <= h1) & (l1 <= hi1[j]) &
                                         (lo2[j] <= h2) & (l2 <= hi2[j]) & ((s | start[j]) == kOwnAllAxes));
    }
    for (std::uint32_t j = i + 1; j < end; ++j) {
      if (hit[j]) keys.push_back(pair_key(c.id[i], c.id[j]));
    }
  }
}

// Copies the entries sorted by min x (ties by position, so the result is deterministic).
EntrySpan sorted_copy(const EntrySpan& c, SweepScratch& scratch) {
  auto& order = scratch.order;
  order.clear();
  for (std::uint32_t i = 0; i < c.count; ++i) order.emplace_back(c.lo[0][i], i);
  std::sort(order.begin(), order.end());
  EntryArrays& s = scratch.sorted;
  s.resize_bounds(c.count);
  s.start.resize(c.count);
  for (std::uint32_t k = 0; k < c.count; ++k) {
    const std::uint32_t i = order[k].second;
    for (int a = 0; a < 3; ++a) {
      s.lo[a][k] = c.lo[a][i];
      s.hi[a][k] = c.hi[a][i];
    }
    s.id[k] = c.id[i];
    s.start[k] = c.start[i];
  }
  return s.slice(0, c.count);
}

}  // namespace

void append_cell_pairs(const EntrySpan& cell, std::uint32_t sweep_threshold, SweepScratch& scratch,
                       std::vector<std::uint64_t>& keys) {
  if (cell.count < 2) return;
  scratch.hit.resize(cell.count);
  if (cell.count <= sweep_threshold) {
    test_entries(cell, false, scratch.hit.data(), keys);
  } else {
    test_entries(sorted_copy(cell, scratch), true, scratch.hit.data(), keys);
  }
}

}  // namespace agrid::detail
