#include "support/configs.h"

#include <cmath>
#include <utility>

namespace agrid::test {

Config make_config(std::uint32_t leaf_capacity, std::uint32_t big_span, std::uint32_t sweep_threshold,
                   float max_staying_share, float max_copies_per_box) {
  Config c;
  c.leaf_capacity = leaf_capacity;
  c.big_span = big_span;
  c.sweep_threshold = sweep_threshold;
  c.max_staying_share = max_staying_share;
  c.max_copies_per_box = max_copies_per_box;
  return c;
}

std::vector<Config> all_config_combinations() {
  const Config d;
  const std::pair<float, float> splitting[] = {
      {d.max_staying_share, d.max_copies_per_box}, {0.0f, 1.0f}, {1.0f, 8.0f}};
  std::vector<Config> out;
  for (std::uint32_t lc : {1u, 2u, 16u, 1000u}) {
    for (std::uint32_t bs : {1u, 2u}) {
      for (std::uint32_t st : {2u, 64u, 100000u}) {
        for (const auto& [share, copies] : splitting) {
          Config c = make_config(lc, bs, st, share, copies);
          c.sweep_window = bs == 1 ? 0.0f : c.sweep_window;  // cells only split, or swept where it pays
          out.push_back(c);
        }
      }
    }
  }
  return out;
}

std::vector<Config> some_configs() {
  return {Config{},
          make_config(1, 1, 2),
          make_config(2, 2, 64, 0.0f, 1.0f),
          make_config(1000, 2, 100000, 1.0f, 8.0f),
          make_config(16, 1, 2, 1.0f, 1.0f),
          make_config(1, 2, 2, 0.0f, 8.0f)};
}

std::string name(const Config& config) {
  std::string s("lc");
  s += std::to_string(config.leaf_capacity);
  s += "_bs";
  s += std::to_string(config.big_span);
  s += "_st";
  s += std::to_string(config.sweep_threshold);
  const auto hundredths = [](float v) {
    return std::isfinite(v) ? std::to_string(std::lround(static_cast<double>(v) * 100)) : std::string("nonfinite");
  };
  s += "_sh";
  s += hundredths(config.max_staying_share);
  s += "_cp";
  s += hundredths(config.max_copies_per_box);
  s += "_sw";
  s += hundredths(config.sweep_window);
  return s;
}

}  // namespace agrid::test
