// The resting tree (plugin/src/box_tree/box_tree.h) on its own: random inserts, removes, builds
// and refits with its invariant checked after each, box queries exactly equal to a brute-force loop, segment
// queries never missing a box agrid::hits meets (its float node test is conservative), on
// ordinary scenes and on the catalogue's huge, infinite, tiny and far boxes; and problem()
// catching damage.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "agrid/segment.h"
#include "box_tree/box_tree.h"
#include "common/box_ops.h"
#include "common/segment_math.h"
#include "oracle/oracle.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

/// What problem() says, "" when nothing.
std::string problem_of(const detail::BoxTree& tree) {
  const char* p = tree.problem();
  return p == nullptr ? "" : p;
}

constexpr float kInf = std::numeric_limits<float>::infinity();

/// The objects of `tree` whose leaf a box query reports, sorted.
std::vector<std::uint32_t> found_by(const detail::BoxTree& tree, const Box& query) {
  std::vector<std::uint32_t> found;
  tree.query(query, [&](std::uint32_t object) {
    found.push_back(object);
    return true;
  });
  std::sort(found.begin(), found.end());
  return found;
}

/// The objects a segment query reports, sorted.
std::vector<std::uint32_t> found_by(const detail::BoxTree& tree, const Segment& segment) {
  const detail::PreparedSegment prepared(segment);
  std::vector<std::uint32_t> found;
  tree.query(detail::NodeSegment(prepared), [&](std::uint32_t object) {
    found.push_back(object);
    return true;
  });
  std::sort(found.begin(), found.end());
  return found;
}

/// Checks every query of `boxes` and `segments` against the leaves in `leaves` (object -> box).
void expect_exact_queries(const detail::BoxTree& tree, const std::map<std::uint32_t, Box>& leaves,
                          const std::vector<Box>& boxes, const std::vector<Segment>& segments) {
  for (const Box& query : boxes) {
    if (!is_valid(query)) continue;
    std::vector<std::uint32_t> expected;
    for (const auto& [object, box] : leaves) {
      if (overlaps(query, box)) expected.push_back(object);
    }
    ASSERT_TRUE(same_indices(expected, found_by(tree, query)));
  }
  for (const Segment& segment : segments) {
    if (!is_valid(segment)) continue;
    const std::vector<std::uint32_t> found = found_by(tree, segment);
    for (const auto& [object, box] : leaves) {
      if (hits(segment, box)) {
        ASSERT_TRUE(std::binary_search(found.begin(), found.end(), object))
            << "the tree missed object " << object << " that the segment hits";
      }
    }
    ASSERT_TRUE(std::adjacent_find(found.begin(), found.end()) == found.end()) << "an object reported twice";
  }
}

/// The tree's invariant holds, its leaves are exactly `leaves` with their boxes, and `queries`
/// box and segment queries around them (seeded by `seed`) are exact.
void expect_leaves_and_queries(const detail::BoxTree& tree, const std::map<std::uint32_t, Box>& leaves,
                               std::uint32_t queries, std::uint64_t seed) {
  ASSERT_EQ(problem_of(tree), "");
  ASSERT_EQ(tree.leaves(), leaves.size());
  std::vector<Box> present;
  for (const auto& [object, box] : leaves) {
    present.push_back(box);
    ASSERT_TRUE(detail::same_box(tree.box(object), box));
  }
  expect_exact_queries(tree, leaves, query_boxes(present, queries, seed), query_segments(present, queries, seed));
}

