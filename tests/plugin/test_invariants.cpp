// The invariants every build must leave (plugin/src/grid/cell_invariants.h): they hold on random,
// benchmark and adversarial scenes under every configuration, and the check finds each kind of
// damage done on purpose to a copy of built cells. Builds with AGRID_ASSERTS (Debug, sanitizer
// and fuzzing builds) check them after every build of a grid or tree as well.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "agrid/agrid.h"
#include "agrid_scenes/scenes.h"
#include "grid/cell_invariants.h"
#include "grid/split_engine.h"
#include "oracle/oracle.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

using detail::CellsView;
using detail::Execution;
using detail::Finish;
using detail::SplitEngine;

// Splits `boxes` to the end, as the grid (Finish::leaf) or the tree's coarse cells.
SplitEngine split(std::span<const Box> boxes, const Config& config, Finish finish, Execution execution) {
  SplitEngine engine(config, finish == Finish::leaf ? config.leaf_capacity : config.tree_task_entries, finish, execution);
  engine.set_lattice(detail::fit_lattice(boxes));
  engine.split_root(boxes);
  engine.split_all_levels();
  engine.pad();
  return engine;
}

const char* problem_of(const SplitEngine& engine, std::size_t boxes) {
  return detail::broken_cell_invariant(detail::view_of(engine), static_cast<std::uint32_t>(boxes));
}

std::vector<std::vector<Box>> scenes_to_check() {
  std::vector<std::vector<Box>> all;
  for (const Density d : {Density::kVerySparse, Density::kMedium, Density::kVeryDense}) all.push_back(random_scene(5000, d, 7));
  for (const std::string_view name : scenes::adversarial_scene_names()) all.push_back(scenes::make_scene(name, 0.05, 3).boxes);
  all.push_back(scenes::make_scene("article-20k-dense", 0.5, 5).boxes);  // takes the two-level root split
  return all;
}

TEST(CellInvariants, HoldAfterEveryBuild) {
  Config small_tasks;
  small_tasks.tree_task_entries = 256;  // the coarse cells split a few levels
  for (const std::vector<Box>& boxes : scenes_to_check()) {
    for (const Config& config : some_configs()) {
      EXPECT_EQ(problem_of(split(boxes, config, Finish::leaf, Execution::sequential), boxes.size()), nullptr)
          << boxes.size() << " boxes, " << name(config);
    }
    in_arena(2, [&] {
      EXPECT_EQ(problem_of(split(boxes, small_tasks, Finish::hand_out, Execution::parallel), boxes.size()), nullptr)
          << boxes.size() << " boxes, coarse cells";
    });
  }
}

// A copy of an engine's cells that a test may damage.
struct CellsCopy {
  detail::Lattice lattice;
  std::vector<detail::Node> nodes;
  detail::EntryArrays leaf;
  std::vector<detail::CellRange> leaf_cells;
  detail::EntryArrays stay;
  std::vector<detail::LatticeBox> stay_lattice;
  std::uint32_t sweep_threshold;

  explicit CellsCopy(const SplitEngine& e)
      : lattice(e.lattice()), nodes(e.nodes()), leaf(e.leaf_entries()), leaf_cells(e.leaf_cells().begin(), e.leaf_cells().end()),
        stay(e.stay_entries()), stay_lattice(e.stay_lattice()), sweep_threshold(e.config().sweep_threshold) {}

  [[nodiscard]] std::string problem(std::uint32_t id_limit) const {
    const char* p = detail::broken_cell_invariant(
        CellsView{lattice, nodes, leaf, leaf_cells, stay, stay_lattice, sweep_threshold}, id_limit);
    return p == nullptr ? "" : p;
  }
};

