// Every peer (benchmarks/peers) against the oracle on seeded random scenes and the adversarial
// set: exactly the oracle's pairs, or a clear reason why the peer cannot take the boxes (checked
// to be the expected peers and scenes).

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "agrid_scenes/scenes.h"
#include "oracle/oracle.h"
#include "peer.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

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
      EXPECT_TRUE(same_pairs(oracle::pairs(scene.boxes), found, scene.boxes)) << peer->name() << " on " << scene.name;
    }
  }
  // Only the uniform grid refuses, and only the scenes with infinite boxes: a fixed grid cannot
  // list a box in infinitely many cells.
  const std::string infinite = "an infinite box would fill infinitely many cells";
  EXPECT_EQ(refused, (std::set<std::string>{"uniform-grid on bad-input: " + infinite,
                                            "uniform-grid on huge-and-infinite: " + infinite}));
}

}  // namespace
}  // namespace agrid::test
