// Conversions from stream words to distributions (SPEC.md section 8), per
// SIMD target: one converter per generate kind of kernel_list.h. Included
// only by kernels.cc through foreach_target.h, hence the toggle guard.
//
// Bit-exact on every target: only exactly rounded operations (add, mul,
// compare, integer ops, int32 -> float conversion of values below 2^24), no
// contraction (kernels.cc is built with -ffp-contract=off), and every fused
// multiply-add stated: hardware FMA where the target has it (AVX2, AVX-512),
// else an exact emulation (FmaExact below). float16 and bfloat16 are built
// from float bits with integer round-to-nearest-even, never DemoteTo (which
// truncates on SSE4 and rounds on F16C).
//
// How words reach a converter: the generate kernel fills a small L1 chunk of
// words with the bits kernel and converts it (GenerateChunked). A fixed
// 4 KiB buffer, not one that grows with the tensor; fusing the conversion
// into the rounds' registers is a later speed step.

#if defined(RANDTENSOR_SRC_CONVERT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_CONVERT_INL_H_
#undef RANDTENSOR_SRC_CONVERT_INL_H_
#else
#define RANDTENSOR_SRC_CONVERT_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cmath>
#include <cstring>

#include "hwy/highway.h"
#include "src/generate-inl.h"
#include "src/kernel_list.h"
#include "src/half.h"
#include "src/kernels.h"

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

// Exact fma(a, b, c) in float without FMA hardware: a * b is exact in double
// (24 + 24 bits); the double sum is rounded to odd (its TwoSum error decides
// the last bit), and rounding a round-to-odd double (53 bits >= 24 + 2) to
// float gives the correctly rounded fma.
HWY_INLINE float FmaExactScalar(float a, float b, float c) {
  const double p = static_cast<double>(a) * static_cast<double>(b);
  const double cd = c;
  double s = p + cd;
  const double bb = s - p;
  const double err = (p - (s - bb)) + (cd - bb);  // p + cd = s + err exactly
  if (err != 0) {
    uint64_t bits;
    std::memcpy(&bits, &s, 8);
    if ((bits & 1) == 0) {
      // s != 0 here (a zero sum is exact). Step to the odd neighbour on the
      // side of the exact value.
      bits = (err > 0) == (s > 0) ? bits + 1 : bits - 1;
      std::memcpy(&s, &bits, 8);
    }
  }
  return static_cast<float>(s);
}

HWY_INLINE VF FmaExact(VF a, VF b, VF c) {
#if HWY_TARGET <= HWY_AVX2 && HWY_ARCH_X86
  return hn::MulAdd(a, b, c);  // vfmadd: one rounding
#else
  const DF df;
  HWY_ALIGN float fa[hn::MaxLanes(df)], fb[hn::MaxLanes(df)], fc[hn::MaxLanes(df)];
  hn::Store(a, df, fa);
  hn::Store(b, df, fb);
  hn::Store(c, df, fc);
  for (size_t i = 0; i < hn::Lanes(df); ++i) fa[i] = FmaExactScalar(fa[i], fb[i], fc[i]);
  return hn::Load(df, fa);
#endif
}

