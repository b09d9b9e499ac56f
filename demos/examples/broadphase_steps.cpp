// broadphase_steps: objects that come, move and go, kept in one agrid::Broadphase across steps,
// each update() reporting the pairs that began and ended (as an engine's contact events).
// Exits 1, naming the step, when a report is not the one written beside it.
#include <agrid/broadphase.h>

#include <algorithm>
#include <cstdio>
#include <vector>

static agrid::Box ball_at(float height) { return {{-0.5f, height, -0.5f}, {0.5f, height + 1, 0.5f}}; }
static agrid::Pair pair(agrid::Handle a, agrid::Handle b) { return {std::min(a, b), std::max(a, b)}; }
static void print(int step, const char* what, const std::vector<agrid::Pair>& pairs) {
  for (auto [a, b] : pairs) std::printf("step %d: %u and %u %s\n", step, a, b, what);
}

int main() {
  agrid::Broadphase broadphase;  // keep it: an update costs what changed since the last one
  const agrid::Handle ground = broadphase.create({{-10, -1, -10}, {10, 0, 10}});
  const agrid::Handle crate = broadphase.create({{3, 0, 0}, {4, 1, 1}});  // standing on the ground
  const agrid::Handle ball = broadphase.create(ball_at(3));
  struct Step {
    float ball_height;
    bool remove_crate;
    std::vector<agrid::Pair> began, ended;
  };
  const std::vector<Step> steps = {
      {3, false, {pair(ground, crate)}, {}},  // pairs of new objects begin at the first update
      {1.5f, false, {}, {}},                  // the ball falls, still in the air
      {0, false, {pair(ground, ball)}, {}},   // it lands: touching boxes overlap
      {0, true, {}, {pair(ground, crate)}},   // a removed object's pairs end
      {1, false, {}, {pair(ground, ball)}},   // the ball bounces off
  };
  bool ok = true;
  for (int i = 0; i < static_cast<int>(steps.size()); ++i) {
    const Step& step = steps[i];
    broadphase.set_box(ball, ball_at(step.ball_height));  // an unchanged box costs a comparison
    if (step.remove_crate) broadphase.remove(crate);
    const agrid::PairChanges& changes = broadphase.update();  // began and ended: sorted, first < second
    print(i, "began", changes.began);
    print(i, "ended", changes.ended);
    if (changes.began != step.began || changes.ended != step.ended) {
      std::fprintf(stderr, "broadphase_steps: step %d reported other pairs than expected\n", i);
      ok = false;
    }
  }
  return ok ? 0 : 1;
}
