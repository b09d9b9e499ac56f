#pragma once
// Helpers of the renderer's tests: pictures of scene-library worlds, and measures of pictures.

#include <cstdint>
#include <filesystem>
#include <string>

#include "agrid_render/image.h"
#include "agrid_render/offscreen.h"
#include "agrid_render/snapshot.h"
#include "agrid_scenes/bullet_worlds.h"

namespace agrid::render::testing {

/// The variance of the pixels' grey level (0-255): near 0 for a blank picture.
[[nodiscard]] double grey_variance(const Image& image);

/// The mean absolute difference of corresponding channels (0-255); pictures of one size.
[[nodiscard]] double mean_abs_difference(const Image& a, const Image& b);

/// The pile of the scene library with `bodies` bodies, stepped `steps` times, on agrid.
[[nodiscard]] std::unique_ptr<scenes::BulletWorld> stepped_pile(std::uint32_t bodies, std::uint32_t steps);

/// Where tests write pictures to look at (this build's tests/render directory).
[[nodiscard]] std::filesystem::path output_dir();

}  // namespace agrid::render::testing
