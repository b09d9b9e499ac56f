// The module's thread arena: replaced by set_num_threads() while other threads' calls may be
// running in the one it replaces, so each call holds a shared reference to its arena.

#include <tbb/info.h>

#include <algorithm>
#include <mutex>

#include "module.h"

namespace agrid::python {

namespace {

/// The arena that calls start in from now on (nullptr: all cores), and the lock that guards the
/// pointer itself; an arena lives as long as the last call that took it.
struct Threads {
  std::mutex mutex;
  std::shared_ptr<tbb::task_arena> arena;
};

Threads& threads() {
  static Threads held;
  return held;
}

/// The threads this process may use (its affinity mask, as oneTBB counts them).
int machine_threads() { return tbb::info::default_concurrency(); }

void set_num_threads(int count) {
  if (count < 0) throw py::value_error("the count must be 0 (all cores) or more");
  // More threads than the machine runs at once only take turns: clamped, so get_num_threads()
  // says what runs.
  const int clamped = std::min(count, machine_threads());
  std::shared_ptr<tbb::task_arena> arena = count == 0 ? nullptr : std::make_shared<tbb::task_arena>(clamped);
  const std::lock_guard lock(threads().mutex);
  threads().arena.swap(arena);
  // The old arena goes with `arena` after the lock, or with the last call still running in it.
}

int get_num_threads() {
  const std::shared_ptr<tbb::task_arena> arena = current_arena();
  return arena == nullptr ? machine_threads() : arena->max_concurrency();
}

}  // namespace

std::shared_ptr<tbb::task_arena> current_arena() {
  const std::lock_guard lock(threads().mutex);
  return threads().arena;
}

void bind_threads(py::module_& m) {
  m.def("set_num_threads", [](int count) { named("set_num_threads", [&] { set_num_threads(count); }); }, py::arg("threads"),
        "Runs agrid on this many threads (0: all cores, the default); a count beyond the cores this\n"
        "process may use is clamped to them (get_num_threads() says the count in force). Safe while\n"
        "other threads' agrid calls run: they finish on the threads they started with.");
  m.def("get_num_threads", &get_num_threads, "The threads agrid runs on.");
}

}  // namespace agrid::python
