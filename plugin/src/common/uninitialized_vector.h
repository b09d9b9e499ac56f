#pragma once
// UninitializedVector: a std::vector whose resize() leaves new elements uninitialised.

#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace agrid::detail {

/// An allocator that default-initialises instead of value-initialising, so that growing a
/// buffer of plain values does not write zeros into memory the grid overwrites anyway: a
/// first frame then touches only the memory it uses.
template <class T>
class DefaultInitAllocator : public std::allocator<T> {
 public:
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };

  DefaultInitAllocator() noexcept = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)

  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// A vector of trivially copyable values for grow-only buffers.
template <class T>
  requires std::is_trivially_copyable_v<T>
using UninitializedVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace agrid::detail
