// The Bullet worlds of the scene library: each builds with each broadphase, steps without NaN,
// is deterministic for a fixed seed, and its pair cache never lacks an overlapping pair.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "agrid_scenes/bullet_worlds.h"

namespace agrid::scenes {
namespace {

constexpr std::uint32_t kBodies = 300;
constexpr int kSteps = 40;

class BulletWorlds : public ::testing::TestWithParam<std::string_view> {};

TEST_P(BulletWorlds, StepWithoutNaNAndMissNoPair) {
  for (const BroadphaseKind kind : {BroadphaseKind::dbvt, BroadphaseKind::sap, BroadphaseKind::agrid}) {
    SCOPED_TRACE(std::string(name(kind)));
    BulletWorld world(GetParam(), kind, kBodies, 3);
    EXPECT_GE(world.world().getNumCollisionObjects(), static_cast<int>(kBodies));
    for (int step = 0; step < kSteps; ++step) {
      world.step();
      ASSERT_EQ(world.missing_pairs(), 0u) << "step " << step;
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
    for (int step = 0; step < kSteps; ++step) world.step();
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
  EXPECT_TRUE(differs_with_seed) << "the seed changes nothing";
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
}

}  // namespace
}  // namespace agrid::scenes
