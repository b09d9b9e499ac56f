#pragma once
// The step scenes of the incremental-broadphase benchmarks: random boxes at about one overlap a
// box, and which are created, moved and removed each step, in which order. Shared by
// agrid-bench-broadphase (agrid::Broadphase) and its Bullet peer in agrid-bench-bullet, so that
// both time the same scene. Every number comes from the scene library's one generator
// (agrid_scenes/random.h) with fixed seeds: the same boxes on every compiler and library.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "agrid/box.h"
#include "agrid/segment.h"
#include "agrid_scenes/boxes.h"
#include "agrid_scenes/random.h"

namespace agrid::scenes {

/// Shortest and longest box edge, drawn uniformly on each axis.
constexpr float kMinEdge = 0.5f;
constexpr float kMaxEdge = 2.0f;
constexpr Edges kStepBoxEdges{kMinEdge, kMaxEdge};

/// Seeds of the ray benchmark's boxes and of its rays.
constexpr std::uint64_t kRayBoxSeed = 3;
constexpr std::uint64_t kRaySeed = 4;
/// Static boxes of the ray benchmark, and rays cast per iteration.
constexpr std::size_t kRayBoxes = 50000;
constexpr std::size_t kRays = 500;
/// The mixed ray scene: this many boxes walking among the static ones (RandomWalk, in the ray
/// scene's cube), from this seed.
constexpr std::size_t kRayMovers = 5000;
constexpr std::uint64_t kRayMoverSeed = 7;

/// Side of a cube in which `count` boxes have about one overlap each (pairs ~ count): two boxes
/// overlap on an axis with probability E[edge_a + edge_b] / side, so count^2 / 2 * (E[a + b] /
/// side)^3 = count. Boxes at the faces have fewer neighbours, hence "about".
inline float one_overlap_side(std::size_t count) {
  const double mean_edge_sum = static_cast<double>(kMinEdge) + static_cast<double>(kMaxEdge);
  return static_cast<float>(mean_edge_sum * std::cbrt(static_cast<double>(count) / 2.0));
}

/// `count` boxes centred uniformly in the cube [0, side]^3.
inline std::vector<Box> boxes_in_cube(Random& rng, std::size_t count, float side) {
  std::vector<Box> boxes;
  boxes.reserve(count);
  for (std::size_t i = 0; i < count; ++i) boxes.push_back(box_around(rng, point_in(rng, {}, {side, side, side}), kStepBoxEdges));
  return boxes;
}

/// The ray benchmark's static boxes: kRayBoxes at one overlap a box.
inline std::vector<Box> ray_scene_boxes() {
  Random rng(kRayBoxSeed);
  return boxes_in_cube(rng, kRayBoxes, one_overlap_side(kRayBoxes));
}

/// The ray benchmark's rays: kRays segments between random points of the same cube.
inline std::vector<Segment> ray_scene_rays() {
  Random rng(kRaySeed);
  const float side = one_overlap_side(kRayBoxes);
  std::vector<Segment> rays;
  rays.reserve(kRays);
  for (std::size_t i = 0; i < kRays; ++i) {
    const Vec3 from = point_in(rng, {}, {side, side, side});
    rays.push_back({from, point_in(rng, {}, {side, side, side}), {}});
  }
  return rays;
}

/// Seed of the box queries through the ray benchmark's boxes, how many, and their edges: a few
/// units, the size of an explosion's or a trigger's test.
constexpr std::uint64_t kBoxQuerySeed = 5;
constexpr std::size_t kBoxQueries = 500;
constexpr float kBoxQueryMinEdge = 2.0f;
constexpr float kBoxQueryMaxEdge = 5.0f;

/// The box queries: kBoxQueries boxes with edges uniform in [kBoxQueryMinEdge, kBoxQueryMaxEdge]
/// on each axis, centred at random points of the ray benchmark's cube.
inline std::vector<Box> ray_scene_queries() {
  Random rng(kBoxQuerySeed);
  const float side = one_overlap_side(kRayBoxes);
  std::vector<Box> queries;
  queries.reserve(kBoxQueries);
  for (std::size_t i = 0; i < kBoxQueries; ++i) {
    queries.push_back(box_around(rng, point_in(rng, {}, {side, side, side}), {kBoxQueryMinEdge, kBoxQueryMaxEdge}));
  }
  return queries;
}

// ---- The step scenes: frozen-* and stream-* ------------------------------------------------
// What agrid-bench-broadphase's BM_broadphase/<scene> and bench_bullet.cpp's
// BM_broadphase_step/<scene>/<kind> both run: the boxes, which are created, moved and removed
// each step and in which order. A run is generic in the broadphase's handle; the caller passes
// its create, remove and set_box and calls its own update (calculateOverlappingPairs) after
// start() and after each step().

/// Timed steps of every step benchmark, fixed so that max_ms compares between runs.
constexpr int kStepTimedSteps = 100;
/// Untimed steps before timing: in a steady state by then, with as many boxes coming to rest as
/// start moving each step (frozen), and the boxes created at the start long at rest (stream).
constexpr int kFrozenStepWarmup = 150;
constexpr int kStreamStepWarmup = 60;
/// A moved box moves by up to this much on each axis per step.
constexpr float kStepNudge = 0.05f;
/// Seeds of the step scenes.
constexpr std::uint64_t kFrozenStepSeed = 1;
constexpr std::uint64_t kStreamStepSeed = 2;
/// The stream's slab is the cube of its box count squashed this many times in y and z and
/// stretched kStreamSlabSquash^2 times in x: the same volume, so the same density.
constexpr float kStreamSlabSquash = 3.0f;

/// A frozen scene: `boxes` boxes in a cube, `moved` of them (different ones each step) nudged.
struct FrozenStepScene {
  const char* name;
  std::uint32_t boxes;
  std::uint32_t moved;
};

/// A stream scene: `boxes` static boxes in a window sliding along x, `churn` of the oldest
/// removed and as many created ahead each step, and `movers` boxes nudged every step.
struct StreamStepScene {
  const char* name;
  std::uint32_t boxes;
  std::uint32_t churn;
  std::uint32_t movers;
};

inline constexpr FrozenStepScene kFrozenStepScenes[] = {{"frozen-500k", 500000, 5000}, {"frozen-50k", 50000, 500}};
inline constexpr StreamStepScene kStreamStepScenes[] = {{"stream-200k", 200000, 2000, 5000},
                                                        {"stream-20k", 20000, 200, 500}};

/// A frozen scene's run. start(create) creates every box; then each step, prepare() (untimed)
/// draws the boxes moved and step(create, remove, set_box) moves them. Every container is
/// reserved by the constructor: start() and step() allocate nothing here.
template <class Handle>
class FrozenStepRun {
 public:
  explicit FrozenStepRun(const FrozenStepScene& scene)
      : scene_(scene), rng_(kFrozenStepSeed), boxes_(boxes_in_cube(rng_, scene.boxes, one_overlap_side(scene.boxes))) {
    handles_.reserve(boxes_.size());
    moves_.reserve(scene.moved);
    // A partial shuffle of `order_` picks the step's boxes: different ones within a step.
    order_.resize(boxes_.size());
    for (std::uint32_t i = 0; i < order_.size(); ++i) order_[i] = i;
  }

