#pragma once
// The viewer's world: a scene of the scene library on one broadphase, stepped in a TBB arena of
// the chosen size, rebuilt from its initial state on another broadphase when asked, with the
// recent steps' costs and, per broadphase tried, the mean costs (the A/B figures).

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tbb/task_arena.h>

#include <glm/vec3.hpp>

#include "agrid/box.h"
#include "agrid_render/snapshot.h"
#include "agrid_scenes/bullet_worlds.h"
#include "step_history.h"

namespace agrid::viewer {

/// Mean costs of one broadphase over every step it ran in this session.
struct BroadphaseTotals {
  std::uint64_t steps = 0;
  double step_ms = 0;        ///< Sum over the steps.
  double broadphase_ms = 0;  ///< Sum over the steps.

  [[nodiscard]] double mean_step_ms() const { return steps == 0 ? 0 : step_ms / static_cast<double>(steps); }
  [[nodiscard]] double mean_broadphase_ms() const {
    return steps == 0 ? 0 : broadphase_ms / static_cast<double>(steps);
  }
};

/// What the panel says of a picked collision object.
struct BodyInfo {
  int index = 0;            ///< In the world's collision object array.
  std::string shape;        ///< Bullet's name of its shape ("Box", "SPHERE", ...).
  std::string state;        ///< "static", "asleep" or "awake".
  int pairs = 0;            ///< Pairs in the broadphase's cache that it is in.
  render::Bounds aabb;      ///< Its AABB as the broadphase holds it.
};

/// A scene's Bullet world and what its steps cost.
class Simulation {
 public:
  /// Builds `scene` with `bodies` bodies and `seed` on `kind`; `threads` 0 means all cores.
  Simulation(std::string scene, std::uint32_t bodies, std::uint64_t seed, scenes::BroadphaseKind kind, unsigned threads);

  /// One step of 1/60 s in the arena; records its costs.
  void step();
  /// Starts over from the scene's initial state on `kind` (same scene, seed and body count).
  void rebuild(scenes::BroadphaseKind kind);
  /// Runs agrid's work on `threads` threads from the next step (0: all cores).
  void set_threads(unsigned threads);
  /// Adds a box at `from` flying along `direction` (a unit vector).
  void shoot_box(const glm::vec3& from, const glm::vec3& direction);
  /// The ends of a line between the centres of the two objects of each pair in the cache, but
  /// for pairs with a ground (a plane, a triangle mesh), whose centre says nothing.
  [[nodiscard]] std::vector<glm::vec3> pair_lines() const;
  /// The index of the first collision object `from` -> `to` hits (Bullet's rayTest), if any.
  [[nodiscard]] std::optional<int> pick(const glm::vec3& from, const glm::vec3& to) const;
  /// What the object at `index` is, or nothing when there is no such object.
  [[nodiscard]] std::optional<BodyInfo> body_info(int index) const;
  /// Per collision object, the pairs of the broadphase's cache it is in.
  [[nodiscard]] std::vector<int> pair_counts() const;
  /// Per collision object, its AABB as the broadphase holds it.
  [[nodiscard]] std::vector<Box> aabbs() const;
  /// The ends of the last step's rays (bench-7's), each cut at its closest hit: two per ray.
  [[nodiscard]] std::vector<glm::vec3> ray_lines() const;

  [[nodiscard]] btDiscreteDynamicsWorld& world() { return world_->world(); }
  [[nodiscard]] scenes::BroadphaseKind kind() const noexcept { return kind_; }
  [[nodiscard]] unsigned threads() const noexcept { return threads_; }
  [[nodiscard]] const std::string& scene() const noexcept { return scene_; }
  /// Collision objects in the world: the bench-* scenes' own count, not the one asked for.
  [[nodiscard]] int objects() const noexcept { return objects_; }
  /// Steps since the last rebuild.
  [[nodiscard]] std::uint64_t steps() const noexcept { return steps_; }
  /// The last steps' costs.
  [[nodiscard]] const StepHistory& history() const noexcept { return history_; }
  /// Mean costs per broadphase, indexed by BroadphaseKind.
  [[nodiscard]] const std::array<BroadphaseTotals, 4>& totals() const noexcept { return totals_; }

 private:
  std::string scene_;
  std::uint32_t bodies_;
  std::uint64_t seed_;
  scenes::BroadphaseKind kind_;
  unsigned threads_ = 0;
  tbb::task_arena arena_;
  std::unique_ptr<scenes::BulletWorld> world_;
  std::uint64_t steps_ = 0;
  int objects_ = 0;
  StepHistory history_;
  std::array<BroadphaseTotals, 4> totals_{};
};

}  // namespace agrid::viewer
