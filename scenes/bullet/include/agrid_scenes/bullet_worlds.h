#pragma once
// Bullet worlds for A/B runs of broadphases: the same bodies, the same steps, one broadphase
// swapped for another, with the broadphase's own time measured.

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include <btBulletDynamicsCommon.h>

#include "agrid_scenes/broadphase_kind.h"
#include "agrid_scenes/bullet_harness.h"
#include "agrid_scenes/pair_check.h"
#include "agrid_scenes/timed_broadphase.h"

namespace agrid::scenes {

namespace detail {
class WorldBuilder;  // scenes/bullet/src/world_scene.h
}

/// What the bodies of a world are doing: to check that broadphases give the same physics.
struct PhysicsSummary {
  std::uint32_t dynamic_bodies = 0;
  std::uint32_t asleep = 0;       ///< Dynamic bodies deactivated (island sleeping).
  double mean_height = 0;         ///< Mean y of the dynamic bodies.
  double max_height = 0;
  double kinetic_energy = 0;      ///< Linear and rotational, of the dynamic bodies.
  std::uint32_t left_world = 0;   ///< Dynamic bodies outside the scene's bounds (fell or flew away).
  std::uint32_t not_finite = 0;   ///< Dynamic bodies with a NaN or infinite position.
};

/// A scene of the Bullet worlds: its name, what it is, and whether it takes a body count.
struct WorldSceneInfo {
  std::string_view name;
  std::string_view description;  ///< One line, for --help.
  bool fixed_bodies = false;     ///< The scene has its own body count; the count asked for is ignored.
  std::string_view short_name;   ///< Another name for it ("bench-1" for "bench-1-box-block"), or empty.
};

/// Every scene, the A/B scenes first, all stepped at 1/60 s with one substep. The A/B scenes:
/// * "scatter": bodies (unit boxes and spheres, alternating) with no gravity, centres uniform in
///   a cube of side 4 cbrt(N), velocities uniform in [-2, 2]^3: all moving, sparse.
/// * "cluster": the same bodies with centres in a 60-unit cube and velocities in [-0.5, 0.5]^3,
///   no gravity, plus 3 bodies 1,500 units away: dense, a teapot in a stadium.
/// * "pile": bodies dropped from a cubic lattice (spacing 1.5) onto a static plane, gravity:
///   contacts and sleeping.
/// * "static-city": N static unit-footprint boxes (heights 1 to 3) on a grid of spacing 2 and
///   N / 100 dynamic spheres raining on them from above, gravity.
/// * "ball-collapse": the parallel sweep-and-prune paper's scene: bodies uniform in a ball of
///   radius 2 cbrt(N), velocities toward its centre (speed 5), no gravity: they collide in a
///   dense cluster and spread out.
/// * "plane-pass": the paper's plane scene: one square layer of almost-touching cubes (edge 0.98,
///   spacing 1) moving up together (speed 2, a little sideways drift), no gravity.
/// * "mixed-shapes": boxes, spheres, capsules and convex hulls dropped on a triangle-mesh
///   ground: every narrowphase path.
/// Then the eight scenes of Bullet's own benchmark (examples/Benchmarks/BenchmarkDemo.cpp),
/// "bench-1-..." to "bench-8-...", with the demo's body counts (the count asked for is ignored),
/// its solver settings (5 iterations, friction direction caching) and, in bench-7, its 500 rays
/// cast after every step. Their landscape and convex shapes are generated, not the demo's data.
[[nodiscard]] std::span<const WorldSceneInfo> world_scenes();

/// The names of world_scenes(), in the same order.
[[nodiscard]] std::span<const std::string_view> world_scene_names();

/// The scene called `name` (its name or short name), or nullptr.
[[nodiscard]] const WorldSceneInfo* find_world_scene(std::string_view name);

/// What an exact check of the broadphase's rayTest found, over the rays of one step.
struct RayCheck {
  std::uint64_t missed = 0;  ///< Proxies a ray meets that rayTest did not report: always an error.
  std::uint64_t extra = 0;   ///< Proxies rayTest reported that the ray does not meet.
};

/// A ray the scene cast in its last step, cut at its closest hit.
struct CastRay {
  btVector3 from;
  btVector3 end;     ///< The closest hit point, or the ray's far end if it hit nothing.
  bool hit = false;
};

/// A Bullet world of one scene with one broadphase, and everything it owns.
class BulletWorld {
 public:
  /// `scene` is a name or short name of world_scenes(); `config` tunes the agrid broadphase
  /// (agrid only). Throws std::invalid_argument for an unknown scene, or for zero bodies in a
  /// scene that takes a body count.
  BulletWorld(std::string_view scene, BroadphaseKind kind, std::uint32_t bodies, std::uint64_t seed = 1,
              const agrid::Config& config = {});
  ~BulletWorld();
  BulletWorld(const BulletWorld&) = delete;
  BulletWorld& operator=(const BulletWorld&) = delete;