  /// Creates every box, in order: create(const Box&) -> Handle.
  template <class Create>
  void start(Create&& create) {
    for (const Box& box : boxes_) handles_.push_back(create(box));
  }

  /// Draws the next step's moves.
  void prepare() {
    moves_.clear();
    for (std::uint32_t i = 0; i < scene_.moved; ++i) {
      std::swap(order_[i], order_[i + rng_.below(scene_.boxes - i)]);
      Box& box = boxes_[order_[i]];
      box = nudged(rng_, box, kStepNudge);
      moves_.emplace_back(handles_[order_[i]], box);
    }
  }

  /// Makes the drawn step's changes: set_box(Handle, const Box&) for each moved box (no box is
  /// created or removed; the signature is the stream's).
  template <class Create, class Remove, class SetBox>
  void step(Create&& /*create*/, Remove&& /*remove*/, SetBox&& set_box) const {
    for (const auto& [handle, box] : moves_) set_box(handle, box);
  }

  /// Live objects.
  std::size_t objects() const { return handles_.size(); }
  /// Calls f(Handle) for each live object.
  template <class F>
  void for_each_handle(F&& f) const {
    for (const Handle handle : handles_) f(handle);
  }

 private:
  FrozenStepScene scene_;
  Random rng_;
  std::vector<Box> boxes_;
  std::vector<Handle> handles_;
  std::vector<std::uint32_t> order_;
  std::vector<std::pair<Handle, Box>> moves_;
};

/// A stream scene's run. start(create) creates the static boxes batch by batch (oldest and
/// lowest in x first), then the movers; then each step, prepare() (untimed) draws the next batch
/// and nudges the movers, and step(create, remove, set_box) removes the oldest batch, creates
/// the new one and moves the movers, in that order. Every container is reserved by the
/// constructor: start() and step() allocate nothing here.
template <class Handle>
class StreamStepRun {
 public:
  explicit StreamStepRun(const StreamStepScene& scene)
      : scene_(scene),
        rng_(kStreamStepSeed),
        width_(one_overlap_side(scene.boxes) / kStreamSlabSquash),  // in y and z
        length_(one_overlap_side(scene.boxes) * kStreamSlabSquash * kStreamSlabSquash),  // of the window, in x
        slice_(length_ * static_cast<float>(scene.churn) / static_cast<float>(scene.boxes)),
        batches_(scene.boxes / scene.churn) {
    for (std::vector<Handle>& batch : batches_) batch.reserve(scene.churn);
    new_boxes_.reserve(scene.churn);
    movers_.reserve(scene.movers);
    mover_handles_.reserve(scene.movers);
  }

