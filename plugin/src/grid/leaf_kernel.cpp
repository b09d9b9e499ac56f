#include "grid/leaf_kernel.h"

#include <algorithm>
#include <bit>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define AGRID_X86_KERNELS 1
#endif

namespace agrid::detail {
namespace {

// Raw pointers to the arrays a kernel reads.
struct Arrays {
  const float* lo[3];
  const float* hi[3];
  const std::uint8_t* owner;
  const std::uint32_t* id;

  explicit Arrays(const EntryArrays& e) noexcept
      : lo{e.lo[0].data(), e.lo[1].data(), e.lo[2].data()},
        hi{e.hi[0].data(), e.hi[1].data(), e.hi[2].data()},
        owner(e.owner.data()),
        id(e.id.data()) {}

  // Entries after i that may overlap it: the rest of the cell, or in a cell sorted by min x
  // only those starting before i ends.
  [[nodiscard]] std::uint32_t candidates_end(std::uint32_t i, std::uint32_t end, bool sorted) const noexcept {
    return sorted ? static_cast<std::uint32_t>(std::upper_bound(lo[0] + i + 1, lo[0] + end, hi[0][i]) - lo[0]) : end;
  }
};

// The probe: one box tested against a range of entries, an entry of the same cell, or a staying box
// against the cells of its subtree.
struct Probe {
  float lo[3];
  float hi[3];
  std::uint8_t owner;
  std::uint32_t id;

  [[nodiscard]] static Probe entry(const Arrays& c, std::uint32_t i) noexcept {
    return {{c.lo[0][i], c.lo[1][i], c.lo[2][i]}, {c.hi[0][i], c.hi[1][i], c.hi[2][i]}, c.owner[i], c.id[i]};
  }
  [[nodiscard]] static Probe box(const Box& b, std::uint8_t owner, std::uint32_t id) noexcept {
    return {{b.min.x, b.min.y, b.min.z}, {b.max.x, b.max.y, b.max.z}, owner, id};
  }
};

// A kernel tests, for every entry i of every cell, the entries after it; a range kernel tests
// one box against the entries [begin, end). The instruction sets differ in these two only.
using KernelFunction = void (*)(const Arrays&, std::span<const CellRange>, bool sorted, KeyBuffer&);
using RangeFunction = void (*)(const Arrays&, const Probe&, std::uint32_t begin, std::uint32_t end, KeyBuffer&);

void scalar_range(const Arrays& c, const Probe& probe, std::uint32_t begin, std::uint32_t end, KeyBuffer& keys) {
  for (std::uint32_t j = begin; j < end; ++j) {
    if (c.lo[0][j] <= probe.hi[0] && probe.lo[0] <= c.hi[0][j] && c.lo[1][j] <= probe.hi[1] && probe.lo[1] <= c.hi[1][j] &&
        c.lo[2][j] <= probe.hi[2] && probe.lo[2] <= c.hi[2][j] && (probe.owner | c.owner[j]) == kOwnAllAxes) {
      keys.push(pair_key(probe.id, c.id[j]));
    }
  }
}

void scalar_kernel(const Arrays& c, std::span<const CellRange> cells, bool sorted, KeyBuffer& keys) {
  for (const CellRange cell : cells) {
    for (std::uint32_t i = cell.begin; i + 1 < cell.end; ++i) {
      scalar_range(c, Probe::entry(c, i), i + 1, c.candidates_end(i, cell.end, sorted), keys);
    }
  }
}

#ifdef AGRID_X86_KERNELS
// GCC 12's AVX-512 headers build vectors from _mm512_undefined, which -Wmaybe-uninitialized
// reports in every caller (clang has no such warning, and would warn about the pragma).
#pragma GCC diagnostic push
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define AGRID_AVX512_INLINE __attribute__((target("avx512f"), always_inline)) inline

// The bounds of 16 entries, one per lane, or of one entry in every lane.
struct Bounds16 {
  __m512 lo[3];
  __m512 hi[3];
};

AGRID_AVX512_INLINE Bounds16 load_bounds(const Arrays& c, std::uint32_t j) {
  Bounds16 b;
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = _mm512_loadu_ps(c.lo[a] + j);
    b.hi[a] = _mm512_loadu_ps(c.hi[a] + j);
  }
  return b;
}

AGRID_AVX512_INLINE Bounds16 broadcast_bounds(const Probe& probe) {
  Bounds16 b;
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = _mm512_set1_ps(probe.lo[a]);
    b.hi[a] = _mm512_set1_ps(probe.hi[a]);
  }
  return b;
}

