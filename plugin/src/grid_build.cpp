// Building the grid: fit the lattice to the data, then split cells level by level.

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "grid_impl.h"

namespace agrid {
namespace {

using detail::LatticeBox;
using detail::Node;

/// Boxes sampled to estimate the typical box size when fitting the lattice.
constexpr std::uint32_t kExtentSamples = 64;
/// Boxes larger than this many typical boxes do not pull the root's bounds: a static plane or
/// a terrain must not stretch the cells of everything else.
constexpr float kOutlierExtentFactor = 1024.0f;
/// Smallest root size, so that the lattice scale stays a finite float.
constexpr double kMinRootSize = 1e-30;

[[nodiscard]] float largest_extent(const Box& b) noexcept {
  return std::max({b.max.x - b.min.x, b.max.y - b.min.y, b.max.z - b.min.z});
}

// The typical (median) size of a box, from an evenly strided sample of valid boxes.
[[nodiscard]] float typical_extent(std::span<const Box> boxes) {
  std::array<float, kExtentSamples> sample{};
  std::uint32_t count = 0;
  const std::size_t stride = std::max<std::size_t>(1, boxes.size() / kExtentSamples);
  for (std::size_t i = 0; i < boxes.size() && count < kExtentSamples; i += stride) {
    // NaN extents ([inf, inf] boxes) sort as if infinite.
    if (is_valid(boxes[i])) {
      const float e = largest_extent(boxes[i]);
      sample[count++] = std::isnan(e) ? std::numeric_limits<float>::infinity() : e;
    }
  }
  if (count == 0) return 0.0f;
  auto mid = sample.begin() + count / 2;
  std::nth_element(sample.begin(), mid, sample.begin() + count);
  return *mid;
}

// The root cell: a cube around the centres of all valid boxes of ordinary size.
[[nodiscard]] detail::Lattice fit_lattice(std::span<const Box> boxes) {
  const float typical = typical_extent(boxes);
  const float limit = typical * kOutlierExtentFactor;
  float lo[3] = {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity(),
                 std::numeric_limits<float>::infinity()};
  float hi[3] = {-lo[0], -lo[1], -lo[2]};
  for (const Box& b : boxes) {
    if (!is_valid(b) || !(largest_extent(b) <= limit)) continue;
    // Halves first: the sum of two large coordinates would overflow.
    const float c[3] = {b.min.x * 0.5f + b.max.x * 0.5f, b.min.y * 0.5f + b.max.y * 0.5f,
                        b.min.z * 0.5f + b.max.z * 0.5f};
    if (!std::isfinite(c[0]) || !std::isfinite(c[1]) || !std::isfinite(c[2])) continue;
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], c[a]);
      hi[a] = std::max(hi[a], c[a]);
    }
  }
  detail::Lattice lattice;
  if (!(lo[0] <= hi[0])) return lattice;  // no box of ordinary size: any lattice is correct
  double size = 0.0;
  for (int a = 0; a < 3; ++a) {
    lattice.origin[a] = lo[a];
    size = std::max(size, static_cast<double>(hi[a]) - static_cast<double>(lo[a]));
  }
  if (!(size > 0.0)) size = std::isfinite(typical) && typical > 0.0f ? typical : 1.0;
  size = std::max(size, kMinRootSize);
  lattice.scale = static_cast<float>(detail::kLatticeSteps / size);
  lattice.cell_size_root = detail::kLatticeSteps / static_cast<double>(lattice.scale);
  return lattice;
}

// Bit a set iff the lattice coordinate `lo` lies in `cell` on axis a at `shift`.
[[nodiscard]] std::uint8_t start_bits(const LatticeBox& q, const std::uint32_t cell[3],
                                      std::uint32_t shift) noexcept {
  std::uint8_t bits = 0;
  for (int a = 0; a < 3; ++a) {
    if ((q.lo[a] >> shift) == cell[a]) bits = static_cast<std::uint8_t>(bits | (1u << a));
  }
  return bits;
}

// Per-entry code of a split: the child range on each axis in 2 bits per end, and the stay flag.
constexpr std::uint16_t kStayFlag = 1u << 12;

[[nodiscard]] std::uint32_t code_lo(std::uint16_t code, int axis) noexcept { return (code >> (4 * axis)) & 3u; }
[[nodiscard]] std::uint32_t code_hi(std::uint16_t code, int axis) noexcept { return (code >> (4 * axis + 2)) & 3u; }

}  // namespace

void Grid::Impl::build(std::span<const Box> boxes) {
  if (boxes.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("agrid::Grid::build: at most 2^32 - 2 boxes are supported");
  }
  const auto count = static_cast<std::uint32_t>(boxes.size());
  nodes.clear();
  leaf.clear();
  stay.clear();
  stay_lattice.clear();
  stats = GridStats{};
  stats.boxes = count;

  lattice = fit_lattice(boxes);
  box_lattice.resize(count);
  level_entries.clear();
  for (std::uint32_t i = 0; i < count; ++i) {
    if (!is_valid(boxes[i])) continue;
    box_lattice[i] = lattice.quantize(boxes[i]);
    level_entries.push_back(i);
  }
  stats.invalid_boxes = count - static_cast<std::uint32_t>(level_entries.size());

  nodes.push_back(Node{{0, 0, 0}, 0, 0, 0, 0, 0, 0, 0});
  pending.clear();
  pending.push_back({0, 0, static_cast<std::uint32_t>(level_entries.size())});

  for (std::uint32_t level = 0; !pending.empty(); ++level) {
    stats.depth = level;
    next_entries.clear();
    next_pending.clear();
    for (const detail::PendingNode& p : pending) {
      const std::uint32_t n = p.end - p.begin;
      if (n <= config.leaf_capacity || level == kMaxDepth) {
        make_leaf(p, boxes);
      } else {
        split(p, boxes);
      }
    }
    std::swap(level_entries, next_entries);
    std::swap(pending, next_pending);
  }

  stats.nodes = static_cast<std::uint32_t>(nodes.size());
  stats.leaves = static_cast<std::uint32_t>(
      std::count_if(nodes.begin(), nodes.end(), [](const Node& n) { return n.is_leaf(); }));
  stats.oversize_boxes = nodes[0].stay_end - nodes[0].stay_begin;
  stats.leaf_entries = leaf.size();
  stats.staying_entries = stay.size();
  stats.bytes_held = bytes_held();
}

