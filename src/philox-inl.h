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
// - AVX-512 ("narrow" lanes): one block per 32-bit lane. The 32x32->64
//   multiplies run on even and odd lanes separately (vpmuludq) and are merged
//   back with masked shuffles, one instruction per merge.
// - AVX2, SSE4, SSSE3 ("wide" lanes, no masked shuffles): one block per
//   64-bit lane, each word in the lane's low half. vpmuludq then yields the
//   whole 64-bit product in place: its low word is already where the next
//   round wants it and its high word is one shift away, so a round needs no
//   shuffle at all. Upper lane halves carry garbage that no op ever reads.
//
// In both, words 1-3 of the counter are the same in every lane of a batch
// (unless word 0 carries, once per 2^32 blocks), so round 0's product of word
// 2 and round 1's product of round 0's word 0 are scalar constants: those two
// rounds need half the vector multiplies. Round 0's other product, kMul0 times
// consecutive counters, is a running sum (vector adds, no multiply), and the
// bits kernel's round 9 is fused with its transpose (UniformGroups).
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

#if HWY_TARGET <= HWY_AVX3
// ---------------------------------------------------------------- narrow lanes

using DState = DU32;  // one block per 32-bit lane
using VState = VU32;

// High and low words of x * m in every lane.
struct Product {
  VState hi, lo;
};

// The 64-bit products of the even lanes and of the odd lanes merged into
// high and low words: one masked shuffle (swap word pairs, keep the other
// product's lanes) per merge.
HWY_INLINE Product Merge(VU64 even, VU64 odd) {
  Product p;
  p.hi = VU32{_mm512_mask_shuffle_epi32(odd.raw, 0x5555, even.raw, _MM_PERM_CDAB)};
  p.lo = VU32{_mm512_mask_shuffle_epi32(even.raw, 0xAAAA, odd.raw, _MM_PERM_CDAB)};
  return p;
}

// vpmuludq on the even lanes and on the odd lanes (shifted down), merged.
HWY_INLINE Product Multiply(VState x, uint32_t m) {
  const DU32 d32;
  const DU64 d64;
  const VU32 vm = hn::Set(d32, m);
  return Merge(hn::MulEven(x, vm),
               hn::MulEven(hn::BitCast(d32, hn::ShiftRight<32>(hn::BitCast(d64, x))), vm));
}

// Round 0's products kMul0 * (w + lanes[i]) as kMul0 * w (a scalar) plus
// kMul0 * lanes[i] (once per call): exact, since the sum stays below 2^64
// where words 1-3 are uniform. Two adds instead of two multiplies and a
// shift.
struct LaneProducts {
  VU64 even, odd;
};
HWY_INLINE LaneProducts MulLanes(VState lanes) {
  const DU32 d32;
  const DU64 d64;
  const VU32 vm = hn::Set(d32, philox::kMul0);
  return {hn::MulEven(lanes, vm),
          hn::MulEven(hn::BitCast(d32, hn::ShiftRight<32>(hn::BitCast(d64, lanes))), vm)};
}
HWY_INLINE LaneProducts Offset(const LaneProducts& lp, uint64_t base) {
  const VU64 b = hn::Set(DU64(), base);
  return {hn::Add(b, lp.even), hn::Add(b, lp.odd)};
}
HWY_INLINE Product Products(const LaneProducts& lp) { return Merge(lp.even, lp.odd); }

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

struct Product {
  VState hi, lo;  // hi in the low half; lo is the whole product (low half = lo)
};
HWY_INLINE Product Multiply(VState x, uint32_t m) {
  Product p;
  p.lo = hn::MulEven(hn::BitCast(DU32(), x), hn::Set(DU32(), m));
  p.hi = hn::ShiftRight<32>(p.lo);
  return p;
}

// Round 0's products as kMul0 * w + kMul0 * lanes[i] (see the narrow lanes).
struct LaneProducts {
  VU64 v;
};
HWY_INLINE LaneProducts MulLanes(VState lanes) {
  return {hn::MulEven(hn::BitCast(DU32(), lanes), hn::Set(DU32(), philox::kMul0))};
}
HWY_INLINE LaneProducts Offset(const LaneProducts& lp, uint64_t base) {
  return {hn::Add(hn::Set(DU64(), base), lp.v)};
}
HWY_INLINE Product Products(const LaneProducts& lp) { return {hn::ShiftRight<32>(lp.v), lp.v}; }

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

