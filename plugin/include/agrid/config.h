#pragma once
// Config: the tuning knobs of agrid, each with a measured default. C++11 and later, so that a
// Bullet project of any standard can tune btAdaptiveGridBroadphase.
//
// One struct for every API, its fields in four groups by what reads them:
//
//   group (its fields)                                   | Grid | Tree | PairFinder | Broadphase
//   -----------------------------------------------------|------|------|------------|-----------
//   the grid (leaf_capacity ... kernel)                  |  x   |  x   |     x      |     x
//   the tree of grids (tree_task_entries)                |      |  x   |    (x)     |    (x)
//   when to use the tree of grids (tree_min_boxes)       |      |      |     x      |     x
//   the incremental broadphase (fat_margin ... end)      |      |      |            |     x
//
// (x): when it uses the tree of grids (tree_min_boxes). PairFinder is agrid::PairFinder and
// find_all_pairs (which keeps one per thread). Broadphase is agrid::Broadphase and
// btAdaptiveGridBroadphase (which holds one); it reads the grid's fields in the PairFinder
// that pairs its moving objects (its queries walk trees of its own, which read none). An
// API ignores the fields it does not read, but problem() checks them all, whichever API is given
// the Config. "Tree" in a field's name means the tree of grids (agrid::Tree); the Broadphase's
// tree of resting objects is the resting tree.

#include <cstdint>

namespace agrid {

/// Which instruction set the pair kernel uses.
enum class Kernel : std::uint8_t {
  automatic,  ///< The widest this CPU runs (AVX-512, else AVX2, else plain x86-64).
  scalar,     ///< Plain code: any CPU.
  avx2,       ///< 8 candidates per step; falls back to scalar where the CPU lacks AVX2.
  avx512,     ///< 16 candidates per step; falls back to AVX2 or scalar where unsupported.
};

/// Tuning of agrid, one struct for every API, its fields grouped by the APIs that read them.
/// Defaults are chosen by measurement (docs/benchmarks.md).
struct Config {
  /// @name The grid
  /// Read by Grid, Tree, PairFinder (so find_all_pairs), and the Broadphase's PairFinder, which
  /// pairs its moving objects.
  ///@{

  /// A cell holding at most this many boxes is not split further: its boxes are tested
  /// all against all.
  std::uint32_t leaf_capacity = 32;

  /// A box spanning more than this many child cells on some axis (1 or 2) stops descending
  /// and stays with its node, where it is tested against the node's whole subtree. This bounds
  /// the copies of a box in any level to big_span^3.
  std::uint32_t big_span = 2;

  /// A cell is split only if at most this share of its boxes would stay with it (staying boxes
  /// are tested against the whole subtree); otherwise it becomes a leaf.
  float max_staying_share = 0.25f;

  /// A cell is split only if its children would hold at most this many copies per box on
  /// average (a box overlapping several children is copied into each).
  float max_copies_per_box = 3.0f;

  /// A leaf (or a node's list of staying boxes) longer than this is finished with
  /// sort-and-sweep instead of all-against-all.
  std::uint32_t sweep_threshold = 32;

  /// A cell of up to 512 boxes is made a leaf, finished by sort-and-sweep, instead of being
  /// split when each of its boxes is expected to meet at most this many others in the sweep
  /// (its boxes x the typical box width / the cell's width): small boxes are then neither
  /// copied into children nor written out again. 0: cells are only split, for a Grid kept
  /// mostly for queries (a query tests every box of a sweep leaf it reaches).
  float sweep_window = 48.0f;

  /// The pair kernel's instruction set. All give identical results (tests compare them), so
  /// this only trades speed: automatic takes the widest the CPU runs; avx2 avoids the clock
  /// drop some Intel CPUs take while running AVX-512 code, which can slow the rest of a frame.
  Kernel kernel = Kernel::automatic;
  ///@}

  /// @name The tree of grids
  /// Read by Tree, and by PairFinder (so find_all_pairs and the Broadphase) when it uses the tree.
  ///@{

  /// The tree of grids (agrid::Tree) splits a cell in parallel while it holds more than this
  /// many box copies; smaller cells are grouped, in order, into tasks of about this many, each
  /// one grid.
  std::uint32_t tree_task_entries = 4096;
  ///@}

  /// @name When to use the tree of grids
  /// Read by PairFinder (so find_all_pairs, and the Broadphase for its moving objects' pairs).
  ///@{

  /// A PairFinder call given at least this many boxes uses the tree of grids on all cores, when
  /// the caller's task arena has more than one thread; below it, one grid on the calling thread.
  /// The boxes counted are those of one call: find_all_pairs' boxes; in the Broadphase, the
  /// moving objects' boxes, or the moving and resting objects' boxes together when one grid pairs
  /// both (see resting_query_cost).
  std::uint32_t tree_min_boxes = 20000;
  ///@}

