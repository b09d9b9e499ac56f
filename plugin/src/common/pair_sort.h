#pragma once
// Sorting pair keys into canonical order, and turning them into Pairs.

#include <cstdint>
#include <span>

#include "agrid/pair.h"
#include "common/uninitialized_vector.h"

namespace agrid::detail {

/// Writes the pairs of `keys` (as made by pair_key) into `out` (of the same size) in ascending
/// order. `keys` is left in an unspecified state; `scratch` is working memory (grow only).
/// Every id is below `id_limit`; all first ids agree above their low `first_bits` bits.
void sort_pairs(std::span<std::uint64_t> keys, UninitializedVector<std::uint64_t>& scratch, std::uint32_t id_limit,
                std::span<Pair> out, unsigned first_bits = 32);

}  // namespace agrid::detail
