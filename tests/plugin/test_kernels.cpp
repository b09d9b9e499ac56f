// Every pair kernel (scalar, AVX2, AVX-512, automatic) gives exactly the oracle's pairs; on a CPU
// lacking an instruction set the request falls back, which the test also covers.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "agrid/agrid.h"
#include "agrid_scenes/scenes.h"
#include "oracle/oracle.h"
#include "support/kernels.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

const Kernel kKernels[] = {Kernel::automatic, Kernel::scalar, Kernel::avx2, Kernel::avx512};

class Kernels : public ::testing::TestWithParam<Kernel> {};

TEST_P(Kernels, MatchOracleOnRandomAndAdversarialScenes) {
  std::vector<std::vector<Box>> scenes;
  for (const Density d : {Density::kSparse, Density::kDense, Density::kVeryDense}) {
    scenes.push_back(random_scene(3000, d, 11));
  }
  for (const std::string_view name : scenes::adversarial_scene_names()) {
    scenes.push_back(scenes::make_scene(name, 0.3, 5).boxes);
  }
  for (const auto& boxes : scenes) {
    const auto expected = oracle::pairs(boxes);
    // Small leaves (all against all) and small sweep thresholds (sort-and-sweep) alike.
    for (const std::uint32_t sweep_threshold : {2u, 128u}) {
      Config config = make_config(32, 2, sweep_threshold);
      config.kernel = GetParam();
      EXPECT_TRUE(same_pairs(expected, find_all_pairs(boxes, config), boxes)) << "sweep_threshold " << sweep_threshold;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, Kernels, ::testing::ValuesIn(kKernels),
                         [](const ::testing::TestParamInfo<Kernel>& param) { return std::string(name(param.param)); });

TEST(Kernels, AnOutOfRangeKernelIsAProblem) {
  Config config;
  config.kernel = static_cast<Kernel>(7);
  EXPECT_NE(config.problem(), nullptr);
  EXPECT_THROW(Grid{config}, std::invalid_argument);
}

}  // namespace
}  // namespace agrid::test
