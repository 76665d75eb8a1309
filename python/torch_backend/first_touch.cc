#include "first_touch.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>

namespace randtensor_torch {
namespace {

constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
// Smaller fills are mostly not whole huge pages.
constexpr size_t kMinBytes = size_t{16} << 20;

std::atomic<bool> ask{false};

}  // namespace

void SetHugePages(bool new_ask) { ask.store(new_ask, std::memory_order_relaxed); }

void PrepareFirstTouch(void* data, size_t bytes) {
  if (bytes < kMinBytes || !ask.load(std::memory_order_relaxed)) return;
  const auto start = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = (start + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t last = (start + bytes) & ~(kHugePage - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

}  // namespace randtensor_torch
