#pragma once
// PerThread<T>: one T per thread (oneTBB's enumerable_thread_specific), in ordinary heap memory.

#include <cstddef>
#include <new>

#include <tbb/enumerable_thread_specific.h>

namespace agrid::detail {

/// Alignment of each thread's element: a cache line, so that threads never share one.
inline constexpr std::size_t kCacheLine = 64;

/// Allocates cache-line aligned memory with operator new. oneTBB's default allocator takes its
/// memory from tbbmalloc when that library is installed, and leak checkers do not scan that
/// memory: what a per-thread element owns (its vectors' buffers) then looks unreferenced while
/// it is alive, and LeakSanitizer reports it (libFuzzer's check after each input did).
template <class T>
struct HeapAllocator {
  using value_type = T;

  HeapAllocator() noexcept = default;
  template <class U>
  HeapAllocator(const HeapAllocator<U>&) noexcept {}  // NOLINT: allocators convert implicitly

  [[nodiscard]] T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{kCacheLine}));
  }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t{kCacheLine}); }

  template <class U>
  bool operator==(const HeapAllocator<U>&) const noexcept {
    return true;
  }
};

/// One T per thread that asks for one, kept until the owner is destroyed or cleared.
template <class T>
using PerThread = tbb::enumerable_thread_specific<T, HeapAllocator<T>>;

}  // namespace agrid::detail