/// The valid boxes of a random scene with the catalogue's hard ones mixed in.
std::vector<Box> hard_scene(std::uint64_t seed, std::uint32_t count) {
  Rng rng(seed);
  std::vector<Box> boxes;
  const Box bounds{{0, 0, 0}, {100, 100, 100}};
  for (std::uint32_t i = 0; i < count; ++i) {
    const float x = rng.uniform(0.0f, 100.0f);
    const float y = rng.uniform(0.0f, 100.0f);
    const float z = rng.uniform(0.0f, 100.0f);
    boxes.push_back({{x, y, z}, {x + rng.uniform(0.0f, 3.0f), y + rng.uniform(0.0f, 3.0f), z + rng.uniform(0.0f, 3.0f)}});
  }
  for (const auto& more : {scenes::huge_boxes(bounds), scenes::tiny_and_far_boxes(bounds), scenes::extreme_boxes(bounds)}) {
    for (const Box& b : more) {
      if (is_valid(b)) boxes.push_back(b);
    }
  }
  boxes.push_back({{-kInf, -kInf, -kInf}, {kInf, kInf, kInf}});
  boxes.push_back({{-1e18f, -1e18f, 10}, {1e18f, 1e18f, 10}});  // a plane
  return boxes;
}

TEST(BoxTree, RandomInsertsRemovesAndBuildsKeepItExact) {
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    const std::vector<Box> scene = hard_scene(seed, 1500);
    Rng rng(seed * 7);
    detail::BoxTree tree;
    std::map<std::uint32_t, Box> leaves;
    const auto objects = static_cast<std::uint32_t>(scene.size());
    for (int round = 0; round < 6; ++round) {
      // Inserts and removes in random order, the invariant checked as they go.
      for (int op = 0; op < 3000; ++op) {
        const std::uint32_t object = rng.below(objects);
        if (leaves.contains(object)) {
          tree.remove(object);
          leaves.erase(object);
        } else {
          tree.insert(object, scene[object]);
          leaves[object] = scene[object];
        }
        EXPECT_EQ(tree.contains(object), leaves.contains(object));
        if (op % 97 == 0) {
          ASSERT_EQ(problem_of(tree), "") << "seed " << seed << " round " << round << " op " << op;
        }
      }
      ASSERT_NO_FATAL_FAILURE(expect_leaves_and_queries(tree, leaves, 60, seed + round));
      std::vector<Box> present;
      for (const auto& [object, box] : leaves) present.push_back(box);
      if (round % 2 == 1) {
        // A build over what is there replaces the tree; inserts and removes go on from it.
        std::vector<detail::BoxTree::Entry> entries;
        for (const auto& [object, box] : leaves) entries.push_back({box, object});
        tree.build(entries);
        ASSERT_EQ(problem_of(tree), "");
        expect_exact_queries(tree, leaves, query_boxes(present, 30, seed), query_segments(present, 30, seed));
      }
    }
    for (auto it = leaves.begin(); it != leaves.end(); it = leaves.erase(it)) tree.remove(it->first);
    EXPECT_EQ(tree.leaves(), 0u);
    EXPECT_EQ(problem_of(tree), "");
    EXPECT_TRUE(found_by(tree, Box{{-kInf, -kInf, -kInf}, {kInf, kInf, kInf}}).empty());
  }
}

// Leaves moved in place (set_leaf_box, then refit) on a built tree and on one grown by inserts,
// with removals and inserts between refits, as the moving set's query tree is kept: the
// invariant holds and queries stay exact after each refit.
TEST(BoxTree, RefitKeepsItExactAsLeavesMove) {
  for (const std::uint64_t seed : {4u, 5u}) {
    const std::vector<Box> scene = hard_scene(seed, 1200);
    Rng rng(seed * 11);
    detail::BoxTree tree;
    std::map<std::uint32_t, Box> leaves;
    const auto objects = static_cast<std::uint32_t>(scene.size());
    std::vector<detail::BoxTree::Entry> entries;
    for (std::uint32_t object = 0; object < objects; object += 2) {
      entries.push_back({scene[object], object});
      leaves[object] = scene[object];
    }
    if (seed == 4) {
      tree.build(entries);
    } else {
      for (const detail::BoxTree::Entry& e : entries) tree.insert(e.object, e.box);
    }
    for (int round = 0; round < 8; ++round) {
      // Every leaf takes another box of the scene (far moves, huge and infinite boxes among
      // them), a few leave, then the refit, then a few come.
      for (auto& [object, box] : leaves) {
        box = scene[rng.below(objects)];
        tree.set_leaf_box(object, box);
      }
      for (int k = 0; k < 40; ++k) {
        const auto it = leaves.lower_bound(rng.below(objects));
        if (it == leaves.end()) continue;
        tree.remove(it->first);
        leaves.erase(it);
      }
      tree.refit();
      ASSERT_EQ(problem_of(tree), "") << "seed " << seed << " round " << round;
      for (int k = 0; k < 40; ++k) {
        const std::uint32_t object = rng.below(objects);
        if (leaves.contains(object)) continue;
        tree.insert(object, scene[object]);
        leaves[object] = scene[object];
      }
      ASSERT_NO_FATAL_FAILURE(expect_leaves_and_queries(tree, leaves, 40, seed + round));
    }
  }
}

