// agrid::Broadphase against the brute-force model (oracle/broadphase_model.h), exactly and step by
// step, on scenes of incremental change: a few objects moving among many at rest, a stream of
// objects coming and going, teleports, stop-and-start, filter changes, boxes at infinity. One
// function, check_step, checks every step: queries before the update (they see the boxes set
// since the last one), the pairs and the began and ended lists after it, the stats, and the
// queries again. Queries also run from four threads at once, and the changes must not depend
// on the number of threads. Only Broadphase's public interface is used, so these tests hold for
// any implementation of it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <thread>
#include <vector>

#include "agrid/agrid.h"
#include "oracle/broadphase_model.h"
#include "oracle/oracle.h"
#include "support/test_support.h"

namespace agrid::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
/// What a query's output holds before the call, which the call must replace.
constexpr Handle kNoHandle = std::numeric_limits<Handle>::max();

using Model = oracle::BroadphaseModel;
using oracle::difference;

/// Updates an untouched object is left alone so that any resting structure has taken it (today's
/// Broadphase rests objects unchanged for 16 updates).
constexpr int kRestUpdates = 30;

/// Probes each step: random box and segment queries from tests/support's generators ...
constexpr std::uint32_t kProbeBoxes = 32;
constexpr std::uint32_t kProbeSegments = 32;
/// ... each object's own box while the scene is this small, else this many random objects' and
/// the boxes of this many objects changed since the last update (and the boxes they left).
constexpr std::size_t kAllOwnBoxesUpTo = 600;
constexpr std::size_t kOwnBoxSample = 16;
constexpr std::size_t kChangedSample = 32;

float u(Rng& rng, double lo, double hi) { return static_cast<float>(rng.uniform(lo, hi)); }

/// Random boxes' edges: 0.2 to 2 on each axis.
constexpr scenes::Edges kEdges{0.2f, 2.0f};

/// `count` distinct entries of `from`, at random.
std::vector<Handle> sample(std::vector<Handle> from, std::size_t count, Rng& rng) {
  count = std::min(count, from.size());
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t j = i + rng.below(static_cast<std::uint32_t>(from.size() - i));
    std::swap(from[i], from[j]);
  }
  from.resize(count);
  return from;
}

/// The handles for_each_overlap visits, sorted; query(box) must give the same.
std::vector<Handle> overlapping(const Broadphase& bp, const Box& query) {
  std::vector<Handle> found;
  bp.for_each_overlap(query, [&](Handle h) { found.push_back(h); });
  std::sort(found.begin(), found.end());  // duplicates stay, and fail the comparison
  std::vector<Handle> queried{kNoHandle};
  bp.query(query, queried);
  EXPECT_EQ(queried, found) << "query(box) differs from for_each_overlap";
  return found;
}

/// The handles for_each_hit visits, sorted; query(segment) must give the same.
std::vector<Handle> hit_by(const Broadphase& bp, const Segment& segment) {
  std::vector<Handle> found;
  bp.for_each_hit(segment, [&](Handle h) { found.push_back(h); });
  std::sort(found.begin(), found.end());
  std::vector<Handle> queried{kNoHandle};
  bp.query(segment, queried);
  EXPECT_EQ(queried, found) << "query(segment) differs from for_each_hit";
  return found;
}

/// The model's pairs: its own brute force while that is quick, else the oracle's sort-and-sweep
/// over the same boxes, filtered the same way (the same pairs, sorted, in O(n log n)).
std::vector<Pair> expected_pairs(const Model& model) {
  return model.boxes.size() <= 1500 ? model.pairs() : model.swept_pairs();
}

/// A Broadphase and the brute-force model of the same objects, changed together; what changed
/// since the last update (for the queries); and totals over the checked steps after the first
/// (so that each test can require that its scene really made pairs begin and end and queries hit).
struct Scene {
  explicit Scene(const Config& config = {}) : bp(config) {}

  Handle create(const Box& box, Filter filter = {}) {
    const Handle h = bp.create(box, filter);
    EXPECT_FALSE(model.boxes.contains(h)) << "create returned handle " << h << ", which is live";
    EXPECT_FALSE(removed.contains(h)) << "create returned handle " << h
                                      << ", removed since the last update (its pairs are not reported ended yet)";
    model.boxes[h] = box;
    model.filters[h] = filter;
    changed.push_back(h);
    return h;
  }
  void set_box(Handle h, const Box& box) {
    left.push_back(model.boxes.at(h));
    bp.set_box(h, box);
    model.boxes.at(h) = box;
    changed.push_back(h);
  }
  void set_filter(Handle h, Filter filter) {
    bp.set_filter(h, filter);
    model.filters.at(h) = filter;
  }
  void remove(Handle h) {
    left.push_back(model.boxes.at(h));
    bp.remove(h);
    model.boxes.erase(h);
    model.filters.erase(h);
    removed.insert(h);
  }
  [[nodiscard]] std::vector<Handle> live() const {
    std::vector<Handle> out;
    for (const auto& [h, b] : model.boxes) out.push_back(h);
    return out;
  }
  [[nodiscard]] std::vector<Box> boxes() const {
    std::vector<Box> out;
    for (const auto& [h, b] : model.boxes) out.push_back(b);
    return out;
  }

