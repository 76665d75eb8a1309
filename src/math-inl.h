// randtensor's own log, sin and cos for Box-Muller (SPEC.md section 8), on
// Highway vectors of doubles of any width, the one-lane scalar target
// included. Same bits on every target: only exactly rounded operations (add,
// sub, mul, div, sqrt, floor, bit manipulation), no contraction (kernels.cc
// is built with -ffp-contract=off), and every fused multiply-add explicit
// (FmaD: the target's fused multiply-add where it has one, RANDTENSOR_FMA:
// AVX2, AVX-512, NEON, SVE; an exact emulation in the lanes of SSE4; the
// C library's correctly rounded fma on SCALAR and for operands
// out of the emulation's range). Included by the converters in src/convert/ (and
// tests/fma_test.cc), hence the toggle guard.
//
// float64 normals use compensated versions (each within about one ulp:
// measured against mpmath). float normals have their own float versions at
// the end (FmaF: fused, or an exact emulation in double lanes), within 1.41
// ulp of the exact formula (SPEC.md promises 2): proven over every u and v
// by tests/reference/normal_float_check.cc.

#if defined(RANDTENSOR_SRC_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_MATH_INL_H_
#undef RANDTENSOR_SRC_MATH_INL_H_
#else
#define RANDTENSOR_SRC_MATH_INL_H_
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "hwy/highway.h"
#include "src/capabilities-inl.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {
namespace math {

namespace hn = hwy::HWY_NAMESPACE;

#if !RANDTENSOR_FMA && HWY_TARGET != HWY_SCALAR
// x + y = *s + *e exactly, *s = x + y rounded (Knuth's TwoSum: x and y of
// any magnitudes).
template <class V>
HWY_INLINE void TwoSum(V x, V y, V* s, V* e) {
  *s = hn::Add(x, y);
  const V yb = hn::Sub(*s, x);
  *e = hn::Add(hn::Sub(x, hn::Sub(*s, yb)), hn::Sub(y, yb));
}

// x + y rounded to odd, in double lanes: rounded to nearest, then, where
// that was inexact and left the last bit even, the odd neighbour toward
// x + y (+1 where the error and the sum have one sign, else -1). Rounded to
// nearest once more to a format at least two bits narrower (or added to a
// larger part, as FmaEmulated does), it rounds x + y only once.
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE V SumRoundedToOdd(DD dd, V x, V y) {
  const hn::RebindToUnsigned<DD> du;
  V sum, err;
  TwoSum(x, y, &sum, &err);
  const auto bits = hn::BitCast(du, sum);
  const auto even = hn::Eq(hn::And(bits, hn::Set(du, 1)), hn::Zero(du));
  const auto fix = hn::And(hn::RebindMask(du, hn::Ne(err, hn::Zero(dd))), even);
  const auto differ = hn::ShiftRight<63>(hn::Xor(hn::BitCast(du, err), bits));
  const auto step = hn::Sub(hn::Set(du, 1), hn::Add(differ, differ));
  return hn::BitCast(dd, hn::Add(bits, hn::IfThenElseZero(fix, step)));
}

// fma(a, b, c) with one rounding in the lanes of a target without FMA
// (SSE4: !RANDTENSOR_FMA), where the C library's fma is a software routine of about
// 100 cycles per value: Boldo and Melquiond's emulation ("Emulation of FMA
// and correctly rounded sums: proved algorithms using rounding to odd",
// IEEE Trans. Computers, 2008, algorithm 5.4): a b = uh + ul exactly
// (Veltkamp's split, Dekker's product), c + uh = th + tl exactly (TwoSum),
// v = tl + ul rounded to odd, and th + v rounded to nearest is fma(a, b, c).
// The proof needs no overflow and no underflow of the parts, so `*ok` says
// whether every lane has |a|, |b| and |c| in [2^-400, 2^400] or 0; FmaD
// computes the others with the C library. Where c = 0 the result is a b
// rounded, a b + c (which also gives a zero sum IEEE's sign).
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE V FmaEmulated(DD dd, V a, V b, V c, bool* ok) {
  const V big = hn::Set(dd, 0x1p400), small = hn::Set(dd, 0x1p-400);
  const auto in_range = [&](V x) {
    const V ax = hn::Abs(x);
    return hn::Or(hn::And(hn::Le(ax, big), hn::Ge(ax, small)), hn::Eq(ax, hn::Zero(dd)));
  };
  *ok = hn::AllTrue(dd, hn::And(hn::And(in_range(a), in_range(b)), in_range(c)));
  const V splitter = hn::Set(dd, 134217729.0);  // 2^27 + 1
  const auto split = [&](V x, V* hi, V* lo) {
    const V g = hn::Mul(splitter, x);
    *hi = hn::Sub(g, hn::Sub(g, x));
    *lo = hn::Sub(x, *hi);
  };
  V ah, al, bh, bl;
  split(a, &ah, &al);
  split(b, &bh, &bl);
  const V uh = hn::Mul(a, b);
  const V ul = hn::Add(
      hn::Add(hn::Add(hn::Sub(hn::Mul(ah, bh), uh), hn::Mul(ah, bl)), hn::Mul(al, bh)),
      hn::Mul(al, bl));
  V th, tl;
  TwoSum(c, uh, &th, &tl);
  const V sum = hn::Add(th, SumRoundedToOdd(dd, tl, ul));
  return hn::IfThenElse(hn::Eq(c, hn::Zero(dd)), hn::Add(uh, c), sum);
}
#endif

// fma(a, b, c) with one rounding on every target.
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE V FmaD(DD dd, V a, V b, V c) {
#if RANDTENSOR_FMA
  (void)dd;
  return hn::MulAdd(a, b, c);
#else
#if HWY_TARGET != HWY_SCALAR
  bool ok;
  const V emulated = FmaEmulated(dd, a, b, c, &ok);
  if (HWY_LIKELY(ok)) return emulated;
#endif
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

// log(x), x positive normal, for float64 normals: x = f 2^e, log f =
// 2 atanh(t), t = (f - 1) / (f + 1), with the quotient's rounding error
// carried (t + t_lo).
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
  for (int k = 21; k >= 3; k -= 2) p = FmaD(dd, p, t2, hn::Set(dd, 1.0 / k));
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

// Taylor coefficients, highest first (Horner, one FmaD a term: the series
// are chains of dependent steps, and a fused step is one instruction's
// latency where a multiply then an add is two; targets without FMA pay for
// the emulation instead):
// (-1)^j / (2j + 1)! and (-1)^j / (2j)!.
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

// sin r and cos r for r = rh + rl, |r| <= pi/4, |rl| <= ulp(rh) / 2: Taylor
// series with the leading terms added last.
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE void SinCosSeries(DD dd, V rh, V rl, V* sin_r, V* cos_r) {
  const V r = hn::Add(rh, rl);
  const V t = hn::Mul(r, r);
  // The series without their first one (sin) or two (cos) terms.
  V sp = hn::Set(dd, kSinTerms[0]), cp = hn::Set(dd, kCosTerms[0]);
  for (size_t i = 1; i + 1 < kSinCount; ++i) sp = FmaD(dd, sp, t, hn::Set(dd, kSinTerms[i]));
  for (size_t i = 1; i + 2 < kCosCount; ++i) cp = FmaD(dd, cp, t, hn::Set(dd, kCosTerms[i]));
  *sin_r = hn::Add(rh, hn::Add(rl, hn::Mul(rh, hn::Mul(t, sp))));  // r - r^3/6 + ...
  const V one = hn::Set(dd, 1.0);
  const V half = hn::Mul(hn::Set(dd, 0.5), t);
  const V one_minus = hn::Sub(one, half);
  *cos_r = hn::Add(one_minus, hn::Add(hn::Sub(hn::Sub(one, one_minus), half),
                                      hn::Mul(t, hn::Mul(t, cp))));  // 1 - r^2/2 + ...
}

// sin(pi v) and cos(pi v) for v in [0, 2]: 2v = k + f exactly (|f| <= 1/2),
// r = f pi/2 as a double-double (hi, lo), then SinCosSeries.
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE void SinCosPi(DD dd, V v, V* sin_v, V* cos_v) {
  constexpr double kPio2Hi = 1.5707963267948966, kPio2Lo = 6.123233995736766e-17;
  const V v2 = hn::Add(v, v);
  const V k = hn::Floor(hn::Add(v2, hn::Set(dd, 0.5)));
  const V f = hn::Sub(v2, k);
  const V hi = hn::Set(dd, kPio2Hi);
  const V rh = hn::Mul(f, hi);
  const V rl = hn::Add(FmaD(dd, f, hi, hn::Neg(rh)), hn::Mul(f, hn::Set(dd, kPio2Lo)));
  V s, c;
  SinCosSeries(dd, rh, rl, &s, &c);
  Quadrant(dd, k, s, c, sin_v, cos_v);
}

// Box-Muller's radius sqrt(-2 log u).
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE V Radius(DD dd, V log_u) {
  return hn::Sqrt(hn::Mul(hn::Set(dd, -2.0), log_u));
}


// ------------------------------- tan and exp for Cauchy and log-normal
// In double lanes, for float64 values and, rounded once to float, for the
// narrower types (docs/SPEC.md section 8.1 states their bounds;
// tests/reference/transforms_check.cc measures them).

// x + y = *s + *e exactly (Knuth's TwoSum, any magnitudes).
template <class V>
HWY_INLINE void TwoSumD(V x, V y, V* s, V* e) {
  *s = hn::Add(x, y);
  const V yy = hn::Sub(*s, x);
  *e = hn::Add(hn::Sub(x, hn::Sub(*s, yy)), hn::Sub(y, yy));
}

// tan(a) for |a| < pi/2. Up to pi/4: sin a / cos a. Beyond: cot(pi/2 - |a|)
// with pi/2 - |a| as a double-double (fdlibm's three-part pi/2: P1 - |a| is
// exact by Sterbenz's lemma, P2 and P2T carry the rest), so the distance to
// the pole keeps its relative precision down to double's pi/2 (6.1e-17 short
// of the pole: tan about 1.6e16).
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE V TanD(DD dd, V a) {
  constexpr double kP1 = 1.57079632673412561417e+00;   // 33 bits of pi/2
  constexpr double kP2 = 6.07710050630396597660e-11;   // the next 33
  constexpr double kP2T = 2.02226624879595063154e-21;  // pi/2 - P1 - P2
  const V x = hn::Abs(a);
  const auto far = hn::Gt(x, hn::Set(dd, 0.78539816339744830962));
  V h, l;
  TwoSumD(hn::Sub(hn::Set(dd, kP1), x), hn::Set(dd, kP2), &h, &l);
  l = hn::Add(l, hn::Set(dd, kP2T));
  const V rh_far = hn::Add(h, l);  // Fast2Sum: |l| <= ulp(h)
  const V rl_far = hn::Sub(l, hn::Sub(rh_far, h));
  V s, c;
  SinCosSeries(dd, hn::IfThenElse(far, rh_far, x), hn::IfThenElseZero(far, rl_far), &s, &c);
  const V t = hn::IfThenElse(far, hn::Div(c, s), hn::Div(s, c));
  return hn::CopySign(t, a);
}

// 2^k for integral k in [-1022, 1023] held as a double: the bits of k + 1023
// (the low bits of 2^52 + k + 1023), shifted into the exponent.
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE V Pow2D(DD dd, V k) {
  const hn::RebindToUnsigned<DD> du;
  const auto biased = hn::BitCast(du, hn::Add(k, hn::Set(dd, 0x1p52 + 1023.0)));
  return hn::BitCast(dd, hn::ShiftLeft<52>(hn::And(biased, hn::Set(du, 0x7FFull))));
}

// exp(x) for any x but NaN: x = k ln2 + r (fdlibm's split of ln2: k ln2_hi
// and x - k ln2_hi exact), r = rh + rl with |r| <= ln2 / 2 (TwoSum), exp(r)
// = 1 + (rh + (rl + r^2 P(r))) by Taylor's series to r^14 / 14! (whose
// remainder is below 2^-60), then times 2^k in two exact steps (one rounding
// where the result is subnormal, infinity past double's range).
constexpr double kExpTerms[] = {1.0 / 87178291200.0, 1.0 / 6227020800.0, 1.0 / 479001600.0,
                                1.0 / 39916800.0,    1.0 / 3628800.0,    1.0 / 362880.0,
                                1.0 / 40320.0,       1.0 / 5040.0,       1.0 / 720.0,
                                1.0 / 120.0,         1.0 / 24.0,         1.0 / 6.0,
                                1.0 / 2.0};
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE V ExpD(DD dd, V x) {
  // Past these, exp(x) rounds to 0 or overflows; clamping keeps k in range.
  const V xc = hn::Min(hn::Max(x, hn::Set(dd, -746.0)), hn::Set(dd, 710.0));
  const V k = hn::Floor(FmaD(dd, xc, hn::Set(dd, 1.4426950408889634), hn::Set(dd, 0.5)));
  const V hi = hn::Sub(xc, hn::Mul(k, hn::Set(dd, kLn2Hi)));  // both exact
  V rh, rl;
  TwoSumD(hi, hn::Neg(hn::Mul(k, hn::Set(dd, kLn2Lo))), &rh, &rl);
  V p = hn::Set(dd, kExpTerms[0]);
  for (size_t i = 1; i < sizeof(kExpTerms) / sizeof(kExpTerms[0]); ++i) {
    p = FmaD(dd, p, rh, hn::Set(dd, kExpTerms[i]));
  }
  const V y = hn::Add(hn::Set(dd, 1.0), hn::Add(rh, FmaD(dd, hn::Mul(rh, rh), p, rl)));
  const V k1 = hn::Floor(hn::Mul(k, hn::Set(dd, 0.5)));
  return hn::Mul(hn::Mul(y, Pow2D(dd, k1)), Pow2D(dd, hn::Sub(k, k1)));
}

// f(dd, x) of every lane of the float vector v, computed in double lanes and
// rounded once to float (DemoteTo: the current rounding mode, nearest-even,
// on every target; subnormals and overflow to infinity as IEEE): the float
// outputs of the transforms above. f takes a tag of doubles and a vector of
// it; v's halves (its one lane on SCALAR) go through f one at a time.
template <class DF, class F>
HWY_INLINE hn::Vec<DF> InDoubleLanes(DF df, hn::Vec<DF> v, const F& f) {
#if HWY_TARGET == HWY_SCALAR
  const hn::Rebind<double, DF> dd;
  return hn::DemoteTo(df, f(dd, hn::PromoteTo(dd, v)));
#else
  const hn::Half<DF> dh;
  const hn::Rebind<double, decltype(dh)> dd;
  const auto lo = hn::DemoteTo(dh, f(dd, hn::PromoteTo(dd, hn::LowerHalf(dh, v))));
  const auto hi = hn::DemoteTo(dh, f(dd, hn::PromoteTo(dd, hn::UpperHalf(dh, v))));
  return hn::Combine(df, hi, lo);
#endif
}

// ------------------------------------------------------- float normals
// Box-Muller for float32 (and float16/bfloat16) normals in float lanes, one
// pair per lane: both outputs come from one log, one sqrt and one reduction.
// SPEC.md section 8 promises 2 ulp of z (or 2^-22 absolute); a float log,
// sqrt and sin each rounded once cannot promise that (the roundings of s
// and of sin alone can reach 1.5 ulp of z when their significands and z's
// fall badly), so s and sin/cos are carried as unevaluated sums hi + lo,
// each within a small fraction of an ulp, and z = s * c is rounded once:
// |z error| <= 0.5 ulp + |z| (ds + dc) (tests/reference/normal_float_check.cc
// proves the bound over every u and v: see the maxima at each function).

// fma(a, b, c) in float with one rounding on every target: fused where the
// target has FMA; elsewhere a * b is exact in double (24 + 24 bits) and the
// double sum is rounded to odd (its TwoSum error decides the last bit), so
// rounding it to float (53 >= 24 + 2 bits) rounds the exact value once.
HWY_INLINE float FmaFloatScalar(float a, float b, float c) {
  const double p = static_cast<double>(a) * static_cast<double>(b);
  const double cd = c;
  double s = p + cd;
  const double bb = s - p;
  const double err = (p - (s - bb)) + (cd - bb);  // p + cd = s + err exactly
  if (err != 0) {
    uint64_t bits;
    std::memcpy(&bits, &s, 8);
    if ((bits & 1) == 0) {
      bits = (err > 0) == (s > 0) ? bits + 1 : bits - 1;  // the odd neighbour toward p + cd
      std::memcpy(&s, &bits, 8);
    }
  }
  return static_cast<float>(s);
}

#if !RANDTENSOR_FMA && HWY_TARGET != HWY_SCALAR
// FmaFloatScalar on each half in double lanes: FmaF's exact path on targets
// without FMA (SSE4), which it takes only where its double sum is doubtful.
// Inline: out of line, the registers its call clobbers slowed SSE4's
// uniform floats (docs/kernel-speed.md, "The float normals on SSE4").
template <class DF, class V = hn::Vec<DF>>
HWY_INLINE V FmaFRoundedToOdd(DF df, V a, V b, V c) {
  const hn::Half<DF> dh;
  const hn::Rebind<double, decltype(dh)> dd;
  const auto half = [&](hn::Vec<decltype(dh)> x, hn::Vec<decltype(dh)> y,
                        hn::Vec<decltype(dh)> z) {
    const auto p = hn::Mul(hn::PromoteTo(dd, x), hn::PromoteTo(dd, y));  // exact
    return hn::DemoteTo(dh, SumRoundedToOdd(dd, p, hn::PromoteTo(dd, z)));
  };
  return hn::Combine(df, half(hn::UpperHalf(dh, a), hn::UpperHalf(dh, b), hn::UpperHalf(dh, c)),
                     half(hn::LowerHalf(dh, a), hn::LowerHalf(dh, b), hn::LowerHalf(dh, c)));
}
#endif

template <class DF, class V = hn::Vec<DF>>
HWY_INLINE V FmaF(DF df, V a, V b, V c) {
#if RANDTENSOR_FMA
  (void)df;
  return hn::MulAdd(a, b, c);
#elif HWY_TARGET == HWY_SCALAR
  (void)df;
  return hn::Set(df, FmaFloatScalar(hn::GetLane(a), hn::GetLane(b), hn::GetLane(c)));
#else
  // a b + c in double lanes: a b exact, the sum s rounded once. Rounding s
  // to float rounds a b + c once unless s is a midpoint of floats: the
  // midpoints are doubles and rounding is monotone, so a b + c and s are on
  // one side of every other midpoint. Midpoints of normal floats are the
  // doubles whose low 29 significand bits are 1 and 28 zeros; below 2^-126
  // (subnormal floats, and 0) they lie elsewhere. Where any lane is such a
  // doubtful s, the vector takes the exact path (FmaFRoundedToOdd).
  const hn::Half<DF> dh;
  const hn::Rebind<double, decltype(dh)> dd;
  const hn::RebindToUnsigned<decltype(dd)> du;
  const auto sum = [&](hn::Vec<decltype(dh)> x, hn::Vec<decltype(dh)> y,
                       hn::Vec<decltype(dh)> z) {
    return hn::Add(hn::Mul(hn::PromoteTo(dd, x), hn::PromoteTo(dd, y)), hn::PromoteTo(dd, z));
  };
  const auto doubtful = [&](hn::Vec<decltype(dd)> s) {
    const auto low = hn::And(hn::BitCast(du, s), hn::Set(du, 0x1FFFFFFFull));
    return hn::Or(hn::RebindMask(dd, hn::Eq(low, hn::Set(du, 0x10000000ull))),
                  hn::Lt(hn::Abs(s), hn::Set(dd, 0x1p-126)));
  };
  const auto s_lo = sum(hn::LowerHalf(dh, a), hn::LowerHalf(dh, b), hn::LowerHalf(dh, c));
  const auto s_hi = sum(hn::UpperHalf(dh, a), hn::UpperHalf(dh, b), hn::UpperHalf(dh, c));
  if (HWY_UNLIKELY(!hn::AllFalse(dd, hn::Or(doubtful(s_lo), doubtful(s_hi))))) {
    return FmaFRoundedToOdd(df, a, b, c);
  }
  return hn::Combine(df, hn::DemoteTo(dh, s_hi), hn::DemoteTo(dh, s_lo));
#endif
}

// -a * b + c with one rounding: FmaF of -a (negation is exact), one
// vfnmadd where the target has FMA (not a sign flip and a vfmadd).
template <class DF, class V = hn::Vec<DF>>
HWY_INLINE V FnmaF(DF df, V a, V b, V c) {
#if RANDTENSOR_FMA
  (void)df;
  return hn::NegMulAdd(a, b, c);
#else
  return FmaF(df, hn::Neg(a), b, c);
#endif
}

// One vector of pairs in the float Box-Muller below: references to its
// inputs, outputs and intermediate values, all local vectors of
// BoxMullerLanes (WithPairFrames). SVE's vectors are sizeless, so they
// cannot be members or array elements; a frame names the caller's locals,
// and once everything is inlined the compiler keeps them in registers.
template <class DF>
struct PairFrame {
  using V = hn::Vec<DF>;
  using VU = hn::Vec<hn::RebindToUnsigned<DF>>;
  V& u;      // inputs: u32(x)
  V& fy;     //         float(y)
  V& v;      //         fma(fy, P32_2PI, P32_2PI / 2)
  V& t_sin;  // results: fma(s sin v, std, mean)
  V& t_cos;  //          fma(s cos v, std, mean)
  // NegLogFloat: -log u = lh + ll
  V& t;
  V& e;
  V& t2;
  V& t3;
  V& ch0;
  V& ch1;
  V& ch2;
  V& q;
  V& lh;
  V& ll;
  // RootStart, RootFinish: s = sh + sl; inv_2s about 1 / (2 s)
  V& y;
  V& s;
  V& inv_2s;
  V& lo2;
  V& sh;
  V& sl;
  // SinCosFloat: sin r = sin_hi + sin_lo, cos r = cos_hi + cos_lo
  V& rh;
  V& rl;
  V& r2;
  V& sp;
  V& cp;
  V& h;
  V& h_err;
  V& sin_hi;
  V& sin_lo;
  V& cos_hi;
  V& cos_lo;
  VU& k_bits;
};

// Calls f(frames...) with K frames of fresh local vectors (f sets their
// inputs).
template <size_t K, class DF, class F, class... Fr>
HWY_INLINE void WithPairFrames(DF df, const F& f, Fr... frames) {
  if constexpr (sizeof...(Fr) == K) {
    f(frames...);
  } else {
    using V = hn::Vec<DF>;
    V u, fy, v, t_sin, t_cos, t, e, t2, t3, ch0, ch1, ch2, q, lh, ll, y, s, inv_2s, lo2, sh, sl, rh,
        rl, r2, sp, cp, h, h_err, sin_hi, sin_lo, cos_hi, cos_lo;
    hn::Vec<hn::RebindToUnsigned<DF>> k_bits;
    WithPairFrames<K>(
        df, f, frames...,
        PairFrame<DF>{u,   fy, v,  t_sin, t_cos, t,     e,      t2,     t3,     ch0,    ch1,
                      ch2, q,  lh, ll,    y,     s,     inv_2s, lo2,    sh,     sl,     rh,
                      rl,  r2, sp, cp,    h,     h_err, sin_hi, sin_lo, cos_hi, cos_lo, k_bits});
  }
}

// f(frame) for every frame, unrolled. The float Box-Muller below works on
// K independent vectors of pairs at once, one step for all of them before
// the next step: their long dependency chains (log, square root, product)
// then lie side by side in program order, where the out-of-order core finds
// the independent work; one vector's chain alone leaves it waiting.
template <class F, class... Fr>
HWY_INLINE void Each(const F& f, Fr... frames) {
  (f(frames), ...);
}

// a * b + c where the product a * b is exact (a power of two, or both few
// bits): one rounding whether fused (RANDTENSOR_FMA) or not, so
// Highway's MulAdd gives the same bits on every target. Only for such products.
template <class V>
HWY_INLINE V MulAddExactProduct(V a, V b, V c) {
  return hn::MulAdd(a, b, c);
}

// log(1 + t) = t + t^2 Q(t) on t in [sqrt(1/2) - 1, sqrt(2) - 1]: Q of
// degree 7, highest first, fit for the relative error of -log u it leaves
// (weight t^2 / |log u| at the smallest |log u| with that t: e = 0 for t >= 0,
// e = -1 below), coefficients rounded to float one at a time and the rest
// refit (tests/reference/fit_float_normal.py): under 0.32 2^-24 of -log u.
// (A degree-8 Chebyshev fit before: 0.21 2^-24, one fma more per pair.)
constexpr float kLogQ[] = {0x1.767eb4p-4f,  -0x1.2cb304p-3f, 0x1.317162p-3f,
                           -0x1.51fba6p-3f, 0x1.98b556p-3f,  -0x1.000efep-2f,
                           0x1.55579ap-2f,  -0x1.ffffc8p-2f};
// fdlibm's float split of log(2): e * kLn2HiF exact for |e| < 2^7 (17 bits).
constexpr float kLn2HiF = 0x1.62e300p-1f, kLn2LoF = 0x1.2fefa4p-17f;

// -log(u) for normal u in (0, 1] as hi + lo (|lo| <= ulp(hi) / 2): u = f 2^e
// with f in [sqrt(1/2), sqrt(2)) by integer arithmetic on the bits, t = 1 - f
// (exact), -log(1 - t) = t + t^2 (-Q(-t)) (Q's odd coefficients as they are,
// the even ones negated), -e ln2_hi + t with its rounding error (Fast2Sum),
// and t^2 (-Q(-t)) - e ln2_lo added to that error; no division. Negated so
// that 2 (hi + lo), the root's argument, takes additions, not multiplies.
// Measured on every float u in [2^-33, 1] (normal_float_check.cc): hi + lo
// within 0.80 2^-24 of -log(u), relative (0.62 ulp). Every frame at once (Each).
template <class DF, class... Fr>
HWY_INLINE void NegLogFloat(DF df, Fr... fr) {
  using V = hn::Vec<DF>;
  const hn::RebindToSigned<DF> di;
  constexpr size_t kTerms = sizeof(kLogQ) / sizeof(kLogQ[0]);
  float c[kTerms];  // of t^(kTerms - 1 - j) in -Q(-t)
  for (size_t j = 0; j < kTerms; ++j) c[j] = (kTerms - 1 - j) % 2 == 0 ? -kLogQ[j] : kLogQ[j];
  // Q as ((c7 t + c6) t^3 + (c5 t^2 + c4 t + c3)) t^3 + (c2 t^2 + c1 t +
  // c0): three short Horner chains side by side (the kernel is bound by
  // latency as much as by the multiply-add ports).
  static_assert(kTerms == 8, "chains of two, three and three");
  Each(
      [&](PairFrame<DF> f) __attribute__((always_inline)) {
        const auto bits = hn::BitCast(di, f.u);
        const auto e_int =
            hn::ShiftRight<23>(hn::Sub(bits, hn::Set(di, 0x3F3504F3)));  // arithmetic
        const V m = hn::BitCast(df, hn::Sub(bits, hn::ShiftLeft<23>(e_int)));
        f.e = hn::ConvertTo(df, e_int);
        f.t = hn::Sub(hn::Set(df, 1.0f), m);  // exact (Sterbenz)
      },
      fr...);
  Each(
      [&](PairFrame<DF> f) __attribute__((always_inline)) { f.t2 = hn::Mul(f.t, f.t); }, fr...);
  // The chains: c0 t + c1, (c2 t + c3) t + c4 and (c5 t + c6) t + c7.
  Each(
      [&](PairFrame<DF> f) __attribute__((always_inline)) {
        f.ch0 = FmaF(df, hn::Set(df, c[0]), f.t, hn::Set(df, c[1]));
      },
      fr...);
  Each(
      [&](PairFrame<DF> f) __attribute__((always_inline)) {
        f.ch1 = FmaF(df, hn::Set(df, c[2]), f.t, hn::Set(df, c[3]));
      },
      fr...);
  Each(
      [&](PairFrame<DF> f) __attribute__((always_inline)) {
        f.ch2 = FmaF(df, hn::Set(df, c[5]), f.t, hn::Set(df, c[6]));
      },
      fr...);
  Each(
      [&](PairFrame<DF> f) __attribute__((always_inline)) { f.t3 = hn::Mul(f.t2, f.t); }, fr...);
  Each(
      [&](PairFrame<DF> f)
          __attribute__((always_inline)) { f.ch1 = FmaF(df, f.ch1, f.t, hn::Set(df, c[4])); },
      fr...);
  Each(
      [&](PairFrame<DF> f)
          __attribute__((always_inline)) { f.ch2 = FmaF(df, f.ch2, f.t, hn::Set(df, c[7])); },
      fr...);
  Each(
      [&](PairFrame<DF> f) __attribute__((always_inline)) { f.q = FmaF(df, f.ch0, f.t3, f.ch1); },
      fr...);
  Each(
      [&](PairFrame<DF> f) __attribute__((always_inline)) { f.q = FmaF(df, f.q, f.t3, f.ch2); },
      fr...);
  // a = -e ln2_hi + t rounded; a + e ln2_hi is exact (|e ln2_hi| >= |t|
  // when e != 0, and t itself when e = 0), so t minus it is a's rounding error.
  // (e ln2_hi is exact, so a and a + e ln2_hi are each one exact-product
  // multiply-add: the same roundings as a multiply, then an add or a sub.)
  Each(
      [&](PairFrame<DF> f) __attribute__((always_inline)) {
        const V a = MulAddExactProduct(f.e, hn::Set(df, -kLn2HiF), f.t);
        const V a_err = hn::Sub(f.t, MulAddExactProduct(f.e, hn::Set(df, kLn2HiF), a));
        const V rest = FmaF(df, f.t2, f.q, FmaF(df, f.e, hn::Set(df, -kLn2LoF), a_err));
        const V sum = hn::Add(a, rest);  // Fast2Sum: |a| >= |rest|
        f.lh = sum;
        f.ll = hn::Sub(rest, hn::Sub(sum, a));
      },
      fr...);
}

// s = sqrt(2 (hi + lo)) as s_hi + s_lo: s_hi = sqrt(y), y = 2 hi, rounded,
// and the exact residual y - s_hi^2 (an fma: exact for a rounded root) plus
// 2 lo, over 2 s_hi (one Newton step). s_lo is below 2^-23 s_hi, so 1 /
// (2 s_hi) needs few bits: it is the integer estimate of 1 / sqrt(y)
// (0x5F3759DF - bits / 2, within 3.5%), halved by taking one off its
// exponent: two integer operations beside the root, in place of a division
// (and a max for y = 0). u = 1 gives y = 0, s = 0 + 0 (the estimate is
// finite). Measured: s_hi + s_lo within 0.4034 2^-24 of sqrt(-2 log u),
// relative (0.34 ulp), on every float u in [2^-33, 1] (0.3976 with a
// division, whose latency lies on the chain to the result). In two
// steps, so that BoxMullerLanes can put the sine and cosine between them
// (RootStart issues the root of lh + ll; RootFinish waits for it and
// leaves sh + sl).
template <class DF, class... Fr>
HWY_INLINE void RootStart(DF df, Fr... fr) {
  Each(
      [&](PairFrame<DF> f) __attribute__((always_inline)) {
        f.y = hn::Add(f.lh, f.lh);  // exact
        f.s = hn::Sqrt(f.y);
      },
      fr...);
  Each(
      [&](PairFrame<DF> f) __attribute__((always_inline)) {
        const hn::RebindToUnsigned<DF> du;
        f.inv_2s = hn::BitCast(df, hn::Sub(hn::Set(du, 0x5F3759DFu - (1u << 23)),
                                           hn::ShiftRight<1>(hn::BitCast(du, f.y))));
        f.lo2 = hn::Add(f.ll, f.ll);  // exact
      },
      fr...);
}
template <class DF, class... Fr>
HWY_INLINE void RootFinish(DF df, Fr... fr) {
  Each(
      [&](PairFrame<DF> f) __attribute__((always_inline)) {
        const auto rho = hn::Add(FnmaF(df, f.s, f.s, f.y), f.lo2);
        f.sh = f.s;
        f.sl = hn::Mul(rho, f.inv_2s);
      },
      fr...);
}

// Cody and Waite's pi/2 = kPio2F1 + kPio2F2 + kPio2F3 (+ 2.5e-20), 21-bit
// parts: k * part is exact for k < 8.
constexpr float kPio2F1 = 0x1.921fb0p+0f, kPio2F2 = 0x1.5110b0p-22f, kPio2F3 = 0x1.1846a0p-44f;
// sin r = r + r^3 S(r^2), cos r = 1 - r^2 / 2 + r^4 C(r^2) on |r| <= pi/4 +
// 2e-6, highest first. S of degree 2, fit for sin's relative error (weight
// r^2 / (sin r / r)) like kLogQ: under 0.07 2^-24 of sin r (a degree-3
// Chebyshev fit before: 0.06 2^-24, one fma more). C: a Chebyshev fit
// (mpmath) rounded to float, |C error| < 2^-28.5.
constexpr float kSinS[] = {-0x1.995408p-13f, 0x1.110778p-7f, -0x1.555546p-3f};
constexpr float kCosC[] = {0x1.9bd89ap-16f, -0x1.6c12d2p-10f, 0x1.555554p-5f};

// sin r and cos r as unevaluated sums hi + lo for Box-Muller's angle v =
// fma(fy, P32_2PI, P32_2PI / 2), fy = float(y) (convert/normal-inl.h), r = v - k pi/2,
// and k's bits (k mod 4 in the low two: QuadrantFloat makes sin v and cos v
// of them): k = fy 2^-30 rounded to an integer by the magic 1.5 2^23 (one
// exact-product fma on fy, which is ready before v; P32_2PI 2^30 is pi/2 to
// 3e-8 relative, so |r| <= pi/4 + 6e-7 as with k = v 2/pi rounded), r as rh
// + rl (v - k kPio2F1 is exact: a multiple of 2^-24 below 1; Fast2Sum with
// k kPio2F2; k kPio2F3 into rl), then sin r = rh + (rh^3 S + rl h) and cos r
// = h + (h's rounding error - rh rl + r^4 C), h = 1 - rh^2 / 2 (about cos
// rh). Measured on every v Box-Muller takes (normal_float_check.cc): hi + lo
// within 0.37 2^-24 of sin r and cos r (after QuadrantFloat, of sin v and
// cos v), relative (0.26 ulp). Every frame at once (Each).
template <class DF, class... Fr>
HWY_INLINE void SinCosFloat(DF df, Fr... fr) {
  using V = hn::Vec<DF>;
  constexpr size_t kS = sizeof(kSinS) / sizeof(kSinS[0]), kC = sizeof(kCosC) / sizeof(kCosC[0]);
  static_assert(kS == kC, "chains of one length");
  Each(
      [&](PairFrame<DF> f) __attribute__((always_inline)) {
        const V magic = hn::Set(df, 0x1.8p23f);
        const V kb = MulAddExactProduct(f.fy, hn::Set(df, 0x1p-30f), magic);
        const V kf = hn::Sub(kb, magic);                                  // exact
        const V t1 = MulAddExactProduct(kf, hn::Set(df, -kPio2F1), f.v);  // exact
        // kf kPio2F2 is exact, so t1 - kf kPio2F2 rounds once, fused or not.
        const V minus_f2 = hn::Set(df, -kPio2F2);
        f.rh = MulAddExactProduct(kf, minus_f2, t1);
        f.rl = MulAddExactProduct(kf, hn::Set(df, -kPio2F3),
                                  MulAddExactProduct(kf, minus_f2, hn::Sub(t1, f.rh)));
        f.r2 = hn::Mul(f.rh, f.rh);
        f.k_bits = hn::BitCast(hn::RebindToUnsigned<DF>(), kb);
      },
      fr...);
  // S and C by Horner, side by side.
  Each(
      [&](PairFrame<DF> f) __attribute__((always_inline)) {
        f.sp = FmaF(df, hn::Set(df, kSinS[0]), f.r2, hn::Set(df, kSinS[1]));
      },
      fr...);
  Each(
      [&](PairFrame<DF> f) __attribute__((always_inline)) {
        f.cp = FmaF(df, hn::Set(df, kCosC[0]), f.r2, hn::Set(df, kCosC[1]));
      },
      fr...);
  for (size_t j = 2; j < kS; ++j) {
    Each(
        [&](PairFrame<DF> f)
            __attribute__((always_inline)) { f.sp = FmaF(df, f.sp, f.r2, hn::Set(df, kSinS[j])); },
        fr...);
    Each(
        [&](PairFrame<DF> f)
            __attribute__((always_inline)) { f.cp = FmaF(df, f.cp, f.r2, hn::Set(df, kCosC[j])); },
        fr...);
  }
  // h = 1 - rh^2 / 2 rounded once, and 1 - rh^2 / 2 - h (1 - h is exact;
  // the fma's rounding of that tiny difference is below 2^-48).
  Each(
      [&](PairFrame<DF> f) __attribute__((always_inline)) {
        const V one = hn::Set(df, 1.0f);
        const V half_rh = hn::Mul(f.rh, hn::Set(df, -0.5f));  // exact
        f.h = FmaF(df, f.rh, half_rh, one);
        f.h_err = FmaF(df, f.rh, half_rh, hn::Sub(one, f.h));
      },
      fr...);
  Each(
      [&](PairFrame<DF> f) __attribute__((always_inline)) {
        f.sin_hi = f.rh;
        f.sin_lo = FmaF(df, hn::Mul(f.r2, f.rh), f.sp, hn::Mul(f.rl, f.h));
        f.cos_hi = f.h;
        f.cos_lo = FmaF(df, hn::Mul(f.r2, f.r2), f.cp, FnmaF(df, f.rh, f.rl, f.h_err));
      },
      fr...);
}

// sin v and cos v from a = sin r, b = cos r (or anything linear in them) and
// q = k mod 4 (low bits of k_bits): sin v = (a, b, -a, -b)[q], cos v =
// (b, -a, -b, a)[q].
template <class DF, class V = hn::Vec<DF>, class VU = hn::Vec<hn::RebindToUnsigned<DF>>>
HWY_INLINE void QuadrantFloat(DF df, VU k_bits, V a, V b, V* sin_v, V* cos_v) {
  const hn::RebindToUnsigned<DF> du;
  const VU odd = hn::ShiftLeft<31>(k_bits);  // the sign bit: q odd
  const VU sin_sign = hn::And(hn::ShiftLeft<30>(k_bits), hn::Set(du, 0x80000000u));  // q >= 2
  const VU cos_sign = hn::Xor(sin_sign, odd);                                         // q = 1, 2
  const auto swap = hn::RebindMask(df, hn::TestBit(k_bits, hn::Set(du, 1u)));
  *sin_v = hn::BitCast(df, hn::Xor(hn::BitCast(du, hn::IfThenElse(swap, b, a)), sin_sign));
  *cos_v = hn::BitCast(df, hn::Xor(hn::BitCast(du, hn::IfThenElse(swap, a, b)), cos_sign));
}

// s c rounded once, for s = sh + sl and c = ch + cl: sh ch + RN(sh cl +
// RN(sl ch)), the form normal_float_check.cc proves. sh cl is not small (cl
// holds the polynomials' terms: |cl / c| up to 0.1), so it is rounded once,
// inside the fma; sl ch (|sl / s| < 2^-24) is the one rounded twice. (The
// former sh ch + RN(sl ch + RN(sh cl)), one multiply shorter after s_lo,
// rounded sh cl twice: 2^-24 |cl / c| more than the proof allowed, which
// covered it only up to 1.41 ulp, not the 1.30 it printed.)
template <class DF, class V = hn::Vec<DF>>
HWY_INLINE V ProductFloat(DF df, V sh, V sl, V ch, V cl) {
  return FmaF(df, sh, ch, FmaF(df, sh, cl, hn::Mul(sl, ch)));
}

// The affine map fma(z, std, mean) of SPEC.md section 8 with the quadrant's
// sign moved from z to std: sin v = sign_q (a or b), and fma(sign z', std,
// mean) = fma(z', sign std, mean) bit for bit (the exact product is the
// same, its zero's sign included). So where one permute can look up sign
// std by q (RANDTENSOR_FLOAT_PERMUTE: vpermps reads the low 3 or 4 bits of
// k_bits, and k is in [0, 4]), the sign costs nothing per element: lane i
// of `sin` and `cos` holds std with the sign of sin v and of cos v in
// quadrant i mod 4, and the selection and the fma take five operations per
// vector of pairs where QuadrantFloat's signs and selection take nine or
// ten. Other targets use QuadrantFloat (the same values).
//
// The kernels make the three vectors once per call (SetNormalScale, into
// locals of their own) and pass them by reference: vectors cannot be
// members (PairFrame says why).
template <class DF>
struct NormalScale {
  const hn::Vec<DF>& sin;
  const hn::Vec<DF>& cos;
  const hn::Vec<DF>& mean;
};
template <class DF, class V = hn::Vec<DF>>
HWY_INLINE void SetNormalScale(DF df, float std_value, float mean_value, V* sin, V* cos, V* mean) {
  *mean = hn::Set(df, mean_value);
#if RANDTENSOR_FLOAT_PERMUTE
  const hn::RebindToUnsigned<DF> du;
  const auto lane = hn::Iota(du, 0);
  const auto sin_signs = hn::ShiftLeft<30>(hn::And(lane, hn::Set(du, 2u)));  // q = 2, 3
  const auto cos_signs =
      hn::ShiftLeft<30>(hn::And(hn::Add(lane, hn::Set(du, 1u)), hn::Set(du, 2u)));  // q = 1, 2
  const auto s = hn::BitCast(du, hn::Set(df, std_value));
  *sin = hn::BitCast(df, hn::Xor(s, sin_signs));
  *cos = hn::BitCast(df, hn::Xor(s, cos_signs));
#else
  *sin = *cos = hn::Set(df, std_value);
#endif
}

// fma(sin v, std, mean) and fma(cos v, std, mean) from a = s sin r, b = s cos
// r and k's bits (QuadrantFloat's selection, NormalScale's signs).
template <class DF, class V = hn::Vec<DF>, class VU = hn::Vec<hn::RebindToUnsigned<DF>>>
HWY_INLINE void QuadrantAffine(DF df, const NormalScale<DF>& scale, VU k_bits, V a, V b,
                               V* t_sin, V* t_cos) {
#if RANDTENSOR_AVX512
  const V std_sin{_mm512_permutexvar_ps(k_bits.raw, scale.sin.raw)};
  const V std_cos{_mm512_permutexvar_ps(k_bits.raw, scale.cos.raw)};
  const __mmask16 odd = _mm512_test_epi32_mask(k_bits.raw, _mm512_set1_epi32(1));
  const V sel_sin{_mm512_mask_blend_ps(odd, a.raw, b.raw)};
  const V sel_cos{_mm512_mask_blend_ps(odd, b.raw, a.raw)};
  *t_sin = FmaF(df, sel_sin, std_sin, scale.mean);
  *t_cos = FmaF(df, sel_cos, std_cos, scale.mean);
#elif RANDTENSOR_FLOAT_PERMUTE  // AVX2
  const V std_sin{_mm256_permutevar8x32_ps(scale.sin.raw, k_bits.raw)};
  const V std_cos{_mm256_permutevar8x32_ps(scale.cos.raw, k_bits.raw)};
  // q odd in the sign bit: vblendvps reads only that bit.
  const V odd = hn::BitCast(df, hn::ShiftLeft<31>(k_bits));
  const V sel_sin = hn::IfNegativeThenElse(odd, b, a), sel_cos = hn::IfNegativeThenElse(odd, a, b);
  *t_sin = FmaF(df, sel_sin, std_sin, scale.mean);
  *t_cos = FmaF(df, sel_cos, std_cos, scale.mean);
#else
  V sin_v, cos_v;
  QuadrantFloat(df, k_bits, a, b, &sin_v, &cos_v);
  *t_sin = FmaF(df, sin_v, scale.sin, scale.mean);
  *t_cos = FmaF(df, cos_v, scale.cos, scale.mean);
#endif
}

// One vector each, for tests/reference/normal_float_check.cc, which checks
// the parts on their own: -log u = *hi + *lo, sqrt(2 (hi + lo)) = *s_hi +
// *s_lo, and sin r, cos r with k's bits for v (fy = float(y)).
template <size_t K, class DF, class V = hn::Vec<DF>>
HWY_INLINE void NegLogFloat(DF df, const V* u, V* hi, V* lo) {
  static_assert(K == 1, "one vector");
  WithPairFrames<1>(df, [&](PairFrame<DF> f) {
    f.u = *u;
    NegLogFloat(df, f);
    *hi = f.lh;
    *lo = f.ll;
  });
}
template <size_t K, class DF, class V = hn::Vec<DF>>
HWY_INLINE void RadiusFloat(DF df, const V* hi, const V* lo, V* s_hi, V* s_lo) {
  static_assert(K == 1, "one vector");
  WithPairFrames<1>(df, [&](PairFrame<DF> f) {
    f.lh = *hi;
    f.ll = *lo;
    RootStart(df, f);
    RootFinish(df, f);
    *s_hi = f.sh;
    *s_lo = f.sl;
  });
}
template <size_t K, class DF, class V = hn::Vec<DF>, class VU>
HWY_INLINE void SinCosFloat(DF df, const V* fy, const V* v, V* sin_hi, V* sin_lo, V* cos_hi,
                            V* cos_lo, VU* k_bits) {
  static_assert(K == 1, "one vector");
  WithPairFrames<1>(df, [&](PairFrame<DF> f) {
    f.fy = *fy;
    f.v = *v;
    SinCosFloat(df, f);
    *sin_hi = f.sin_hi;
    *sin_lo = f.sin_lo;
    *cos_hi = f.cos_hi;
    *cos_lo = f.cos_lo;
    *k_bits = f.k_bits;
  });
}

// fma(z, std, mean) of the pairs z = (s sin v, s cos v) of every frame's
// vector of lanes, s = sqrt(-2 log u), v = fma(fy, P32_2PI, P32_2PI / 2)
// (fy too: SinCosFloat): the log's chain first (it leads to the square
// root, the longest), the sine and cosine while the root runs, then the
// rest; results in t_sin and t_cos.
template <class DF, class... Fr>
HWY_INLINE void BoxMullerLanes(DF df, const NormalScale<DF>& scale, Fr... fr) {
  NegLogFloat(df, fr...);
  RootStart(df, fr...);
  SinCosFloat(df, fr...);
  RootFinish(df, fr...);
  Each(
      [&](PairFrame<DF> f) __attribute__((always_inline)) {
        QuadrantAffine(df, scale, f.k_bits, ProductFloat(df, f.sh, f.sl, f.sin_hi, f.sin_lo),
                       ProductFloat(df, f.sh, f.sl, f.cos_hi, f.cos_lo), &f.t_sin, &f.t_cos);
      },
      fr...);
}

}  // namespace math
}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_MATH_INL_H_ toggle guard
