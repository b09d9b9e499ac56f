#pragma once
// ChildCoder: computes the ChildCode (or GrandchildCode) of a box for a cell's split.

#include <algorithm>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "grid/child_code.h"
#include "grid/lattice.h"

namespace agrid::detail {

// Computes codes for the children (at `child_shift`) of the cell whose first child is `base`,
// from six floats: min x, y, z, max x, y, z (the layout of a Box and of a WorkEntry).
// Each path holds only what it reads: the SSE2 path its registers, the scalar path the lattice
// and the cell. The layout thus differs by ISA, which is safe only because one translation unit
// (split_engine.cpp) uses the class, built with the library's one set of flags.
class ChildCoder {
 public:
  ChildCoder(const Lattice& lattice, std::uint32_t child_shift, const std::uint32_t base[3],
             std::uint32_t big_span) noexcept
#if defined(__SSE2__)
      : origin_(_mm_setr_ps(lattice.origin[0], lattice.origin[1], lattice.origin[2], 0.0f)),
        scale_(_mm_set1_ps(lattice.scale)),
        lattice_max_(_mm_set1_ps(kLatticeMaxF)),
        shift_(_mm_cvtsi32_si128(static_cast<int>(child_shift))),
        bases_(_mm_setr_epi32(static_cast<int>(base[0]), static_cast<int>(base[1]), static_cast<int>(base[2]), 0)),
        span_limit_(_mm_set1_epi32(static_cast<int>(big_span) - 1)) {
  }
#else
      : lattice_(lattice), child_shift_(child_shift), base_{base[0], base[1], base[2]}, big_span_(big_span) {
  }
#endif

  /// For a coder of the root's grandchildren (child_shift of level 2, base 0): the box's
  /// grandchild code.
  [[nodiscard]] GrandchildCode grandchild_code(const float* bounds) const noexcept {
#if defined(__SSE2__)
    const __m128i g_lo = cells(_mm_loadu_ps(bounds));
    const __m128 tail = _mm_loadu_ps(bounds + 2);
    const __m128i g_hi = cells(_mm_shuffle_ps(tail, tail, _MM_SHUFFLE(3, 3, 2, 1)));
    const std::uint32_t large = lanes(_mm_cmpgt_epi32(_mm_sub_epi32(g_hi, g_lo), span_limit_));
    const std::uint32_t spread = lanes(_mm_cmpgt_epi32(g_hi, g_lo));
    __m128i index = _mm_madd_epi16(g_lo, _mm_setr_epi32(1, 16, 256, 0));  // x + 16y + 256z
    index = _mm_add_epi32(index, _mm_shuffle_epi32(index, _MM_SHUFFLE(1, 0, 3, 2)));
    index = _mm_add_epi32(index, _mm_shuffle_epi32(index, _MM_SHUFFLE(2, 3, 0, 1)));
    return GrandchildCode(static_cast<std::uint16_t>(static_cast<std::uint32_t>(_mm_cvtsi128_si32(index)) |
                                                     (spread << GrandchildCode::kSpreadShift) |
                                                     (large != 0 ? GrandchildCode::kRefusedFlag : 0u)));
#else
    std::uint32_t code = 0;
    for (int a = 0; a < 3; ++a) {
      const std::uint32_t g_lo = lattice_.quantize(bounds[a], a) >> child_shift_;
      const std::uint32_t g_hi = lattice_.quantize(bounds[3 + a], a) >> child_shift_;
      code |= g_lo << (4 * a);
      code |= static_cast<std::uint32_t>(g_hi > g_lo) << (GrandchildCode::kSpreadShift + a);
      code |= static_cast<std::uint32_t>(g_hi - g_lo >= big_span_) * GrandchildCode::kRefusedFlag;
    }
    return GrandchildCode(static_cast<std::uint16_t>(code));
#endif
  }