  Broadphase bp;
  Model model;
  std::vector<Pair> previous;  ///< The pairs as of the last update() (none after update_queries()).
  std::vector<Handle> changed;  ///< Created or moved since the last update (may repeat, or be gone).
  std::vector<Box> left;        ///< Boxes that objects left (moved or removed) since the last update.
  std::set<Handle> removed;     ///< Removed since the last update: their handles are not reused yet.
  int steps = 0;
  std::uint64_t began = 0;
  std::uint64_t ended = 0;
  std::uint64_t box_hits = 0;
  std::uint64_t segment_hits = 0;
};

/// What the queries of a step ask: random boxes and segments around the scene (tests/support's
/// generators: also huge, infinite, touching, zero-size and invalid ones), boxes that objects
/// left, and objects' own boxes (each must find at least its own object).
struct Probes {
  std::vector<Box> boxes;
  std::vector<Handle> own;
  std::vector<Segment> segments;
};

template <class T>
std::vector<T> some_of(const std::vector<T>& all, std::size_t count, Rng& rng) {
  std::vector<T> out;
  for (std::size_t i = 0; i < count && !all.empty(); ++i) out.push_back(all[rng.below(static_cast<std::uint32_t>(all.size()))]);
  return out;
}

Probes make_probes(const Scene& scene) {
  const auto seed = static_cast<std::uint64_t>(scene.steps);
  Rng rng(seed + 977);
  const std::vector<Box> boxes = scene.boxes();
  Probes p;
  p.boxes = some_of(query_boxes(boxes, 8, seed), kProbeBoxes, rng);
  p.segments = some_of(query_segments(boxes, 8, seed), kProbeSegments, rng);
  const std::vector<Box> left = some_of(scene.left, kChangedSample, rng);
  p.boxes.insert(p.boxes.end(), left.begin(), left.end());
  const std::vector<Handle> live = scene.live();
  if (live.size() <= kAllOwnBoxesUpTo) {
    p.own = live;
  } else {
    p.own = sample(live, kOwnBoxSample, rng);
    for (const Handle h : some_of(scene.changed, kChangedSample, rng)) {
      if (scene.model.boxes.contains(h)) p.own.push_back(h);
    }
  }
  return p;
}

/// Runs the probes on the broadphase and the model; reports the first difference.
bool check_queries(Scene& scene, const Probes& probes, const char* when) {
  const auto fail = [&](const auto& query, const ::testing::AssertionResult& r) {
    ADD_FAILURE() << "step " << scene.steps << ", " << when << ": " << ::testing::PrintToString(query) << ": "
                  << r.message();
    return false;
  };
  for (const Handle h : probes.own) {
    const Box& q = scene.model.boxes.at(h);
    const std::vector<Handle> found = overlapping(scene.bp, q);
    if (is_valid(q) && !std::binary_search(found.begin(), found.end(), h)) {
      return fail(q, ::testing::AssertionFailure() << "object " << h << "'s own box does not find it (a box overlaps itself)");
    }
    if (auto r = same_indices(scene.model.overlapping(q), found); !r) return fail(q, r << " (object " << h << "'s own box)");
  }
  for (const Box& q : probes.boxes) {
    const std::vector<Handle> expected = scene.model.overlapping(q);
    if (auto r = same_indices(expected, overlapping(scene.bp, q)); !r) return fail(q, r << " (box query)");
    scene.box_hits += expected.size();
  }
  for (const Segment& s : probes.segments) {
    const std::vector<Handle> expected = scene.model.hit_by(s);
    if (auto r = same_indices(expected, hit_by(scene.bp, s)); !r) return fail(s, r << " (segment query)");
    scene.segment_hits += expected.size();
  }
  return true;
}

/// Which call ends a step.
enum class Step { update, queries_only };

struct Checked {
  bool ok = true;
  PairChanges changes;  ///< What update() reported (empty after update_queries()).
};

/// The check of every step: queries before the update (they see the boxes set since the last
/// one), the update on `threads` threads, its pairs, began and ended lists and stats against the
/// model, and the queries again. ok is false after the first difference (reported).
Checked check_step(Scene& scene, Step kind = Step::update, int threads = 1) {
  Checked out;
  const Probes probes = make_probes(scene);
  out.ok = check_queries(scene, probes, "before the update");
  std::uint32_t pairs = 0;
  if (kind == Step::update) {
    in_arena(threads, [&] { out.changes = scene.bp.update(); });
    const std::vector<Pair> expected = expected_pairs(scene.model);
    const std::span<const Pair> actual = scene.bp.pairs();
    const std::vector<Pair> began = difference(expected, scene.previous);
    const std::vector<Pair> ended = difference(scene.previous, expected);
    const auto fail = [&](const ::testing::AssertionResult& r, const char* what) {
      ADD_FAILURE() << "step " << scene.steps << ", " << what << ": " << r.message();
      out.ok = false;
    };
    if (auto r = same_pairs(expected, std::vector<Pair>(actual.begin(), actual.end())); !r) fail(r, "pairs()");
    if (auto r = same_pairs(began, out.changes.began); !r) fail(r, "update().began");
    if (auto r = same_pairs(ended, out.changes.ended); !r) fail(r, "update().ended");
    if (scene.steps > 0) {
      scene.began += began.size();
      scene.ended += ended.size();
    }
    pairs = static_cast<std::uint32_t>(expected.size());
    scene.previous = expected;
  } else {
    in_arena(threads, [&] { scene.bp.update_queries(); });
    EXPECT_TRUE(scene.bp.pairs().empty()) << "step " << scene.steps << ": pairs() after update_queries()";
    scene.previous.clear();  // the next update() reports every pair as begun
  }
  const BroadphaseStats stats = scene.bp.stats();
  const auto invalid = std::count_if(scene.model.boxes.begin(), scene.model.boxes.end(),
                                     [](const auto& entry) { return !is_valid(entry.second); });
  EXPECT_EQ(stats.objects, scene.model.boxes.size()) << "step " << scene.steps << ": stats().objects";
  EXPECT_EQ(stats.invalid, static_cast<std::uint32_t>(invalid)) << "step " << scene.steps << ": stats().invalid";
  if (kind == Step::update) {
    EXPECT_EQ(stats.pairs, pairs) << "step " << scene.steps << ": stats().pairs";
  }
  out.ok = out.ok && stats.objects == scene.model.boxes.size();
  scene.changed.clear();
  scene.left.clear();
  scene.removed.clear();
  out.ok = check_queries(scene, probes, "after the update") && out.ok;
  ++scene.steps;
  return out;
}

