// agrid-viewer: a Bullet scene of the scene library in a window, stepped at 1/60 s a frame and
// drawn with agrid_render, its broadphase switched live between btDbvtBroadphase,
// bt32BitAxisSweep3 and btAdaptiveGridBroadphase from the same initial state, with the costs of
// each side by side (Dear ImGui). With --quit it runs a fixed number of steps, writes a picture
// and exits: for tests and for measuring frames per second.
// Exit codes: 0 done, 1 a failure (no display, a picture not written), 2 bad usage.

#include <cstdio>
#include <exception>

#include "viewer_app.h"
#include "viewer_options.h"

int main(int argc, char** argv) {
  const agrid::viewer::Parsed parsed = agrid::viewer::parse_options(argc, argv);
  if (parsed.exit_code) return *parsed.exit_code;
  try {
    return agrid::viewer::run_viewer(parsed.options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "agrid-viewer: %s\n", e.what());
    return 1;
  }
}