// The lanes of m whose boxes overlap the probe box in every lane of `probe` (closed: touching counts).
AGRID_AVX512_INLINE __mmask16 overlapping(__mmask16 m, const Bounds16& lanes, const Bounds16& probe) {
  for (int a = 0; a < 3; ++a) {
    m = _mm512_mask_cmp_ps_mask(m, lanes.lo[a], probe.hi[a], _CMP_LE_OQ);
    m = _mm512_mask_cmp_ps_mask(m, probe.lo[a], lanes.hi[a], _CMP_LE_OQ);
  }
  return m;
}

AGRID_AVX512_INLINE __m512i load_owners(const Arrays& c, std::uint32_t j) {
  return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(c.owner + j)));
}

// The lanes of m whose pair with the entry of owner bits `probe_owner` this cell owns.
AGRID_AVX512_INLINE __mmask16 owned(__mmask16 m, __m512i lane_owners, std::uint8_t probe_owner) {
  return _mm512_mask_cmpeq_epi32_mask(m, _mm512_or_si512(lane_owners, _mm512_set1_epi32(probe_owner)),
                                      _mm512_set1_epi32(kOwnAllAxes));
}

// Appends the keys of the pairs (id_i, id_j lane) for the lanes set in m, without branches:
// both halves' keys are compressed in registers and stored whole (the buffer has room past the
// end); only the kept ones are counted.
AGRID_AVX512_INLINE void store_keys(std::uint64_t* out, std::uint32_t& written, __mmask16 m, __m512i id_i,
                                    __m512i id_j) {
  const __m512i first = _mm512_min_epu32(id_i, id_j);
  const __m512i second = _mm512_max_epu32(id_i, id_j);
  const __m512i keys_low = _mm512_or_si512(_mm512_slli_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(first)), 32),
                                           _mm512_cvtepu32_epi64(_mm512_castsi512_si256(second)));
  const __m512i keys_high =
      _mm512_or_si512(_mm512_slli_epi64(_mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(first, 1)), 32),
                      _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(second, 1)));
  const auto m_low = static_cast<__mmask8>(m);
  const auto m_high = static_cast<__mmask8>(m >> 8);
  // Inside AVX-512 code std::popcount is the popcnt instruction (unlike in plain x86-64 code).
  _mm512_storeu_si512(out + written, _mm512_maskz_compress_epi64(m_low, keys_low));
  written += static_cast<std::uint32_t>(std::popcount(static_cast<unsigned>(m_low)));
  _mm512_storeu_si512(out + written, _mm512_maskz_compress_epi64(m_high, keys_high));
  written += static_cast<std::uint32_t>(std::popcount(static_cast<unsigned>(m_high)));
}

/// Cells up to this many entries are held in registers, 16 entries per register.
constexpr std::uint32_t kSmallCell = 32;

