// normal(mean, std) converters (SPEC.md section 8): Box-Muller on word pairs,
// float32, float16 and bfloat16 from one word per element, float64 from two.
// Included only through foreach_target.h, hence the toggle guard.
//
// Float: u = u32(x), v = fma(float(y), P32_2PI, P32_2PI / 2),
// s = sqrt(-2 log u), the pair (s sin v, s cos v), by math::BoxMullerLanes
// in float lanes, one pair per lane (within 1.41 ulp of the exact formula,
// proven over every u and v by tests/reference/normal_float_check.cc): two
// vectors of words at a time, and one pair at a time on the scalar target,
// the same operations either way.

#if defined(RANDTENSOR_SRC_CONVERT_NORMAL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_CONVERT_NORMAL_INL_H_
#undef RANDTENSOR_SRC_CONVERT_NORMAL_INL_H_
#else
#define RANDTENSOR_SRC_CONVERT_NORMAL_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"
#include "src/convert/common-inl.h"
#include "src/math-inl.h"
#include "src/params.h"
#include "src/philox-inl.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {
namespace convert {

constexpr float kP32_2Pi = 0x1p-32f * 6.2831855f;  // exact: a power of two times a float

// Box-Muller's inputs of the words x and y of every lane's pair: u = u32(x)
// (UnitFloat), fy = float(y) (math::SinCosFloat's reduction reads it) and
// v = fma(fy, P32_2PI, P32_2PI / 2).
HWY_INLINE void BoxMullerInputs(VW x, VW y, VF* u, VF* fy, VF* v) {
  const DF df;
  *u = UnitFloat(x);
  *fy = FloatOfWord(y);
  *v = FmaExact(*fy, hn::Set(df, kP32_2Pi), hn::Set(df, kP32_2Pi * 0.5f));
}

#if HWY_TARGET != HWY_SCALAR
// Box-Muller's inputs in frame f from the word pairs of two vectors w0, w1
// (stream order): one pair per lane, chosen so that the per-128-bit-block
// InterleaveLower / InterleaveUpper of the frame's (sines, cosines)
// (PairResults) put the results back in stream order: block b's lanes take
// w0's pairs 2b and 2b + 1, then w1's pairs 2b and 2b + 1.
HWY_INLINE void PairInputs(VW w0, VW w1, math::PairFrame<DF> f) {
#if RANDTENSOR_AVX512
  // One two-table permute (vpermt2d) each: block b of x takes words 4b and
  // 4b + 2 of w0, then of w1; y the words after them.
  const __m512i x_lanes =
      _mm512_setr_epi32(0, 2, 16, 18, 4, 6, 20, 22, 8, 10, 24, 26, 12, 14, 28, 30);
  const __m512i y_lanes =
      _mm512_setr_epi32(1, 3, 17, 19, 5, 7, 21, 23, 9, 11, 25, 27, 13, 15, 29, 31);
  const VW x{_mm512_permutex2var_epi32(w0.raw, x_lanes, w1.raw)};
  const VW y{_mm512_permutex2var_epi32(w0.raw, y_lanes, w1.raw)};
#else
  const DW dw;
  const DU64 du;
  // Per block, in 32-bit lanes: lo = (x, y of w0's pair 2b, x, y of w1's
  // pair 2b), hi = the same of pairs 2b + 1.
  const VU64 lo = hn::InterleaveLower(du, hn::BitCast(du, w0), hn::BitCast(du, w1));
  const VU64 hi = hn::InterleaveUpper(du, hn::BitCast(du, w0), hn::BitCast(du, w1));
  const VW x = hn::OddEven(hn::BitCast(dw, hn::ShiftLeft<32>(hi)), hn::BitCast(dw, lo));
  const VW y = hn::OddEven(hn::BitCast(dw, hi), hn::BitCast(dw, hn::ShiftRight<32>(lo)));
#endif
  BoxMullerInputs(x, y, &f.u, &f.fy, &f.v);
}
#endif

// float32 (T float), float16 (T uint16_t) or bfloat16 (kBfloat16):
// fma(z, std, mean) in float, rounded once to the output type.
template <typename T, bool kBfloat16 = false>
struct NormalFloats : ConverterDefaults {
  using Type = T;
  using Params = detail::NormalParams;
  static constexpr int kWords = 1;
  static constexpr size_t kGroup = 2;  // one pair per float lane
  static constexpr bool kPairs = true;
  static constexpr bool kAfterGroup = true;

