// Grid::for_each_cell against what the cells must be: a known layout gives known cells, and on a
// random scene every level tiles space, every child lies in a parent, the counts agree with the
// stats, and each leaf holds exactly the boxes that brute force finds overlapping it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "agrid/grid.h"
#include "agrid/grid_cell.h"
#include "agrid/limits.h"
#include "support/random_scenes.h"

namespace agrid::test {
namespace {

/// The known layout: 4 x 4 x 4 unit boxes, centres this far apart, one per child of the root.
constexpr int kSide = 4;
constexpr float kSpacing = 10.0f;
/// A float round trip through the lattice moves a bound by a few ulps of the scene's size.
constexpr float kBoundsTolerance = 1e-4f;
/// The random scene: few enough boxes that fit_lattice samples them all (so none is clamped
/// into a border cell from outside the root), all small enough to reach the leaves.
constexpr std::uint32_t kRandomBoxes = 1000;
constexpr float kRandomScene = 40.0f;
constexpr float kMinEdge = 0.2f;
constexpr float kMaxEdge = 1.5f;

std::vector<GridCell> cells_of(const Grid& grid) {
  std::vector<GridCell> cells;
  grid.for_each_cell([&](const GridCell& c) { cells.push_back(c); });
  return cells;
}

float lo(const Box& b, int axis) { return axis == 0 ? b.min.x : axis == 1 ? b.min.y : b.min.z; }
float hi(const Box& b, int axis) { return axis == 0 ? b.max.x : axis == 1 ? b.max.y : b.max.z; }

// Whether a and b share space, each grown by `margin` (negative: shrunk) on every side.
bool meet(const Box& a, const Box& b, float margin) {
  for (int axis = 0; axis < 3; ++axis) {
    if (lo(a, axis) - margin > hi(b, axis) + margin || lo(b, axis) - margin > hi(a, axis) + margin) return false;
  }
  return true;
}

bool inside(const Box& inner, const Box& outer) {
  for (int axis = 0; axis < 3; ++axis) {
    if (lo(inner, axis) < lo(outer, axis) - kBoundsTolerance || hi(inner, axis) > hi(outer, axis) + kBoundsTolerance) {
      return false;
    }
  }
  return true;
}

TEST(GridCells, NoneBeforeABuild) {
  const Grid grid;
  EXPECT_TRUE(cells_of(grid).empty());
}

TEST(GridCells, KnownLayoutHasOneLeafPerBox) {
  std::vector<Box> boxes;
  for (int z = 0; z < kSide; ++z) {
    for (int y = 0; y < kSide; ++y) {
      for (int x = 0; x < kSide; ++x) {
        const Vec3 c{kSpacing * static_cast<float>(x), kSpacing * static_cast<float>(y), kSpacing * static_cast<float>(z)};
        boxes.push_back({{c.x - 0.5f, c.y - 0.5f, c.z - 0.5f}, {c.x + 0.5f, c.y + 0.5f, c.z + 0.5f}});
      }
    }
  }
  Config config;
  config.sweep_window = 0;  // split, though sweeping the 64 boxes would pay
  Grid grid(config);
  grid.build(boxes);
  const std::vector<GridCell> cells = cells_of(grid);
  ASSERT_EQ(cells.size(), 1u + boxes.size());
  // The root: a cube around the centres with half a box of margin.
  const GridCell& root = cells.front();
  EXPECT_EQ(root.level, 0u);
  EXPECT_FALSE(root.leaf);
  EXPECT_EQ(root.entries, 0u);
  const float root_size = kSpacing * (kSide - 1) + 1.0f;
  for (int axis = 0; axis < 3; ++axis) {
    EXPECT_NEAR(lo(root.bounds, axis), -0.5f, kBoundsTolerance);
    EXPECT_NEAR(hi(root.bounds, axis), root_size - 0.5f, kBoundsTolerance);
  }
  // Each child: a leaf of one box, a quarter of the root on each axis, around its box.
  for (std::size_t i = 1; i < cells.size(); ++i) {
    const GridCell& c = cells[i];
    EXPECT_EQ(c.level, 1u);
    EXPECT_TRUE(c.leaf);
    EXPECT_EQ(c.entries, 1u);
    for (int axis = 0; axis < 3; ++axis) EXPECT_NEAR(hi(c.bounds, axis) - lo(c.bounds, axis), root_size / 4, kBoundsTolerance);
    const auto held = std::count_if(boxes.begin(), boxes.end(), [&](const Box& b) { return inside(b, c.bounds); });
    EXPECT_EQ(held, 1) << "cell " << i;
  }
}

TEST(GridCells, RandomSceneMatchesBruteForce) {
  Rng rng(7);
  std::vector<Box> boxes(kRandomBoxes);
  for (Box& b : boxes) {
    const Vec3 c{rng.uniform(0.0f, kRandomScene), rng.uniform(0.0f, kRandomScene), rng.uniform(0.0f, kRandomScene)};
    const Vec3 h{rng.uniform(kMinEdge, kMaxEdge) / 2, rng.uniform(kMinEdge, kMaxEdge) / 2, rng.uniform(kMinEdge, kMaxEdge) / 2};
    b = {{c.x - h.x, c.y - h.y, c.z - h.z}, {c.x + h.x, c.y + h.y, c.z + h.z}};
  }
  Config config;
  config.leaf_capacity = 4;  // several levels deep
  Grid grid(config);
  grid.build(boxes);
  const GridStats stats = grid.stats();
  ASSERT_EQ(stats.staying_entries, 0u) << "the brute force below expects every box in leaves";
  const std::vector<GridCell> cells = cells_of(grid);
  ASSERT_EQ(cells.size(), stats.nodes);
  ASSERT_GE(stats.depth, 2u);

  std::uint32_t leaves = 0;
  std::uint32_t entries = 0;
  std::uint32_t deepest = 0;
  for (const GridCell& c : cells) {
    leaves += c.leaf;
    entries += c.entries;
    deepest = std::max(deepest, c.level);
  }
  EXPECT_EQ(leaves, stats.leaves);
  EXPECT_EQ(entries, stats.leaf_entries);
  EXPECT_EQ(deepest, stats.depth);

  const float root_size = hi(cells.front().bounds, 0) - lo(cells.front().bounds, 0);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const GridCell& c = cells[i];
    const float size = root_size / std::pow(4.0f, static_cast<float>(c.level));
    for (int axis = 0; axis < 3; ++axis) EXPECT_NEAR(hi(c.bounds, axis) - lo(c.bounds, axis), size, kBoundsTolerance);
    for (std::size_t j = 0; j < cells.size(); ++j) {
      // Cells of one level tile space: none shares more than a face with another.
      if (j != i && cells[j].level == c.level) {
        EXPECT_FALSE(meet(c.bounds, cells[j].bounds, -kBoundsTolerance)) << "cells " << i << " and " << j;
      }
    }
    if (c.level > 0) {
      const bool has_parent = std::any_of(cells.begin(), cells.begin() + static_cast<std::ptrdiff_t>(i), [&](const GridCell& p) {
        return !p.leaf && p.level + 1 == c.level && inside(c.bounds, p.bounds);
      });
      EXPECT_TRUE(has_parent) << "cell " << i << " has no parent before it";
    }
    if (!c.leaf) continue;
    // A leaf holds every box that meets it: at least those well inside, at most those near.
    const auto count = [&](float margin) {
      return std::count_if(boxes.begin(), boxes.end(), [&](const Box& b) { return meet(b, c.bounds, margin); });
    };
    EXPECT_GE(static_cast<long>(c.entries), static_cast<long>(count(-kBoundsTolerance))) << "leaf " << i;
    EXPECT_LE(static_cast<long>(c.entries), static_cast<long>(count(kBoundsTolerance))) << "leaf " << i;
  }
  // Every box is in some leaf.
  for (std::size_t b = 0; b < boxes.size(); ++b) {
    const bool held = std::any_of(cells.begin(), cells.end(), [&](const GridCell& c) {
      return c.leaf && c.entries > 0 && meet(boxes[b], c.bounds, kBoundsTolerance);
    });
    EXPECT_TRUE(held) << "box " << b;
  }
}

TEST(GridCells, CoincidentBoxesSplitToMaxDepthAndNoFurther) {
  // Two clusters of point boxes: no split ever separates a cluster's boxes, so their cells
  // split down to kMaxDepth, where the lattice runs out of bits and they become leaves.
  constexpr std::uint32_t kPerCluster = 8;
  std::vector<Box> boxes;
  for (const float at : {0.0f, 1.0f}) boxes.insert(boxes.end(), kPerCluster, Box{{at, at, at}, {at, at, at}});
  Config config;
  config.leaf_capacity = 1;
  config.sweep_window = 0;  // split, never sweep
  Grid grid(config);
  grid.build(boxes);
  EXPECT_EQ(grid.stats().depth, kMaxDepth);
  const std::vector<GridCell> cells = cells_of(grid);
  ASSERT_FALSE(cells.empty());
  const float root_size = hi(cells.front().bounds, 0) - lo(cells.front().bounds, 0);
  std::uint32_t deepest_leaves = 0;
  std::uint32_t at_origin = 0;
  for (const GridCell& c : cells) {
    EXPECT_LE(c.level, kMaxDepth);
    if (c.level < kMaxDepth) continue;
    EXPECT_TRUE(c.leaf);
    EXPECT_EQ(c.entries, kPerCluster);
    ++deepest_leaves;
    // The one at the origin (where floats are finest): one lattice step, root / kLatticeSteps.
    if (lo(c.bounds, 0) <= 0.0f && hi(c.bounds, 0) >= 0.0f) {
      ++at_origin;
      for (int axis = 0; axis < 3; ++axis) {
        EXPECT_NEAR(hi(c.bounds, axis) - lo(c.bounds, axis), root_size / static_cast<float>(kLatticeSteps),
                    1e-3f * root_size / static_cast<float>(kLatticeSteps));
      }
    }
  }
  EXPECT_EQ(deepest_leaves, 2u);
  EXPECT_EQ(at_origin, 1u);
}

TEST(GridCells, VisitStopsEarly) {
  Rng rng(3);
  std::vector<Box> boxes(kRandomBoxes);
  for (Box& b : boxes) {
    const Vec3 c{rng.uniform(0.0f, kRandomScene), rng.uniform(0.0f, kRandomScene), rng.uniform(0.0f, kRandomScene)};
    b = {{c.x, c.y, c.z}, {c.x + 1, c.y + 1, c.z + 1}};
  }
  Grid grid;
  grid.build(boxes);
  ASSERT_GT(grid.stats().nodes, 2u);
  int visits = 0;
  grid.for_each_cell([&](const GridCell&) { return ++visits < 2; });
  EXPECT_EQ(visits, 2);
}

}  // namespace
}  // namespace agrid::test
