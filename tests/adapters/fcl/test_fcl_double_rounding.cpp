// agrid::fcl::Manager<double> and what "exact" means for it (docs/fcl.md): agrid pairs the AABBs
// rounded outward to floats, which pairs double AABBs apart by less than a float step, and the
// manager tests every candidate again in double, so that such a pair is not offered. Faces
// touching at a double no float holds still pair.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "agrid/fcl/manager.h"
#include "agrid/float_rounding.h"
#include "fcl_scene.h"

namespace agrid_fcl_test {
namespace {

/// 0.1 is no float: rounded outward, a box ending there and one starting a double step beyond
/// overlap as floats.
constexpr double kFace = 0.1;

/// A box from `lo` to `hi` on x, [-1, 1] on y and z.
TestObject<double>* slab(Scene<double>& scene, double lo, double hi) {
  TestObject<double>* obj = scene.add(fcl::Vector3<double>(1, 1, 1), fcl::Vector3<double>(0, 0, 0));
  obj->set_aabb_exactly(fcl::Vector3<double>(lo, -1, -1), fcl::Vector3<double>(hi, 1, 1));
  return obj;
}

bool offered(const std::vector<ObjectPair<double>>& pairs, const Object<double>* a, const Object<double>* b) {
  for (const auto& [x, y] : pairs) {
    if ((x == a && y == b) || (x == b && y == a)) return true;
  }
  return false;
}

TEST(FclDoubleRounding, AabbsApartByLessThanAFloatStepAreNotOffered) {
  const double beyond = std::nextafter(kFace, std::numeric_limits<double>::infinity());
  ASSERT_LE(agrid::round_down_to_float(beyond), agrid::round_up_to_float(kFace)) << "agrid's float boxes pair them";
  Scene<double> scene(1);
  Object<double>* ending = slab(scene, -1, kFace);
  Object<double>* touching = slab(scene, kFace, 2);
  Object<double>* apart = slab(scene, beyond, 2);
  agrid::fcl::Manager<double> manager;
  manager.registerObjects({ending, touching, apart});
  const std::vector<ObjectPair<double>> pairs = collide_self(manager);
  EXPECT_TRUE(offered(pairs, ending, touching)) << "faces touching at 0.1 lost their pair";
  EXPECT_TRUE(offered(pairs, touching, apart));
  EXPECT_FALSE(offered(pairs, ending, apart)) << "AABBs a double step apart were offered";
  // collide(obj), every object offered recorded (collide_one records only overlapping AABBs).
  CollideRecord<double> hits;
  manager.collide(ending, &hits, &CollideRecord<double>::callback);
  EXPECT_TRUE(offered(hits.offered, ending, touching));
  EXPECT_FALSE(offered(hits.offered, ending, apart)) << "collide(obj) offered an AABB a double step apart";
}

}  // namespace
}  // namespace agrid_fcl_test
