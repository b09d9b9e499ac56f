// Consumer of the installed agrid package: one call through the public API.
// Exits 0 only if find_all_pairs returns exactly the pair {0, 1}.

#include <agrid/agrid.h>

#include <cstdio>
#include <vector>

int main() {
  const std::vector<agrid::Box> boxes = {
      agrid::Box{{0, 0, 0}, {1, 1, 1}},
      agrid::Box{{0.5f, 0.5f, 0.5f}, {2, 2, 2}},
      agrid::Box{{5, 5, 5}, {6, 6, 6}},
  };
  const std::vector<agrid::Pair> pairs = agrid::find_all_pairs(boxes);

  if (pairs.size() == 1) {
    auto [a, b] = pairs[0];
    if (a == 0 && b == 1) {
      std::printf("consumer: ok, found pair {0, 1}\n");
      return 0;
    }
  }
  std::printf("consumer: expected exactly one pair {0, 1}, got %zu:", pairs.size());
  for (auto [a, b] : pairs) {
    std::printf(" {%u, %u}", static_cast<unsigned>(a), static_cast<unsigned>(b));
  }
  std::printf("\n");
  return 1;
}
