#include "viewer_panel.h"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cstdio>
#include <string>
#include <utility>

#include <tbb/info.h>

#include "agrid/limits.h"
#include "pair_colours.h"

namespace agrid::viewer {
namespace {

using scenes::BroadphaseKind;

/// The broadphases offered (simple, the O(n^2) oracle, would stall the window).
constexpr std::array kSwitchable = {BroadphaseKind::dbvt, BroadphaseKind::sap, BroadphaseKind::agrid};
/// The panel's place at first; the user may move it.
const ImVec2 kPanelPosition{10.0f, 10.0f};
/// Width of the slider and the plots, in pixels (an auto-sized panel has no width to share out).
constexpr float kItemWidth = 280.0f;
/// Height of each plot, in pixels.
constexpr float kPlotHeight = 60.0f;
/// Room for a plot's overlay: a number and its unit.
constexpr std::size_t kOverlayChars = 32;
/// The thread slider goes to twice the machine's cores, to see oversubscription too.
constexpr int kThreadSliderCoresFactor = 2;

std::string label_of(BroadphaseKind kind) { return std::string(scenes::name(kind)); }

void broadphase_switch(const Simulation& simulation, PanelRequests& requests) {
  ImGui::TextUnformatted("Broadphase (a switch rebuilds the world from the start):");
  for (const BroadphaseKind kind : kSwitchable) {
    if (kind != kSwitchable.front()) ImGui::SameLine();
    if (ImGui::RadioButton(label_of(kind).c_str(), simulation.kind() == kind) && simulation.kind() != kind) {
      requests.switch_to = kind;
    }
  }
}

void aabb_choice(AabbOverlay& aabbs) {
  ImGui::TextUnformatted("AABBs:");
  constexpr std::array<std::pair<const char*, AabbOverlay>, 3> kChoices = {
      {{"none", AabbOverlay::none}, {"picked", AabbOverlay::picked}, {"all", AabbOverlay::all}}};
  for (const auto& [label, choice] : kChoices) {
    ImGui::SameLine();
    if (ImGui::RadioButton(label, aabbs == choice)) aabbs = choice;
  }
}

// The ramp of colour by pair count, one coloured number per count.
void pair_legend() {
  ImGui::TextUnformatted("pairs:");
  for (int pairs = 0; pairs <= kHotPairs; ++pairs) {
    const glm::vec3 c = pair_colour(pairs);
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(c.r, c.g, c.b, 1.0f), pairs == kHotPairs ? "%d+" : "%d", pairs);
  }
}

void overlay_controls(Overlays& overlays) {
  aabb_choice(overlays.aabbs);
  ImGui::Checkbox("pairs", &overlays.pairs);
  ImGui::SameLine();
  ImGui::Checkbox("rays", &overlays.rays);
  ImGui::SameLine();
  ImGui::Checkbox("colour by state", &overlays.colour_by_state);
  ImGui::SameLine();
  ImGui::Checkbox("by pairs", &overlays.colour_by_pairs);
  if (overlays.colour_by_pairs) pair_legend();
  ImGui::Checkbox("agrid cells at depth", &overlays.cells);
  ImGui::SameLine();
  ImGui::SliderInt("##depth", &overlays.cell_depth, 0, static_cast<int>(kMaxDepth));
  if (overlays.cells) ImGui::TextUnformatted("(an agrid::Grid over these AABBs, split, not swept; deeper than its leaves: none)");
}

// The picked body, or how to pick one.
void picked_body(const Simulation& simulation, const std::optional<int>& picked) {
  const std::optional<BodyInfo> info = picked ? simulation.body_info(*picked) : std::nullopt;
  if (!info) {
    ImGui::TextUnformatted("Click a body to pick it");
    return;
  }
  ImGui::Text("picked: #%d, %s, %s, %d pairs", info->index, info->shape.c_str(), info->state.c_str(), info->pairs);
}

void controls(const Simulation& simulation, bool paused, PanelState& state, PanelRequests& requests) {
  const int max_threads = kThreadSliderCoresFactor * tbb::info::default_concurrency();
  if (ImGui::SliderInt("agrid threads", &state.threads, 1, max_threads)) {
    requests.threads = static_cast<unsigned>(std::clamp(state.threads, 1, max_threads));
  }
  if (ImGui::Button(paused ? "Run (space)" : "Pause (space)")) requests.toggle_pause = true;
  ImGui::SameLine();
  if (ImGui::Button("Step (N)")) requests.single_step = true;
  ImGui::SameLine();
  if (ImGui::Button("Reset (R)")) requests.reset = true;
  overlay_controls(state.overlays);
  ImGui::Text("%s, %d objects, step %llu", simulation.scene().c_str(), simulation.objects(),
              static_cast<unsigned long long>(simulation.steps()));
}

// One series of the history, its newest value over the plot as `format` (one float) shows it.
void plot(const char* label, const char* format, const std::vector<float>& values, std::size_t oldest) {
  const float newest = values.empty() ? 0.0f : values[(oldest + values.size() - 1) % values.size()];
  std::array<char, kOverlayChars> overlay{};
  std::snprintf(overlay.data(), overlay.size(), format, static_cast<double>(newest));
  ImGui::PlotLines(label, values.data(), static_cast<int>(values.size()), static_cast<int>(oldest), overlay.data(),
                   0.0f, FLT_MAX, ImVec2(0.0f, kPlotHeight));
}

void plots(const StepHistory& history) {
  plot("step", "%.3f ms", history.step_ms(), history.oldest());
  plot("broadphase", "%.3f ms", history.broadphase_ms(), history.oldest());
  plot("pairs", "%.0f", history.pairs(), history.oldest());
}

// The A/B table: the mean costs of each broadphase run so far in this session.
void ab_table(const Simulation& simulation) {
  ImGui::TextUnformatted("A/B, means over every step run so far:");
  if (!ImGui::BeginTable("ab", 4, ImGuiTableFlags_Borders)) return;
  ImGui::TableSetupColumn("broadphase");
  ImGui::TableSetupColumn("steps");
  ImGui::TableSetupColumn("bp ms");
  ImGui::TableSetupColumn("step ms");
  ImGui::TableHeadersRow();
  for (const BroadphaseKind kind : kSwitchable) {
    const BroadphaseTotals& totals = simulation.totals()[static_cast<std::size_t>(kind)];
    if (totals.steps == 0) continue;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(label_of(kind).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%llu", static_cast<unsigned long long>(totals.steps));
    ImGui::TableNextColumn();
    ImGui::Text("%.3f", totals.mean_broadphase_ms());
    ImGui::TableNextColumn();
    ImGui::Text("%.3f", totals.mean_step_ms());
  }
  ImGui::EndTable();
}

}  // namespace

PanelRequests draw_panel(const Simulation& simulation, const FrameRate& frame_rate, bool paused, PanelState& state) {
  PanelRequests requests;
  ImGui::SetNextWindowPos(kPanelPosition, ImGuiCond_FirstUseEver);
  // Sized to its contents: the A/B table grows a row with each broadphase tried.
  ImGui::Begin("agrid-viewer", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
  ImGui::PushItemWidth(kItemWidth);
  ImGui::Text("%.1f frames per second", frame_rate.recent());
  broadphase_switch(simulation, requests);
  controls(simulation, paused, state, requests);
  picked_body(simulation, state.overlays.picked);
  plots(simulation.history());
  ab_table(simulation);
  ImGui::TextUnformatted("Drag: orbit; right/middle drag: pan; wheel: zoom;\nclick: pick; WASD: fly; B: shoot a box");
  ImGui::PopItemWidth();
  ImGui::End();
  return requests;
}

}  // namespace agrid::viewer
