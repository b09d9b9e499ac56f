// MinXOrder, the sort behind the sweep kernel, against std::stable_sort: random values, many
// equal ones, infinities, all equal, sorted and reversed input.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "agrid_scenes/random.h"
#include "grid/min_x_order.h"

namespace agrid::test {
namespace {

// MinXOrder's order of indices 0 .. n-1 of `values`, and the stable sort's.
void expect_stable_order(const std::vector<float>& values) {
  std::vector<std::uint32_t> indices(values.size());
  for (std::uint32_t i = 0; i < indices.size(); ++i) indices[i] = i;
  std::vector<std::uint32_t> expected = indices;
  std::stable_sort(expected.begin(), expected.end(), [&](std::uint32_t a, std::uint32_t b) { return values[a] < values[b]; });
  detail::MinXOrder sorter;
  std::vector<std::uint32_t> order;
  sorter.sort(indices, [&](std::uint32_t i) { return values[i]; }, order);
  EXPECT_EQ(order, expected);
}

TEST(MinXOrder, MatchesAStableSort) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  agrid::scenes::Random random(7);
  const auto spread = [&random] { return random.uniform(-100.0f, 100.0f); };
  constexpr std::uint32_t kFewValues = 4;  // 0 to 3
  for (const std::uint32_t n : {0u, 1u, 2u, 17u, 300u, 5000u}) {
    std::vector<float> uniform(n), repeated(n), with_infinities(n), equal(n, 2.5f), ascending(n), descending(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      uniform[i] = spread();
      repeated[i] = static_cast<float>(random.below(kFewValues));
      with_infinities[i] = i % 7 == 0 ? -kInf : (i % 11 == 0 ? kInf : spread());
      ascending[i] = static_cast<float>(i);
      descending[i] = -static_cast<float>(i);
    }
    for (const auto* values : {&uniform, &repeated, &with_infinities, &equal, &ascending, &descending}) {
      expect_stable_order(*values);
    }
  }
}

TEST(MinXOrder, SortsAnySubsetOfIndices) {
  const std::vector<float> values = {5, 1, 4, 1, 3, 9, 2, 6};
  detail::MinXOrder sorter;
  std::vector<std::uint32_t> order;
  sorter.sort({7, 2, 3, 0}, [&](std::uint32_t i) { return values[i]; }, order);
  EXPECT_EQ(order, (std::vector<std::uint32_t>{3, 2, 0, 7}));
}

}  // namespace
}  // namespace agrid::test
