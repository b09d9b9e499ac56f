// The incremental Broadphase's parts each keep an invariant (plugin/src/broadphase/: ObjectTable,
// RestingSet, MovingSet, PairDiff, AllPairs), which problem() checks after every update in builds
// with AGRID_ASSERTS. Here: it holds on a world with every kind of object (resting with a
// candidate, resting alone, resting beside one its filter refuses, moving, invalid), and each kind of damage done on
// purpose to that world is named by problem(), part by part.

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <memory>
#include <string>

#include "broadphase/broadphase_core.h"

namespace agrid::test {
namespace {

using detail::BroadphaseCore;
using detail::Object;
using detail::Place;

Box cube(float x, float y = 0.0f, float size = 1.0f) { return {{x, y, 0.0f}, {x + size, y + size, size}}; }

/// The handles of the world below, in the order made.
enum : Handle { kFirst, kSecond, kAlone, kRefusing, kRefused, kMover, kInvalid };

/// Two resting objects that overlap (a candidate, a hit), one resting alone, two resting ones
/// whose filters refuse each other, one moving every update, and one with a NaN box.
std::unique_ptr<BroadphaseCore> world() {
  auto core = std::make_unique<BroadphaseCore>(Config{});
  const auto make = [&](const Box& box, Filter filter = {}) {
    return core->table().create(box, filter, core->config().fat_margin,
                                [&](std::size_t size) { core->resting().make_room(static_cast<std::uint32_t>(size)); });
  };
  make(cube(0.0f));
  make(cube(0.95f));
  make(cube(10.0f));
  make(cube(20.0f), Filter{1, 1});
  make(cube(20.5f), Filter{2, 2});
  make(cube(-50.0f));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  make(Box{{nan, 0.0f, 0.0f}, {1.0f, 1.0f, 1.0f}});
  for (int step = 0; step < 6; ++step) {
    core->table().set_box(kMover, cube(-50.0f + 5.0f * static_cast<float>(step + 1)), core->config().fat_margin);
    core->update(true);
  }
  return core;
}

TEST(BroadphaseInvariants, HoldOnAWorldOfEveryKind) {
  const std::unique_ptr<BroadphaseCore> core = world();
  EXPECT_EQ(core->problem(), nullptr);
  // The world is what the damage below assumes.
  EXPECT_EQ(core->table()[kFirst].place, Place::resting);
  EXPECT_EQ(core->table()[kMover].place, Place::moving);
  EXPECT_EQ(core->table()[kRefusing].place, Place::resting);
  EXPECT_EQ(core->table()[kRefused].place, Place::resting);
  EXPECT_EQ(core->resting().size(), 6u);  // all but the mover (the NaN box rests, with no leaf)
  EXPECT_EQ(core->resting().tree().leaves(), 5u);
  EXPECT_EQ(core->resting().candidates().size(), 1u);  // not the refusing pair's
  EXPECT_EQ(core->resting().candidates().hits(), 1u);
  EXPECT_EQ(core->moving().members().size(), 1u);
  EXPECT_EQ(core->pairs().size(), 1u);
  EXPECT_EQ(core->problem(), nullptr);  // pairs() brought AllPairs up to date: its check ran too
}

struct Damage {
  const char* what;
  std::function<void(BroadphaseCore&)> damage;
  const char* problem;
};

TEST(BroadphaseInvariants, EachDamageIsNamed) {
  const Damage damages[] = {
      {"a box outside its fat box", [](BroadphaseCore& c) { c.table()[kAlone].box = cube(30.0f); },
       "ObjectTable: a box is not in its fat box"},
      {"an object left marked changed", [](BroadphaseCore& c) { c.table()[kAlone].dirty = true; },
       "ObjectTable: an object is marked changed after an update"},
      {"a leave left half done", [](BroadphaseCore& c) { c.table()[kAlone].leaving = true; },
       "ObjectTable: a transition left half done"},
      {"a removed object still placed",
       [](BroadphaseCore& c) { c.table()[kMover].alive = false; },
       "ObjectTable: a removed object is still placed"},
      {"a leaf whose object does not rest", [](BroadphaseCore& c) { c.table()[kAlone].place = Place::none; },
       "RestingSet: a resting valid box is not a leaf, or another is"},
      {"a leaf that is not its object's fat box", [](BroadphaseCore& c) {
         Object& o = c.table()[kAlone];
         o.fat = Box{{o.fat.min.x - 1.0f, o.fat.min.y, o.fat.min.z}, o.fat.max};
       },
       "RestingSet: a leaf's box is not its object's fat box"},
      {"a candidate's hit gone stale",
       [](BroadphaseCore& c) {
         // Still inside its fat box (margin 0.1 of the edge), no longer touching the second cube.
         c.table()[kFirst].box = Box{{-0.1f, 0.0f, 0.0f}, {0.9f, 1.0f, 1.0f}};
       },
       "RestingSet: a candidate's hit is stale"},
      {"a candidate its filters refuse",
       [](BroadphaseCore& c) {
         // The filter table is not writable from outside: a refusing filter set without an update.
         c.table().set_filter(kFirst, Filter{4, 4}, c.config().fat_margin);
         c.table()[kFirst].dirty = false;  // as if an update had taken it and kept it at rest
         c.table().forget_dirty();
         c.table()[kFirst].leaving = false;
         c.table()[kFirst].fat = c.resting().tree().box(kFirst);
       },
       "RestingSet: a candidate's filters refuse it"},
      {"a resting object with no box unplaced", [](BroadphaseCore& c) { c.table()[kInvalid].place = Place::none; },
       "RestingSet: the resting objects are miscounted"},
      {"a member of the moving set no longer moving", [](BroadphaseCore& c) { c.table()[kMover].place = Place::none; },
       "MovingSet: a member is not a live moving object"},
  };
  for (const Damage& d : damages) {
    SCOPED_TRACE(d.what);
    const std::unique_ptr<BroadphaseCore> core = world();
    ASSERT_EQ(core->problem(), nullptr);
    d.damage(*core);
    const char* problem = core->problem();
    ASSERT_NE(problem, nullptr);
    EXPECT_EQ(std::string(problem), d.problem);
  }
}

}  // namespace
}  // namespace agrid::test
