// Determinism across kernels and threads of agrid::Broadphase alone: a seeded random churn
// (objects created, moved, teleported and removed every step) gives the same began and ended
// pairs after every update on every pair kernel this CPU runs and on 1 and 2 threads.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "agrid/broadphase.h"
#include "agrid_scenes/boxes.h"
#include "determinism/determinism.h"
#include "support/random_scenes.h"

namespace agrid::test {
namespace {

constexpr std::uint64_t kSeed = 2026;
constexpr int kUpdates = 120;
/// Objects at the start, in a cube of this side: boxes of sides 1 to 3, about 20 pairs a
/// hundred objects.
constexpr std::uint32_t kObjects = 8000;
constexpr float kWorldSide = 110.0f;
constexpr float kMinSide = 1.0f;
constexpr float kMaxSide = 3.0f;
/// Each update moves this many objects by up to kStepReach on each axis, creates and removes
/// kChurn, and teleports kChurn. The moving set then alternates, kPhaseLength updates each,
/// between a crowd (kCrowd: more than the resting objects / Config::resting_query_cost, so one grid
/// pairs the moving and resting objects) and a few (kFew: each queries the resting tree, in
/// parallel units of 256).
constexpr std::uint32_t kCrowd = 2400;
constexpr std::uint32_t kFew = 300;
constexpr int kPhaseLength = 10;
constexpr std::uint32_t kChurn = 40;
constexpr float kStepReach = 1.5f;

/// As in the Bullet worlds: leaves over 8 entries are swept, and on 2 threads a grid of 1,000
/// boxes or more is the tree of grids, in tasks of about 512 entries.
constexpr std::uint32_t kSweepThreshold = 8;
constexpr std::uint32_t kTreeMinBoxes = 1000;
constexpr std::uint32_t kTaskEntries = 512;

Config churn_config(Kernel kernel) {
  Config config;
  config.kernel = kernel;
  config.sweep_threshold = kSweepThreshold;
  config.tree_min_boxes = kTreeMinBoxes;
  config.tree_task_entries = kTaskEntries;
  return config;
}

Box random_box(Rng& rng) {
  constexpr float kHalf = kWorldSide / 2;
  return scenes::box_in(rng, {-kHalf, -kHalf, -kHalf}, {kHalf, kHalf, kHalf}, {kMinSide, kMaxSide});
}

/// What the churn made the broadphase do, over all runs: so that a hash that agrees is known to
/// cover the paths the kernels and threads change. (Which way an update paired the moving
/// objects is read from its stats, by the broadphase's own rule.)
struct Coverage {
  int crowd_updates = 0;          ///< Updates where one grid paired moving and resting objects.
  int querying_updates = 0;       ///< Updates where the moving objects queried the resting tree.
  std::uint32_t most_moving = 0;  ///< The largest moving set.
  std::uint64_t changes = 0;      ///< Pairs begun and ended, in all.
};

/// A broadphase under a seeded churn: every run makes the same calls in the same order.
class Churn {
 public:
  explicit Churn(const Config& config) : bp_(config), query_cost_(config.resting_query_cost), rng_(kSeed) {
    for (std::uint32_t i = 0; i < kObjects; ++i) live_.push_back(bp_.create(random_box(rng_)));
  }

  /// One update's changes, then the update; its began and ended pairs into `hash`.
  void step(int update, RunningHash& hash, Coverage& coverage) {
    const std::uint32_t movers = (update / kPhaseLength) % 2 == 0 ? kCrowd : kFew;
    for (std::uint32_t i = 0; i < movers; ++i) {
      const Handle h = pick();
      bp_.set_box(h, scenes::nudged(rng_, bp_.box(h), kStepReach));
    }
    for (std::uint32_t i = 0; i < kChurn; ++i) bp_.set_box(pick(), random_box(rng_));
    for (std::uint32_t i = 0; i < kChurn; ++i) {
      const std::size_t at = rng_.below(static_cast<std::uint32_t>(live_.size()));
      bp_.remove(live_[at]);
      live_[at] = live_.back();
      live_.pop_back();
    }
    for (std::uint32_t i = 0; i < kChurn; ++i) live_.push_back(bp_.create(random_box(rng_)));
    const PairChanges& changes = bp_.update();
    add_pairs(changes.began, hash);
    add_pairs(changes.ended, hash);
    note(changes, coverage);
  }

 private:
  Handle pick() { return live_[rng_.below(static_cast<std::uint32_t>(live_.size()))]; }

  static void add_pairs(const std::vector<Pair>& pairs, RunningHash& hash) {
    hash.add(pairs.size());
    for (const Pair& p : pairs) {
      hash.add(p.first);
      hash.add(p.second);
    }
  }

  void note(const PairChanges& changes, Coverage& coverage) const {
    const BroadphaseStats s = bp_.stats();
    const bool querying = static_cast<std::uint64_t>(s.moving) * query_cost_ < s.resting;
    (querying ? coverage.querying_updates : coverage.crowd_updates) += 1;
    coverage.most_moving = std::max(coverage.most_moving, s.moving);
    coverage.changes += changes.began.size() + changes.ended.size();
  }

  Broadphase bp_;
  std::uint32_t query_cost_;  ///< Config::resting_query_cost, by which the broadphase chooses.
  Rng rng_;
  std::vector<Handle> live_;
};

TEST(DeterminismAcrossKernelsAndThreads, BroadphaseRandomChurn) {
  Coverage coverage;
  EXPECT_TRUE(one_hash_for_all_runs([&](const KernelAndThreads& run) {
    Churn churn(churn_config(run.kernel));
    RunningHash hash;
    StepHashes hashes;
    for (int update = 0; update < kUpdates; ++update) {
      churn.step(update, hash, coverage);
      hashes.push_back(hash.value());
    }
    return hashes;
  }));
  // Both ways of pairing the moving objects ran, the tree of grids too, and pairs changed.
  EXPECT_GT(coverage.crowd_updates, 0);
  EXPECT_GT(coverage.querying_updates, 0);
  EXPECT_GE(coverage.most_moving, kTreeMinBoxes);
  EXPECT_GT(coverage.changes, static_cast<std::uint64_t>(kUpdates) * kChurn);
}

}  // namespace
}  // namespace agrid::test
