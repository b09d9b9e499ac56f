#pragma once
// What built cells must satisfy: ranges, counts and ownership, checked by AGRID_ASSERT builds
// and by the tests.

#include <cstdint>
#include <span>
#include <vector>

#include "grid/entries.h"
#include "grid/lattice.h"
#include "grid/leaf_kernel.h"
#include "grid/split_engine.h"

namespace agrid::detail {

/// The cells of a SplitEngine (or a copy of them, which a test may break on purpose).
struct CellsView {
  const Lattice& lattice;
  std::span<const Node> nodes;
  const EntryArrays& leaf;
  std::span<const CellRange> leaf_cells;
  const EntryArrays& stay;
  std::span<const LatticeBox> stay_lattice;
  std::uint32_t sweep_threshold;  ///< Leaves of more entries are in order of min x.
};

/// The cells of `engine` (built and padded).
[[nodiscard]] CellsView view_of(const SplitEngine& engine);

/// The first broken invariant of `cells`, or null if they all hold:
/// - every node's stay and leaf ranges lie in the arrays; an inner node holds no leaf entries;
/// - children come after their parent, one level down, at the cells their index says;
/// - leaves own disjoint slices that together are all leaf entries, and leaf_cells lists
///   exactly the leaves of two entries or more;
/// - a leaf of more than sweep_threshold entries is in order of min x (the sweep needs it);
/// - every entry is a valid box with an id below `id_limit`, overlapping its node's cell, with
///   owner bit a set iff its min corner lies in the cell on axis a (a staying entry: its
///   lattice box is its box's).
[[nodiscard]] const char* broken_cell_invariant(const CellsView& cells, std::uint32_t id_limit);

}  // namespace agrid::detail