/// The scene did something worth checking: pairs began and ended after its first update, and
/// the queries found objects.
void expect_activity(const Scene& scene) {
  EXPECT_GT(scene.began, 0u) << "no pair began after the first update";
  EXPECT_GT(scene.ended, 0u) << "no pair ended";
  EXPECT_GT(scene.box_hits, 0u) << "no box query found anything";
  EXPECT_GT(scene.segment_hits, 0u) << "no segment query hit anything";
}

std::vector<Handle> populate(Scene& scene, Rng& rng, std::uint32_t count, float side) {
  std::vector<Handle> handles;
  for (std::uint32_t i = 0; i < count; ++i) handles.push_back(scene.create(scenes::box_in_cube(rng, side, kEdges)));
  return handles;
}

// 1. A few movers among many at rest (a settled world): 5,000 boxes, a different random 1% of
// them nudged by up to +-0.05 per axis each step. Returns what each update reported.
std::vector<PairChanges> run_one_percent(const Config& config, int threads) {
  SCOPED_TRACE(::testing::Message() << "fat margin " << config.fat_margin << ", " << threads << " threads");
  constexpr std::uint32_t kObjects = 5000;
  constexpr int kSteps = 50;
  Scene scene(config);
  Rng rng(101);
  const std::vector<Handle> handles = populate(scene, rng, kObjects, scenes::cube_side(kObjects, 2.5f));
  std::vector<PairChanges> changes;
  for (int step = 0; step < kSteps; ++step) {
    if (step > 0) {
      for (const Handle h : sample(handles, kObjects / 100, rng)) scene.set_box(h, scenes::nudged(rng, scene.model.boxes.at(h), 0.05f));
    }
    Checked c = check_step(scene, Step::update, threads);
    if (!c.ok) break;
    changes.push_back(std::move(c.changes));
  }
  EXPECT_EQ(changes.size(), static_cast<std::size_t>(kSteps));
  expect_activity(scene);
  return changes;
}

TEST(BroadphaseIncremental, OnePercentMovesAStep) {
  for (const float margin : {Config{}.fat_margin, 0.0f, 0.5f}) {
    Config config;
    config.fat_margin = margin;
    run_one_percent(config, 1);
  }
}

// 1b. Busy updates (docs/broadphase.md): where at least half the objects are new or left their
// fat box, nothing joins the resting set and one grid pairs them all; once the world calms down
// the objects rest. A world made at once is busy in its first update; one where every object
// drifts out of its fat box every step stays busy; exact throughout.
TEST(BroadphaseIncremental, BusyUpdatesPairEverythingInOneGridThenRest) {
  constexpr std::uint32_t kObjects = 3000;
  Scene scene;
  Rng rng(103);
  const std::vector<Handle> handles = populate(scene, rng, kObjects, scenes::cube_side(kObjects, 2.5f));
  ASSERT_TRUE(check_step(scene).ok);
  EXPECT_EQ(scene.bp.stats().moving, kObjects) << "new objects of a busy update move";
  for (int step = 0; step < 6; ++step) {
    // Every object out of its fat box: busy every step.
    for (const Handle h : handles) scene.set_box(h, scenes::nudged(rng, scene.model.boxes.at(h), 3.0f));
    ASSERT_TRUE(check_step(scene).ok);
    EXPECT_EQ(scene.bp.stats().moving, kObjects) << "step " << step;
  }
  for (int step = 0; step < 4; ++step) {
    for (const Handle h : sample(handles, kObjects / 100, rng)) scene.set_box(h, scenes::nudged(rng, scene.model.boxes.at(h), 0.05f));
    ASSERT_TRUE(check_step(scene).ok);
  }
  EXPECT_LT(scene.bp.stats().moving, kObjects / 10) << "a calm world rests";
  expect_activity(scene);
}