void Grid::Impl::make_leaf(const detail::PendingNode& p, std::span<const Box> boxes) {
  Node& node = nodes[p.node];
  const std::uint32_t shift = detail::level_shift(node.level);
  node.leaf_begin = leaf.size();
  for (std::uint32_t k = p.begin; k < p.end; ++k) {
    const std::uint32_t id = level_entries[k];
    leaf.push(boxes[id], id, start_bits(box_lattice[id], node.cell, shift));
  }
  node.leaf_end = leaf.size();
}

void Grid::Impl::split(const detail::PendingNode& p, std::span<const Box> boxes) {
  const std::uint32_t node_index = p.node;
  const std::uint32_t level = nodes[node_index].level;
  const std::uint32_t shift = detail::level_shift(level);
  const std::uint32_t child_shift = shift - 2;
  std::uint32_t cell[3];
  std::uint32_t base[3];
  for (int a = 0; a < 3; ++a) {
    cell[a] = nodes[node_index].cell[a];
    base[a] = cell[a] << 2;
  }

  // Pass 1: each entry's child range, or its stay at this node; count entries per child.
  std::array<std::uint32_t, 64> counts{};
  child_codes.resize(p.end - p.begin);
  nodes[node_index].stay_begin = stay.size();
  for (std::uint32_t k = p.begin; k < p.end; ++k) {
    const std::uint32_t id = level_entries[k];
    const LatticeBox& q = box_lattice[id];
    std::uint32_t code = 0;
    bool stays = false;
    for (int a = 0; a < 3; ++a) {
      const std::uint32_t g_lo = q.lo[a] >> child_shift;
      const std::uint32_t g_hi = q.hi[a] >> child_shift;
      stays |= g_hi - g_lo >= config.big_span;
      // Clip to this node: the box may reach beyond it (it entered the node through a copy).
      const std::uint32_t lo = g_lo > base[a] ? g_lo - base[a] : 0;
      const std::uint32_t hi = std::min(g_hi - base[a], 3u);
      code |= (lo | (hi << 2)) << (4 * a);
    }
    if (stays) {
      child_codes[k - p.begin] = kStayFlag;
      stay.push(boxes[id], id, start_bits(q, cell, shift));
      stay_lattice.push_back(q);
      continue;
    }
    const auto c = static_cast<std::uint16_t>(code);
    child_codes[k - p.begin] = c;
    for (std::uint32_t z = code_lo(c, 2); z <= code_hi(c, 2); ++z) {
      for (std::uint32_t y = code_lo(c, 1); y <= code_hi(c, 1); ++y) {
        for (std::uint32_t x = code_lo(c, 0); x <= code_hi(c, 0); ++x) ++counts[detail::child_index(x, y, z)];
      }
    }
  }
  nodes[node_index].stay_end = stay.size();

  // Children, in ascending index order, with their slices of the next level's entries.
  std::array<std::uint32_t, 64> offsets{};
  std::uint64_t mask = 0;
  auto offset = static_cast<std::uint32_t>(next_entries.size());
  const auto first_child = static_cast<std::uint32_t>(nodes.size());
  for (std::uint32_t i = 0; i < 64; ++i) {
    if (counts[i] == 0) continue;
    mask |= std::uint64_t{1} << i;
    offsets[i] = offset;
    const std::uint32_t child_cell[3] = {base[0] + (i & 3u), base[1] + ((i >> 2) & 3u), base[2] + (i >> 4)};
    const auto child = static_cast<std::uint32_t>(nodes.size());
    nodes.push_back(Node{{child_cell[0], child_cell[1], child_cell[2]}, level + 1, 0, 0, 0, 0, 0, 0});
    next_pending.push_back({child, offset, offset + counts[i]});
    offset += counts[i];
  }
  nodes[node_index].child_mask = mask;
  nodes[node_index].first_child = first_child;

  // Pass 2: scatter the entries, keeping their order (ascending ids) within every child.
  next_entries.resize(offset);
  for (std::uint32_t k = p.begin; k < p.end; ++k) {
    const std::uint16_t c = child_codes[k - p.begin];
    if (c & kStayFlag) continue;
    const std::uint32_t id = level_entries[k];
    for (std::uint32_t z = code_lo(c, 2); z <= code_hi(c, 2); ++z) {
      for (std::uint32_t y = code_lo(c, 1); y <= code_hi(c, 1); ++y) {
        for (std::uint32_t x = code_lo(c, 0); x <= code_hi(c, 0); ++x) {
          next_entries[offsets[detail::child_index(x, y, z)]++] = id;
        }
      }
    }
  }
}

}  // namespace agrid
