// Kernel unit: integers of one stream word per element (int32, int64,
// float32, float64; ranges below 2^28), for every SIMD target
// (KernelUnit::kIntegers in kernel_list.h).
//
// The units compile in parallel; kernels.cc assembles their parts into one
// table per target.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/kernels_integers.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "src/kernel_table-inl.h"

RANDTENSOR_KERNEL_UNIT(Integers);

#if HWY_ONCE
RANDTENSOR_UNIT_TARGETS(Integers)
#endif