// 2. A window sliding along x: each step the oldest 2% go and 2% new come ahead of it, and movers
// travelling with the window are nudged every step. Handles are never reused while live (nor
// before the update that ends a removed object's pairs), and a removed object's pairs end in the
// very next update.
TEST(BroadphaseIncremental, StreamingInAndOut) {
  constexpr std::uint32_t kStreaming = 2000;
  constexpr std::uint32_t kChurn = kStreaming / 50;
  constexpr std::uint32_t kMovers = 100;
  constexpr int kSteps = 60;
  constexpr float kLength = 200.0f;
  constexpr float kWidth = 20.0f;
  constexpr float kAdvance = kLength / 50;  // the window moves as far as the churn covers
  Scene scene;
  Rng rng(202);
  const auto box_at = [&](float x) {
    const float y = u(rng, 0, kWidth);
    const float z = u(rng, 0, kWidth);
    return Box{{x, y, z}, {x + u(rng, 0.5, 2.0), y + u(rng, 0.5, 2.0), z + u(rng, 0.5, 2.0)}};
  };
  // Created in order of x: the oldest are the furthest behind.
  const auto stream_in = [&](float lo, float hi, std::uint32_t count, std::deque<Handle>& window) {
    std::vector<float> xs;
    for (std::uint32_t i = 0; i < count; ++i) xs.push_back(u(rng, lo, hi));
    std::sort(xs.begin(), xs.end());
    for (const float x : xs) window.push_back(scene.create(box_at(x)));
  };
  std::deque<Handle> window;
  stream_in(0, kLength, kStreaming, window);
  std::vector<Handle> movers;
  for (std::uint32_t i = 0; i < kMovers; ++i) movers.push_back(scene.create(box_at(u(rng, 0, kLength))));
  float front = kLength;
  std::uint64_t removed_pairs = 0;
  std::uint64_t reused = 0;
  std::set<Handle> ever_removed;
  for (int step = 0; step < kSteps; ++step) {
    std::vector<Pair> must_end;
    if (step > 0) {
      std::set<Handle> gone;
      for (std::uint32_t k = 0; k < kChurn; ++k) {
        gone.insert(window.front());
        window.pop_front();
      }
      for (const Pair& p : scene.previous) {
        if (gone.contains(p.first) || gone.contains(p.second)) must_end.push_back(p);
      }
      for (const Handle h : gone) scene.remove(h);
      const std::size_t before = window.size();
      stream_in(front, front + kAdvance, kChurn, window);
      for (std::size_t i = before; i < window.size(); ++i) reused += ever_removed.contains(window[i]);
      ever_removed.insert(gone.begin(), gone.end());
      front += kAdvance;
      for (const Handle h : movers) scene.set_box(h, scenes::moved(scenes::nudged(rng, scene.model.boxes.at(h), 0.3f), {kAdvance, 0, 0}));
    }
    const Checked c = check_step(scene);
    ASSERT_TRUE(c.ok) << "step " << step;
    for (const Pair& p : must_end) {
      EXPECT_TRUE(std::binary_search(c.changes.ended.begin(), c.changes.ended.end(), p))
          << "step " << step << ": pair (" << p.first << ", " << p.second << ") of a removed object not reported ended";
    }
    removed_pairs += must_end.size();
  }
  EXPECT_GT(removed_pairs, 0u) << "no removed object had pairs";
  expect_activity(scene);
  RecordProperty("reused_handles", static_cast<int>(reused));
}

// 3. Objects at rest jump across the world (onto other objects) and back the next step, and
// objects left alone for 45 updates jump to very far places (1e7, -1e9; pairing with each other
// there) and back, and there again.
TEST(BroadphaseIncremental, Teleports) {
  constexpr std::uint32_t kObjects = 1500;
  constexpr int kSteps = 64;
  constexpr std::size_t kJumpers = 12;
  constexpr int kSleepersWake = 45;
  const float side = scenes::cube_side(kObjects, 2.5f);
  Scene scene;
  Rng rng(303);
  const std::vector<Handle> handles = populate(scene, rng, kObjects, side);
  std::map<Handle, Box> home;
  for (const Handle h : handles) home[h] = scene.model.boxes.at(h);
  std::vector<Handle> sleepers;
  std::vector<Handle> others;
  for (const Handle h : handles) (h % 75 == 0 ? sleepers : others).push_back(h);
  ASSERT_EQ(sleepers.size(), 20u);
  std::map<Handle, int> last_moved;
  std::vector<Handle> away;
  const auto far_box = [](float x, float y, float z, float edge) { return Box{{x, y, z}, {x + edge, y + edge, z + edge}}; };
  // Where the sleepers go: pairs at 1e7 (a float's step is 1 there), at -1e9 (step 64), alone
  // at mixed far corners, and across the world.
  const auto send_far = [&](std::size_t first, std::size_t count) {
    const std::vector<Box> places = {
        far_box(1e7f, 1e7f, 1e7f, 4),         far_box(1e7f + 2, 1e7f + 2, 1e7f + 2, 4),
        far_box(-1e9f, -1e9f, -1e9f, 256),    far_box(-1e9f + 128, -1e9f + 128, -1e9f + 128, 256),
        far_box(1e7f, -1e9f, 3, 256),         far_box(-1e9f, 5, 1e7f, 256),
        far_box(1e7f + 3, 1e7f, 1e7f + 1, 1),  // touches the first one's corner region
        far_box(-1e9f, -1e9f, -1e9f, 64),     // inside the third
    };
    for (std::size_t i = first; i < first + count; ++i) {
      const Box to = i - first < places.size() ? places[i - first]
                                               : scenes::moved(home.at(sleepers[i]), {side - 2 * home.at(sleepers[i]).min.x, 0, 0});
      scene.set_box(sleepers[i], to);
    }
  };
  const auto send_home = [&](std::size_t first, std::size_t count) {
    for (std::size_t i = first; i < first + count; ++i) scene.set_box(sleepers[i], home.at(sleepers[i]));
  };
  bool far_pair_began = false;
  bool far_pair_ended = false;
  for (int step = 0; step < kSteps; ++step) {
    if (step >= kRestUpdates) {
      if (!away.empty()) {
        for (const Handle h : away) scene.set_box(h, home.at(h));
        for (const Handle h : away) last_moved[h] = step;
        away.clear();
      } else {
        std::vector<Handle> rested;
        for (const Handle h : others) {
          if (!last_moved.contains(h) || step - last_moved[h] >= 20) rested.push_back(h);
        }
        away = sample(rested, kJumpers, rng);
        for (std::size_t i = 0; i < away.size(); ++i) {
          const Box& b = scene.model.boxes.at(away[i]);
          Box to;
          if (i % 2 == 0) {  // onto another object, anywhere in the world
            const Box& target = scene.model.boxes.at(others[rng.below(static_cast<std::uint32_t>(others.size()))]);
            to = scenes::moved(b, {target.min.x - b.min.x, target.min.y - b.min.y, target.min.z - b.min.z});
          } else {  // mirrored across the world
            to = scenes::moved(b, {side - b.max.x - b.min.x, side - b.max.y - b.min.y, 0});
          }
          scene.set_box(away[i], to);
          last_moved[away[i]] = step;
        }
      }
    }
    if (step == kSleepersWake) send_far(0, 10);
    if (step == kSleepersWake + 5) send_home(0, 10);
    if (step == kSleepersWake + 10) send_far(10, 10);  // the other ten: rested 55 updates
    if (step == kSleepersWake + 11) send_far(0, 10);   // the first ten again, after 6 at home
    if (step == kSleepersWake + 15) send_home(0, 20);
    const Checked c = check_step(scene);
    ASSERT_TRUE(c.ok) << "step " << step;
    const Pair far_pair{std::min(sleepers[0], sleepers[1]), std::max(sleepers[0], sleepers[1])};
    if (step == kSleepersWake) {
      far_pair_began = std::binary_search(c.changes.began.begin(), c.changes.began.end(), far_pair);
    }
    if (step == kSleepersWake + 5) {
      far_pair_ended = std::binary_search(c.changes.ended.begin(), c.changes.ended.end(), far_pair);
    }
  }
  EXPECT_TRUE(far_pair_began) << "the two sleepers sent to 1e7 should pair there";
  EXPECT_TRUE(far_pair_ended) << "and stop pairing when back home";
  expect_activity(scene);
}

