// The library's own thread pool (see thread_pool.h).
//
// Workers are started on first use and live for the whole process (the pool
// is deliberately never destroyed, so no exit-time ordering can bite). A job
// is one (task, context, count); the caller and up to threads - 1 workers
// pull task indices from one atomic counter, so uneven tasks balance out.
//
// Waking a sleeping thread costs tens of microseconds, as much as a whole
// 1 MiB fill, and on a loaded machine a woken thread may wait much longer for
// a core. So after each job workers spin for a short while (kSpinNanos)
// watching for the next one before they go to sleep on a condition variable,
// and a job is only *offered* to each helper: a helper takes the offer when it
// wakes, and once the caller has claimed every task itself it takes back the
// offers nobody took yet, so it waits only for helpers that are really
// running a task, never for one that is still waking up.

#include "src/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <pthread.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RANDTENSOR_PAUSE() _mm_pause()
#else
#define RANDTENSOR_PAUSE() std::this_thread::yield()
#endif

namespace randtensor {
namespace detail {
namespace {

constexpr int64_t kSpinNanos = 200 * 1000;  // 0.2 ms of spinning, then sleep

// Spins until pred() holds or the spin budget runs out; returns pred().
// Every 16th turn yields the core: the thread we wait for may be queued on
// this very core (a woken worker is often placed on its waker's CPU, and in
// virtual machines an idle vCPU looks busy to the scheduler), and a spin
// that never yields would keep it from running until the time slice ends.
template <class Pred>
bool SpinUntil(const Pred& pred) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0;; ++i) {
    if (pred()) return true;
    if ((i & 15) == 15) {
      std::this_thread::yield();
    } else {
      RANDTENSOR_PAUSE();
    }
    if ((i & 255) == 255 &&
        std::chrono::steady_clock::now() - start > std::chrono::nanoseconds(kSpinNanos)) {
      return pred();
    }
  }
}

class Pool {
 public:
  // `previous`: the pool this process inherited through fork (its threads
  // did not survive), kept reachable so that leak checkers see no leak.
  Pool(uint32_t workers, Pool* previous) : previous_(previous) {
    // Fewer workers (even none) if the system refuses threads: fills still
    // run, on the caller's thread.
    try {
      slots_.reset(new std::atomic<uint64_t>[workers]);
      starts_.reset(new Start[workers]);
      threads_.reserve(workers);
    } catch (...) {
      return;
    }
    for (uint32_t i = 0; i < workers; ++i) slots_[i].store(Slot(0, kIdle));
    // pthreads rather than std::thread: a std::thread allocates its
    // callable's state and hands it to the new thread, where it lives until
    // the thread ends, which a parked worker never does; leak checkers then
    // report it in the programs that link randtensor. Here each worker's
    // start argument is this pool's own array, reachable from the pool.
    for (uint32_t i = 0; i < workers; ++i) {
      starts_[i] = Start{this, i};
      pthread_t thread;
      if (pthread_create(&thread, nullptr, &Pool::WorkerMain, &starts_[i]) != 0) break;
      threads_.push_back(thread);  // reserved: cannot throw
    }
  }

  uint32_t workers() const { return static_cast<uint32_t>(threads_.size()); }

  // Returns false, doing nothing, when another caller holds the pool.
  bool TryRun(uint32_t count, uint32_t threads, TaskFn task, void* context) {
    std::unique_lock<std::mutex> job_lock(job_mutex_, std::try_to_lock);
    if (!job_lock.owns_lock()) return false;
    const uint32_t helpers = std::min({threads - 1, count - 1, workers()});  // count >= 2
    task_ = task;
    context_ = context;
    count_ = count;
    next_.store(0, std::memory_order_relaxed);
    busy_.store(helpers, std::memory_order_relaxed);
    // The release stores publish the fields above to the helper that takes
    // the offer (acquire in its compare-exchange).
    ++job_;
    const uint64_t offer = Slot(job_, kOffered);
    for (uint32_t w = 0; w < helpers; ++w) slots_[w].store(offer, std::memory_order_release);
    {
      std::lock_guard<std::mutex> lock(mutex_);  // no sleeper misses the notify
    }
    wake_.notify_all();
    Work();  // the caller works too; when it returns, every task is claimed
    // Take back the offers not yet taken: those helpers never touch this job.
    uint32_t revoked = 0;
    for (uint32_t w = 0; w < helpers; ++w) {
      uint64_t expected = offer;
      revoked += slots_[w].compare_exchange_strong(expected, Slot(job_, kIdle),
                                                   std::memory_order_acq_rel) ? 1u : 0u;
    }
    if (busy_.fetch_sub(revoked, std::memory_order_acq_rel) != revoked &&
        !SpinUntil([this] { return busy_.load(std::memory_order_acquire) == 0; })) {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [this] { return busy_.load(std::memory_order_acquire) == 0; });
    }
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