TEST(BoxTree, LeavesArrivingInOnePlaceKeepItShallow) {
  // Every box at the same place and then marching along one axis: the insertions that once grew
  // a chain (each new leaf paired one level deeper). A walk to any leaf is then at most a few
  // dozen nodes: the whole tree is reached by a query of everything in few node visits.
  detail::BoxTree tree;
  constexpr std::uint32_t kLeaves = 20000;
  for (std::uint32_t i = 0; i < kLeaves; ++i) {
    const float x = i < kLeaves / 2 ? 0.0f : static_cast<float>(i);
    tree.insert(i, Box{{x, 0, 0}, {x + 1, 1, 1}});
  }
  ASSERT_EQ(problem_of(tree), "");
  // At least two children a node: fewer nodes than leaves.
  EXPECT_LT(tree.nodes_in_use(), kLeaves);
  std::map<std::uint32_t, Box> leaves;
  for (std::uint32_t i = 0; i < kLeaves; ++i) {
    const float x = i < kLeaves / 2 ? 0.0f : static_cast<float>(i);
    leaves[i] = Box{{x, 0, 0}, {x + 1, 1, 1}};
  }
  expect_exact_queries(tree, leaves, {Box{{0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}}, Box{{15000, 0, 0}, {15001, 1, 1}}},
                       {Segment{{-5, 0.5f, 0.5f}, {30000, 0.5f, 0.5f}, {}}});
}

TEST(BoxTree, SegmentsAtHugeAndTinyScalesNeverMissALeaf) {
  // The float node test against the double exact test where floats round most: short segments
  // far from the origin, segments of denormal size, axis-aligned and grazing ones, extents.
  std::map<std::uint32_t, Box> leaves;
  std::vector<Box> boxes;
  Rng rng(11);
  for (const float scale : {1e-38f, 1e-3f, 1.0f, 1e6f, 1e20f, 1e37f}) {
    for (int i = 0; i < 60; ++i) {
      const float x = rng.uniform(-scale, scale);
      const float y = rng.uniform(-scale, scale);
      const float z = rng.uniform(-scale, scale);
      const float e = scale * rng.uniform(0.0f, 0.01f);
      boxes.push_back({{x, y, z}, {x + e, y + e, z + e}});
    }
  }
  detail::BoxTree tree;
  for (std::uint32_t i = 0; i < boxes.size(); ++i) {
    tree.insert(i, boxes[i]);
    leaves[i] = boxes[i];
  }
  std::vector<Segment> segments = query_segments(boxes, 200, 12);
  for (const Box& b : boxes) {
    // From just outside a face to its middle, along each axis, and a ray grazing an edge.
    const Vec3 mid{0.5f * b.min.x + 0.5f * b.max.x, 0.5f * b.min.y + 0.5f * b.max.y, 0.5f * b.min.z + 0.5f * b.max.z};
    segments.push_back({{b.min.x - 1e-3f * (b.max.x - b.min.x + 1e-30f), mid.y, mid.z}, mid, {}});
    segments.push_back({{mid.x, b.max.y, mid.z}, {mid.x, b.max.y + (b.max.y - b.min.y), mid.z}, {}});
    segments.push_back({{b.min.x, b.min.y, mid.z}, {b.max.x, b.min.y, mid.z}, {}});
    segments.push_back({{b.max.x, b.max.y, b.max.z}, {b.max.x, b.max.y, b.max.z}, {}});
    segments.push_back({{b.max.x + 1, mid.y, mid.z}, {b.max.x + 2, mid.y, mid.z}, Box{{-1, 0, 0}, {0, 0, 0}}});
  }
  expect_exact_queries(tree, leaves, {}, segments);
}