// 4. Objects that stop and start: moved one step and unchanged (or set to the same box) the
// next; moved by a large amount every other step; moved every third step; jittering by 1e-4
// every step with a big move every twelfth.
TEST(BroadphaseIncremental, StopAndStartEveryStep) {
  constexpr std::uint32_t kObjects = 1500;
  constexpr int kSteps = 60;
  const float side = scenes::cube_side(kObjects, 2.5f);
  Scene scene;
  Rng rng(404);
  const std::vector<Handle> handles = populate(scene, rng, kObjects, side);
  for (int step = 0; step < kSteps; ++step) {
    for (const Handle h : step > 0 ? handles : std::vector<Handle>{}) {
      const Box& b = scene.model.boxes.at(h);
      const auto hs = static_cast<int>(h);
      switch (h % 10) {
        case 0:  // moved, then unchanged (half of them told so with set_box)
          if (step % 2 == 0) {
            scene.set_box(h, scenes::nudged(rng, b, 0.3f));
          } else if (h % 20 == 0) {
            scene.set_box(h, b);
          }
          break;
        case 1:  // a large move every other step, anywhere in the world
          if ((step + hs / 10) % 2 == 0) {
            const Box to = scenes::box_in_cube(rng, side, kEdges);
            scene.set_box(h, scenes::moved(b, {to.min.x - b.min.x, to.min.y - b.min.y, to.min.z - b.min.z}));
          }
          break;
        case 2:  // a tiny jitter every step, then a big move
          scene.set_box(h, (step + hs / 10) % 12 == 0 ? scenes::moved(b, {u(rng, -5, 5), u(rng, -5, 5), 0}) : scenes::nudged(rng, b, 1e-4f));
          break;
        case 3:  // moved, unchanged, unchanged
          if ((step + hs / 10) % 3 == 0) scene.set_box(h, scenes::nudged(rng, b, 0.5f));
          break;
        default: break;  // at rest
      }
    }
    const Checked c = check_step(scene);
    ASSERT_TRUE(c.ok) << "step " << step;
  }
  expect_activity(scene);
}

