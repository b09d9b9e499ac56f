#pragma once
// Kernels that find the owned overlapping pairs among the entries of a cell.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "agrid/config.h"
#include "common/pair_key.h"
#include "grid/entries.h"
#include "grid/key_buffer.h"
#include "grid/min_x_order.h"

namespace agrid::detail {

/// Entries a kernel may read past the last one of a cell (the sweep reads two vector registers
/// of 16 at a time); every EntryArrays handed to a kernel ends with this many padding entries.
inline constexpr std::uint32_t kKernelPadding = 32;

/// A cell's entries: [begin, end) of an EntryArrays.
struct CellRange {
  std::uint32_t begin;
  std::uint32_t end;

  [[nodiscard]] std::uint32_t size() const noexcept { return end - begin; }
};

/// Scratch memory of the sort-and-sweep kernel, kept between calls.
struct SweepScratch {
  std::vector<std::uint32_t> entries;  ///< The cell's entries ...
  std::vector<std::uint32_t> order;    ///< ... in order of min x ...
  MinXOrder min_x;                     ///< ... as sorted by this.
  EntryArrays sorted;                  ///< The entries in that order, padded.

  [[nodiscard]] std::size_t bytes_held() const noexcept {
    return (entries.capacity() + order.capacity()) * sizeof(std::uint32_t) + min_x.bytes_held() + sorted.bytes_held();
  }
};

/// Whether the cells of more than sweep_threshold entries are already in order of min x (the
/// leaves of a build are) or must be sorted first (the staying entries of a node).
enum class LargeCells : std::uint8_t { sorted, unsorted };

/// Appends the key of every pair of entries within each cell that overlap and that the cell
/// owns. Cells up to `sweep_threshold` entries are tested all against all, larger ones by
/// sort-and-sweep. `entries` must end with kKernelPadding padding entries.
void append_cell_pairs(const EntryArrays& entries, std::span<const CellRange> cells, std::uint32_t sweep_threshold,
                       LargeCells large_cells, Kernel kernel, SweepScratch& scratch, KeyBuffer& keys);

/// Appends the key of (box_id, e) for every entry e of `range` that overlaps `box` and whose
/// pair with a box of owner bits `box_owner` the holding cell owns. `entries` must end with
/// kKernelPadding padding entries.
void append_box_pairs(const EntryArrays& entries, CellRange range, const Box& box, std::uint8_t box_owner,
                      std::uint32_t box_id, Kernel kernel, KeyBuffer& keys);

}  // namespace agrid::detail
