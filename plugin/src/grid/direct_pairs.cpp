#include "grid/direct_pairs.h"

#include <algorithm>
#include <limits>

#include "common/pair_key.h"

namespace agrid::detail {

void DirectPairs::collect_keys(std::span<const Box> boxes, std::span<const std::uint32_t> ids,
                               std::span<const std::uint8_t> probing, Kernel kernel) {
  entries_.clear();
  probing_entries_.clear();
  for (std::uint32_t i = 0; i < boxes.size(); ++i) {
    if (!is_valid(boxes[i])) continue;
    const std::uint32_t id = ids.empty() ? i : ids[i];
    entries_.push(boxes[i], id, kOwnAllAxes);
    if (!probing.empty() && probing[i] != 0) probing_entries_.push(boxes[i], id, kOwnAllAxes);
  }
  const std::uint32_t end = entries_.size();
  const std::uint32_t probing_end = probing_entries_.size();
  entries_.pad(kKernelPadding);
  probing_entries_.pad(kKernelPadding);
  keys_.clear();
  // Kernel::avx2 falls back to scalar where the CPU lacks AVX2.
  const Kernel chosen = kernel == Kernel::automatic ? Kernel::avx2 : kernel;
  if (probing.empty()) {
    // One cell that owns every pair, its entries in order: the kernels test each box against
    // those after it and give the keys in ascending order, except the AVX-512 kernel's cells of
    // 17 to 32 entries, which it gives register by register (sorted below: few keys).
    const CellRange cell{0, end};
    append_cell_pairs(entries_, std::span<const CellRange>(&cell, 1), std::numeric_limits<std::uint32_t>::max(),
                      LargeCells::unsorted, chosen, scratch_, keys_);
    const std::span<std::uint64_t> keys = keys_.keys();
    if (!std::is_sorted(keys.begin(), keys.end())) std::sort(keys.begin(), keys.end());
    return;
  }
  // Each box in order against the boxes after it: all of them if it probes, else the probing
  // ones. Each range is in order, so the keys come in ascending order.
  std::uint32_t next_probing = 0;  // the first probing entry after the current box
  for (std::uint32_t e = 0; e < end; ++e) {
    const std::uint32_t id = entries_.id[e];
    const bool probes = next_probing < probing_end && probing_entries_.id[next_probing] == id;
    if (probes) {
      ++next_probing;
      append_box_pairs(entries_, {e + 1, end}, entries_.box(e), kOwnAllAxes, id, chosen, keys_);
    } else if (next_probing < probing_end) {
      append_box_pairs(probing_entries_, {next_probing, probing_end}, entries_.box(e), kOwnAllAxes, id, chosen, keys_);
    }
  }
}

void DirectPairs::find_keys(std::span<const Box> boxes, std::span<const std::uint32_t> ids,
                            std::span<const std::uint8_t> probing, Kernel kernel, std::vector<std::uint64_t>& keys) {
  collect_keys(boxes, ids, probing, kernel);
  keys.insert(keys.end(), keys_.keys().begin(), keys_.keys().end());
}

void DirectPairs::find_pairs(std::span<const Box> boxes, Kernel kernel, std::vector<Pair>& out) {
  collect_keys(boxes, {}, {}, kernel);
  out.clear();
  for (const std::uint64_t key : keys_.keys()) out.push_back(pair_of(key));
}

}  // namespace agrid::detail
