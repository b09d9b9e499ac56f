// Fuzz target: boxes from the fuzzer's bytes (raw floats, NaN and infinities included, or coded
// values that touch and overlap often), under a fuzzed configuration; Grid, Tree (on several
// threads) and find_all_pairs must each report exactly the brute-force oracle's pairs, and the
// Grid's box and segment queries exactly the oracle's hits.

#include <tbb/task_arena.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "agrid/agrid.h"
#include "fuzz_input.h"
#include "oracle/oracle.h"

namespace {

/// Boxes per input at most: brute force stays quick, so the fuzzer runs many inputs a second.
constexpr std::size_t kMaxBoxes = 300;
/// Threads of the Tree's arena: more than one, so that tasks really split the work (and no more
/// than the project machine's cores, which oneTBB would refuse with a warning).
constexpr int kTreeThreads = 2;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agrid;
  fuzz::FuzzInput in(data, size);
  const Config config = in.config();
  const bool raw = (in.byte() & 1) != 0;
  std::vector<Box> boxes;
  while (!in.empty() && boxes.size() < kMaxBoxes) boxes.push_back(in.box(raw));
  const std::vector<Pair> expected = oracle::pairs(boxes);

  std::vector<Pair> found;
  Grid grid(config);
  grid.build(boxes);
  grid.find_pairs(found);
  fuzz::require(found == expected, "Grid::find_pairs");

  Tree tree(config);
  tbb::task_arena(kTreeThreads).execute([&] {
    tree.build(boxes);
    tree.find_pairs(found);
  });
  fuzz::require(found == expected, "Tree::find_pairs");

  tbb::task_arena(kTreeThreads).execute([&] { found = find_all_pairs(boxes, config); });
  fuzz::require(found == expected, "find_all_pairs");

  if (boxes.size() >= 2) {
    // A box and a segment made of the input's own coordinates (so often on faces and edges).
    std::vector<std::uint32_t> hits;
    grid.query(boxes[0], hits);
    fuzz::require(hits == oracle::query(boxes, boxes[0]), "Grid::query(box)");
    const Segment segment{boxes[0].min, boxes[1].max, {}};
    grid.query(segment, hits);
    fuzz::require(hits == oracle::query(boxes, segment), "Grid::query(segment)");
  }
  return 0;
}
