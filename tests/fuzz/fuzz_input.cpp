#include "fuzz_input.h"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cstring>
#include <limits>

namespace agrid::fuzz {
namespace {

/// Coded bytes below this are half-integers; the rest index kSpecials.
constexpr std::uint8_t kFirstSpecial = 240;
/// Half-integers from -kHalfSteps/2 to +kHalfSteps/2: few enough values that boxes meet often.
constexpr int kHalfSteps = 16;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
/// The values that broke broadphases before: not-a-number, the infinities, the largest floats,
/// values whose arithmetic overflows or underflows, denormals, and negative zero.
constexpr std::array<float, 256 - kFirstSpecial> kSpecials = {
    kNaN,     kInf,     -kInf,          1e30f, -1e30f, FLT_MAX,  -FLT_MAX, std::numeric_limits<float>::denorm_min(),
    -0.0f,    1e-30f,   FLT_MIN,        4e19f, -4e19f, 16777216, 0.1f,     -std::numeric_limits<float>::denorm_min()};

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
  if (b >= kFirstSpecial) return kSpecials[b - kFirstSpecial];
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
  c.max_copies_per_box = std::array<float, 2>{1.0f, 8.0f}[(b >> 4) & 1];
  c.max_staying_share = std::array<float, 2>{0.0f, 1.0f}[(b >> 5) & 1];
  c.tree_min_boxes = 2;
  c.task_entries = std::array<std::uint32_t, 4>{1, 8, 64, 4096}[b >> 6];
  return c;
}

}  // namespace agrid::fuzz
