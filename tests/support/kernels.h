#pragma once
// The pair kernels a test can force through Config::kernel on this CPU.

#include <string_view>
#include <vector>

#include "agrid/config.h"

namespace agrid::test {

/// Kernel::scalar, then Kernel::avx2 and Kernel::avx512 where this CPU runs them: each one
/// really runs when forced (a kernel the CPU lacks would fall back to a narrower one).
[[nodiscard]] std::vector<Kernel> kernels_this_cpu_runs();

/// "automatic", "scalar", "avx2" or "avx512".
[[nodiscard]] std::string_view name(Kernel kernel);

}  // namespace agrid::test
