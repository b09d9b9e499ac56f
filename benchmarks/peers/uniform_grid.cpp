// uniform-grid: one fixed grid of cubic cells, sized from the boxes' mean longest edge; each box
// is listed in every cell it touches, the boxes of each cell are tested all against all, and a
// pair found in several cells is kept once (sorted, duplicates removed). The article's second
// stage. It cannot take an infinite box, nor boxes that would fill more cells than
// kMaxCellsPerBox times their count (a few huge boxes among small ones): a fixed grid has no
// answer to either.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "peers_impl.h"

namespace agrid::peers {
namespace {

/// Cell copies allowed per box, on average, before the grid refuses the boxes.
constexpr double kMaxCellsPerBox = 64;
/// Bits of a cell index per axis in a cell's key (three in 63 bits).
constexpr int kCellBits = 21;
constexpr double kMaxCells = static_cast<double>(1u << kCellBits);

struct Layout {
  double origin[3] = {0, 0, 0};
  double cell = 1;
  double copies = 0;  ///< Cell copies of all boxes.
  bool finite = true;
  bool fits = true;   ///< Every cell index fits kCellBits.
};

Layout layout_of(std::span<const Box> boxes) {
  Layout l;
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL};
  double hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  double edges = 0;
  double valid = 0;
  for (const Box& b : boxes) {
    if (!is_valid(b)) continue;
    for (int a = 0; a < 3; ++a) {
      if (!std::isfinite(b.min[a]) || !std::isfinite(b.max[a])) l.finite = false;
      lo[a] = std::min(lo[a], static_cast<double>(b.min[a]));
      hi[a] = std::max(hi[a], static_cast<double>(b.max[a]));
    }
    edges += std::max({static_cast<double>(b.max.x) - b.min.x, static_cast<double>(b.max.y) - b.min.y,
                       static_cast<double>(b.max.z) - b.min.z});
    valid += 1;
  }
  if (!l.finite || valid == 0) return l;
  l.cell = edges > 0 ? edges / valid : 1.0;
  for (int a = 0; a < 3; ++a) {
    l.origin[a] = lo[a];
    if ((hi[a] - lo[a]) / l.cell >= kMaxCells) l.fits = false;
  }
  for (const Box& b : boxes) {
    if (!is_valid(b)) continue;
    double cells = 1;
    for (int a = 0; a < 3; ++a) cells *= std::floor((b.max[a] - l.origin[a]) / l.cell) - std::floor((b.min[a] - l.origin[a]) / l.cell) + 1;
    l.copies += cells;
  }
  return l;
}

class UniformGrid final : public Peer {
 public:
  [[nodiscard]] std::string_view name() const override { return "uniform-grid"; }

  [[nodiscard]] std::string cannot_take(std::span<const Box> boxes) const override {
    const Layout l = layout_of(boxes);
    if (!l.finite) return "an infinite box would fill infinitely many cells";
    if (!l.fits) return "the boxes span more than 2^21 cells of the mean box's size on an axis";
    if (l.copies > kMaxCellsPerBox * static_cast<double>(boxes.size())) {
      return "a few large boxes would fill more than 64 cells per box on average";
    }
    return {};
  }

  void find_pairs(std::span<const Box> boxes, std::vector<Pair>& out) override {
    out.clear();
    const Layout l = layout_of(boxes);
    entries_.clear();
    for (std::uint32_t i = 0; i < boxes.size(); ++i) {
      const Box& b = boxes[i];
      if (!is_valid(b)) continue;
      std::uint64_t first[3];
      std::uint64_t last[3];
      for (int a = 0; a < 3; ++a) {
        first[a] = static_cast<std::uint64_t>((b.min[a] - l.origin[a]) / l.cell);
        last[a] = static_cast<std::uint64_t>((b.max[a] - l.origin[a]) / l.cell);
      }
      for (std::uint64_t x = first[0]; x <= last[0]; ++x) {
        for (std::uint64_t y = first[1]; y <= last[1]; ++y) {
          for (std::uint64_t z = first[2]; z <= last[2]; ++z) {
            entries_.push_back({(x << (2 * kCellBits)) | (y << kCellBits) | z, i});
          }
        }
      }
    }
    std::sort(entries_.begin(), entries_.end(), [](const Entry& p, const Entry& q) {
      return p.cell != q.cell ? p.cell < q.cell : p.box < q.box;
    });
    for (std::size_t begin = 0; begin < entries_.size();) {
      std::size_t end = begin + 1;
      while (end < entries_.size() && entries_[end].cell == entries_[begin].cell) ++end;
      for (std::size_t p = begin; p < end; ++p) {
        for (std::size_t q = p + 1; q < end; ++q) {
          if (overlaps(boxes[entries_[p].box], boxes[entries_[q].box])) out.push_back({entries_[p].box, entries_[q].box});
        }
      }
      begin = end;
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }

 private:
  struct Entry {
    std::uint64_t cell;
    std::uint32_t box;
  };
  std::vector<Entry> entries_;
};

}  // namespace

std::unique_ptr<Peer> make_uniform_grid() { return std::make_unique<UniformGrid>(); }

}  // namespace agrid::peers
