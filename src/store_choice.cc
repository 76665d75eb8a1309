// The automatic store mode (see store_choice.h).
#include "src/store_choice.h"

#include <algorithm>

#include <sys/mman.h>
#include <unistd.h>

namespace randtensor {
namespace detail {
namespace {

class SpinLock {
 public:
  explicit SpinLock(std::atomic_flag& flag) : flag_(flag) {
    while (flag_.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~SpinLock() { flag_.clear(std::memory_order_release); }
  SpinLock(const SpinLock&) = delete;
  SpinLock& operator=(const SpinLock&) = delete;

 private:
  std::atomic_flag& flag_;
};

}  // namespace

StoreChooser::Cell& StoreChooser::At(const StoreKey& key) noexcept {
  const uint32_t t = std::min(std::max(key.threads, uint32_t{1}), kMaxThreads) - 1;
  return cells_[key.fresh][key.tiles][std::min(key.size_class, kStoreSizeClasses - 1)][t];
}

bool StoreChooser::Streaming(const StoreKey& key) noexcept {
  SpinLock hold(lock_);
  Cell& c = At(key);
  const uint64_t fill = c.fills++;
  if (c.rate[1] == 0) return true;  // streaming first: the usual winner
  if (c.rate[0] == 0) {
    c.last_retry = fill;
    return false;
  }
  const bool streaming_better = c.rate[1] >= c.rate[0];
  const double gap = std::min(c.rate[0], c.rate[1]) / std::max(c.rate[0], c.rate[1]);
  const uint64_t every = gap < kClearGap ? kRetryClear : kRetryClose;
  if (fill - c.last_retry >= every) {
    c.last_retry = fill;
    return !streaming_better;
  }
  return streaming_better;
}

void StoreChooser::Record(const StoreKey& key, bool streaming, double rate) noexcept {
  if (!(rate > 0)) return;
  SpinLock hold(lock_);
  double& r = At(key).rate[streaming];
  r = r == 0 ? rate : (r + rate) / 2;
}

StoreChooser& HostStores() noexcept {
  static StoreChooser chooser;
  return chooser;
}

bool PageIsFresh(const void* p) noexcept {
  static const uintptr_t page = [] {
    const long size = sysconf(_SC_PAGESIZE);
    return size > 0 ? static_cast<uintptr_t>(size) : uintptr_t{4096};
  }();
  unsigned char resident = 1;
  void* start = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(p) & ~(page - 1));
  if (mincore(start, page, &resident) != 0) return false;
  return (resident & 1) == 0;
}

}  // namespace detail
}  // namespace randtensor
