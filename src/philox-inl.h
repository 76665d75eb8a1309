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
// rounds need half the vector multiplies.
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

// High and low words of the products x[i] * m in every lane: vpmuludq on the
// even lanes and on the odd lanes (shifted down), then one masked shuffle
// (swap word pairs, keep the other product's lanes) per merge.
HWY_INLINE void MulHiLo(VU32 x, VU32 m, VU32& hi, VU32& lo) {
  const DU32 d32;
  const DU64 d64;
  const VU32 even = hn::BitCast(d32, hn::MulEven(x, m));
  const VU32 odd = hn::BitCast(d32, hn::MulEven(hn::BitCast(d32, hn::ShiftRight<32>(
                                                                  hn::BitCast(d64, x))),
                                                m));
  hi = VU32{_mm512_mask_shuffle_epi32(odd.raw, 0x5555, even.raw, _MM_PERM_CDAB)};
  lo = VU32{_mm512_mask_shuffle_epi32(even.raw, 0xAAAA, odd.raw, _MM_PERM_CDAB)};
}

// High and low words of x * m in every lane.
struct Product {
  VState hi, lo;
};
HWY_INLINE Product Multiply(VState x, uint32_t m) {
  Product p;
  MulHiLo(x, hn::Set(DU32(), m), p.hi, p.lo);
  return p;
}

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
  const size_t N = hn::Lanes(d);
  // Words 1-3 are uniform when no lane's word 0 passes 2^32 - 1.
  const uint64_t room = 0xFFFFFFFFu - first.w[0];
  bool uniform = true;
  for (size_t b = 0; b < kBatches; ++b) uniform &= delta(b) + lanes_max <= room;
  int first_round = 0;
  if (HWY_LIKELY(uniform)) {
    // Rounds 0 and 1 with words 1-3 uniform (see the top of this file).
    const uint64_t q1 = uint64_t{philox::kMul1} * first.w[2];       // round 0, word 2
    const uint32_t y0 = Hi(q1) ^ first.w[1] ^ keys.k0[0];            // uniform
    const uint32_t y1 = Lo(q1);                                      // uniform
    const uint64_t q0 = uint64_t{philox::kMul0} * y0;                // round 1, word 0
    for (size_t b = 0; b < kBatches; ++b) {
      const VState w0 = hn::Add(
          hn::Set(d, static_cast<hn::TFromD<DState>>(first.w[0] + delta(b))), lanes);
      const Product p0 = Multiply(w0, philox::kMul0);                    // round 0
      const VState y2 = XorKey(p0.hi, first.w[3] ^ keys.k1[0]);          // y3 = p0.lo
      const Product p1 = Multiply(y2, philox::kMul1);                    // round 1
      x0[b] = XorKey(p1.hi, y1 ^ keys.k0[1]);
      x1[b] = p1.lo;
      x2[b] = XorKey(p0.lo, Hi(q0) ^ keys.k1[1]);
      x3[b] = hn::Set(d, Lo(q0));
    }
    first_round = 2;
  } else {
    // Once per 2^32 blocks: each lane's full 128-bit counter, by the reference
    // addition, then all ten rounds.
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
  }
  HWY_UNROLL(10)
  for (int r = first_round; r < philox::kRounds; ++r) {
    Round<kBatches>(x0, x1, x2, x3, keys.k0[r], keys.k1[r]);
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
  const DU32 d32;
  const size_t N32 = hn::Lanes(d32);
  VState x0[kBatches], x1[kBatches], x2[kBatches], x3[kBatches];
  PhiloxBatches<kBatches>(first, delta, lane_block, BlocksPerVector() - 1, keys, x0, x1, x2, x3);
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

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_PHILOX_INL_H_ toggle guard
