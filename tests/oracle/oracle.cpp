#include "oracle/oracle.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace agrid::oracle {
namespace {

float coord(const Vec3& v, int axis) noexcept {
  switch (axis) {
    case 0: return v.x;
    case 1: return v.y;
    default: return v.z;
  }
}

// Closed intervals [a_lo, a_hi] and [b_lo, b_hi] of valid boxes (no NaN here) meet iff neither
// lies strictly on one side of the other.
bool intervals_meet(float a_lo, float a_hi, float b_lo, float b_hi) noexcept {
  return !(a_hi < b_lo) && !(b_hi < a_lo);
}

bool axis_meets(const Box& a, const Box& b, int axis) noexcept {
  return intervals_meet(coord(a.min, axis), coord(a.max, axis), coord(b.min, axis),
                        coord(b.max, axis));
}

}  // namespace

bool valid(const Box& b) noexcept {
  for (int axis = 0; axis < 3; ++axis) {
    const float lo = coord(b.min, axis);
    const float hi = coord(b.max, axis);
    if (std::isnan(lo) || std::isnan(hi)) return false;
    if (lo > hi) return false;
  }
  return true;
}

bool intersect(const Box& a, const Box& b) noexcept {
  if (!valid(a) || !valid(b)) return false;
  return axis_meets(a, b, 0) && axis_meets(a, b, 1) && axis_meets(a, b, 2);
}

bool valid(const Segment& s) noexcept {
  for (int axis = 0; axis < 3; ++axis) {
    if (!std::isfinite(coord(s.from, axis)) || !std::isfinite(coord(s.to, axis))) return false;
    if (!std::isfinite(coord(s.extent.min, axis)) || !std::isfinite(coord(s.extent.max, axis))) {
      return false;
    }
  }
  return valid(s.extent);
}

std::uint32_t count_invalid(std::span<const Box> boxes) noexcept {
  std::uint32_t n = 0;
  for (const Box& b : boxes) n += valid(b) ? 0u : 1u;
  return n;
}

std::vector<Pair> brute_force_pairs(std::span<const Box> boxes) {
  std::vector<Pair> out;
  const auto n = static_cast<std::uint32_t>(boxes.size());
  // i ascending, then j ascending: the output is born sorted.
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t j = i + 1; j < n; ++j) {
      if (intersect(boxes[i], boxes[j])) out.push_back(Pair{i, j});
    }
  }
  return out;
}

std::vector<Pair> sweep_pairs(std::span<const Box> boxes) {
  std::vector<std::uint32_t> order;
  order.reserve(boxes.size());
  for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(boxes.size()); ++i) {
    if (valid(boxes[i])) order.push_back(i);  // invalid boxes meet nothing: leave them out
  }
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (boxes[a].min.x != boxes[b].min.x) return boxes[a].min.x < boxes[b].min.x;
    return a < b;
  });
  std::vector<Pair> out;
  for (std::size_t p = 0; p < order.size(); ++p) {
    const Box& a = boxes[order[p]];
    // Every later box starts at or after a.min.x, so it meets a on x iff it starts by a.max.x.
    for (std::size_t q = p + 1; q < order.size() && boxes[order[q]].min.x <= a.max.x; ++q) {
      const Box& b = boxes[order[q]];
      if (axis_meets(a, b, 1) && axis_meets(a, b, 2)) {
        out.push_back(Pair{std::min(order[p], order[q]), std::max(order[p], order[q])});
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Pair> pairs(std::span<const Box> boxes) {
  return boxes.size() <= 1500 ? brute_force_pairs(boxes) : sweep_pairs(boxes);
}

std::vector<std::uint32_t> query(std::span<const Box> boxes, const Box& query) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(boxes.size()); ++i) {
    if (intersect(boxes[i], query)) out.push_back(i);
  }
  return out;
}

std::vector<std::uint32_t> query(std::span<const Box> boxes, const Segment& segment) {
  std::vector<std::uint32_t> out;
  if (!valid(segment)) return out;
  for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(boxes.size()); ++i) {
    if (valid(boxes[i]) && agrid::hits(segment, boxes[i])) out.push_back(i);
  }
  return out;
}

}  // namespace agrid::oracle
