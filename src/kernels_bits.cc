// Kernel unit: bits (uint32), the move kernels and the replay thread blocks,
// for every SIMD target (KernelUnit::kBits in kernel_list.h). The bits and
// move kernels are compiled here only (RANDTENSOR_BITS_UNIT); the other units
// call them through declarations, so the library holds one copy of each.
//
// The units compile in parallel; kernels.cc assembles their parts into one
// table per target.
#define RANDTENSOR_BITS_UNIT 1

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/kernels_bits.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "src/kernel_table-inl.h"

RANDTENSOR_KERNEL_UNIT(Bits);

#if HWY_ONCE
RANDTENSOR_UNIT_TARGETS(Bits)
#endif