  /// Creates the static boxes, then the movers: create(const Box&) -> Handle.
  template <class Create>
  void start(Create&& create) {
    for (std::vector<Handle>& batch : batches_) {
      draw_batch();
      for (const Box& box : new_boxes_) batch.push_back(create(box));
    }
    for (std::uint32_t i = 0; i < scene_.movers; ++i) {
      movers_.push_back(box_around(rng_, point_in(rng_, {}, {length_, width_, width_}), kStepBoxEdges));
      mover_handles_.push_back(create(movers_.back()));
    }
  }

  /// Draws the next step's batch and moves the movers.
  void prepare() {
    draw_batch();
    // A mover left behind by the window moves on by its length, so the movers stay in it.
    const float back = front_ - length_;
    for (Box& box : movers_) {
      box = nudged(rng_, box, kStepNudge);
      if (box.max.x < back) box = {{box.min.x + length_, box.min.y, box.min.z}, {box.max.x + length_, box.max.y, box.max.z}};
    }
  }

  /// Makes the drawn step's changes: remove(Handle) for the oldest batch, create(const Box&) ->
  /// Handle for the new one, set_box(Handle, const Box&) for the movers.
  template <class Create, class Remove, class SetBox>
  void step(Create&& create, Remove&& remove, SetBox&& set_box) {
    std::vector<Handle>& batch = batches_[oldest_];
    for (const Handle handle : batch) remove(handle);
    batch.clear();
    for (const Box& box : new_boxes_) batch.push_back(create(box));
    oldest_ = (oldest_ + 1) % batches_.size();
    for (std::size_t i = 0; i < movers_.size(); ++i) set_box(mover_handles_[i], movers_[i]);
  }

  /// Live objects.
  std::size_t objects() const { return batches_.size() * scene_.churn + mover_handles_.size(); }
  /// Calls f(Handle) for each live object.
  template <class F>
  void for_each_handle(F&& f) const {
    for (const std::vector<Handle>& batch : batches_) {
      for (const Handle handle : batch) f(handle);
    }
    for (const Handle handle : mover_handles_) f(handle);
  }

 private:
  /// The next `churn` static boxes, in their own slice of x.
  void draw_batch() {
    new_boxes_.clear();
    for (std::uint32_t i = 0; i < scene_.churn; ++i) {
      new_boxes_.push_back(box_around(rng_, point_in(rng_, {front_, 0, 0}, {front_ + slice_, width_, width_}), kStepBoxEdges));
    }
    front_ += slice_;
  }

