#include "agrid/agrid.h"

#include <tbb/task_arena.h>

#include <cstddef>
#include <memory>


namespace agrid {
namespace {

/// find_all_pairs keeps the structure of its last call on each thread: memory the system hands
/// out fresh costs a page fault per page, which made a call 5-10x a warm frame (measured, issue
/// 12). The structure is dropped, and its memory freed, once kShrinkAfterCalls calls in a row
/// needed less than 1/kShrinkRatio of the boxes it was sized for: after a call of a million
/// boxes, a stream of small calls keeps that memory for kShrinkAfterCalls calls, not forever. So
/// a thread holds at most what a call of kShrinkRatio times its largest recent call needs.
constexpr std::size_t kShrinkRatio = 4;
constexpr std::uint32_t kShrinkAfterCalls = 8;

struct Workspace {
  std::unique_ptr<Grid> grid;
  std::unique_ptr<Tree> tree;
  std::size_t sized_for = 0;         ///< The most boxes of a call since the structures were made.
  std::uint32_t small_calls = 0;     ///< Calls in a row that needed much less than that.
  bool in_use = false;               ///< A call is under way on this thread.

  /// Frees what it holds if the calls have been small for long enough; notes this call's size.
  void fit(std::size_t boxes) {
    small_calls = boxes * kShrinkRatio < sized_for ? small_calls + 1 : 0;
    if (small_calls >= kShrinkAfterCalls) {
      grid.reset();
      tree.reset();
      sized_for = 0;
      small_calls = 0;
    }
    sized_for = std::max(sized_for, boxes);
  }
};

thread_local Workspace workspace;

/// `held` if it exists and was made with `config`, else a new one made with it.
template <class Structure>
Structure& made_with(std::unique_ptr<Structure>& held, const Config& config) {
  if (held == nullptr || !(held->config() == config)) held = std::make_unique<Structure>(config);
  return *held;
}

template <class Structure>
void find_pairs_with(Structure& structure, std::span<const Box> boxes, std::vector<Pair>& pairs) {
  structure.build(boxes);
  structure.find_pairs(pairs);
}

}  // namespace

std::vector<Pair> find_all_pairs(std::span<const Box> boxes, const Config& config) {
  std::vector<Pair> pairs;
  const bool use_tree = boxes.size() >= config.tree_min_boxes && tbb::this_task_arena::max_concurrency() > 1;
  // A call that starts while another is under way on this thread (a task the first one's
  // waiting thread picked up) gets structures of its own.
  if (workspace.in_use) {
    if (use_tree) {
      Tree tree(config);
      find_pairs_with(tree, boxes, pairs);
    } else {
      Grid grid(config);
      find_pairs_with(grid, boxes, pairs);
    }
    return pairs;
  }
  workspace.in_use = true;
  struct Release {
    ~Release() { workspace.in_use = false; }
  } release;
  workspace.fit(boxes.size());
  if (use_tree) {
    find_pairs_with(made_with(workspace.tree, config), boxes, pairs);
  } else {
    find_pairs_with(made_with(workspace.grid, config), boxes, pairs);
  }
  return pairs;
}

}  // namespace agrid
