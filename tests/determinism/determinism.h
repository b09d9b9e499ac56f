#pragma once
// The frame of the determinism check: a scene is run once per pair kernel this CPU runs (forced
// through Config::kernel) on 1 and on 2 threads, each run hashes what it produced after every
// step, and all runs must give one hash.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "agrid/config.h"

namespace agrid::test {

/// FNV-1a (64 bits) over the bytes added, in order: one number for a whole run.
class RunningHash {
 public:
  /// Adds the bytes of `value` (a float's bits, a handle).
  template <class T>
  void add(const T& value) noexcept {
    static_assert(std::is_trivially_copyable_v<T>);
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    for (const unsigned char b : bytes) {
      hash_ ^= b;
      hash_ *= kPrime;
    }
  }

  /// The hash of everything added so far.
  [[nodiscard]] std::uint64_t value() const noexcept { return hash_; }

 private:
  static constexpr std::uint64_t kOffsetBasis = 0xcbf29ce484222325u;  ///< FNV-1a's, for 64 bits.
  static constexpr std::uint64_t kPrime = 0x100000001b3u;             ///< FNV's 64-bit prime.
  std::uint64_t hash_ = kOffsetBasis;
};

/// One run of a scene: a kernel forced through Config::kernel, on a number of threads.
struct KernelAndThreads {
  Kernel kernel = Kernel::scalar;
  int threads = 1;
};

/// Every kernel this CPU runs, each on 1 thread and on 2 (the parallel paths).
[[nodiscard]] std::vector<KernelAndThreads> all_runs();

/// "avx512 on 2 threads".
[[nodiscard]] std::string name(const KernelAndThreads& run);

/// A run's running hash after each of its steps.
using StepHashes = std::vector<std::uint64_t>;

/// Runs `scene` once for each of all_runs(), inside a task arena of the run's threads, and
/// succeeds iff every run gives the first one's hashes; else names each run that differs and
/// the first step where it does.
[[nodiscard]] ::testing::AssertionResult one_hash_for_all_runs(const std::function<StepHashes(const KernelAndThreads&)>& scene);

}  // namespace agrid::test
