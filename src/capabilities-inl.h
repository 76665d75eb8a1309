// What the current SIMD target can do, by name: the kernels test these
// capabilities, never lists of targets, so a new target (another Arm or x86
// generation) gets every fast path it qualifies for and no other.
//
// Re-evaluated for every target that foreach_target.h compiles, hence the
// toggle guard; every macro is 0 or 1.
//
// - RANDTENSOR_FMA: fused multiply-add in one instruction (Highway's
//   HWY_NATIVE_FMA: AVX2, AVX-512, NEON on AArch64, SVE). Where it is 0
//   (SSE4, SCALAR) Highway's MulAdd rounds twice, and the kernels
//   emulate the one rounding (math-inl.h): values never depend on it.
// - RANDTENSOR_AVX512: AVX-512's masks, masked shuffles and ternary logic,
//   used through intrinsics (one Philox block per 32-bit lane, "narrow
//   lanes" in philox-inl.h; masked multiply-adds and compares).
// - RANDTENSOR_HAVE_XOR3: a three-input XOR in one instruction through
//   Highway's Xor3 (vpternlogd on AVX-512, EOR3 on SVE2).
// - RANDTENSOR_F16C: float -> float16 with round-to-nearest-even in one
//   instruction (F16C's vcvtps2ph, which x86 targets from AVX2 up have).
// - RANDTENSOR_FLOAT_PERMUTE: float lanes permuted across the whole vector
//   by a vector of indices in one instruction (vpermps: AVX2, AVX-512).
// - RANDTENSOR_NARROW_LANES: Philox state as one block per 32-bit lane
//   (philox-inl.h); else one block per 64-bit lane.
// - RANDTENSOR_MASKED_STORES: stores of a vector's chosen lanes, of every
//   lane size, that write (and fault on) nothing else (AVX-512, SVE).
// - RANDTENSOR_COPIED_CROSSINGS: without masked stores, a vector that
//   crosses a row end still goes to its rows from the run's loop, as two
//   pieces copied through L1 in a few overlapping moves (AVX2, SSE4), for
//   elements of 2 bytes and more. AVX2's own masked stores (vpmaskmov) are
//   many times slower than plain ones on AMD cores (docs/kernel-speed.md).
// - RANDTENSOR_COPIED_BYTE_CROSSINGS: copied crossings of 1-byte elements
//   too (SSE4). A word vector of bytes is 4 of them on SSE4, whose rounds
//   take twice AVX2's time per byte, so the cursor step each word vector
//   costs is paid back; on AVX2 (8 bytes a word vector) the rows that
//   spill a crossing vector through L1 ran faster (docs/kernel-speed.md).
// - RANDTENSOR_PLACES_PIECES: either of the two above (masked stores, or
//   copied crossings): a vector can be stored in two pieces, into the end
//   of one row and the start of the next, straight from the run's loop.

#if defined(RANDTENSOR_SRC_CAPABILITIES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_CAPABILITIES_INL_H_
#undef RANDTENSOR_SRC_CAPABILITIES_INL_H_
#else
#define RANDTENSOR_SRC_CAPABILITIES_INL_H_
#endif

#include "hwy/highway.h"

#undef RANDTENSOR_FMA
#undef RANDTENSOR_AVX512
#undef RANDTENSOR_HAVE_XOR3
#undef RANDTENSOR_F16C
#undef RANDTENSOR_FLOAT_PERMUTE
#undef RANDTENSOR_NARROW_LANES
#undef RANDTENSOR_MASKED_STORES
#undef RANDTENSOR_COPIED_CROSSINGS
#undef RANDTENSOR_COPIED_BYTE_CROSSINGS
#undef RANDTENSOR_PLACES_PIECES

#define RANDTENSOR_FMA HWY_NATIVE_FMA

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
#define RANDTENSOR_AVX512 1
#else
#define RANDTENSOR_AVX512 0
#endif

#if RANDTENSOR_AVX512 || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE2_128
#define RANDTENSOR_HAVE_XOR3 1
#else
#define RANDTENSOR_HAVE_XOR3 0
#endif

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
#define RANDTENSOR_F16C 1
#else
#define RANDTENSOR_F16C 0
#endif

#if HWY_ARCH_X86 && (HWY_TARGET == HWY_AVX2 || HWY_TARGET <= HWY_AVX3)
#define RANDTENSOR_FLOAT_PERMUTE 1
#else
#define RANDTENSOR_FLOAT_PERMUTE 0
#endif

#define RANDTENSOR_NARROW_LANES RANDTENSOR_AVX512

#if RANDTENSOR_AVX512 || HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || \
    HWY_TARGET == HWY_SVE_256 || HWY_TARGET == HWY_SVE2_128
#define RANDTENSOR_MASKED_STORES 1
#else
#define RANDTENSOR_MASKED_STORES 0
#endif

#if HWY_ARCH_X86 && (HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4)
#define RANDTENSOR_COPIED_CROSSINGS 1
#else
#define RANDTENSOR_COPIED_CROSSINGS 0
#endif

#if HWY_ARCH_X86 && HWY_TARGET == HWY_SSE4
#define RANDTENSOR_COPIED_BYTE_CROSSINGS 1
#else
#define RANDTENSOR_COPIED_BYTE_CROSSINGS 0
#endif

#define RANDTENSOR_PLACES_PIECES (RANDTENSOR_MASKED_STORES || RANDTENSOR_COPIED_CROSSINGS)

#endif  // RANDTENSOR_SRC_CAPABILITIES_INL_H_ toggle guard