// 4b. The move buffer (docs/broadphase.md): a few movers among many resting objects keep,
// while they stay inside their fat boxes, the list of resting objects their fat boxes meet, and
// test their boxes against it and the objects that joined since. Around movers that jitter inside
// their fat boxes for 40 updates (rest_after_querying keeps them moving): objects created
// touching them (they rest at once), resting neighbours removed, their handles reused by new
// ones beside the movers, neighbours that leave their fat boxes and come back to rest touching a
// mover, and movers that jump out of their fat boxes now and then. Exact at every step.
TEST(BroadphaseIncremental, MoversKeepTheirNearListsWhileTheyStayInTheirFatBoxes) {
  constexpr std::uint32_t kObjects = 2000;
  constexpr std::uint32_t kMovers = 8;
  constexpr int kSteps = 60;
  Config config;
  config.rest_after_querying = 40;
  const float side = scenes::cube_side(kObjects, 2.5f);
  Scene scene(config);
  Rng rng(4040);
  std::vector<Handle> resting = populate(scene, rng, kObjects, side);
  const std::vector<Handle> movers(resting.begin(), resting.begin() + kMovers);
  resting.erase(resting.begin(), resting.begin() + kMovers);
  for (int step = 0; step < kRestUpdates; ++step) ASSERT_TRUE(check_step(scene).ok);
  // A box touching `b`: its own size, shifted by most of an edge along x.
  const auto beside = [&](const Box& b) {
    return scenes::moved(b, {0.8f * (b.max.x - b.min.x), u(rng, -0.2, 0.2), u(rng, -0.2, 0.2)});
  };
  std::vector<Handle> returning;  // neighbours sent away, to come back beside a mover
  for (int step = 0; step < kSteps; ++step) {
    for (std::size_t i = 0; i < movers.size(); ++i) {
      const Handle m = movers[i];
      const Box& b = scene.model.boxes.at(m);
      // Out of its fat box on the first step and every 17th after, else a jitter inside it.
      const bool jump = step % 17 == static_cast<int>(i % 17) || step == 0;
      scene.set_box(m, jump ? scenes::moved(b, {u(rng, -3, 3), u(rng, -3, 3), u(rng, -3, 3)}) : scenes::nudged(rng, b, 1e-3f));
    }
    const Handle near = movers[static_cast<std::size_t>(step) % movers.size()];
    const Box around = scene.model.boxes.at(near);
    switch (step % 4) {
      case 0:  // a new object touching a mover
        scene.create(beside(around));
        break;
      case 1: {  // a resting object removed, and a new one (maybe in its handle, next update) beside a mover
        const std::size_t k = rng.below(static_cast<std::uint32_t>(resting.size()));
        scene.remove(resting[k]);
        resting.erase(resting.begin() + static_cast<std::ptrdiff_t>(k));
        break;
      }
      case 2: {  // a resting object sent far away; it comes back beside a mover two updates later
        const std::size_t k = rng.below(static_cast<std::uint32_t>(resting.size()));
        const Handle h = resting[k];
        scene.set_box(h, scenes::moved(scene.model.boxes.at(h), {3 * side, 0, 0}));
        returning.push_back(h);
        break;
      }
      default:
        if (!returning.empty()) {
          scene.set_box(returning.back(), beside(around));
          returning.pop_back();
        }
        resting.push_back(scene.create(beside(around)));
        break;
    }
    const Checked c = check_step(scene);
    ASSERT_TRUE(c.ok) << "step " << step;
    EXPECT_LT(scene.bp.stats().moving * Config{}.resting_query_cost, scene.bp.stats().resting)
        << "the movers should query the resting tree";
  }
  expect_activity(scene);
}

// 5. Filters of objects that never move change: to group/mask combinations that pass, refuse
// and pass again, after the objects rested 30 and 55 updates; in the same step as a remove, and
// as a move (in both orders); and set to the same filter, which changes nothing.
TEST(BroadphaseIncremental, FilterChangesOnUnmovedObjects) {
  constexpr Filter kPass{1, ~0u};        // the default: pairs with everything
  constexpr Filter kOwnGroup{4, 4};      // refuses the default, pairs with its own group
  constexpr Filter kNothing{1, 0};       // refuses everything
  constexpr Filter kOtherGroup{8, ~0u};  // another group that still pairs with the default
  constexpr Filter kNotOwn{2, ~2u};      // pairs with the default, refuses its own group
  constexpr Filter kCycle[] = {kOwnGroup, kNothing, kPass, kOtherGroup, kNotOwn};
  constexpr std::uint32_t kObjects = 1500;
  constexpr int kSteps = 76;
  constexpr int kLate = 55;
  const float side = scenes::cube_side(kObjects, 2.0f);
  Scene scene;
  Rng rng(505);
  const std::vector<Handle> handles = populate(scene, rng, kObjects, side);
  std::uint64_t filter_only_changes = 0;
  std::vector<Handle> doomed;  // group 2: removed in the same step as a filter change
  for (const Handle h : handles) {
    if (h % 8 == 2) doomed.push_back(h);
  }
  for (int step = 0; step < kSteps; ++step) {
    if (step >= kRestUpdates) {
      for (const Handle h : handles) {
        if (!scene.model.boxes.contains(h)) continue;
        const int group = static_cast<int>(h / 8);
        if (h % 8 == 0 && (step + group) % 3 == 0) {  // a new filter every third step
          scene.set_filter(h, kCycle[static_cast<std::size_t>(step / 3 + group) % std::size(kCycle)]);
        } else if (h % 8 == 1 && step >= kLate && (step - kLate) % 3 == 0) {  // after 55 updates at rest
          scene.set_filter(h, kCycle[static_cast<std::size_t>((step - kLate) / 3) % std::size(kCycle)]);
        } else if (h % 8 == 3 && step >= 50 && step < 60 && (h / 8) % 5 == 0) {  // with a move, either order
          const Box to = scenes::nudged(rng, scene.model.boxes.at(h), 0.3f);
          const Filter f = kCycle[static_cast<std::size_t>(step + group) % std::size(kCycle)];
          if (step % 2 == 0) {
            scene.set_box(h, to);
            scene.set_filter(h, f);
          } else {
            scene.set_filter(h, f);
            scene.set_box(h, to);
          }
        } else if (h % 8 == 4) {  // the same filter again: nothing changes
          scene.set_filter(h, scene.model.filters.at(h));
        }
      }
      if (step >= 40 && step < 50) {  // a filter change, then a remove; and new objects
        for (int k = 0; k < 3 && !doomed.empty(); ++k) {
          const Handle h = doomed.back();
          doomed.pop_back();
          scene.set_filter(h, k == 0 ? kNothing : kOwnGroup);
          scene.remove(h);
          scene.create(scenes::box_in_cube(rng, side, kEdges), kCycle[static_cast<std::size_t>(k + step) % std::size(kCycle)]);
        }
      }
    }
    const Checked c = check_step(scene);
    ASSERT_TRUE(c.ok) << "step " << step;
    if (step >= kRestUpdates && step < 40) filter_only_changes += c.changes.began.size() + c.changes.ended.size();
  }
  EXPECT_GT(filter_only_changes, 0u) << "filter changes alone should make pairs begin and end";
  expect_activity(scene);
}

