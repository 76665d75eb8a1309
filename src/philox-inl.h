// Philox4x32-10 on Highway vectors: the per-target core of every kernel.
//
// Included once per SIMD target by kernels.cc through foreach_target.h, hence
// the toggle guard instead of a plain include guard.
//
// Both cores keep the four counter words in four vectors (structure of
// arrays, one Philox block per lane), interleave several independent vectors
// ("batches") to hide multiplier latency, and assign blocks to lanes in a
// permuted order so that the final transpose back to block order needs only
// in-lane unpacks. They differ in how a lane holds a 32-bit word, because the
// best answer depends on the instruction set:
//
// - AVX-512 ("narrow" lanes, RANDTENSOR_NARROW_LANES in capabilities-inl.h):
//   one block per 32-bit lane. The 32x32->64
//   multiplies run on even and odd lanes separately (vpmuludq) and are merged
//   back with masked shuffles, one instruction per merge.
// - AVX2, SSE4, NEON, SVE ("wide" lanes, no masked shuffles): one
//   block per 64-bit lane, each word in the lane's low half. The widening
//   multiply of the even 32-bit lanes (vpmuludq, NEON's umull, SVE2's umullb)
//   then yields the whole 64-bit product in place: its low word is already
//   where the next round wants it and its high word is one shift away, so a
//   round needs no shuffle at all. Upper lane halves carry garbage that no op
//   ever reads.
//
// In both, words 1-3 of the counter are the same in every lane of a batch
// (unless word 0 carries, once per 2^32 blocks), so round 0's product of word
// 2 and round 1's product of round 0's word 0 are scalar constants: those two
// rounds need half the vector multiplies. Round 0's other product, kMul0 times
// consecutive counters, is a running sum (vector adds, no multiply), and the
// run driver fuses round 9 with its transpose (LastRound).
// docs/kernel-speed.md counts the operations and the hosts' bounds.
//
// The scalar target (one lane) uses the constexpr reference from
// randtensor/philox.h instead of this file.

#if defined(RANDTENSOR_SRC_PHILOX_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_PHILOX_INL_H_
#undef RANDTENSOR_SRC_PHILOX_INL_H_
#else
#define RANDTENSOR_SRC_PHILOX_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "randtensor/philox.h"
#include "src/capabilities-inl.h"
#include "src/kernels.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

using detail::RoundKeys;
using DU32 = hn::ScalableTag<uint32_t>;
using DU64 = hn::ScalableTag<uint64_t>;
using VU32 = hn::Vec<DU32>;
using VU64 = hn::Vec<DU64>;

HWY_INLINE constexpr uint32_t Hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
HWY_INLINE constexpr uint32_t Lo(uint64_t v) { return static_cast<uint32_t>(v); }

// a ^ b ^ key on the 32-bit view (the key broadcast to every 32-bit lane).
template <class V>
HWY_INLINE V Xor3Key(V a, V b, uint32_t key) {
  const DU32 d32;
  const hn::DFromV<V> d;
  return hn::BitCast(d, hn::Xor3(hn::BitCast(d32, a), hn::BitCast(d32, b), hn::Set(d32, key)));
}

// a ^ key on the 32-bit view.
template <class V>
HWY_INLINE V XorKey(V a, uint32_t key) {
  const DU32 d32;
  return hn::BitCast(hn::DFromV<V>(), hn::Xor(hn::BitCast(d32, a), hn::Set(d32, key)));
}

#if RANDTENSOR_NARROW_LANES
// ---------------------------------------------------------------- narrow lanes

using DState = DU32;  // one block per 32-bit lane
using VState = VU32;

// The 64-bit products of the even lanes and of the odd lanes merged into
// high and low words of x * m in every lane: one masked shuffle (swap word
// pairs, keep the other product's lanes) per merge.
HWY_INLINE void Merge(VU64 even, VU64 odd, VState* hi, VState* lo) {
  *hi = VU32{_mm512_mask_shuffle_epi32(odd.raw, 0x5555, even.raw, _MM_PERM_CDAB)};
  *lo = VU32{_mm512_mask_shuffle_epi32(even.raw, 0xAAAA, odd.raw, _MM_PERM_CDAB)};
}

