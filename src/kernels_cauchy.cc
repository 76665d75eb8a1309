// Kernel unit: cauchy float32, float16, bfloat16 and float64, for every SIMD target (KernelUnit::kCauchy in
// kernel_list.h; docs/SPEC.md section 8.1).
//
// The units compile in parallel; kernels.cc assembles their parts into one
// table per target.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/kernels_cauchy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "src/kernel_table-inl.h"

RANDTENSOR_KERNEL_UNIT(Cauchy);

#if HWY_ONCE
RANDTENSOR_UNIT_TARGETS(Cauchy)
#endif