// 6. Queries from four std::threads at once (no update running), each thread all the box and
// segment queries twice over, from its own starting point, against the model: after each kind of step, and after
// set_box calls before the update (the queries see the current boxes).

/// Runs box and segment queries from four threads at once, each thread all of them (from its
/// own starting point, twice over), and compares every result with the model's.
void check_queries_from_threads(const Scene& scene, std::uint64_t seed, const char* when) {
  constexpr std::size_t kThreads = 4;
  constexpr int kRepeats = 2;
  const std::vector<Box> boxes = scene.boxes();
  const std::vector<Box> queries = query_boxes(boxes, 32, seed);
  const std::vector<Segment> segments = query_segments(boxes, 32, seed);
  const std::size_t count = queries.size() + segments.size();
  std::vector<std::vector<Handle>> expected;  // the box queries', then the segments'
  for (const Box& q : queries) expected.push_back(scene.model.overlapping(q));
  for (const Segment& s : segments) expected.push_back(scene.model.hit_by(s));
  std::vector<std::vector<std::vector<Handle>>> found(kThreads, std::vector<std::vector<Handle>>(count));
  {
    std::vector<std::jthread> threads;
    for (std::size_t t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int r = 0; r < kRepeats; ++r) {
          for (std::size_t k = 0; k < count; ++k) {
            const std::size_t i = (k + t * count / kThreads) % count;
            found[t][i] = i < queries.size() ? overlapping(scene.bp, queries[i]) : hit_by(scene.bp, segments[i - queries.size()]);
          }
        }
      });
    }
  }
  std::uint64_t hits = 0;
  for (const auto& e : expected) hits += e.size();
  for (std::size_t t = 0; t < kThreads; ++t) {
    for (std::size_t i = 0; i < count; ++i) {
      ASSERT_TRUE(same_indices(expected[i], found[t][i]))
          << "step " << scene.steps << ", " << when << ", thread " << t << ", "
          << (i < queries.size() ? ::testing::PrintToString(queries[i]) : ::testing::PrintToString(segments[i - queries.size()]));
    }
  }
  EXPECT_GT(hits, 0u) << "the threads' queries should find objects";
}

TEST(BroadphaseIncremental, QueriesFromFourThreadsAfterEachKindOfStep) {
  // busy: every object teleported (one grid pairs them all, nothing joins); batch_join: many
  // created at once among resting ones (they join in one walk with the resting tree).
  enum class Kind { nothing, few_moved, many_moved, create_remove, filters, set_box_then_query, queries_only, two_threads, busy, batch_join };
  constexpr Kind kKinds[] = {Kind::nothing,      Kind::few_moved,          Kind::many_moved,   Kind::create_remove,
                             Kind::filters,      Kind::set_box_then_query, Kind::queries_only, Kind::two_threads,
                             Kind::busy,         Kind::nothing,            Kind::batch_join};
  constexpr std::uint32_t kObjects = 3000;
  constexpr int kRounds = 5;
  constexpr int kIdle = 18;  // first, so that most objects rest
  const float side = scenes::cube_side(kObjects, 2.5f);
  Scene scene;
  Rng rng(606);
  populate(scene, rng, kObjects, side);
  for (int i = 0; i < kIdle; ++i) ASSERT_TRUE(check_step(scene).ok);
  const auto move = [&](std::size_t count) {
    for (const Handle h : sample(scene.live(), count, rng)) scene.set_box(h, scenes::nudged(rng, scene.model.boxes.at(h), 0.5f));
  };
  for (int round = 0; round < kRounds; ++round) {
    for (const Kind kind : kKinds) {
      SCOPED_TRACE(::testing::Message() << "round " << round << ", kind " << static_cast<int>(kind));
      Step step = Step::update;
      int threads = 1;
      switch (kind) {
        case Kind::nothing: break;
        case Kind::few_moved: move(10); break;
        case Kind::many_moved: move(kObjects / 3); break;
        case Kind::create_remove:
          for (const Handle h : sample(scene.live(), 60, rng)) scene.remove(h);
          for (int k = 0; k < 60; ++k) scene.create(scenes::box_in_cube(rng, side, kEdges));
          break;
        case Kind::filters:
          for (const Handle h : sample(scene.live(), 100, rng)) scene.set_filter(h, Filter{1u << rng.below(3), ~0u << rng.below(3)});
          break;
        case Kind::set_box_then_query:
          move(200);
          check_queries_from_threads(scene, static_cast<std::uint64_t>(scene.steps) * 2 + 1, "after set_box, before the update");
          if (HasFatalFailure()) return;
          break;
        case Kind::queries_only:
          move(30);
          step = Step::queries_only;
          break;
        case Kind::two_threads:
          move(200);
          threads = 2;
          break;
        case Kind::busy:
          for (const Handle h : scene.live()) scene.set_box(h, scenes::box_in_cube(rng, side, kEdges));
          break;
        case Kind::batch_join:
          for (const Handle h : sample(scene.live(), 400, rng)) scene.remove(h);
          for (int k = 0; k < 400; ++k) scene.create(scenes::box_in_cube(rng, side, kEdges));
          break;
      }
      ASSERT_TRUE(check_step(scene, step, threads).ok);
      // The step was of its kind: everything moves after a busy one; a batch joins at rest.
      if (kind == Kind::busy) {
        EXPECT_EQ(scene.bp.stats().moving, scene.bp.stats().objects);
      } else if (kind == Kind::batch_join) {
        EXPECT_GE(scene.bp.stats().resting, 400u);
      }
      check_queries_from_threads(scene, static_cast<std::uint64_t>(scene.steps) * 2, "after the update");
      if (HasFatalFailure()) return;
    }
  }
  expect_activity(scene);
}

