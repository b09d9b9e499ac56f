#pragma once
// EntryArrays: boxes as the grid holds them, structure of arrays, with their owner bits.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "agrid/box.h"

namespace agrid::detail {

/// All three owner bits set: the pair's owner cell is this one on every axis.
inline constexpr std::uint8_t kOwnAllAxes = 0b111;

/// A box on its way down the levels of a build: one record, so that distributing boxes to
/// 64 children writes 64 streams, not 64 per array.
struct alignas(32) WorkEntry {
  float lo[3];
  float hi[3];
  std::uint32_t id;
  /// Owner bits relative to the cell the entry is in: bit a set iff the box's min corner lies
  /// in that cell on axis a. A pair held by a cell is owned by it iff the two boxes' bits OR
  /// to kOwnAllAxes, since the min corner of their intersection is the larger min corner.
  std::uint32_t start;

  [[nodiscard]] Box box() const noexcept { return {{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}}; }
};

/// Copies of boxes held by nodes, in structure-of-arrays form for vectorised tests.
struct EntryArrays {
  std::vector<float> lo[3];
  std::vector<float> hi[3];
  std::vector<std::uint32_t> id;
  std::vector<std::uint8_t> start;  ///< Owner bits, as in WorkEntry::start.

  void clear() noexcept {
    for (int a = 0; a < 3; ++a) {
      lo[a].clear();
      hi[a].clear();
    }
    id.clear();
    start.clear();
  }

  [[nodiscard]] std::uint32_t size() const noexcept { return static_cast<std::uint32_t>(id.size()); }

  void push(const Box& b, std::uint32_t box_id, std::uint8_t start_bits) {
    lo[0].push_back(b.min.x);
    lo[1].push_back(b.min.y);
    lo[2].push_back(b.min.z);
    hi[0].push_back(b.max.x);
    hi[1].push_back(b.max.y);
    hi[2].push_back(b.max.z);
    id.push_back(box_id);
    start.push_back(start_bits);
  }

  /// Appends `count` entries that no kernel reports (their lanes are masked off): kernels read
  /// whole vector registers past the end of a cell.
  void pad(std::uint32_t count) {
    for (std::uint32_t k = 0; k < count; ++k) push(Box{}, 0, 0);
  }

  /// Appends the records [begin, end); returns the new size.
  std::uint32_t append(const WorkEntry* records, std::uint32_t begin, std::uint32_t end) {
    const std::uint32_t old = size();
    const std::uint32_t n = old + (end - begin);
    resize_bounds(n);
    start.resize(n);
    for (std::uint32_t k = begin; k < end; ++k) {
      const WorkEntry& r = records[k];
      const std::uint32_t i = old + (k - begin);
      for (int a = 0; a < 3; ++a) {
        lo[a][i] = r.lo[a];
        hi[a][i] = r.hi[a];
      }
      id[i] = r.id;
      start[i] = static_cast<std::uint8_t>(r.start);
    }
    return n;
  }

  /// Resizes the bounds and ids (not the owner bits: work arrays have none).
  void resize_bounds(std::uint32_t n) {
    for (int a = 0; a < 3; ++a) {
      lo[a].resize(n);
      hi[a].resize(n);
    }
    id.resize(n);
  }

  [[nodiscard]] Box box(std::uint32_t i) const noexcept {
    return {{lo[0][i], lo[1][i], lo[2][i]}, {hi[0][i], hi[1][i], hi[2][i]}};
  }

  [[nodiscard]] std::size_t bytes_held() const noexcept {
    return (lo[0].capacity() * 6) * sizeof(float) + id.capacity() * sizeof(std::uint32_t) +
           start.capacity();
  }
};

}  // namespace agrid::detail
