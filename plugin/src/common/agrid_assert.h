#pragma once
// AGRID_ASSERT: checks of the library's own invariants, compiled in only with AGRID_ASSERTS
// (CMake option AGRID_ASSERTS: on for Debug, sanitizer and fuzzing builds, off in Release).

#include <algorithm>

namespace agrid::detail {

/// True iff `items` ascend strictly (each once, in order): what a problem() check says of a
/// sorted set.
template <class Items>
[[nodiscard]] bool ascends_strictly(const Items& items) {
  return std::adjacent_find(items.begin(), items.end(), [](const auto& a, const auto& b) { return !(a < b); }) ==
         items.end();
}

/// Reports a broken invariant on stderr (what, where) and aborts.
[[noreturn]] void invariant_broken(const char* what, const char* file, int line) noexcept;

}  // namespace agrid::detail

#if defined(AGRID_ASSERTS)
/// Aborts with the condition's text if it is false.
#define AGRID_ASSERT(condition) \
  ((condition) ? static_cast<void>(0) : ::agrid::detail::invariant_broken(#condition, __FILE__, __LINE__))
/// Aborts with the problem described if `problem` (a const char*, null when all is well) is not null.
#define AGRID_ASSERT_NO_PROBLEM(problem)                                                 \
  do {                                                                                   \
    if (const char* agrid_problem_ = (problem)) {                                        \
      ::agrid::detail::invariant_broken(agrid_problem_, __FILE__, __LINE__);             \
    }                                                                                    \
  } while (false)
#else
// Not evaluated (sizeof), but the names in them still count as used.
#define AGRID_ASSERT(condition) static_cast<void>(sizeof(condition))
#define AGRID_ASSERT_NO_PROBLEM(problem) static_cast<void>(sizeof(problem))
#endif
