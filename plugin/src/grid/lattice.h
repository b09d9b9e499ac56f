#pragma once
// Lattice: maps world coordinates monotonically onto the integer grid every level shares.

#include <cstdint>
#include <limits>
#include <span>

#include "agrid/box.h"
#include "agrid/limits.h"

namespace agrid::detail {

// kMaxDepth and kLatticeSteps, the limits a user sees, are defined once in agrid/limits.h.

/// Bits per axis of the integer lattice: two per level (4 cells per axis per level).
inline constexpr std::uint32_t kLatticeBits = 2 * kMaxDepth;
static_assert(kLatticeSteps == std::uint64_t{1} << kLatticeBits, "agrid/limits.h: kLatticeSteps is 4^kMaxDepth");
static_assert(kLatticeBits <= static_cast<std::uint32_t>(std::numeric_limits<float>::digits),
              "every lattice coordinate must be an integer a float holds exactly (agrid/limits.h)");
/// Largest lattice coordinate, as a float (exact: it is below 2^24).
inline constexpr float kLatticeMaxF = static_cast<float>(kLatticeSteps - 1u);

/// Shift that turns a lattice coordinate into a cell coordinate at `level`.
[[nodiscard]] constexpr std::uint32_t level_shift(std::uint32_t level) noexcept {
  return kLatticeBits - 2 * level;
}

/// Lattice coordinates of a box's corners.
struct LatticeBox {
  std::uint32_t lo[3];
  std::uint32_t hi[3];
};

/// q(x) = clamp(floor((x - origin) * scale), 0, 2^24 - 1). It is monotone in x, which is all
/// correctness needs: for boxes a, b the point max(a.min, b.min) maps to max(q(a.min),
/// q(b.min)), so the cell that owns a pair is computed from stored integers, exactly and
/// identically everywhere. Precision only affects how well the grid separates boxes.
struct Lattice {
  float origin[3] = {0.0f, 0.0f, 0.0f};
  float scale = 1.0f;          ///< Steps per world unit; finite and > 0.
  /// World size of the root cell, kLatticeSteps / scale (with the default scale too: the
  /// segment walk sizes cells by it while quantize() places boxes by the scale).
  double cell_size_root = kLatticeSteps;
  /// The median largest extent of the sampled boxes (0 if none): how wide a typical box is,
  /// which tells the split engine how many entries a sweep tests per box.
  float typical_extent = 0.0f;

  [[nodiscard]] std::uint32_t quantize(float x, int axis) const noexcept {
    float t = (x - origin[axis]) * scale;  // never NaN: x is not NaN and origin, scale finite
    t = t > 0.0f ? t : 0.0f;
    t = t < kLatticeMaxF ? t : kLatticeMaxF;
    // Through int32 (exact below 2^24): the signed conversion vectorises on every x86-64.
    return static_cast<std::uint32_t>(static_cast<std::int32_t>(t));
  }

  [[nodiscard]] LatticeBox quantize(const Box& b) const noexcept {
    return {{quantize(b.min.x, 0), quantize(b.min.y, 1), quantize(b.min.z, 2)},
            {quantize(b.max.x, 0), quantize(b.max.y, 1), quantize(b.max.z, 2)}};
  }
};

// The fit's rule (docs/grid.md, "The lattice"), named once for lattice.cpp and the test that
// checks it against the rule done plainly.

/// Boxes sampled to fit the lattice: enough for a stable typical size and for bounds that
/// cover all but a sliver of the boxes. The fit then costs about 7 us on the project's machine
/// (a fifth of a 1,000-box grid's build and pairs, nothing beside a large build's).
inline constexpr std::uint32_t kLatticeSamples = 1024;
/// Sampled boxes larger than this many typical boxes do not pull the root's bounds: a static
/// plane or a terrain must not stretch the cells of everything else.
inline constexpr float kOutlierExtentFactor = 1024.0f;
/// The root's bounds on each axis come from the sample's centres between the 1/kTrimDivisor
/// and 1 - 1/kTrimDivisor quantiles, widened by kFenceFactor times their spread: a few far boxes
/// (under 1/kTrimDivisor of the sample, like the article scenes' three teapots) are left out
/// even when the sample holds every box, while a uniform or clustered scene keeps all its
/// centres (its tails lie well within the fence).
inline constexpr std::uint32_t kTrimDivisor = 128;
inline constexpr double kFenceFactor = 0.5;
/// Smallest root size, so that the lattice scale stays a finite float.
inline constexpr double kMinRootSize = 1e-30;

/// The lattice for a build: a cube around the centres of a deterministic sample of the valid
/// boxes of ordinary size (planes, terrain and infinite boxes do not stretch it; far outliers
/// are clamped into its border cells). Any lattice is correct; this one separates well.
[[nodiscard]] Lattice fit_lattice(std::span<const Box> boxes);

}  // namespace agrid::detail
