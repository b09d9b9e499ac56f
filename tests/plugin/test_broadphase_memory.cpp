// The parts that give memory back when the world shrinks (docs/broadphase.md, "Memory follows
// the world"): the shrink rule, and the resting tree's and the candidate records' compaction.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "aabb_tree.h"
#include "agrid/agrid.h"
#include "candidate_pairs.h"
#include "fat_box.h"
#include "oracle/oracle.h"
#include "slack_growth.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

float u(Rng& rng, double lo, double hi) { return static_cast<float>(rng.uniform(lo, hi)); }

/// A box of edge 0.2 to 2 somewhere in [0, side]^3.
Box random_box(Rng& rng, float side) {
  const float x = u(rng, 0, side);
  const float y = u(rng, 0, side);
  const float z = u(rng, 0, side);
  return {{x, y, z}, {x + u(rng, 0.2, 2.0), y + u(rng, 0.2, 2.0), z + u(rng, 0.2, 2.0)}};
}

TEST(ShrinkRule, ShrinksFarBelowCapacityToTwiceTheUse) {
  std::vector<std::uint64_t> v(100000, 7);
  v.resize(30000);
  EXPECT_FALSE(detail::shrink_if_far_below(v, v.size())) << "30% of the capacity in use";
  v.resize(20000);
  EXPECT_TRUE(detail::shrink_if_far_below(v, v.size()));
  EXPECT_EQ(v.capacity(), 40000u);
  EXPECT_EQ(v.size(), 20000u);
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](std::uint64_t x) { return x == 7; })) << "the elements are kept";
  EXPECT_FALSE(detail::shrink_if_far_below(v, 10001)) << "the use must halve from the shrink to shrink again";
  v.clear();
  EXPECT_FALSE(detail::shrink_if_far_below(v, 30000)) << "the use asked for counts, not only the size";
  std::vector<std::uint64_t> small(2000);
  small.clear();
  EXPECT_FALSE(detail::shrink_if_far_below(small, 0)) << "16 KiB and less are kept";
}

TEST(AabbTreeMemory, CompactsKeepingItsLeavesAndQueries) {
  constexpr std::uint32_t kLeaves = 20000;
  Rng rng(5);
  detail::AabbTree tree;
  std::map<std::uint32_t, std::pair<std::uint32_t, Box>> leaf_and_box;  // by object
  for (std::uint32_t object = 0; object < kLeaves; ++object) {
    const Box box = random_box(rng, 60.0f);
    leaf_and_box[object] = {tree.insert(object, box), box};
  }
  const std::size_t full = tree.bytes_held();
  EXPECT_FALSE(tree.give_back([](std::uint32_t, std::uint32_t) {})) << "nothing to give back";
  for (std::uint32_t object = 0; object < kLeaves; ++object) {
    if (object % 20 == 0) continue;
    tree.remove(leaf_and_box.at(object).first);
    leaf_and_box.erase(object);
  }
  std::set<std::uint32_t> relinked;
  ASSERT_TRUE(tree.give_back([&](std::uint32_t object, std::uint32_t leaf) {
    EXPECT_TRUE(relinked.insert(object).second) << "object " << object << " relinked twice";
    leaf_and_box.at(object).first = leaf;
  }));
  EXPECT_EQ(relinked.size(), leaf_and_box.size());
  EXPECT_EQ(tree.problem(), nullptr);
  EXPECT_LE(tree.bytes_held(), full / 8);
  EXPECT_FALSE(tree.give_back([](std::uint32_t, std::uint32_t) {})) << "a second give_back changes nothing";
  std::vector<Box> boxes;
  std::vector<std::uint32_t> objects;
  for (const auto& [object, entry] : leaf_and_box) {
    EXPECT_EQ(tree.object(entry.first), object);
    EXPECT_TRUE(detail::same_box(tree.box(entry.first), entry.second));
    objects.push_back(object);
    boxes.push_back(entry.second);
  }
  std::vector<std::uint32_t> stack;
  for (const Box& query : query_boxes(boxes, 200, 9)) {
    std::vector<std::uint32_t> found;
    tree.query(query, stack, [&](std::uint32_t object) {
      found.push_back(object);
      return true;
    });
    std::sort(found.begin(), found.end());
    std::vector<std::uint32_t> expected;
    for (const std::uint32_t i : oracle::query(boxes, query)) expected.push_back(objects[i]);
    ASSERT_TRUE(same_indices(expected, found));
  }
  // The renumbered leaves are removed and the tree grows again.
  for (const auto& [object, entry] : leaf_and_box) tree.remove(entry.first);
  EXPECT_EQ(tree.leaves(), 0u);
  for (std::uint32_t object = 0; object < 100; ++object) tree.insert(object, random_box(rng, 60.0f));
  EXPECT_EQ(tree.problem(), nullptr);
}

TEST(CandidatePairsMemory, CompactsKeepingEveryList) {
  constexpr std::uint32_t kObjects = 5000;
  Rng rng(8);
  detail::CandidatePairs candidates;
  candidates.resize(kObjects);
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> records;  // by (first, second)
  std::map<std::pair<std::uint32_t, std::uint32_t>, bool> hits;
  while (records.size() < 60000) {
    const std::uint32_t a = rng.below(kObjects);
    const std::uint32_t b = rng.below(kObjects);
    const std::pair<std::uint32_t, std::uint32_t> key{std::min(a, b), std::max(a, b)};
    if (a == b || records.contains(key)) continue;
    const bool hit = rng.below(2) == 0;
    records[key] = candidates.add(a, b, hit);
    hits[key] = hit;
  }
  const std::size_t full = candidates.bytes_held();
  for (auto it = records.begin(); it != records.end();) {
    // Keep 5%, and none of the objects from kObjects / 2 on.
    if (rng.below(20) == 0 && it->first.second < kObjects / 2) {
      ++it;
      continue;
    }
    candidates.remove(it->second);
    hits.erase(it->first);
    it = records.erase(it);
  }
  candidates.give_back();
  candidates.forget_from(kObjects / 2);
  EXPECT_EQ(candidates.problem(), nullptr);
  EXPECT_LE(candidates.bytes_held(), full / 4);
  EXPECT_EQ(candidates.size(), hits.size());
  EXPECT_EQ(candidates.hits(), static_cast<std::uint32_t>(std::count_if(hits.begin(), hits.end(), [](const auto& e) { return e.second; })));
  // Each object's list holds exactly its pairs, with their hits.
  for (std::uint32_t object = 0; object < kObjects / 2; ++object) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, bool> listed;
    for (std::uint32_t r = candidates.first(object); r != detail::CandidatePairs::kNone; r = candidates.next(r, object)) {
      listed[{candidates.first_member(r), candidates.second_member(r)}] = candidates.hit(r);
    }
    std::map<std::pair<std::uint32_t, std::uint32_t>, bool> expected;
    for (const auto& [key, hit] : hits) {
      if (key.first == object || key.second == object) expected[key] = hit;
    }
    ASSERT_EQ(listed, expected) << "object " << object;
  }
}

}  // namespace
}  // namespace agrid::test
