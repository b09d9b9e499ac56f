#include "agrid/agrid.h"

namespace agrid {

std::vector<Pair> find_all_pairs(std::span<const Box> boxes, const Config& config) {
  Grid grid(config);
  grid.build(boxes);
  std::vector<Pair> pairs;
  grid.find_pairs(pairs);
  return pairs;
}

}  // namespace agrid