  StreamStepScene scene_;
  Random rng_;
  float width_;
  float length_;
  float slice_;
  float front_ = 0;  // where the next slice begins
  std::vector<std::vector<Handle>> batches_;  // a ring: batches_[oldest_] is the oldest
  std::size_t oldest_ = 0;
  std::vector<Box> new_boxes_;
  std::vector<Box> movers_;
  std::vector<Handle> mover_handles_;
};

// ---- Scenes in which every box moves every step: a random walk and a pile ------------------
// What agrid-bench-broadphase's BM_broadphase/scatter-50k and BM_all_moving/<scene> run. A scene
// is made whole by its constructor; step() moves its boxes in place (no allocation), boxes()
// reads them, in the same order every step (index i is the same box throughout).

/// The random walk's density: the boxes' summed volume over the cube's. Two boxes overlap on an
/// axis with probability E[edge_a + edge_b] / side (2.5 / side), so pairs = count^2 / 2 x
/// (2.5 / side)^3 = 4 x density x count (the mean volume is 1.25^3): at 0.1, 0.4 pairs a box,
/// each box overlapping 0.8 others (one_overlap_side's scenes are at density 0.25).
constexpr float kWalkDensity = 0.1f;
/// A walking box's velocity, in units a step, is uniform in [-kWalkSpeed, kWalkSpeed] on each
/// axis (kStepNudge: the frozen scenes' nudge).
constexpr float kWalkSpeed = kStepNudge;
/// This share of the boxes (drawn with repetition) gets a new random velocity each step.
constexpr float kWalkTurnShare = 0.01f;
constexpr std::uint64_t kWalkSeed = 6;

/// The side of the cube in which `count` boxes of random edges cover `density` of the volume.
inline float cube_side_at_density(std::size_t count, float density) {
  const double mean_edge = (static_cast<double>(kMinEdge) + static_cast<double>(kMaxEdge)) / 2;
  return static_cast<float>(std::cbrt(static_cast<double>(count) * mean_edge * mean_edge * mean_edge / density));
}

/// `count` boxes in a cube at kWalkDensity, each moving by its own velocity every step, bouncing
/// off the cube's faces (a centre past a face turns back); kWalkTurnShare of them draw a new
/// velocity each step. All move every step, about as far as Bullet's scatter bodies (2 units a
/// second at 60 steps a second: 0.033 a step).
class RandomWalk {
 public:
  explicit RandomWalk(std::size_t count) : RandomWalk(count, cube_side_at_density(count, kWalkDensity), kWalkSeed) {}
  /// `count` boxes walking in the cube [0, side]^3, drawn from `seed`.
  RandomWalk(std::size_t count, float side, std::uint64_t seed)
      : rng_(seed), side_(side), boxes_(boxes_in_cube(rng_, count, side_)) {
    velocities_.reserve(count);
    for (std::size_t i = 0; i < count; ++i) velocities_.push_back(random_velocity());
  }

  /// Turns kWalkTurnShare of the boxes, then moves every box by its velocity.
  void step() {
    const auto count = static_cast<std::uint32_t>(boxes_.size());
    const auto turns = static_cast<std::uint32_t>(kWalkTurnShare * static_cast<float>(count));
    for (std::uint32_t i = 0; i < turns; ++i) velocities_[rng_.below(count)] = random_velocity();
    for (std::size_t i = 0; i < boxes_.size(); ++i) {
      Box& box = boxes_[i];
      Vec3& v = velocities_[i];
      box = {{box.min.x + v.x, box.min.y + v.y, box.min.z + v.z}, {box.max.x + v.x, box.max.y + v.y, box.max.z + v.z}};
      bounce(box.min.x + box.max.x, v.x);
      bounce(box.min.y + box.max.y, v.y);
      bounce(box.min.z + box.max.z, v.z);
    }
  }

  /// The boxes as of the last step (or as made).
  [[nodiscard]] std::span<const Box> boxes() const { return boxes_; }

 private:
  Vec3 random_velocity() { return point_in(rng_, {-kWalkSpeed, -kWalkSpeed, -kWalkSpeed}, {kWalkSpeed, kWalkSpeed, kWalkSpeed}); }

  /// Turns a velocity component back into the cube when the centre (given doubled) is past a face.
  void bounce(float twice_centre, float& v) const {
    if (twice_centre < 0) v = std::abs(v);
    if (twice_centre > 2 * side_) v = -std::abs(v);
  }

