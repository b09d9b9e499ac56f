#pragma once
// EntryArrays: boxes as the grid holds them, structure of arrays, with their owner bits.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "agrid/box.h"

namespace agrid::detail {

/// All three owner bits set: the pair's owner cell is this one on every axis.
inline constexpr std::uint8_t kOwnAllAxes = 0b111;

/// A read-only slice of EntryArrays.
struct EntrySpan {
  const float* lo[3];
  const float* hi[3];
  const std::uint32_t* id;
  /// Bit a is set iff the box's min corner lies in the holding cell on axis a. A pair of boxes
  /// held by a cell is owned by that cell iff (start_i | start_j) == kOwnAllAxes, because the
  /// min corner of their intersection is the larger of their min corners.
  const std::uint8_t* start;
  std::uint32_t count;
};

/// Copies of boxes held by nodes, in structure-of-arrays form for vectorised tests.
struct EntryArrays {
  std::vector<float> lo[3];
  std::vector<float> hi[3];
  std::vector<std::uint32_t> id;
  std::vector<std::uint8_t> start;

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

  /// Appends entries [begin, end) of `src` (owner bits left zero); returns the new size.
  std::uint32_t append(const EntryArrays& src, std::uint32_t begin, std::uint32_t end) {
    for (int a = 0; a < 3; ++a) {
      lo[a].insert(lo[a].end(), src.lo[a].begin() + begin, src.lo[a].begin() + end);
      hi[a].insert(hi[a].end(), src.hi[a].begin() + begin, src.hi[a].begin() + end);
    }
    id.insert(id.end(), src.id.begin() + begin, src.id.begin() + end);
    start.resize(id.size());
    return size();
  }

  /// Resizes the bounds and ids (not the owner bits: work arrays have none).
  void resize_bounds(std::uint32_t n) {
    for (int a = 0; a < 3; ++a) {
      lo[a].resize(n);
      hi[a].resize(n);
    }
    id.resize(n);
  }

  /// Copies entry j of `src` (bounds and id) over entry i.
  void copy_bounds(std::uint32_t i, const EntryArrays& src, std::uint32_t j) noexcept {
    for (int a = 0; a < 3; ++a) {
      lo[a][i] = src.lo[a][j];
      hi[a][i] = src.hi[a][j];
    }
    id[i] = src.id[j];
  }

  [[nodiscard]] Box box(std::uint32_t i) const noexcept {
    return {{lo[0][i], lo[1][i], lo[2][i]}, {hi[0][i], hi[1][i], hi[2][i]}};
  }

  [[nodiscard]] EntrySpan slice(std::uint32_t begin, std::uint32_t end) const noexcept {
    return {{lo[0].data() + begin, lo[1].data() + begin, lo[2].data() + begin},
            {hi[0].data() + begin, hi[1].data() + begin, hi[2].data() + begin},
            id.data() + begin,
            start.data() + begin,
            end - begin};
  }

  [[nodiscard]] std::size_t bytes_held() const noexcept {
    return (lo[0].capacity() * 6) * sizeof(float) + id.capacity() * sizeof(std::uint32_t) +
           start.capacity();
  }
};

}  // namespace agrid::detail
