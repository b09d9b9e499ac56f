#pragma once
// ChildCode and GrandchildCode: where an entry goes when a cell splits, in 16 bits.

#include <array>
#include <cstdint>

namespace agrid::detail {

/// Index of child (x, y, z) within its parent.
[[nodiscard]] constexpr std::uint32_t child_index(std::uint32_t x, std::uint32_t y, std::uint32_t z) noexcept {
  return x + 4 * y + 16 * z;
}

/// A cell's coordinates at its level (lattice coordinates >> level_shift).
using CellCoords = std::array<std::uint32_t, 3>;

/// Cell coordinates, one level down, of child `index` of the cell `parent`.
[[nodiscard]] constexpr CellCoords child_cell(const CellCoords& parent, std::uint32_t index) noexcept {
  return {(parent[0] << 2) + (index & 3u), (parent[1] << 2) + ((index >> 2) & 3u), (parent[2] << 2) + (index >> 4)};
}

/// Where an entry goes when its cell splits into 4 x 4 x 4 children: the index x + 4y + 16z
/// of the lowest child it overlaps, the axes on which it also overlaps the next child (its
/// spread), its owner bits in that lowest child, and whether it stays with the cell (too large
/// to descend, or, at the root, invalid: the scatter tells those apart).
class ChildCode {
 public:
  static constexpr std::uint32_t kSpreadShift = 6;
  static constexpr std::uint16_t kStayFlag = 1u << 9;
  static constexpr std::uint32_t kOwnerShift = 10;

  constexpr explicit ChildCode(std::uint16_t bits) noexcept : bits_(bits) {}

  /// Index of the lowest child the entry overlaps.
  [[nodiscard]] constexpr std::uint32_t first() const noexcept { return bits_ & 63u; }
  /// Axes (bit a for axis a) on which the entry also overlaps the next child.
  [[nodiscard]] constexpr std::uint32_t spread() const noexcept { return (bits_ >> kSpreadShift) & 7u; }
  /// Axes on which the entry's min corner lies in its lowest child.
  [[nodiscard]] constexpr std::uint32_t owner_bits() const noexcept { return (bits_ >> kOwnerShift) & 7u; }
  /// Too large for the children: the entry stays with the cell.
  [[nodiscard]] constexpr bool stays() const noexcept { return (bits_ & kStayFlag) != 0; }
  [[nodiscard]] constexpr std::uint16_t bits() const noexcept { return bits_; }

 private:
  std::uint16_t bits_;
};

/// Where a box goes when the root splits straight into its 16 x 16 x 16 grandchildren: the
/// lowest cell x + 16y + 256z, the axes on which the box also overlaps the next cell, and a
/// flag for a box too large to descend that far (or invalid): it stays with the root. Owner
/// bits are all set (nothing is clipped at the root).
class GrandchildCode {
 public:
  static constexpr std::uint16_t kIndexMask = (1u << 12) - 1;
  static constexpr std::uint32_t kSpreadShift = 12;
  static constexpr std::uint16_t kRefusedFlag = 1u << 15;

  constexpr explicit GrandchildCode(std::uint16_t bits) noexcept : bits_(bits) {}

  [[nodiscard]] constexpr std::uint32_t first() const noexcept { return bits_ & kIndexMask; }
  [[nodiscard]] constexpr std::uint32_t spread() const noexcept { return (bits_ >> kSpreadShift) & 7u; }
  [[nodiscard]] constexpr bool stays() const noexcept { return (bits_ & kRefusedFlag) != 0; }
  [[nodiscard]] constexpr std::uint16_t bits() const noexcept { return bits_; }

 private:
  std::uint16_t bits_;
};

}  // namespace agrid::detail
