// The ragdoll's facts (capsule sizes, places, joint frames and limits) are BenchmarkDemo's, in
// units of the ragdoll's scale; the tables below are written from them.

#include "ragdoll.h"

#include <array>
#include <memory>

namespace agrid::scenes::detail {
namespace {

constexpr btScalar kHalfPi = SIMD_HALF_PI;
constexpr btScalar kQuarterPi = SIMD_HALF_PI / 2;

enum Part {
  kPelvis,
  kSpine,
  kHead,
  kLeftUpperLeg,
  kLeftLowerLeg,
  kRightUpperLeg,
  kRightLowerLeg,
  kLeftUpperArm,
  kLeftLowerArm,
  kRightUpperArm,
  kRightLowerArm,
};

/// A body part: a capsule (radius, height between its sphere centres), where its centre is in
/// the ragdoll (x, y; z = 0), and its turn about z (the arms lie along x).
struct PartSpec {
  btScalar radius;
  btScalar height;
  btScalar x;
  btScalar y;
  btScalar turn;
};

constexpr std::array<PartSpec, kRagdollBodies> kParts = {{
    {0.15f, 0.20f, 0, 1, 0},                     // pelvis
    {0.15f, 0.28f, 0, 1.2f, 0},                  // spine
    {0.10f, 0.05f, 0, 1.6f, 0},                  // head
    {0.07f, 0.45f, -0.18f, 0.65f, 0},            // left upper leg
    {0.05f, 0.37f, -0.18f, 0.2f, 0},             // left lower leg
    {0.07f, 0.45f, 0.18f, 0.65f, 0},             // right upper leg
    {0.05f, 0.37f, 0.18f, 0.2f, 0},              // right lower leg
    {0.05f, 0.33f, -0.35f, 1.45f, kHalfPi},      // left upper arm
    {0.04f, 0.25f, -0.7f, 1.45f, kHalfPi},       // left lower arm
    {0.05f, 0.33f, 0.35f, 1.45f, -kHalfPi},      // right upper arm
    {0.04f, 0.25f, 0.7f, 1.45f, -kHalfPi},       // right lower arm
}};

/// Every part's mass, damping (linear, angular) and sleeping (after 0.8 s below the thresholds).
constexpr btScalar kPartMass = 1;
constexpr btScalar kLinearDamping = 0.05f;
constexpr btScalar kAngularDamping = 0.85f;
constexpr btScalar kDeactivationTime = 0.8f;
constexpr btScalar kLinearSleep = 1.6f;
constexpr btScalar kAngularSleep = 2.5f;

/// A joint's frame in one body: its Euler angles as btMatrix3x3::setEulerZYX takes them (about
/// x, y, z) and its origin (x, y; z = 0).
struct Frame {
  btScalar about_x;
  btScalar about_y;
  btScalar about_z;
  btScalar x;
  btScalar y;
};

enum class JointKind { hinge, cone_twist };

/// A joint: hinges take limits (low, high), cone twists (swing 1, swing 2, twist).
struct JointSpec {
  JointKind kind;
  Part a;
  Part b;
  Frame in_a;
  Frame in_b;
  std::array<btScalar, 3> limits;
};

/// A knee's and an elbow's frames: the hinge axis across the limb.
constexpr Frame kKneeAbove{0, kHalfPi, 0, 0, -0.225f};
constexpr Frame kKneeBelow{0, kHalfPi, 0, 0, 0.185f};
constexpr Frame kElbowAbove{0, kHalfPi, 0, 0, 0.18f};
constexpr Frame kElbowBelow{0, kHalfPi, 0, 0, -0.14f};

constexpr std::array<JointSpec, kRagdollJoints> kJoints = {{
    {JointKind::hinge, kPelvis, kSpine, {0, kHalfPi, 0, 0, 0.15f}, {0, kHalfPi, 0, 0, -0.15f},
     {-kQuarterPi, kHalfPi, 0}},
    {JointKind::cone_twist, kSpine, kHead, {0, 0, kHalfPi, 0, 0.30f}, {0, 0, kHalfPi, 0, -0.14f},
     {kQuarterPi, kQuarterPi, kHalfPi}},
    {JointKind::cone_twist, kPelvis, kLeftUpperLeg, {0, 0, -5 * kQuarterPi, -0.18f, -0.10f},
     {0, 0, -5 * kQuarterPi, 0, 0.225f}, {kQuarterPi, kQuarterPi, 0}},
    {JointKind::hinge, kLeftUpperLeg, kLeftLowerLeg, kKneeAbove, kKneeBelow, {0, kHalfPi, 0}},
    {JointKind::cone_twist, kPelvis, kRightUpperLeg, {0, 0, kQuarterPi, 0.18f, -0.10f}, {0, 0, kQuarterPi, 0, 0.225f},
     {kQuarterPi, kQuarterPi, 0}},
    {JointKind::hinge, kRightUpperLeg, kRightLowerLeg, kKneeAbove, kKneeBelow, {0, kHalfPi, 0}},
    {JointKind::cone_twist, kSpine, kLeftUpperArm, {0, 0, 2 * kHalfPi, -0.2f, 0.15f}, {0, 0, kHalfPi, 0, -0.18f},
     {kHalfPi, kHalfPi, 0}},
    {JointKind::hinge, kLeftUpperArm, kLeftLowerArm, kElbowAbove, kElbowBelow, {-kHalfPi, 0, 0}},
    {JointKind::cone_twist, kSpine, kRightUpperArm, {0, 0, 0, 0.2f, 0.15f}, {0, 0, kHalfPi, 0, -0.18f},
     {kHalfPi, kHalfPi, 0}},
    {JointKind::hinge, kRightUpperArm, kRightLowerArm, kElbowAbove, kElbowBelow, {-kHalfPi, 0, 0}},
}};

btTransform frame_transform(const Frame& f, btScalar scale) {
  btTransform t;
  t.setIdentity();
  t.getBasis().setEulerZYX(f.about_x, f.about_y, f.about_z);
  t.setOrigin(scale * btVector3(f.x, f.y, 0));
  return t;
}

std::unique_ptr<btTypedConstraint> make_joint(const JointSpec& j, btRigidBody& a, btRigidBody& b, btScalar scale) {
  const btTransform in_a = frame_transform(j.in_a, scale);
  const btTransform in_b = frame_transform(j.in_b, scale);
  if (j.kind == JointKind::hinge) {
    auto hinge = std::make_unique<btHingeConstraint>(a, b, in_a, in_b);
    hinge->setLimit(j.limits[0], j.limits[1]);
    return hinge;
  }
  auto cone = std::make_unique<btConeTwistConstraint>(a, b, in_a, in_b);
  cone->setLimit(j.limits[0], j.limits[1], j.limits[2]);
  return cone;
}

}  // namespace

void add_ragdoll(WorldBuilder& builder, const btVector3& offset, btScalar scale) {
  std::array<btRigidBody*, kRagdollBodies> bodies{};
  for (std::size_t i = 0; i < kParts.size(); ++i) {
    const PartSpec& part = kParts[i];
    btCollisionShape* capsule = builder.make_shape<btCapsuleShape>(scale * part.radius, scale * part.height);
    btTransform at;
    at.setIdentity();
    at.setOrigin(offset + scale * btVector3(part.x, part.y, 0));
    at.getBasis().setEulerZYX(0, 0, part.turn);
    bodies[i] = builder.add_body(capsule, kPartMass, at);
  }
  for (btRigidBody* body : bodies) {
    body->setDamping(kLinearDamping, kAngularDamping);
    body->setDeactivationTime(kDeactivationTime);
    body->setSleepingThresholds(kLinearSleep, kAngularSleep);
  }
  for (const JointSpec& joint : kJoints) {
    // Linked parts overlap at their joints: they must not collide.
    builder.add_constraint(make_joint(joint, *bodies[joint.a], *bodies[joint.b], scale), true);
  }
}

}  // namespace agrid::scenes::detail
