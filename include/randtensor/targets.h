// SIMD targets: which kernels are compiled in, which this CPU can run, which is
// in use, and how to force one.
//
// Every target computes the same bits (the scalar reference's); they differ
// only in speed. The choice is made once, in one place: by default the widest
// target the CPU supports; the environment variable RANDTENSOR_TARGET (read on
// first use) or SetTarget() force one by name. An unknown or unsupported name
// is an error that every fill reports; it never falls back silently.
//
// Names are Highway's; matching ignores case, and "auto" means the default
// choice. x86-64: AVX3 (AVX-512, 16 lanes), AVX2 (8), SSE4 (4); a CPU without
// SSE4.1 runs SCALAR.
// Arm64 (docs/arm.md): NEON (4), SVE and SVE2 (the CPU's vector length),
// SVE_256 (8) and SVE2_128 (4), Highway's fixed-length SVE targets. SCALAR
// (1) is the portable one.
#ifndef RANDTENSOR_TARGETS_H_
#define RANDTENSOR_TARGETS_H_

#include "randtensor/export.h"
#include "randtensor/status.h"

namespace randtensor {

struct TargetInfo {
  const char* name = "";  // static storage, never freed
  // 32-bit lanes per vector; 0 for a scalable target (SVE, SVE2) this CPU
  // cannot run, whose length only the CPU knows.
  int lanes = 0;
  bool supported = false; // this CPU can run it
  bool active = false;    // fills use it now
};

// Number of compiled targets; index 0 is the widest.
RANDTENSOR_API int TargetCount() noexcept;

// Describes compiled target `index` (0 <= index < TargetCount()).
RANDTENSOR_API Status GetTarget(int index, TargetInfo* info) noexcept;

// The target fills use now, or the error a bad RANDTENSOR_TARGET / SetTarget left.
RANDTENSOR_API Status GetActiveTarget(TargetInfo* info) noexcept;

// Forces target `name` ("auto" or nullptr: the default) for every later fill in
// this process, replacing any RANDTENSOR_TARGET choice. On error the previous
// choice stays.
RANDTENSOR_API Status SetTarget(const char* name) noexcept;

}  // namespace randtensor

#endif  // RANDTENSOR_TARGETS_H_
