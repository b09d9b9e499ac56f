#include "frame_rate.h"

namespace agrid::viewer {
namespace {

/// The panel's figure is the frames of the last window this long.
constexpr std::chrono::seconds kRecentWindow{1};

}  // namespace

void FrameRate::frame() {
  const Clock::time_point now = Clock::now();
  if (frames_ == 0) first_ = now;
  last_ = now;
  ++frames_;
  ++window_frames_;
  const std::chrono::duration<double> elapsed = now - window_start_;
  if (elapsed >= kRecentWindow) {
    recent_ = static_cast<double>(window_frames_) / elapsed.count();
    window_frames_ = 0;
    window_start_ = now;
  }
}

double FrameRate::seconds() const { return std::chrono::duration<double>(last_ - first_).count(); }

double FrameRate::overall() const {
  // Frames after the first, over the time since it: the first frame's wait is not a frame rate.
  const double elapsed = seconds();
  return frames_ < 2 || elapsed <= 0 ? 0 : static_cast<double>(frames_ - 1) / elapsed;
}

}  // namespace agrid::viewer
