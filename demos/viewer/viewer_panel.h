#pragma once
// The viewer's ImGui panel: the broadphase switch, agrid's threads, pause/step/reset, the
// overlays and the picked body, plots of the last steps, and the A/B figures of every broadphase tried.

#include <optional>

#include "agrid_scenes/broadphase_kind.h"
#include "frame_rate.h"
#include "overlays.h"
#include "simulation.h"

namespace agrid::viewer {

/// What the user asked for in the panel this frame.
struct PanelRequests {
  std::optional<scenes::BroadphaseKind> switch_to;
  std::optional<unsigned> threads;
  bool toggle_pause = false;
  bool single_step = false;
  bool reset = false;
};

/// The panel's state between frames.
struct PanelState {
  Overlays overlays;
  int threads = 1;  ///< The slider's value.
};

/// Draws the panel inside the current ImGui frame and returns what was asked for.
[[nodiscard]] PanelRequests draw_panel(const Simulation& simulation, const FrameRate& frame_rate, bool paused,
                                       PanelState& state);

}  // namespace agrid::viewer
