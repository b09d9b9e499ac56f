#include "agrid_render/image.h"

#include <png.h>

#include <cstring>
#include <stdexcept>
#include <string>

namespace agrid::render {

void write_png(const std::filesystem::path& path, const Image& image) {
  const std::size_t expected = static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height) * 3;
  if (image.width <= 0 || image.height <= 0 || image.rgb.size() != expected) {
    throw std::runtime_error("cannot write " + path.string() + ": the image is empty or its size is wrong");
  }
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = PNG_FORMAT_RGB;
  if (png_image_write_to_file(&png, path.c_str(), 0, image.rgb.data(), 0, nullptr) == 0) {
    const std::string message = png.message;
    png_image_free(&png);
    throw std::runtime_error("cannot write " + path.string() + ": " + message);
  }
}

Image read_png(const std::filesystem::path& path) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_file(&png, path.c_str()) == 0) {
    const std::string message = png.message;
    png_image_free(&png);
    throw std::runtime_error("cannot read " + path.string() + ": " + message);
  }
  png.format = PNG_FORMAT_RGB;
  Image image;
  image.width = static_cast<int>(png.width);
  image.height = static_cast<int>(png.height);
  image.rgb.resize(PNG_IMAGE_SIZE(png));
  if (png_image_finish_read(&png, nullptr, image.rgb.data(), 0, nullptr) == 0) {
    const std::string message = png.message;
    png_image_free(&png);
    throw std::runtime_error("cannot read " + path.string() + ": " + message);
  }
  return image;
}

}  // namespace agrid::render
