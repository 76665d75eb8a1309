// Kernel unit: bernoulli (uint8, int32, float32, float16, bfloat16,
// float64), for every SIMD target (KernelUnit::kBernoulli in kernel_list.h).
//
// The units compile in parallel; kernels.cc assembles their parts into one
// table per target.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/kernels_bernoulli.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "src/kernel_table-inl.h"

RANDTENSOR_KERNEL_UNIT(Bernoulli);

#if HWY_ONCE
RANDTENSOR_UNIT_TARGETS(Bernoulli)
#endif
