// Running tasks: inline, on the host's ParallelFor, or on the library's pool.
//
// The default pool is our own (pthreads), not OpenMP or oneTBB: it adds no
// runtime to the user's process (mixing libgomp and libomp in one process,
// as PyTorch users often do, is a known source of crashes and oversubscription),
// and the work here is a flat list of equal tasks that needs nothing more.
#ifndef RANDTENSOR_SRC_THREAD_POOL_H_
#define RANDTENSOR_SRC_THREAD_POOL_H_

#include <cstdint>

#include "randtensor/parallel.h"

namespace randtensor {
namespace detail {

// The hardware threads (the library pool's size, workers plus caller).
uint32_t HardwareThreadCount() noexcept;

// Runs task(context, i) for i in [0, count) on at most `threads` threads and
// returns when all are done. One task or one thread: inline, no handoff.
// `host` non-empty: the host's hook runs them; else the process default set
// by SetDefaultParallelFor; else the library pool, and if another caller holds
// it, this caller runs its tasks inline rather than wait.
void RunTasks(const ParallelFor& host, uint32_t count, uint32_t threads, TaskFn task,
              void* context) noexcept;

}  // namespace detail
}  // namespace randtensor

#endif  // RANDTENSOR_SRC_THREAD_POOL_H_