/// The pairs (x, y) of `a` x `b` whose boxes overlap, by brute force; with `a` == `b` each two
/// leaves once, lower object first.
std::vector<std::pair<std::uint32_t, std::uint32_t>> overlapping_pairs(const std::map<std::uint32_t, Box>& a,
                                                                     const std::map<std::uint32_t, Box>& b, bool within) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (const auto& [x, box_x] : a) {
    for (const auto& [y, box_y] : b) {
      if ((!within || x < y) && overlaps(box_x, box_y)) pairs.emplace_back(x, y);
    }
  }
  return pairs;
}

TEST(BoxTree, DualWalksFindExactlyTheOverlappingLeaves) {
  // Two trees over overlapping halves of the hard scene (one built, one grown leaf by leaf, so
  // that their nodes differ in shape and depth), walked together and each within itself,
  // against every pair tested by brute force; sizes from empty and one leaf up.
  for (const std::uint64_t seed : {4u, 5u}) {
    const std::vector<Box> scene = hard_scene(seed, 1200);
    for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{5}, std::size_t{17}, scene.size()}) {
      SCOPED_TRACE(::testing::Message() << "seed " << seed << ", size " << size);
      Rng rng(seed + size);
      detail::BoxTree built;
      detail::BoxTree grown;
      std::map<std::uint32_t, Box> in_built;
      std::map<std::uint32_t, Box> in_grown;
      std::vector<detail::BoxTree::Entry> entries;
      for (std::uint32_t i = 0; i < size; ++i) {
        if (rng.below(3) != 0) {
          entries.push_back({scene[i], i});
          in_built[i] = scene[i];
        }
        if (rng.below(3) != 0) {
          grown.insert(i, scene[i]);
          in_grown[i] = scene[i];
        }
      }
      built.build(entries);
      std::vector<std::pair<std::uint32_t, std::uint32_t>> found;
      const auto record = [&](std::uint32_t x, std::uint32_t y) { found.emplace_back(x, y); };
      detail::BoxTree::for_each_overlap(built, grown, record);
      std::sort(found.begin(), found.end());
      EXPECT_EQ(found, overlapping_pairs(in_built, in_grown, false));
      for (const auto* tree : {&built, &grown}) {
        found.clear();
        tree->for_each_overlap_within([&](std::uint32_t x, std::uint32_t y) { found.emplace_back(std::min(x, y), std::max(x, y)); });
        std::sort(found.begin(), found.end());
        const auto& leaves = tree == &built ? in_built : in_grown;
        EXPECT_EQ(found, overlapping_pairs(leaves, leaves, true));
      }
      if (size == scene.size()) {
        EXPECT_GT(found.size(), size) << "the scene should overlap densely";
      }
    }
  }
}

TEST(BoxTree, ProblemSeesDamage) {
  detail::BoxTree tree;
  for (std::uint32_t i = 0; i < 100; ++i) tree.insert(i, Box{{float(i), 0, 0}, {float(i) + 1, 1, 1}});
  ASSERT_EQ(problem_of(tree), "");
  tree.damage_for_test(-0.5f);
  EXPECT_NE(problem_of(tree), "") << "a root slot whose bounds no longer hold its child";
  tree.damage_for_test(0.5f);
  EXPECT_EQ(problem_of(tree), "");
  tree.damage_for_test(1.0f);
  EXPECT_NE(problem_of(tree), "") << "a root slot's bounds looser than its child's union";
}

}  // namespace
}  // namespace agrid::test
