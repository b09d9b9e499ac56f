// sap: sort the boxes by their min on the axis where their centres vary most, then sweep: each
// box meets the later ones whose min is not past its max on that axis, tested on the other two
// (Terdiman's box pruning).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "peers_impl.h"

namespace agrid::peers {
namespace {

/// The axis along which the finite centres of the valid boxes vary most (x when none is finite).
int widest_axis(std::span<const Box> boxes) {
  double sum[3] = {0, 0, 0};
  double squares[3] = {0, 0, 0};
  double count = 0;
  for (const Box& b : boxes) {
    const double c[3] = {0.5 * b.min.x + 0.5 * b.max.x, 0.5 * b.min.y + 0.5 * b.max.y, 0.5 * b.min.z + 0.5 * b.max.z};
    if (!is_valid(b) || !std::isfinite(c[0]) || !std::isfinite(c[1]) || !std::isfinite(c[2])) continue;
    for (int a = 0; a < 3; ++a) {
      sum[a] += c[a];
      squares[a] += c[a] * c[a];
    }
    count += 1;
  }
  int best = 0;
  double best_variance = -1;
  for (int a = 0; a < 3 && count > 0; ++a) {
    const double variance = squares[a] / count - (sum[a] / count) * (sum[a] / count);
    if (variance > best_variance) {
      best_variance = variance;
      best = a;
    }
  }
  return best;
}

class Sap final : public Peer {
 public:
  [[nodiscard]] std::string_view name() const override { return "sap"; }

  void find_pairs(std::span<const Box> boxes, std::vector<Pair>& out) override {
    out.clear();
    const int axis = widest_axis(boxes);
    const int other[2] = {(axis + 1) % 3, (axis + 2) % 3};
    order_.clear();
    for (std::uint32_t i = 0; i < boxes.size(); ++i) {
      if (is_valid(boxes[i])) order_.push_back(i);
    }
    std::sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) {
      const float ma = boxes[a].min[axis];
      const float mb = boxes[b].min[axis];
      return ma != mb ? ma < mb : a < b;
    });
    for (std::size_t k = 0; k < order_.size(); ++k) {
      const Box& a = boxes[order_[k]];
      const float end = a.max[axis];
      for (std::size_t l = k + 1; l < order_.size() && boxes[order_[l]].min[axis] <= end; ++l) {
        const Box& b = boxes[order_[l]];
        bool meet = true;
        for (const int o : other) meet = meet && a.min[o] <= b.max[o] && b.min[o] <= a.max[o];
        if (meet) out.push_back({std::min(order_[k], order_[l]), std::max(order_[k], order_[l])});
      }
    }
    std::sort(out.begin(), out.end());
  }

 private:
  std::vector<std::uint32_t> order_;
};

}  // namespace

std::unique_ptr<Peer> make_sap() { return std::make_unique<Sap>(); }

}  // namespace agrid::peers