// High and low words of x * m: vpmuludq on the even lanes and on the odd
// lanes (shifted down), merged.
HWY_INLINE void Multiply(VState x, uint32_t m, VState* hi, VState* lo) {
  const DU32 d32;
  const DU64 d64;
  const VU32 vm = hn::Set(d32, m);
  Merge(hn::MulEven(x, vm),
        hn::MulEven(hn::BitCast(d32, hn::ShiftRight<32>(hn::BitCast(d64, x))), vm), hi, lo);
}

// Round 0's products kMul0 * (w + lanes[i]) as kMul0 * w (a scalar) plus
// kMul0 * lanes[i] (once per call): exact, since the sum stays below 2^64
// where words 1-3 are uniform. Two adds instead of two multiplies and a
// shift. The lane products are kept as the 64-bit products of the even and
// of the odd lanes.
HWY_INLINE void MulLanes(VState lanes, VU64* even, VU64* odd) {
  const DU32 d32;
  const DU64 d64;
  const VU32 vm = hn::Set(d32, philox::kMul0);
  *even = hn::MulEven(lanes, vm);
  *odd = hn::MulEven(hn::BitCast(d32, hn::ShiftRight<32>(hn::BitCast(d64, lanes))), vm);
}
HWY_INLINE void Products(VU64 even, VU64 odd, VState* hi, VState* lo) { Merge(even, odd, hi, lo); }

constexpr int kLog2LanesPerChunk = 2;  // four 32-bit lanes per 128-bit chunk

// Transposes one vector of blocks back to block order: four output vectors.
template <class StoreFn>
HWY_INLINE void TransposeBlocks(VU32 x0, VU32 x1, VU32 x2, VU32 x3, const StoreFn& store) {
  const DU32 d;
  const DU64 d64;
  // Per 128-bit chunk c: lo01 = (x0, x1) of lanes 4c, 4c+1; hi01 of 4c+2, 4c+3.
  const VU64 lo01 = hn::BitCast(d64, hn::InterleaveLower(d, x0, x1));
  const VU64 lo23 = hn::BitCast(d64, hn::InterleaveLower(d, x2, x3));
  const VU64 hi01 = hn::BitCast(d64, hn::InterleaveUpper(d, x0, x1));
  const VU64 hi23 = hn::BitCast(d64, hn::InterleaveUpper(d, x2, x3));
  store(hn::BitCast(d, hn::InterleaveLower(d64, lo01, lo23)), 0);  // lanes 4c
  store(hn::BitCast(d, hn::InterleaveUpper(d64, lo01, lo23)), 1);  // lanes 4c+1
  store(hn::BitCast(d, hn::InterleaveLower(d64, hi01, hi23)), 2);  // lanes 4c+2
  store(hn::BitCast(d, hn::InterleaveUpper(d64, hi01, hi23)), 3);  // lanes 4c+3
}

#else
// ------------------------------------------------------------------ wide lanes

using DState = DU64;  // one block per 64-bit lane, word in the low half
using VState = VU64;

// hi in the low half; lo is the whole product (low half = lo).
HWY_INLINE void Multiply(VState x, uint32_t m, VState* hi, VState* lo) {
  *lo = hn::MulEven(hn::BitCast(DU32(), x), hn::Set(DU32(), m));
  *hi = hn::ShiftRight<32>(*lo);
}

// Round 0's products as kMul0 * w + kMul0 * lanes[i] (see the narrow lanes):
// one vector of whole products; `odd` only mirrors the narrow lanes' pair.
HWY_INLINE void MulLanes(VState lanes, VU64* even, VU64* odd) {
  *even = hn::MulEven(hn::BitCast(DU32(), lanes), hn::Set(DU32(), philox::kMul0));
  *odd = *even;
}
HWY_INLINE void Products(VU64 even, VU64 /*odd*/, VState* hi, VState* lo) {
  *hi = hn::ShiftRight<32>(even);
  *lo = even;
}

constexpr int kLog2LanesPerChunk = 1;  // two 64-bit lanes per 128-bit chunk

