#pragma once
// The viewer's frame loop: input, a step, the scene drawn, the panel over it.

#include "viewer_options.h"

namespace agrid::viewer {

/// Opens the window and runs until it is closed, or with --quit until the steps are done;
/// returns the exit code. Throws std::runtime_error without a display or when a picture cannot
/// be written.
[[nodiscard]] int run_viewer(const Options& options);

}  // namespace agrid::viewer