  Random rng_;
  float side_;
  std::vector<Box> boxes_;
  std::vector<Vec3> velocities_;
};

/// The mixed ray scene's walkers: kRayMovers boxes walking in the ray scene's cube.
inline RandomWalk ray_scene_walkers() { return RandomWalk(kRayMovers, one_overlap_side(kRayBoxes), kRayMoverSeed); }

/// The pile's container floor is a square of k x k columns kPileCell wide, k = cbrt(count / 2)
/// rounded up: a column holds about 2k boxes, so that once all have landed (1.21 units of height
/// a box) the pile is about 1.2 times as high as the container (2k) is wide. A column is as wide
/// as the longest edge: a box reaches into the columns beside its own, never further.
constexpr float kPileCell = kMaxEdge;
/// This share of the boxes (the last made) starts in the air above the pile, the others landed.
constexpr float kPileFallingShare = 0.25f;
/// Falling boxes fall this far a step (12 units a second at 60 steps a second: as if they had
/// fallen for over a second).
constexpr float kPileFallSpeed = 0.2f;
/// Above each column, its falling boxes are stacked with gaps uniform in [0, kPileRainGap], the
/// lowest that far at most above the column's top: they land one after another from the first step.
constexpr float kPileRainGap = 1.0f;
/// A landed box sinks this far into the box (or floor) under it, as the boxes of a physics
/// engine, grown by their contact margins (Bullet: 0.02 a side), overlap what they rest on.
constexpr float kPileSink = 0.04f;
/// A landed box trembles by up to this much on each axis every step, around where it landed:
/// a settling pile. Less than half of kPileSink, so that a box and the one under it always
/// overlap.
constexpr float kPileShake = 0.01f;
constexpr std::uint64_t kPileSeed = 7;

/// `count` boxes of random edges piling up in a container with a square floor: each box belongs
/// to the column under its centre; kPileFallingShare of them fall straight down at kPileFallSpeed
/// and land on their column's top, the others have landed and tremble. Not physics: columns are
/// a coarse height field, so a box rests on the highest box of its own column only, and may
/// overlap the boxes of the columns beside it. Dense (1.34 to 1.44 pairs a box over the frames the
/// benchmarks time, 15 to 45 steps in, about 3.5 times the walk's: a box overlaps those under and
/// over it and some of the columns' beside; tests/scenes/test_step_scenes.cpp), growing, and
/// every box moves every step.
class BoxPile {
 public:
  explicit BoxPile(std::size_t count)
      : rng_(kPileSeed),
        columns_per_side_(std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::ceil(std::cbrt(static_cast<double>(count) / 2))))),
        column_floor_(static_cast<std::size_t>(columns_per_side_) * columns_per_side_, 0.0f) {
    const float side = kPileCell * static_cast<float>(columns_per_side_);
    const auto landed = static_cast<std::size_t>((1.0f - kPileFallingShare) * static_cast<float>(count));
    centres_.reserve(count);
    halves_.reserve(count);
    columns_.reserve(count);
    falling_.reserve(count);
    boxes_.reserve(count);
    // The lowest a falling box of each column may start, raised by each one placed.
    std::vector<float> air;
    for (std::size_t i = 0; i < count; ++i) {
      if (i == landed) air = column_floor_;
      const std::uint32_t cx = rng_.below(columns_per_side_);
      const std::uint32_t cz = rng_.below(columns_per_side_);
      const Vec3 half{rng_.uniform(kMinEdge, kMaxEdge) / 2, rng_.uniform(kMinEdge, kMaxEdge) / 2,
                      rng_.uniform(kMinEdge, kMaxEdge) / 2};
      // Inside the container's walls.
      const float x = std::clamp(kPileCell * (static_cast<float>(cx) + rng_.uniform(0.0f, 1.0f)), half.x, side - half.x);
      const float z = std::clamp(kPileCell * (static_cast<float>(cz) + rng_.uniform(0.0f, 1.0f)), half.z, side - half.z);
      const std::uint32_t column = cz * columns_per_side_ + cx;
      float bottom = 0;
      if (i < landed) {
        bottom = land(column, half.y);
      } else {
        bottom = air[column] + rng_.uniform(0.0f, kPileRainGap);
        air[column] = bottom + 2 * half.y;
      }
      centres_.push_back({x, bottom + half.y, z});
      halves_.push_back(half);
      columns_.push_back(column);
      falling_.push_back(i < landed ? 0 : 1);
      boxes_.push_back(around(centres_.back(), half));
    }
  }

  /// Moves the falling boxes down, landing those that reach their column's top, and trembles the
  /// landed ones.
  void step() {
    for (std::size_t i = 0; i < boxes_.size(); ++i) {
      Vec3& c = centres_[i];
      const Vec3 half = halves_[i];
      if (falling_[i] != 0) {
        // A column's falling boxes are in index order from the lowest up: the lower lands first.
        float bottom = c.y - half.y - kPileFallSpeed;
        if (bottom <= column_floor_[columns_[i]]) {
          bottom = land(columns_[i], half.y);
          falling_[i] = 0;
        }
        c.y = bottom + half.y;
        boxes_[i] = around(c, half);
      } else {
        const Vec3 d = point_in(rng_, {-kPileShake, -kPileShake, -kPileShake}, {kPileShake, kPileShake, kPileShake});
        boxes_[i] = around({c.x + d.x, c.y + d.y, c.z + d.z}, half);
      }
    }
  }

  /// The boxes as of the last step (or as made).
  [[nodiscard]] std::span<const Box> boxes() const { return boxes_; }

 private:
  static Box around(Vec3 c, Vec3 half) {
    return {{c.x - half.x, c.y - half.y, c.z - half.z}, {c.x + half.x, c.y + half.y, c.z + half.z}};
  }

  /// Lands a box of half height `half_y` on `column`: returns its bottom and raises the column.
  float land(std::uint32_t column, float half_y) {
    const float bottom = column_floor_[column];
    column_floor_[column] = bottom + 2 * half_y - kPileSink;
    return bottom;
  }

  Random rng_;
  std::uint32_t columns_per_side_;
  std::vector<float> column_floor_;  // per column: where the next box to land has its bottom
  std::vector<Vec3> centres_;        // where each box landed, or is falling
  std::vector<Vec3> halves_;
  std::vector<std::uint32_t> columns_;
  std::vector<std::uint8_t> falling_;
  std::vector<Box> boxes_;
};

