// randtensor's own log, sin and cos for Box-Muller (SPEC.md section 8), on
// Highway vectors of doubles of any width, the one-lane scalar target
// included. Same bits on every target: only exactly rounded operations (add,
// sub, mul, div, sqrt, floor, bit manipulation), no contraction (kernels.cc
// is built with -ffp-contract=off), and every fused multiply-add explicit
// (FmaD: vfmadd on AVX2 and AVX-512, the C library's correctly rounded fma
// per lane elsewhere). Included only by convert-inl.h, hence the toggle guard.
//
// float normals evaluate in double with short series (relative errors below
// 1e-13, a few 1e-6 of float's ulp), so a float normal is the exact formula
// rounded to float except within that much of a rounding boundary. float64 normals use compensated
// versions (each within about one ulp: measured against mpmath).

#if defined(RANDTENSOR_SRC_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_MATH_INL_H_
#undef RANDTENSOR_SRC_MATH_INL_H_
#else
#define RANDTENSOR_SRC_MATH_INL_H_
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {
namespace math {

namespace hn = hwy::HWY_NAMESPACE;

// fma(a, b, c) with one rounding on every target.
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE V FmaD(DD dd, V a, V b, V c) {
#if HWY_TARGET <= HWY_AVX2 && HWY_ARCH_X86
  (void)dd;
  return hn::MulAdd(a, b, c);
#else
  HWY_ALIGN double fa[hn::MaxLanes(dd)], fb[hn::MaxLanes(dd)], fc[hn::MaxLanes(dd)];
  hn::Store(a, dd, fa);
  hn::Store(b, dd, fb);
  hn::Store(c, dd, fc);
  for (size_t i = 0; i < hn::Lanes(dd); ++i) fa[i] = std::fma(fa[i], fb[i], fc[i]);
  return hn::Load(dd, fa);
#endif
}

// Integers below 2^52 held in 64-bit lanes, as doubles (exact): the bits of
// 2^52 + z, minus 2^52.
template <class DD, class VU>
HWY_INLINE hn::Vec<DD> DoubleOfSmall(DD dd, VU z) {
  const hn::RebindToUnsigned<DD> du;
  return hn::Sub(hn::BitCast(dd, hn::Or(z, hn::Set(du, 0x4330000000000000ull))),
                 hn::Set(dd, 0x1p52));
}

// x = f 2^e for positive normal doubles, f in [sqrt(1/2), sqrt(2)); e as a
// double (exact).
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE void SplitForLog(DD dd, V x, V* f, V* e) {
  const hn::RebindToUnsigned<DD> du;
  const auto b = hn::BitCast(du, x);
  const V mantissa = hn::BitCast(
      dd, hn::Or(hn::And(b, hn::Set(du, 0xFFFFFFFFFFFFFull)), hn::Set(du, 0x3FF0000000000000ull)));
  const V biased = DoubleOfSmall(dd, hn::ShiftRight<52>(b));
  const auto big = hn::Gt(mantissa, hn::Set(dd, 1.4142135623730951));
  *f = hn::IfThenElse(big, hn::Mul(mantissa, hn::Set(dd, 0.5)), mantissa);
  *e = hn::Sub(biased, hn::IfThenElse(big, hn::Set(dd, 1022.0), hn::Set(dd, 1023.0)));
}

// fdlibm's split of log(2): e * kLn2Hi is exact for |e| < 2^11.
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;

// log(x), x positive normal, for float normals: x = f 2^e, log f =
// 2 atanh(t), t = (f - 1) / (f + 1), |t| < 0.1716, the series to t^15 in
// fused multiply-adds (relative error below 1e-13: 2e-6 of a float ulp).
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE V Log(DD dd, V x) {
  V f, e;
  SplitForLog(dd, x, &f, &e);
  const V one = hn::Set(dd, 1.0);
  const V t = hn::Div(hn::Sub(f, one), hn::Add(f, one));
  const V t2 = hn::Mul(t, t);
  V p = hn::Set(dd, 1.0 / 15);
  for (int k = 13; k >= 3; k -= 2) p = FmaD(dd, p, t2, hn::Set(dd, 1.0 / k));
  p = FmaD(dd, p, t2, one);
  return FmaD(dd, e, hn::Set(dd, kLn2Hi), FmaD(dd, e, hn::Set(dd, kLn2Lo), hn::Mul(hn::Add(t, t), p)));
}

// log(x) as Log, with the quotient's rounding error carried (t + t_lo).
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE V LogCompensated(DD dd, V x) {
  V f, e;
  SplitForLog(dd, x, &f, &e);
  const V one = hn::Set(dd, 1.0);
  const V u = hn::Sub(f, one);                          // exact
  const V w = hn::Add(f, one);                          // f + 1 = w + ew exactly
  const V ew = hn::Sub(f, hn::Sub(w, one));
  const V t = hn::Div(u, w);
  const V r = FmaD(dd, hn::Neg(t), w, u);               // u - t w, exact
  const V t_lo = hn::Div(hn::Sub(r, hn::Mul(t, ew)), w);  // u / (w + ew) = t + t_lo
  const V t2 = hn::Mul(t, t);
  V p = hn::Set(dd, 1.0 / 23);
  for (int k = 21; k >= 3; k -= 2) p = hn::Add(hn::Mul(p, t2), hn::Set(dd, 1.0 / k));
  const V core = hn::Add(hn::Add(t, t),
                         hn::Add(hn::Add(t_lo, t_lo), hn::Mul(hn::Mul(hn::Add(t, t), t2), p)));
  return hn::Add(hn::Mul(e, hn::Set(dd, kLn2Hi)), hn::Add(hn::Mul(e, hn::Set(dd, kLn2Lo)), core));
}

// Quadrant k of (s, c) = (sin r, cos r): sin and cos of r + k pi/2.
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE void Quadrant(DD dd, V k, V s, V c, V* sin_v, V* cos_v) {
  const auto q1 = hn::Eq(k, hn::Set(dd, 1.0));
  const auto q2 = hn::Eq(k, hn::Set(dd, 2.0));
  const auto q3 = hn::Eq(k, hn::Set(dd, 3.0));  // k = 4 is quadrant 0
  const auto swap = hn::Or(q1, q3);
  const V sv = hn::IfThenElse(swap, c, s);
  const V cv = hn::IfThenElse(swap, s, c);
  *sin_v = hn::IfThenElse(hn::Or(q2, q3), hn::Neg(sv), sv);
  *cos_v = hn::IfThenElse(hn::Or(q1, q2), hn::Neg(cv), cv);
}

// Taylor coefficients, highest first (Horner): (-1)^j / (2j + 1)! and
// (-1)^j / (2j)!.
constexpr double kSinTerms[] = {1.0 / 355687428096000.0, -1.0 / 1307674368000.0,
                                1.0 / 6227020800.0,       -1.0 / 39916800.0,
                                1.0 / 362880.0,           -1.0 / 5040.0,
                                1.0 / 120.0,              -1.0 / 6.0,
                                1.0};
constexpr double kCosTerms[] = {-1.0 / 6402373705728000.0, 1.0 / 20922789888000.0,
                                -1.0 / 87178291200.0,      1.0 / 479001600.0,
                                -1.0 / 3628800.0,          1.0 / 40320.0,
                                -1.0 / 720.0,              1.0 / 24.0,
                                -1.0 / 2.0,                1.0};
constexpr size_t kSinCount = sizeof(kSinTerms) / sizeof(kSinTerms[0]);
constexpr size_t kCosCount = sizeof(kCosTerms) / sizeof(kCosTerms[0]);

// Taylor coefficients of sin r / r and cos r in t = r^2 for float normals,
// highest first: to r^13 and r^14 (next terms below 3e-14 on |r| <= pi/4).
constexpr double kSinShort[] = {1.0 / 6227020800.0, -1.0 / 39916800.0, 1.0 / 362880.0,
                                -1.0 / 5040.0,      1.0 / 120.0,       -1.0 / 6.0,
                                1.0};
constexpr double kCosShort[] = {-1.0 / 87178291200.0, 1.0 / 479001600.0, -1.0 / 3628800.0,
                                1.0 / 40320.0,        -1.0 / 720.0,      1.0 / 24.0,
                                -1.0 / 2.0,           1.0};

// sin and cos of v in [0, 8), for float normals: k = floor(v / (pi/2) +
// 1/2), r = v - k pi/2 by Cody and Waite's three-part pi/2 (k * part exact:
// k < 6, parts of 33 bits), then the series above in fused multiply-adds.
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE void SinCos(DD dd, V v, V* sin_v, V* cos_v) {
  const V k = hn::Floor(hn::Add(hn::Mul(v, hn::Set(dd, 0.63661977236758134308)), hn::Set(dd, 0.5)));
  const V r = hn::Sub(hn::Sub(hn::Sub(v, hn::Mul(k, hn::Set(dd, 1.57079632673412561417e+00))),
                              hn::Mul(k, hn::Set(dd, 6.07710050630396597660e-11))),
                      hn::Mul(k, hn::Set(dd, 2.02226624871116645580e-21)));
  const V t = hn::Mul(r, r);
  V sp = hn::Set(dd, kSinShort[0]), cp = hn::Set(dd, kCosShort[0]);
  for (size_t i = 1; i < sizeof(kSinShort) / sizeof(kSinShort[0]); ++i) {
    sp = FmaD(dd, sp, t, hn::Set(dd, kSinShort[i]));
  }
  for (size_t i = 1; i < sizeof(kCosShort) / sizeof(kCosShort[0]); ++i) {
    cp = FmaD(dd, cp, t, hn::Set(dd, kCosShort[i]));
  }
  Quadrant(dd, k, hn::Mul(r, sp), cp, sin_v, cos_v);
}

// sin(pi v) and cos(pi v) for v in [0, 2]: 2v = k + f exactly (|f| <= 1/2),
// r = f pi/2 as a double-double (hi, lo), Taylor series with the leading
// terms added last.
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE void SinCosPi(DD dd, V v, V* sin_v, V* cos_v) {
  constexpr double kPio2Hi = 1.5707963267948966, kPio2Lo = 6.123233995736766e-17;
  const V v2 = hn::Add(v, v);
  const V k = hn::Floor(hn::Add(v2, hn::Set(dd, 0.5)));
  const V f = hn::Sub(v2, k);
  const V hi = hn::Set(dd, kPio2Hi);
  const V rh = hn::Mul(f, hi);
  const V rl = hn::Add(FmaD(dd, f, hi, hn::Neg(rh)), hn::Mul(f, hn::Set(dd, kPio2Lo)));
  const V r = hn::Add(rh, rl);
  const V t = hn::Mul(r, r);
  // The series without their first one (sin) or two (cos) terms.
  V sp = hn::Set(dd, kSinTerms[0]), cp = hn::Set(dd, kCosTerms[0]);
  for (size_t i = 1; i + 1 < kSinCount; ++i) sp = hn::Add(hn::Mul(sp, t), hn::Set(dd, kSinTerms[i]));
  for (size_t i = 1; i + 2 < kCosCount; ++i) cp = hn::Add(hn::Mul(cp, t), hn::Set(dd, kCosTerms[i]));
  const V s = hn::Add(rh, hn::Add(rl, hn::Mul(rh, hn::Mul(t, sp))));  // r - r^3/6 + ...
  const V one = hn::Set(dd, 1.0);
  const V half = hn::Mul(hn::Set(dd, 0.5), t);
  const V one_minus = hn::Sub(one, half);
  const V c = hn::Add(one_minus, hn::Add(hn::Sub(hn::Sub(one, one_minus), half),
                                         hn::Mul(t, hn::Mul(t, cp))));  // 1 - r^2/2 + ...
  Quadrant(dd, k, s, c, sin_v, cos_v);
}

// Box-Muller's radius sqrt(-2 log u).
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE V Radius(DD dd, V log_u) {
  return hn::Sqrt(hn::Mul(hn::Set(dd, -2.0), log_u));
}

}  // namespace math
}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_MATH_INL_H_ toggle guard
