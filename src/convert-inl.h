// Conversions from stream words to distributions (SPEC.md section 8), per
// SIMD target: one converter per generate kind of kernel_list.h. Included
// only through foreach_target.h, hence the toggle guard.
//
// Bit-exact on every target: only exactly rounded operations (add, mul,
// compare, integer ops, int32 -> float conversion of values below 2^24), no
// contraction (kernels.cc is built with -ffp-contract=off), and every fused
// multiply-add stated: hardware FMA where the target has it (RANDTENSOR_FMA:
// AVX2, AVX-512, NEON, SVE), else an exact emulation (FmaExact below).
// float16 and bfloat16 are built from float bits with integer
// round-to-nearest-even, never DemoteTo (which truncates on SSE4 and rounds
// on F16C). Vector state lives in local variables only (philox-inl.h, Batch).
//
// How words reach a converter: GenerateConverted (at the end) converts each
// batch of Philox blocks in registers right after the rounds, once it is
// transposed to stream order, and stores only the elements; a run's last,
// partial vector of blocks is converted whole into L1 and its first elements
// copied, and the few elements before its first block boundary go through a
// fixed 4 KiB L1 chunk of words (GenerateChunked). Tests feed chosen words
// through ConvertWords, the same vector code.

#if defined(RANDTENSOR_SRC_CONVERT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_CONVERT_INL_H_
#undef RANDTENSOR_SRC_CONVERT_INL_H_
#else
#define RANDTENSOR_SRC_CONVERT_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "hwy/highway.h"
#include "src/capabilities-inl.h"
#include "src/generate-inl.h"
#include "src/half.h"
#include "src/kernel_list.h"
#include "src/kernels.h"
#include "src/math-inl.h"
#include "src/pack_bfloat16-inl.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {
namespace convert {

namespace hn = hwy::HWY_NAMESPACE;
using detail::GenerateKind;
using detail::KindParams;

using DW = hn::ScalableTag<uint32_t>;  // stream words
using DF = hn::Rebind<float, DW>;      // one float per word
using DI = hn::Rebind<int32_t, DW>;
using VW = hn::Vec<DW>;
using VF = hn::Vec<DF>;

// fma(a, b, c) in float with one rounding on every target (math::FmaF:
// fused, or an exact emulation in double lanes without FMA).
HWY_INLINE VF FmaExact(VF a, VF b, VF c) { return math::FmaF(DF(), a, b, c); }

// float(x) of every word, correctly rounded: vcvtudq2ps on AVX-512; else
// hi * 65536 + lo (both exact in float, the product too: one rounding, in
// one multiply-add where the target fuses it).
HWY_INLINE VF FloatOfWord(VW x) {
  const DF df;
#if RANDTENSOR_AVX512
  return hn::ConvertTo(df, x);  // round to nearest even
#else
  const DI di;
  const VF hi = hn::ConvertTo(df, hn::BitCast(di, hn::ShiftRight<16>(x)));
  const VF lo = hn::ConvertTo(df, hn::BitCast(di, hn::And(x, hn::Set(DW(), 0xFFFFu))));
  return math::MulAddExactProduct(hi, hn::Set(df, 65536.0f), lo);
#endif
}

// u32(x) = fma(float(x), 2^-32, 2^-33): the product is exact (a power of
// two), so fused or not it rounds once.
HWY_INLINE VF UnitFloat(VW x) {
  const DF df;
  return math::MulAddExactProduct(FloatOfWord(x), hn::Set(df, 0x1p-32f), hn::Set(df, 0x1p-33f));
}

// Round-to-nearest-even float -> float16 bits (in the low half of each word),
// for finite inputs: normal, subnormal and overflow to infinity.
HWY_INLINE VW Float16Bits(VF f) {
  const DW dw;
  const DI di;
  const DF df;
  VW x = hn::BitCast(dw, f);
  const VW sign = hn::And(x, hn::Set(dw, 0x80000000u));
  x = hn::Xor(x, sign);
  const hn::Vec<DI> xi = hn::BitCast(di, x);  // < 2^31: signed compares are exact
  // Normal: rebias the exponent (-112 << 23), add half an ulp minus one plus
  // the kept lsb (ties to even), drop 13 bits.
  const VW odd = hn::And(hn::ShiftRight<13>(x), hn::Set(dw, 1u));
  const VW normal =
      hn::ShiftRight<13>(hn::Add(hn::Add(x, hn::Set(dw, 0xC8000FFFu)), odd));
  // Subnormal (below 2^-14): adding 0.5f lines the result up in the low
  // mantissa bits, the float add doing the rounding.
  const VF magic = hn::BitCast(df, hn::Set(dw, 0x3F000000u));
  const VW sub = hn::Sub(hn::BitCast(dw, hn::Add(hn::BitCast(df, x), magic)), hn::BitCast(dw, magic));
  VW out = hn::IfThenElse(hn::RebindMask(dw, hn::Lt(xi, hn::Set(di, 0x38800000))), sub, normal);
  out = hn::IfThenElse(hn::RebindMask(dw, hn::Gt(xi, hn::Set(di, 0x477FEFFF))), hn::Set(dw, 0x7C00u),
                       out);
  return hn::Or(out, hn::ShiftRight<16>(sign));
}

// Round-to-nearest-even float -> bfloat16 bits (finite inputs), in the high
// half of each word (the low half is garbage).
HWY_INLINE VW Bfloat16Rounded(VF f) {
  const DW dw;
  const VW x = hn::BitCast(dw, f);
#if RANDTENSOR_AVX512
  // + 1 where the kept lsb (bit 16) is set: a test and a masked add.
  const __mmask16 odd = _mm512_test_epi32_mask(x.raw, hn::Set(dw, 0x10000u).raw);
  const VW up = hn::Add(x, hn::Set(dw, 0x7FFFu));
  return VW{_mm512_mask_add_epi32(up.raw, odd, up.raw, hn::Set(dw, 1u).raw)};
#else
  const VW odd = hn::And(hn::ShiftRight<16>(x), hn::Set(dw, 1u));
  return hn::Add(hn::Add(x, hn::Set(dw, 0x7FFFu)), odd);
#endif
}
// ... in the low half of each word.
HWY_INLINE VW Bfloat16Bits(VF f) { return hn::ShiftRight<16>(Bfloat16Rounded(f)); }

// A store of one vector of elements: plain (any alignment), or with
// `stream` a non-temporal store (p aligned to the vector) where the vector is
// a whole 16 bytes or more; smaller ones (SSE4's quarter vectors) store
// plainly either way.
template <class D, class V, typename T>
HWY_INLINE void Put(D d, V v, T* HWY_RESTRICT p, bool stream) {
  if constexpr (hn::MaxLanes(D()) * sizeof(T) >= 16) {
    if (stream) return hn::Stream(v, d, p);
  }
  hn::StoreU(v, d, p);
}

// Stores the low 16 / 8 bits of each word (values that fit).
HWY_INLINE void Store16(VW v, uint16_t* dst, bool stream = false) {
  const hn::Rebind<uint16_t, DW> d16;
  Put(d16, hn::DemoteTo(d16, hn::BitCast(DI(), v)), dst, stream);
}
HWY_INLINE void Store8(VW v, uint8_t* dst, bool stream = false) {
  const hn::Rebind<uint8_t, DW> d8;
  Put(d8, hn::DemoteTo(d8, hn::BitCast(DI(), v)), dst, stream);
}

// Stores float16 (RNE, subnormals, overflow) or bfloat16 bits of t.
template <bool kBfloat16>
HWY_INLINE void StoreHalf(VF t, uint16_t* dst, bool stream = false) {
#if RANDTENSOR_F16C
  if constexpr (!kBfloat16) {
    // F16C's vcvtps2ph with an immediate round-to-nearest-even (Highway's
    // DemoteTo here) is the same rounding as Float16Bits, subnormals too, in
    // one instruction; SSE4 has no F16C (and Highway truncates there).
    const hn::Rebind<hwy::float16_t, DF> dh;
    Put(hn::Rebind<uint16_t, DF>(),
                 hn::BitCast(hn::Rebind<uint16_t, DF>(), hn::DemoteTo(dh, t)), dst, stream);
    return;
  }
#endif
  Store16(kBfloat16 ? Bfloat16Bits(t) : Float16Bits(t), dst, stream);
}

// Stores a vector of normal kKind's values t (float32, float16, bfloat16).
template <GenerateKind kKind, typename T>
HWY_INLINE void StoreNormal(VF t, T* dst, bool stream = false) {
  if constexpr (kKind == GenerateKind::kNormalFloat32) {
    Put(DF(), t, dst, stream);
  } else {
    StoreHalf<kKind == GenerateKind::kNormalBfloat16>(t, dst, stream);
  }
}

// uniform: t = fma(u, R, L) in float; t == H flips to L (PyTorch's (0, 1] ->
// [0, 1)). For float16/bfloat16, PyTorch casts the bounds to the output type
// first (L, H and R are values of that type, R = half(H - L)), rounds t once
// to the type and compares there (SPEC.md section 8 said otherwise; the GPU
// agrees with PyTorch: tests/reference/README.md).
// Here the flip is decided on the word, before the fma: the element is L
// where the word is in the flip interval (KindParams: the words whose element
// is H), so nothing compares after the rounding. On
// AVX-512 the flip is the fma's mask (vfmadd with a mask keeps the addend L),
// off the fma's path: the words' test runs beside the conversion.
HWY_INLINE VF UniformFloat(const KindParams& p, VW w) {
  const DF df;
  const DW dw;
  if (p.unit_scale) {  // uniform(0, 2^k): t = u32(x) 2^k in one multiply-add (kernels.h)
    const VF mul = hn::Set(df, p.scale_mul), add = hn::Set(df, p.scale_add);
#if RANDTENSOR_AVX512
    const __mmask16 keep = _mm512_cmplt_epu32_mask(w.raw, hn::Set(dw, p.flip_first).raw);
    return VF{_mm512_maskz_fmadd_ps(keep, FloatOfWord(w).raw, mul.raw, add.raw)};  // L = 0
#else
    const auto keep = hn::RebindMask(df, hn::Lt(w, hn::Set(dw, p.flip_first)));
    return hn::IfThenElseZero(keep, math::MulAddExactProduct(FloatOfWord(w), mul, add));
#endif
  }
  const VF u = UnitFloat(w);
  const VF range = hn::Set(df, p.range_f), low = hn::Set(df, p.low_f);
  const VW from_first = hn::Sub(w, hn::Set(dw, p.flip_first));
#if RANDTENSOR_AVX512
  const __mmask16 keep = _mm512_cmpge_epu32_mask(from_first.raw, hn::Set(dw, p.flip_count).raw);
  return VF{_mm512_mask3_fmadd_ps(u.raw, range.raw, low.raw, keep)};
#else
  const auto flip = hn::RebindMask(df, hn::Lt(from_first, hn::Set(dw, p.flip_count)));
  return hn::IfThenElse(flip, low, FmaExact(u, range, low));
#endif
}

HWY_INLINE void UniformFloat32(const KindParams& p, VW w, void* dst, bool stream) {
  Put(DF(), UniformFloat(p, w), static_cast<float*>(dst), stream);
}

// L is a value of the type, so it rounds to itself.
template <bool kBfloat16>
HWY_INLINE void UniformHalf(const KindParams& p, VW w, void* dst, bool stream) {
  StoreHalf<kBfloat16>(UniformFloat(p, w), static_cast<uint16_t*>(dst), stream);
}

// bernoulli: 1 if u32(x) < float(p) else 0, as `one` of the output type:
// the same as x < p.p_words (BernoulliWords, kernels.h).
HWY_INLINE VW BernoulliBits(const KindParams& p, VW w, uint32_t one) {
  const DW dw;
  return hn::IfThenElseZero(hn::Lt(w, hn::Set(dw, p.p_words)), hn::Set(dw, one));
}

#if HWY_TARGET != HWY_SCALAR
// Two stream words per 64-bit lane (word 2j low, word 2j + 1 high): the view
// the pair kinds and the double arithmetic work in.
using DU64 = hn::Repartition<uint64_t, DW>;
using DD = hn::Repartition<double, DW>;
using VU64 = hn::Vec<DU64>;
using VD = hn::Vec<DD>;

HWY_INLINE VU64 Low32(VU64 v) { return hn::And(v, hn::Set(DU64(), 0xFFFFFFFFull)); }

// x mod r for every word x, r = p.range < 2^28: q = floor(x / r) by the
// multiply of SetIntegerRange (kernels.h), exact for every 32-bit x, then
// x - q r (exact: q r <= x). About 10 operations per vector, where the
// former floor(x * (1 / r)) in double lanes took about 24.
HWY_INLINE VW ModRange(const KindParams& p, VW w) {
  const DW dw;
#if RANDTENSOR_NARROW_LANES
  VW q0, lo;
  Multiply(w, p.mod_magic, &q0, &lo);  // narrow lanes' 32x32 -> 64 (philox-inl.h)
#else
  const DU64 du;
  const VW magic = hn::Set(dw, p.mod_magic);
  const VU64 even = hn::MulEven(w, magic);
  const VU64 odd = hn::MulEven(hn::BitCast(dw, hn::ShiftRight<32>(hn::BitCast(du, w))), magic);
  const VW q0 = hn::BitCast(
      dw, hn::Or(hn::ShiftRight<32>(even), hn::And(odd, hn::Set(du, 0xFFFFFFFF00000000ull))));
#endif
  const VW t = hn::Add(hn::ShiftRightSame(hn::Sub(w, q0), p.mod_pre), q0);
  const VW q = hn::ShiftRightSame(t, p.mod_post);
  return hn::Sub(w, hn::Mul(q, hn::Set(dw, p.range)));
}

// x mod r for 64-bit x in every 64-bit lane, r = p.range64 in [2^28, 2^64):
// q = floor(x * (1 / r)) in double is within one of floor(x / r) (relative
// error about 2^-51 on x / r < 2^36); q - 1 (at least 0) is then at most the
// true quotient and at most two below it, so m = x - (q - 1) r, computed
// modulo 2^64 with 32-bit partial products, is exact (0 <= m <= x < 2^64)
// and below 3r: two conditional subtractions finish it.
HWY_INLINE VU64 ModRange64(const KindParams& p, VU64 x) {
  const DU64 du;
  const DD dd;
  const DW d32;
  const uint64_t r = p.range64;
  const VD xd = hn::Add(hn::Mul(math::DoubleOfSmall(dd, hn::ShiftRight<32>(x)), hn::Set(dd, 0x1p32)),
                        math::DoubleOfSmall(dd, Low32(x)));
  const VD qd = hn::Floor(hn::Mul(xd, hn::Set(dd, 1.0 / static_cast<double>(r))));  // < 2^37
  VU64 q = hn::And(hn::BitCast(du, hn::Add(qd, hn::Set(dd, 0x1p52))), hn::Set(du, 0xFFFFFFFFFFFFFull));
  q = hn::Sub(q, hn::IfThenElseZero(hn::Ne(q, hn::Zero(du)), hn::Set(du, 1)));
  const auto mul = [&](VU64 a, VU64 b) {  // products of the low 32 bits
    return hn::MulEven(hn::BitCast(d32, a), hn::BitCast(d32, b));
  };
  const VU64 rl = hn::Set(du, r & 0xFFFFFFFFu), rh = hn::Set(du, r >> 32);
  const VU64 ql = Low32(q), qh = hn::ShiftRight<32>(q);
  const VU64 qr = hn::Add(mul(ql, rl), hn::ShiftLeft<32>(hn::Add(mul(ql, rh), mul(qh, rl))));
  VU64 m = hn::Sub(x, qr);
  const VU64 rv = hn::Set(du, r);
  m = hn::IfThenElse(hn::Lt(m, rv), m, hn::Sub(m, rv));
  return hn::IfThenElse(hn::Lt(m, rv), m, hn::Sub(m, rv));
}
#endif

// integers (one word, high - low < 2^28): low + (x mod r), exact in T
// (ResolveIntegers checks the range).
template <typename T>
HWY_INLINE void Integers(const KindParams& p, VW w, T* out, bool stream) {
#if HWY_TARGET == HWY_SCALAR
  (void)stream;
  out[0] = static_cast<T>(p.low + static_cast<int64_t>(hn::GetLane(w) % p.range));
#else
  const DW dw;
  const VW m = ModRange(p, w);
  const VW low32 = hn::Set(dw, static_cast<uint32_t>(p.low));
  if constexpr (std::is_same<T, int32_t>::value) {
    Put(dw, hn::Add(m, low32), reinterpret_cast<uint32_t*>(out), stream);  // two's complement
  } else if constexpr (std::is_same<T, float>::value) {
    Put(DF(), hn::ConvertTo(DF(), hn::BitCast(DI(), hn::Add(m, low32))), out, stream);
  } else {
    const DU64 du;
    const DD dd;
    const hn::Half<DW> dh;
    const size_t half = hn::Lanes(du);
    const VU64 lo = hn::PromoteTo(du, hn::LowerHalf(dh, m));
    const VU64 hi = hn::PromoteTo(du, hn::UpperHalf(dh, m));
    if constexpr (std::is_same<T, int64_t>::value) {
      const VU64 low = hn::Set(du, static_cast<uint64_t>(p.low));  // wraps: two's complement
      Put(du, hn::Add(lo, low), reinterpret_cast<uint64_t*>(out), stream);
      Put(du, hn::Add(hi, low), reinterpret_cast<uint64_t*>(out) + half, stream);
    } else {
      const VD low = hn::Set(dd, static_cast<double>(p.low));  // |low + m| <= 2^53: exact
      Put(dd, hn::Add(math::DoubleOfSmall(dd, lo), low), out, stream);
      Put(dd, hn::Add(math::DoubleOfSmall(dd, hi), low), out + half, stream);
    }
  }
#endif
}

// ---------------------------------------------------------------- normal
// Box-Muller on word pairs (x, y) (SPEC.md section 8): u = u32(x),
// v = fma(float(y), P32_2PI, P32_2PI / 2), s = sqrt(-2 log u), the pair
// (s sin v, s cos v), by math::BoxMullerLanes in float lanes, one pair per
// lane (within 1.41 ulp of the exact formula, proven over every u and v by
// tests/reference/normal_float_check.cc): below, two vectors of words at a
// time, and one pair at a time on the scalar target, the same operations
// either way.

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

// The results of PairInputs' frame in stream order: the elements of w0's
// words, then w1's.
template <GenerateKind kKind, typename T>
HWY_INLINE void StorePairResults(math::PairFrame<DF> f, T* out, bool stream) {
  const DF df;
  const size_t N = hn::Lanes(df);
  StoreNormal<kKind>(hn::InterleaveLower(df, f.t_sin, f.t_cos), out, stream);
  StoreNormal<kKind>(hn::InterleaveUpper(df, f.t_sin, f.t_cos), out + N, stream);
}

// fma(z, std, mean) of the word pairs of the vectors w (stream order, an
// even count) to out: four vectors of words at a time (two of pairs, side
// by side in math::BoxMullerLanes), two at the end.
template <GenerateKind kKind, typename T>
HWY_INLINE void NormalFloatVectors(const math::NormalScale<DF>&, T*, bool) {}
template <GenerateKind kKind, typename T>
HWY_INLINE void NormalFloatVectors(const math::NormalScale<DF>& scale, T* out, bool stream, VW w0,
                                   VW w1) {
  const DF df;
  math::WithPairFrames<1>(
      df, [&](math::PairFrame<DF> f) __attribute__((always_inline)) {
        PairInputs(w0, w1, f);
        math::BoxMullerLanes(df, scale, f);
        StorePairResults<kKind>(f, out, stream);
      });
}
template <GenerateKind kKind, typename T, class... W>
HWY_INLINE void NormalFloatVectors(const math::NormalScale<DF>& scale, T* out, bool stream, VW w0,
                                   VW w1, VW w2, VW w3, W... rest) {
  const DF df;
  const size_t N = hn::Lanes(df);
  math::WithPairFrames<2>(
      df, [&](math::PairFrame<DF> f0, math::PairFrame<DF> f1) __attribute__((always_inline)) {
        PairInputs(w0, w1, f0);
        PairInputs(w2, w3, f1);
        math::BoxMullerLanes(df, scale, f0, f1);
        StorePairResults<kKind>(f0, out, stream);
        StorePairResults<kKind>(f1, out + 2 * N, stream);
      });
  NormalFloatVectors<kKind>(scale, out + 4 * N, stream, rest...);
}

#if RANDTENSOR_AVX512
// The same pairs straight from one vector of Philox blocks after round 9, in
// the state's order (structure of arrays, lanes as BlockOfLane): words 0
// and 1 of a block are its first pair (x, y), words 2 and 3 its second, so
// no permute splits x from y, and the one transpose is of the results
// (sin, cos of the first pair, then of the second: elements 4b .. 4b + 3 of
// block b), where the bits kernel's fused round 9 and the permutes would
// cost six operations more per 16 blocks. Same values as NormalFloatVectors:
// every lane computes its own pair.
template <GenerateKind kKind, typename T>
HWY_INLINE void NormalFromBlocks(const math::NormalScale<DF>& scale, VW w0, VW w1, VW w2, VW w3,
                                 T* out, bool stream) {
  const DF df;
  const DW dw;
  const size_t N = hn::Lanes(dw);
  math::WithPairFrames<2>(
      df, [&](math::PairFrame<DF> f0, math::PairFrame<DF> f1) __attribute__((always_inline)) {
        BoxMullerInputs(w0, w1, &f0.u, &f0.fy, &f0.v);
        BoxMullerInputs(w2, w3, &f1.u, &f1.fy, &f1.v);
        math::BoxMullerLanes(df, scale, f0, f1);
        TransposeBlocks(hn::BitCast(dw, f0.t_sin), hn::BitCast(dw, f0.t_cos),
                        hn::BitCast(dw, f1.t_sin), hn::BitCast(dw, f1.t_cos), [&](VW t, size_t i) {
                          StoreNormal<kKind>(hn::BitCast(df, t), out + i * N, stream);
                        });
      });
}
#endif
#else
// The one-lane Box-Muller of the pair (x, y).
HWY_INLINE void BoxMullerFloatPair(const math::NormalScale<DF>& scale, uint32_t x, uint32_t y,
                                   VF* t0, VF* t1) {
  const DW dw;
  math::WithPairFrames<1>(DF(), [&](math::PairFrame<DF> f) {
    BoxMullerInputs(hn::Set(dw, x), hn::Set(dw, y), &f.u, &f.fy, &f.v);
    math::BoxMullerLanes(DF(), scale, f);
    *t0 = f.t_sin;
    *t1 = f.t_cos;
  });
}
#endif

// ------------------------------------------------- two words per element
// float64 uniform and bernoulli read u53(a, b) = fma(double(a ^ (b << 21)),
// 2^-53, 2^-54) (the product is exact: one rounding in the add); float64
// normals also v = fma(double(c ^ (d << 21)), 2^-52, 2^-53); integers of a
// range >= 2^28 read (a << 32) | b (scalar: a 64-bit remainder per element).

HWY_INLINE double UnitDoubleScalar(uint32_t a, uint32_t b, double scale) {
  const uint64_t z = uint64_t{a} ^ (uint64_t{b} << 21);  // < 2^53: exact in double
  return static_cast<double>(z) * scale + scale * 0.5;
}

#if HWY_TARGET != HWY_SCALAR
// z = a ^ (b << 21) < 2^53 of the word pairs (a, b) in l's lanes (a low).
HWY_INLINE VU64 Z53(VU64 l) {
  const VU64 b21 = hn::ShiftLeft<21>(hn::ShiftRight<32>(l));
#if RANDTENSOR_AVX512
  const DU64 du;
  // b21 ^ (l & 0xFFFFFFFF) in one ternary-logic op (0x78: A ^ (B & C)).
  return VU64{_mm512_ternarylogic_epi64(b21.raw, l.raw, hn::Set(du, 0xFFFFFFFFull).raw, 0x78)};
#else
  return hn::Xor(Low32(l), b21);
#endif
}

// z as a double (exact).
HWY_INLINE VD DoubleOfZ53(VU64 z) {
  const DD dd;
#if RANDTENSOR_AVX512
  return hn::ConvertTo(dd, hn::BitCast(hn::RebindToSigned<DD>(), z));  // vcvtqq2pd: exact
#else
  return hn::Add(hn::Mul(math::DoubleOfSmall(dd, hn::ShiftRight<32>(z)), hn::Set(dd, 0x1p32)),
                 math::DoubleOfSmall(dd, Low32(z)));  // exact
#endif
}

// u53 (scale 2^-53) or v (scale 2^-52) of z53 values z: z scale + scale /
// 2, the product exact, so one rounding fused or not.
HWY_INLINE VD UnitDoubleOfZ(VU64 z, double scale) {
  const DD dd;
  return math::MulAddExactProduct(DoubleOfZ53(z), hn::Set(dd, scale), hn::Set(dd, scale * 0.5));
}
// ... of the word pairs in l's lanes.
HWY_INLINE VD UnitDouble(VU64 l, double scale) { return UnitDoubleOfZ(Z53(l), scale); }

// uniform float64 of z53 values z (SPEC.md section 8): t = fma(u53, R, L),
// t = H flipped to L. uniform(0, 2^k): t = u53 2^k in one multiply-add of
// float(z), and t = H exactly where u53 = 1, i.e. z = 2^53 - 1 (z 2^-53 +
// 2^-54 is then the midpoint 1 - 2^-54, which rounds to even, 1): L = 0
// there.
HWY_INLINE void UniformDoubleOfZ(const KindParams& p, VU64 z, double* out, bool stream) {
  const DD dd;
  const DU64 du;
  if (p.unit_scale) {
    const VD mul = hn::Set(dd, p.scale_mul_d), add = hn::Set(dd, p.scale_add_d);
    const VU64 top = hn::Set(du, (uint64_t{1} << 53) - 1);
#if RANDTENSOR_AVX512
    const __mmask8 keep = _mm512_cmplt_epu64_mask(z.raw, top.raw);
    Put(dd, VD{_mm512_maskz_fmadd_pd(keep, DoubleOfZ53(z).raw, mul.raw, add.raw)}, out, stream);
#else
    const hn::RebindToSigned<DU64> di64;  // z < 2^53: the signed compare is exact
    const auto keep = hn::RebindMask(dd, hn::Lt(hn::BitCast(di64, z), hn::BitCast(di64, top)));
    Put(dd, hn::IfThenElseZero(keep, math::MulAddExactProduct(DoubleOfZ53(z), mul, add)), out,
        stream);
#endif
    return;
  }
  const VD t = math::FmaD(dd, UnitDoubleOfZ(z, 0x1p-53), hn::Set(dd, p.range_d), hn::Set(dd, p.low_d));
  Put(dd, hn::IfThenElse(hn::Eq(t, hn::Set(dd, p.high_d)), hn::Set(dd, p.low_d), t), out, stream);
}

#if RANDTENSOR_AVX512
// uniform float64 straight from one vector of Philox blocks after round 9, in
// the state's order (as NormalFromBlocks): a block's elements are (w0, w1)
// and (w2, w3), so z53 = a ^ (b << 21) is made in 32-bit halves, low a ^
// (b << 21 mod 2^32) and high b >> 11, and one transpose puts each z's
// halves together in memory order: 6 + 8 operations per 16 blocks (32
// elements), where the fused round 9 (6 more than a plain one) and Z53 on
// whole lanes (3 per 8 elements) took 18.
HWY_INLINE void UniformDoubleFromBlocks(const KindParams& p, VW w0, VW w1, VW w2, VW w3,
                                        double* out, bool stream) {
  const DU64 du;
  const size_t N64 = hn::Lanes(du);
  const auto low = [](VW a, VW b) { return hn::Xor(a, hn::ShiftLeft<21>(b)); };
  TransposeBlocks(low(w0, w1), hn::ShiftRight<11>(w1), low(w2, w3), hn::ShiftRight<11>(w3),
                  [&](VW z, size_t i) {
                    UniformDoubleOfZ(p, hn::BitCast(du, z), out + i * N64, stream);
                  });
}
#endif
#endif

// Wide integers: low + (((a << 32) | b) mod r); low + m is within the
// output type (checked), and wrap-around of the unsigned sum is the two's
// complement value.
template <typename T>
HWY_INLINE T WideInteger(const KindParams& p, uint32_t a, uint32_t b) {
  const uint64_t x = (uint64_t{a} << 32) | b;
  return static_cast<T>(static_cast<int64_t>(static_cast<uint64_t>(p.low) + x % p.range64));
}

// float64 normal pair from u and v: (s sinpi(v), s cospi(v)), then
// fma(z, std, mean).
template <class DD2, class V = hn::Vec<DD2>>
HWY_INLINE void NormalDouble(DD2 dd, const KindParams& p, V u, V v, V* out0, V* out1) {
  V sin_v, cos_v;
  math::SinCosPi(dd, v, &sin_v, &cos_v);
  const V s = math::Radius(dd, math::LogCompensated(dd, u));
  const V stdv = hn::Set(dd, p.std_d), mean = hn::Set(dd, p.mean_d);
  *out0 = math::FmaD(dd, hn::Mul(s, sin_v), stdv, mean);
  *out1 = math::FmaD(dd, hn::Mul(s, cos_v), stdv, mean);
}

// ------------------------------------------------------------ dispatch

// One vector of words -> Lanes(DW) elements of a one-word, element-wise kind.
template <GenerateKind kKind>
HWY_INLINE void ConvertVector(const KindParams& p, VW w, void* dst, bool stream = false) {
  if constexpr (kKind == GenerateKind::kUniformFloat32) {
    UniformFloat32(p, w, dst, stream);
  } else if constexpr (kKind == GenerateKind::kUniformFloat16) {
    UniformHalf<false>(p, w, dst, stream);
  } else if constexpr (kKind == GenerateKind::kUniformBfloat16) {
    UniformHalf<true>(p, w, dst, stream);
  } else if constexpr (kKind == GenerateKind::kBernoulliUint8) {
#if RANDTENSOR_AVX512
    // The compare's mask picks bytes of 1 directly (a zero-masked byte move):
    // no select on words and no narrowing of them.
    const __mmask16 hit = _mm512_cmplt_epu32_mask(w.raw, hn::Set(DW(), p.p_words).raw);
    const hn::Rebind<uint8_t, DW> d8;
    Put(d8, hn::Vec<decltype(d8)>{_mm_maskz_mov_epi8(hit, _mm_set1_epi8(1))},
        static_cast<uint8_t*>(dst), stream);
#else
    Store8(BernoulliBits(p, w, 1), static_cast<uint8_t*>(dst), stream);
#endif
  } else if constexpr (kKind == GenerateKind::kBernoulliInt32) {
    Put(DW(), BernoulliBits(p, w, 1), static_cast<uint32_t*>(dst), stream);
  } else if constexpr (kKind == GenerateKind::kBernoulliFloat32) {
    Put(DW(), BernoulliBits(p, w, 0x3F800000u), static_cast<uint32_t*>(dst), stream);
  } else if constexpr (kKind == GenerateKind::kBernoulliFloat16) {
    Store16(BernoulliBits(p, w, 0x3C00u), static_cast<uint16_t*>(dst), stream);
  } else if constexpr (kKind == GenerateKind::kBernoulliBfloat16) {
    Store16(BernoulliBits(p, w, 0x3F80u), static_cast<uint16_t*>(dst), stream);
  } else if constexpr (kKind == GenerateKind::kIntegersInt32) {
    Integers(p, w, static_cast<int32_t*>(dst), stream);
  } else if constexpr (kKind == GenerateKind::kIntegersInt64) {
    Integers(p, w, static_cast<int64_t*>(dst), stream);
  } else if constexpr (kKind == GenerateKind::kIntegersFloat32) {
    Integers(p, w, static_cast<float*>(dst), stream);
  } else if constexpr (kKind == GenerateKind::kIntegersFloat64) {
    Integers(p, w, static_cast<double*>(dst), stream);
  } else {
    static_assert(kKind == GenerateKind::kCount, "not a one-word element-wise kind");
  }
}

constexpr bool IsNormalHalf(GenerateKind kind) {
  return kind == GenerateKind::kNormalFloat16 || kind == GenerateKind::kNormalBfloat16;
}
constexpr bool IsFloatNormal(GenerateKind kind) {
  return kind == GenerateKind::kNormalFloat32 || IsNormalHalf(kind);
}
constexpr bool IsWideInteger(GenerateKind kind) {
  return kind == GenerateKind::kIntegersWideInt32 || kind == GenerateKind::kIntegersWideInt64 ||
         kind == GenerateKind::kIntegersWideFloat64;
}

// Vectors of words a converter takes at once: float64 normals interleave
// two (a pair's four words fill two 64-bit lanes), float normals take two
// (one pair per float lane), uniform bfloat16 packs two (AVX-512).
template <GenerateKind kKind>
constexpr size_t VectorGroup() {
  return kKind == GenerateKind::kNormalFloat64 || IsFloatNormal(kKind) ||
                 kKind == GenerateKind::kUniformBfloat16
             ? 2
             : 1;
}

// Whether a kKind converter without kPack has a kPack twin to hand the call
// to where p.bf16_pack: uniform bfloat16 on AVX-512 (PackBfloat16).
template <GenerateKind kKind, bool kPack>
constexpr bool HasPackVariant() {
#if RANDTENSOR_AVX512
  return kKind == GenerateKind::kUniformBfloat16 && !kPack;
#else
  return false;
#endif
}

#if HWY_TARGET != HWY_SCALAR
// f(i, w) for every vector w of the pack, i its index, in order.
template <class F, class... W>
HWY_INLINE void ForEachVector(const F& f, W... w) {
  size_t i = 0;
  (f(i++, w), ...);
}
// f(i, a, b) for every pair of vectors (a, b) = (w[2i], w[2i + 1]) of the
// pack, from index i.
template <class F>
HWY_INLINE void ForEachVectorPair(const F&, size_t) {}
template <class F, class... W>
HWY_INLINE void ForEachVectorPair(const F& f, size_t i, VW a, VW b, W... rest) {
  f(i, a, b);
  ForEachVectorPair(f, i + 1, rest...);
}

// The vectors of stream words w (a multiple of VectorGroup) -> their
// Lanes(DW) / w elements each of kind at out, in stream order.
// kPack: uniform bfloat16 through PackBfloat16 (only where p.bf16_pack).
template <GenerateKind kKind, bool kPack = false,
          typename T = typename detail::KindTraits<kKind>::Type, class... W>
HWY_INLINE void ConvertVectors(const KindParams& p, T* out, bool stream, W... w) {
  const DW dw;
  const DD dd;
  const DU64 du;
  const size_t N = hn::Lanes(dw), N64 = hn::Lanes(dd);
  if constexpr (IsFloatNormal(kKind)) {
    VF scale_sin, scale_cos, scale_mean;
    math::SetNormalScale(DF(), p.std_f, p.mean_f, &scale_sin, &scale_cos, &scale_mean);
    NormalFloatVectors<kKind>(math::NormalScale<DF>{scale_sin, scale_cos, scale_mean}, out, stream,
                              w...);
  } else if constexpr (kKind == GenerateKind::kNormalFloat64) {
    ForEachVectorPair(
        [&](size_t i, VW w0, VW w1) __attribute__((always_inline)) {
          // Per 128 bits: (u, v) lanes of pair j of w0 and of w1.
          const VU64 a = hn::BitCast(du, w0), b = hn::BitCast(du, w1);
          VD z0, z1;
          NormalDouble(dd, p, UnitDouble(hn::InterleaveLower(du, a, b), 0x1p-53),
                       UnitDouble(hn::InterleaveUpper(du, a, b), 0x1p-52), &z0, &z1);
          Put(dd, hn::InterleaveLower(dd, z0, z1), out + 2 * i * N64, stream);
          Put(dd, hn::InterleaveUpper(dd, z0, z1), out + (2 * i + 1) * N64, stream);
        },
        0, w...);
  } else if constexpr (kKind == GenerateKind::kUniformFloat64) {
    ForEachVector(
        [&](size_t g, VW x) __attribute__((always_inline)) {
          UniformDoubleOfZ(p, Z53(hn::BitCast(du, x)), out + g * N64, stream);
        },
        w...);
  } else if constexpr (kKind == GenerateKind::kBernoulliFloat64) {
    ForEachVector(
        [&](size_t g, VW x) __attribute__((always_inline)) {
          const auto hit = hn::Lt(UnitDouble(hn::BitCast(du, x), 0x1p-53), hn::Set(dd, p.p_d));
          Put(dd, hn::IfThenElseZero(hit, hn::Set(dd, 1.0)), out + g * N64, stream);
        },
        w...);
  } else if constexpr (IsWideInteger(kKind)) {
    ForEachVector(
        [&](size_t g, VW x) __attribute__((always_inline)) {
          const VU64 l = hn::BitCast(du, x);  // word 2i low, 2i + 1 high
          const VU64 ab = hn::Or(hn::ShiftLeft<32>(l), hn::ShiftRight<32>(l));  // (a << 32) | b
          // low + m: within T (checked); wrap-around is the two's complement value.
          const VU64 v = hn::Add(ModRange64(p, ab), hn::Set(du, static_cast<uint64_t>(p.low)));
          if constexpr (std::is_same<T, int64_t>::value) {
            Put(du, v, reinterpret_cast<uint64_t*>(out + g * N64), stream);
          } else {
            HWY_ALIGN uint64_t lanes[hn::MaxLanes(du)];
            hn::Store(v, du, lanes);
            for (size_t i = 0; i < N64; ++i) {
              out[g * N64 + i] = static_cast<T>(static_cast<int64_t>(lanes[i]));
            }
          }
        },
        w...);
  } else {
#if RANDTENSOR_AVX512
    if constexpr (kKind == GenerateKind::kUniformBfloat16) {
      // Two vectors at a time: AVX512_BF16's pack where the parameters allow
      // it (p.bf16_pack); else each word rounded in place (its high half is
      // the bfloat16), then one two-table word permute takes the high halves
      // of both: no shifts, and no narrowing of each vector on its own.
      const hn::ScalableTag<uint16_t> d16;
      const __m512i high_halves = _mm512_set_epi16(
          63, 61, 59, 57, 55, 53, 51, 49, 47, 45, 43, 41, 39, 37, 35, 33,
          31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
      ForEachVectorPair(
          [&](size_t i, VW w0, VW w1) __attribute__((always_inline)) {
            uint16_t* to = reinterpret_cast<uint16_t*>(out + 2 * i * N);
            if constexpr (kPack) {
              Put(d16, PackBfloat16(UniformFloat(p, w0), UniformFloat(p, w1)), to, stream);
            } else {
              const VW a = Bfloat16Rounded(UniformFloat(p, w0));
              const VW b = Bfloat16Rounded(UniformFloat(p, w1));
              Put(d16, hn::Vec<decltype(d16)>{_mm512_permutex2var_epi16(a.raw, high_halves, b.raw)},
                  to, stream);
            }
          },
          0, w...);
      return;
    }
#endif
    ForEachVector(
        [&](size_t g, VW x)
            __attribute__((always_inline)) { ConvertVector<kKind>(p, x, out + g * N, stream); },
        w...);
  }
}

// Words [0, ...) -> n elements of `kind` (ConvertFn): element i reads words
// [w i, w i + w), and Box-Muller element i its whole pair's words (for an
// odd n, words beyond w n read as zero for float pairs, as four words for a
// float64 pair). A partial last group is converted from a zero-padded copy
// into scratch and copied out, so the same code computes every element.
// (kPack as for ConvertVectors, chosen here as GenerateConverted chooses it.)
template <GenerateKind kKind, bool kPack = false>
void ConvertWords(const KindParams& p, const uint32_t* words, uint64_t n, void* dst) {
  if constexpr (HasPackVariant<kKind, kPack>()) {
    if (p.bf16_pack) return ConvertWords<kKind, true>(p, words, n, dst);
  }
  using T = typename detail::KindTraits<kKind>::Type;
  constexpr int kW = detail::KindTraits<kKind>::kWords;
  constexpr size_t kGroup = VectorGroup<kKind>();
  static_assert(kGroup == 1 || kGroup == 2, "groups of one or two vectors");
  const DW dw;
  const size_t N = hn::Lanes(dw);
  const uint64_t per_group = kGroup * N / kW;  // elements
  // One group of vectors from `from` (aligned or not) to `to`.
  const auto group = [&](const uint32_t* from, T* to) __attribute__((always_inline)) {
    if constexpr (kGroup == 1) {
      ConvertVectors<kKind, kPack>(p, to, false, hn::LoadU(dw, from));
    } else {
      ConvertVectors<kKind, kPack>(p, to, false, hn::LoadU(dw, from), hn::LoadU(dw, from + N));
    }
  };
  T* out = static_cast<T*>(dst);
  uint64_t i = 0;
  for (; i + per_group <= n; i += per_group) group(words + kW * i, out + i);
  if (i < n) {
    HWY_ALIGN uint32_t padded[kGroup * hn::MaxLanes(dw)] = {};
    HWY_ALIGN T scratch[kGroup * hn::MaxLanes(dw)];
    const uint64_t left = n - i;
    const uint64_t nwords = kKind == GenerateKind::kNormalFloat64 ? 4 * ((left + 1) / 2) : kW * left;
    std::memcpy(padded, words + kW * i, nwords * 4);
    group(padded, scratch);
    std::memcpy(out + i, scratch, left * sizeof(T));
  }
}

#else  // HWY_TARGET == HWY_SCALAR

// The same conversions one element (or pair) at a time.
template <GenerateKind kKind>
void ConvertWords(const KindParams& p, const uint32_t* words, uint64_t n, void* dst) {
  using T = typename detail::KindTraits<kKind>::Type;
  const DW dw;
  const hn::Simd<double, 1, 0> d1;
  T* out = static_cast<T*>(dst);
  VF scale_sin, scale_cos, scale_mean;
  math::SetNormalScale(DF(), p.std_f, p.mean_f, &scale_sin, &scale_cos, &scale_mean);
  const math::NormalScale<DF> scale{scale_sin, scale_cos, scale_mean};
  for (uint64_t i = 0; i < n; ++i) {
    if constexpr (IsFloatNormal(kKind)) {
      if (i % 2 != 0) continue;
      VF t0, t1;
      BoxMullerFloatPair(scale, words[i], i + 1 < n ? words[i + 1] : 0u, &t0, &t1);
      StoreNormal<kKind>(t0, out + i);
      if (i + 1 < n) StoreNormal<kKind>(t1, out + i + 1);
    } else if constexpr (kKind == GenerateKind::kNormalFloat64) {
      if (i % 2 != 0) continue;
      const uint32_t* q = words + 2 * i;  // the pair's four words
      hn::Vec<decltype(d1)> z0, z1;
      NormalDouble(d1, p, hn::Set(d1, UnitDoubleScalar(q[0], q[1], 0x1p-53)),
                   hn::Set(d1, UnitDoubleScalar(q[2], q[3], 0x1p-52)), &z0, &z1);
      out[i] = hn::GetLane(z0);
      if (i + 1 < n) out[i + 1] = hn::GetLane(z1);
    } else if constexpr (kKind == GenerateKind::kUniformFloat64) {
      const double t = std::fma(UnitDoubleScalar(words[2 * i], words[2 * i + 1], 0x1p-53),
                                p.range_d, p.low_d);
      out[i] = t == p.high_d ? p.low_d : t;
    } else if constexpr (kKind == GenerateKind::kBernoulliFloat64) {
      out[i] = UnitDoubleScalar(words[2 * i], words[2 * i + 1], 0x1p-53) < p.p_d ? 1.0 : 0.0;
    } else if constexpr (IsWideInteger(kKind)) {
      out[i] = WideInteger<T>(p, words[2 * i], words[2 * i + 1]);
    } else {
      ConvertVector<kKind>(p, hn::Set(dw, words[i]), out + i);
    }
  }
}

#endif  // HWY_TARGET != HWY_SCALAR

// Elements [first, first + count) of `kind` into dst (GenerateFn): chunks
// of stream words from the bits kernel into a fixed 4 KiB L1 buffer,
// converted by ConvertWords. Element i reads words [w i, w i + w); for
// Box-Muller element i belongs to pair i / 2, whose words start at
// 2 w (i / 2), so chunks start at even elements and a chunk's odd start is
// converted and skipped. The fused kernel below uses it for the ends of a
// run that are not whole vectors of Philox blocks.
template <GenerateKind kKind>
void GenerateChunked(const detail::Stream& s, uint64_t first, uint64_t count, void* dst) {
  using T = typename detail::KindTraits<kKind>::Type;
  constexpr int kWords = detail::KindTraits<kKind>::kWords;
  constexpr bool kPairs = IsFloatNormal(kKind) || kKind == GenerateKind::kNormalFloat64;
  constexpr uint64_t kChunk = 1024 / kWords;  // elements (even)
  HWY_ALIGN uint32_t words[kChunk * kWords];
  T scratch[kPairs ? kChunk : 1];
  T* out = static_cast<T*>(dst);
  uint64_t start = kPairs ? first & ~uint64_t{1} : first;
  uint64_t skip = first - start;
  while (count != 0) {
    const uint64_t want = skip + count;
    const uint64_t n = want >= kChunk ? kChunk : kPairs ? (want + 1) & ~uint64_t{1} : want;
    GenerateBits(s, kWords * start, kWords * n, words, false);
    const uint64_t take = n - skip < count ? n - skip : count;
    if (kPairs) {
      ConvertWords<kKind>(s.params, words, n, scratch);
      std::memcpy(out, scratch + skip, take * sizeof(T));
    } else {
      ConvertWords<kKind>(s.params, words, n, out);
    }
    out += take;
    count -= take;
    start += n;
    skip = 0;
  }
}

#if HWY_TARGET != HWY_SCALAR
// No head makes the output vector-aligned at a Philox block boundary.
constexpr uint64_t kNoAlignedHead = ~uint64_t{0};

// Bytes of converted elements GenerateConverted realigns in L1 per step,
// at most (one group of kBatches vectors is at most 3 KiB on AVX-512).
constexpr size_t kConvertStageBytes = 4096;

// The fewest elements h such that out + h is vector-aligned and first + h is
// a Philox block boundary (a multiple of kPerBlock): from there whole vectors
// of blocks convert and stream straight from registers. Candidates are the
// elements to the next vector boundary plus whole vectors of elements
// (E = kVectorBytes / sizeof(T)); their stream residues mod kPerBlock repeat
// within kPerBlock candidates, so none further can succeed. Solvable exactly
// when the address in elements and the stream position agree modulo
// gcd(E, kPerBlock) (= kPerBlock on AVX-512 and AVX2): where stream element
// 0 would lie, out - first * sizeof(T), is aligned to a block's elements
// (kPerBlock * sizeof(T) bytes). So a float32, float16 or float64 tensor from
// element 0 at 16 bytes past a 64-byte boundary (NumPy's large arrays) is
// solvable; a uint8 one at 1 byte past, a float32 one at 4 and a one-word
// int64 one at 16 are not (they take the stage).
template <typename T, uint64_t kPerBlock>
HWY_INLINE uint64_t AlignedHead(uint64_t first, const T* out) {
  const uint64_t e = kVectorBytes / sizeof(T);
  uint64_t h = (kVectorBytes - reinterpret_cast<uintptr_t>(out) % kVectorBytes) % kVectorBytes /
               sizeof(T);  // out is element-aligned (PlanFill checks)
  for (uint64_t k = 0; k < kPerBlock; ++k, h += e) {
    if ((first + h) % kPerBlock == 0) return h;
  }
  return kNoAlignedHead;
}
#endif

// Elements [first, first + count) of `kind` into dst (GenerateFn), converted
// in registers right after the Philox rounds: each batch's blocks are
// transposed to stream order (as for bits) and handed to ConvertVectors
// instead of being stored. A Philox block holds whole elements and whole
// Box-Muller pairs (4 / w elements), so whole vectors of blocks convert on
// their own; the run's last, partial vector converts whole into the stage,
// and the elements before its first block boundary go through
// GenerateChunked.
// With `streaming`, elements are stored non-temporally: straight from
// registers after a head that makes the output vector-aligned at a block
// boundary (AlignedHead), else through a small L1 stage that realigns them.
// kPack: ConvertVectors' (the fill's parameters allow it: s.params.bf16_pack).
template <GenerateKind kKind, bool kPack = false>
void GenerateConverted(const detail::Stream& s, uint64_t first, uint64_t count, void* dst,
                       bool streaming) {
#if HWY_TARGET == HWY_SCALAR
  (void)streaming;
  GenerateChunked<kKind>(s, first, count, dst);
#else
  if constexpr (HasPackVariant<kKind, kPack>()) {
    // Decided once per call, so that each loop is compiled for one rounding.
    if (s.params.bf16_pack) return GenerateConverted<kKind, true>(s, first, count, dst, streaming);
  }
  using T = typename detail::KindTraits<kKind>::Type;
  constexpr uint64_t kPerBlock = 4 / detail::KindTraits<kKind>::kWords;  // elements
  constexpr size_t kOut = size_t{1} << kLog2LanesPerChunk;  // transposed vectors per batch
  static_assert(kOut % VectorGroup<kKind>() == 0, "a batch holds whole converter groups");
  T* out = static_cast<T*>(dst);
  // Elements before the first Philox block boundary (or, streaming, before
  // the first vector-aligned one); kNoAlignedHead: stream through the stage.
  uint64_t head = std::min<uint64_t>(count, (kPerBlock - first % kPerBlock) % kPerBlock);
  if (streaming) {
    head = AlignedHead<T, kPerBlock>(first, out);
    if (head != kNoAlignedHead && head > count) head = kNoAlignedHead;
  }
  const bool staged = head == kNoAlignedHead;
  // The unaligned bytes stream too (plain stores that miss stall streaming
  // ones behind them; see move-inl.h): through L1, then StreamCopyBytes.
  HWY_ALIGN uint8_t stage[kConvertStageBytes + 2 * kVectorBytes];
  if (head != 0 && !staged) {
    if (streaming) {
      // head < kPerBlock vectors of bytes: fits the stage.
      GenerateChunked<kKind>(s, first, head, stage);
      StreamCopyBytes(stage, head * sizeof(T), reinterpret_cast<uint8_t*>(out));
    } else {
      GenerateChunked<kKind>(s, first, head, out);
    }
    first += head, count -= head, out += head;
  }
  const size_t nb = BlocksPerVector();
  const uint64_t per_vector = nb * kPerBlock;  // elements per state vector
  // With `staged`, the elements to the first block boundary go through the
  // stage below, and the vectors start after them.
  const uint64_t lead =
      staged ? std::min<uint64_t>(count, (kPerBlock - first % kPerBlock) % kPerBlock) : 0;
  uint64_t vectors = (count - lead) / per_vector;
  uint64_t block = (first + lead) / kPerBlock;  // the next vector's first block
  // Vectors [0, n) of the run converted to `to`; `stream`: non-temporal
  // stores straight from registers (`to` aligned to the vector size). The
  // rounds are the bits kernel's (UniformRun, LastRound): 0 and 1 from
  // uniform counter words, 9 fused with the transpose that hands the words in
  // stream order to ConvertVectors (float normals and uniform float64 on
  // AVX-512: round 9 plain, kFromBlocks). Groups of kBatches vectors and single
  // ones for the rest: two instantiations per kind and target, not one per
  // group size (the conversions make this file the build's longest compile).
  // The one vector whose counter word 0 carries (once per 2^32 blocks) goes
  // through GenerateChunked.
  // Normals' conversions are long (log, sine, cosine): made after the last
  // round of the whole group, not batch by batch inside it, where the other
  // batches' live state would leave them too few registers.
  constexpr bool kLong = IsFloatNormal(kKind) || kKind == GenerateKind::kNormalFloat64;
  // Float normals and uniform float64 on AVX-512 take their words from the
  // state's order, round 9 unfused (NormalFromBlocks, UniformDoubleFromBlocks).
#if RANDTENSOR_AVX512
  constexpr bool kFromBlocks = IsFloatNormal(kKind) || kKind == GenerateKind::kUniformFloat64;
#else
  constexpr bool kFromBlocks = false;
#endif
  // A copy the stores cannot alias: through s.params, every float store
  // made the compiler reload the constants.
  const KindParams params = s.params;
  // Made once per call, not once per group of batches, where they would
  // add their operations to every group.
  VF scale_sin, scale_cos, scale_mean;
  math::SetNormalScale(DF(), params.std_f, params.mean_f, &scale_sin, &scale_cos, &scale_mean);
  const math::NormalScale<DF> scale{scale_sin, scale_cos, scale_mean};
  (void)scale;
  const auto convert_run = [&](uint64_t n, T* to, bool stream) __attribute__((always_inline)) {
    while (n != 0) {
      const Counter128 c = s.start.Plus(block);
      const uint64_t room = (uint64_t{1} << 32) - c.w[0];  // blocks before word 0 carries
      uint64_t m = std::min<uint64_t>(n, room / nb);       // whole vectors in them
      if (m == 0) {
        GenerateChunked<kKind>(s, block * kPerBlock, per_vector, to);
        m = 1;
      } else {
        UniformRun run(c, s.keys);
        VU64 even, odd;  // the run's products (UniformRun::Load)
        run.Load(&even, &odd);
        // Batch x's words in block order (LastRound with InPlace) to dst.
        const auto convert = [&](Batch x, T * dst) __attribute__((always_inline)) {
          if constexpr (kOut == 4) {
            ConvertVectors<kKind, kPack>(params, dst, stream, WordOf(x, 0), WordOf(x, 1),
                                         WordOf(x, 2), WordOf(x, 3));
          } else {
            ConvertVectors<kKind, kPack>(params, dst, stream, WordOf(x, 0), WordOf(x, 1));
          }
        };
        const auto batches = [&](auto group, uint64_t done) __attribute__((always_inline)) {
          WithBatches<decltype(group)::value>([&](auto... x) __attribute__((always_inline)) {
            run.Next<philox::kRounds - 1>(s.keys, &even, &odd, x...);
            if constexpr (kFromBlocks) {
#if RANDTENSOR_AVX512
              Round(s.keys.k0[philox::kRounds - 1], s.keys.k1[philox::kRounds - 1], x...);
              ForEachBatch(
                  [&](Batch y, size_t b) __attribute__((always_inline)) {
                    T* const dst = to + (done + b) * per_vector;
                    if constexpr (kKind == GenerateKind::kUniformFloat64) {
                      UniformDoubleFromBlocks(params, y.x0, y.x1, y.x2, y.x3, dst, stream);
                    } else {
                      NormalFromBlocks<kKind>(scale, y.x0, y.x1, y.x2, y.x3, dst, stream);
                    }
                  },
                  x...);
#endif
            } else if constexpr (kLong) {
              LastRound(s.keys, InPlace(), x...);
              ForEachBatch(
                  [&](Batch y, size_t b)
                      __attribute__((always_inline)) { convert(y, to + (done + b) * per_vector); },
                  x...);
            } else {
              LastRound(
                  s.keys,
                  [&](Batch y, size_t b, size_t i, VW t) __attribute__((always_inline)) {
                    InPlace()(y, b, i, t);
                    if (i + 1 == kOut) convert(y, to + (done + b) * per_vector);
                  },
                  x...);
            }
          });
        };
        uint64_t done = 0;
        for (; done + kBatches <= m; done += kBatches) {
          batches(std::integral_constant<size_t, kBatches>(), done);
        }
        for (; done < m; ++done) batches(std::integral_constant<size_t, 1>(), done);
      }
      block += m * nb;
      to += m * per_vector;
      n -= m;
    }
  };
  if (!staged) {
    // Streaming: every store is a whole vector (or a half or quarter of
    // one) at a multiple of its own size from the aligned `out`.
    convert_run(vectors, out, streaming);
    out += vectors * per_vector;
    count -= vectors * per_vector;
    if (count != 0) {
      // The last, partial vector of blocks: converted whole into the stage,
      // its first elements copied (plainly, as the head). Any fill smaller
      // than a vector of blocks (64 elements on AVX-512) comes here: one
      // fused vector costs it less than the words through L1 and a second
      // pass (GenerateChunked).
      convert_run(1, reinterpret_cast<T*>(stage), false);
      std::memcpy(out, stage, count * sizeof(T));
    }
    return;
  }
  // The stream position and the address disagree (AlignedHead): elements are
  // converted into the stage behind the bytes still owed from the last step,
  // then streamed from it in whole vectors to aligned addresses; the
  // leftover (less than a vector) waits for the next step, so no line is
  // split between steps. A step is one group of kBatches vectors, as many
  // stores as the aligned path issues at once, so streaming overlaps the
  // next rounds as it does there; a larger step keeps finished lines in L1
  // while the rounds run instead of streaming them, and copying a whole
  // stage out afterwards would read every byte twice and store the partial
  // words of 1- and 2-byte types plainly in mid-run. Bytes of partial 4-byte
  // words at the run's two ends are stored plainly by StreamCopyBytes
  // (neighbours share those words).
  const hn::ScalableTag<uint8_t> d8;
  const size_t V = hn::Lanes(d8);  // divides kVectorBytes
  uint8_t* to = reinterpret_cast<uint8_t*>(out);
  size_t owed = 0;  // bytes at stage[0, owed): not yet stored, due at `to`
  const auto flush = [&](bool last) {
    size_t done = (kVectorBytes - reinterpret_cast<uintptr_t>(to) % kVectorBytes) % kVectorBytes;
    if (done > owed) {
      if (!last) return;  // not yet up to the first aligned address
      done = owed;
    }
    StreamCopyBytes(stage, done, to);  // up to the first aligned address
    for (; done + V <= owed; done += V) hn::Stream(hn::LoadU(d8, stage + done), d8, to + done);
    if (last) {
      StreamCopyBytes(stage + done, owed - done, to + done);
      done = owed;
    }
    std::memmove(stage, stage + done, owed - done);  // < kVectorBytes
    to += done;
    owed -= done;
  };
  if (lead != 0) {
    GenerateChunked<kKind>(s, first, lead, stage);
    owed = lead * sizeof(T);
  }
  first += lead + vectors * per_vector;
  count -= lead + vectors * per_vector;
  const uint64_t step = std::max<uint64_t>(
      1, std::min<uint64_t>(kBatches, kConvertStageBytes / (per_vector * sizeof(T))));
  while (vectors != 0) {
    const uint64_t n = std::min(vectors, step);
    convert_run(n, reinterpret_cast<T*>(stage + owed), false);  // owed: whole elements
    owed += n * per_vector * sizeof(T);
    flush(false);
    vectors -= n;
  }
  // The run's last elements (fewer than a vector of blocks' worth).
  if (count != 0) {
    GenerateChunked<kKind>(s, first, count, stage + owed);
    owed += count * sizeof(T);
  }
  flush(true);
#endif
}

}  // namespace convert
}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_CONVERT_INL_H_ toggle guard
