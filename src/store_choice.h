// Streaming or regular stores for outputs larger than the caches
// (StoreMode::kAuto): chosen from what this host did, not assumed.
//
// Which mode writes a large output faster depends on the CPU, on how many
// threads write and on whether the output's pages are new: on the Intel Xeon
// we measure, streaming stores win on mapped memory (1.2x on one thread, 2.2x
// on 16) and regular stores on freshly mapped memory (1.1-1.3x); on AMD Zen 4
// regular stores win on one thread and tie on two; on Zen 5 regular stores win
// by up to 1.7x (benchmarks/RESULTS.md, "Store modes"). No rule from cache
// sizes or CPU vendor holds on every host, so the writer times each large
// automatic fill and records its rate here, under a key of what changes the
// answer: the threads writing, whether the output's first page is fresh (not
// yet mapped in), rows or transposed tiles, and the output's size, by
// factors of 4 (the winner can change with the size at one thread count:
// benchmarks/RESULTS.md, "Store modes"). The next fill with that key
// takes the mode with the better rate. Each mode is tried once first
// (streaming first). The other mode is tried again every kRetryClose fills
// while the two rates are within kClearGap of each other, and every
// kRetryClear fills once one is clearly worse, so that a choice made from a
// noisy fill is revisited soon while a much worse mode costs at most one fill
// in kRetryClear.
//
// Values never depend on the store mode: this changes only speed.
#ifndef RANDTENSOR_SRC_STORE_CHOICE_H_
#define RANDTENSOR_SRC_STORE_CHOICE_H_

#include <atomic>
#include <cstdint>

namespace randtensor {
namespace detail {

struct StoreKey {
  uint32_t threads = 1;  // the threads that write (tasks running at once)
  bool fresh = false;    // the output's first page was not yet mapped in
  bool tiles = false;    // transposed tiles rather than rows
  uint32_t size_class = 0;  // StoreSizeClass of the output's bytes
};

// The output's size class: 0 below 128 MiB, 1 below 512 MiB, 2 below
// 2 GiB, 3 from there (the automatic mode decides only outputs larger than
// the caches, at least a few MiB).
constexpr uint32_t kStoreSizeClasses = 4;
constexpr uint32_t StoreSizeClass(uint64_t bytes) {
  uint32_t c = 0;
  for (uint64_t limit = uint64_t{128} << 20; c + 1 < kStoreSizeClasses && bytes >= limit;
       limit *= 4) {
    ++c;
  }
  return c;
}

class StoreChooser {
 public:
  static constexpr uint32_t kMaxThreads = 64;  // more threads share one record
  static constexpr uint64_t kRetryClose = 32;
  static constexpr uint64_t kRetryClear = 256;
  static constexpr double kClearGap = 0.8;  // worse rate below this x better

  // The mode for the next fill with this key: true for streaming stores.
  bool Streaming(const StoreKey& key) noexcept;
  // What a fill with this key did in that mode (bytes per second, > 0).
  void Record(const StoreKey& key, bool streaming, double rate) noexcept;

 private:
  struct Cell {
    double rate[2] = {0, 0};  // [regular, streaming]: recent rates, smoothed; 0: untried
    uint64_t fills = 0;       // choices made for this key
    uint64_t last_retry = 0;  // the fill that last tried the worse mode
  };
  Cell& At(const StoreKey& key) noexcept;

  // A spin lock: a choice takes nanoseconds, once per fill of 32 MiB or more.
  std::atomic_flag lock_ = ATOMIC_FLAG_INIT;
  Cell cells_[2][2][kStoreSizeClasses][kMaxThreads];
};

// The process's chooser, used by every fill.
StoreChooser& HostStores() noexcept;

// Whether the page holding `p` is not yet backed by memory (a fresh mapping
// that the fill will first-touch); false where the system cannot tell.
bool PageIsFresh(const void* p) noexcept;

}  // namespace detail
}  // namespace randtensor

#endif  // RANDTENSOR_SRC_STORE_CHOICE_H_
