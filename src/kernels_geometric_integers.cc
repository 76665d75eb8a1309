// Kernel unit: geometric uint8, int32 and int64 (GeometricFloat32's float
// integers, converted), for every SIMD target (KernelUnit::kGeometricIntegers
// in kernel_list.h; docs/SPEC.md section 8.1).
//
// The units compile in parallel; kernels.cc assembles their parts into one
// table per target.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/kernels_geometric_integers.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "src/kernel_table-inl.h"

RANDTENSOR_KERNEL_UNIT(GeometricIntegers);

#if HWY_ONCE
RANDTENSOR_UNIT_TARGETS(GeometricIntegers)
#endif