// One Philox round on kBatches vectors with this round's keys.
template <size_t kBatches>
HWY_INLINE void Round(VState (&x0)[kBatches], VState (&x1)[kBatches], VState (&x2)[kBatches],
                      VState (&x3)[kBatches], uint32_t k0, uint32_t k1) {
  for (size_t b = 0; b < kBatches; ++b) {
    const Product p0 = Multiply(x0[b], philox::kMul0);
    const Product p1 = Multiply(x2[b], philox::kMul1);
    x0[b] = Xor3Key(p1.hi, x1[b], k0);
    x2[b] = Xor3Key(p0.hi, x3[b], k1);
    x1[b] = p1.lo;
    x3[b] = p0.lo;
  }
}

#if HWY_TARGET > HWY_AVX3
// v, hidden from GCC's reassociation of XORs (an empty asm that claims to
// change it; no instruction). Not for clang: in a function whose AVX2 comes
// from a target attribute (foreach_target), clang 14 cannot keep a 256-bit
// asm operand in a register and rejects the asm.
HWY_INLINE VState Opaque(VState v) {
#if HWY_COMPILER_GCC && !HWY_COMPILER_CLANG
  asm("" : "+x"(v.raw));
#endif
  return v;
}
#endif

// Rounds 2-9, one straight-line copy for PhiloxBatches' two paths: constant
// bounds let the compiler unroll them fully and keep the state in registers
// (the former loop from a run-time first round stayed rolled on AVX2, with
// the keys reloaded and the state spilled every round).
template <size_t kBatches, int kEnd = philox::kRounds>
HWY_INLINE void LaterRounds(const RoundKeys& keys, VState (&x0)[kBatches],
                            VState (&x1)[kBatches], VState (&x2)[kBatches],
                            VState (&x3)[kBatches]) {
#if HWY_TARGET <= HWY_AVX3
  // One vpternlogd per new word: nothing to gain from reordering the XORs.
  HWY_UNROLL(8)
  for (int r = 2; r < kEnd; ++r) {
    Round<kBatches>(x0, x1, x2, x3, keys.k0[r], keys.k1[r]);
  }
#else
  // Without a three-input XOR, x0' = hi ^ x1 ^ key is two dependent XORs,
  // and the compiler's reassociation put the key last: multiply, shift and
  // two XORs (9 cycles on Zen 5) on the path from one round's multiply to
  // the next. So x1 and x3 carry the next round's key from the moment they
  // are made (off that path) and the path has one XOR.
  for (size_t b = 0; b < kBatches; ++b) {  // (x3 is often uniform: foldable)
    x1[b] = XorKey(x1[b], keys.k0[2]);
    x3[b] = XorKey(x3[b], keys.k1[2]);
  }
  HWY_UNROLL(8)
  for (int r = 2; r < kEnd; ++r) {
    for (size_t b = 0; b < kBatches; ++b) {
      const Product p0 = Multiply(x0[b], philox::kMul0);
      const Product p1 = Multiply(x2[b], philox::kMul1);
      x0[b] = hn::Xor(p1.hi, x1[b]);
      x2[b] = hn::Xor(p0.hi, x3[b]);
      if (r + 1 < philox::kRounds) {
        x1[b] = Opaque(XorKey(p1.lo, keys.k0[r + 1]));
        x3[b] = Opaque(XorKey(p0.lo, keys.k1[r + 1]));
      } else {
        x1[b] = p1.lo;
        x3[b] = p0.lo;
      }
    }
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

// Rounds 0 and 1 of kBatches vectors with uniform counter words 1-3
// (f = FirstRoundWords): round0(b) gives batch b's round-0 products
// kMul0 * word 0, as Products of MulLanes offset to the batch's first word;
// it is called once per batch, in order (UniformGroups' keeps a running sum).
template <size_t kBatches, class Round0Fn>
HWY_INLINE void UniformFirstRounds(const Round0Fn& round0, const FirstRounds& f,
                                   VState (&x0)[kBatches], VState (&x1)[kBatches],
                                   VState (&x2)[kBatches], VState (&x3)[kBatches]) {
  const VState x3_all = hn::Set(DState(), f.x3);
  for (size_t b = 0; b < kBatches; ++b) {
    const Product p0 = round0(b);                                          // round 0
    const Product p1 = Multiply(XorKey(p0.hi, f.y2_mask), philox::kMul1);  // round 1
    x0[b] = XorKey(p1.hi, f.x0_mask);
    x1[b] = p1.lo;
    x2[b] = XorKey(p0.lo, f.x2_mask);
    x3[b] = x3_all;
  }
}

// Ten rounds on kBatches vectors; lane i of batch b holds the counter
// first + delta(b) + lanes[i] (lanes_max: the largest lanes[i]). Contiguous
// runs use lanes = BlockOfLane() and delta(b) = b * N; the column writer
// gives each lane its own run (lanes[i] = i * run length).
template <size_t kBatches, class DeltaFn>
HWY_INLINE void PhiloxBatches(const Counter128& first, const DeltaFn& delta, VState lanes,
                              uint64_t lanes_max, const RoundKeys& keys,
                              VState (&x0)[kBatches], VState (&x1)[kBatches],
                              VState (&x2)[kBatches], VState (&x3)[kBatches]) {
  const DState d;
  // Words 1-3 are uniform when no lane's word 0 passes 2^32 - 1.
  const uint64_t room = 0xFFFFFFFFu - first.w[0];
  bool uniform = true;
  for (size_t b = 0; b < kBatches; ++b) uniform &= delta(b) + lanes_max <= room;
  if (HWY_LIKELY(uniform)) {
    // kMul0 * (w + lanes[i]) = kMul0 * w + kMul0 * lanes[i], below 2^64.
    const LaneProducts lp = MulLanes(lanes);
    UniformFirstRounds<kBatches>(
        [&](size_t b) {
          return Products(Offset(lp, uint64_t{philox::kMul0} * (first.w[0] + delta(b))));
        },
        FirstRoundWords(first, keys), x0, x1, x2, x3);
  } else {
    // Once per 2^32 blocks: each lane's full 128-bit counter, by the reference
    // addition, then rounds 0 and 1 in full.
    const size_t N = hn::Lanes(d);
    using T = hn::TFromD<DState>;
    HWY_ALIGN T offs[hn::MaxLanes(d)];
    HWY_ALIGN T w[4][hn::MaxLanes(d)];
    hn::Store(lanes, d, offs);
    for (size_t b = 0; b < kBatches; ++b) {
      for (size_t i = 0; i < N; ++i) {
        const Counter128 c = first.Plus(delta(b) + offs[i]);
        for (int k = 0; k < 4; ++k) w[k][i] = c.w[k];
      }
      x0[b] = hn::Load(d, w[0]);
      x1[b] = hn::Load(d, w[1]);
      x2[b] = hn::Load(d, w[2]);
      x3[b] = hn::Load(d, w[3]);
    }
    for (int r = 0; r < 2; ++r) Round<kBatches>(x0, x1, x2, x3, keys.k0[r], keys.k1[r]);
  }
  LaterRounds<kBatches>(keys, x0, x1, x2, x3);
}

// Transposes kBatches vectors of blocks (lanes as BlockOfLane()) to block
// order and stores batch b to out(b)[0 .. 4 * N); kStream and last_plain as
// for GenerateBatches.
template <size_t kBatches, bool kStream, class OutFn>
HWY_INLINE void StoreBatches(VState (&x0)[kBatches], VState (&x1)[kBatches],
                             VState (&x2)[kBatches], VState (&x3)[kBatches], const OutFn& out,
                             bool last_plain) {
  const DU32 d32;
  const size_t N32 = hn::Lanes(d32);
  for (size_t b = 0; b < kBatches; ++b) {
    uint32_t* HWY_RESTRICT dst = out(b);
    const bool stream = kStream && !(last_plain && b + 1 == kBatches);
    TransposeBlocks(x0[b], x1[b], x2[b], x3[b], [&](VU32 v, size_t i) {
      if (stream) {
        hn::Stream(v, d32, dst + i * N32);
      } else {
        hn::StoreU(v, d32, dst + i * N32);
      }
    });
  }
}

// Writes kBatches vectors of BlocksPerVector() consecutive Philox blocks
// (lane_block: BlockOfLane()): batch b, counters first + delta(b) onwards,
// goes to out(b)[0 .. 4 * N). kStream selects non-temporal stores, which need
// every out(b) aligned to the vector size. With `last_plain`, the last batch
// is stored plainly: a run that ends in a partial vector computes it in the
// same interleaved group, into a scratch buffer.
template <size_t kBatches, bool kStream, class DeltaFn, class OutFn>
HWY_INLINE void GenerateBatches(const Counter128& first, const DeltaFn& delta,
                                const RoundKeys& keys, VState lane_block, const OutFn& out,
                                bool last_plain) {
  VState x0[kBatches], x1[kBatches], x2[kBatches], x3[kBatches];
  PhiloxBatches<kBatches>(first, delta, lane_block, BlocksPerVector() - 1, keys, x0, x1, x2, x3);
  StoreBatches<kBatches, kStream>(x0, x1, x2, x3, out, last_plain);
}

// Round 9 of kBatches vectors (state after round 8 as LaterRounds<kBatches,
// 9> leaves it) fused with the transpose of StoreBatches: sink(b, i, v)
// receives batch b's words in block order, vector i of 1 << kLog2LanesPerChunk
// (the words at 4 N b + i Lanes(DU32) of a contiguous run), in order of b, then
// i. The products already hold each block's word pairs side by side, so the
// new words are made in place and one shuffle per pair puts them in memory
// order: 18 instead of 20 operations per 16 blocks on AVX-512, 10 instead of
// 12 per 4 blocks on AVX2.
template <size_t kBatches, class Sink>
HWY_INLINE void LastRound(const RoundKeys& keys, VState (&x0)[kBatches], VState (&x1)[kBatches],
                          VState (&x2)[kBatches], VState (&x3)[kBatches], const Sink& sink) {
  constexpr int r = philox::kRounds - 1;
  const DU32 d32;
  const DU64 d64;
  const VU32 m0 = hn::Set(d32, philox::kMul0), m1 = hn::Set(d32, philox::kMul1);
  // Unrolled, so that the state stays in registers (indexed by a constant);
  // with a conversion in the sink GCC otherwise keeps the loop and spills
  // every batch's state to the stack.
  HWY_UNROLL(8)
  for (size_t b = 0; b < kBatches; ++b) {
    const auto put = [&](VU32 v, size_t i) { sink(b, i, v); };
#if HWY_TARGET <= HWY_AVX3
    // 64-bit lane i of e (o) holds [lo, hi] of 32-bit lane 2i (2i + 1).
    // Even lanes: swap to [hi, lo], then hi ^= x ^ key in the even words;
    // odd lanes: hi ^= x ^ key in the odd words (where x's odd lanes are),
    // then swap. Each gives [x0', x1'] (or [x2', x3']) per block.
    const auto odd = [&](VU32 v) {
      return hn::BitCast(d32, hn::ShiftRight<32>(hn::BitCast(d64, v)));
    };
    const VU64 e0 = hn::MulEven(x0[b], m0), o0 = hn::MulEven(odd(x0[b]), m0);
    const VU64 e1 = hn::MulEven(x2[b], m1), o1 = hn::MulEven(odd(x2[b]), m1);
    const auto even_pair = [&](VU64 e, VU32 x, uint32_t k) {
      const VU32 swapped = hn::Shuffle2301(hn::BitCast(d32, e));
      return hn::BitCast(d64, VU32{_mm512_mask_ternarylogic_epi32(
                                  swapped.raw, 0x5555, x.raw, hn::Set(d32, k).raw, 0x96)});
    };
    const auto odd_pair = [&](VU64 o, VU32 x, uint32_t k) {
      const VU32 keyed{_mm512_mask_ternarylogic_epi32(hn::BitCast(d32, o).raw, 0xAAAA, x.raw,
                                                      hn::Set(d32, k).raw, 0x96)};
      return hn::BitCast(d64, hn::Shuffle2301(keyed));
    };
    const VU64 a_even = even_pair(e1, x1[b], keys.k0[r]);  // [x0', x1'], lanes 4c, 4c + 2
    const VU64 b_even = even_pair(e0, x3[b], keys.k1[r]);  // [x2', x3']
    const VU64 a_odd = odd_pair(o1, x1[b], keys.k0[r]);    // lanes 4c + 1, 4c + 3
    const VU64 b_odd = odd_pair(o0, x3[b], keys.k1[r]);
    put(hn::BitCast(d32, hn::InterleaveLower(d64, a_even, b_even)), 0);  // lanes 4c
    put(hn::BitCast(d32, hn::InterleaveLower(d64, a_odd, b_odd)), 1);    // 4c + 1
    put(hn::BitCast(d32, hn::InterleaveUpper(d64, a_even, b_even)), 2);  // 4c + 2
    put(hn::BitCast(d32, hn::InterleaveUpper(d64, a_odd, b_odd)), 3);    // 4c + 3
#else
    // x1 and x3 carry this round's keys (LaterRounds). The products are
    // [lo, hi]; x ^ key shifted up turns them into [x1', x0'] and [x3', x2'].
    (void)keys;
    const VU64 p0 = hn::MulEven(hn::BitCast(d32, x0[b]), m0);
    const VU64 p1 = hn::MulEven(hn::BitCast(d32, x2[b]), m1);
    const VU64 a = hn::Xor(p1, hn::ShiftLeft<32>(x1[b]));  // [x1', x0']
    const VU64 c = hn::Xor(p0, hn::ShiftLeft<32>(x3[b]));  // [x3', x2']
    // Per 128-bit chunk: [x1 x0 x3 x2] of lane 2c (2c + 1), then word order.
    put(hn::Shuffle2301(hn::BitCast(d32, hn::InterleaveLower(d64, a, c))), 0);
    put(hn::Shuffle2301(hn::BitCast(d32, hn::InterleaveUpper(d64, a, c))), 1);
#endif
  }
}

// LastRound stored contiguously from `out` (kStream: non-temporal stores,
// `out` aligned to the vector size).
template <size_t kBatches, bool kStream>
HWY_INLINE void LastRoundStore(const RoundKeys& keys, VState (&x0)[kBatches],
                               VState (&x1)[kBatches], VState (&x2)[kBatches],
                               VState (&x3)[kBatches], uint32_t* HWY_RESTRICT out) {
  const DU32 d32;
  const size_t N32 = hn::Lanes(d32);
  const size_t per_batch = 4 * BlocksPerVector();
  LastRound<kBatches>(keys, x0, x1, x2, x3, [&](size_t b, size_t i, VU32 v) {
    uint32_t* HWY_RESTRICT to = out + b * per_batch + i * N32;
    if (kStream) {
      hn::Stream(v, d32, to);
    } else {
      hn::StoreU(v, d32, to);
    }
  });
}

// Consecutive vectors of blocks from counter `first`, word 0 not carrying
// before the last of them (the caller checks): counter words 1-3, round 0's
// lane products and the keys' masks are computed once for the whole run, not
// once per group, and round 0's products advance by one add of kMul0 * N per
// vector (exact: word 0 stays below 2^32).
class UniformRun {
 public:
  UniformRun(const Counter128& first, const RoundKeys& keys)
      : f_(FirstRoundWords(first, keys)),
        next_(Offset(MulLanes(BlockOfLane()), uint64_t{philox::kMul0} * first.w[0])),
        step_(uint64_t{philox::kMul0} * BlocksPerVector()) {}

  // Rounds [0, kEnd) of the run's next kBatches vectors (kEnd = 9 leaves
  // them as LastRound wants them).
  template <size_t kBatches, int kEnd = philox::kRounds>
  HWY_INLINE void Next(const RoundKeys& keys, VState (&x0)[kBatches], VState (&x1)[kBatches],
                       VState (&x2)[kBatches], VState (&x3)[kBatches]) {
    UniformFirstRounds<kBatches>(
        [&](size_t) {
          const Product p = Products(next_);
          next_ = Offset(next_, step_);
          return p;
        },
        f_, x0, x1, x2, x3);
    LaterRounds<kBatches, kEnd>(keys, x0, x1, x2, x3);
  }

 private:
  FirstRounds f_;
  LaneProducts next_;
  uint64_t step_;
};

// GenerateBatches for the next `groups` groups of kBatches vectors of `run`
// (whose word 0 does not carry before the last of them), contiguous output
// from `out`.
template <size_t kBatches, bool kStream>
HWY_INLINE void UniformGroups(UniformRun& run, const RoundKeys& keys, uint64_t groups,
                              uint32_t* out) {
  for (uint64_t g = 0; g < groups; ++g) {
    VState x0[kBatches], x1[kBatches], x2[kBatches], x3[kBatches];
    run.Next<kBatches, philox::kRounds - 1>(keys, x0, x1, x2, x3);
    LastRoundStore<kBatches, kStream>(keys, x0, x1, x2, x3, out);
    out += 4 * BlocksPerVector() * kBatches;
  }
}

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_PHILOX_INL_H_ toggle guard
