#include "agrid/agrid.h"

#include <tbb/task_arena.h>

namespace agrid {

std::vector<Pair> find_all_pairs(std::span<const Box> boxes, const Config& config) {
  std::vector<Pair> pairs;
  if (boxes.size() >= config.tree_min_boxes && tbb::this_task_arena::max_concurrency() > 1) {
    Tree tree(config);
    tree.build(boxes);
    tree.find_pairs(pairs);
  } else {
    Grid grid(config);
    grid.build(boxes);
    grid.find_pairs(pairs);
  }
  return pairs;
}

}  // namespace agrid
