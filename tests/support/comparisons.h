#pragma once
// Comparisons of results with the oracle's that print a readable difference when they fail
// (sizes, the first difference, some missing and extra entries), never a million-element vector.

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "agrid/agrid.h"

namespace agrid::test {

/// Success iff `actual` equals `expected` element by element; else the sizes, the first
/// difference, and some missing and extra pairs (with their boxes if `boxes` is given).
[[nodiscard]] ::testing::AssertionResult same_pairs(const std::vector<Pair>& expected,
                                                    const std::vector<Pair>& actual,
                                                    std::span<const Box> boxes = {});

/// Success iff `actual` equals `expected` element by element; else a readable difference.
[[nodiscard]] ::testing::AssertionResult same_indices(const std::vector<std::uint32_t>& expected,
                                                      const std::vector<std::uint32_t>& actual,
                                                      std::span<const Box> boxes = {});

/// Success iff every index appears at most once.
[[nodiscard]] ::testing::AssertionResult no_duplicates(std::vector<std::uint32_t> indices);

/// The pairs Grid::find_pairs reports for `boxes`, into a vector holding junk, equal the oracle's
/// `expected`.
[[nodiscard]] ::testing::AssertionResult grid_pairs_match(Grid& grid, std::span<const Box> boxes,
                                                          const std::vector<Pair>& expected);

}  // namespace agrid::test
