#pragma once
// Frames per second: the last second's, for the panel, and the whole run's, for --report-fps.

#include <chrono>
#include <cstdint>

namespace agrid::viewer {

/// Counts frames as they are shown.
class FrameRate {
 public:
  using Clock = std::chrono::steady_clock;

  FrameRate() : window_start_(Clock::now()) {}
  /// Counts one frame shown now.
  void frame();
  /// Frames per second over the last full second (0 before the first one ends).
  [[nodiscard]] double recent() const noexcept { return recent_; }
  /// Frames per second since the first frame (0 before the second).
  [[nodiscard]] double overall() const;
  [[nodiscard]] std::uint64_t frames() const noexcept { return frames_; }
  /// Seconds from the first frame to the last.
  [[nodiscard]] double seconds() const;

 private:
  Clock::time_point first_{};
  Clock::time_point last_{};
  Clock::time_point window_start_;
  std::uint64_t frames_ = 0;
  std::uint64_t window_frames_ = 0;
  double recent_ = 0;
};

}  // namespace agrid::viewer
