// fcl_robot_arm: a motion planner's checks on agrid. A six-link arm sweeps through 200 poses over a
// cluttered table; each pose updates the arm's manager, checks the arm against the scene's manager
// and the arm against itself (adjacent links, which touch at their joints, filtered), with FCL's
// narrowphase on what the broadphase offers. The same checks with fcl::NaiveCollisionManager
// must find the same colliding pairs, pose by pose. Built as C++14.
#include <agrid/fcl/manager.h>
#include <fcl/broadphase/broadphase_bruteforce.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/narrowphase/collision.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <set>
#include <utility>
#include <vector>

using Object = fcl::CollisionObjectd;
using Manager = fcl::BroadPhaseCollisionManagerd;

namespace {

constexpr int kLinks = 6;
constexpr double kLinkLength = 0.5;
constexpr int kClutter = 120;
constexpr int kPoses = 200;

/// What a collide() call found: the colliding pairs by the objects' ids, and whether adjacent
/// links are skipped.
struct Contacts {
  std::set<std::pair<long, long>> pairs;
  bool skip_adjacent = false;
};

long id_of(const Object* o) { return reinterpret_cast<long>(o->getUserData()); }

/// The broadphase callback: FCL's narrowphase on the offered pair, noting those that collide.
bool narrowphase(Object* a, Object* b, void* data) {
  Contacts& contacts = *static_cast<Contacts*>(data);
  const long i = id_of(a);
  const long j = id_of(b);
  if (contacts.skip_adjacent && std::abs(i - j) <= 1) return false;  // links joined at a joint
  fcl::CollisionRequestd request;
  fcl::CollisionResultd result;
  if (fcl::collide(a, b, request, result) > 0) contacts.pairs.insert(std::minmax(i, j));
  return false;  // keep going: every contact is wanted
}

std::unique_ptr<Object> box(double x, double y, double z, long id) {
  std::unique_ptr<Object> o(new Object(std::make_shared<fcl::Boxd>(x, y, z)));
  o->setUserData(reinterpret_cast<void*>(id));
  return o;
}

/// Places the arm's links for joint angles `q`: a base turning about z, then joints about y.
void pose_arm(std::vector<std::unique_ptr<Object>>& links, const std::vector<double>& q) {
  fcl::Transform3d joint = fcl::Transform3d::Identity();
  joint.translation() = fcl::Vector3d(-0.8, 0, 0.9);  // beside the table, clear of the clutter
  joint.rotate(fcl::AngleAxisd(q[0], fcl::Vector3d::UnitZ()));
  for (int i = 0; i < kLinks; ++i) {
    joint.rotate(fcl::AngleAxisd(q[static_cast<std::size_t>(i) + 1], fcl::Vector3d::UnitY()));
    fcl::Transform3d middle = joint;
    middle.translate(fcl::Vector3d(kLinkLength / 2, 0, 0));
    links[static_cast<std::size_t>(i)]->setTransform(middle);
    links[static_cast<std::size_t>(i)]->computeAABB();
    joint.translate(fcl::Vector3d(kLinkLength, 0, 0));
  }
}

}  // namespace

int main() {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  // The scene: a table and clutter on it and around it.
  std::vector<std::unique_ptr<Object>> scene;
  scene.push_back(box(2.0, 2.0, 0.1, 1000));
  scene.back()->setTranslation(fcl::Vector3d(0.8, 0, 0.75));
  for (long k = 0; k < kClutter; ++k) {
    scene.push_back(box(0.05 + 0.15 * unit(random), 0.05 + 0.15 * unit(random), 0.05 + 0.3 * unit(random), 1001 + k));
    scene.back()->setTranslation(fcl::Vector3d(-0.5 + 2.6 * unit(random), -1.3 + 2.6 * unit(random), 0.8 + 0.1 * unit(random)));
  }
  std::vector<Object*> scene_objects;
  for (const auto& o : scene) {
    o->computeAABB();
    scene_objects.push_back(o.get());
  }
  std::vector<std::unique_ptr<Object>> links;
  std::vector<Object*> link_objects;
  for (long i = 0; i < kLinks; ++i) {
    links.push_back(box(kLinkLength, 0.08, 0.08, i));
    link_objects.push_back(links.back().get());
  }
  std::vector<double> q(kLinks + 1, 0.0);
  q[1] = -1.4;  // the first link nearly upright, the rest straight on
  pose_arm(links, q);

  // agrid's managers, and FCL's brute force for the check.
  std::unique_ptr<Manager> scene_manager(new agrid::fcl::Manager<double>());
  std::unique_ptr<Manager> arm_manager(new agrid::fcl::Manager<double>());
  std::unique_ptr<Manager> scene_naive(new fcl::NaiveCollisionManagerd());
  std::unique_ptr<Manager> arm_naive(new fcl::NaiveCollisionManagerd());
  scene_manager->registerObjects(scene_objects);
  arm_manager->registerObjects(link_objects);
  scene_naive->registerObjects(scene_objects);
  arm_naive->registerObjects(link_objects);

  int colliding_poses = 0;
  int self_colliding_poses = 0;
  for (int pose = 0; pose < kPoses; ++pose) {
    for (double& angle : q) angle += 0.3 * (unit(random) - 0.5);  // a small random step
    pose_arm(links, q);
    arm_manager->update();
    arm_naive->update();
    Contacts with_scene, naive_with_scene, self, naive_self;
    self.skip_adjacent = naive_self.skip_adjacent = true;
    arm_manager->collide(scene_manager.get(), &with_scene, narrowphase);
    arm_naive->collide(scene_naive.get(), &naive_with_scene, narrowphase);
    arm_manager->collide(&self, narrowphase);
    arm_naive->collide(&naive_self, narrowphase);
    if (with_scene.pairs != naive_with_scene.pairs || self.pairs != naive_self.pairs) {
      std::fprintf(stderr, "fcl_robot_arm: pose %d: agrid and FCL's brute force found other contacts\n", pose);
      return 1;
    }
    colliding_poses += !with_scene.pairs.empty();
    self_colliding_poses += !self.pairs.empty();
  }
  std::printf("%d poses: %d touch the scene, %d the arm itself; the same as FCL's brute force\n", kPoses,
              colliding_poses, self_colliding_poses);
  return colliding_poses > 0 ? 0 : 1;  // a walk over a cluttered table that never touches it checks nothing
}
