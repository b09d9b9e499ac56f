#pragma once
// Tree: the tree of adaptive grids, which finds all pairs on all cores through oneTBB.

// Below C++20: one clear error, not dozens from what follows. (GCC 10 and older report 201709 in
// their C++2a mode: let through.)
#if __cplusplus <= 201703L
#error "agrid/tree.h needs C++20; a Bullet program of an older standard includes <agrid/bullet/btAdaptiveGridBroadphase.h> (C++11) instead"
#else

#include <memory>
#include <span>
#include <vector>

#include "agrid/box.h"
#include "agrid/config.h"
#include "agrid/pair.h"
#include "agrid/stats.h"

namespace agrid {

/// The parallel form of Grid's all-pairs search. A coarse tree of 4x4x4 cells is split, one
/// level at a time and in parallel, until its cells hold at most Config::tree_task_entries box
/// copies; runs of small cells then become independent grid tasks. Every pair is owned by one
/// cell, so tasks need no locks and no duplicate removal: their keys are sorted in parallel.
/// It runs in the caller's tbb::task_arena (honouring tbb::global_control) and starts no
/// threads. The output is the same, element for element, on any number of threads, and equal
/// to Grid's. Memory, per task and per worker too, is kept between builds.
class Tree {
 public:
  /// An empty tree. Throws std::invalid_argument if config.problem() is not empty.
  explicit Tree(const Config& config = {});
  ~Tree();
  /// Takes over the other's build and memory; the moved-from tree may only be destroyed or assigned.
  Tree(Tree&&) noexcept;
  /// Takes over the other's build and memory; the moved-from tree may only be destroyed or assigned.
  Tree& operator=(Tree&&) noexcept;
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;

  /// Rebuilds the tree over `boxes`, copying what it needs: the span need not outlive the
  /// call. Throws std::length_error if there are 2^32 - 1 boxes or more.
  void build(std::span<const Box> boxes);

  /// Replaces the contents of `out` with every overlapping pair, each once, sorted.
  void find_pairs(std::vector<Pair>& out);

  /// Counts describing the last build, summed over the coarse tree and all task grids.
  [[nodiscard]] GridStats stats() const;

  /// The configuration this tree was made with.
  [[nodiscard]] const Config& config() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agrid

#endif  // C++20
