// Threading: the parallel-for hook a host framework plugs its thread pool into.
//
// A fill is cut into tasks that each own a disjoint range of Philox counters,
// so tasks never share state and the values never depend on how many run at
// once. The library runs them on its own small pool unless the caller passes a
// ParallelFor (PyTorch's at::parallel_for, ONNX Runtime's pool, ...).
#ifndef RANDTENSOR_PARALLEL_H_
#define RANDTENSOR_PARALLEL_H_

#include <cstdint>

#include "randtensor/export.h"

namespace randtensor {

// A task: run piece `index` of a fill. Never throws.
using TaskFn = void (*)(void* task_context, uint32_t index);

// Must call task(task_context, i) exactly once for every i in [0, count), in
// any order and on any threads, and return only when all calls have returned.
// `max_threads` is the caller's cap (FillOptions::threads); a hook may use fewer.
using ParallelForFn = void (*)(void* pool_context, uint32_t count, uint32_t max_threads,
                               TaskFn task, void* task_context);

struct ParallelFor {
  ParallelForFn fn = nullptr;  // nullptr: the library's own pool
  void* context = nullptr;     // passed back as pool_context
};

// Process-wide defaults, for hosts that install their pool once (as
// torch.set_num_threads does) instead of passing it to every fill. A fill's
// own FillOptions::threads / FillOptions::parallel_for take precedence.

// Threads a fill uses when FillOptions::threads is 0. 0 restores the
// library's choice: all hardware threads.
RANDTENSOR_API void SetDefaultThreads(uint32_t threads) noexcept;
RANDTENSOR_API uint32_t DefaultThreads() noexcept;

// The pool fills use when FillOptions::parallel_for is empty. An empty
// ParallelFor restores the library's own pool.
RANDTENSOR_API void SetDefaultParallelFor(ParallelFor parallel_for) noexcept;
RANDTENSOR_API ParallelFor DefaultParallelFor() noexcept;

}  // namespace randtensor

#endif  // RANDTENSOR_PARALLEL_H_
