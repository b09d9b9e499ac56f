// Every peer (benchmarks/peers) against the oracle on seeded random scenes and the adversarial
// set: exactly the oracle's pairs, or a clear reason why the peer cannot take the boxes (checked
// to be the expected peers and scenes). A peer conservative by design may add pairs whose boxes
// do not overlap: those are removed, counted and reported as extra; it may never miss one.

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "agrid_scenes/scenes.h"
#include "oracle/oracle.h"
#include "peer.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

/// Threads of the parallel run: the project machine's cores (oneTBB refuses more, with a warning).
constexpr int kManyThreads = 2;

struct NamedScene {
  std::string name;
  std::vector<Box> boxes;
};

std::vector<NamedScene> peer_scenes() {
  std::vector<NamedScene> scenes;
  for (const Density density : {Density::kVerySparse, Density::kMedium, Density::kVeryDense}) {
    for (const std::uint32_t count : {0u, 1u, 2u, 50u, 1500u}) {
      scenes.push_back({"random-" + std::to_string(count) + "-" + std::string(name(density)),
                        random_scene(count, density, 100 + count)});
    }
  }
  for (const char* adversarial : {"bad-input", "huge-and-infinite"}) {
    scenes.push_back({adversarial, scenes::make_scene(adversarial, 1.0, 7).boxes});
  }
  scenes.push_back({"article-20k-dense-5%", scenes::make_scene("article-20k-dense", 0.05, 3).boxes});
  return scenes;
}

/// Success iff `pairs` is sorted, each pair once, i < j, and every index names one of `boxes`.
::testing::AssertionResult well_formed(const std::vector<Pair>& pairs, std::size_t boxes) {
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const Pair& p = pairs[k];
    if (!(p.first < p.second) || p.second >= boxes) {
      return ::testing::AssertionFailure() << "pair " << k << " is (" << p.first << ", " << p.second << ")";
    }
    if (k > 0 && !(pairs[k - 1] < p)) return ::testing::AssertionFailure() << "pair " << k << " is out of order";
  }
  return ::testing::AssertionSuccess();
}

/// Removes the pairs whose boxes do not overlap; returns how many it removed.
std::size_t remove_extra(std::vector<Pair>& pairs, std::span<const Box> boxes) {
  const auto extra = std::remove_if(pairs.begin(), pairs.end(),
                                    [&](const Pair& p) { return !overlaps(boxes[p.first], boxes[p.second]); });
  const auto removed = static_cast<std::size_t>(pairs.end() - extra);
  pairs.erase(extra, pairs.end());
  return removed;
}

TEST(Peers, EachFindsExactlyTheOraclePairsOrSaysWhyItCannot) {
  const std::vector<NamedScene> scenes = peer_scenes();
  std::set<std::string> refused;
  for (auto& peer : peers::make_peers()) {
    for (const NamedScene& scene : scenes) {
      const std::string why = peer->cannot_take(scene.boxes);
      if (!why.empty()) {
        refused.insert(std::string(peer->name()) + " on " + scene.name + ": " + why);
        continue;
      }
      std::vector<Pair> found;
      peer->find_pairs(scene.boxes, found);
      ASSERT_TRUE(well_formed(found, scene.boxes.size())) << peer->name() << " on " << scene.name;
      if (peer->conservative()) {
        const std::size_t extra = remove_extra(found, scene.boxes);
        std::cout << peer->name() << " on " << scene.name << ": " << extra << " extra pairs of "
                  << found.size() + extra << "\n";
      }
      EXPECT_TRUE(same_pairs(oracle::pairs(scene.boxes), found, scene.boxes)) << peer->name() << " on " << scene.name;
    }
  }
  // Only the uniform grid refuses, and only the scenes with infinite boxes: a fixed grid cannot
  // list a box in infinitely many cells.
  const std::string infinite = "an infinite box would fill infinitely many cells";
  EXPECT_EQ(refused, (std::set<std::string>{"uniform-grid on bad-input: " + infinite,
                                            "uniform-grid on huge-and-infinite: " + infinite}));
}

TEST(Peers, ParallelOnesGiveTheSameListOnOneThreadAndMany) {
  const std::vector<Box> boxes = scenes::make_scene("article-20k-dense", 0.25, 5).boxes;
  for (auto& peer : peers::make_peers()) {
    if (!peer->parallel()) continue;
    std::vector<Pair> one;
    std::vector<Pair> many;
    tbb::task_arena(1).execute([&] { peer->find_pairs(boxes, one); });
    tbb::task_arena(kManyThreads).execute([&] { peer->find_pairs(boxes, many); });
    EXPECT_FALSE(one.empty()) << peer->name();
    EXPECT_EQ(one, many) << peer->name();
  }
}

}  // namespace
}  // namespace agrid::test
