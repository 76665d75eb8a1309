// Kernel unit: geometric float32, float16, bfloat16 and float64, for every
// SIMD target (KernelUnit::kGeometric in kernel_list.h; docs/SPEC.md section
// 8.1); the integer outputs are kernels_geometric_integers.cc's.
//
// The units compile in parallel; kernels.cc assembles their parts into one
// table per target.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/kernels_geometric.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "src/kernel_table-inl.h"

RANDTENSOR_KERNEL_UNIT(Geometric);

#if HWY_ONCE
RANDTENSOR_UNIT_TARGETS(Geometric)
#endif