TEST(CellInvariants, TheCheckFindsDamage) {
  // Medium boxes with some too large for their cells: leaves, inner nodes and staying entries.
  std::vector<Box> boxes = random_scene(3000, Density::kMedium, 11);
  constexpr float kLargeSide = 400.0f;  // of the scene's 1,000: too large for the root's children
  for (std::uint32_t i = 0; i < 30; ++i) {
    const Vec3 at = boxes[i].min;
    boxes.push_back(Box{at, {at.x + kLargeSide, at.y + kLargeSide, at.z + kLargeSide}});
  }
  const SplitEngine engine = split(boxes, Config{}, Finish::leaf, Execution::sequential);
  const auto count = static_cast<std::uint32_t>(boxes.size());
  ASSERT_EQ(CellsCopy(engine).problem(count), "");
  ASSERT_GT(engine.stay_entries().size(), detail::kKernelPadding) << "the scene should have staying entries";

  std::uint32_t leaf = 0;
  std::uint32_t inner = 0;
  for (std::uint32_t n = 0; n < engine.nodes().size(); ++n) {
    const detail::Node& node = engine.nodes()[n];
    if (node.is_leaf() && node.leaf.size() >= 2) leaf = n;
    if (!node.is_leaf()) inner = n;
  }
  ASSERT_NE(leaf, 0u);

  {
    CellsCopy c(engine);
    c.nodes[leaf].leaf.end = c.leaf.size();  // reaches into the padding
    EXPECT_EQ(c.problem(count), "a node's leaf range is out of bounds");
  }
  {
    CellsCopy c(engine);
    c.nodes[leaf].leaf.end -= 1;  // an entry in no leaf
    EXPECT_EQ(c.problem(count), "a leaf entry is in no leaf");
  }
  {
    CellsCopy c(engine);
    c.leaf.owner[engine.nodes()[leaf].leaf.begin] ^= 1u;
    EXPECT_EQ(c.problem(count), "an entry's owner bits do not say where its min corner is");
  }
  {
    CellsCopy c(engine);
    c.leaf.id[engine.nodes()[leaf].leaf.begin] = count;
    EXPECT_EQ(c.problem(count), "an entry's id is out of range");
  }
  {
    CellsCopy c(engine);
    c.nodes[c.nodes[inner].first_child].cell[0] ^= 1u;
    EXPECT_EQ(c.problem(count), "a child is not at the cell its index says");
  }
  {
    CellsCopy c(engine);
    c.stay_lattice[0].hi[1] += 1;
    EXPECT_EQ(c.problem(count), "a staying entry's lattice box is not its box's");
  }
  {
    CellsCopy c(engine);
    c.leaf_cells.pop_back();
    EXPECT_EQ(c.problem(count), "leaf_cells does not list every leaf of two entries or more");
  }
  {
    CellsCopy c(engine);
    c.sweep_threshold = 1;  // every leaf of two entries or more must now be in order of min x
    bool swapped = false;
    for (const detail::CellRange& range : c.leaf_cells) {
      if (c.leaf.lo[0][range.begin] < c.leaf.lo[0][range.begin + 1]) {
        std::swap(c.leaf.lo[0][range.begin], c.leaf.lo[0][range.begin + 1]);
        swapped = true;
        break;
      }
    }
    ASSERT_TRUE(swapped);
    // The swap may break an entry's own invariants first; either way the check must fail.
    EXPECT_NE(c.problem(count), "");
  }
}

// Cells of small boxes are swept, not split, when the sweep pays: those leaves hold more than
// sweep_threshold entries in order of min x, and the grid still finds exactly the oracle's pairs.
TEST(CellInvariants, SweepLeavesAreSortedAndExact) {
  for (const Density density : {Density::kSparse, Density::kMedium, Density::kDense}) {
    const std::vector<Box> boxes = random_scene(1500, density, 7);  // one-level root split
    Config config;
    config.sweep_threshold = 16;  // below the small boxes' cells, so that they are swept
    const SplitEngine engine = split(boxes, config, Finish::leaf, Execution::sequential);
    ASSERT_EQ(CellsCopy(engine).problem(static_cast<std::uint32_t>(boxes.size())), "");
    std::uint32_t swept = 0;
    for (const detail::Node& node : engine.nodes()) swept += node.is_leaf() && node.leaf.size() > config.sweep_threshold;
    EXPECT_GT(swept, 0u) << "the scene should make leaves to sweep";
    Grid grid(config);
    grid.build(boxes);
    std::vector<Pair> pairs;
    grid.find_pairs(pairs);
    EXPECT_TRUE(same_pairs(oracle::pairs(boxes), pairs, boxes));
  }
}

}  // namespace
}  // namespace agrid::test
