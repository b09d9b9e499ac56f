#include "demo_pictures.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string_view>
#include <system_error>
#include <utility>

#include <btBulletCollisionCommon.h>

namespace agrid::demo {
namespace {

namespace fs = std::filesystem;

/// Digits of the step number in a picture's name (sorts in step order up to 99,999 steps).
constexpr int kStepDigits = 5;

// Whether an executable `name` is in a directory of PATH.
bool on_path(std::string_view name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::string_view rest(path);
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    const std::string_view entry = rest.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    if (entry.empty()) continue;
    std::error_code error;
    const fs::path candidate = fs::path(entry) / name;
    const fs::perms perms = fs::status(candidate, error).permissions();
    if (!error && fs::is_regular_file(candidate, error) && (perms & fs::perms::owner_exec) != fs::perms::none) {
      return true;
    }
  }
  return false;
}

// `text` in single quotes for the shell.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string render_dir_problem(const fs::path& dir) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) return "cannot create " + dir.string() + ": " + error.message();
  if (!fs::is_directory(dir, error)) return dir.string() + " is not a directory";
  const fs::path probe = dir / ".agrid-demo-write-test";
  {
    std::ofstream out(probe);
    if (!out) return "cannot write in " + dir.string();
  }
  fs::remove(probe, error);
  return {};
}

RunPictures::RunPictures(render::OffscreenRenderer& renderer, fs::path dir, std::string run_name, std::uint32_t every)
    : renderer_(renderer), dir_(std::move(dir)), run_name_(std::move(run_name)), every_(every) {}

void RunPictures::after_step(std::uint32_t step, const btCollisionWorld& world) {
  if (step % every_ != 0) return;
  char number[kStepDigits + 2];
  std::snprintf(number, sizeof number, "%0*u", kStepDigits, step);
  const render::Snapshot snapshot = render::take_snapshot(world, meshes_);
  render::write_png(dir_ / (run_name_ + "-" + number + ".png"), renderer_.render(snapshot));
  ++pictures_;
}

void RunPictures::finish() {
  std::printf("pictures: %u of %s in %s (%s-*.png)\n", pictures_, run_name_.c_str(), dir_.string().c_str(),
              run_name_.c_str());
  if (!on_path("ffmpeg")) {
    std::printf("video: skipped, ffmpeg is not on PATH\n");
    return;
  }
  const fs::path video = dir_ / (run_name_ + ".mp4");
  const std::string pattern = (dir_ / (run_name_ + "-*.png")).string();
  // The steps pictured are not consecutive numbers: a glob takes them in name (step) order.
  const std::string command = "ffmpeg -y -loglevel error -framerate " + std::to_string(kVideoFramesPerSecond) +
                              " -pattern_type glob -i " + quoted(pattern) + " -pix_fmt yuv420p " +
                              quoted(video.string());
  // The video is optional: a failing ffmpeg is reported, and the pictures stand.
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "agrid-demo: video: ffmpeg failed: %s\n", command.c_str());
    return;
  }
  std::printf("video: %s\n", video.string().c_str());
}

}  // namespace agrid::demo
