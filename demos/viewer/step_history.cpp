#include "step_history.h"

namespace agrid::viewer {

void StepHistory::add(float step_ms, float broadphase_ms, float pairs) {
  if (step_ms_.size() < kCapacity) {
    step_ms_.push_back(step_ms);
    broadphase_ms_.push_back(broadphase_ms);
    pairs_.push_back(pairs);
    return;
  }
  step_ms_[next_] = step_ms;
  broadphase_ms_[next_] = broadphase_ms;
  pairs_[next_] = pairs;
  next_ = (next_ + 1) % kCapacity;
}

void StepHistory::clear() {
  step_ms_.clear();
  broadphase_ms_.clear();
  pairs_.clear();
  next_ = 0;
}

}  // namespace agrid::viewer
