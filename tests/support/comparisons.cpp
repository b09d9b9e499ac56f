#include "support/comparisons.h"

#include <algorithm>
#include <iterator>
#include <sstream>
#include <string>

#include "support/printers.h"

namespace agrid::test {
namespace {

/// How many missing and how many extra entries a failure lists.
constexpr std::size_t kListedDifferences = 8;

std::string describe(const Pair& p, std::span<const Box> boxes) {
  std::ostringstream os;
  PrintTo(p, &os);
  if (p.first < boxes.size() && p.second < boxes.size()) {
    os << " ";
    PrintTo(boxes[p.first], &os);
    os << " ";
    PrintTo(boxes[p.second], &os);
  }
  return os.str();
}

std::string describe(std::uint32_t i, std::span<const Box> boxes) {
  std::ostringstream os;
  os << i;
  if (i < boxes.size()) {
    os << " ";
    PrintTo(boxes[i], &os);
  }
  return os.str();
}

template <class T>
::testing::AssertionResult same_sequence(const char* what, const std::vector<T>& expected,
                                         const std::vector<T>& actual, std::span<const Box> boxes) {
  if (expected == actual) return ::testing::AssertionSuccess();
  auto r = ::testing::AssertionFailure();
  r << what << " differ: expected " << expected.size() << ", got " << actual.size() << ".";
  const std::size_t common = std::min(expected.size(), actual.size());
  std::size_t first = 0;
  while (first < common && expected[first] == actual[first]) ++first;
  r << " First difference at position " << first << ".";
  if (!std::is_sorted(actual.begin(), actual.end())) r << " The result is NOT sorted.";
  if (std::adjacent_find(actual.begin(), actual.end()) != actual.end()) {
    r << " The result has adjacent duplicates.";
  }
  std::vector<T> e = expected;
  std::vector<T> a = actual;
  std::sort(e.begin(), e.end());
  std::sort(a.begin(), a.end());
  std::vector<T> missing;
  std::vector<T> extra;
  std::set_difference(e.begin(), e.end(), a.begin(), a.end(), std::back_inserter(missing));
  std::set_difference(a.begin(), a.end(), e.begin(), e.end(), std::back_inserter(extra));
  r << "\n  missing " << missing.size() << ", extra " << extra.size();
  for (std::size_t i = 0; i < std::min(missing.size(), kListedDifferences); ++i) {
    r << "\n  missing " << describe(missing[i], boxes);
  }
  for (std::size_t i = 0; i < std::min(extra.size(), kListedDifferences); ++i) {
    r << "\n  extra   " << describe(extra[i], boxes);
  }
  return r;
}

}  // namespace

::testing::AssertionResult same_pairs(const std::vector<Pair>& expected,
                                      const std::vector<Pair>& actual, std::span<const Box> boxes) {
  return same_sequence("pairs", expected, actual, boxes);
}

::testing::AssertionResult same_indices(const std::vector<std::uint32_t>& expected,
                                        const std::vector<std::uint32_t>& actual,
                                        std::span<const Box> boxes) {
  return same_sequence("indices", expected, actual, boxes);
}

::testing::AssertionResult no_duplicates(std::vector<std::uint32_t> indices) {
  std::sort(indices.begin(), indices.end());
  const auto dup = std::adjacent_find(indices.begin(), indices.end());
  if (dup == indices.end()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "index " << *dup << " reported more than once";
}

::testing::AssertionResult grid_pairs_match(Grid& grid, std::span<const Box> boxes,
                                            const std::vector<Pair>& expected) {
  // Pre-filled with junk: find_pairs must replace the contents, not append.
  std::vector<Pair> found(3, Pair{7, 9});
  grid.find_pairs(found);
  if (auto r = same_pairs(expected, found, boxes); !r) return r << "\n  (Grid::find_pairs)";
  return ::testing::AssertionSuccess();
}

}  // namespace agrid::test