// A small cell fits one or two registers per coordinate: loaded once, each entry is tested
// against the lanes after it in one step per register, with no inner loop to mispredict.
AGRID_AVX512_INLINE void avx512_small_cell(const Arrays& c, CellRange cell, KeyBuffer& keys) {
  const std::uint32_t n = cell.size();
  const std::uint32_t b = cell.begin;
  const std::uint32_t registers = (n + 15) / 16;
  Bounds16 lanes[kSmallCell / 16];
  __m512i owners[kSmallCell / 16];
  for (std::uint32_t r = 0; r < registers; ++r) {
    lanes[r] = load_bounds(c, b + 16 * r);
    owners[r] = load_owners(c, b + 16 * r);
  }
  const std::uint64_t cell_lanes = (std::uint64_t{1} << n) - 1;
  // First every entry's hits, then their keys only if there are any: a sparse scene's cells
  // mostly have none, and then cost one well-predicted branch, while a dense scene's cells
  // store without branches.
  __mmask16 hits[kSmallCell][kSmallCell / 16];
  std::uint32_t any = 0;
  for (std::uint32_t i = 0; i + 1 < n; ++i) {
    const Bounds16 bounds = broadcast_bounds(Probe::entry(c, b + i));
    const std::uint64_t after_i = cell_lanes & ~((std::uint64_t{2} << i) - 1);
    for (std::uint32_t r = 0; r < registers; ++r) {
      const auto candidates = static_cast<__mmask16>(after_i >> (16 * r));
      hits[i][r] = owned(overlapping(candidates, lanes[r], bounds), owners[r], c.owner[b + i]);
      any |= hits[i][r];
    }
  }
  if (any == 0) return;
  std::uint64_t* out = keys.reserve_tail(std::size_t{n} * kSmallCell);
  std::uint32_t written = 0;
  for (std::uint32_t r = 0; r < registers; ++r) {
    const __m512i ids = _mm512_loadu_si512(c.id + b + 16 * r);
    for (std::uint32_t i = 0; i + 1 < n; ++i) {
      store_keys(out, written, hits[i][r], _mm512_set1_epi32(static_cast<int>(c.id[b + i])), ids);
    }
  }
  keys.commit(written);
}

// The probe against 16 candidates per step: six compares into a lane mask, then owner bits.
__attribute__((target("avx512f"))) void avx512_range(const Arrays& c, const Probe& probe, std::uint32_t begin,
                                                      std::uint32_t end, KeyBuffer& keys) {
  const Bounds16 bounds = broadcast_bounds(probe);
  const __m512i id = _mm512_set1_epi32(static_cast<int>(probe.id));
  // At most one key per candidate, plus a whole register written past the last.
  std::uint64_t* out = keys.reserve_tail(end - begin + 16);
  std::uint32_t written = 0;
  for (std::uint32_t j = begin; j < end; j += 16) {
    const std::uint32_t left = end - j;
    const auto in_range = left >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << left) - 1);
    __mmask16 m = overlapping(in_range, load_bounds(c, j), bounds);
    if (m == 0) continue;  // the common case in sparse scenes, and well predicted there
    m = owned(m, load_owners(c, j), probe.owner);
    store_keys(out, written, m, id, _mm512_loadu_si512(c.id + j));
  }
  keys.commit(written);
}

// The probe against the entries after it in a cell sorted by min x: they start at or after the
// probe, so on x only their start is tested. Two registers at a time, the loop going on only if
// all 32 entries start before the probe ends: a sweep leaf is made for windows of about that
// size (split_engine.cpp), so the loop's end is predicted, where ending after one register
// mispredicted about every other probe.
AGRID_AVX512_INLINE __mmask16 swept_register(const Arrays& c, const Bounds16& probe, std::uint32_t j, std::uint32_t end,
                                             __mmask16& started) {
  const std::uint32_t left = j < end ? end - j : 0;
  const auto in_range = left >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << left) - 1);
  const Bounds16 lanes = load_bounds(c, j);
  started = _mm512_mask_cmp_ps_mask(in_range, lanes.lo[0], probe.hi[0], _CMP_LE_OQ);
  __mmask16 m = started;
  for (int a = 1; a < 3; ++a) {
    m = _mm512_mask_cmp_ps_mask(m, lanes.lo[a], probe.hi[a], _CMP_LE_OQ);
    m = _mm512_mask_cmp_ps_mask(m, probe.lo[a], lanes.hi[a], _CMP_LE_OQ);
  }
  return m;
}

