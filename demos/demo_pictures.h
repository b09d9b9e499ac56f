#pragma once
// --render: pictures of a run every N steps (agrid_render, offscreen OpenGL, PNG) and, when
// ffmpeg is on PATH, a video of them.

#include <cstdint>
#include <filesystem>
#include <string>

#include "agrid_render/offscreen.h"
#include "agrid_render/snapshot.h"

class btCollisionWorld;

namespace agrid::demo {

/// Frames per second of the video made from the pictures.
inline constexpr int kVideoFramesPerSecond = 30;

/// Why `dir` cannot take the pictures (it cannot be made, or a file cannot be written in it), or
/// an empty string if it can. Creates `dir` when it can.
[[nodiscard]] std::string render_dir_problem(const std::filesystem::path& dir);

/// Pictures of one run: DIR/<scene>-<broadphase>-<step, 5 digits>.png at step 0 and every
/// `every` steps, then DIR/<scene>-<broadphase>.mp4 if ffmpeg is on PATH.
class RunPictures {
 public:
  RunPictures(render::OffscreenRenderer& renderer, std::filesystem::path dir, std::string run_name,
              std::uint32_t every);

  /// Draws `world` after `step` steps if `step` is a multiple of `every`; throws if the PNG
  /// cannot be written.
  void after_step(std::uint32_t step, const btCollisionWorld& world);

  /// Makes the video (or says why not) and prints what was written.
  void finish();

 private:
  render::OffscreenRenderer& renderer_;
  render::MeshCache meshes_;
  std::filesystem::path dir_;
  std::string run_name_;
  std::uint32_t every_;
  std::uint32_t pictures_ = 0;
};

}  // namespace agrid::demo
