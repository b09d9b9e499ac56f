#pragma once
// EntryArrays: boxes as the grid holds them, structure of arrays, with their owner bits.

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "agrid/box.h"
#include "common/uninitialized_vector.h"

namespace agrid::detail {

/// All three owner bits set: the pair's owner cell is this one on every axis.
inline constexpr std::uint8_t kOwnAllAxes = 0b111;

/// `count` as a 32-bit entry count; throws std::length_error if it does not fit (ids and entry
/// indices are 32-bit, so inputs near 2^32 boxes with many copies are refused, never wrapped).
[[nodiscard]] inline std::uint32_t checked_entry_count(std::uint64_t count) {
  if (count >= std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("agrid::Grid::build: more than 2^32 - 2 box copies");
  }
  return static_cast<std::uint32_t>(count);
}

/// A box on its way down the levels of a build: one record, so that distributing boxes to
/// 64 children writes 64 streams, not 64 per array.
struct alignas(32) WorkEntry {
  float lo[3];
  float hi[3];
  std::uint32_t id;
  /// Owner bits relative to the cell the entry is in: bit a set iff the box's min corner lies
  /// in that cell on axis a. A pair held by a cell is owned by it iff the two boxes' bits OR
  /// to kOwnAllAxes, since the min corner of their intersection is the larger min corner.
  std::uint32_t owner;

  [[nodiscard]] Box box() const noexcept { return {{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}}; }
};

/// Copies of boxes held by nodes, in structure-of-arrays form for vectorised tests.
struct EntryArrays {
  UninitializedVector<float> lo[3];
  UninitializedVector<float> hi[3];
  UninitializedVector<std::uint32_t> id;
  UninitializedVector<std::uint8_t> owner;  ///< Owner bits, as in WorkEntry::owner.

  /// Forgets the entries, keeps the memory.
  void clear() noexcept { count_ = 0; }

  [[nodiscard]] std::uint32_t size() const noexcept { return count_; }

  /// Makes sure `n` entries fit without growing again.
  void reserve(std::uint32_t n) {
    if (id.size() >= n) return;
    for (int a = 0; a < 3; ++a) {
      lo[a].resize(n);
      hi[a].resize(n);
    }
    id.resize(n);
    owner.resize(n);
  }

  /// Makes room for `n` more entries, to be written with set(); returns the first's index.
  /// The arrays only ever grow, so a warm frame neither allocates nor clears memory.
  std::uint32_t grow(std::uint32_t n) {
    const std::uint32_t first = count_;
    count_ = checked_entry_count(std::uint64_t{count_} + n);
    if (id.size() < count_) reserve(checked_entry_count(std::max<std::uint64_t>(count_, 2 * std::uint64_t{id.size()})));
    return first;
  }

  /// Appends one entry.
  void push(const Box& b, std::uint32_t box_id, std::uint32_t owner_bits);

  /// Appends `count` entries that no kernel reports (their lanes are masked off): kernels read
  /// whole vector registers past the end of a cell.
  void pad(std::uint32_t count) {
    for (std::uint32_t k = 0; k < count; ++k) push(Box{}, 0, 0);
  }

  [[nodiscard]] Box box(std::uint32_t i) const noexcept {
    return {{lo[0][i], lo[1][i], lo[2][i]}, {hi[0][i], hi[1][i], hi[2][i]}};
  }

  [[nodiscard]] std::size_t bytes_held() const noexcept {
    return (lo[0].capacity() * 6) * sizeof(float) + id.capacity() * sizeof(std::uint32_t) + owner.capacity();
  }

 private:
  std::uint32_t count_ = 0;
};

/// Writes entries into EntryArrays through raw pointers, for the scatter loops (valid until the
/// arrays grow again).
class EntryWriter {
 public:
  explicit EntryWriter(EntryArrays& e) noexcept
      : lo_{e.lo[0].data(), e.lo[1].data(), e.lo[2].data()},
        hi_{e.hi[0].data(), e.hi[1].data(), e.hi[2].data()},
        id_(e.id.data()),
        owner_(e.owner.data()) {}

  /// Entry i: a record's bounds, id and owner bits, read straight from it.
  void write(std::uint32_t i, const WorkEntry& r) const noexcept {
    lo_[0][i] = r.lo[0];
    lo_[1][i] = r.lo[1];
    lo_[2][i] = r.lo[2];
    hi_[0][i] = r.hi[0];
    hi_[1][i] = r.hi[1];
    hi_[2][i] = r.hi[2];
    id_[i] = r.id;
    owner_[i] = static_cast<std::uint8_t>(r.owner);
  }

  /// Entry i: bounds, id and owner bits.
  void write(std::uint32_t i, const Box& b, std::uint32_t id, std::uint32_t owner) const noexcept {
    lo_[0][i] = b.min.x;
    lo_[1][i] = b.min.y;
    lo_[2][i] = b.min.z;
    hi_[0][i] = b.max.x;
    hi_[1][i] = b.max.y;
    hi_[2][i] = b.max.z;
    id_[i] = id;
    owner_[i] = static_cast<std::uint8_t>(owner);
  }

 private:
  float* __restrict lo_[3];
  float* __restrict hi_[3];
  std::uint32_t* __restrict id_;
  std::uint8_t* __restrict owner_;
};

inline void EntryArrays::push(const Box& b, std::uint32_t box_id, std::uint32_t owner_bits) {
  const std::uint32_t i = grow(1);
  EntryWriter(*this).write(i, b, box_id, owner_bits);
}

}  // namespace agrid::detail