// Transposes one vector of blocks back to block order: two output vectors.
template <class StoreFn>
HWY_INLINE void TransposeBlocks(VU64 x0, VU64 x1, VU64 x2, VU64 x3, const StoreFn& store) {
  const DU32 d32;
  const DU64 d64;
  // Per 128-bit chunk (lanes 2c, 2c+1; words a, b, c, d; g = garbage):
  // lo01 = [a0 b0 g g], hi01 = [a1 b1 g g], and likewise for words 2, 3.
  const auto w = [&](VU64 v) { return hn::BitCast(d32, v); };
  const VU64 lo01 = hn::BitCast(d64, hn::InterleaveLower(d32, w(x0), w(x1)));
  const VU64 lo23 = hn::BitCast(d64, hn::InterleaveLower(d32, w(x2), w(x3)));
  const VU64 hi01 = hn::BitCast(d64, hn::InterleaveUpper(d32, w(x0), w(x1)));
  const VU64 hi23 = hn::BitCast(d64, hn::InterleaveUpper(d32, w(x2), w(x3)));
  store(w(hn::InterleaveLower(d64, lo01, lo23)), 0);  // [a0 b0 c0 d0]: lanes 2c
  store(w(hn::InterleaveLower(d64, hi01, hi23)), 1);  // [a1 b1 c1 d1]: lanes 2c+1
}

#endif  // narrow or wide lanes

// Round 0's lane products advanced by a scalar: kMul0 * (w + lanes[i]).
HWY_INLINE void Offset(uint64_t base, VU64* even, VU64* odd) {
  const VU64 b = hn::Set(DU64(), base);
  *even = hn::Add(b, *even);
  *odd = hn::Add(b, *odd);
}

// ------------------------------------------------------------------ batches

// One vector of Philox blocks in flight: its four state words, in vectors
// that are local variables of the caller (WithBatches). SVE's vectors are
// sizeless, so they cannot be members or array elements; a batch names the
// caller's locals instead of holding them, and the compiler keeps them in
// registers once everything is inlined.
struct Batch {
  VState& x0;
  VState& x1;
  VState& x2;
  VState& x3;
};

// Calls f(batches...) with kBatches batches of fresh local state vectors.
template <size_t kBatches, class F, class... B>
HWY_INLINE void WithBatches(const F& f, B... batches) {
  if constexpr (sizeof...(B) == kBatches) {
    f(batches...);
  } else {
    VState x0, x1, x2, x3;
    WithBatches<kBatches>(f, batches..., Batch{x0, x1, x2, x3});
  }
}

// f(batch, b) for every batch in order, b its index: one step of every
// batch side by side in program order, which hides the multiplier latency.
template <class F, class... B>
HWY_INLINE void ForEachBatch(const F& f, B... batches) {
  size_t b = 0;
  (f(batches, b++), ...);
}

// ------------------------------------------------------------- shared rounds

// Block offset (within one vector of N blocks) that each lane computes. With
// P lanes per 128-bit chunk and C = N / P chunks, lane P*c + r holds block
// C*r + c: after the in-chunk transpose, output vector r holds blocks
// C*r .. C*r + C - 1 in order, which is contiguous memory.
HWY_INLINE VState BlockOfLane() {
  const DState d;
  using T = hn::TFromD<DState>;
  const VState lane = hn::Iota(d, 0);
  const VState r = hn::And(lane, hn::Set(d, T{(1u << kLog2LanesPerChunk) - 1}));
  const VState c = hn::ShiftRight<kLog2LanesPerChunk>(lane);
  const T chunks = static_cast<T>(hn::Lanes(d) >> kLog2LanesPerChunk);
  return hn::Add(hn::Mul(r, hn::Set(d, chunks)), c);  // small values: Mul is exact
}

// Blocks per state vector.
HWY_INLINE size_t BlocksPerVector() { return hn::Lanes(DState()); }

// One Philox round on every batch with this round's keys.
template <class... B>
HWY_INLINE void Round(uint32_t k0, uint32_t k1, B... batches) {
  ForEachBatch(
      [&](Batch x, size_t) __attribute__((always_inline)) {
        VState hi0, lo0, hi1, lo1;
        Multiply(x.x0, philox::kMul0, &hi0, &lo0);
        Multiply(x.x2, philox::kMul1, &hi1, &lo1);
        x.x0 = Xor3Key(hi1, x.x1, k0);
        x.x2 = Xor3Key(hi0, x.x3, k1);
        x.x1 = lo1;
        x.x3 = lo0;
      },
      batches...);
}

