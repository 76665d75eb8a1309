// Kernel unit: normal float32, for every SIMD target (KernelUnit::kNormal32
// in kernel_list.h). Box-Muller's kernels are the longest to compile, so
// they have units of their own.
//
// The units compile in parallel; kernels.cc assembles their parts into one
// table per target.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/kernels_normal32.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "src/kernel_table-inl.h"

RANDTENSOR_KERNEL_UNIT(Normal32);

#if HWY_ONCE
RANDTENSOR_UNIT_TARGETS(Normal32)
#endif
