#include "first_touch.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>

namespace randtensor_torch {
namespace {

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels answer EINVAL
#endif

constexpr uintptr_t kPage = 4096;
constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
// Smaller fills are mostly not whole huge pages.
constexpr size_t kMinBytes = size_t{16} << 20;

std::atomic<bool> ask{false};

}  // namespace

void SetHugePages(bool new_ask) { ask.store(new_ask, std::memory_order_relaxed); }

void PrepareFirstTouch(void* data, size_t bytes, unsigned threads) {
  if (bytes < kMinBytes) return;
  const auto start = reinterpret_cast<uintptr_t>(data);
  if (ask.load(std::memory_order_relaxed)) {
    const uintptr_t first = (start + kHugePage - 1) & ~(kHugePage - 1);
    const uintptr_t last = (start + bytes) & ~(kHugePage - 1);
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
  }
  if (threads == 1) {
    const uintptr_t first = (start + kPage - 1) & ~(kPage - 1);
    const uintptr_t last = (start + bytes) & ~(kPage - 1);
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
  }
}

}  // namespace randtensor_torch
