// Kernel unit: integers of two stream words per element (int32, int64,
// float64; ranges of 2^28 and more), for every SIMD target
// (KernelUnit::kIntegersWide in kernel_list.h).
//
// The units compile in parallel; kernels.cc assembles their parts into one
// table per target.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/kernels_integers_wide.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "src/kernel_table-inl.h"

RANDTENSOR_KERNEL_UNIT(IntegersWide);

#if HWY_ONCE
RANDTENSOR_UNIT_TARGETS(IntegersWide)
#endif
