#pragma once
// parallel_for: oneTBB's loops, every one of agrid's parallel loops goes through here, so that a
// ThreadSanitizer build sees their fork and join. Debian's libtbb is not instrumented: the
// hand-off of a task to a worker happens inside it, where ThreadSanitizer cannot see it, and
// every read of the caller's data in a task would be reported. Under ThreadSanitizer each body
// acquires what the caller released before the loop, and the caller acquires what the bodies
// released after it: the fork-join order oneTBB guarantees. Bodies that run at the same time
// stay unordered, so a race between them is reported (tests/tsan/race_canary checks that); a
// body copied by a worker carries that worker's earlier bodies to the ones run after it, so a
// race between bodies far apart in time may go unseen.

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <cstddef>

#if defined(__SANITIZE_THREAD__)
#define AGRID_THREAD_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define AGRID_THREAD_SANITIZER 1
#endif
#endif

#ifdef AGRID_THREAD_SANITIZER
extern "C" void __tsan_acquire(void* address);
extern "C" void __tsan_release(void* address);
#endif

namespace agrid::detail {

/// The fork-join order of parallel loops, told to ThreadSanitizer (nothing otherwise).
class ForkJoin {
 public:
  /// A point every thread that copies or runs a loop's body passes: what the caller did before
  /// the loop, and every copy of a body oneTBB made (on whichever thread split the range), is
  /// seen by the threads that then read it. One address for all loops: a body also sees what
  /// callers of other loops did before theirs, which can only hide a race with work that ended
  /// before its own loop began.
  static void publish() noexcept { release(&fork_token); }
  static void enter() noexcept { acquire(&fork_token); }

  /// Makes the compiler finish its stores to these objects here, before a publish(): it could
  /// otherwise sink them past it, since the call does not see their addresses.
  template <class... Objects>
  static void written(const Objects&... objects) noexcept {
    (stored(&objects), ...);
  }

  ForkJoin() = default;
  /// After the loop: every body happens before what the caller does next.
  ~ForkJoin() { acquire(&join_); }
  ForkJoin(const ForkJoin&) = delete;
  ForkJoin& operator=(const ForkJoin&) = delete;

  /// Last thing in a body.
  void leave() noexcept { release(&join_); }

 private:
#ifdef AGRID_THREAD_SANITIZER
  static void stored(const void* address) noexcept { asm volatile("" : : "r"(address) : "memory"); }
  static void acquire(char* address) noexcept { __tsan_acquire(address); }
  static void release(char* address) noexcept { __tsan_release(address); }
#else
  static void stored(const void*) noexcept {}
  static void acquire(char*) noexcept {}
  static void release(char*) noexcept {}
#endif
  static inline char fork_token = 0;
  char join_ = 0;
};

/// The body oneTBB copies into its tasks: each copy and each run enters the fork-join order
/// before it reads anything, and a copy publishes itself after writing.
template <class Run>
class OrderedBody {
 public:
  OrderedBody(const Run& run, ForkJoin& order) noexcept : run_(&run), order_(&order) { ForkJoin::publish(); }
  OrderedBody(const OrderedBody& other) noexcept : run_(entered(other).run_), order_(other.order_) {
    ForkJoin::publish();
  }
  OrderedBody& operator=(const OrderedBody&) = delete;
  ~OrderedBody() = default;

  template <class Argument>
  void operator()(const Argument& argument) const {
    ForkJoin::enter();
    (*run_)(argument);
    order_->leave();
  }

 private:
  static const OrderedBody& entered(const OrderedBody& other) noexcept {
    ForkJoin::enter();
    return other;
  }
  const Run* run_;
  ForkJoin* order_;
};

/// Calls body(i) for every i in [first, last), in parallel on the caller's task arena, split
/// by oneTBB's `partitioner` if given (tbb::simple_partitioner: each index its own task,
/// started in index order, for tasks sorted costliest first).
template <class Index, class Body, class... Partitioner>
void parallel_for(Index first, Index last, const Body& body, const Partitioner&... partitioner) {
  ForkJoin order;
  const auto run = [&body](Index i) { body(i); };
  ForkJoin::written(body, run);
  tbb::parallel_for(first, last, OrderedBody<decltype(run)>(run, order), partitioner...);
}

/// Calls body(u) for every unit of work u in [0, units): on the calling thread when there is one
/// (waking another thread would cost more than the unit), else in parallel.
template <class Body>
void for_each_unit(std::size_t units, const Body& body) {
  if (units == 1) {
    body(std::size_t{0});
  } else if (units > 1) {
    parallel_for(std::size_t{0}, units, body);
  }
}

}  // namespace agrid::detail