__attribute__((target("avx512f"))) void avx512_sweep(const Arrays& c, const Probe& probe, std::uint32_t begin,
                                                      std::uint32_t end, KeyBuffer& keys) {
  const Bounds16 bounds = broadcast_bounds(probe);
  const __m512i id = _mm512_set1_epi32(static_cast<int>(probe.id));
  std::uint64_t* out = keys.reserve_tail(end - begin + 32);
  std::uint32_t written = 0;
  for (std::uint32_t j = begin; j < end; j += 32) {
    __mmask16 started_low = 0;
    __mmask16 started_high = 0;
    const __mmask16 low = swept_register(c, bounds, j, end, started_low);
    const __mmask16 high = swept_register(c, bounds, j + 16, end, started_high);
    if ((low | high) != 0) {
      store_keys(out, written, owned(low, load_owners(c, j), probe.owner), id, _mm512_loadu_si512(c.id + j));
      store_keys(out, written, owned(high, load_owners(c, j + 16), probe.owner), id, _mm512_loadu_si512(c.id + j + 16));
    }
    if (started_high != 0xffff) break;
  }
  keys.commit(written);
}

__attribute__((target("avx512f"))) void avx512_kernel(const Arrays& arrays, std::span<const CellRange> cells, bool sorted,
                                                       KeyBuffer& keys) {
  // Locals, so that stores of keys cannot be thought to change the arrays' addresses.
  const Arrays c = arrays;
  for (const CellRange cell : cells) {
    if (!sorted && cell.size() <= kSmallCell) {
      avx512_small_cell(c, cell, keys);
      continue;
    }
    for (std::uint32_t i = cell.begin; i + 1 < cell.end; ++i) {
      if (sorted) {
        avx512_sweep(c, Probe::entry(c, i), i + 1, cell.end, keys);
      } else {
        avx512_range(c, Probe::entry(c, i), i + 1, cell.end, keys);
      }
    }
  }
}

// The probe against 8 candidates per step, the same tests with AVX2 compares and movemask.
__attribute__((target("avx2"))) void avx2_range(const Arrays& c, const Probe& probe, std::uint32_t begin,
                                                 std::uint32_t end, KeyBuffer& keys) {
  __m256 lo[3];
  __m256 hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = _mm256_set1_ps(probe.lo[a]);
    hi[a] = _mm256_set1_ps(probe.hi[a]);
  }
  const __m256i s = _mm256_set1_epi32(probe.owner);
  const __m256i own_all = _mm256_set1_epi32(kOwnAllAxes);
  for (std::uint32_t j = begin; j < end; j += 8) {
    const std::uint32_t left = end - j;
    __m256 hit = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    for (int a = 0; a < 3; ++a) {
      hit = _mm256_and_ps(hit, _mm256_cmp_ps(_mm256_loadu_ps(c.lo[a] + j), hi[a], _CMP_LE_OQ));
      hit = _mm256_and_ps(hit, _mm256_cmp_ps(lo[a], _mm256_loadu_ps(c.hi[a] + j), _CMP_LE_OQ));
    }
    std::uint32_t m = static_cast<std::uint32_t>(_mm256_movemask_ps(hit)) & (left >= 8 ? 0xffu : (1u << left) - 1);
    if (m == 0) continue;
    std::int64_t eight_bytes = 0;
    __builtin_memcpy(&eight_bytes, c.owner + j, sizeof eight_bytes);
    const __m256i sj = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(eight_bytes));
    const __m256i owned_lanes = _mm256_cmpeq_epi32(_mm256_or_si256(s, sj), own_all);
    m &= static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(owned_lanes)));
    for (; m != 0; m &= m - 1) keys.push(pair_key(probe.id, c.id[j + static_cast<std::uint32_t>(std::countr_zero(m))]));
  }
}

__attribute__((target("avx2"))) void avx2_kernel(const Arrays& c, std::span<const CellRange> cells, bool sorted,
                                                  KeyBuffer& keys) {
  for (const CellRange cell : cells) {
    for (std::uint32_t i = cell.begin; i + 1 < cell.end; ++i) {
      avx2_range(c, Probe::entry(c, i), i + 1, c.candidates_end(i, cell.end, sorted), keys);
    }
  }
}