#if !RANDTENSOR_HAVE_XOR3
// v, hidden from GCC's reassociation of XORs (an empty asm that claims to
// change it; no instruction). Not for clang: in a function whose AVX2 comes
// from a target attribute (foreach_target), clang 14 cannot keep a 256-bit
// asm operand in a register and rejects the asm.
HWY_INLINE VState Opaque(VState v) {
#if HWY_COMPILER_GCC && !HWY_COMPILER_CLANG && HWY_ARCH_X86
  asm("" : "+x"(v.raw));
#elif HWY_COMPILER_GCC && !HWY_COMPILER_CLANG && HWY_ARCH_ARM_A64 && HWY_HAVE_SCALABLE
  asm("" : "+w"(v));  // SVE: the vector is the sizeless type itself
#elif HWY_COMPILER_GCC && !HWY_COMPILER_CLANG && HWY_ARCH_ARM_A64
  asm("" : "+w"(v.raw));
#endif
  return v;
}
#endif

// Rounds 2 to kEnd - 1 of every batch, one straight-line copy for every
// caller: with constant bounds the compiler unrolls them fully and keeps the
// state in registers; a loop from a run-time first round would stay rolled,
// reloading the keys and spilling the state every round.
template <int kEnd = philox::kRounds, class... B>
HWY_INLINE void LaterRounds(const RoundKeys& keys, B... batches) {
#if RANDTENSOR_HAVE_XOR3
  // One three-input XOR per new word: nothing to gain from reordering.
  HWY_UNROLL(8)
  for (int r = 2; r < kEnd; ++r) Round(keys.k0[r], keys.k1[r], batches...);
#else
  // Without a three-input XOR, x0' = hi ^ x1 ^ key is two dependent XORs,
  // and GCC's reassociation puts the key last: multiply, shift and two XORs
  // on the path from one round's multiply to the next. So x1 and x3 carry
  // the next round's key from the moment they are made (off that path) and
  // the path has one XOR.
  ForEachBatch(  // (x3 is often uniform: foldable)
      [&](Batch x, size_t) __attribute__((always_inline)) {
        x.x1 = XorKey(x.x1, keys.k0[2]);
        x.x3 = XorKey(x.x3, keys.k1[2]);
      },
      batches...);
  HWY_UNROLL(8)
  for (int r = 2; r < kEnd; ++r) {
    ForEachBatch(
        [&](Batch x, size_t) __attribute__((always_inline)) {
          VState hi0, lo0, hi1, lo1;
          Multiply(x.x0, philox::kMul0, &hi0, &lo0);
          Multiply(x.x2, philox::kMul1, &hi1, &lo1);
          x.x0 = hn::Xor(hi1, x.x1);
          x.x2 = hn::Xor(hi0, x.x3);
          if (r + 1 < philox::kRounds) {
            x.x1 = Opaque(XorKey(lo1, keys.k0[r + 1]));
            x.x3 = Opaque(XorKey(lo0, keys.k1[r + 1]));
          } else {
            x.x1 = lo1;
            x.x3 = lo0;
          }
        },
        batches...);
  }
#endif
}

// What rounds 0 and 1 take from counter words 1-3 where those are uniform
// (see the top of this file), folded with the keys: XOR masks and round 1's
// x3, all uniform.
struct FirstRounds {
  uint32_t y2_mask;  // round 0: y2 = hi(kMul0 * w0) ^ y2_mask
  uint32_t x0_mask;  // round 1: x0 = hi(kMul1 * y2) ^ x0_mask
  uint32_t x2_mask;  // round 1: x2 = lo(kMul0 * w0) ^ x2_mask
  uint32_t x3;       // round 1: x3
};
HWY_INLINE FirstRounds FirstRoundWords(const Counter128& first, const RoundKeys& keys) {
  const uint64_t q1 = uint64_t{philox::kMul1} * first.w[2];  // round 0, word 2
  const uint32_t y0 = Hi(q1) ^ first.w[1] ^ keys.k0[0];       // round 0's x0
  const uint64_t q0 = uint64_t{philox::kMul0} * y0;           // round 1, word 0
  return {first.w[3] ^ keys.k1[0], Lo(q1) ^ keys.k0[1], Hi(q0) ^ keys.k1[1], Lo(q0)};
}