// u32(x) = fma(float(x), 2^-32, 2^-33): float(x) correctly rounded as
// hi * 65536 + lo (both exact in float, one rounding in the add); then the
// product is exact (a power of two), so the add is the fma's one rounding.
HWY_INLINE VF UnitFloat(VW x) {
  const DF df;
#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
  const VF fx = hn::ConvertTo(df, x);  // vcvtudq2ps: uint32 -> float, round to nearest even
#else
  const DI di;
  const VF hi = hn::ConvertTo(df, hn::BitCast(di, hn::ShiftRight<16>(x)));
  const VF lo = hn::ConvertTo(df, hn::BitCast(di, hn::And(x, hn::Set(DW(), 0xFFFFu))));
  const VF fx = hn::Add(hn::Mul(hi, hn::Set(df, 65536.0f)), lo);
#endif
  return hn::Add(hn::Mul(fx, hn::Set(df, 0x1p-32f)), hn::Set(df, 0x1p-33f));
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

// Round-to-nearest-even float -> bfloat16 bits (finite inputs).
HWY_INLINE VW Bfloat16Bits(VF f) {
  const DW dw;
  const VW x = hn::BitCast(dw, f);
  const VW odd = hn::And(hn::ShiftRight<16>(x), hn::Set(dw, 1u));
  return hn::ShiftRight<16>(hn::Add(hn::Add(x, hn::Set(dw, 0x7FFFu)), odd));
}

// Stores the low 16 / 8 bits of each word (values that fit).
HWY_INLINE void Store16(VW v, uint16_t* dst) {
  const hn::Rebind<uint16_t, DW> d16;
  hn::StoreU(hn::DemoteTo(d16, hn::BitCast(DI(), v)), d16, dst);
}
HWY_INLINE void Store8(VW v, uint8_t* dst) {
  const hn::Rebind<uint8_t, DW> d8;
  hn::StoreU(hn::DemoteTo(d8, hn::BitCast(DI(), v)), d8, dst);
}

// uniform: t = fma(u, R, L) in float; t == H flips to L (PyTorch's (0, 1] ->
// [0, 1)). For float16/bfloat16, PyTorch casts the bounds to the output type
// first (L, H and R are values of that type, R = half(H - L)), rounds t once
// to the type and compares there (SPEC.md section 8 said otherwise; the GPU
// agrees with PyTorch: tests/reference/README.md).
HWY_INLINE VF UniformFloat(const KindParams& p, VW w) {
  const DF df;
  return FmaExact(UnitFloat(w), hn::Set(df, p.range_f), hn::Set(df, p.low_f));
}

HWY_INLINE void UniformFloat32(const KindParams& p, VW w, void* dst) {
  const DF df;
  const VF t = UniformFloat(p, w);
  const VF out = hn::IfThenElse(hn::Eq(t, hn::Set(df, p.high_f)), hn::Set(df, p.low_f), t);
  hn::StoreU(out, df, static_cast<float*>(dst));
}

template <bool kBfloat16>
HWY_INLINE void UniformHalf(const KindParams& p, VW w, void* dst) {
  const DW dw;
  const VF t = UniformFloat(p, w);
#if HWY_TARGET <= HWY_AVX2 && HWY_ARCH_X86
  if constexpr (!kBfloat16) {
    // F16C's vcvtps2ph with an immediate round-to-nearest-even (Highway's
    // DemoteTo here) is the same rounding as Float16Bits, subnormals too, in
    // one instruction; SSE4 has no F16C (and Highway truncates there).
    const hn::Rebind<hwy::float16_t, DF> dh;
    const hn::Rebind<uint16_t, DF> d16;
    const auto bits = hn::BitCast(d16, hn::DemoteTo(dh, t));
    const auto high = hn::Set(d16, static_cast<uint16_t>(p.high_bits));
    hn::StoreU(hn::IfThenElse(hn::Eq(bits, high), hn::Set(d16, static_cast<uint16_t>(p.low_bits)),
                              bits),
               d16, static_cast<uint16_t*>(dst));
    return;
  }
#endif
  const VW bits = kBfloat16 ? Bfloat16Bits(t) : Float16Bits(t);
  const VW out =
      hn::IfThenElse(hn::Eq(bits, hn::Set(dw, p.high_bits)), hn::Set(dw, p.low_bits), bits);
  Store16(out, static_cast<uint16_t*>(dst));
}

// bernoulli: 1 if u32(x) < float(p) else 0, as `one` of the output type.
HWY_INLINE VW BernoulliBits(const KindParams& p, VW w, uint32_t one) {
  const DW dw;
  const DF df;
  const auto hit = hn::RebindMask(dw, hn::Lt(UnitFloat(w), hn::Set(df, p.p_f)));
  return hn::IfThenElseZero(hit, hn::Set(dw, one));
}

// integers (one word, high - low < 2^28): low + (x mod r), per lane.
template <typename T>
HWY_INLINE void Integers(const KindParams& p, VW w, void* dst) {
  const DW dw;
  HWY_ALIGN uint32_t x[hn::MaxLanes(dw)];
  hn::Store(w, dw, x);
  T* out = static_cast<T*>(dst);
  for (size_t i = 0; i < hn::Lanes(dw); ++i) {
    // Exact: |low + m| is within the output type's integer range (checked).
    out[i] = static_cast<T>(p.low + static_cast<int64_t>(x[i] % p.range));
  }
}

// ---------------------------------------------------------------- normal
// Box-Muller on word pairs (x, y) (SPEC.md section 8): u = u32(x),
// v = fma(float(y), P32_2PI, P32_2PI / 2), s = sqrt(-2 log u), the pair
// (s sin v, s cos v). log, sin and cos are randtensor's own, in double with
// plain IEEE operations only (no libm, no contraction), so every target gets
// the same bits; their error (a few 1e-16) is far below float's ulp, so z is
// the exact formula rounded to float except within about 1e-9 ulp of a
// rounding boundary. Scalar per pair for now (vectorizing is a speed step).

HWY_INLINE double Bits64ToDouble(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

// x = f 2^e for a positive normal double, f in [sqrt(1/2), sqrt(2)).
HWY_INLINE double SplitForLog(double x, int* e) {
  uint64_t b;
  std::memcpy(&b, &x, 8);
  *e = static_cast<int>((b >> 52) & 0x7FF) - 1023;
  double f = Bits64ToDouble((b & 0xFFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
  if (f > 1.4142135623730951) {
    f *= 0.5;
    *e += 1;
  }
  return f;
}

// log(x) for a positive normal double: x = f 2^e, log f = 2 atanh(t),
// t = (f - 1) / (f + 1), |t| < 0.1716, the series to t^23 (next term below
// 1e-19).
HWY_INLINE double DetLog(double x) {
  int e;
  const double f = SplitForLog(x, &e);
  const double t = (f - 1.0) / (f + 1.0);
  const double t2 = t * t;
  double p = 1.0 / 23;
  for (int k = 21; k >= 3; k -= 2) p = p * t2 + 1.0 / k;
  p = p * t2 + 1.0;
  const double ln2_hi = 6.93147180369123816490e-01;  // fdlibm's split of log(2)
  const double ln2_lo = 1.90821492927058770002e-10;
  const double de = static_cast<double>(e);
  return de * ln2_hi + (de * ln2_lo + 2.0 * t * p);
}

// sin and cos of v in [0, 8): quadrant k = round(v / (pi/2)), r = v - k pi/2
// by Cody and Waite's three-part pi/2 (k * part exact: k < 6, parts of 33
// bits), then Taylor series on |r| <= pi/4: sin to r^17, cos to r^18 (next
// terms below 3e-18).
HWY_INLINE void DetSinCos(double v, double* sin_v, double* cos_v) {
  const double k = static_cast<double>(static_cast<int64_t>(v * 0.63661977236758134308 + 0.5));
  const double r = ((v - k * 1.57079632673412561417e+00) - k * 6.07710050630396597660e-11) -
                   k * 2.02226624871116645580e-21;
  const double t = r * r;
  // (-1)^j / (2j + 1)! and (-1)^j / (2j)!, highest first (Horner).
  static constexpr double kSin[] = {1.0 / 355687428096000.0, -1.0 / 1307674368000.0,
                                    1.0 / 6227020800.0,       -1.0 / 39916800.0,
                                    1.0 / 362880.0,           -1.0 / 5040.0,
                                    1.0 / 120.0,              -1.0 / 6.0,
                                    1.0};
  static constexpr double kCos[] = {-1.0 / 6402373705728000.0, 1.0 / 20922789888000.0,
                                    -1.0 / 87178291200.0,      1.0 / 479001600.0,
                                    -1.0 / 3628800.0,          1.0 / 40320.0,
                                    -1.0 / 720.0,              1.0 / 24.0,
                                    -1.0 / 2.0,                1.0};
  double sp = kSin[0], cp = kCos[0];
  for (size_t i = 1; i < sizeof(kSin) / sizeof(kSin[0]); ++i) sp = sp * t + kSin[i];
  for (size_t i = 1; i < sizeof(kCos) / sizeof(kCos[0]); ++i) cp = cp * t + kCos[i];
  const double s = r * sp, c = cp;
  switch (static_cast<int64_t>(k) & 3) {
    case 0: *sin_v = s, *cos_v = c; break;
    case 1: *sin_v = c, *cos_v = -s; break;
    case 2: *sin_v = -s, *cos_v = -c; break;
    default: *sin_v = -c, *cos_v = s; break;
  }
}

HWY_INLINE float UnitFloatScalar(uint32_t x) {
  return static_cast<float>(x) * 0x1p-32f + 0x1p-33f;  // the product is exact: one rounding
}

// The float pair of words (x, y), before mean and std.
HWY_INLINE void BoxMullerFloat(uint32_t x, uint32_t y, float* z0, float* z1) {
  constexpr float kP32_2Pi = 0x1p-32f * 6.2831855f;  // exact: a power of two times a float
  const float u = UnitFloatScalar(x);
  const float v = FmaExactScalar(static_cast<float>(y), kP32_2Pi, kP32_2Pi * 0.5f);
  double sin_v, cos_v;
  DetSinCos(static_cast<double>(v), &sin_v, &cos_v);
  const double s = std::sqrt(-2.0 * DetLog(static_cast<double>(u)));
  *z0 = static_cast<float>(s * sin_v);
  *z1 = static_cast<float>(s * cos_v);
}

template <typename T, typename Out>
HWY_INLINE void NormalPairs(const KindParams& p, const uint32_t* words, uint64_t n, T* out,
                            const Out& to_type) {
  for (uint64_t k = 0; k < n; k += 2) {
    float z[2];
    BoxMullerFloat(words[k], k + 1 < n ? words[k + 1] : 0u, &z[0], &z[1]);
    out[k] = to_type(FmaExactScalar(z[0], p.std_f, p.mean_f));
    if (k + 1 < n) out[k + 1] = to_type(FmaExactScalar(z[1], p.std_f, p.mean_f));
  }
}

// Words [0, n) -> n normal elements: element k from the pair
// (words[k & ~1], words[k | 1]); callers pass pairs whole (n even) except
// where the last element is a sine, which needs no second word's cosine.
template <GenerateKind kKind>
void ConvertNormalWords(const KindParams& p, const uint32_t* words, uint64_t n, void* dst) {
  if constexpr (kKind == GenerateKind::kNormalFloat32) {
    NormalPairs(p, words, n, static_cast<float*>(dst), [](float f) { return f; });
  } else if constexpr (kKind == GenerateKind::kNormalFloat16) {
    NormalPairs(p, words, n, static_cast<uint16_t*>(dst),
                [](float f) { return detail::Float16Bits(f); });
  } else {
    NormalPairs(p, words, n, static_cast<uint16_t*>(dst),
                [](float f) { return detail::Bfloat16Bits(f); });
  }
}

// ------------------------------------------------- two words per element
// float64 uniform and bernoulli read u53(a, b) = fma(double(a ^ (b << 21)),
// 2^-53, 2^-54) (the product is exact: one rounding in the add); integers of
// a range >= 2^28 read (a << 32) | b. Scalar per element for now. The fma of
// uniform is std::fma: vfmadd on targets with FMA, and elsewhere the C
// library's software fma, which IEEE 754 defines to the bit (correctly
// rounded), so no machine can differ.

HWY_INLINE double UnitDouble(uint32_t a, uint32_t b) {
  const uint64_t z = uint64_t{a} ^ (uint64_t{b} << 21);  // < 2^53: exact in double
  return static_cast<double>(z) * 0x1p-53 + 0x1p-54;
}

template <GenerateKind kKind>
void ConvertPairs(const KindParams& p, const uint32_t* words, uint64_t n, void* dst) {
  using T = typename detail::KindTraits<kKind>::Type;
  T* out = static_cast<T*>(dst);
  for (uint64_t i = 0; i < n; ++i) {
    const uint32_t a = words[2 * i], b = words[2 * i + 1];
    if constexpr (kKind == GenerateKind::kUniformFloat64) {
      const double t = std::fma(UnitDouble(a, b), p.range_d, p.low_d);
      out[i] = t == p.high_d ? p.low_d : t;
    } else if constexpr (kKind == GenerateKind::kBernoulliFloat64) {
      out[i] = UnitDouble(a, b) < p.p_d ? 1.0 : 0.0;
    } else {
      const uint64_t x = (uint64_t{a} << 32) | b;
      // low + m is within the output type (checked); wrap-around of the
      // unsigned sum is the two's complement value.
      out[i] = static_cast<T>(static_cast<int64_t>(static_cast<uint64_t>(p.low) + x % p.range64));
    }
  }
}

// float64 normal: Box-Muller on four words (a, b, c, d) per pair: u = u53(a,
// b), v = fma(double(c ^ (d << 21)), 2^-52, 2^-53) (one rounding), s =
// sqrt(-2 log u), the pair (s sinpi(v), s cospi(v)), then fma(z, std, mean).
// log and sinpi/cospi are compensated (each within about one ulp: measured
// against mpmath on 2e4 values), so z stays within SPEC's 4 ulp. std::fma
// gives exact error terms (vfmadd, or the C library's exact software fma).

// log(x), x a positive normal double: as DetLog, with the quotient's
// rounding error carried (t + t_lo).
HWY_INLINE double DetLogCompensated(double x) {
  int e;
  const double f = SplitForLog(x, &e);
  const double u = f - 1.0;              // exact
  const double w = f + 1.0;              // f + 1 = w + ew exactly
  const double ew = f - (w - 1.0);
  const double t = u / w;
  const double r = std::fma(-t, w, u);   // u - t w, exact
  const double t_lo = (r - t * ew) / w;  // u / (w + ew) = t + t_lo (to first order)
  const double t2 = t * t;
  double p = 1.0 / 23;
  for (int k = 21; k >= 3; k -= 2) p = p * t2 + 1.0 / k;
  const double de = static_cast<double>(e);
  const double core = 2.0 * t + (2.0 * t_lo + 2.0 * t * t2 * p);
  return de * 6.93147180369123816490e-01 + (de * 1.90821492927058770002e-10 + core);
}

// sin(pi v) and cos(pi v) for v in [0, 2]: 2v = k + f exactly (|f| <= 1/2),
// r = f pi/2 as a double-double (hi, lo), Taylor series with the leading
// terms added last.
HWY_INLINE void DetSinCosPi(double v, double* sin_v, double* cos_v) {
  constexpr double kPio2Hi = 1.5707963267948966, kPio2Lo = 6.123233995736766e-17;
  const double v2 = 2.0 * v;
  const double k = static_cast<double>(static_cast<int64_t>(v2 + 0.5));  // v2 >= 0
  const double f = v2 - k;
  const double rh = f * kPio2Hi;
  const double rl = std::fma(f, kPio2Hi, -rh) + f * kPio2Lo;
  const double r = rh + rl;
  const double t = r * r;
  static constexpr double kS[] = {1.0 / 355687428096000.0, -1.0 / 1307674368000.0,
                                  1.0 / 6227020800.0,       -1.0 / 39916800.0,
                                  1.0 / 362880.0,           -1.0 / 5040.0,
                                  1.0 / 120.0,              -1.0 / 6.0};
  static constexpr double kC[] = {-1.0 / 6402373705728000.0, 1.0 / 20922789888000.0,
                                  -1.0 / 87178291200.0,      1.0 / 479001600.0,
                                  -1.0 / 3628800.0,          1.0 / 40320.0,
                                  -1.0 / 720.0,              1.0 / 24.0};
  double sp = kS[0], cp = kC[0];
  for (size_t i = 1; i < sizeof(kS) / sizeof(kS[0]); ++i) sp = sp * t + kS[i];
  for (size_t i = 1; i < sizeof(kC) / sizeof(kC[0]); ++i) cp = cp * t + kC[i];
  const double s = rh + (rl + rh * (t * sp));  // r - r^3/6 + ...
  const double half = 0.5 * t;
  const double one_minus = 1.0 - half;
  const double c = one_minus + (((1.0 - one_minus) - half) + t * (t * cp));  // 1 - r^2/2 + ...
  switch (static_cast<int64_t>(k) & 3) {
    case 0: *sin_v = s, *cos_v = c; break;
    case 1: *sin_v = c, *cos_v = -s; break;
    case 2: *sin_v = -s, *cos_v = -c; break;
    default: *sin_v = -c, *cos_v = s; break;
  }
}

HWY_INLINE void BoxMullerDouble(const uint32_t w[4], double* z0, double* z1) {
  const double u = UnitDouble(w[0], w[1]);
  const uint64_t y = uint64_t{w[2]} ^ (uint64_t{w[3]} << 21);
  const double v = static_cast<double>(y) * 0x1p-52 + 0x1p-53;  // product exact
  double sin_v, cos_v;
  DetSinCosPi(v, &sin_v, &cos_v);
  const double s = std::sqrt(-2.0 * DetLogCompensated(u));
  *z0 = s * sin_v;
  *z1 = s * cos_v;
}

// Elements [0, n): element k from the pair k / 2, words 4 (k / 2) ..
// 4 (k / 2) + 3 (two words per element; a lone last sine needs all four).
void ConvertNormalDoubleWords(const KindParams& p, const uint32_t* words, uint64_t n, void* dst) {
  double* out = static_cast<double*>(dst);
  for (uint64_t k = 0; k < n; k += 2) {
    double z[2];
    BoxMullerDouble(words + 2 * k, &z[0], &z[1]);
    out[k] = std::fma(z[0], p.std_d, p.mean_d);
    if (k + 1 < n) out[k + 1] = std::fma(z[1], p.std_d, p.mean_d);
  }
}

// One vector of words -> Lanes(DW) elements of `kind` at dst.
template <GenerateKind kKind>
HWY_INLINE void ConvertVector(const KindParams& p, VW w, void* dst) {
  if constexpr (kKind == GenerateKind::kUniformFloat32) {
    UniformFloat32(p, w, dst);
  } else if constexpr (kKind == GenerateKind::kUniformFloat16) {
    UniformHalf<false>(p, w, dst);
  } else if constexpr (kKind == GenerateKind::kUniformBfloat16) {
    UniformHalf<true>(p, w, dst);
  } else if constexpr (kKind == GenerateKind::kBernoulliUint8) {
    Store8(BernoulliBits(p, w, 1), static_cast<uint8_t*>(dst));
  } else if constexpr (kKind == GenerateKind::kBernoulliInt32) {
    hn::StoreU(BernoulliBits(p, w, 1), DW(), static_cast<uint32_t*>(dst));
  } else if constexpr (kKind == GenerateKind::kBernoulliFloat32) {
    hn::StoreU(BernoulliBits(p, w, 0x3F800000u), DW(), static_cast<uint32_t*>(dst));
  } else if constexpr (kKind == GenerateKind::kBernoulliFloat16) {
    Store16(BernoulliBits(p, w, 0x3C00u), static_cast<uint16_t*>(dst));
  } else if constexpr (kKind == GenerateKind::kBernoulliBfloat16) {
    Store16(BernoulliBits(p, w, 0x3F80u), static_cast<uint16_t*>(dst));
  } else if constexpr (kKind == GenerateKind::kIntegersInt32) {
    Integers<int32_t>(p, w, dst);
  } else if constexpr (kKind == GenerateKind::kIntegersInt64) {
    Integers<int64_t>(p, w, dst);
  } else if constexpr (kKind == GenerateKind::kIntegersFloat32) {
    Integers<float>(p, w, dst);
  } else if constexpr (kKind == GenerateKind::kIntegersFloat64) {
    Integers<double>(p, w, dst);
  } else {
    // Only one-word kinds that are not Box-Muller pairs come here
    // (ConverterOf in kernels.cc): a new kind without a converter stops here.
    static_assert(kKind == GenerateKind::kCount, "a one-word kind without a vector converter");
  }
}

// Words [0, n) -> n elements of `kind` (ConvertFn). A partial last vector is
// converted from a zero-padded copy into scratch and copied out, so the same
// code computes every element.
template <GenerateKind kKind>
void ConvertWords(const KindParams& p, const uint32_t* words, uint64_t n, void* dst) {
  using T = typename detail::KindTraits<kKind>::Type;
  const DW dw;
  const size_t N = hn::Lanes(dw);
  T* out = static_cast<T*>(dst);
  uint64_t i = 0;
  for (; i + N <= n; i += N) ConvertVector<kKind>(p, hn::LoadU(dw, words + i), out + i);
  if (i < n) {
    HWY_ALIGN uint32_t padded[hn::MaxLanes(dw)] = {};
    HWY_ALIGN T scratch[hn::MaxLanes(dw)];
    std::memcpy(padded, words + i, (n - i) * 4);
    ConvertVector<kKind>(p, hn::Load(dw, padded), scratch);
    std::memcpy(out + i, scratch, (n - i) * sizeof(T));
  }
}

// Elements [first, first + count) of `kind` into dst (GenerateFn): chunks
// of stream words from the bits kernel into a fixed 4 KiB L1 buffer,
// converted by kConvert. Element i reads words [w i, w i + w); for
// Box-Muller (kPairs) element i belongs to pair i / 2, whose words start at
// 2 w (i / 2), so chunks start at even elements and a chunk's odd start is
// converted and skipped. Plain stores: `streaming` is not yet honoured for
// these kinds.
template <typename T, int kWords, bool kPairs, detail::ConvertFn kConvert>
void GenerateChunked(const detail::Stream& s, uint64_t first, uint64_t count, void* dst,
                     bool /*streaming*/) {
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
      kConvert(s.params, words, n, scratch);
      std::memcpy(out, scratch + skip, take * sizeof(T));
    } else {
      kConvert(s.params, words, n, out);
    }
    out += take;
    count -= take;
    start += n;
    skip = 0;
  }
}

}  // namespace convert
}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_CONVERT_INL_H_ toggle guard
