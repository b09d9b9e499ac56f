#pragma once
// The rules a split follows, shared by the grid and the tree of grids: which children an entry
// reaches, when a split pays, and the root's two-level split into its grandchildren.

#include <algorithm>
#include <cstdint>
#include <span>

#include "agrid/box.h"
#include "agrid/config.h"
#include "child_coder.h"
#include "entries.h"

namespace agrid::detail {

// The children an entry with spread bits s overlaps, as offsets from its lowest child.
struct SpreadTable {
  std::uint8_t count[8];
  std::uint8_t offset[8][8];
  std::uint8_t axes[8][8];  ///< Axes on which that child is above the lowest one.
};

constexpr SpreadTable make_spread_table() {
  SpreadTable t{};
  for (std::uint32_t s = 0; s < 8; ++s) {
    std::uint8_t n = 0;
    for (std::uint32_t dz = 0; dz <= ((s >> 2) & 1u); ++dz) {
      for (std::uint32_t dy = 0; dy <= ((s >> 1) & 1u); ++dy) {
        for (std::uint32_t dx = 0; dx <= (s & 1u); ++dx) {
          t.axes[s][n] = static_cast<std::uint8_t>(dx | (dy << 1) | (dz << 2));
          t.offset[s][n++] = static_cast<std::uint8_t>(child_index(dx, dy, dz));
        }
      }
    }
    t.count[s] = n;
  }
  return t;
}
inline constexpr SpreadTable kSpread = make_spread_table();

// Splitting a cell pays when its boxes are small beside the children: few stay behind and few
// are copied into several children. Otherwise the cell is finished as a leaf.
[[nodiscard]] inline bool worth_splitting(const Config& config, std::uint32_t entries, std::uint32_t staying,
                                   std::uint32_t copies) noexcept {
  return static_cast<float>(staying) <= config.max_staying_share * static_cast<float>(entries) &&
         static_cast<float>(copies) <= config.max_copies_per_box * static_cast<float>(entries);
}

/// Whether a child of `count` entries at `level` is finished now (a leaf of the grid, a task of
/// the tree) rather than split at the next level: it holds at most `capacity` entries, or it
/// is at the deepest level.
[[nodiscard]] constexpr bool child_is_finished(std::uint32_t count, std::uint32_t capacity, std::uint32_t level) noexcept {
  return count <= capacity || level >= kMaxDepth;
}

// Where a split or a leaf reads its entries: the records of a level ...
struct RecordSource {
  const WorkEntry* records;

  [[nodiscard]] static constexpr bool present(std::uint32_t) noexcept { return true; }
  [[nodiscard]] const float* bounds(std::uint32_t k) const noexcept { return records[k].lo; }
  [[nodiscard]] const WorkEntry& entry(std::uint32_t k) const noexcept { return records[k]; }
};

// ... or, at the root, the caller's boxes themselves, which saves copying every box once.
struct BoxSource {
  const Box* boxes;

  [[nodiscard]] bool present(std::uint32_t k) const noexcept { return is_valid(boxes[k]); }
  [[nodiscard]] const float* bounds(std::uint32_t k) const noexcept { return &boxes[k].min.x; }
  [[nodiscard]] WorkEntry entry(std::uint32_t k) const noexcept {
    const Box& b = boxes[k];
    return {{b.min.x, b.min.y, b.min.z}, {b.max.x, b.max.y, b.max.z}, k, kOwnAllAxes};
  }
};

/// The root's grandchildren: 16 x 16 x 16 cells of level 2.
inline constexpr std::uint32_t kGrandchildren = 4096;
/// The root is split straight into its grandchildren when it holds more than this many times
/// leaf_capacity boxes (as many as its children): then its children would split too.
inline constexpr std::uint32_t kTwoLevelFactor = 64;

/// Boxes whose grandchild codes are tried before committing to the two-level split.
inline constexpr std::uint32_t kTwoLevelSamples = 1024;

// The offset, among grandchildren x + 16y + 256z, of the next cell on the given axes.
[[nodiscard]] constexpr std::uint32_t grandchild_offset(std::uint32_t axes) noexcept {
  return (axes & 1u) + 16 * ((axes >> 1) & 1u) + 256 * (axes >> 2);
}

// Copies of a box with this grandchild code among the root's children and grandchildren.
struct TwoLevelCopies {
  std::uint64_t children = 0;
  std::uint64_t grandchildren = 0;

  void add(GrandchildCode code) noexcept {
    const std::uint32_t spread = code.spread();
    // Axes on which the box also reaches the next child: it spreads from a lowest cell that is
    // the last of its child (low two bits of that axis's 4-bit coordinate set).
    const std::uint32_t first = code.first();
    const std::uint32_t last = first & (first >> 1) & 0x111u;
    const std::uint32_t child_axes = spread & ((last & 1u) | ((last >> 3) & 2u) | ((last >> 6) & 4u));
    children += kSpread.count[child_axes];
    grandchildren += kSpread.count[spread];
  }

  // Whether splitting the root and then every child pays, by the rule a split of one level
  // applies (Config::max_copies_per_box), for boxes in all.
  [[nodiscard]] bool pays(const Config& config, std::uint64_t boxes) const noexcept {
    const double limit = config.max_copies_per_box;
    return static_cast<double>(children) <= limit * static_cast<double>(boxes) &&
           static_cast<double>(grandchildren) <= limit * static_cast<double>(children);
  }
};

/// Whether a deterministic sample of the boxes says the root's two-level split pays: few boxes
/// would stay with the root, and copies stay within the one-level rule. `coder` codes the
/// root's grandchildren. A sample decides first, so that scenes where it does not pay do not
/// pay for a pass over every box that is then refused.
[[nodiscard]] inline bool sample_says_two_levels_pay(const Config& config, const ChildCoder& coder,
                                                     std::span<const Box> boxes) noexcept {
  const auto count = static_cast<std::uint32_t>(boxes.size());
  TwoLevelCopies sampled;
  std::uint32_t sampled_boxes = 0;
  std::uint32_t sampled_staying = 0;
  for (std::uint32_t i = 0; i < count; i += std::max<std::uint32_t>(1, count / kTwoLevelSamples)) {
    if (!is_valid(boxes[i])) continue;
    const GrandchildCode code = coder.grandchild_code(&boxes[i].min.x);
    ++sampled_boxes;
    if (code.stays()) {
      ++sampled_staying;
      continue;
    }
    sampled.add(code);
  }
  return sampled.pays(config, sampled_boxes - sampled_staying) &&
         static_cast<float>(sampled_staying) <= config.max_staying_share * static_cast<float>(sampled_boxes);
}

}  // namespace agrid::detail