// Rounds 0 and 1 of every batch with uniform counter words 1-3
// (f = FirstRoundWords): round0(b, &hi, &lo) gives batch b's round-0
// products kMul0 * word 0 (Products of MulLanes offset to the batch's first
// word); it is called once per batch, in order (UniformRun keeps a running
// sum).
template <class Round0Fn, class... B>
HWY_INLINE void UniformFirstRounds(const Round0Fn& round0, const FirstRounds& f, B... batches) {
  const VState x3_all = hn::Set(DState(), f.x3);
  ForEachBatch(
      [&](Batch x, size_t b) __attribute__((always_inline)) {
        VState hi0, lo0, hi1, lo1;
        round0(b, &hi0, &lo0);                                        // round 0
        Multiply(XorKey(hi0, f.y2_mask), philox::kMul1, &hi1, &lo1);  // round 1
        x.x0 = XorKey(hi1, f.x0_mask);
        x.x1 = lo1;
        x.x2 = XorKey(lo0, f.x2_mask);
        x.x3 = x3_all;
      },
      batches...);
}

// Blocks from counter c on before its word 0 carries into word 1 (at least
// 1, at most 2^32): the vector rounds give lanes consecutive word-0 values
// and take words 1-3 as uniform, which holds only within these. The one
// place every kernel asks.
HWY_INLINE uint64_t BlocksBeforeCarry(const Counter128& c) {
  return (uint64_t{1} << 32) - c.w[0];
}

// Ten rounds on every batch; lane i of batch b holds the counter
// first + delta(b) + lanes[i] (lanes_max: the largest lanes[i]). Contiguous
// runs use lanes = BlockOfLane() and delta(b) = b * N; the column writer
// gives each lane its own run (lanes[i] = i * run length).
template <class DeltaFn, class... B>
HWY_INLINE void PhiloxBatches(const Counter128& first, const DeltaFn& delta, VState lanes,
                              uint64_t lanes_max, const RoundKeys& keys, B... batches) {
  const DState d;
  constexpr size_t kBatches = sizeof...(B);
  // Words 1-3 are uniform when no lane's word 0 carries.
  const uint64_t room = BlocksBeforeCarry(first);
  bool uniform = true;
  for (size_t b = 0; b < kBatches; ++b) uniform &= delta(b) + lanes_max < room;
  if (HWY_LIKELY(uniform)) {
    // kMul0 * (w + lanes[i]) = kMul0 * w + kMul0 * lanes[i], below 2^64.
    VU64 even, odd;
    MulLanes(lanes, &even, &odd);
    UniformFirstRounds(
        [&](size_t b, VState * hi, VState * lo) __attribute__((always_inline)) {
          VU64 e = even, o = odd;
          Offset(uint64_t{philox::kMul0} * (first.w[0] + delta(b)), &e, &o);
          Products(e, o, hi, lo);
        },
        FirstRoundWords(first, keys), batches...);
  } else {
    // Once per 2^32 blocks: each lane's full 128-bit counter, by the reference
    // addition, then rounds 0 and 1 in full.
    const size_t N = hn::Lanes(d);
    using T = hn::TFromD<DState>;
    HWY_ALIGN T offs[hn::MaxLanes(d)];
    HWY_ALIGN T w[4][hn::MaxLanes(d)];
    hn::Store(lanes, d, offs);
    ForEachBatch(
        [&](Batch x, size_t b) __attribute__((always_inline)) {
          for (size_t i = 0; i < N; ++i) {
            const Counter128 c = first.Plus(delta(b) + offs[i]);
            for (int k = 0; k < 4; ++k) w[k][i] = c.w[k];
          }
          x.x0 = hn::Load(d, w[0]);
          x.x1 = hn::Load(d, w[1]);
          x.x2 = hn::Load(d, w[2]);
          x.x3 = hn::Load(d, w[3]);
        },
        batches...);
    for (int r = 0; r < 2; ++r) Round(keys.k0[r], keys.k1[r], batches...);
  }
  LaterRounds(keys, batches...);
}

