#pragma once
// FunctionRef: a non-owning reference to a callable, how agrid reports results without templates.

// Below C++20: one clear error, not dozens from what follows. (GCC 10 and older report 201709 in
// their C++2a mode: let through.)
#if __cplusplus <= 201703L
#error "agrid/callback.h needs C++20; a Bullet program of an older standard includes <agrid/bullet/btAdaptiveGridBroadphase.h> (C++11) instead"
#else

#include <type_traits>
#include <utility>

namespace agrid {

/// A cheap, non-owning reference to a callable taking Args. The callable may return bool
/// (false stops the query early) or void (the query runs to its end). It must outlive the call.
template <class... Args>
class FunctionRef {
 public:
  /// Refers to `f`; does not copy it.
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> && std::is_invocable_v<F&, Args...>)
  FunctionRef(F&& f) noexcept  // NOLINT(google-explicit-constructor): used like a function parameter
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* object, Args... args) -> bool {
          auto& callable = *static_cast<std::remove_reference_t<F>*>(object);
          if constexpr (std::is_same_v<std::invoke_result_t<F&, Args...>, void>) {
            callable(std::forward<Args>(args)...);
            return true;
          } else {
            return static_cast<bool>(callable(std::forward<Args>(args)...));
          }
        }) {}

  /// Calls the callable; false means "stop".
  bool operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  bool (*call_)(void*, Args...);
};

}  // namespace agrid

#endif  // C++20
