#pragma once
// FuzzInput: turns a fuzzer's bytes into configs, boxes and small numbers, for the fuzz targets
// (fuzz_pairs.cpp, fuzz_broadphase.cpp, fuzz_bullet.cpp). Every byte string is a valid input:
// reads past the end give zeros, so the fuzzer can grow or cut inputs anywhere.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "agrid/box.h"
#include "agrid/config.h"

namespace agrid::fuzz {

/// Stops the run with a message when a result differs from the oracle's: libFuzzer saves the
/// input that did it, and the corpus replay test fails.
inline void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz: %s differs from the oracle\n", what);
  std::abort();
}

class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}

  /// True once every byte has been read.
  [[nodiscard]] bool empty() const noexcept { return position_ >= size_; }

  /// The next byte, or 0 past the end.
  std::uint8_t byte() noexcept { return position_ < size_ ? data_[position_++] : 0; }

  /// The next four bytes as a float's bits: any float, NaNs and infinities included.
  float raw_float() noexcept;

  /// One byte as a coordinate: a half-integer in [-4, 4] (so boxes often touch and overlap), or
  /// one of the catalogue's special coordinates (agrid_scenes/adversarial.h: NaN, infinities,
  /// 1e30, FLT_MAX, denormals, -0, ...).
  float coded_float() noexcept;

  /// A box of raw floats (six arbitrary floats) or of coded ones (ordered min <= max unless a
  /// flag byte asks for an inverted one).
  Box box(bool raw) noexcept;

  /// A usable configuration from one byte, reaching the extremes of each knob (one-box leaves,
  /// sweeps of two, no staying boxes, a tree for a handful of boxes, one-entry tasks).
  Config config() noexcept;

  /// config(), then one byte of the Broadphase's own knobs: the fat margin, when moving objects
  /// rest, and whether they query the resting tree one by one or pair with it in one grid, so
  /// that every path of Broadphase::update runs (fuzz_broadphase.cpp, fuzz_bullet.cpp).
  Config broadphase_config() noexcept;

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t position_ = 0;
};

}  // namespace agrid::fuzz