  // std and mean as vectors (with the quadrant signs where the target
  // permutes floats: math::SetNormalScale), once per call.
  template <class F>
  static HWY_INLINE void WithConstants(const Params& p, const F& f) {
    VF scale_sin, scale_cos, scale_mean;
    math::SetNormalScale(DF(), p.std_f, p.mean_f, &scale_sin, &scale_cos, &scale_mean);
    f(math::NormalScale<DF>{scale_sin, scale_cos, scale_mean});
  }

#if HWY_TARGET != HWY_SCALAR
  // The word pairs of the vectors w (stream order, an even count) to out:
  // four vectors of words at a time (two of pairs, side by side in
  // math::BoxMullerLanes), two at the end.
  template <class Out>
  static HWY_INLINE void Vectors(const math::NormalScale<DF>&, Out, bool) {}
  template <class Out>
  static HWY_INLINE void Vectors(const math::NormalScale<DF>& scale, Out out, bool nontemporal,
                                 VW w0, VW w1) {
    const DF df;
    math::WithPairFrames<1>(
        df, [&](math::PairFrame<DF> f) __attribute__((always_inline)) {
          PairInputs(w0, w1, f);
          math::BoxMullerLanes(df, scale, f);
          PairResults(f, out, nontemporal);
        });
  }
  template <class Out, class... W>
  static HWY_INLINE void Vectors(const math::NormalScale<DF>& scale, Out out, bool nontemporal,
                                 VW w0, VW w1, VW w2, VW w3, W... rest) {
    const DF df;
    const size_t N = hn::Lanes(df);
    math::WithPairFrames<2>(
        df, [&](math::PairFrame<DF> f0, math::PairFrame<DF> f1) __attribute__((always_inline)) {
          PairInputs(w0, w1, f0);
          PairInputs(w2, w3, f1);
          math::BoxMullerLanes(df, scale, f0, f1);
          PairResults(f0, out, nontemporal);
          PairResults(f1, out + 2 * N, nontemporal);
        });
    Vectors(scale, out + 4 * N, nontemporal, rest...);
  }

  // The results of PairInputs' frame in stream order: the elements of w0's
  // words, then w1's.
  template <class Out>
  static HWY_INLINE void PairResults(math::PairFrame<DF> f, Out out, bool nontemporal) {
    const DF df;
    const size_t N = hn::Lanes(df);
    StoreFloats<T, kBfloat16>(hn::InterleaveLower(df, f.t_sin, f.t_cos), out, nontemporal);
    StoreFloats<T, kBfloat16>(hn::InterleaveUpper(df, f.t_sin, f.t_cos), out + N, nontemporal);
  }
#endif

#if RANDTENSOR_AVX512
  // The same pairs straight from one vector of Philox blocks after round 9,
  // in the state's order (structure of arrays, lanes as BlockOfLane): words
  // 0 and 1 of a block are its first pair (x, y), words 2 and 3 its second,
  // so no permute splits x from y, and the one transpose is of the results
  // (sin, cos of the first pair, then of the second: elements 4b .. 4b + 3
  // of block b), where the bits kernel's fused round 9 and the permutes
  // would cost six operations more per 16 blocks. Same values as Vectors:
  // every lane computes its own pair.
  static constexpr bool kFromBlocks = true;
  template <class Out>
  static HWY_INLINE void Blocks(const math::NormalScale<DF>& scale, VW w0, VW w1, VW w2, VW w3,
                                Out out, bool nontemporal) {
    const DF df;
    const DW dw;
    const size_t N = hn::Lanes(dw);
    math::WithPairFrames<2>(
        df, [&](math::PairFrame<DF> f0, math::PairFrame<DF> f1) __attribute__((always_inline)) {
          BoxMullerInputs(w0, w1, &f0.u, &f0.fy, &f0.v);
          BoxMullerInputs(w2, w3, &f1.u, &f1.fy, &f1.v);
          math::BoxMullerLanes(df, scale, f0, f1);
          TransposeBlocks(hn::BitCast(dw, f0.t_sin), hn::BitCast(dw, f0.t_cos),
                          hn::BitCast(dw, f1.t_sin), hn::BitCast(dw, f1.t_cos),
                          [&](VW t, size_t i) {
                            StoreFloats<T, kBfloat16>(hn::BitCast(df, t), out + i * N,
                                                      nontemporal);
                          });
        });
  }
#endif

