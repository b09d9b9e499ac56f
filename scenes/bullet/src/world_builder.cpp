#include "world_scene.h"

namespace agrid::scenes::detail {

WorldBuilder::WorldBuilder(BulletHarness& harness, std::uint64_t seed) : harness_(harness), random_(seed) {}

btRigidBody* WorldBuilder::add_body(btCollisionShape* shape, btScalar mass, const btVector3& position,
                                    const btVector3& velocity) {
  btTransform transform;
  transform.setIdentity();
  transform.setOrigin(position);
  btRigidBody* body = harness_.make_body(shape, mass, transform);
  // Set before the body joins the world, as the A/B scenes always did.
  if (mass > 0) body->setLinearVelocity(velocity);
  harness_.world().addRigidBody(body);
  return body;
}

}  // namespace agrid::scenes::detail
