// The one place that decides which compiled kernel table fills use.
#ifndef RANDTENSOR_SRC_DISPATCH_H_
#define RANDTENSOR_SRC_DISPATCH_H_

#include <cstdint>

#include "randtensor/status.h"
#include "src/kernels.h"

namespace randtensor {
namespace detail {

// Fills of at most one vector of Philox blocks of an 8-lane target (4 words a
// block) may run on that target when a wider one is active (targets.cc says
// when and why).
constexpr int kSmallFillLanes = 8;
constexpr uint64_t kSmallFillWords = 4 * kSmallFillLanes;

// The kernels a fill of `words` stream words uses now: the widest the CPU
// supports (AVX2 instead of AVX-512 for a small fill), unless
// RANDTENSOR_TARGET or SetTarget() forced one. Fails when the forced name was
// unknown or unsupported (never a silent fallback).
Status ActiveKernels(const KernelTable** table, uint64_t words = UINT64_MAX) noexcept;

// Whether the AVX-512 kernels may use AVX512_BF16's two-vector bfloat16 pack
// (vcvtne2ps2bf16: Zen 4, Cooper Lake, Sapphire Rapids and later), a feature
// beyond Highway 1.0.3's AVX3 target, read from the CPU once. The kernels use
// it only where a fill's parameters allow (UniformParams::bf16_pack).
bool CpuHasBfloat16Pack() noexcept;

}  // namespace detail
}  // namespace randtensor

#endif  // RANDTENSOR_SRC_DISPATCH_H_
