// find_pairs: every overlapping pair of a few boxes, found once and then frame after frame by a
// Grid kept alive; the Grid's box and ray queries; the same pairs on all threads with a Tree.
// Exits 1, saying which, when a result is not the one written beside it.
#include <agrid/agrid.h>

#include <cstdint>
#include <cstdio>
#include <vector>

static bool expect(bool holds, const char* what) {
  if (!holds) std::fprintf(stderr, "find_pairs: wrong %s\n", what);
  return holds;
}

int main() {
  std::vector<agrid::Box> boxes = {{{0, 0, 0}, {1, 1, 1}}, {{0.5f, 0.5f, 0.5f}, {2, 2, 2}}, {{5, 5, 5}, {6, 6, 6}}};
  const std::vector<agrid::Pair> apart = {{0, 1}};             // box 2 is far from both
  const std::vector<agrid::Pair> touching = {{0, 1}, {1, 2}};  // boxes are closed: touching overlaps
  bool ok = expect(agrid::find_all_pairs(boxes) == apart, "find_all_pairs");  // (i, j), i < j, sorted

  agrid::Grid grid;  // keep it: a warm frame of the same size allocates nothing
  std::vector<agrid::Pair> pairs;
  const int frames = 3;
  const float step = 1.5f;  // box 2 comes this far nearer each frame, and touches box 1 in the last
  for (int frame = 0; frame < frames; ++frame) {
    const float corner = 5 - step * static_cast<float>(frame);
    boxes[2] = {{corner, corner, corner}, {corner + 1, corner + 1, corner + 1}};
    grid.build(boxes);  // once per frame
    grid.find_pairs(pairs);
    for (auto [a, b] : pairs) std::printf("frame %d: %u overlaps %u\n", frame, a, b);
    ok = expect(pairs == (frame < frames - 1 ? apart : touching), "pairs of a frame") && ok;
  }

  std::vector<std::uint32_t> found;  // queries are const: threads may ask at once
  grid.query(agrid::Box{{0, 0, 0}, {0.6f, 0.6f, 0.6f}}, found);
  ok = expect(found == std::vector<std::uint32_t>{0, 1}, "boxes in the query box") && ok;
  grid.query(agrid::Segment{{-1, 3, 3}, {9, 3, 3}}, found);  // a ray along x, grazing box 2's top
  ok = expect(found == std::vector<std::uint32_t>{2}, "boxes on the ray") && ok;

  agrid::Tree tree;  // on all threads of the caller's task arena, the same pairs as the grid's
  tree.build(boxes);
  tree.find_pairs(pairs);
  ok = expect(pairs == touching, "pairs of the tree") && ok;
  return ok ? 0 : 1;
}
