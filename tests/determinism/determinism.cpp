#include "determinism/determinism.h"

#include <algorithm>
#include <iterator>

#include "support/arena.h"
#include "support/kernels.h"

namespace agrid::test {
namespace {

/// The thread counts of every kernel's runs: one, and two (the parallel paths).
constexpr int kThreadCounts[] = {1, 2};

/// The first step at which two runs' hashes differ (a shorter run differs where it ends).
std::size_t first_difference(const StepHashes& a, const StepHashes& b) {
  const auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  return static_cast<std::size_t>(std::distance(a.begin(), ia));
}

}  // namespace

std::vector<KernelAndThreads> all_runs() {
  std::vector<KernelAndThreads> runs;
  for (const Kernel kernel : kernels_this_cpu_runs()) {
    for (const int threads : kThreadCounts) runs.push_back({kernel, threads});
  }
  return runs;
}

std::string name(const KernelAndThreads& run) {
  return std::string(name(run.kernel)) + " on " + std::to_string(run.threads) + (run.threads == 1 ? " thread" : " threads");
}

::testing::AssertionResult one_hash_for_all_runs(const std::function<StepHashes(const KernelAndThreads&)>& scene) {
  const std::vector<KernelAndThreads> runs = all_runs();
  std::vector<StepHashes> hashes(runs.size());
  for (std::size_t r = 0; r < runs.size(); ++r) {
    in_arena(runs[r].threads, [&] { hashes[r] = scene(runs[r]); });
  }
  bool all_same = true;
  std::string differences;
  for (std::size_t r = 1; r < runs.size(); ++r) {
    if (hashes[r] == hashes[0]) continue;
    all_same = false;
    differences += "\n  " + name(runs[r]) + " differs from " + name(runs[0]) + " from step " +
                   std::to_string(first_difference(hashes[0], hashes[r]) + 1) + " of " +
                   std::to_string(hashes[0].size());
  }
  if (all_same) return ::testing::AssertionSuccess() << runs.size() << " runs, one hash";
  return ::testing::AssertionFailure() << "not one hash for all " << runs.size() << " runs:" << differences;
}

}  // namespace agrid::test
