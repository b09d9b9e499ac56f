#include "support/arena.h"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <cstddef>

namespace agrid::test {

void in_arena(int threads, const std::function<void()>& work) {
  const tbb::global_control allow(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  tbb::task_arena arena(threads);
  arena.execute(work);
}

}  // namespace agrid::test
