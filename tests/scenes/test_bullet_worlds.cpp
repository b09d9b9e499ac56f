// The Bullet worlds of the scene library: each builds with each broadphase, steps without NaN,
// is deterministic for a fixed seed, its pair cache never lacks an overlapping pair (and with
// agrid and btSimpleBroadphase never holds a pair too many), and bench-7's rays miss no hit.
// Bullet's benchmark scenes have the demo's bodies, joints and landscape.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "agrid_scenes/bullet_worlds.h"

namespace agrid::scenes {
namespace {

/// The A/B scenes' size and steps.
constexpr std::uint32_t kBodies = 300;
constexpr int kSteps = 40;
/// Bullet's benchmark scenes: enough steps for bench-1's block to land and for the first of
/// bench-5 to 7's bodies to reach the landscape (they start 16 above its highest point).
constexpr int kBenchSteps = 150;
/// Steps before the determinism test compares two worlds.
constexpr int kDeterminismSteps = 30;
/// btSimpleBroadphase's steps: it is O(n^2) a step (0.1 s in bench-1) and reports every proxy
/// to every ray (bench-7's 500 rays then take 0.2 s a step), so it runs enough steps for the
/// check to meet the scenes' boxes, not for every scene to settle.
constexpr int kSimpleSteps = 10;
/// Every broadphase of the harness.
constexpr BroadphaseKind kKinds[] = {BroadphaseKind::dbvt, BroadphaseKind::sap, BroadphaseKind::simple,
                                     BroadphaseKind::agrid};
/// The one benchmark scene that draws random numbers (the demo's rand() picks its shapes).
constexpr std::string_view kSeededBenchScene = "bench-5-landscape-primitives";

const WorldSceneInfo& info_of(std::string_view scene) { return *find_world_scene(scene); }

int steps_of(std::string_view scene, BroadphaseKind kind) {
  if (kind == BroadphaseKind::simple) return kSimpleSteps;
  return info_of(scene).fixed_bodies ? kBenchSteps : kSteps;
}

class BulletWorlds : public ::testing::TestWithParam<std::string_view> {};

TEST_P(BulletWorlds, StepWithoutNaNAndKeepAnExactCache) {
  for (const BroadphaseKind kind : kKinds) {
    SCOPED_TRACE(std::string(name(kind)));
    BulletWorld world(GetParam(), kind, kBodies, 3);
    if (!info_of(GetParam()).fixed_bodies) {
      EXPECT_GE(world.world().getNumCollisionObjects(), static_cast<int>(kBodies));
    }
    // dbvt and sap keep pairs of fattened or quantized boxes; simple, Bullet's brute force,
    // agreeing with the check shows the check right.
    const bool exact = keeps_exact_pairs(kind);
    const bool exact_rays = kind == BroadphaseKind::agrid;  // simple's rayTest reports every proxy
    for (int step = 0; step < steps_of(GetParam(), kind); ++step) {
      world.step();
      const PairCheck pairs = world.check_pairs();
      ASSERT_EQ(pairs.missing, 0u) << "step " << step;
      if (exact) {
        ASSERT_EQ(pairs.extra, 0u) << "step " << step;
      }
      if (world.rays_per_step() == 0) continue;
      const RayCheck rays = world.check_rays();
      ASSERT_EQ(rays.missed, 0u) << "step " << step;
      if (exact_rays) {
        ASSERT_EQ(rays.extra, 0u) << "step " << step;
      }
    }
    const PhysicsSummary s = world.summary();
    EXPECT_EQ(s.not_finite, 0u);
    EXPECT_TRUE(std::isfinite(s.kinetic_energy));
    EXPECT_GT(s.dynamic_bodies, 0u);
  }
}

TEST_P(BulletWorlds, DeterministicForAFixedSeed) {
  const auto final_state = [&](std::uint64_t seed) {
    BulletWorld world(GetParam(), BroadphaseKind::agrid, kBodies, seed);
    for (int step = 0; step < kDeterminismSteps; ++step) world.step();
    return world.body_states();
  };
  const auto a = final_state(5);
  const auto b = final_state(5);
  const auto c = final_state(6);
  ASSERT_EQ(a.size(), b.size());
  bool same = true;
  bool differs_with_seed = a.size() != c.size();
  for (std::size_t i = 0; i < a.size(); ++i) {
    same = same && a[i].x == b[i].x && a[i].y == b[i].y && a[i].z == b[i].z && a[i].asleep == b[i].asleep;
    if (i < c.size()) differs_with_seed = differs_with_seed || a[i].x != c[i].x || a[i].y != c[i].y;
  }
  EXPECT_TRUE(same) << "the same seed gave different worlds";
  const bool seeded = !info_of(GetParam()).fixed_bodies || GetParam() == kSeededBenchScene;
  if (seeded) {
    EXPECT_TRUE(differs_with_seed) << "the seed changes nothing";
  }
}

INSTANTIATE_TEST_SUITE_P(All, BulletWorlds, ::testing::ValuesIn(world_scene_names().begin(), world_scene_names().end()),
                         [](const ::testing::TestParamInfo<std::string_view>& p) {
                           std::string n(p.param);
                           for (char& ch : n) ch = ch == '-' ? '_' : ch;
                           return n;
                         });

TEST(BulletWorlds, RefuseUnknownScenesAndZeroBodies) {
  EXPECT_THROW(BulletWorld("nope", BroadphaseKind::agrid, 10), std::invalid_argument);
  EXPECT_THROW(BulletWorld("pile", BroadphaseKind::agrid, 0), std::invalid_argument);
  EXPECT_THROW(BulletWorld("bench-9", BroadphaseKind::agrid, 10), std::invalid_argument);
}

TEST(BulletWorlds, BenchScenesAnswerToShortNamesAndIgnoreTheBodyCount) {
  ASSERT_NE(find_world_scene("bench-8"), nullptr);
  EXPECT_EQ(find_world_scene("bench-8")->name, "bench-8-convex-pack");
  EXPECT_EQ(find_world_scene("pile")->short_name, "");
  BulletWorld none("bench-8", BroadphaseKind::agrid, 0);
  BulletWorld many("bench-8-convex-pack", BroadphaseKind::agrid, 5000);
  EXPECT_EQ(none.world().getNumCollisionObjects(), many.world().getNumCollisionObjects());
}

// The demo's counts: bodies (the ground box, or the landscape's 8 parts, or the plane included).
/// bench-1: 8 x 8 x 47 boxes and the ground box.
constexpr int kBoxBlockBodies = 8 * 8 * 47 + 1;
/// bench-2: a pyramid of 12^2 + 11^2 + ... + 1 = 650 boxes, 3 walls of 12 + 11 + ... + 1 = 78,
/// a tower of 8 rings of 24, and the ground box.
constexpr int kPyramidBodies = 650 + 3 * 78 + 8 * 24 + 1;
/// bench-3: 16 + 15 + ... + 1 = 136 ragdolls of 11 bodies and 10 joints, and the ground box.
constexpr int kRagdolls = 136;
constexpr int kRagdollBodies = kRagdolls * 11 + 1;
constexpr int kRagdollJoints = kRagdolls * 10;
/// bench-4: 8 x 8 x 15 hulls and the ground box.
constexpr int kHullStackBodies = 8 * 8 * 15 + 1;
/// bench-5 to 7: 10 x 10 x 10 bodies and the landscape's 8 parts.
constexpr int kLandscapeBodies = 10 * 10 * 10 + 8;
/// bench-8: 90 cells and the plane.
constexpr int kPackBodies = 90 + 1;

TEST(BulletWorlds, BenchScenesHaveTheDemosBodies) {
  const std::pair<std::string_view, int> expected[] = {
      {"bench-1", kBoxBlockBodies},  {"bench-2", kPyramidBodies},   {"bench-3", kRagdollBodies},
      {"bench-4", kHullStackBodies}, {"bench-5", kLandscapeBodies}, {"bench-6", kLandscapeBodies},
      {"bench-7", kLandscapeBodies}, {"bench-8", kPackBodies},
  };
  for (const auto& [scene, bodies] : expected) {
    SCOPED_TRACE(std::string(scene));
    BulletWorld world(scene, BroadphaseKind::agrid, 1);
    EXPECT_EQ(world.world().getNumCollisionObjects(), bodies);
    EXPECT_EQ(world.world().getSolverInfo().m_solverMode & SOLVER_ENABLE_FRICTION_DIRECTION_CACHING,
              SOLVER_ENABLE_FRICTION_DIRECTION_CACHING);
    EXPECT_EQ(world.world().getGravity(), btVector3(0, -10, 0));
  }
  EXPECT_EQ(BulletWorld("bench-3", BroadphaseKind::agrid, 1).world().getNumConstraints(), kRagdollJoints);
}

/// The landscape: 128 x 128 cells of 2 triangles over [-250, 250]^2.
constexpr int kLandscapeTriangles = 128 * 128 * 2;
constexpr btScalar kLandscapeHalfSide = 250;
/// The tolerance on the landscape's extent: a triangle mesh's AABB may carry its margin.
constexpr btScalar kExtentTolerance = 0.1f;

TEST(BulletWorlds, TheLandscapeHasTheDemosExtentAndTriangles) {
  BulletWorld world("bench-6", BroadphaseKind::agrid, 1);
  int parts = 0;
  int triangles = 0;
  btVector3 lo(BT_LARGE_FLOAT, BT_LARGE_FLOAT, BT_LARGE_FLOAT);
  btVector3 hi = -lo;
  for (int i = 0; i < world.world().getNumCollisionObjects(); ++i) {
    const btCollisionObject* object = world.world().getCollisionObjectArray()[i];
    if (object->getCollisionShape()->getShapeType() != TRIANGLE_MESH_SHAPE_PROXYTYPE) continue;
    ++parts;
    const auto* mesh = static_cast<const btBvhTriangleMeshShape*>(object->getCollisionShape())->getMeshInterface();
    for (int part = 0; part < mesh->getNumSubParts(); ++part) {
      const unsigned char* vertices = nullptr;
      const unsigned char* indices = nullptr;
      int vertex_count = 0, vertex_stride = 0, index_stride = 0, faces = 0;
      PHY_ScalarType vertex_type{}, index_type{};
      mesh->getLockedReadOnlyVertexIndexBase(&vertices, vertex_count, vertex_type, vertex_stride, &indices,
                                             index_stride, faces, index_type, part);
      triangles += faces;
      mesh->unLockReadOnlyVertexBase(part);
    }
    btVector3 object_lo, object_hi;
    object->getCollisionShape()->getAabb(object->getWorldTransform(), object_lo, object_hi);
    lo.setMin(object_lo);
    hi.setMax(object_hi);
  }
  EXPECT_EQ(parts, 8);
  EXPECT_EQ(triangles, kLandscapeTriangles);
  EXPECT_NEAR(lo.x(), -kLandscapeHalfSide, kExtentTolerance);
  EXPECT_NEAR(lo.z(), -kLandscapeHalfSide, kExtentTolerance);
  EXPECT_NEAR(hi.x(), kLandscapeHalfSide, kExtentTolerance);
  EXPECT_NEAR(hi.z(), kLandscapeHalfSide, kExtentTolerance);
}

/// bench-8's cells fill the 2 x 2 x 2 cube, and each weighs its volume.
constexpr double kPackVolume = 8;
constexpr double kVolumeTolerance = 1e-3;

TEST(BulletWorlds, ThePacksCellsFillTheCube) {
  BulletWorld world("bench-8", BroadphaseKind::agrid, 1);
  double mass = 0;
  for (int i = 0; i < world.world().getNumCollisionObjects(); ++i) {
    const btRigidBody* body = btRigidBody::upcast(world.world().getCollisionObjectArray()[i]);
    if (body->getInvMass() > 0) mass += 1 / body->getInvMass();
  }
  EXPECT_NEAR(mass, kPackVolume, kVolumeTolerance);
}

/// bench-7's rays, all of which reach the landscape.
constexpr std::size_t kRays = 500;

TEST(BulletWorlds, BenchSevenCastsItsRaysAfterEveryStep) {
  BulletWorld world("bench-7", BroadphaseKind::agrid, 1);
  EXPECT_EQ(world.rays_per_step(), kRays);
  world.step();
  EXPECT_EQ(world.last_ray_hits(), kRays);
  EXPECT_GT(world.last_query_time().count(), 0);
  BulletWorld without("bench-6", BroadphaseKind::agrid, 1);
  without.step();
  EXPECT_EQ(without.rays_per_step(), 0u);
  EXPECT_EQ(without.last_query_time().count(), 0);
}

}  // namespace
}  // namespace agrid::scenes
