// The library's own thread pool (see thread_pool.h).
//
// Workers are started on first use and live for the whole process (the pool
// is deliberately never destroyed, so no exit-time ordering can bite). A job
// is one (task, context, count); the caller and up to threads - 1 workers
// pull task indices from one atomic counter, so uneven tasks balance out.

#include "src/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace randtensor {
namespace detail {
namespace {

class Pool {
 public:
  explicit Pool(uint32_t workers) {
    // Fewer workers (even none) if the system refuses threads: fills still
    // run, on the caller's thread.
    try {
      threads_.reserve(workers);
      for (uint32_t i = 0; i < workers; ++i) {
        threads_.emplace_back([this, i] { WorkerLoop(i); });
      }
    } catch (...) {
    }
  }

  uint32_t workers() const { return static_cast<uint32_t>(threads_.size()); }

  // Returns false, doing nothing, when another caller holds the pool.
  bool TryRun(uint32_t count, uint32_t threads, TaskFn task, void* context) {
    std::unique_lock<std::mutex> job_lock(job_mutex_, std::try_to_lock);
    if (!job_lock.owns_lock()) return false;
    const uint32_t helpers = std::min(threads - 1, workers());
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = task;
      context_ = context;
      count_ = count;
      next_.store(0, std::memory_order_relaxed);
      helpers_ = helpers;
      busy_ = helpers;
      ++generation_;
    }
    wake_.notify_all();
    Work();  // the caller works too
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return busy_ == 0; });
    return true;
  }

 private:
  void Work() {
    for (;;) {
      const uint32_t i = next_.fetch_add(1, std::memory_order_relaxed);
      if (i >= count_) return;
      task_(context_, i);
    }
  }

  void WorkerLoop(uint32_t id) {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (id >= helpers_) continue;  // not needed for this job
      }
      Work();
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) done_.notify_one();
    }
  }

  std::mutex job_mutex_;  // one job at a time
  std::mutex mutex_;      // guards the fields below
  std::condition_variable wake_, done_;
  uint64_t generation_ = 0;
  uint32_t helpers_ = 0, busy_ = 0;
  TaskFn task_ = nullptr;
  void* context_ = nullptr;
  uint32_t count_ = 0;
  std::atomic<uint32_t> next_{0};
  std::vector<std::thread> threads_;
};

// Leaked on purpose: workers may still be parked when the process exits.
// nullptr if even the pool object could not be allocated.
Pool* GetPool() {
  static Pool* pool = [] {
    try {
      return new Pool(DefaultThreadCount() - 1);
    } catch (...) {
      return static_cast<Pool*>(nullptr);
    }
  }();
  return pool;
}

}  // namespace

uint32_t DefaultThreadCount() noexcept {
  static const uint32_t n = std::max(1u, std::thread::hardware_concurrency());
  return n;
}

void RunTasks(const ParallelFor& host, uint32_t count, uint32_t threads, TaskFn task,
              void* context) noexcept {
  if (count <= 1 || threads <= 1) {
    for (uint32_t i = 0; i < count; ++i) task(context, i);
    return;
  }
  if (host.fn != nullptr) {
    host.fn(host.context, count, threads, task, context);
    return;
  }
  Pool* pool = GetPool();
  if (pool == nullptr || !pool->TryRun(count, threads, task, context)) {
    for (uint32_t i = 0; i < count; ++i) task(context, i);
  }
}

}  // namespace detail
}  // namespace randtensor
