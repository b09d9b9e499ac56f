#include "agrid/agrid.h"

#include <mutex>
#include <vector>

namespace agrid {
namespace {

/// What find_all_pairs keeps on a thread between calls: a PairFinder, whose memory then follows
/// the thread's recent calls (memory the system hands out fresh costs a page fault per page,
/// which made a call 5-10x a warm frame: measured, issue 12).
struct Workspace {
  PairFinder finder;
  bool in_use = false;  ///< A call is under way on this thread.
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

}  // namespace

std::vector<Pair> find_all_pairs(std::span<const Box> boxes, const Config& config) {
  std::vector<Pair> pairs;
  Workspace& workspace = this_thread_workspace();
  // A call that starts while another is under way on this thread (a task the first one's
  // waiting thread picked up) gets a finder of its own.
  if (workspace.in_use) {
    PairFinder(config).find_pairs(boxes, pairs);
    return pairs;
  }
  if (!(workspace.finder.config() == config)) workspace.finder = PairFinder(config);
  workspace.in_use = true;
  struct Release {
    Workspace& workspace;
    ~Release() { workspace.in_use = false; }
  } release{workspace};
  workspace.finder.find_pairs(boxes, pairs);
  return pairs;
}

}  // namespace agrid