#pragma GCC diagnostic pop
#endif

// The two functions of one instruction set.
struct Kernels {
  KernelFunction cells;
  RangeFunction range;
};

// Those of the widest instruction set this CPU runs, up to the one asked for. The library is
// compiled for plain x86-64; only the functions above use wider instructions, and only where
// the CPU has them.
Kernels kernels_of(Kernel wanted) noexcept {
#ifdef AGRID_X86_KERNELS
  const bool any = wanted == Kernel::automatic;
  if ((any || wanted == Kernel::avx512) && __builtin_cpu_supports("avx512f")) return {avx512_kernel, avx512_range};
  if ((any || wanted == Kernel::avx512 || wanted == Kernel::avx2) && __builtin_cpu_supports("avx2")) return {avx2_kernel, avx2_range};
#else
  (void)wanted;
#endif
  return {scalar_kernel, scalar_range};
}

// The kernels for `wanted`, found once per process: a staying box asks for them for every range
// it meets, so asking must cost no more than a load (with two cached CPU flags instead,
// article-40k-slab's grid frame measured 5-6% slower in two runs).
Kernels kernels(Kernel wanted) noexcept {
  static const Kernels chosen[] = {kernels_of(Kernel::automatic), kernels_of(Kernel::scalar), kernels_of(Kernel::avx2),
                                   kernels_of(Kernel::avx512)};
  return chosen[static_cast<std::size_t>(wanted)];
}

// Copies the entries of a cell sorted by min x (ties by position, so deterministic), padded.
void sorted_copy(const EntryArrays& e, CellRange cell, SweepScratch& scratch) {
  scratch.entries.resize(cell.size());
  for (std::uint32_t i = 0; i < cell.size(); ++i) scratch.entries[i] = cell.begin + i;
  scratch.min_x.sort(scratch.entries, [&](std::uint32_t i) { return e.lo[0][i]; }, scratch.order);
  EntryArrays& s = scratch.sorted;
  s.clear();
  const std::uint32_t at = s.grow(cell.size() + kKernelPadding);
  const EntryWriter writer(s);
  for (std::uint32_t k = 0; k < cell.size(); ++k) {
    const std::uint32_t i = scratch.order[k];
    writer.write(at + k, e.box(i), e.id[i], e.owner[i]);
  }
  for (std::uint32_t k = cell.size(); k < cell.size() + kKernelPadding; ++k) writer.write(at + k, Box{}, 0, 0);
}

}  // namespace

void append_cell_pairs(const EntryArrays& entries, std::span<const CellRange> cells, std::uint32_t sweep_threshold,
                       LargeCells large_cells, Kernel wanted, SweepScratch& scratch, KeyBuffer& keys) {
  const KernelFunction kernel = kernels(wanted).cells;
  const Arrays arrays(entries);
  // Runs of small cells go to the kernel in one call; a large cell is sorted and swept.
  std::size_t run_begin = 0;
  for (std::size_t k = 0; k <= cells.size(); ++k) {
    const bool large = k < cells.size() && cells[k].size() > sweep_threshold;
    if (k < cells.size() && !large) continue;
    kernel(arrays, cells.subspan(run_begin, k - run_begin), false, keys);
    run_begin = k + 1;
    if (!large) continue;
    if (large_cells == LargeCells::sorted) {
      kernel(arrays, cells.subspan(k, 1), true, keys);
      continue;
    }
    sorted_copy(entries, cells[k], scratch);
    const CellRange whole{0, cells[k].size()};
    kernel(Arrays(scratch.sorted), std::span<const CellRange>(&whole, 1), true, keys);
  }
}

void append_box_pairs(const EntryArrays& entries, CellRange range, const Box& box, std::uint8_t box_owner,
                      std::uint32_t box_id, Kernel wanted, KeyBuffer& keys) {
  kernels(wanted).range(Arrays(entries), Probe::box(box, box_owner, box_id), range.begin, range.end, keys);
}

}  // namespace agrid::detail