// Round 9 of every batch (state after round 8 as LaterRounds<9> leaves it)
// fused with the transpose to block order: sink(x, b, i, v) receives batch
// b's words in block order, vector i of 1 << kLog2LanesPerChunk (the words
// at 4 N b + i Lanes(DU32) of a contiguous run), in order of b, then i; x is
// the batch, whose state the sink may overwrite (every vector of a batch is
// made before the first goes to the sink). The products already hold each
// block's word pairs side by side, so the new words are made in place and
// one shuffle per pair puts them in memory order: 18 instead of 20
// operations per 16 blocks on AVX-512, 10 instead of 12 per 4 blocks on
// AVX2.
template <class Sink, class... B>
HWY_INLINE void LastRound(const RoundKeys& keys, const Sink& sink, B... batches) {
  const DU32 d32;
  const DU64 d64;
  const VU32 m0 = hn::Set(d32, philox::kMul0), m1 = hn::Set(d32, philox::kMul1);
  ForEachBatch(
      [&](Batch x, size_t b) __attribute__((always_inline)) {
#if RANDTENSOR_NARROW_LANES
        constexpr int r = philox::kRounds - 1;
        // 64-bit lane i of e (o) holds [lo, hi] of 32-bit lane 2i (2i + 1).
        // Even lanes: swap to [hi, lo], then hi ^= x ^ key in the even words;
        // odd lanes: hi ^= x ^ key in the odd words (where x's odd lanes are),
        // then swap. Each gives [x0', x1'] (or [x2', x3']) per block.
        const auto odd = [&](VU32 v) {
          return hn::BitCast(d32, hn::ShiftRight<32>(hn::BitCast(d64, v)));
        };
        const VU64 e0 = hn::MulEven(x.x0, m0), o0 = hn::MulEven(odd(x.x0), m0);
        const VU64 e1 = hn::MulEven(x.x2, m1), o1 = hn::MulEven(odd(x.x2), m1);
        const auto even_pair = [&](VU64 e, VU32 v, uint32_t k) {
          const VU32 swapped = hn::Shuffle2301(hn::BitCast(d32, e));
          return hn::BitCast(d64, VU32{_mm512_mask_ternarylogic_epi32(swapped.raw, 0x5555, v.raw,
                                                                      hn::Set(d32, k).raw, 0x96)});
        };
        const auto odd_pair = [&](VU64 o, VU32 v, uint32_t k) {
          const VU32 keyed{_mm512_mask_ternarylogic_epi32(hn::BitCast(d32, o).raw, 0xAAAA, v.raw,
                                                          hn::Set(d32, k).raw, 0x96)};
          return hn::BitCast(d64, hn::Shuffle2301(keyed));
        };
        const VU64 a_even = even_pair(e1, x.x1, keys.k0[r]);  // [x0', x1'], lanes 4c, 4c + 2
        const VU64 b_even = even_pair(e0, x.x3, keys.k1[r]);  // [x2', x3']
        const VU64 a_odd = odd_pair(o1, x.x1, keys.k0[r]);    // lanes 4c + 1, 4c + 3
        const VU64 b_odd = odd_pair(o0, x.x3, keys.k1[r]);
        sink(x, b, 0, hn::BitCast(d32, hn::InterleaveLower(d64, a_even, b_even)));  // lanes 4c
        sink(x, b, 1, hn::BitCast(d32, hn::InterleaveLower(d64, a_odd, b_odd)));    // 4c + 1
        sink(x, b, 2, hn::BitCast(d32, hn::InterleaveUpper(d64, a_even, b_even)));  // 4c + 2
        sink(x, b, 3, hn::BitCast(d32, hn::InterleaveUpper(d64, a_odd, b_odd)));    // 4c + 3
#else
        // The products are [lo, hi]; x ^ key shifted up turns them into
        // [x1', x0'] and [x3', x2']. Without a three-input XOR, LaterRounds
        // has already put this round's keys into x1 and x3.
#if RANDTENSOR_HAVE_XOR3
        const VState x1 = XorKey(x.x1, keys.k0[philox::kRounds - 1]);
        const VState x3 = XorKey(x.x3, keys.k1[philox::kRounds - 1]);
#else
        (void)keys;
        const VState x1 = x.x1, x3 = x.x3;
#endif
        const VU64 p0 = hn::MulEven(hn::BitCast(d32, x.x0), m0);
        const VU64 p1 = hn::MulEven(hn::BitCast(d32, x.x2), m1);
        const VU64 a = hn::Xor(p1, hn::ShiftLeft<32>(x1));  // [x1', x0']
        const VU64 c = hn::Xor(p0, hn::ShiftLeft<32>(x3));  // [x3', x2']
        // Per 128-bit chunk: [x1 x0 x3 x2] of lane 2c (2c + 1), then word order.
        const VU32 v0 = hn::Shuffle2301(hn::BitCast(d32, hn::InterleaveLower(d64, a, c)));
        const VU32 v1 = hn::Shuffle2301(hn::BitCast(d32, hn::InterleaveUpper(d64, a, c)));
        sink(x, b, 0, v0);
        sink(x, b, 1, v1);
#endif
      },
      batches...);
}

