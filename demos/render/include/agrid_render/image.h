#pragma once
// An RGB picture in memory and its PNG file (libpng).

#include <cstdint>
#include <filesystem>
#include <vector>

namespace agrid::render {

/// 8-bit RGB pixels, rows top to bottom.
struct Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;  ///< width * height * 3 bytes.
};

/// Writes `image` as a PNG file; throws std::runtime_error if it cannot.
void write_png(const std::filesystem::path& path, const Image& image);

/// Reads a PNG file as RGB; throws std::runtime_error if it cannot.
[[nodiscard]] Image read_png(const std::filesystem::path& path);

}  // namespace agrid::render