  // One pair (x, y) = words[0, 2) to out[0, 2), one lane.
  static HWY_INLINE void Scalar(const math::NormalScale<DF>& scale, const uint32_t* words, T* out) {
    const DW dw;
    math::WithPairFrames<1>(DF(), [&](math::PairFrame<DF> f) {
      BoxMullerInputs(hn::Set(dw, words[0]), hn::Set(dw, words[1]), &f.u, &f.fy, &f.v);
      math::BoxMullerLanes(DF(), scale, f);
      StoreFloats<T, kBfloat16>(f.t_sin, out, false);
      StoreFloats<T, kBfloat16>(f.t_cos, out + 1, false);
    });
  }
};
using NormalFloat32 = NormalFloats<float>;
using NormalFloat16 = NormalFloats<uint16_t>;
using NormalBfloat16 = NormalFloats<uint16_t, true>;

// float64 pair from u and v: (s sinpi(v), s cospi(v)), then fma(z, std,
// mean).
template <class DD2, class V = hn::Vec<DD2>>
HWY_INLINE void NormalDouble(DD2 dd, const detail::NormalParams& p, V u, V v, V* out0, V* out1) {
  V sin_v, cos_v;
  math::SinCosPi(dd, v, &sin_v, &cos_v);
  const V s = math::Radius(dd, math::LogCompensated(dd, u));
  const V stdv = hn::Set(dd, p.std_d), mean = hn::Set(dd, p.mean_d);
  *out0 = math::FmaD(dd, hn::Mul(s, sin_v), stdv, mean);
  *out1 = math::FmaD(dd, hn::Mul(s, cos_v), stdv, mean);
}

// float64: a pair's four words (a, b, c, d) give u = u53(a, b) and
// v = fma(double(c ^ (d << 21)), 2^-52, 2^-53).
struct NormalFloat64 : ConverterDefaults {
  using Type = double;
  using Params = detail::NormalParams;
  static constexpr int kWords = 2;
  static constexpr size_t kGroup = 2;  // a pair's four words fill two 64-bit lanes
  static constexpr bool kPairs = true;
  static constexpr bool kAfterGroup = true;

#if HWY_TARGET != HWY_SCALAR
  template <class Out, class... W>
  static HWY_INLINE void Vectors(const Params& p, Out out, bool nontemporal, W... w) {
    const DD dd;
    const DU64 du;
    const size_t N64 = hn::Lanes(dd);
    ForEachVectorPair(
        [&](size_t i, VW w0, VW w1) __attribute__((always_inline)) {
          // Per 128 bits: (u, v) lanes of pair j of w0 and of w1.
          const VU64 a = hn::BitCast(du, w0), b = hn::BitCast(du, w1);
          VD z0, z1;
          NormalDouble(dd, p, UnitDouble(hn::InterleaveLower(du, a, b), 0x1p-53),
                       UnitDouble(hn::InterleaveUpper(du, a, b), 0x1p-52), &z0, &z1);
          Put(dd, hn::InterleaveLower(dd, z0, z1), out + 2 * i * N64, nontemporal);
          Put(dd, hn::InterleaveUpper(dd, z0, z1), out + (2 * i + 1) * N64, nontemporal);
        },
        0, w...);
  }
#endif

  // One pair = words[0, 4) to out[0, 2).
  static HWY_INLINE void Scalar(const Params& p, const uint32_t* q, double* out) {
    const hn::Simd<double, 1, 0> d1;
    hn::Vec<decltype(d1)> z0, z1;
    NormalDouble(d1, p, hn::Set(d1, UnitDoubleScalar(q[0], q[1], 0x1p-53)),
                 hn::Set(d1, UnitDoubleScalar(q[2], q[3], 0x1p-52)), &z0, &z1);
    out[0] = hn::GetLane(z0);
    out[1] = hn::GetLane(z1);
  }
};

}  // namespace convert
}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_CONVERT_NORMAL_INL_H_ toggle guard
