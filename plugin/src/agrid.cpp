#include "agrid/agrid.h"

#include <tbb/task_arena.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

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

/// Every thread's workspace, on the heap, listed until its thread exits or the program ends. The
/// workers of a thread pool may outlive static destruction (oneTBB's do), so the program's end
/// frees the workspaces still listed: a thread's memory is given back either way, and a leak
/// checker sees none. The registry itself is never destroyed, since threads may exit later.
struct Registry {
  std::mutex mutex;
  std::vector<Workspace*> workspaces;

  static Registry& get() {
    static Registry* const registry = new Registry;
    return *registry;
  }
  /// Frees the workspaces of threads still running at the program's end.
  struct FreeAtExit {
    ~FreeAtExit() {
      Registry& r = get();
      const std::lock_guard<std::mutex> lock(r.mutex);
      for (Workspace* w : r.workspaces) delete w;
      r.workspaces.clear();
    }
  };
};
const Registry::FreeAtExit free_at_exit;

/// This thread's workspace.
Workspace& this_thread_workspace() {
  struct Owner {
    Workspace* workspace = new Workspace;
    Owner() {
      Registry& r = Registry::get();
      const std::lock_guard<std::mutex> lock(r.mutex);
      r.workspaces.push_back(workspace);
    }
    ~Owner() {
      Registry& r = Registry::get();
      const std::lock_guard<std::mutex> lock(r.mutex);
      // Not listed any more when the program's end freed it already.
      if (std::erase(r.workspaces, workspace) > 0) delete workspace;
    }
    Owner(const Owner&) = delete;
    Owner& operator=(const Owner&) = delete;
  };
  thread_local Owner owner;
  return *owner.workspace;
}

/// `held` if it exists and was made with `config`, else a new one made with it.
template <class Structure>
Structure& made_with(std::unique_ptr<Structure>& held, const Config& config) {
  if (held == nullptr || !(held->config() == config)) held = std::make_unique<Structure>(config);
  return *held;
}

}  // namespace

std::vector<Pair> find_all_pairs(std::span<const Box> boxes, const Config& config) {
  Workspace& workspace = this_thread_workspace();
  std::vector<Pair> pairs;
  const bool use_tree = boxes.size() >= config.tree_min_boxes && tbb::this_task_arena::max_concurrency() > 1;
  const auto find_with = [&](Workspace& held) {
    const auto run = [&](auto& structure) {
      structure.build(boxes);
      structure.find_pairs(pairs);
    };
    if (use_tree) {
      run(made_with(held.tree, config));
    } else {
      run(made_with(held.grid, config));
    }
  };
  // A call that starts while another is under way on this thread (a task the first one's
  // waiting thread picked up) gets structures of its own.
  if (workspace.in_use) {
    Workspace own;
    find_with(own);
    return pairs;
  }
  workspace.in_use = true;
  struct Release {
    Workspace& workspace;
    ~Release() { workspace.in_use = false; }
  } release{workspace};
  workspace.fit(boxes.size());
  find_with(workspace);
  return pairs;
}

}  // namespace agrid
