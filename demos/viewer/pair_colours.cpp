#include "pair_colours.h"

#include <algorithm>
#include <array>
#include <cstddef>

#include <glm/common.hpp>

namespace agrid::viewer {
namespace {

/// The ramp's stops, evenly spaced over 0 .. kHotPairs.
constexpr std::array<glm::vec3, 5> kStops = {glm::vec3{0.20f, 0.30f, 0.90f}, glm::vec3{0.15f, 0.80f, 0.90f},
                                             glm::vec3{0.25f, 0.85f, 0.30f}, glm::vec3{0.95f, 0.85f, 0.20f},
                                             glm::vec3{0.90f, 0.20f, 0.15f}};

}  // namespace

glm::vec3 pair_colour(int pairs) {
  const float t = static_cast<float>(std::clamp(pairs, 0, kHotPairs)) / static_cast<float>(kHotPairs);
  const float position = t * static_cast<float>(kStops.size() - 1);
  const auto low = std::min(static_cast<std::size_t>(position), kStops.size() - 2);
  return glm::mix(kStops[low], kStops[low + 1], position - static_cast<float>(low));
}

}  // namespace agrid::viewer
