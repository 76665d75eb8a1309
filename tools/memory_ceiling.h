// The memory ceiling the main job compares randtensor against: how fast this
// machine can write a large buffer at all, with streaming (non-temporal)
// stores on every thread, as the benchmarks' "streaming-store fill" does.
#ifndef RANDTENSOR_TOOLS_MEMORY_CEILING_H_
#define RANDTENSOR_TOOLS_MEMORY_CEILING_H_

#include <cstddef>
#include <cstdint>

namespace randtensor_cli {

// Writes `bytes` (a multiple of 64) at `data` (64-byte aligned) with a
// constant, cut into `threads` contiguous parts written at once.
void StreamingFill(void* data, size_t bytes, uint32_t threads);

// The memory ceiling: randtensor and a plain streaming-store fill of the same
// large buffer (larger than the caches) on all threads, each the median of a
// few calls after a warm-up that also takes the page faults.
struct CeilingResult {
  uint64_t bytes = 0;
  uint32_t threads = 0;
  double randtensor_gbps = 0, streaming_gbps = 0;
};

// Measures both on a buffer larger than the caches. Fails (status 1) when the
// buffer cannot be had.
CeilingResult MeasureCeiling();

}  // namespace randtensor_cli

#endif  // RANDTENSOR_TOOLS_MEMORY_CEILING_H_