  struct Start {
    Pool* pool;
    uint32_t id;
  };

  static void* WorkerMain(void* start) {
    const Start& s = *static_cast<const Start*>(start);
    s.pool->WorkerLoop(s.id);
    return nullptr;
  }

  void WorkerLoop(uint32_t id) {
    std::atomic<uint64_t>& slot = slots_[id];
    for (;;) {
      const auto offered = [&] { return (slot.load(std::memory_order_acquire) & 3) == kOffered; };
      if (!SpinUntil(offered)) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, offered);
      }
      // Take the offer unless the caller took it back (or replaced it) first.
      uint64_t offer = slot.load(std::memory_order_acquire);
      if ((offer & 3) != kOffered ||
          !slot.compare_exchange_strong(offer, (offer & ~uint64_t{3}) | kRunning,
                                        std::memory_order_acq_rel)) {
        continue;
      }
      Work();
      if (busy_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mutex_);  // pairs with the caller's wait
        done_.notify_one();
      }
    }
  }

  // A helper's slot: the job number and its state (low two bits).
  enum : uint64_t { kIdle = 0, kOffered = 1, kRunning = 2 };
  static uint64_t Slot(uint64_t job, uint64_t state) { return job << 2 | state; }

  std::mutex job_mutex_;  // one job at a time
  std::mutex mutex_;      // sleeping and waking
  std::condition_variable wake_, done_;
  std::unique_ptr<std::atomic<uint64_t>[]> slots_;  // per worker: Slot(job, state)
  std::atomic<uint32_t> busy_{0};  // helpers offered this job and not yet done or revoked
  // The current job; written only while no helper runs one.
  uint64_t job_ = 0;
  TaskFn task_ = nullptr;
  void* context_ = nullptr;
  uint32_t count_ = 0;
  std::atomic<uint32_t> next_{0};
  std::unique_ptr<Start[]> starts_;  // the workers' start arguments
  std::vector<pthread_t> threads_;
  [[maybe_unused]] Pool* previous_;  // only to stay reachable
};

// The pool of this process. Leaked on purpose: workers may still be parked
// when the process exits. A forked child (PyTorch DataLoader workers, say)
// inherits the pool object but none of its threads, so it gets a new pool.
// nullptr if even the pool object could not be allocated.
Pool* GetPool() {
  static std::mutex mutex;
  static Pool* pool = nullptr;
  static pid_t owner = 0;
  const pid_t pid = getpid();
  std::lock_guard<std::mutex> lock(mutex);
  if (pool == nullptr || owner != pid) {
    try {
      pool = new Pool(HardwareThreadCount() - 1, pool);
      owner = pid;
    } catch (...) {
      pool = nullptr;
    }
  }
  return pool;
}

}  // namespace

uint32_t HardwareThreadCount() noexcept {
  static const uint32_t n = std::max(1u, std::thread::hardware_concurrency());
  return n;
}

namespace {

std::atomic<uint32_t> g_default_threads{0};  // 0: HardwareThreadCount()
std::mutex g_default_pool_mutex;               // guards the two pointers below
ParallelFor g_default_pool;

}  // namespace

void RunTasks(const ParallelFor& host, uint32_t count, uint32_t threads, TaskFn task,
              void* context) noexcept {
  if (count <= 1 || threads <= 1) {
    for (uint32_t i = 0; i < count; ++i) task(context, i);
    return;
  }
  const ParallelFor hook = host.fn != nullptr ? host : DefaultParallelFor();
  if (hook.fn != nullptr) {
    hook.fn(hook.context, count, threads, task, context);
    return;
  }
  Pool* pool = GetPool();
  if (pool == nullptr || !pool->TryRun(count, threads, task, context)) {
    for (uint32_t i = 0; i < count; ++i) task(context, i);
  }
}

}  // namespace detail

void SetDefaultThreads(uint32_t threads) noexcept {
  detail::g_default_threads.store(threads, std::memory_order_relaxed);
}

uint32_t DefaultThreads() noexcept {
  const uint32_t n = detail::g_default_threads.load(std::memory_order_relaxed);
  return n != 0 ? n : detail::HardwareThreadCount();
}

void SetDefaultParallelFor(ParallelFor parallel_for) noexcept {
  std::lock_guard<std::mutex> lock(detail::g_default_pool_mutex);
  detail::g_default_pool = parallel_for;
}

ParallelFor DefaultParallelFor() noexcept {
  std::lock_guard<std::mutex> lock(detail::g_default_pool_mutex);
  return detail::g_default_pool;
}

}  // namespace randtensor
