#pragma once
// agrid::bullet: a Bullet world's btAdaptiveGridBroadphase, its stats and settings, without a cast
// from world->getBroadphase(). C++11 and later, as the adapter's header.

#include <BulletCollision/CollisionDispatch/btCollisionWorld.h>

#include "agrid/bullet/btAdaptiveGridBroadphase.h"
#include "agrid/bullet/btAdaptiveGridBroadphaseStats.h"

namespace agrid {
namespace bullet {

/// The world's broadphase if it is a btAdaptiveGridBroadphase (or a class derived from it), else
/// null: its settings (setWatchFiltersAtRest, setMisuseHandler, ...) without a cast.
btAdaptiveGridBroadphase* broadphase(btCollisionWorld& world);
/// The world's broadphase if it is a btAdaptiveGridBroadphase, else null.
const btAdaptiveGridBroadphase* broadphase(const btCollisionWorld& world);

/// The last step's stats of the world's btAdaptiveGridBroadphase (lastStepStats()), or null when
/// the world's broadphase is another (btDbvtBroadphase, ...).
const btAdaptiveGridBroadphaseStats* stats(const btCollisionWorld& world);

/// Sends the warnings of the world's btAdaptiveGridBroadphase to the world's debug drawer as it is
/// when one is made (btIDebugDraw::reportErrorWarning, where btCollisionWorld reports "Overflow in
/// AABB"; none without a drawer, as Bullet's), while the world lives. False, and nothing set,
/// when the world's broadphase is another.
bool reportWarningsToDebugDrawer(btCollisionWorld& world);

}  // namespace bullet
}  // namespace agrid