  [[nodiscard]] ChildCode code(const float* bounds) const noexcept {
#if defined(__SSE2__)
    // The three axes in the lanes of SSE2 registers (plain x86-64), with the same float
    // operations as Lattice::quantize, so the same lattice coordinates.
    const __m128i g_lo = cells(_mm_loadu_ps(bounds));  // min x, y, z and (unused) max x
    const __m128 tail = _mm_loadu_ps(bounds + 2);       // min z, max x, y, z
    const __m128i g_hi = cells(_mm_shuffle_ps(tail, tail, _MM_SHUFFLE(3, 3, 2, 1)));
    const std::uint32_t stays = lanes(_mm_cmpgt_epi32(_mm_sub_epi32(g_hi, g_lo), span_limit_));
    // Clip to this node: the box may reach beyond it (it entered through a copy).
    const __m128i c_lo = _mm_and_si128(_mm_cmpgt_epi32(g_lo, bases_), _mm_sub_epi32(g_lo, bases_));
    const __m128i three = _mm_set1_epi32(3);
    const __m128i hi_rel = _mm_sub_epi32(g_hi, bases_);
    const __m128i below_three = _mm_cmplt_epi32(hi_rel, three);
    const __m128i c_hi = _mm_or_si128(_mm_and_si128(below_three, hi_rel), _mm_andnot_si128(below_three, three));
    const std::uint32_t spread = lanes(_mm_cmpgt_epi32(c_hi, c_lo));
    const std::uint32_t starts = lanes(_mm_cmpgt_epi32(g_lo, _mm_sub_epi32(bases_, _mm_set1_epi32(1))));
    __m128i index = _mm_madd_epi16(c_lo, _mm_setr_epi32(1, 4, 16, 0));  // x + 4y + 16z
    index = _mm_add_epi32(index, _mm_shuffle_epi32(index, _MM_SHUFFLE(1, 0, 3, 2)));
    index = _mm_add_epi32(index, _mm_shuffle_epi32(index, _MM_SHUFFLE(2, 3, 0, 1)));
    return ChildCode(static_cast<std::uint16_t>(static_cast<std::uint32_t>(_mm_cvtsi128_si32(index)) |
                                                (spread << ChildCode::kSpreadShift) |
                                                (stays != 0 ? ChildCode::kStayFlag : 0u) | (starts << ChildCode::kOwnerShift)));
#else
    std::uint32_t code = 0;
    for (int a = 0; a < 3; ++a) {
      const std::uint32_t g_lo = lattice_.quantize(bounds[a], a) >> child_shift_;
      const std::uint32_t g_hi = lattice_.quantize(bounds[3 + a], a) >> child_shift_;
      // Clip to this node: the box may reach beyond it (it entered through a copy).
      const std::uint32_t c_lo = g_lo > base_[a] ? g_lo - base_[a] : 0;
      const std::uint32_t c_hi = std::min(g_hi - base_[a], 3u);
      code |= c_lo << (2 * a);
      code |= static_cast<std::uint32_t>(c_hi > c_lo) << (ChildCode::kSpreadShift + a);
      code |= static_cast<std::uint32_t>(g_lo >= base_[a]) << (ChildCode::kOwnerShift + a);
      code |= static_cast<std::uint32_t>(g_hi - g_lo >= big_span_) * ChildCode::kStayFlag;
    }
    return ChildCode(static_cast<std::uint16_t>(code));
#endif
  }

 private:
#if defined(__SSE2__)
  [[nodiscard]] __m128i cells(__m128 x) const noexcept {
    x = _mm_mul_ps(_mm_sub_ps(x, origin_), scale_);
    x = _mm_min_ps(_mm_max_ps(x, _mm_setzero_ps()), lattice_max_);
    return _mm_srl_epi32(_mm_cvttps_epi32(x), shift_);
  }
  [[nodiscard]] static std::uint32_t lanes(__m128i v) noexcept {
    return static_cast<std::uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(v))) & 7u;
  }
  __m128 origin_;
  __m128 scale_;
  __m128 lattice_max_;
  __m128i shift_;
  __m128i bases_;
  __m128i span_limit_;
#else
  Lattice lattice_;
  std::uint32_t child_shift_;
  std::uint32_t base_[3];
  std::uint32_t big_span_;
#endif
};

}  // namespace agrid::detail
