#pragma once
// WorldSize: what the world asks of the incremental Broadphase's arrays, by which each gives
// memory back.

#include <cstddef>
#include <cstdint>

namespace agrid::detail {

/// Scratch sized by what recent updates used (the pair finders' engines, the re-test pass's
/// boxes) is kept for the most they used in about this many updates, so that a world which uses
/// much now and then allocates nothing between, and one that has calmed down gives it back.
constexpr std::uint64_t kMemoryUpdates = 16;

/// What the world asks of the arrays kept for it, by which each gives memory back (slack_growth.h's
/// rule). An array is ready to hold what it held during the update and what the world asks of
/// it, whichever is more: a list of the step's handles keeps room for as many as there are
/// objects, and a list of keys for as many as there are pairs kept. So the lists of a world of a
/// steady size never shrink between a step of many changes and one of few, and they give memory
/// back when the world shrinks. The parts' give_back, and problem(), are [[gnu::cold]]: they cost
/// O(1) an update (problem() runs only with AGRID_ASSERTS), and GCC's inlining of them would use
/// up what it allows the file, whose hot calls then stop being inlined (measured: set_box's
/// helpers and the tree queries' push_back, +10% instructions on BM_broadphase/stream-20k).
struct WorldSize {
  std::size_t objects = 0;      ///< Live objects.
  std::size_t pairs = 0;        ///< Candidates and pairs with a moving member: the keys a step may touch.
  std::size_t objects_end = 0;  ///< The object table's end: no handle at or above it is live.
  std::uint64_t updates = 0;    ///< Updates so far, this one included.
};

}  // namespace agrid::detail
