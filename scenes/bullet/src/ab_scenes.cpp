// The A/B scenes: sized by the caller, from 1 body to millions. Each draws its random numbers
// from the builder in a fixed order, so that a seed gives the same world every time.

#include <algorithm>
#include <array>
#include <cmath>

#include "agrid_scenes/boxes.h"
#include "world_scene.h"

namespace agrid::scenes::detail {
namespace {

/// Half the edge of the unit boxes, the radius of the unit spheres.
constexpr btScalar kHalf = 0.5f;
/// Every A/B body but the static ones weighs this much.
constexpr btScalar kUnitMass = 1;
/// scatter: the cube's side per cube root of the body count, and the bodies' speed per axis.
constexpr btScalar kScatterSidePerCbrt = 4;
constexpr btScalar kScatterSpeed = 2.0f;
/// The cluster's cube, the speed per axis in it, how far its far bodies are, and how many.
constexpr btScalar kClusterSide = 60;
constexpr btScalar kClusterSpeed = 0.5f;
constexpr btScalar kTeapotDistance = 1500;
constexpr int kTeapotBodies = 3;
/// The far bodies' spacing: two apart, so that they do not touch.
constexpr btScalar kTeapotSpacing = 2;
/// The pile's lattice spacing, its first layer's height, and the jitter that lets columns topple.
constexpr btScalar kPileSpacing = 1.5f;
constexpr btScalar kPileFirstLayer = 1;
constexpr btScalar kPileJitter = 0.05f;
/// The pile's extent: its lattice's side times this on x and z (room to spread), plus headroom.
constexpr btScalar kPileSpread = 4;
constexpr btScalar kPileHeadroom = 10;
/// The static city's grid spacing and height (towers of 1 to 3 unit boxes).
constexpr btScalar kCitySpacing = 2;
constexpr int kCityMaxStories = 3;
/// One dynamic sphere rains on the static city for this many static boxes, from these heights.
constexpr std::uint32_t kCityBoxesPerSphere = 100;
constexpr btScalar kCityRainLow = 8;
constexpr btScalar kCityRainHigh = 40;
/// The top of the city's extent.
constexpr btScalar kCityCeiling = 60;
/// ball-collapse: the ball's radius per cube root of the body count, and the time the bodies
/// take to reach its centre.
constexpr btScalar kCollapseRadiusPerCbrt = 2;
constexpr btScalar kCollapseSeconds = 3;
/// plane-pass: the layer's spacing and cube edge (almost touching), its speed across, the
/// layer's height jitter and the bodies' sideways drift.
constexpr btScalar kPlaneSpacing = 1;
constexpr btScalar kPlaneHalfEdge = 0.49f;
constexpr btScalar kPlaneSpeed = 2;
constexpr btScalar kPlaneJitter = 0.01f;
constexpr btScalar kPlaneDrift = 0.05f;
/// The top of plane-pass's extent: where the layer is after a long run.
constexpr btScalar kPlaneCeiling = 60;
/// mixed-shapes: the triangle-mesh ground's cells and cell size, the frequency of its waves,
/// and the drop lattice (spacing, height of its first layer, jitter, a cell of border).
constexpr int kGroundCells = 48;
constexpr btScalar kGroundCell = 2;
constexpr double kGroundWave = 0.3;
constexpr btScalar kMixedSpacing = 2;
constexpr btScalar kMixedFirstLayer = 3;
constexpr btScalar kMixedJitter = 0.1f;
constexpr std::uint32_t kMixedBorder = 1;
/// mixed-shapes' capsules, convex octahedra, and its extent below the ground and above the lattice.
constexpr btScalar kCapsuleRadius = 0.3f;
constexpr btScalar kCapsuleHeight = 0.6f;
constexpr btScalar kOctahedronRadius = 0.5f;
constexpr btScalar kMixedDepth = 10;
constexpr btScalar kMixedHeadroom = 20;

const btVector3 kAtRest(0, 0, 0);

/// The unit box and sphere every A/B scene has.
struct UnitShapes {
  btCollisionShape* box;
  btCollisionShape* sphere;
};

UnitShapes make_unit_shapes(WorldBuilder& b) {
  return {b.make_shape<btBoxShape>(btVector3(kHalf, kHalf, kHalf)), b.make_shape<btSphereShape>(kHalf)};
}

btScalar count(std::uint32_t bodies) { return static_cast<btScalar>(bodies); }

// ---- scatter and cluster -------------------------------------------------------------------

Extent scatter_extent(std::uint32_t bodies) {
  const btScalar side = kScatterSidePerCbrt * std::cbrt(count(bodies));
  return {btVector3(-side, -side, -side), btVector3(2 * side, 2 * side, 2 * side)};
}

Extent cluster_extent(std::uint32_t) {
  const btScalar far = kTeapotDistance + kClusterSide;
  return {btVector3(-kClusterSide, -kClusterSide, -kClusterSide), btVector3(far, far, far)};
}

// Boxes and spheres, alternating, with no gravity: uniform in a cube, moving uniformly.
UnitShapes add_drifting(WorldBuilder& b, std::uint32_t bodies, btScalar side, btScalar speed) {
  b.set_gravity(kAtRest);
  const UnitShapes unit = make_unit_shapes(b);
  Random& random = b.random();
  for (std::uint32_t i = 0; i < bodies; ++i) {
    b.add_body(i % 2 == 0 ? unit.box : unit.sphere, kUnitMass, random.vector(0, side), random.vector(-speed, speed));
  }
  return unit;
}

void build_scatter(WorldBuilder& b, std::uint32_t bodies) {
  add_drifting(b, bodies, kScatterSidePerCbrt * std::cbrt(count(bodies)), kScatterSpeed);
}

void build_cluster(WorldBuilder& b, std::uint32_t bodies) {
  const UnitShapes unit = add_drifting(b, bodies, kClusterSide, kClusterSpeed);
  for (int k = 0; k < kTeapotBodies; ++k) {
    const btScalar far = kTeapotDistance + kTeapotSpacing * static_cast<btScalar>(k);
    b.add_body(unit.box, kUnitMass, btVector3(far, far, far), kAtRest);
  }
}

// ---- pile ----------------------------------------------------------------------------------

Extent pile_extent(std::uint32_t bodies) {
  const btScalar side = kPileSpacing * std::cbrt(count(bodies)) + 1;
  return {btVector3(-kPileSpread * side, -1, -kPileSpread * side),
          btVector3(kPileSpread * side, 2 * side + kPileHeadroom, kPileSpread * side)};
}

void build_pile(WorldBuilder& b, std::uint32_t bodies) {
  const UnitShapes unit = make_unit_shapes(b);
  Random& random = b.random();
  b.add_body(b.make_shape<btStaticPlaneShape>(btVector3(0, 1, 0), 0), 0, kAtRest, kAtRest);
  for (std::uint32_t i = 0; i < bodies; ++i) {
    const Vec3 at = cube_lattice_point(i, bodies, kPileSpacing);
    const btVector3 jitter = random.vector(-kPileJitter, kPileJitter);
    b.add_body(i % 2 == 0 ? unit.box : unit.sphere, kUnitMass, btVector3(at.x, kPileFirstLayer + at.y, at.z) + jitter, kAtRest);
  }
}

// ---- static-city ---------------------------------------------------------------------------

Extent city_extent(std::uint32_t bodies) {
  const btScalar side = kCitySpacing * std::sqrt(count(bodies)) + 1;
  return {btVector3(-side, -1, -side), btVector3(2 * side, kCityCeiling, 2 * side)};
}

void build_city(WorldBuilder& b, std::uint32_t bodies) {
  const UnitShapes unit = make_unit_shapes(b);
  Random& random = b.random();
  std::array<btCollisionShape*, kCityMaxStories> towers{};
  for (int h = 1; h <= kCityMaxStories; ++h) {
    const btVector3 half(kHalf, kHalf * static_cast<btScalar>(h), kHalf);
    towers[static_cast<std::size_t>(h - 1)] = b.make_shape<btBoxShape>(half);
  }
  for (std::uint32_t i = 0; i < bodies; ++i) {
    const Vec3 lot = square_lattice_point(i, bodies, kCitySpacing);
    const int height = 1 + static_cast<int>(random.uniform(0, kCityMaxStories));
    b.add_body(towers[static_cast<std::size_t>(std::min(height, kCityMaxStories) - 1)], 0,
               btVector3(lot.x, kHalf * static_cast<btScalar>(height), lot.z), kAtRest);
  }
  const btScalar extent = kCitySpacing * static_cast<btScalar>(square_lattice_side(bodies));
  for (std::uint32_t i = 0; i < std::max(1u, bodies / kCityBoxesPerSphere); ++i) {
    btVector3 at = random.vector(0, extent);
    at.setY(random.uniform(kCityRainLow, kCityRainHigh));
    b.add_body(unit.sphere, kUnitMass, at, kAtRest);
  }
}

// ---- ball-collapse -------------------------------------------------------------------------

Extent collapse_extent(std::uint32_t bodies) {
  const btScalar r = kCollapseRadiusPerCbrt * std::cbrt(count(bodies)) + 1;
  return {btVector3(-2 * r, -2 * r, -2 * r), btVector3(2 * r, 2 * r, 2 * r)};
}

void build_collapse(WorldBuilder& b, std::uint32_t bodies) {
  b.set_gravity(kAtRest);
  const UnitShapes unit = make_unit_shapes(b);
  Random& random = b.random();
  const btScalar r = kCollapseRadiusPerCbrt * std::cbrt(count(bodies));
  for (std::uint32_t i = 0; i < bodies;) {
    const btVector3 p = random.vector(-r, r);
    if (p.length2() > r * r) continue;  // rejection sampling: uniform in the ball
    b.add_body(i % 2 == 0 ? unit.box : unit.sphere, kUnitMass, p, -p / kCollapseSeconds);
    ++i;
  }
}

// ---- plane-pass ----------------------------------------------------------------------------

Extent plane_extent(std::uint32_t bodies) {
  const btScalar side = kPlaneSpacing * std::sqrt(count(bodies)) + 1;
  return {btVector3(-1, -1, -1), btVector3(side, kPlaneCeiling, side)};
}

void build_plane(WorldBuilder& b, std::uint32_t bodies) {
  b.set_gravity(kAtRest);
  Random& random = b.random();
  btCollisionShape* cube = b.make_shape<btBoxShape>(btVector3(kPlaneHalfEdge, kPlaneHalfEdge, kPlaneHalfEdge));
  for (std::uint32_t i = 0; i < bodies; ++i) {
    const Vec3 lot = square_lattice_point(i, bodies, kPlaneSpacing);
    const btVector3 at(lot.x, random.uniform(-kPlaneJitter, kPlaneJitter), lot.z);
    const btVector3 drift(random.uniform(-kPlaneDrift, kPlaneDrift), kPlaneSpeed,
                          random.uniform(-kPlaneDrift, kPlaneDrift));
    b.add_body(cube, kUnitMass, at, drift);
  }
}

// ---- mixed-shapes --------------------------------------------------------------------------

Extent mixed_extent(std::uint32_t bodies) {
  const btScalar side = kGroundCells * kGroundCell;
  return {btVector3(-side, -kMixedDepth, -side),
          btVector3(2 * side,
                    kMixedHeadroom + kMixedSpacing * count(bodies) / (side * side / (kMixedSpacing * kMixedSpacing)),
                    2 * side)};
}

// The ground: a gently waving triangle mesh.
void add_waving_ground(WorldBuilder& b) {
  btTriangleMesh* mesh = b.make_triangle_mesh();
  const auto vertex = [](int x, int z) {
    const double h = std::sin(kGroundWave * x) * std::cos(kGroundWave * z);
    return btVector3(kGroundCell * static_cast<btScalar>(x), static_cast<btScalar>(h),
                     kGroundCell * static_cast<btScalar>(z));
  };
  for (int x = 0; x < kGroundCells; ++x) {
    for (int z = 0; z < kGroundCells; ++z) {
      mesh->addTriangle(vertex(x, z), vertex(x, z + 1), vertex(x + 1, z));
      mesh->addTriangle(vertex(x + 1, z), vertex(x, z + 1), vertex(x + 1, z + 1));
    }
  }
  b.add_body(b.make_shape<btBvhTriangleMeshShape>(mesh, true), 0, kAtRest, kAtRest);
}

btCollisionShape* make_octahedron(WorldBuilder& b) {
  auto* hull = b.make_shape<btConvexHullShape>();
  const btScalar r = kOctahedronRadius;
  for (const btVector3& v : {btVector3(r, 0, 0), btVector3(-r, 0, 0), btVector3(0, r, 0), btVector3(0, -r, 0),
                             btVector3(0, 0, r), btVector3(0, 0, -r)}) {
    hull->addPoint(v, false);
  }
  hull->recalcLocalAabb();
  return hull;
}

void build_mixed(WorldBuilder& b, std::uint32_t bodies) {
  const UnitShapes unit = make_unit_shapes(b);
  Random& random = b.random();
  add_waving_ground(b);
  btCollisionShape* capsule = b.make_shape<btCapsuleShape>(kCapsuleRadius, kCapsuleHeight);
  btCollisionShape* kinds[] = {unit.box, unit.sphere, capsule, make_octahedron(b)};
  const auto per_side = static_cast<std::uint32_t>(kGroundCells * kGroundCell / kMixedSpacing) - 2 * kMixedBorder;
  for (std::uint32_t i = 0; i < bodies; ++i) {
    const std::uint32_t x = i % per_side, z = (i / per_side) % per_side, y = i / (per_side * per_side);
    const btVector3 at(kMixedSpacing * static_cast<btScalar>(x + kMixedBorder),
                       kMixedFirstLayer + kMixedSpacing * static_cast<btScalar>(y),
                       kMixedSpacing * static_cast<btScalar>(z + kMixedBorder));
    b.add_body(kinds[i % std::size(kinds)], kUnitMass, at + random.vector(-kMixedJitter, kMixedJitter), kAtRest);
  }
}

constexpr WorldScene kAbScenes[] = {
    {{"scatter", "unit boxes and spheres drifting in a cube, no gravity: all moving, sparse", false, ""},
     scatter_extent, build_scatter},
    {{"cluster", "a dense cluster of drifting boxes and spheres, and 3 boxes 1,500 away", false, ""},
     cluster_extent, build_cluster},
    {{"pile", "boxes and spheres dropped from a lattice onto a plane: contacts, sleeping", false, ""},
     pile_extent, build_pile},
    {{"static-city", "static towers on a grid, one falling sphere per 100 towers", false, ""},
     city_extent, build_city},
    {{"ball-collapse", "bodies in a ball rushing to its centre, then spreading out, no gravity", false, ""},
     collapse_extent, build_collapse},
    {{"plane-pass", "one layer of almost-touching cubes moving up together, no gravity", false, ""},
     plane_extent, build_plane},
    {{"mixed-shapes", "boxes, spheres, capsules and hulls dropped on a triangle-mesh ground", false, ""},
     mixed_extent, build_mixed},
};

}  // namespace

std::span<const WorldScene> ab_scenes() { return kAbScenes; }

}  // namespace agrid::scenes::detail
