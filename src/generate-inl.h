// Generate kernels: Philox blocks turned into elements, in registers, right
// after the rounds (see kernel_list.h). Compiled once per target through
// kernels.cc; included only there, hence the toggle guard.
//
// Bits (uint32, one stream word per element) is the first kind: the blocks'
// words are the elements. Other kinds convert the same blocks before their
// store.

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
#include "src/move-inl.h"
#include "src/philox-inl.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {

using detail::Stream;

// Blocks staged in L1 when streaming to an address that is not block-aligned:
// 4 KiB of output per trip.
constexpr uint64_t kStageBlocks = 256;


#if HWY_TARGET == HWY_SCALAR

// One lane: the reference itself, block by block.
template <bool kStream>
void GenerateBlocks(const Stream& s, uint64_t block, uint64_t nblocks, uint32_t* out) {
  PhiloxKey key{{s.keys.k0[0], s.keys.k1[0]}};
  Counter128 c = s.start.Plus(block);
  for (uint64_t i = 0; i < nblocks; ++i, c = c.Plus(1)) {
    const PhiloxBlock b = philox::Block(c, key);
    std::memcpy(out + 4 * i, b.v, sizeof(b.v));
  }
}

#else

// Independent vectors in flight per round, to cover the multiplier latency:
// a round's chain (multiply, shift, XOR: about 7 cycles) needs 3.5 vectors of
// 8 operations in flight to issue 4 per cycle, and each batch holds 4 state
// vectors. With 32 vector registers (AVX-512, NEON, SVE) 6 batches leave the
// compiler room for the products and keys; with AVX2's 16, 5 batches fit
// where 6 spill state every round (docs/kernel-speed.md, "Philox rounds",
// counts both). SSE4 and SSSE3, which exist for old CPUs and for tests,
// keep 6.
constexpr size_t kBatches = HWY_TARGET == HWY_AVX2 ? 5 : 6;

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

// The next `groups` groups of kBatches vectors of `run` to out (UniformGroups).
// A function of its own so that its loop is compiled apart from RunTail's.
template <bool kStream>
HWY_NOINLINE void WholeGroups(const Stream& s, UniformRun& run, uint64_t groups, uint32_t* out) {
  UniformGroups<kBatches, kStream>(run, s.keys, groups, out);
}

// The first `blocks` blocks of tmp to dst; streamed output stays streamed to
// the end (see StreamCopy).
template <bool kStream>
HWY_INLINE void CopyPartial(const uint32_t* tmp, uint64_t blocks, uint32_t* dst) {
  if (kStream) {
    StreamCopy(tmp, blocks * 4, dst);
  } else {
    std::memcpy(dst, tmp, blocks * 16);
  }
}

// The last `vectors` (at most 2 kBatches) vectors of a run from counter c,
// word 0 not carrying before their last lane: one UniformRun (rounds 0-1
// hoisted, round 9 fused with the transpose, as in WholeGroups) in groups of
// NextGroup's sizes. With `partial` != 0 the last vector holds only that
// many blocks: it is computed in the last group, into a scratch vector, so
// its rounds hide behind the group's others.
template <bool kStream>
void RunTail(const Stream& s, UniformRun& run, uint64_t vectors, uint64_t partial, uint32_t* out) {
  const DU32 d32;
  const size_t N32 = hn::Lanes(d32);
  const size_t per_vector = 4 * BlocksPerVector();  // words
  HWY_ALIGN uint32_t tmp[4 * hn::MaxLanes(DState())];
  VU64 even, odd;  // the run's products (UniformRun::Load)
  run.Load(&even, &odd);
  while (vectors != 0) {
    const size_t k = NextGroup(vectors);
    const bool ends_partial = k == vectors && partial != 0;
    WithGroupSize(
        k, [&](auto group) __attribute__((always_inline)) {
          WithBatches<decltype(group)::value>([&](auto... batches) __attribute__((always_inline)) {
            constexpr size_t kK = sizeof...(batches);
            run.Next<philox::kRounds - 1>(s.keys, &even, &odd, batches...);
            LastRound(
                s.keys,
                [&](Batch, size_t b, size_t i, VU32 v) __attribute__((always_inline)) {
                  if (ends_partial && b + 1 == kK) return hn::Store(v, d32, tmp + i * N32);
                  uint32_t* HWY_RESTRICT to = out + b * per_vector + i * N32;
                  if (kStream) return hn::Stream(v, d32, to);
                  hn::StoreU(v, d32, to);
                },
                batches...);
          });
        });
    if (ends_partial) CopyPartial<kStream>(tmp, partial, out + per_vector * (k - 1));
    out += per_vector * k;
    vectors -= k;
  }
}

// `vectors` vectors of blocks from counter c, word 0 not carrying before the
// last lane (the last vector holding only `partial` blocks if that is not
// 0): whole groups of kBatches first, in a function of their own
// (WholeGroups: its loop then holds one group size, so the compiler keeps the
// run's state in registers across groups instead of sharing them with a
// switch over six sizes), then the last two groups or fewer.
template <bool kStream>
HWY_INLINE void RunBlocks(const Stream& s, const Counter128& c, uint64_t vectors,
                          uint64_t partial, uint32_t* out) {
  UniformRun run(c, s.keys);  // one for the whole run: set up once per call
  if (vectors > 2 * kBatches) {
    const uint64_t groups = (vectors - kBatches - 1) / kBatches;  // leaves (kBatches, 2 kBatches]
    WholeGroups<kStream>(s, run, groups, out);
    out += groups * 4 * BlocksPerVector() * kBatches;
    vectors -= groups * kBatches;
  }
  RunTail<kStream>(s, run, vectors, partial, out);
}

