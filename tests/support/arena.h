#pragma once
// Running test code on a chosen number of threads.

#include <functional>

namespace agrid::test {

/// Runs `work` in a tbb::task_arena of `threads` threads that really has them: an arena alone
/// gets no more workers than the machine has cores, so the process's limit is raised (with a
/// tbb::global_control) while it runs.
void in_arena(int threads, const std::function<void()>& work);

}  // namespace agrid::test