  /// One step of 1/60 s: stepSimulation, then the scene's per-step queries (bench-7's rays).
  void step();

  [[nodiscard]] btDiscreteDynamicsWorld& world() noexcept { return harness_->world(); }
  [[nodiscard]] TimedBroadphase& broadphase() noexcept { return *harness_->timed(); }
  /// The harness that owns the world and everything in it.
  [[nodiscard]] BulletHarness& harness() noexcept { return *harness_; }
  /// Pairs in the broadphase's pair cache.
  [[nodiscard]] int pairs() const;

  /// Rays the scene casts every step after stepSimulation (0 for scenes without queries).
  [[nodiscard]] std::size_t rays_per_step() const noexcept;
  /// The rays of the last step that hit something.
  [[nodiscard]] std::size_t last_ray_hits() const noexcept { return last_ray_hits_; }
  /// The rays of the last step (empty for scenes without queries), for pictures.
  [[nodiscard]] std::span<const CastRay> last_rays() const noexcept { return last_rays_; }
  /// The time of the last step's queries (its rays, narrowphase included); 0 without queries.
  [[nodiscard]] std::chrono::nanoseconds last_query_time() const noexcept { return last_query_time_; }

  /// check_pair_cache of the world and its broadphase's cache, outside any timing. agrid and
  /// simple keep exactly the overlapping pairs; btDbvtBroadphase also keeps pairs of its
  /// fattened leaves, removed lazily, and bt32BitAxisSweep3 those of its quantized boxes, so
  /// both have extra pairs by design (keeps_exact_pairs).
  [[nodiscard]] PairCheck check_pairs() const;

  /// Casts each ray of the scene through the broadphase's rayTest alone and compares the
  /// proxies reported with a brute-force test of the ray (a closed segment, in double) against
  /// every stored AABB. dbvt and sap report fattened leaves, so only agrid promises no extra.
  [[nodiscard]] RayCheck check_rays() const;

  /// Casts the scene's rays of one step through the broadphase alone (no narrowphase), as
  /// btCollisionWorld prepares them; returns how many objects were reported. For timing rays.
  std::size_t cast_rays_broadphase_only();

  /// What the dynamic bodies are doing now.
  [[nodiscard]] PhysicsSummary summary() const;

  /// Positions and sleeping state of the dynamic bodies, for pictures.
  struct BodyState {
    float x, y, z;
    bool asleep;
  };
  [[nodiscard]] std::vector<BodyState> body_states() const;

 private:
  void cast_rays();

  std::unique_ptr<BulletHarness> harness_;
  /// What the scene was built with (its rays): declared after the harness it points into.
  std::unique_ptr<detail::WorldBuilder> contents_;
  btVector3 bounds_min_;
  btVector3 bounds_max_;
  std::size_t last_ray_hits_ = 0;
  std::vector<CastRay> last_rays_;
  std::chrono::nanoseconds last_query_time_{0};
};

}  // namespace agrid::scenes