  /// @name The incremental broadphase
  /// Read by agrid::Broadphase and btAdaptiveGridBroadphase only.
  ///@{

  /// Each object gets a fat box, its box grown by this share of its longest edge on every side,
  /// and keeps it while its box stays inside. A resting object that moves inside it costs only
  /// the re-test of its own candidate pairs; pairs stay exact either way. 0 keeps only
  /// unchanged boxes resting. The default is measured (docs/benchmarks.md).
  float fat_margin = 0.1f;

  /// A moving object rests once its box has stayed inside its fat box for this many updates (a
  /// body jittering in a settling stack), while one grid pairs the moving and resting objects
  /// (see resting_query_cost). Resting costs a resting-tree insert and query to join and a
  /// removal to leave, so the default keeps drifting bodies, which leave their fat box before,
  /// moving, where the grid pairs them fastest (docs/benchmarks.md).
  std::uint32_t rest_after = 16;

  /// A moving object rests once its box has stayed inside its fat box for this many updates,
  /// while the moving objects are paired with the resting ones one by one (see
  /// resting_query_cost): an object that stays moving then costs the test of its near list every
  /// update (the resting objects its fat box meets), so objects rest sooner than rest_after lets
  /// them where one grid pairs both.
  std::uint32_t rest_after_querying = 4;

  /// A moving object rests once its box has not changed at all for this many updates (a body
  /// that stopped, or fell asleep), whatever rest_after and rest_after_querying say. New objects
  /// rest at once (unless the update is busy: half the objects new or out of their fat box).
  std::uint32_t rest_after_unchanged = 2;

  /// What one moving object's pairing with the resting objects costs (the test of its near list,
  /// and now and then a query of the resting tree), in boxes given to the grid. While the moving
  /// objects are fewer than the resting ones divided by this, each is paired so; otherwise one
  /// grid over both finds their pairs. Measured (docs/benchmarks.md).
  std::uint32_t resting_query_cost = 16;
  ///@}

  /// Null if the configuration is usable, else what is wrong with it.
  const char* problem() const noexcept {
    if (leaf_capacity < 1) return "leaf_capacity must be at least 1";
    if (big_span < 1 || big_span > 2) return "big_span must be 1 or 2";
    if (!(max_staying_share >= 0.0f && max_staying_share <= 1.0f)) return "max_staying_share must be in [0, 1]";
    if (!(max_copies_per_box >= 1.0f && max_copies_per_box <= 8.0f)) return "max_copies_per_box must be in [1, 8]";
    if (sweep_threshold < 2) return "sweep_threshold must be at least 2";
    if (!(sweep_window >= 0.0f && sweep_window <= 1e6f)) return "sweep_window must be in [0, 1e6]";
    if (static_cast<std::uint8_t>(kernel) > static_cast<std::uint8_t>(Kernel::avx512)) return "kernel is not a Kernel";
    if (tree_task_entries < 1) return "tree_task_entries must be at least 1";
    if (!(fat_margin >= 0.0f && fat_margin <= 1.0f)) return "fat_margin must be in [0, 1]";
    if (rest_after < 1) return "rest_after must be at least 1";
    if (rest_after_querying < 1) return "rest_after_querying must be at least 1";
    if (rest_after_unchanged < 1) return "rest_after_unchanged must be at least 1";
    if (resting_query_cost < 1) return "resting_query_cost must be at least 1";
    return nullptr;
  }
};

/// Field by field (floats as floats: a NaN field makes two configs differ). Outside the struct
/// and in C++11, so that Config is the same class in every standard its users build with.
inline bool operator==(const Config& a, const Config& b) noexcept {
  return a.leaf_capacity == b.leaf_capacity && a.big_span == b.big_span && a.max_staying_share == b.max_staying_share &&
         a.max_copies_per_box == b.max_copies_per_box && a.sweep_threshold == b.sweep_threshold &&
         a.sweep_window == b.sweep_window && a.kernel == b.kernel && a.tree_task_entries == b.tree_task_entries &&
         a.tree_min_boxes == b.tree_min_boxes && a.fat_margin == b.fat_margin && a.rest_after == b.rest_after &&
         a.rest_after_querying == b.rest_after_querying && a.rest_after_unchanged == b.rest_after_unchanged &&
         a.resting_query_cost == b.resting_query_cost;
}

/// Not field by field equal.
inline bool operator!=(const Config& a, const Config& b) noexcept { return !(a == b); }

}  // namespace agrid
