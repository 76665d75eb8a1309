// Replay kernels (replay.h): Philox blocks of consecutive GPU threads, per
// SIMD target. Included only by kernels.cc through foreach_target.h, hence
// the toggle guard.
//
// A GPU thread t draws the block at counter start + t * 2^64, so a vector of
// consecutive threads shares counter words 0, 1 and 3 and varies word 2 by
// lane: the mirror image of the stream-order kernels (philox-inl.h), which
// vary word 0. Rounds 0 and 1 again need half their vector multiplies (the
// uniform words' products are scalars).
//
// With lane i computing thread t0 + i, state vector k after the rounds holds
// word k of consecutive threads: for PyTorch's order that is a run of
// consecutive elements of row k (elements k G + t), so one-word element-wise
// kinds convert and store the state vectors as they are (ReplayRows). Other
// kinds take the blocks thread-major (ThreadBlocks, with lanes in the
// stream-order kernels' permuted order so the usual in-chunk transpose puts
// each thread's four words together) and convert them as stream words.

#if defined(RANDTENSOR_SRC_REPLAY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_REPLAY_INL_H_
#undef RANDTENSOR_SRC_REPLAY_INL_H_
#else
#define RANDTENSOR_SRC_REPLAY_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "randtensor/philox.h"
#include "src/convert/common-inl.h"
#include "src/kernels.h"
#include "src/philox-inl.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {
namespace replay {

namespace hn = hwy::HWY_NAMESPACE;
using detail::GenerateKind;
using detail::KernelArgs;

// One vector of words -> elements of a one-word element-wise converter C
// (bits: the words themselves).
template <class C, typename T>
HWY_INLINE void ConvertRow(const typename C::Params& p, convert::VW w, T* to, bool nontemporal) {
  C::WithConstants(p, [&](const auto& k) __attribute__((always_inline)) {
    C::Vectors(k, to, nontemporal, w);
  });
}

// Thread t's block, by the reference: counter start + t * 2^64.
inline PhiloxBlock ThreadBlock(const KernelArgs& s, uint64_t t) {
  Counter128 c = s.start;
  const uint64_t w2 = uint64_t{c.w[2]} + (t & 0xFFFFFFFFu);
  const uint64_t w3 = uint64_t{c.w[3]} + (t >> 32) + (w2 >> 32);
  c.w[2] = static_cast<uint32_t>(w2);
  c.w[3] = static_cast<uint32_t>(w3);
  return philox::Block(c, PhiloxKey{{s.keys.k0[0], s.keys.k1[0]}});
}

// Scalar fallback of ThreadBlocks (any target; counter word 2 may carry).
inline void ThreadBlocksScalar(const KernelArgs& s, uint64_t t0, uint64_t count, uint32_t* words) {
  for (uint64_t i = 0; i < count; ++i) {
    const PhiloxBlock b = ThreadBlock(s, t0 + i);
    std::memcpy(words + 4 * i, b.v, 16);
  }
}

#if HWY_TARGET != HWY_SCALAR

// Whether threads [t0, t0 + count) keep counter word 2 from carrying into
// word 3, which the vector rounds assume (word 3 uniform).
inline bool NoWord2Carry(const KernelArgs& s, uint64_t t0, uint64_t count) {
  return uint64_t{s.start.w[2]} + t0 + count <= (uint64_t{1} << 32);
}

// Ten rounds on every batch of threads: lane i of batch b computes thread
// t0 + b * N + lanes[i] (N = BlocksPerVector()). NoWord2Carry holds.
template <class... B>
HWY_INLINE void PhiloxThreads(const KernelArgs& s, uint64_t t0, VState lanes, B... batches) {
  const DState d;
  using T = hn::TFromD<DState>;
  const size_t N = hn::Lanes(d);
  const Counter128& c = s.start;
  const detail::RoundKeys& k = s.keys;
  // Round 0: word 0 uniform, so its product is a scalar; round 1: then word
  // 2 is uniform.
  const uint64_t q0 = uint64_t{philox::kMul0} * c.w[0];
  const uint32_t y2 = Hi(q0) ^ c.w[3] ^ k.k1[0];
  const uint32_t y3 = Lo(q0);
  const uint64_t q1 = uint64_t{philox::kMul1} * y2;
  ForEachBatch(
      [&](Batch x, size_t b) __attribute__((always_inline)) {
        const VState w2 = hn::Add(hn::Set(d, static_cast<T>(c.w[2] + t0 + b * N)), lanes);
        VState hi1, lo1, hi0, lo0;
        Multiply(w2, philox::kMul1, &hi1, &lo1);  // round 0
        const VState y0 = XorKey(hi1, c.w[1] ^ k.k0[0]);
        Multiply(y0, philox::kMul0, &hi0, &lo0);  // round 1
        x.x0 = XorKey(lo1, Hi(q1) ^ k.k0[1]);
        x.x1 = hn::Set(d, static_cast<T>(Lo(q1)));
        x.x2 = XorKey(hi0, y3 ^ k.k1[1]);
        x.x3 = lo0;
      },
      batches...);
  HWY_UNROLL(8)
  for (int r = 2; r < philox::kRounds; ++r) Round(k.k0[r], k.k1[r], batches...);
}

// State vectors per vector of 32-bit words: 1 for narrow lanes, 2 for wide.
#if RANDTENSOR_NARROW_LANES
constexpr size_t kStatesPerWordVector = 1;
constexpr size_t kRowGroup = 4;  // word vectors of threads per group
#else
constexpr size_t kStatesPerWordVector = 2;
constexpr size_t kRowGroup = 2;
#endif

// f(v, w0, w1, w2, w3) for every word vector v of consecutive threads, in
// order: w_k holds word k of N32 threads, from one batch (narrow lanes) or
// two (wide lanes: each thread's word in the low half of a 64-bit lane).
template <class F>
HWY_INLINE void ForEachWordVector(const F&, size_t) {}
#if RANDTENSOR_NARROW_LANES
template <class F, class... B>
HWY_INLINE void ForEachWordVector(const F& f, size_t v, Batch x, B... rest) {
  f(v, x.x0, x.x1, x.x2, x.x3);
  ForEachWordVector(f, v + 1, rest...);
}
#else
template <class F, class... B>
HWY_INLINE void ForEachWordVector(const F& f, size_t v, Batch lo, Batch hi, B... rest) {
  const DU32 d32;
  const auto even = [&](VState a, VState b) __attribute__((always_inline)) {
    return hn::ConcatEven(d32, hn::BitCast(d32, b), hn::BitCast(d32, a));
  };
  f(v, even(lo.x0, hi.x0), even(lo.x1, hi.x1), even(lo.x2, hi.x2), even(lo.x3, hi.x3));
  ForEachWordVector(f, v + 1, rest...);
}
#endif

// f(v, w0, w1, w2, w3) for the word vectors v in [0, vectors) of
// consecutive threads from t0 (word k of threads t0 + v N .. in w_k), made
// kRowGroup word vectors at a time, then one at a time. NoWord2Carry(s, t0,
// vectors N) holds.
template <class F>
HWY_INLINE void ForEachThreadVector(const KernelArgs& s, uint64_t t0, size_t vectors, const F& f) {
  const size_t N = hn::Lanes(DU32());
  const VState lanes = hn::Iota(DState(), 0);
  size_t v = 0;
  const auto group = [&](auto count) __attribute__((always_inline)) {
    constexpr size_t kV = decltype(count)::value;
    WithBatches<kV * kStatesPerWordVector>([&](auto... x) __attribute__((always_inline)) {
      PhiloxThreads(s, t0 + v * N, lanes, x...);
      ForEachWordVector(
          [&](size_t u, VU32 w0, VU32 w1, VU32 w2, VU32 w3) __attribute__((always_inline)) {
            f(v + u, w0, w1, w2, w3);
          },
          0, x...);
    });
    v += kV;
  };
  while (v + kRowGroup <= vectors) group(std::integral_constant<size_t, kRowGroup>());
  while (v < vectors) group(std::integral_constant<size_t, 1>());
}

#endif  // HWY_TARGET != HWY_SCALAR

// ThreadBlocksFn.
inline void ThreadBlocks(const KernelArgs& s, uint64_t t0, uint64_t count, uint32_t* words) {
#if HWY_TARGET == HWY_SCALAR
  ThreadBlocksScalar(s, t0, count, words);
#else
  if (!NoWord2Carry(s, t0, count)) return ThreadBlocksScalar(s, t0, count, words);
  const DU32 d32;
  const size_t N32 = hn::Lanes(d32);
  const size_t nb = BlocksPerVector();
  const VState lane_block = BlockOfLane();
  uint64_t i = 0;
  const auto group = [&](auto batches) __attribute__((always_inline)) {
    constexpr size_t kB = decltype(batches)::value;
    WithBatches<kB>([&](auto... x) __attribute__((always_inline)) {
      PhiloxThreads(s, t0 + i, lane_block, x...);
      ForEachBatch(
          [&](Batch y, size_t b) __attribute__((always_inline)) {
            uint32_t* dst = words + 4 * (i + b * nb);
            TransposeBlocks(y.x0, y.x1, y.x2, y.x3,
                            [&](VU32 v, size_t r) { hn::StoreU(v, d32, dst + r * N32); });
          },
          x...);
    });
    i += kB * nb;
  };
  while (i + kBatches * nb <= count) group(std::integral_constant<size_t, kBatches>());
  while (i + nb <= count) group(std::integral_constant<size_t, 1>());
  ThreadBlocksScalar(s, t0 + i, count - i, words + 4 * i);
#endif
}

#if HWY_TARGET != HWY_SCALAR
// One word vector of row k at thread offset i to out + k row_stride + i:
// whole, or the part below counts[k] through a scratch vector.
template <class C>
HWY_INLINE void PutRow(const typename C::Params& p, convert::VW w, int k, uint64_t i,
                       const uint64_t counts[4], typename C::Type* out, uint64_t row_stride,
                       bool nontemporal) {
  using T = typename C::Type;
  const convert::DW dw;
  const size_t N = hn::Lanes(dw);
  T* to = out + k * row_stride + i;
  if (i + N <= counts[k]) {
    ConvertRow<C>(p, w, to, nontemporal);
  } else if (i < counts[k]) {
    HWY_ALIGN T scratch[hn::MaxLanes(dw)];
    ConvertRow<C>(p, w, scratch, false);
    std::memcpy(to, scratch, (counts[k] - i) * sizeof(T));
  }
}

// `vectors` word vectors of consecutive threads from thread offset i, words
// k of each at words + (4 v + k) N, to their rows: for the converters with
// long math (C::kAfterGroup), whose vector code is then compiled once per
// kind and target, in a loop, instead of twice per word and row of every
// group size (which made the replay kernels most of their units' code). The
// words wait in L1, as in the stream-order run (run-inl.h).
template <class C>
HWY_NOINLINE void PutRowsFromL1(const typename C::Params& p, const uint32_t* words,
                                size_t vectors, uint64_t i, const uint64_t counts[4],
                                typename C::Type* out, uint64_t row_stride, bool nontemporal) {
  const convert::DW dw;
  const size_t N = hn::Lanes(dw);
  for (size_t v = 0; v < vectors; ++v) {
    for (int k = 0; k < 4; ++k) {
      PutRow<C>(p, hn::Load(dw, words + (4 * v + k) * N), k, i + v * N, counts, out, row_stride,
                nontemporal);
    }
  }
}

// Word vectors [0, vectors) of consecutive threads from t0, word k of
// vector v at words + (4 v + k) N (N = 32-bit lanes): the rounds of
// ReplayRows for the converters with long math (C::kAfterGroup), whose
// words wait in L1 anyway. Compiled in kernels_bits.cc only
// (RANDTENSOR_BITS_UNIT), so the library holds one copy of these rounds per
// target, not one per kind. NoWord2Carry(s, t0, vectors N) holds.
void ThreadRows(const KernelArgs& s, uint64_t t0, size_t vectors, uint32_t* words);

// Words that ReplayRows takes from ThreadRows at a time: 8 KiB.
constexpr size_t kThreadRowsWords = 2048;
static_assert(kThreadRowsWords >= 4 * hn::MaxLanes(convert::DW()), "a word vector of threads");
#endif

// ReplayRowsFn for a one-word element-wise converter C.
template <class C>
void ReplayRows(const KernelArgs& s, uint64_t t0, const uint64_t counts[4], void* dst,
                uint64_t row_stride, bool nontemporal) {
  using T = typename C::Type;
  T* out = static_cast<T*>(dst);
  const typename C::Params p = detail::ParamsOf<typename C::Params>(s.params);
  const convert::DW dw;
#if HWY_TARGET == HWY_SCALAR
  (void)nontemporal;
  for (uint64_t i = 0; i < counts[0]; ++i) {
    const PhiloxBlock b = ThreadBlock(s, t0 + i);
    for (int k = 0; k < 4 && i < counts[k]; ++k) {
      ConvertRow<C>(p, hn::Set(dw, b.v[k]), out + k * row_stride + i, false);
    }
  }
#else
  const size_t N = hn::Lanes(dw);
  const auto put = [&](VU32 w, int k, uint64_t i) __attribute__((always_inline)) {
    PutRow<C>(p, w, k, i, counts, out, row_stride, nontemporal);
  };
  if (!NoWord2Carry(s, t0, counts[0] + N)) {
    // Counter word 2 carries somewhere: blocks by the reference, N at a time.
    HWY_ALIGN uint32_t words[4 * hn::MaxLanes(dw)];
    HWY_ALIGN uint32_t rows[4 * hn::MaxLanes(dw)];  // word k of each thread at rows + k N
    for (uint64_t i = 0; i < counts[0]; i += N) {
      ThreadBlocksScalar(s, t0 + i, N, words);
      for (int k = 0; k < 4; ++k) {
        for (size_t l = 0; l < N; ++l) rows[k * N + l] = words[4 * l + k];
      }
      if constexpr (C::kAfterGroup) {
        PutRowsFromL1<C>(p, rows, 1, i, counts, out, row_stride, nontemporal);
      } else {
        for (int k = 0; k < 4; ++k) put(hn::Load(dw, rows + k * N), k, i);
      }
    }
    return;
  }
  if constexpr (C::kAfterGroup) {
    HWY_ALIGN uint32_t words[kThreadRowsWords];
    const uint64_t per_call = kThreadRowsWords / (4 * N);  // word vectors
    for (uint64_t i = 0; i < counts[0];) {
      const size_t v =
          static_cast<size_t>(std::min<uint64_t>(per_call, (counts[0] - i + N - 1) / N));
      ThreadRows(s, t0 + i, v, words);
      PutRowsFromL1<C>(p, words, v, i, counts, out, row_stride, nontemporal);
      i += v * N;
    }
    return;
  }
  // The last word vector may be partial (PutRow).
  ForEachThreadVector(
      s, t0, static_cast<size_t>((counts[0] + N - 1) / N),
      [&](size_t v, VU32 w0, VU32 w1, VU32 w2, VU32 w3) __attribute__((always_inline)) {
        put(w0, 0, v * N);
        put(w1, 1, v * N);
        put(w2, 2, v * N);
        put(w3, 3, v * N);
      });
#endif
}

#if defined(RANDTENSOR_BITS_UNIT) && HWY_TARGET != HWY_SCALAR
void ThreadRows(const KernelArgs& s, uint64_t t0, size_t vectors, uint32_t* words) {
  const DU32 dw;
  const size_t N = hn::Lanes(dw);
  ForEachThreadVector(
      s, t0,
      vectors, [&](size_t v, VU32 w0, VU32 w1, VU32 w2, VU32 w3) __attribute__((always_inline)) {
        uint32_t* to = words + 4 * v * N;
        hn::Store(w0, dw, to);
        hn::Store(w1, dw, to + N);
        hn::Store(w2, dw, to + 2 * N);
        hn::Store(w3, dw, to + 3 * N);
      });
}
#endif

// Whether a converter has ReplayRows: one word per element, each converted
// alone.
template <class C>
constexpr bool HasReplayRows() {
  return C::kWords == 1 && !C::kPairs;
}

}  // namespace replay
}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_REPLAY_INL_H_ toggle guard
