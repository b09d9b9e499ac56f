#include "fuzz_input.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "agrid_scenes/adversarial.h"

namespace agrid::fuzz {
namespace {

/// Coded bytes below this are half-integers; the rest index the catalogue's special coordinates.
constexpr std::uint8_t kFirstSpecial = 240;
static_assert(scenes::kSpecialCoordinates.size() == 256 - kFirstSpecial, "one coded byte per special coordinate");
/// Half-integers from -kHalfSteps/2 to +kHalfSteps/2: few enough values that boxes meet often.
constexpr int kHalfSteps = 16;

/// Config::rest_after and Config::resting_query_cost as a byte picks them: the default first.
constexpr std::uint32_t kRestAfter[4] = {16, 1, 2, 4};
constexpr std::uint32_t kRestingQueryCost[4] = {16, 1, 4, 1000};

}  // namespace

float FuzzInput::raw_float() noexcept {
  std::uint32_t bits = 0;
  for (int k = 0; k < 4; ++k) bits |= static_cast<std::uint32_t>(byte()) << (8 * k);
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

float FuzzInput::coded_float() noexcept {
  const std::uint8_t b = byte();
  if (b >= kFirstSpecial) return scenes::kSpecialCoordinates[b - kFirstSpecial];
  return 0.5f * static_cast<float>(b % (kHalfSteps + 1) - kHalfSteps / 2);
}

Box FuzzInput::box(bool raw) noexcept {
  float lo[3];
  float hi[3];
  if (raw) {
    for (float& v : lo) v = raw_float();
    for (float& v : hi) v = raw_float();
  } else {
    const bool inverted = (byte() & 1) != 0;
    for (int a = 0; a < 3; ++a) {
      const float u = coded_float();
      const float v = coded_float();
      lo[a] = inverted ? std::max(u, v) : std::min(u, v);
      hi[a] = inverted ? std::min(u, v) : std::max(u, v);
    }
  }
  return Box{{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}};
}

Config FuzzInput::config() noexcept {
  const std::uint8_t b = byte();
  Config c;
  c.leaf_capacity = std::array<std::uint32_t, 4>{1, 2, 4, 32}[b & 3];
  c.sweep_threshold = std::array<std::uint32_t, 2>{2, 128}[(b >> 2) & 1];
  c.big_span = 1 + ((b >> 3) & 1);
  c.sweep_window = ((b >> 3) & 1) != 0 ? Config{}.sweep_window : 0.0f;  // only split, or swept where it pays
  c.max_copies_per_box = std::array<float, 2>{1.0f, 8.0f}[(b >> 4) & 1];
  c.max_staying_share = std::array<float, 2>{0.0f, 1.0f}[(b >> 5) & 1];
  c.tree_min_boxes = 2;
  c.tree_task_entries = std::array<std::uint32_t, 4>{1, 8, 64, 4096}[b >> 6];
  return c;
}

Config FuzzInput::broadphase_config() noexcept {
  Config c = config();
  // Bit 0: the fat margin; bits 1-3: when moving objects rest; bits 4-5: when they query the
  // resting tree one by one or pair with it in one grid.
  const std::uint8_t knobs = byte();
  c.fat_margin = (knobs & 1) != 0 ? 0.0f : 0.5f;
  c.rest_after = kRestAfter[(knobs >> 1) & 3];
  c.rest_after_unchanged = 1 + ((knobs >> 3) & 1);
  c.resting_query_cost = kRestingQueryCost[(knobs >> 4) & 3];
  return c;
}

}  // namespace agrid::fuzz
