// Every Highway target that foreach_target.h compiles in a translation unit,
// as {target bit, &N_<TARGET>::fn} list entries, best target first (Highway's
// bit order): RANDTENSOR_COMPILED_TARGETS(fn) in an initializer list. The
// kernel units (kernels_*.cc) list their per-target functions with it, so the
// kernel table is built from Highway's public target macros (HWY_TARGETS,
// HWY_<TARGET>, HWY_NAMESPACE's N_<TARGET>), never from its dispatch table.
// Every unit is compiled with the same definitions as kernels.cc
// (CMakeLists.txt), so each has the same HWY_TARGETS.
#ifndef RANDTENSOR_SRC_COMPILED_TARGETS_H_
#define RANDTENSOR_SRC_COMPILED_TARGETS_H_

#include "hwy/highway.h"
#include "src/kernels.h"

#if HWY_TARGETS & HWY_AVX3_DL
#define RANDTENSOR_IF_AVX3_DL(fn) {HWY_AVX3_DL, &N_AVX3_DL::fn},
#else
#define RANDTENSOR_IF_AVX3_DL(fn)
#endif
#if HWY_TARGETS & HWY_AVX3
#define RANDTENSOR_IF_AVX3(fn) {HWY_AVX3, &N_AVX3::fn},
#else
#define RANDTENSOR_IF_AVX3(fn)
#endif
#if HWY_TARGETS & HWY_AVX2
#define RANDTENSOR_IF_AVX2(fn) {HWY_AVX2, &N_AVX2::fn},
#else
#define RANDTENSOR_IF_AVX2(fn)
#endif
#if HWY_TARGETS & HWY_SSE4
#define RANDTENSOR_IF_SSE4(fn) {HWY_SSE4, &N_SSE4::fn},
#else
#define RANDTENSOR_IF_SSE4(fn)
#endif
#if HWY_TARGETS & HWY_SVE2_128
#define RANDTENSOR_IF_SVE2_128(fn) {HWY_SVE2_128, &N_SVE2_128::fn},
#else
#define RANDTENSOR_IF_SVE2_128(fn)
#endif
#if HWY_TARGETS & HWY_SVE_256
#define RANDTENSOR_IF_SVE_256(fn) {HWY_SVE_256, &N_SVE_256::fn},
#else
#define RANDTENSOR_IF_SVE_256(fn)
#endif
#if HWY_TARGETS & HWY_SVE2
#define RANDTENSOR_IF_SVE2(fn) {HWY_SVE2, &N_SVE2::fn},
#else
#define RANDTENSOR_IF_SVE2(fn)
#endif
#if HWY_TARGETS & HWY_SVE
#define RANDTENSOR_IF_SVE(fn) {HWY_SVE, &N_SVE::fn},
#else
#define RANDTENSOR_IF_SVE(fn)
#endif
#if HWY_TARGETS & HWY_NEON
#define RANDTENSOR_IF_NEON(fn) {HWY_NEON, &N_NEON::fn},
#else
#define RANDTENSOR_IF_NEON(fn)
#endif
#if HWY_TARGETS & HWY_EMU128
#define RANDTENSOR_IF_EMU128(fn) {HWY_EMU128, &N_EMU128::fn},
#else
#define RANDTENSOR_IF_EMU128(fn)
#endif
#if HWY_TARGETS & HWY_SCALAR
#define RANDTENSOR_IF_SCALAR(fn) {HWY_SCALAR, &N_SCALAR::fn},
#else
#define RANDTENSOR_IF_SCALAR(fn)
#endif

// Targets of other architectures (PPC8, RVV, WASM) are not listed: the
// kernels have not been built for them. Nor is SSSE3, which no build
// compiles (CMakeLists.txt says why).
#if HWY_TARGETS & ~(HWY_AVX3_DL | HWY_AVX3 | HWY_AVX2 | HWY_SSE4 | HWY_SVE2_128 | HWY_SVE_256 | \
                    HWY_SVE2 | HWY_SVE | HWY_NEON | HWY_EMU128 | HWY_SCALAR)
#error "randtensor: a Highway target this list does not name is compiled"
#endif

#define RANDTENSOR_COMPILED_TARGETS(fn)                                                        \
  RANDTENSOR_IF_AVX3_DL(fn)                                                                    \
  RANDTENSOR_IF_AVX3(fn) RANDTENSOR_IF_AVX2(fn) RANDTENSOR_IF_SSE4(fn)                        \
      RANDTENSOR_IF_SVE2_128(fn) RANDTENSOR_IF_SVE_256(fn) RANDTENSOR_IF_SVE2(fn)              \
          RANDTENSOR_IF_SVE(fn) RANDTENSOR_IF_NEON(fn) RANDTENSOR_IF_EMU128(fn)                \
              RANDTENSOR_IF_SCALAR(fn)

// In a kernel unit's HWY_ONCE block: <Unit>Kernels(target) (kernels.h), the
// unit's Add<Unit>Kernels (RANDTENSOR_KERNEL_UNIT) for one target bit.
#define RANDTENSOR_UNIT_TARGETS(Unit)                                             \
  namespace randtensor {                                                          \
  namespace detail {                                                              \
  AddKernelsFn Unit##Kernels(int64_t target) noexcept {                           \
    return FindTarget(target, {RANDTENSOR_COMPILED_TARGETS(Add##Unit##Kernels)}); \
  }                                                                               \
  }                                                                               \
  }

#endif  // RANDTENSOR_SRC_COMPILED_TARGETS_H_
