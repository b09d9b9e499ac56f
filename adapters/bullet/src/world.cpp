#include "agrid/bullet/world.h"

#include <LinearMath/btIDebugDraw.h>

#include <type_traits>

#include "rtti.h"

namespace agrid::bullet {

namespace {
/// `broadphase` as agrid's, or null. dynamic_cast only where the object's class has RTTI: one
/// compiled without it (a user's own broadphase) is not agrid's, which always has.
template <class Interface>
[[nodiscard]] auto* as_adaptive_grid(Interface* broadphase) {
  using Result = std::conditional_t<std::is_const_v<Interface>, const btAdaptiveGridBroadphase, btAdaptiveGridBroadphase>;
  if (broadphase == nullptr || !bullet_detail::has_type_info(*broadphase)) return static_cast<Result*>(nullptr);
  return dynamic_cast<Result*>(broadphase);
}

/// Passes a warning to the debug drawer the world has now, as btCollisionWorld reports its own.
void to_debug_drawer(const char* message, void* world) {
  btIDebugDraw* drawer = static_cast<btCollisionWorld*>(world)->getDebugDrawer();
  if (drawer != nullptr) drawer->reportErrorWarning(message);
}
}  // namespace

btAdaptiveGridBroadphase* broadphase(btCollisionWorld& world) { return as_adaptive_grid(world.getBroadphase()); }

const btAdaptiveGridBroadphase* broadphase(const btCollisionWorld& world) {
  return as_adaptive_grid(world.getBroadphase());
}

const btAdaptiveGridBroadphaseStats* stats(const btCollisionWorld& world) {
  const btAdaptiveGridBroadphase* grid = broadphase(world);
  return grid != nullptr ? &grid->lastStepStats() : nullptr;
}

bool reportWarningsToDebugDrawer(btCollisionWorld& world) {
  btAdaptiveGridBroadphase* grid = broadphase(world);
  if (grid == nullptr) return false;
  grid->setWarningHandler(to_debug_drawer, &world);
  return true;
}

}  // namespace agrid::bullet
