// Kernel unit: uniform float32, float16, bfloat16 and float64, for every
// SIMD target (KernelUnit::kUniform in kernel_list.h).
//
// The units compile in parallel; kernels.cc assembles their parts into one
// table per target.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/kernels_uniform.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "src/kernel_table-inl.h"

RANDTENSOR_KERNEL_UNIT(Uniform);

#if HWY_ONCE
RANDTENSOR_UNIT_TARGETS(Uniform)
#endif
