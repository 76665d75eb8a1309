// Kernel unit: integers of one stream word per element in 4-byte types (int32,
// float32; ranges below 2^28), for every SIMD target
// (KernelUnit::kIntegers32 in kernel_list.h).
//
// The units compile in parallel; kernels.cc assembles their parts into one
// table per target.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/kernels_integers32.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "src/kernel_table-inl.h"

RANDTENSOR_KERNEL_UNIT(Integers32);

#if HWY_ONCE
RANDTENSOR_UNIT_TARGETS(Integers32)
#endif
