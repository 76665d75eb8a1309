// What the run driver (run-inl.h) and the column kernel share: how many
// vectors of Philox blocks are in flight at once (kBatches) and how a count
// of vectors is cut into groups; and the bits column kernel (AVX-512), which
// writes NHWC and column-major outputs one run per lane. Compiled once per
// target through the kernel units; hence the toggle guard.

#if defined(RANDTENSOR_SRC_GENERATE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_GENERATE_INL_H_
#undef RANDTENSOR_SRC_GENERATE_INL_H_
#else
#define RANDTENSOR_SRC_GENERATE_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwy/highway.h"
#include "src/kernels.h"
#include "src/philox-inl.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {

using detail::KernelArgs;

#if HWY_TARGET != HWY_SCALAR

// Independent vectors in flight per round, to cover the multiplier latency:
// a round's chain (multiply, shift, XOR: about 7 cycles) needs 3.5 vectors of
// 8 operations in flight to issue 4 per cycle, and each batch holds 4 state
// vectors. With 32 vector registers (AVX-512, NEON, SVE) 6 batches leave the
// compiler room for the products and keys; with the 16 of AVX2 and SSE4, 5
// batches fit where 6 spill state every round (docs/kernel-speed.md,
// "Philox rounds", counts both).
constexpr size_t kBatches = (HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4) ? 5 : 6;

// Calls fn(std::integral_constant<size_t, k>()) for a run-time group size k
// in [1, kBatches], so that each size gets its own fully unrolled code.
template <class Fn>
HWY_INLINE void WithGroupSize(size_t k, const Fn& fn) {
  using std::integral_constant;
  switch (k) {
    case 1: return fn(integral_constant<size_t, 1>());
    case 2: return fn(integral_constant<size_t, HWY_MIN(2, kBatches)>());
    case 3: return fn(integral_constant<size_t, HWY_MIN(3, kBatches)>());
    case 4: return fn(integral_constant<size_t, HWY_MIN(4, kBatches)>());
    case 5: return fn(integral_constant<size_t, HWY_MIN(5, kBatches)>());
    default: return fn(integral_constant<size_t, kBatches>());
  }
}
static_assert(kBatches <= 6, "WithGroupSize's cases cover groups of up to 6 vectors");

// The size of each group when `vectors` are cut into groups of at most
// kBatches as evenly as possible: 16 vectors go as 6 + 5 + 5, not
// 6 + 6 + 3 + 1, so no group is too small to hide the multiplier latency.
// Up to 2 kBatches vectors (every run's last groups) without a division: a
// 64-bit divide costs as much as a tenth of a row of 1024 words.
HWY_INLINE size_t NextGroup(uint64_t vectors) {
  if (vectors <= kBatches) return static_cast<size_t>(vectors);
  if (vectors <= 2 * kBatches) return static_cast<size_t>((vectors + 1) / 2);
  const uint64_t groups = (vectors + kBatches - 1) / kBatches;
  return static_cast<size_t>((vectors + groups - 1) / groups);
}

#endif  // HWY_TARGET != HWY_SCALAR

// The column kernel is compiled in kernels_bits.cc only
// (RANDTENSOR_BITS_UNIT is defined there), which lists it; the other units
// see this declaration.
#if RANDTENSOR_NARROW_LANES
void GenerateBitsColumns(const KernelArgs& s, uint64_t first, uint64_t step, size_t rows,
                         size_t cols, void* out, int64_t stride_l, bool nontemporal);
#endif

#ifdef RANDTENSOR_BITS_UNIT
#if RANDTENSOR_NARROW_LANES
// Bits in columns (GenerateColumnsFn, declared with column_lanes = the vector's
// lanes on AVX-512 only). AVX-512 lanes hold one 32-bit word each, so lane j can
// compute a block of run j: after the rounds, state vector k holds word k of
// block p of N neighbouring runs, i.e. element 4p + k of each -- N
// neighbouring addresses of the output, a whole cache line stored straight
// from the register with no staging and no transpose. (Wider-lane targets
// would need to pack lanes first; they use the staged tile instead.)
// The writer calls it only where ColumnsFit (kernels.h): whole blocks per
// run, whole vectors of runs, lane offsets within 32 bits.
void GenerateBitsColumns(const KernelArgs& s, uint64_t first, uint64_t step, size_t rows,
                         size_t cols, void* out, int64_t stride_l, bool nontemporal) {
  uint32_t* dst = static_cast<uint32_t*>(out);
  const DU32 d;
  const size_t N = hn::Lanes(d);
  const uint64_t run_blocks = step / 4;
  const bool lines_nt = nontemporal && reinterpret_cast<uintptr_t>(dst) % 64 == 0 &&
                      (stride_l * 4) % 64 == 0;
  const VState lanes =
      hn::Mul(hn::Iota(d, 0), hn::Set(d, static_cast<uint32_t>(run_blocks)));
  const uint64_t lanes_max = (N - 1) * run_blocks;
  const Counter128 base = s.start.Plus(first / 4);
  // Vectors in order of block p (outer) and group g of N runs (inner), so
  // consecutive vectors write neighbouring lines.
  const size_t groups = rows / N;
  const uint64_t vectors = groups * ((cols + 3) / 4);
  size_t p = 0, g = 0;
  for (uint64_t v = 0; v < vectors;) {
    const size_t k = NextGroup(vectors - v);
    uint64_t delta[kBatches] = {};
    uint32_t* out[kBatches] = {};
    size_t words[kBatches] = {};  // columns 4p.. that exist (fewer at the end)
    for (size_t b = 0; b < k; ++b) {
      delta[b] = g * N * run_blocks + p;
      out[b] = dst + static_cast<int64_t>(4 * p) * stride_l + static_cast<int64_t>(g * N);
      words[b] = std::min<size_t>(4, cols - 4 * p);
      if (++g == groups) g = 0, ++p;
    }
    WithGroupSize(
        k, [&](auto group) __attribute__((always_inline)) {
          WithBatches<decltype(group)::value>([&](auto... batches) __attribute__((always_inline)) {
            PhiloxBatches(
                base, [&](size_t b) { return delta[b]; }, lanes, lanes_max, s.keys, batches...);
            ForEachBatch(
                [&](Batch x, size_t b) __attribute__((always_inline)) {
                  // State vector w holds column 4p + w of the group's runs.
                  const auto put = [&](VState v, size_t w) __attribute__((always_inline)) {
                    if (w >= words[b]) return;
                    uint32_t* line = out[b] + static_cast<int64_t>(w) * stride_l;
                    if (lines_nt) {
                      hn::Stream(v, d, line);
                    } else {
                      hn::StoreU(v, d, line);
                    }
                  };
                  put(x.x0, 0);
                  put(x.x1, 1);
                  put(x.x2, 2);
                  put(x.x3, 3);
                },
                batches...);
          });
        });
    v += k;
  }
}
#endif  // RANDTENSOR_NARROW_LANES

#endif  // RANDTENSOR_BITS_UNIT

}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_GENERATE_INL_H_ toggle guard
