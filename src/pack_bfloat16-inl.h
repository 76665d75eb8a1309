// AVX512_BF16's two-vector bfloat16 pack, for the AVX-512 kernels
// (src/convert/uniform-inl.h). Included by it under Highway's per-target
// compilation, hence the toggle guard; holds code for AVX3 on x86 only.
//
// vcvtne2ps2bf16 rounds to nearest even, as the integer rounding the other
// targets use (src/convert/common-inl.h, Bfloat16Rounded) does, on every normal float
// and zero; tests/pack_bfloat16_test.cc checks all of them against its own
// reference. A subnormal float it reads as zero, so the kernels use it only
// where a fill's parameters leave no subnormal value (UniformParams::bf16_pack,
// set in fill.cc) and the CPU has it (detail::CpuHasBfloat16Pack). One
// instruction for what takes seven otherwise: uniform bfloat16 on Zen 4,
// elements per second against the bits fill, 0.75 -> 0.86 at 64 Ki on one
// thread, 0.81-0.83 -> 0.93-0.97 at 64 Mi on two (docs/kernel-speed.md).
//
// Inline assembly: Highway 1.0.3 has no target with AVX512_BF16, and GCC
// does not inline a function built for a wider target (as the intrinsic
// _mm512_cvtne2ps_pbh needs) into the AVX3 kernels.

#if defined(RANDTENSOR_SRC_PACK_BFLOAT16_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_PACK_BFLOAT16_INL_H_
#undef RANDTENSOR_SRC_PACK_BFLOAT16_INL_H_
#else
#define RANDTENSOR_SRC_PACK_BFLOAT16_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {

#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
// The bfloat16 bits of lo's 16 floats, then hi's, in one vector of 32.
HWY_INLINE hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::ScalableTag<uint16_t>> PackBfloat16(
    hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::ScalableTag<float>> lo,
    hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::ScalableTag<float>> hi) {
  __m512i packed;
  asm("vcvtne2ps2bf16 %[lo], %[hi], %[packed]"
      : [packed] "=v"(packed)
      : [hi] "v"(hi.raw), [lo] "v"(lo.raw));
  return hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::ScalableTag<uint16_t>>{packed};
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_PACK_BFLOAT16_INL_H_ toggle guard
