// A deliberate data race between the bodies of one agrid parallel loop: the ThreadSanitizer
// build must report it (ctest expects the report), which shows that the fork-join
// annotations and tsan.supp leave races in agrid's own code visible.

#include <tbb/task_arena.h>

#include <cstdio>

#include "common/parallel_for.h"

namespace {

/// Iterations of the racy loop: enough that two threads run bodies at once.
constexpr int kIterations = 100000;
/// The threads of the loop's arena.
constexpr int kThreads = 2;

}  // namespace

int main() {
  long shared = 0;  // Written by every body, unsynchronized: the race.
  tbb::task_arena(kThreads).execute(
      [&] { agrid::detail::parallel_for(0, kIterations, [&](int i) { shared += i; }); });
  std::printf("race_canary: %ld\n", shared);
  return 0;
}
