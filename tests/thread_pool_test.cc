// The library pool (src/thread_pool.cc) on its own: every task of every job
// runs exactly once and the job is complete when RunTasks returns, whether
// the helpers are spinning, asleep (their offers taken back when the caller
// finishes first) or busy with another caller's job. Run under
// ThreadSanitizer too (scripts/sanitize.sh thread: the PoolStress tests).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "src/thread_pool.h"

namespace {

using randtensor::detail::RunTasks;

struct Job {
  std::vector<std::atomic<uint32_t>> runs;
  std::atomic<uint32_t> total{0};
  uint32_t spin = 0;  // busy work per task, to let helpers join
  explicit Job(uint32_t count) : runs(count) {}
};

void CountTask(void* context, uint32_t i) {
  Job& job = *static_cast<Job*>(context);
  volatile uint32_t sink = 0;
  for (uint32_t k = 0; k < job.spin; ++k) sink = sink + k;
  job.runs[i].fetch_add(1, std::memory_order_relaxed);
  job.total.fetch_add(1, std::memory_order_relaxed);
}

// Runs one job and checks it: all tasks done exactly once on return.
void RunAndCheck(uint32_t count, uint32_t threads, uint32_t spin) {
  Job job(count);
  job.spin = spin;
  RunTasks(randtensor::ParallelFor{}, count, threads, CountTask, &job);
  ASSERT_EQ(job.total.load(), count) << "count " << count << " threads " << threads;
  for (uint32_t i = 0; i < count; ++i) ASSERT_EQ(job.runs[i].load(), 1u) << "task " << i;
}

TEST(PoolStress, EveryTaskOnceWithHelpersHotAndAsleep) {
  const uint32_t threads = std::max(2u, std::thread::hardware_concurrency());
  for (int round = 0; round < 300; ++round) {
    const uint32_t count = 1 + static_cast<uint32_t>(round * 7 % 97);
    // Every third job after a pause longer than the workers spin: they are
    // asleep, and the caller may finish before any wakes.
    if (round % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(400));
    RunAndCheck(count, threads, round % 2 == 0 ? 0 : 2000);
  }
}

TEST(PoolStress, ConcurrentCallersEachGetTheirOwnJob) {
  // A caller that finds the pool busy runs its tasks inline; either way each
  // of its jobs is complete and separate from the others'.
  const uint32_t threads = std::max(2u, std::thread::hardware_concurrency());
  std::vector<std::thread> callers;
  std::atomic<bool> failed{false};
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < 150; ++round) {
        const uint32_t count = 1 + static_cast<uint32_t>((round + 13 * c) % 61);
        Job job(count);
        job.spin = round % 2 == 0 ? 0 : 1000;
        RunTasks(randtensor::ParallelFor{}, count, threads, CountTask, &job);
        bool ok = job.total.load() == count;
        for (uint32_t i = 0; i < count; ++i) ok = ok && job.runs[i].load() == 1;
        if (!ok) failed = true;
        if (round % 10 == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_FALSE(failed.load());
}

TEST(PoolStress, OneThreadOrOneTaskRunsInline) {
  const std::thread::id caller = std::this_thread::get_id();
  struct Where {
    std::thread::id caller;
    std::atomic<int> elsewhere{0};
  } where{caller, {}};
  const auto task = [](void* context, uint32_t) {
    auto& w = *static_cast<Where*>(context);
    if (std::this_thread::get_id() != w.caller) w.elsewhere.fetch_add(1);
  };
  RunTasks(randtensor::ParallelFor{}, 50, 1, task, &where);
  RunTasks(randtensor::ParallelFor{}, 1, 8, task, &where);
  EXPECT_EQ(where.elsewhere.load(), 0);
}

}  // namespace
