// Kernel unit: normal float16 and bfloat16, for every SIMD target
// (KernelUnit::kNormal16 in kernel_list.h).
//
// The units compile in parallel; kernels.cc assembles their parts into one
// table per target.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/kernels_normal16.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "src/kernel_table-inl.h"

RANDTENSOR_KERNEL_UNIT(Normal16);

#if HWY_ONCE
RANDTENSOR_UNIT_TARGETS(Normal16)
#endif
