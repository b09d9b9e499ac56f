#pragma once
// Lanes4 and Mask4: four floats tested at once, for the box tree's nodes. SSE where the target
// has it (every x86-64), four scalar lanes elsewhere; both give the same answers.

#include <cstdint>

#if defined(__SSE__) || defined(_M_X64)
#include <xmmintrin.h>
#define AGRID_LANES4_SSE 1
#endif

namespace agrid::detail {

#if defined(AGRID_LANES4_SSE)

/// Four lanes' true or false.
struct Mask4 {
  __m128 v;
  [[nodiscard]] friend Mask4 operator&(Mask4 a, Mask4 b) noexcept { return {_mm_and_ps(a.v, b.v)}; }
  /// Bit i set iff lane i is true.
  [[nodiscard]] unsigned bits() const noexcept { return static_cast<unsigned>(_mm_movemask_ps(v)); }
};

/// Four floats.
struct Lanes4 {
  __m128 v;
  /// The four floats at `p`, 16-byte aligned.
  [[nodiscard]] static Lanes4 load(const float* p) noexcept { return {_mm_load_ps(p)}; }
  [[nodiscard]] static Lanes4 splat(float x) noexcept { return {_mm_set1_ps(x)}; }
  /// Writes the four floats to `p`, 16-byte aligned.
  void store(float* p) const noexcept { _mm_store_ps(p, v); }
  [[nodiscard]] friend Lanes4 operator+(Lanes4 a, Lanes4 b) noexcept { return {_mm_add_ps(a.v, b.v)}; }
  [[nodiscard]] friend Lanes4 operator-(Lanes4 a, Lanes4 b) noexcept { return {_mm_sub_ps(a.v, b.v)}; }
  [[nodiscard]] friend Lanes4 operator*(Lanes4 a, Lanes4 b) noexcept { return {_mm_mul_ps(a.v, b.v)}; }
  /// Lane by lane, SSE's way: the second lane where the first is NaN (or the two are equal).
  [[nodiscard]] friend Lanes4 min(Lanes4 a, Lanes4 b) noexcept { return {_mm_min_ps(a.v, b.v)}; }
  [[nodiscard]] friend Lanes4 max(Lanes4 a, Lanes4 b) noexcept { return {_mm_max_ps(a.v, b.v)}; }
  /// The least and the greatest of the four lanes (none NaN).
  [[nodiscard]] float min_lane() const noexcept {
    const __m128 pairs = _mm_min_ps(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtss_f32(_mm_min_ps(pairs, _mm_shuffle_ps(pairs, pairs, _MM_SHUFFLE(1, 0, 3, 2))));
  }
  [[nodiscard]] float max_lane() const noexcept {
    const __m128 pairs = _mm_max_ps(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtss_f32(_mm_max_ps(pairs, _mm_shuffle_ps(pairs, pairs, _MM_SHUFFLE(1, 0, 3, 2))));
  }
  [[nodiscard]] friend Mask4 operator<=(Lanes4 a, Lanes4 b) noexcept { return {_mm_cmple_ps(a.v, b.v)}; }
};

#else

struct Mask4 {
  unsigned lanes;
  [[nodiscard]] friend Mask4 operator&(Mask4 a, Mask4 b) noexcept { return {a.lanes & b.lanes}; }
  [[nodiscard]] unsigned bits() const noexcept { return lanes; }
};

struct Lanes4 {
  float v[4];
  [[nodiscard]] static Lanes4 load(const float* p) noexcept { return {{p[0], p[1], p[2], p[3]}}; }
  [[nodiscard]] static Lanes4 splat(float x) noexcept { return {{x, x, x, x}}; }
  void store(float* p) const noexcept {
    for (int i = 0; i < 4; ++i) p[i] = v[i];
  }
  template <class Op>
  [[nodiscard]] static Lanes4 each(Lanes4 a, Lanes4 b, Op op) noexcept {
    return {{op(a.v[0], b.v[0]), op(a.v[1], b.v[1]), op(a.v[2], b.v[2]), op(a.v[3], b.v[3])}};
  }
  [[nodiscard]] friend Lanes4 operator+(Lanes4 a, Lanes4 b) noexcept { return each(a, b, [](float x, float y) { return x + y; }); }
  [[nodiscard]] friend Lanes4 operator-(Lanes4 a, Lanes4 b) noexcept { return each(a, b, [](float x, float y) { return x - y; }); }
  [[nodiscard]] friend Lanes4 operator*(Lanes4 a, Lanes4 b) noexcept { return each(a, b, [](float x, float y) { return x * y; }); }
  [[nodiscard]] friend Lanes4 min(Lanes4 a, Lanes4 b) noexcept { return each(a, b, [](float x, float y) { return x < y ? x : y; }); }
  [[nodiscard]] friend Lanes4 max(Lanes4 a, Lanes4 b) noexcept { return each(a, b, [](float x, float y) { return x > y ? x : y; }); }
  [[nodiscard]] float min_lane() const noexcept {
    float m = v[0];
    for (int i = 1; i < 4; ++i) m = v[i] < m ? v[i] : m;
    return m;
  }
  [[nodiscard]] float max_lane() const noexcept {
    float m = v[0];
    for (int i = 1; i < 4; ++i) m = v[i] > m ? v[i] : m;
    return m;
  }
  [[nodiscard]] friend Mask4 operator<=(Lanes4 a, Lanes4 b) noexcept {
    unsigned m = 0;
    for (int i = 0; i < 4; ++i) m |= static_cast<unsigned>(a.v[i] <= b.v[i]) << i;
    return {m};
  }
};

#endif

}  // namespace agrid::detail
