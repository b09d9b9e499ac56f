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
#include "common/pair_key.h"

namespace agrid::detail {

/// The damage below writes the table's columns as no public call can.
struct TestAccess {
  static Box& box(ObjectTable& t, Handle h) { return t.boxes_[h]; }
  static Motion& motion(ObjectTable& t, Handle h) { return t.motions_[h]; }
  static void mark_dirty(ObjectTable& t, Handle h) { t.dirty_bits_.set(h); }
  static void kill(ObjectTable& t, Handle h) { t.alive_.reset(h); }
  static std::vector<std::uint64_t>& moving_keys(PairDiff& d) { return d.moving_keys_; }
  static std::vector<Pair>& pairs(const AllPairs& a) { return a.pairs_; }
  /// Sets a filter as if an update had taken the change and kept the object where it was.
  static void set_filter_unseen(ObjectTable& t, Handle h, Filter f) {
    t.set_filter(h, f);
    t.forget_dirty();
  }
};

}  // namespace agrid::detail

namespace agrid::test {
namespace {

using detail::BroadphaseCore;
using detail::Place;
using detail::TestAccess;

Box cube(float x, float y = 0.0f, float size = 1.0f) { return {{x, y, 0.0f}, {x + size, y + size, size}}; }

/// The handles of the world below, in the order made.
enum : Handle { kFirst, kSecond, kAlone, kRefusing, kRefused, kMover, kInvalid };

/// Two resting objects that overlap (a candidate, a hit), one resting alone, two resting ones
/// whose filters refuse each other, one moving every update, and one with a NaN box.
std::unique_ptr<BroadphaseCore> world() {
  auto core = std::make_unique<BroadphaseCore>(Config{});
  const auto make = [&](const Box& box, Filter filter = {}) {
    return core->table().create(box, filter,
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
    core->table().set_box(kMover, cube(-50.0f + 5.0f * static_cast<float>(step + 1)));
    core->update(true);
  }
  return core;
}

TEST(BroadphaseInvariants, HoldOnAWorldOfEveryKind) {
  const std::unique_ptr<BroadphaseCore> core = world();
  EXPECT_EQ(core->problem(), nullptr);
  // The world is what the damage below assumes.
  EXPECT_EQ(core->table().place(kFirst), Place::resting);
  EXPECT_EQ(core->table().place(kMover), Place::moving);
  EXPECT_EQ(core->table().place(kRefusing), Place::resting);
  EXPECT_EQ(core->table().place(kRefused), Place::resting);
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
      {"a box outside its fat box", [](BroadphaseCore& c) { TestAccess::box(c.table(), kAlone) = cube(30.0f); },
       "ObjectTable: a box is not in its fat box"},
      {"an object left marked changed", [](BroadphaseCore& c) { TestAccess::mark_dirty(c.table(), kAlone); },
       "ObjectTable: an object is marked changed after an update"},
      {"a removed object still placed", [](BroadphaseCore& c) { TestAccess::kill(c.table(), kMover); },
       "ObjectTable: a removed object is still placed"},
      {"a removed object's box kept",
       [](BroadphaseCore& c) {
         TestAccess::kill(c.table(), kMover);
         TestAccess::motion(c.table(), kMover).place = Place::none;
       },
       "ObjectTable: a removed object keeps a box"},
      {"a leaf whose object does not rest", [](BroadphaseCore& c) { TestAccess::motion(c.table(), kAlone).place = Place::none; },
       "RestingSet: a resting valid box is not a leaf, or another is"},
      {"a leaf that is not its object's fat box", [](BroadphaseCore& c) {
         Box& fat = TestAccess::motion(c.table(), kAlone).fat;
         fat = Box{{fat.min.x - 1.0f, fat.min.y, fat.min.z}, fat.max};
       },
       "RestingSet: a leaf's box is not its object's fat box"},
      {"a candidate's hit gone stale",
       [](BroadphaseCore& c) {
         // Still inside its fat box (margin 0.1 of the edge), no longer touching the second cube.
         TestAccess::box(c.table(), kFirst) = Box{{-0.1f, 0.0f, 0.0f}, {0.9f, 1.0f, 1.0f}};
       },
       "RestingSet: a candidate's hit is stale"},
      {"a candidate its filters refuse",
       [](BroadphaseCore& c) {
         // A refusing filter set as no update would leave it: the candidate kept.
         TestAccess::set_filter_unseen(c.table(), kFirst, Filter{4, 4});
       },
       "RestingSet: a candidate's filters refuse it"},
      {"a resting object with no box unplaced", [](BroadphaseCore& c) { TestAccess::motion(c.table(), kInvalid).place = Place::none; },
       "RestingSet: the resting objects are miscounted"},
      {"a moving key repeated",
       [](BroadphaseCore& c) {
         std::vector<std::uint64_t>& keys = TestAccess::moving_keys(c.diff());
         keys.assign(2, detail::pair_key(kMover, kInvalid));
       },
       "PairDiff: the moving keys do not ascend, or repeat"},
      {"every pair listed out of order",
       [](BroadphaseCore& c) {
         ASSERT_FALSE(c.pairs().empty());  // made now: AllPairs checks them while current
         std::vector<Pair>& pairs = TestAccess::pairs(c.all_pairs());
         pairs.push_back(pairs.front());
       },
       "AllPairs: the pairs do not ascend, or repeat"},
      {"a member of the moving set no longer moving", [](BroadphaseCore& c) { TestAccess::motion(c.table(), kMover).place = Place::none; },
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
