// The one list of kernel tables: one entry per compiled SIMD target, each
// assembled from the kernel units (kernel_list.h: src/kernels_<unit>.cc),
// which compile the kernels once per target in parallel translation units.
// Which entry runs is decided in targets.cc, never here.
//
// Built with the kernel units' definitions (CMakeLists.txt), so HWY_TARGETS
// here is the set every unit compiled: on x86 (HWY_COMPILE_ALL_ATTAINABLE)
// SSE4, AVX2, AVX3 and the portable SCALAR (not SSSE3: CMakeLists.txt says
// why); on AArch64 NEON, SVE, SVE2, SVE_256, SVE2_128 and SCALAR.

#include <cstdint>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "hwy/targets.h"
#include "src/kernel_list.h"
#include "src/kernels.h"

namespace randtensor {
namespace detail {
namespace {

// 32-bit lanes of a target's vectors, known without running its code; 0
// where that needs the CPU (SVE's width).
int LanesWithoutRunning(int64_t target) {
  if (target == HWY_SCALAR) return 1;
#if HWY_ARCH_X86
  if (target == HWY_AVX3 || target == HWY_AVX3_DL) return 16;
  if (target == HWY_AVX2) return 8;
  if (target == HWY_SSE4 || target == HWY_EMU128) return 4;
#elif HWY_ARCH_ARM_A64
  if (target == HWY_SVE_256) return 8;
  if (target == HWY_NEON || target == HWY_SVE2_128 || target == HWY_EMU128) return 4;
#endif
  return 0;
}

}  // namespace

// Every target bit in HWY_TARGETS from the lowest (Highway's best target)
// up, so the list runs widest first and the first supported entry is the
// default choice.
//
// A target this CPU does not run is listed by name with no kernels: the
// units' functions for it are never called, because the compiler may use the
// target's instructions anywhere in them (GCC 12 builds AVX3's with EVEX
// moves, which an AVX2-only CPU cannot execute).
const KernelTable* CompiledKernels(int* count) noexcept {
  struct Tables {
    KernelTable entries[64];
    int count = 0;
  };
  static const Tables tables = [] {
    Tables t;
    const int64_t supported = hwy::SupportedTargets();
    for (int bit = 0; bit < 63; ++bit) {
      const int64_t target = int64_t{1} << bit;
      if ((HWY_TARGETS & target) == 0) continue;
      KernelTable entry{};
      entry.name = hwy::TargetName(target);
      entry.hwy_target = target;
      entry.lanes = LanesWithoutRunning(target);
      // Every unit is built with the same definitions (CMakeLists.txt); one
      // that lacks this target would leave its kinds without kernels, so the
      // target is not listed at all.
      bool complete = true;
#define RANDTENSOR_HAS_UNIT(unit) complete = complete && unit##Kernels(target) != nullptr;
      RANDTENSOR_KERNEL_UNITS(RANDTENSOR_HAS_UNIT)
#undef RANDTENSOR_HAS_UNIT
      if (!complete) continue;
      if ((supported & target) != 0) {
#define RANDTENSOR_ADD_UNIT(unit) unit##Kernels(target)(&entry);
        RANDTENSOR_KERNEL_UNITS(RANDTENSOR_ADD_UNIT)
#undef RANDTENSOR_ADD_UNIT
      }
      t.entries[t.count++] = entry;
    }
    return t;
  }();
  *count = tables.count;
  return tables.entries;
}

void NonTemporalFence() noexcept { hwy::FlushStream(); }

}  // namespace detail
}  // namespace randtensor
