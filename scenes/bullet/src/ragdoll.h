#pragma once
// BenchmarkDemo's ragdoll (bench-3): eleven capsules joined by hinges and cone twists.

#include <btBulletDynamicsCommon.h>

#include "world_scene.h"

namespace agrid::scenes::detail {

/// Bodies and joints of one ragdoll.
inline constexpr int kRagdollBodies = 11;
inline constexpr int kRagdollJoints = 10;

/// Adds a ragdoll standing at `offset` (its feet's height; its pelvis one `scale` above), every
/// length times `scale`: 11 bodies of mass 1, their own shapes, and 10 joints whose bodies do
/// not collide with each other.
void add_ragdoll(WorldBuilder& builder, const btVector3& offset, btScalar scale);

}  // namespace agrid::scenes::detail