// 7. Boxes at an infinity on one axis or several, infinite both ways, at +-FLT_MAX and +-1e18,
// among ordinary boxes: created, left alone for 35 updates (any resting structure takes them),
// moved, moved back, left alone again, removed; with fat margins 0, the default and 1. Each
// object's own box must find it (a box overlaps itself) every step.
std::vector<Box> boxes_at_infinity() {
  constexpr float kMax = FLT_MAX;
  return {
      {{-4, -kInf, -kInf}, {2.5f, 1.5f, -kInf}},  // z at -inf only, y down to -inf
      {{0, 0, -kInf}, {1, 1, -kInf}},             // z at -inf: pairs with the first
      {{-kInf, 0, 0}, {kInf, 1, 1}},              // infinite both ways on x
      {{0, kInf, 0}, {1, kInf, 1}},               // y at +inf
      {{0, kInf, 0}, {kInf, kInf, kInf}},         // up to +inf on x and z, at +inf on y: pairs with the one above
      {{-kInf, 2, kInf}, {-kInf, 3, kInf}},       // x at -inf, z at +inf
      {{kInf, kInf, kInf}, {kInf, kInf, kInf}},   // the point at +inf
      {{-kInf, -kInf, -kInf}, {kInf, kInf, kInf}},  // all of space
      {{2, -kInf, 2}, {3, kInf, 3}},                // a rod through the scene along y
      {{-kInf, -kInf, 5}, {kInf, kInf, 5}},         // the plane z = 5
      {{-kMax, -kMax, -kMax}, {kMax, kMax, kMax}},
      {{-kMax, 0, 0}, {kMax, 1, 1}},
      {{kMax, 0, 0}, {kInf, 1, 1}},
      {{-kInf, -kMax, 0}, {-kMax, kMax, 1}},
      {{-1e18f, -1e18f, -1e18f}, {1e18f, 1e18f, 1e18f}},
      {{-1e18f, -1, -1e18f}, {1e18f, 0, 1e18f}},  // Bullet's static ground plane
      {{1e18f, 1e18f, 1e18f}, {1e18f, 1e18f, 1e18f}},
  };
}

void run_boxes_at_infinity(float fat_margin) {
  SCOPED_TRACE(::testing::Message() << "fat margin " << fat_margin);
  constexpr std::uint32_t kOrdinary = 300;
  constexpr std::uint32_t kMovers = 10;
  constexpr int kMove = 35;
  constexpr int kMoveBack = 38;
  constexpr int kRemove = 75;
  constexpr int kSteps = 80;
  constexpr float kSide = 20;
  Config config;
  config.fat_margin = fat_margin;
  Scene scene(config);
  Rng rng(707);
  const std::vector<Handle> ordinary = populate(scene, rng, kOrdinary, kSide);
  const std::vector<Handle> movers(ordinary.begin(), ordinary.begin() + kMovers);
  std::vector<Box> specials = boxes_at_infinity();
  const std::vector<Box> extreme = scenes::extreme_boxes(Box{{0, 0, 0}, {kSide, kSide, kSide}});
  specials.insert(specials.end(), extreme.begin(), extreme.end());
  std::vector<Handle> special_handles;
  for (const Box& b : specials) special_handles.push_back(scene.create(b));
  for (int step = 0; step < kSteps; ++step) {
    if (step > 0) {
      for (const Handle h : movers) scene.set_box(h, scenes::nudged(rng, scene.model.boxes.at(h), 0.3f));
    }
    for (std::size_t i = 0; i < specials.size(); ++i) {
      if (step == kMove) scene.set_box(special_handles[i], scenes::moved(specials[i], {3, -2, 1}));
      if (step == kMoveBack) scene.set_box(special_handles[i], specials[i]);
      if (step == kRemove) scene.remove(special_handles[i]);
    }
    const Checked c = check_step(scene);
    ASSERT_TRUE(c.ok) << "step " << step;
  }
  expect_activity(scene);
}

TEST(BroadphaseIncremental, BoxesAtAnInfinity) {
  for (const float margin : {0.0f, Config{}.fat_margin, 1.0f}) run_boxes_at_infinity(margin);
}

// 8. The 1% scene on 1, 2 and 4 threads, with the tree of grids used from 1,000 boxes: every
// update reports the same began and ended lists.
TEST(BroadphaseIncremental, SameResultsOnAnyThreadCount) {
  Config config;
  config.tree_min_boxes = 1000;
  config.tree_task_entries = 256;
  const std::vector<PairChanges> one = run_one_percent(config, 1);
  for (const int threads : {2, 4}) {
    const std::vector<PairChanges> many = run_one_percent(config, threads);
    ASSERT_EQ(many.size(), one.size()) << threads << " threads";
    for (std::size_t i = 0; i < one.size(); ++i) {
      ASSERT_TRUE(same_pairs(one[i].began, many[i].began)) << threads << " threads, update " << i << ", began";
      ASSERT_TRUE(same_pairs(one[i].ended, many[i].ended)) << threads << " threads, update " << i << ", ended";
    }
  }
}

}  // namespace
}  // namespace agrid::test