// Writes stream blocks [block, block + nblocks) to out[0 .. 4 * nblocks).
// With kStream, `out` must be aligned to the vector size. Runs whose counter
// word 0 does not carry are one RunBlocks; across a carry (once per 2^32
// blocks) the whole vectors before it are, the one vector whose lanes cross
// it takes PhiloxBatches (every lane's counter added in full), and the rest
// starts over.
template <bool kStream>
void GenerateBlocks(const Stream& s, uint64_t block, uint64_t nblocks, uint32_t* out) {
  const size_t N = BlocksPerVector();
  while (nblocks != 0) {
    const Counter128 c = s.start.Plus(block);
    const uint64_t room = 0x100000000u - c.w[0];  // blocks before word 0 carries
    const uint64_t partial = nblocks % N;
    const uint64_t vectors = nblocks / N + (partial != 0 ? 1 : 0);
    if (HWY_LIKELY(vectors * N <= room)) return RunBlocks<kStream>(s, c, vectors, partial, out);
    uint64_t taken = room / N * N;
    if (taken != 0) {
      RunBlocks<kStream>(s, c, taken / N, 0, out);
    } else {
      taken = std::min<uint64_t>(nblocks, N);
      const bool part = taken < N;
      HWY_ALIGN uint32_t tmp[4 * hn::MaxLanes(DState())];
      GenerateBatches<1, kStream>(
          c, [](size_t) { return uint64_t{0}; }, s.keys, BlockOfLane(),
          [&](size_t) { return part ? tmp : out; }, part);
      if (part) CopyPartial<kStream>(tmp, taken, out);
    }
    block += taken;
    nblocks -= taken;
    out += 4 * taken;
  }
}

#endif  // HWY_TARGET == HWY_SCALAR

// The bits kernels are compiled in kernels_bits.cc only (RANDTENSOR_BITS_UNIT
// is defined there); the other kernel units call them (GenerateChunked) and
// see these declarations: one copy of each target's bits kernels in the
// library.
void GenerateBits(const Stream& s, uint64_t first, uint64_t count, void* out, bool streaming);
#if RANDTENSOR_NARROW_LANES
void GenerateBitsColumns(const Stream& s, uint64_t first, uint64_t step, size_t rows, size_t cols,
                         void* out, int64_t stride_l, bool streaming);
#endif

#ifdef RANDTENSOR_BITS_UNIT
// Whole blocks [block, block + nblocks) to dst (4-byte aligned only).
void FillBlocks(const Stream& s, uint64_t block, uint64_t nblocks, uint32_t* dst,
                bool streaming) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(dst);
  if (!streaming) {
    GenerateBlocks<false>(s, block, nblocks, dst);
  } else if (addr % 16 == 0) {
    // Blocks can line up with vectors: the few blocks up to the next vector
    // boundary through L1, then whole vectors streamed straight from
    // registers (GenerateBlocks streams its partial end through StreamCopy).
    const uint64_t to_boundary = ((kVectorBytes - addr % kVectorBytes) % kVectorBytes) / 16;
    const uint64_t head = std::min(to_boundary, nblocks);
    if (head != 0) {
      HWY_ALIGN uint32_t stage[kVectorBytes / 4];
      GenerateBlocks<false>(s, block, head, stage);
      StreamCopy(stage, 4 * head, dst);
    }
    GenerateBlocks<true>(s, block + head, nblocks - head, dst + 4 * head);
  } else {
    // Blocks straddle vectors: stage them in L1, then stream the copy.
    HWY_ALIGN uint32_t stage[4 * kStageBlocks];
    while (nblocks != 0) {
      const uint64_t n = std::min(nblocks, kStageBlocks);
      GenerateBlocks<false>(s, block, n, stage);
      StreamCopy(stage, 4 * n, dst);
      block += n;
      nblocks -= n;
      dst += 4 * n;
    }
  }
}

// The part [skip, skip + n) of the one block `block`: row ends that start or
// stop in the middle of a Philox block. One block is cheaper in scalar code
// than a whole vector of them.
void FillPartialBlock(const Stream& s, uint64_t block, uint64_t skip, uint64_t n,
                      uint32_t* dst, bool streaming) {
  const PhiloxBlock b =
      philox::Block(s.start.Plus(block), PhiloxKey{{s.keys.k0[0], s.keys.k1[0]}});
  if (streaming) {
    StreamCopy(b.v + skip, n, dst);
  } else {
    std::memcpy(dst, b.v + skip, n * 4);
  }
}

// Bits, contiguous (GenerateFn): the stream's words are the elements.
void GenerateBits(const Stream& s, uint64_t first, uint64_t count, void* out, bool streaming) {
  if (count == 0) return;
  uint32_t* dst = static_cast<uint32_t*>(out);
  uint64_t block = first / 4;
  const uint64_t skip = first % 4;
  if (skip != 0) {
    const uint64_t n = std::min<uint64_t>(count, 4 - skip);
    FillPartialBlock(s, block, skip, n, dst, streaming);
    ++block;
    dst += n;
    count -= n;
  }
  FillBlocks(s, block, count / 4, dst, streaming);
  if (count % 4 != 0) {
    FillPartialBlock(s, block + count / 4, 0, count % 4, dst + count / 4 * 4, streaming);
  }
}

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
void GenerateBitsColumns(const Stream& s, uint64_t first, uint64_t step, size_t rows,
                         size_t cols, void* out, int64_t stride_l, bool streaming) {
  uint32_t* dst = static_cast<uint32_t*>(out);
  const DU32 d;
  const size_t N = hn::Lanes(d);
  const uint64_t run_blocks = step / 4;
  const bool stream = streaming && reinterpret_cast<uintptr_t>(dst) % 64 == 0 &&
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
                    if (stream) {
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
