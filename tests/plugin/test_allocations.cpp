// "After warm-up, a frame of the same size allocates nothing" (design.md): count calls to the
// global operator new during warm frames of the same input, on one thread (with more threads,
// which thread warms which scratch buffer is up to the scheduler).

#include <gtest/gtest.h>

#include <tbb/task_arena.h>

#include <atomic>
#include <functional>
#include <cstdlib>
#include <new>
#include <vector>

#include "agrid/agrid.h"
#include "agrid_scenes/scenes.h"
#include "support/test_support.h"

namespace {

std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};

void* counted_alloc(std::size_t size, std::size_t alignment) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (size == 0) size = 1;
  void* p = nullptr;
  if (alignment <= alignof(std::max_align_t)) {
    p = std::malloc(size);
  } else {
    p = std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  }
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

void* operator new(std::size_t size) { return counted_alloc(size, 0); }
void* operator new(std::size_t size, std::align_val_t a) {
  return counted_alloc(size, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace agrid::test {
namespace {

long allocations_in(const std::function<void()>& work) {
  g_allocations.store(0);
  g_counting.store(true);
  work();
  g_counting.store(false);
  return g_allocations.load();
}

TEST(Allocations, CounterWorks) {
  // The counter sees ordinary allocations (else the test below could not fail).
  EXPECT_GT(allocations_in([] {
              std::vector<int> v(1000);
              v.push_back(1);
            }),
            0);
}

TEST(Allocations, WarmFrameOfSameInputAllocatesNothing) {
  const std::vector<std::vector<Box>> scenes_to_try = {
      random_scene(20000, Density::kMedium, 1),
      scenes::make_scene("huge-and-infinite", 1.0, 1).boxes,
      scenes::make_scene("bad-input", 1.0, 1).boxes,
      scenes::make_scene("all-identical", 0.5, 1).boxes,
      scenes::make_scene("tiny-cluster", 1.0, 1).boxes,
  };
  tbb::task_arena one_thread(1);
  for (const auto& boxes : scenes_to_try) {
    SCOPED_TRACE(::testing::Message() << boxes.size() << " boxes");
    for (const Config& config : some_configs()) {
      SCOPED_TRACE(name(config));
      one_thread.execute([&] {
        Grid grid(config);
        std::vector<Pair> pairs;
        const auto frame = [&] {
          grid.build(boxes);
          grid.find_pairs(pairs);
        };
        frame();  // warm-up
        frame();
        EXPECT_EQ(allocations_in(frame), 0) << "a warm frame of the same input allocated";
      });
    }
  }
}

TEST(Allocations, WarmTreeFrameOfSameInputAllocatesNothing) {
  // The tree keeps its scratch per task and per worker: with one worker, which one warms what is
  // fixed, so a warm frame must not allocate at all.
  const std::vector<std::vector<Box>> scenes_to_try = {
      random_scene(20000, Density::kMedium, 1),
      scenes::make_scene("paper-1M-dense", 0.05, 1).boxes,
      scenes::make_scene("teapot-stadium-500k", 0.05, 1).boxes,
      scenes::make_scene("huge-and-infinite", 1.0, 1).boxes,
      scenes::make_scene("bad-input", 1.0, 1).boxes,
  };
  tbb::task_arena one_thread(1);
  for (const auto& boxes : scenes_to_try) {
    SCOPED_TRACE(::testing::Message() << boxes.size() << " boxes");
    for (const std::uint32_t tree_task_entries : {64u, Config{}.tree_task_entries}) {
      Config config;
      config.tree_task_entries = tree_task_entries;
      SCOPED_TRACE(::testing::Message() << "tree_task_entries " << tree_task_entries);
      one_thread.execute([&] {
        Tree tree(config);
        std::vector<Pair> pairs;
        const auto frame = [&] {
          tree.build(boxes);
          tree.find_pairs(pairs);
        };
        frame();  // warm-up
        frame();
        EXPECT_EQ(allocations_in(frame), 0) << "a warm tree frame of the same input allocated";
        EXPECT_GT(tree.stats().tasks, 0u);
      });
    }
  }
}

}  // namespace
}  // namespace agrid::test
