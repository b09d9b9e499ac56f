// The eight scenes of Bullet's examples/Benchmarks/BenchmarkDemo.cpp, with the demo's shapes,
// counts, spacings, masses and solver settings. Two things are generated here instead of read
// from the demo's data: the landscape (a height field of the same extent and triangle count,
// in the same eight parts) and the convex shapes (the 43-point barrel, the cube's 90 cells).

#include <array>
#include <cmath>
#include <vector>

#include "convex_cells.h"
#include "ragdoll.h"
#include "world_scene.h"

namespace agrid::scenes::detail {
namespace {

// ---- what every benchmark scene shares -----------------------------------------------------

/// BenchmarkDemo's world: gravity, and few solver iterations with friction directions cached
/// (the demo's "increase the performance dramatically" settings).
constexpr btScalar kGravity = -10;
constexpr int kSolverIterations = 5;
/// Scenes 1 to 4 stand on a static 500 x 100 x 500 box whose top is at y = 0.
const btVector3 kGroundHalfExtents(250, 50, 250);
constexpr btScalar kGroundCentreY = -50;
/// The lattices shift each layer back by this share of the gap per body of a row.
constexpr btScalar kLayerShift = 0.05f;

void set_up_world(WorldBuilder& b) {
  b.set_gravity(btVector3(0, kGravity, 0));
  b.solver_info().m_solverMode |= SOLVER_ENABLE_FRICTION_DIRECTION_CACHING;
  b.solver_info().m_numIterations = kSolverIterations;
}

btTransform placed(const btVector3& origin) {
  btTransform t;
  t.setIdentity();
  t.setOrigin(origin);
  return t;
}

void add_ground_box(WorldBuilder& b) {
  b.add_body(b.make_shape<btBoxShape>(kGroundHalfExtents), 0, placed(btVector3(0, kGroundCentreY, 0)));
}

/// BenchmarkDemo's stacked lattice: `layers` layers of side x side places, 2 half + gap apart,
/// each layer shifted back by kLayerShift * gap * (side - 1) on x and z, the gap then growing by
/// `growth`, the next layer 2 half + gap higher. A place is lift + stretch * (its lattice point).
struct Lattice {
  int side;
  int layers;
  btScalar half;
  btScalar gap;
  btScalar growth;
  btVector3 first;    ///< The lattice point of the first layer's height (x and z are the rows').
  btVector3 stretch;
  btVector3 lift;
};

template <class Place>
void for_each_place(const Lattice& l, Place place) {
  btScalar gap = l.gap;
  btScalar offset = -static_cast<btScalar>(l.side) * (2 * l.half + gap) * 0.5f;
  btVector3 at = l.first;
  for (int k = 0; k < l.layers; ++k) {
    for (int j = 0; j < l.side; ++j) {
      at.setZ(offset + static_cast<btScalar>(j) * (2 * l.half + gap));
      for (int i = 0; i < l.side; ++i) {
        at.setX(offset + static_cast<btScalar>(i) * (2 * l.half + gap));
        place(l.lift + l.stretch * at);
      }
    }
    offset -= kLayerShift * gap * static_cast<btScalar>(l.side - 1);
    gap *= l.growth;
    at.setY(at.y() + 2 * l.half + gap);
  }
}

// ---- bench-1: a block of boxes -------------------------------------------------------------

/// 8 x 8 boxes of edge 2 and mass 2 per layer, 47 layers, a gap of 1 that does not grow.
constexpr int kBlockSide = 8;
constexpr int kBlockLayers = 47;
constexpr btScalar kBlockHalf = 1;
constexpr btScalar kBlockMass = 2;
constexpr btScalar kBlockGap = 1;
constexpr btScalar kBlockGapGrowth = 1;

void build_box_block(WorldBuilder& b, std::uint32_t) {
  set_up_world(b);
  add_ground_box(b);
  btCollisionShape* box = b.make_shape<btBoxShape>(btVector3(kBlockHalf, kBlockHalf, kBlockHalf));
  const btVector3 one(1, 1, 1);
  const Lattice block{kBlockSide, kBlockLayers, kBlockHalf, kBlockGap, kBlockGapGrowth,
                      btVector3(0, 2 * kBlockHalf, 0), one, btVector3(0, 0, 0)};
  for_each_place(block, [&](const btVector3& at) { b.add_body(box, kBlockMass, placed(at)); });
}

// ---- bench-2: a pyramid, three walls and a round tower ---------------------------------------

/// Every box of bench-2: edge 2, mass 1. The pyramid's and the walls' stacks are 12 high.
constexpr btScalar kHalf = 1;
constexpr btScalar kUnitMass = 1;
constexpr int kStackSize = 12;
/// The pyramid: at x = -20, its boxes 2% apart and a hair between its layers.
constexpr btScalar kPyramidX = -20;
constexpr btScalar kPyramidSpread = 1.02f;
constexpr btScalar kPyramidGap = 0.0001f;
/// The walls: at these x, each layer one box shorter, shifted by half a box.
constexpr std::array<btScalar, 3> kWallXs = {-2, 4, 10};
/// The tower: at x = 25, 8 rings of 24 boxes, its radius 1.3 x 24 half edges / pi; each ring
/// turned half a box from the one below.
constexpr btScalar kTowerX = 25;
constexpr int kTowerRings = 8;
constexpr int kTowerRingBoxes = 24;
constexpr btScalar kTowerRadiusFactor = 1.3f;

void add_pyramid(WorldBuilder& b, btCollisionShape* box) {
  const btScalar step = 2 * kHalf * kPyramidSpread + kPyramidGap;
  btScalar offset = -kStackSize * step * 0.5f;
  btScalar y = kHalf;
  for (int size = kStackSize; size > 0; --size) {
    for (int j = 0; j < size; ++j) {
      for (int i = 0; i < size; ++i) {
        const btVector3 at(offset + static_cast<btScalar>(i) * step, y, offset + static_cast<btScalar>(j) * step);
        b.add_body(box, kUnitMass, placed(btVector3(kPyramidX, 0, 0) + at));
      }
    }
    offset += kHalf * kPyramidSpread;
    y += step;
  }
}

void add_wall(WorldBuilder& b, btCollisionShape* box, btScalar x) {
  btScalar offset = -kStackSize * 2 * kHalf * 0.5f;
  btScalar y = kHalf;
  for (int size = kStackSize; size > 0; --size) {
    for (int i = 0; i < size; ++i) {
      b.add_body(box, kUnitMass, placed(btVector3(x, y, offset + static_cast<btScalar>(i) * 2 * kHalf)));
    }
    offset += kHalf;
    y += 2 * kHalf;
  }
}

void add_tower(WorldBuilder& b, btCollisionShape* box) {
  const btScalar radius = kTowerRadiusFactor * kTowerRingBoxes * kHalf / SIMD_PI;
  const btVector3 up(0, 1, 0);
  btQuaternion turn(0, 1, 0, 0);  // half a turn about y
  btScalar y = kHalf;
  for (int ring = 0; ring < kTowerRings; ++ring) {
    for (int i = 0; i < kTowerRingBoxes; ++i) {
      btTransform at(turn, btVector3(kTowerX, 0, 0) + quatRotate(turn, btVector3(0, y, radius)));
      b.add_body(box, kUnitMass, at);
      turn *= btQuaternion(up, SIMD_2_PI / kTowerRingBoxes);
    }
    y += 2 * kHalf;
    turn *= btQuaternion(up, SIMD_PI / kTowerRingBoxes);
  }
}

void build_pyramid_walls_tower(WorldBuilder& b, std::uint32_t) {
  set_up_world(b);
  add_ground_box(b);
  const btVector3 half(kHalf, kHalf, kHalf);
  add_pyramid(b, b.make_shape<btBoxShape>(half));
  for (const btScalar x : kWallXs) add_wall(b, b.make_shape<btBoxShape>(half), x);
  add_tower(b, b.make_shape<btBoxShape>(half));
}

// ---- bench-3: ragdolls ---------------------------------------------------------------------

/// A staircase of ragdolls of scale 3.5: 16 in its first row, one fewer in each row above; 6
/// apart, each row 7 higher and 2 further back.
constexpr int kRagdollRows = 16;
constexpr btScalar kRagdollScale = 3.5f;
constexpr btScalar kRagdollSpacing = 6;
constexpr btScalar kRagdollRise = 7;
constexpr btScalar kRagdollStepBack = 2;
constexpr btScalar kRagdollFirstY = 1;

void build_ragdolls(WorldBuilder& b, std::uint32_t) {
  set_up_world(b);
  add_ground_box(b);
  btVector3 at(0, kRagdollFirstY, 0);
  for (int size = kRagdollRows; size > 0; --size) {
    const btScalar offset = -static_cast<btScalar>(size) * kRagdollSpacing * 0.5f;
    for (int i = 0; i < size; ++i) {
      at.setX(offset + static_cast<btScalar>(i) * kRagdollSpacing);
      add_ragdoll(b, at, kRagdollScale);
    }
    at.setY(at.y() + kRagdollRise);
    at.setZ(at.z() - kRagdollStepBack);
  }
}

// ---- the barrel hull of bench-4, 6 and 7 ---------------------------------------------------

/// The demo's "Taru" (barrel): 43 points, rings of 8 at its ends (radius 1.09, 1.99 from its
/// middle) and round its middle (radius 1.82); the mesh lists ring points more than once.
constexpr int kBarrelPoints = 43;
constexpr int kBarrelRingPoints = 8;
constexpr btScalar kBarrelHalfHeight = 1.99f;
constexpr btScalar kBarrelEndRadius = 1.09f;
constexpr btScalar kBarrelMiddleRadius = 1.82f;

btConvexHullShape* make_barrel(WorldBuilder& b) {
  const std::array<btVector3, 3> rings = {btVector3(kBarrelEndRadius, -kBarrelHalfHeight, 0),
                                          btVector3(kBarrelMiddleRadius, 0, 0),
                                          btVector3(kBarrelEndRadius, kBarrelHalfHeight, 0)};
  auto* barrel = b.make_shape<btConvexHullShape>();
  for (int i = 0; i < kBarrelPoints; ++i) {
    const btVector3& ring = rings[static_cast<std::size_t>(i / kBarrelRingPoints) % rings.size()];
    const btScalar angle = SIMD_2_PI * static_cast<btScalar>(i % kBarrelRingPoints) / kBarrelRingPoints;
    barrel->addPoint(btVector3(ring.x() * std::cos(angle), ring.y(), ring.x() * std::sin(angle)), false);
  }
  barrel->recalcLocalAabb();
  return barrel;
}

// ---- bench-4: a stack of hulls -------------------------------------------------------------

/// 8 x 8 barrels of mass 1 per layer, 15 layers, 3 apart plus a gap of 1.5 growing 1% a layer.
constexpr int kHullSide = 8;
constexpr int kHullLayers = 15;
constexpr btScalar kHullHalf = 1.5f;
constexpr btScalar kHullGap = 1.5f;
constexpr btScalar kHullGapGrowth = 1.01f;

void build_hull_stack(WorldBuilder& b, std::uint32_t) {
  set_up_world(b);
  add_ground_box(b);
  // The demo leaves polyhedral contact clipping off here (its initializePolyhedralFeatures call
  // is commented out): plain GJK/EPA contacts, as in bench-6.
  btConvexHullShape* barrel = make_barrel(b);
  const btVector3 one(1, 1, 1);
  const Lattice stack{kHullSide, kHullLayers, kHullHalf, kHullGap, kHullGapGrowth, btVector3(0, 2 * kHullHalf, 0), one,
                      btVector3(0, 0, 0)};
  for_each_place(stack, [&](const btVector3& at) { b.add_body(barrel, kUnitMass, placed(at)); });
}

// ---- the landscape of bench-5, 6 and 7 -----------------------------------------------------

/// A 500 x 500 height field of 128 x 128 cells (two triangles each: 32,768), in the demo's
/// eight static parts, its origin 25 below the world's; friction 0.9.
constexpr int kLandCells = 128;
constexpr btScalar kLandSide = 500;
constexpr btScalar kLandY = -25;
constexpr btScalar kLandFriction = 0.9f;

/// A part: its first column and row of cells and how many (x: columns, z: rows), as the demo's
/// Landscape01 to 08 cover the field: a west half of 65 columns and an east one of 63, each in
/// four bands of rows.
struct LandPart {
  int column, columns, row, rows;
};
constexpr std::array<LandPart, 8> kLandParts = {{
    {65, 63, 97, 31},
    {0, 65, 65, 29},
    {65, 63, 34, 31},
    {65, 63, 65, 32},
    {0, 65, 32, 33},
    {0, 65, 94, 34},
    {65, 63, 0, 34},
    {0, 65, 0, 32},
}};

/// The height field: a base and three waves, each sin(x / along x) cos(z / along z) times its
/// height: from -11 to 51 (the demo's landscape: from about -15 to 59).
struct Wave {
  double height, along_x, along_z;
};
constexpr double kLandBase = 20;
constexpr std::array<Wave, 3> kWaves = {{{22, 70, 84}, {12, 45, 52}, {6, 23, 31}}};

double land_height(double x, double z) {
  double h = kLandBase;
  for (const Wave& w : kWaves) h += w.height * std::sin(x / w.along_x) * std::cos(z / w.along_z);
  return h;
}

btTriangleIndexVertexArray* make_land_part(WorldBuilder& b, const LandPart& part) {
  const btScalar cell = kLandSide / kLandCells;
  std::vector<btScalar> vertices;
  for (int r = 0; r <= part.rows; ++r) {
    for (int c = 0; c <= part.columns; ++c) {
      const btScalar x = -kLandSide / 2 + cell * static_cast<btScalar>(part.column + c);
      const btScalar z = -kLandSide / 2 + cell * static_cast<btScalar>(part.row + r);
      vertices.insert(vertices.end(), {x, static_cast<btScalar>(land_height(x, z)), z});
    }
  }
  std::vector<int> triangles;
  const int stride = part.columns + 1;
  for (int r = 0; r < part.rows; ++r) {
    for (int c = 0; c < part.columns; ++c) {
      const int corner = r * stride + c;  // facing up: counter-clockwise seen from above
      const int above = corner + stride;
      triangles.insert(triangles.end(), {corner, above, corner + 1, corner + 1, above, above + 1});
    }
  }
  return b.make_indexed_mesh(std::move(vertices), std::move(triangles));
}

void add_landscape(WorldBuilder& b) {
  for (const LandPart& part : kLandParts) {
    auto* shape = b.make_shape<btBvhTriangleMeshShape>(make_land_part(b, part), true);
    b.add_body(shape, 0, placed(btVector3(0, kLandY, 0)))->setFriction(kLandFriction);
  }
}

// ---- bench-5 and 6: bodies dropped on the landscape ------------------------------------------

/// 10 x 10 bodies per layer, 10 layers, a 3-wide lattice with a gap of 2 growing 10% a layer,
/// stretched 5 times on x and z and lifted 25: from y = 45 up.
constexpr int kDropSide = 10;
constexpr int kDropLayers = 10;
constexpr btScalar kDropHalf = 1.5f;
constexpr btScalar kDropGap = 2;
constexpr btScalar kDropGapGrowth = 1.1f;
constexpr btScalar kDropFirstY = 20;
constexpr btScalar kDropStretch = 5;
constexpr btScalar kDropLift = 25;

Lattice drop_lattice() {
  return {kDropSide, kDropLayers, kDropHalf, kDropGap, kDropGapGrowth, btVector3(0, kDropFirstY, 0),
          btVector3(kDropStretch, 1, kDropStretch), btVector3(0, kDropLift, 0)};
}

/// bench-5's bodies: a box (half edge 1.5 r), sphere (radius 1.5 r) or capsule (radius r,
/// height 2 r), r one of 0.5, 1 and 1.5 and the mass r, picked uniformly (the demo's rand() % 9),
/// each with a shape of its own.
constexpr std::uint32_t kPrimitiveKinds = 3;
constexpr std::uint32_t kPrimitiveSizes = 3;
constexpr btScalar kSizeStep = 0.5f;
constexpr btScalar kBoxHalf = 1.5f;
constexpr btScalar kSphereRadius = 1.5f;
constexpr btScalar kCapsuleRadius = 1;
constexpr btScalar kCapsuleHeight = 2;

btCollisionShape* make_primitive(WorldBuilder& b, std::uint32_t kind, btScalar r) {
  if (kind == 0) return b.make_shape<btBoxShape>(btVector3(kBoxHalf, kBoxHalf, kBoxHalf) * r);
  if (kind == 1) return b.make_shape<btSphereShape>(kSphereRadius * r);
  return b.make_shape<btCapsuleShape>(kCapsuleRadius * r, kCapsuleHeight * r);
}

void build_landscape_primitives(WorldBuilder& b, std::uint32_t) {
  set_up_world(b);
  for_each_place(drop_lattice(), [&](const btVector3& at) {
    const std::uint32_t pick = b.random().below(kPrimitiveKinds * kPrimitiveSizes);
    const btScalar r = kSizeStep * static_cast<btScalar>(pick % kPrimitiveSizes + 1);
    b.add_body(make_primitive(b, pick / kPrimitiveSizes, r), r, placed(at));
  });
  add_landscape(b);
}

void build_landscape_hulls(WorldBuilder& b, std::uint32_t) {
  set_up_world(b);
  btConvexHullShape* barrel = make_barrel(b);
  for_each_place(drop_lattice(), [&](const btVector3& at) { b.add_body(barrel, kUnitMass, placed(at)); });
  add_landscape(b);
}

// ---- bench-7: bench-6 and rays -------------------------------------------------------------

/// The demo's raycast bar: 500 rays from (0, 50, 0), fanned about y through two full turns (so
/// each direction twice), reaching 2,500 out and down to y = -1,000. The demo never calls the
/// bar's move(): the rays stay where they are.
constexpr int kRays = 500;
constexpr btScalar kRayFanTurns = 2;
constexpr btScalar kRayReach = 2500;
constexpr btScalar kRayBottom = -1000;
const btVector3 kRaySource(0, 50, 0);

void build_landscape_rays(WorldBuilder& b, std::uint32_t bodies) {
  build_landscape_hulls(b, bodies);
  const btScalar turn = kRayFanTurns * SIMD_2_PI / kRays;
  std::vector<Ray> rays;
  for (int i = 0; i < kRays; ++i) {
    const btQuaternion about_y(btVector3(0, 1, 0), turn * static_cast<btScalar>(i));
    btVector3 to = kRaySource + quatRotate(about_y, btVector3(1, 0, 0)) * kRayReach;
    to.setY(kRayBottom);
    rays.push_back({kRaySource, to});
  }
  b.cast_every_step(std::move(rays));
}

// ---- bench-8: a cube of convex cells -------------------------------------------------------

/// A 2 x 2 x 2 cube cut into the Voronoi cells of 90 Halton points, each cell a hull of mass
/// its volume (margin 0.04, friction 0.6), dropped from 3.5 up onto a static plane; 20 solver
/// iterations, ERP 0.8 (ERP2 half of it) and a global CFM of 0.015.
constexpr std::uint32_t kPackCells = 90;
constexpr btScalar kPackHalf = 1;
constexpr btScalar kPackDrop = 3.5f;
constexpr btScalar kPackMargin = 0.04f;
constexpr btScalar kPackFriction = 0.6f;
constexpr int kPackIterations = 20;
constexpr btScalar kPackErp = 0.8f;
constexpr btScalar kPackCfm = 0.015f;

void build_convex_pack(WorldBuilder& b, std::uint32_t) {
  set_up_world(b);
  const btVector3 lo(-kPackHalf, -kPackHalf, -kPackHalf);
  const btVector3 hi(kPackHalf, kPackHalf, kPackHalf);
  for (const ConvexCell& cell : voronoi_cells(halton_points(kPackCells, lo, hi), lo, hi)) {
    auto* hull = b.make_shape<btConvexHullShape>();
    for (const btVector3& corner : cell.corners) hull->addPoint(corner, false);
    hull->recalcLocalAabb();
    hull->initializePolyhedralFeatures();
    hull->setMargin(kPackMargin);
    const btVector3 at = cell.centroid + btVector3(0, kPackDrop, 0);
    b.add_body(hull, static_cast<btScalar>(cell.volume), placed(at))->setFriction(kPackFriction);
  }
  btContactSolverInfo& solver = b.solver_info();
  solver.m_numIterations = kPackIterations;
  solver.m_erp = kPackErp;
  solver.m_erp2 = kPackErp / 2;
  solver.m_globalCfm = kPackCfm;
  auto* plane = b.make_shape<btStaticPlaneShape>(btVector3(0, 1, 0), 0);
  plane->setMargin(kPackMargin);
  b.add_body(plane, 0, placed(btVector3(0, 0, 0)));
}

// ---- extents and the registry --------------------------------------------------------------

/// Where the scenes lie: the ground box or landscape (500 wide) and above it as high as their
/// bodies start (the block's top layer is at 141, the ragdolls' at 112, the dropped bodies'
/// about 105); the convex pack is a few units across.
constexpr btScalar kGroundWidth = 250;
constexpr btScalar kGroundDepth = -100;
constexpr btScalar kLandDepth = -50;

Extent ground_extent(btScalar top) {
  return {btVector3(-kGroundWidth, kGroundDepth, -kGroundWidth), btVector3(kGroundWidth, top, kGroundWidth)};
}
constexpr btScalar kBlockTop = 150;
constexpr btScalar kPyramidTop = 30;
constexpr btScalar kRagdollTop = 120;
constexpr btScalar kHullStackTop = 80;
constexpr btScalar kDropTop = 120;
constexpr btScalar kPackReach = 10;

Extent block_extent(std::uint32_t) { return ground_extent(kBlockTop); }
Extent pyramid_extent(std::uint32_t) { return ground_extent(kPyramidTop); }
Extent ragdoll_extent(std::uint32_t) { return ground_extent(kRagdollTop); }
Extent hull_stack_extent(std::uint32_t) { return ground_extent(kHullStackTop); }
Extent landscape_extent(std::uint32_t) {
  return {btVector3(-kGroundWidth, kLandDepth, -kGroundWidth), btVector3(kGroundWidth, kDropTop, kGroundWidth)};
}
Extent pack_extent(std::uint32_t) {
  return {btVector3(-kPackReach, -1, -kPackReach), btVector3(kPackReach, kPackReach, kPackReach)};
}

constexpr WorldScene kBenchScenes[] = {
    {{"bench-1-box-block", "Bullet's benchmark 1: 8 x 8 x 47 boxes on a ground box (3,009 bodies)", true, "bench-1"},
     block_extent, build_box_block},
    {{"bench-2-pyramid-walls-tower", "Bullet's benchmark 2: a box pyramid, 3 walls, a round tower (1,077 bodies)", true,
      "bench-2"},
     pyramid_extent, build_pyramid_walls_tower},
    {{"bench-3-ragdolls", "Bullet's benchmark 3: 136 ragdolls, capsules and joints (1,497 bodies)", true,
      "bench-3"},
     ragdoll_extent, build_ragdolls},
    {{"bench-4-hull-stack", "Bullet's benchmark 4: 8 x 8 x 15 convex hulls on a ground box (961 bodies)", true,
      "bench-4"},
     hull_stack_extent, build_hull_stack},
    {{"bench-5-landscape-primitives",
      "Bullet's benchmark 5: 1,000 primitives onto a triangle landscape (1,008 bodies)", true,
      "bench-5"},
     landscape_extent, build_landscape_primitives},
    {{"bench-6-landscape-hulls", "Bullet's benchmark 6: 1,000 convex hulls onto the landscape (1,008 bodies)", true,
      "bench-6"},
     landscape_extent, build_landscape_hulls},
    {{"bench-7-landscape-rays", "Bullet's benchmark 7: bench-6 and 500 rays after each step (1,008 bodies)", true,
      "bench-7"},
     landscape_extent, build_landscape_rays},
    {{"bench-8-convex-pack", "Bullet's benchmark 8: a cube of 90 convex cells onto a plane (91 bodies)", true,
      "bench-8"},
     pack_extent, build_convex_pack},
};

}  // namespace

std::span<const WorldScene> bench_scenes() { return kBenchScenes; }

}  // namespace agrid::scenes::detail
