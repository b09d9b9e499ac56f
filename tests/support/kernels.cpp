#include "support/kernels.h"

namespace agrid::test {

std::vector<Kernel> kernels_this_cpu_runs() {
  std::vector<Kernel> kernels{Kernel::scalar};
#if defined(__x86_64__) || defined(__i386__)
  // The library asks the CPU the same questions (plugin/src/grid/leaf_kernel.cpp, kernels_of).
  if (__builtin_cpu_supports("avx2")) kernels.push_back(Kernel::avx2);
  if (__builtin_cpu_supports("avx512f")) kernels.push_back(Kernel::avx512);
#endif
  return kernels;
}

std::string_view name(Kernel kernel) {
  switch (kernel) {
    case Kernel::automatic: return "automatic";
    case Kernel::scalar: return "scalar";
    case Kernel::avx2: return "avx2";
    case Kernel::avx512: return "avx512";
  }
  return "not a Kernel";
}

}  // namespace agrid::test
