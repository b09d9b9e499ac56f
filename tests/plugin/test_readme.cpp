// The README's example, with its comments turned into assertions, so the README stays true.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "agrid/agrid.h"

namespace agrid::test {
namespace {

TEST(Readme, ExampleDoesWhatItSays) {
  std::vector<agrid::Box> boxes = {{{0, 0, 0}, {1, 1, 1}}, {{0.5f, 0.5f, 0.5f}, {2, 2, 2}}, {{5, 5, 5}, {6, 6, 6}}};
  std::vector<Pair> found;
  for (auto [a, b] : agrid::find_all_pairs(boxes)) found.push_back({a, b});
  EXPECT_EQ(found, (std::vector<Pair>{{0, 1}}));

  agrid::Grid grid;
  std::vector<agrid::Pair> pairs;
  grid.build(boxes);
  grid.find_pairs(pairs);
  EXPECT_EQ(pairs, found);
  std::vector<std::uint32_t> overlapping;
  grid.for_each_overlap(agrid::Box{{0, 0, 0}, {0.6f, 0.6f, 0.6f}}, [&](std::uint32_t i) { overlapping.push_back(i); });
  std::sort(overlapping.begin(), overlapping.end());
  EXPECT_EQ(overlapping, (std::vector<std::uint32_t>{0, 1}));
  std::vector<std::uint32_t> hit;
  grid.for_each_hit(agrid::Segment{{-1, 0.5f, 0.5f}, {9, 0.5f, 0.5f}}, [&](std::uint32_t i) {
    hit.push_back(i);
    return true;
  });
  std::sort(hit.begin(), hit.end());
  EXPECT_EQ(hit, (std::vector<std::uint32_t>{0, 1}));

  agrid::Tree tree;                    // all pairs on all cores of the caller's task arena
  tree.build(boxes);
  tree.find_pairs(pairs);              // the same pairs as the grid's, on any number of threads
  EXPECT_EQ(pairs, found);
}

}  // namespace
}  // namespace agrid::test
