#include "overlays.h"

#include <cstddef>
#include <vector>

#include "pair_colours.h"

namespace agrid::viewer {
namespace {

/// The picked body's AABB: the renderer's AABB green, brighter, as it is alone.
constexpr glm::vec3 kPickedColour{0.55f, 1.0f, 0.55f};
/// Grid cells: magenta, apart from the shapes' and the other overlays' colours.
constexpr glm::vec3 kCellColour{0.90f, 0.35f, 0.90f};
/// Rays: yellow, apart from the white pair lines.
constexpr glm::vec3 kRayColour{1.0f, 0.90f, 0.25f};

std::vector<glm::vec3> colours_by_pairs(const Simulation& simulation) {
  const std::vector<int> counts = simulation.pair_counts();
  std::vector<glm::vec3> colours;
  colours.reserve(counts.size());
  for (const int pairs : counts) colours.push_back(pair_colour(pairs));
  return colours;
}

}  // namespace

void add_overlays(const Simulation& simulation, const Overlays& overlays, GridCells& cells, render::DrawOptions& draw) {
  draw.aabbs = overlays.aabbs == AabbOverlay::all;
  draw.colour_by_state = overlays.colour_by_state;
  if (overlays.pairs) draw.lines = simulation.pair_lines();
  if (overlays.colour_by_pairs) draw.object_colours = colours_by_pairs(simulation);
  if (overlays.aabbs == AabbOverlay::picked && overlays.picked) {
    if (const std::optional<BodyInfo> picked = simulation.body_info(*overlays.picked)) {
      draw.wire_boxes.push_back({{picked->aabb}, kPickedColour});
    }
  }
  if (overlays.cells) {
    const auto depth = static_cast<std::uint32_t>(overlays.cell_depth);
    draw.wire_boxes.push_back({cells.at_depth(simulation.aabbs(), depth), kCellColour});
  }
  if (overlays.rays) draw.coloured_lines.push_back({simulation.ray_lines(), kRayColour});
}

}  // namespace agrid::viewer