// ---- The walk as a step scene: scatter-* ----------------------------------------------------
// The random walk run as the frozen and stream scenes are (start, prepare, step), for
// agrid-bench-broadphase's BM_broadphase/<scene>.

/// A walk scene: `boxes` boxes of a RandomWalk, every one moved each step.
struct WalkStepScene {
  const char* name;
  std::uint32_t boxes;
};

inline constexpr WalkStepScene kWalkStepScenes[] = {{"scatter-50k", 50000}};
/// Untimed steps before timing: the boxes, at rest when new, have nearly all left their fat boxes
/// and are moving by then (99.6% of them at the 20th step; tests/scenes/test_step_scenes.cpp).
constexpr int kWalkStepWarmup = 20;

/// A walk scene's run. start(create) creates every box; each step, prepare() (untimed) moves
/// them and step(create, remove, set_box) sets every box. start() and step() allocate nothing here.
template <class Handle>
class WalkStepRun {
 public:
  explicit WalkStepRun(const WalkStepScene& scene) : walk_(scene.boxes) { handles_.reserve(scene.boxes); }

  /// Creates every box, in order: create(const Box&) -> Handle.
  template <class Create>
  void start(Create&& create) {
    for (const Box& box : walk_.boxes()) handles_.push_back(create(box));
  }

  /// Moves every box.
  void prepare() { walk_.step(); }

  /// set_box(Handle, const Box&) for every box (no box is created or removed; the signature is
  /// the stream's).
  template <class Create, class Remove, class SetBox>
  void step(Create&& /*create*/, Remove&& /*remove*/, SetBox&& set_box) const {
    const std::span<const Box> boxes = walk_.boxes();
    for (std::size_t i = 0; i < boxes.size(); ++i) set_box(handles_[i], boxes[i]);
  }

  /// Live objects.
  std::size_t objects() const { return handles_.size(); }
  /// Calls f(Handle) for each live object.
  template <class F>
  void for_each_handle(F&& f) const {
    for (const Handle handle : handles_) f(handle);
  }

 private:
  RandomWalk walk_;
  std::vector<Handle> handles_;
};

}  // namespace agrid::scenes
