#pragma once
// The unit shapes the renderer instances: a cube, a sphere, a cylinder side, a cube's edges.

#include "agrid_render/mesh.h"

namespace agrid::render::detail {

/// The cube [-1, 1]^3, flat faces.
[[nodiscard]] Mesh unit_cube();
/// The sphere of radius 1 around the origin, smooth normals.
[[nodiscard]] Mesh unit_sphere();
/// The open cylinder of radius 1 along y from -1 to 1, smooth normals (capsules add caps).
[[nodiscard]] Mesh unit_cylinder();
/// The 12 edges of the cube [-1, 1]^3 as line segments (two vertices each).
[[nodiscard]] Mesh unit_cube_edges();

}  // namespace agrid::render::detail
