#include "direct_pairs.h"

#include <algorithm>
#include <limits>

#include "pair_key.h"

namespace agrid::detail {

void DirectPairs::find_pairs(std::span<const Box> boxes, Kernel kernel, std::vector<Pair>& out) {
  // One cell that owns every pair, its entries in index order: the kernels then test each box
  // against those after it and give the keys in ascending order, except the AVX-512 kernel's
  // cells of 17 to 32 entries, which it gives register by register (then sorted: few keys).
  entries_.clear();
  for (std::uint32_t i = 0; i < boxes.size(); ++i) {
    if (is_valid(boxes[i])) entries_.push(boxes[i], i, kOwnAllAxes);
  }
  const CellRange cell{0, entries_.size()};
  entries_.pad(kKernelPadding);
  keys_.clear();
  // Kernel::avx2 falls back to scalar where the CPU lacks AVX2.
  const Kernel chosen = kernel == Kernel::automatic ? Kernel::avx2 : kernel;
  append_cell_pairs(entries_, std::span<const CellRange>(&cell, 1), std::numeric_limits<std::uint32_t>::max(),
                    LargeCells::unsorted, chosen, scratch_, keys_);
  const std::span<std::uint64_t> keys = keys_.keys();
  if (!std::is_sorted(keys.begin(), keys.end())) std::sort(keys.begin(), keys.end());
  out.clear();
  for (const std::uint64_t key : keys) out.push_back(pair_of(key));
}

}  // namespace agrid::detail
