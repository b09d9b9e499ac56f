#pragma once
// The last few hundred steps' costs, kept for ImGui::PlotLines (a ring per series and the offset
// of its oldest value, as PlotLines reads them).

#include <cstddef>
#include <vector>

namespace agrid::viewer {

/// Rings of the last kCapacity steps: step time, broadphase time and pairs.
class StepHistory {
 public:
  /// Steps plotted: five seconds of simulated time, enough to see a pile settle.
  static constexpr std::size_t kCapacity = 300;

  /// Appends one step, dropping the oldest once full.
  void add(float step_ms, float broadphase_ms, float pairs);
  /// Forgets every step (after a rebuild the plots start over).
  void clear();

  [[nodiscard]] const std::vector<float>& step_ms() const noexcept { return step_ms_; }
  [[nodiscard]] const std::vector<float>& broadphase_ms() const noexcept { return broadphase_ms_; }
  [[nodiscard]] const std::vector<float>& pairs() const noexcept { return pairs_; }
  /// Index of the oldest value in each ring.
  [[nodiscard]] std::size_t oldest() const noexcept { return step_ms_.size() < kCapacity ? 0 : next_; }

 private:
  std::vector<float> step_ms_;
  std::vector<float> broadphase_ms_;
  std::vector<float> pairs_;
  std::size_t next_ = 0;  ///< Where the next value goes once the rings are full.
};

}  // namespace agrid::viewer
