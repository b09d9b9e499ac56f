#pragma once
// Configurations the tests run every algorithm with: the defaults and the knobs' extremes.

#include <cstdint>
#include <string>
#include <vector>

#include "agrid/config.h"

namespace agrid::test {

/// A Config from its knobs, named (aggregate initialisation would silently shift when the
/// struct gains a field).
[[nodiscard]] Config make_config(std::uint32_t leaf_capacity, std::uint32_t big_span,
                                 std::uint32_t sweep_threshold, float max_staying_share = Config{}.max_staying_share,
                                 float max_copies_per_box = Config{}.max_copies_per_box);

/// Configurations covering the knobs' extremes: every combination of leaf_capacity
/// {1, 2, 16, 1000}, big_span {1, 2}, sweep_threshold {2, 64, 100000}, and (max_staying_share,
/// max_copies_per_box) in {default, (0, 1), (1, 8)}.
[[nodiscard]] std::vector<Config> all_config_combinations();

/// A handful of configurations: the default and the extremes.
[[nodiscard]] std::vector<Config> some_configs();

/// "lc16_bs2_st128_sh25_cp300" (the two float knobs in hundredths).
[[nodiscard]] std::string name(const Config& config);

}  // namespace agrid::test
