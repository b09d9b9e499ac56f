#include "render_support.h"

#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace agrid::render::testing {
namespace {

/// Rec. 601 luma weights.
constexpr double kRedWeight = 0.299;
constexpr double kGreenWeight = 0.587;
constexpr double kBlueWeight = 0.114;

}  // namespace

double grey_variance(const Image& image) {
  const std::size_t pixels = image.rgb.size() / 3;
  if (pixels == 0) return 0;
  double sum = 0;
  double sum2 = 0;
  for (std::size_t i = 0; i < pixels; ++i) {
    const double grey = kRedWeight * image.rgb[3 * i] + kGreenWeight * image.rgb[3 * i + 1] + kBlueWeight * image.rgb[3 * i + 2];
    sum += grey;
    sum2 += grey * grey;
  }
  const double mean = sum / static_cast<double>(pixels);
  return sum2 / static_cast<double>(pixels) - mean * mean;
}

double mean_abs_difference(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height || a.rgb.size() != b.rgb.size()) {
    throw std::invalid_argument("mean_abs_difference: the pictures differ in size");
  }
  if (a.rgb.empty()) return 0;
  double sum = 0;
  for (std::size_t i = 0; i < a.rgb.size(); ++i) sum += std::abs(static_cast<int>(a.rgb[i]) - static_cast<int>(b.rgb[i]));
  return sum / static_cast<double>(a.rgb.size());
}

std::unique_ptr<scenes::BulletWorld> stepped_pile(std::uint32_t bodies, std::uint32_t steps) {
  auto world = std::make_unique<scenes::BulletWorld>("pile", scenes::BroadphaseKind::agrid, bodies);
  for (std::uint32_t i = 0; i < steps; ++i) world->step();
  return world;
}

std::filesystem::path output_dir() { return AGRID_RENDER_TEST_OUTPUT_DIR; }

}  // namespace agrid::render::testing
