// Target selection: compiled tables filtered by the CPU, forced by name.
//
// The choice is one atomic word holding two indices into the compiled table:
// the active target and the one for small fills. It starts as the widest
// supported target, or the one RANDTENSOR_TARGET names (read once, on first
// use). A bad environment name leaves no valid index and remembers why, so
// every fill fails with that reason until SetTarget() picks a valid one.
//
// Small fills: a fill of at most one 8-lane vector of Philox blocks (32
// words) runs on an 8-lane target (AVX2) when the active one is wider
// (AVX-512): the wide vector computes 16 blocks where at most 8 are needed,
// and its longer start-up is not paid back (benchmarks/RESULTS.md, "Small
// fills", gives the crossover). Every target gives the same bits, so only
// the automatic choice does this; a forced target runs every fill.
//
// One CPU feature beyond Highway's targets is read here too: AVX512_BF16,
// whose bfloat16 pack the AVX3 kernels use where the fill allows
// (CpuHasBfloat16Pack; src/pack_bfloat16-inl.h).

#include <atomic>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "hwy/targets.h"
#include "randtensor/targets.h"
#include "src/dispatch.h"

namespace randtensor {
namespace {

constexpr int kNoTarget = -1;

// The choice word: active index in the low byte, small-fill index above it.
constexpr int PackChoice(int active, int small) { return active | (small << 8); }
constexpr int ActiveOf(int choice) { return choice & 0xff; }
constexpr int SmallOf(int choice) { return choice >> 8; }

bool NameEquals(const char* a, const char* b) {
  for (; *a != '\0' && *b != '\0'; ++a, ++b) {
    char x = *a, y = *b;
    if (x >= 'a' && x <= 'z') x = static_cast<char>(x - 'a' + 'A');
    if (y >= 'a' && y <= 'z') y = static_cast<char>(y - 'a' + 'A');
    if (x != y) return false;
  }
  return *a == *b;
}

struct Selection {
  const detail::KernelTable* tables = nullptr;
  int count = 0;
  int64_t supported_bits = 0;  // read once: immune to later changes in libhwy
  std::atomic<int> choice{kNoTarget};  // PackChoice(active, small) or kNoTarget
  Status env_error;  // why RANDTENSOR_TARGET left no valid index; set once

  bool Supported(int i) const { return (tables[i].hwy_target & supported_bits) != 0; }

  int Best() const {
    for (int i = 0; i < count; ++i) {
      if (Supported(i)) return i;
    }
    return kNoTarget;  // unreachable: the scalar target runs everywhere
  }

  // The automatic choice for fills of at most kSmallFillWords words: the
  // widest supported kSmallFillLanes-lane target when the best is wider,
  // else the best.
  int SmallFor(int best) const {
    if (tables[best].lanes <= detail::kSmallFillLanes) return best;
    for (int i = best + 1; i < count; ++i) {
      if (Supported(i) && tables[i].lanes == detail::kSmallFillLanes) return i;
    }
    return best;
  }

  // Resolves `name` to a supported choice word, or explains why it cannot.
  Status Find(const char* name, const char* source, int* out) const {
    if (name == nullptr || NameEquals(name, "auto")) {
      const int best = Best();
      *out = PackChoice(best, SmallFor(best));
      return Status();
    }
    for (int i = 0; i < count; ++i) {
      if (!NameEquals(name, tables[i].name)) continue;
      if (!Supported(i)) {
        return Status::Error(StatusCode::kUnsupportedTarget,
                             "%s = '%s': this CPU does not support that target", source,
                             name);
      }
      *out = PackChoice(i, i);  // forced: small fills too
      return Status();
    }
    char names[128] = {0};
    for (int i = 0; i < count; ++i) {
      std::strncat(names, tables[i].name, sizeof(names) - std::strlen(names) - 2);
      if (i + 1 < count) std::strncat(names, " ", sizeof(names) - std::strlen(names) - 1);
    }
    return Status::Error(StatusCode::kUnknownTarget,
                         "%s = '%s' is not a compiled target (compiled: %s, or auto)", source,
                         name, names);
  }

  Selection() {
    tables = detail::CompiledKernels(&count);
    supported_bits = hwy::SupportedTargets();
    const char* env = std::getenv("RANDTENSOR_TARGET");
    int chosen = kNoTarget;
    env_error = Find(env != nullptr && env[0] != '\0' ? env : nullptr, "RANDTENSOR_TARGET",
                     &chosen);
    choice.store(chosen, std::memory_order_relaxed);
  }
};

Selection& GetSelection() {
  static Selection selection;
  return selection;
}

TargetInfo Describe(const Selection& s, int i) {
  TargetInfo info;
  info.name = s.tables[i].name;
  info.lanes = s.tables[i].lanes;
  info.supported = s.Supported(i);
  const int c = s.choice.load(std::memory_order_relaxed);
  info.active = c != kNoTarget && ActiveOf(c) == i;
  return info;
}

}  // namespace

int TargetCount() noexcept { return GetSelection().count; }

Status GetTarget(int index, TargetInfo* info) noexcept {
  const Selection& s = GetSelection();
  if (info == nullptr) return Status::Error(StatusCode::kInvalidArgument, "info is null");
  if (index < 0 || index >= s.count) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "index = %d is outside 0 to %d (the compiled targets)", index,
                         s.count - 1);
  }
  *info = Describe(s, index);
  return Status();
}

Status GetActiveTarget(TargetInfo* info) noexcept {
  const Selection& s = GetSelection();
  if (info == nullptr) return Status::Error(StatusCode::kInvalidArgument, "info is null");
  const int c = s.choice.load(std::memory_order_acquire);
  if (c == kNoTarget) return s.env_error;
  *info = Describe(s, ActiveOf(c));
  return Status();
}

Status SetTarget(const char* name) noexcept {
  Selection& s = GetSelection();
  int chosen = kNoTarget;
  Status status = s.Find(name, "target", &chosen);
  if (status.ok()) s.choice.store(chosen, std::memory_order_release);
  return status;
}

namespace detail {

bool CpuHasBfloat16Pack() noexcept {
  static const bool has = [] {
#if defined(__x86_64__) || defined(__i386__)
    // CPUID leaf 7, subleaf 1: EAX bit 5 is AVX512_BF16. The AVX3 target
    // being supported (as the selection read it) says the OS saves the
    // 512-bit state.
    unsigned a = 0, b = 0, c = 0, d = 0;
    if ((GetSelection().supported_bits & HWY_AVX3) == 0) return false;
    if (__get_cpuid_count(7, 1, &a, &b, &c, &d) == 0) return false;
    return ((a >> 5) & 1) != 0;
#else
    return false;
#endif
  }();
  return has;
}

Status ActiveKernels(const KernelTable** table, uint64_t words) noexcept {
  const Selection& s = GetSelection();
  const int c = s.choice.load(std::memory_order_acquire);
  if (HWY_UNLIKELY(c == kNoTarget)) return s.env_error;
  *table = &s.tables[words <= kSmallFillWords ? SmallOf(c) : ActiveOf(c)];
  return Status();
}

}  // namespace detail
}  // namespace randtensor