// Word vector i of a batch that LastRound's sink overwrote (InPlace).
HWY_INLINE VU32 WordOf(Batch x, size_t i) {
  const DU32 d32;
  return hn::BitCast(d32, i == 0 ? x.x0 : i == 1 ? x.x1 : i == 2 ? x.x2 : x.x3);
}
// A LastRound sink that leaves batch x's words in block order in its own
// state vectors: x0, x1 (and x2, x3 on narrow lanes) = vectors 0, 1 (2, 3).
struct InPlace {
  HWY_INLINE void operator()(Batch x, size_t, size_t i, VU32 v) const {
    const VState s = hn::BitCast(DState(), v);
    if (i == 0) x.x0 = s;
    if (i == 1) x.x1 = s;
    if (i == 2) x.x2 = s;
    if (i == 3) x.x3 = s;
  }
};

// Consecutive vectors of blocks from counter `first`, word 0 not carrying
// before the last of them (the caller checks): counter words 1-3, round 0's
// lane products and the keys' masks are computed once for the whole run, not
// once per group, and round 0's products advance by one add of kMul0 * N per
// vector (exact: word 0 stays below 2^32). The running products live in
// aligned arrays between groups (vectors cannot be members: see Batch) and
// in registers within one.
class UniformRun {
 public:
  UniformRun(const Counter128& first, const RoundKeys& keys)
      : f_(FirstRoundWords(first, keys)), step_(uint64_t{philox::kMul0} * BlocksPerVector()) {
    VU64 even, odd;
    MulLanes(BlockOfLane(), &even, &odd);
    Offset(uint64_t{philox::kMul0} * first.w[0], &even, &odd);
    hn::Store(even, DU64(), even_);
    hn::Store(odd, DU64(), odd_);
  }

  // The running products, in local vectors while a loop of groups runs:
  // Load before the loop, Next with them, Save after it (a loop that kept
  // them in the arrays would store and reload them every group, since the
  // output's vector stores may alias them).
  HWY_INLINE void Load(VU64* even, VU64* odd) const {
    *even = hn::Load(DU64(), even_);
    *odd = hn::Load(DU64(), odd_);
  }
  HWY_INLINE void Save(VU64 even, VU64 odd) {
    hn::Store(even, DU64(), even_);
    hn::Store(odd, DU64(), odd_);
  }

  // Rounds [0, kEnd) of the run's next sizeof...(B) vectors (kEnd = 9 leaves
  // them as LastRound wants them); *even and *odd (Load) advance past them.
  template <int kEnd = philox::kRounds, class... B>
  HWY_INLINE void Next(const RoundKeys& keys, VU64* even, VU64* odd, B... batches) const {
    const VU64 step = hn::Set(DU64(), step_);
    UniformFirstRounds(
        [&](size_t, VState * hi, VState * lo) __attribute__((always_inline)) {
          Products(*even, *odd, hi, lo);
          *even = hn::Add(*even, step);
#if RANDTENSOR_NARROW_LANES  // wide lanes: *even holds the whole products
          *odd = hn::Add(*odd, step);
#endif
        },
        f_, batches...);
    LaterRounds<kEnd>(keys, batches...);
  }

 private:
  FirstRounds f_;
  uint64_t step_;
  HWY_ALIGN uint64_t even_[hn::MaxLanes(DU64())];  // round 0's products, next vector
  HWY_ALIGN uint64_t odd_[hn::MaxLanes(DU64())];
};

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_PHILOX_INL_H_ toggle guard
