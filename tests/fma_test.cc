// The fused multiply-adds the conversions rely on, on every compiled target
// the CPU supports, against the C library's fma and fmaf (one rounding,
// computed independently of randtensor). AVX2 and AVX-512 issue vfmadd.
// math::FmaD (float64): SSE4 emulates it in its lanes (math::FmaEmulated,
// Boldo and Melquiond's rounding to odd) and falls back to the C library
// outside the emulation's range; SCALAR calls the C library. So this checks
// the emulation on random operands of every magnitude the float64 normals
// give it, on the series' own operands, on sums that cancel (a b + c the
// product's own rounding error, give or take a few ulps), on zeros of either
// sign, and on operands outside its range. (Operands on which rounding the
// low parts to nearest instead of to odd would give another result were not
// found in 2 x 10^6 random sparse-significand trials, so the rounding to odd
// stands on the cited proof; the test fails without the product's low part
// or with the sum's low part dropped.)
// math::FmaF (float, the float normals'): SSE4 and SCALAR take the product
// exactly in double and round the double sum to odd (SSE4 only where the
// double sum is a midpoint of floats or below 2^-126); the cases include
// sums next to midpoints of normal and subnormal floats, where rounding to
// nearest twice is wrong (the test counts them), and fail without the
// rounding to odd or without either of SSE4's checks.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tests/fma_test.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "hwy/highway.h"
#include "src/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// out[i] = FmaD(a[i], b[i], c[i]) in this target's vectors (n a multiple of
// the widest vector's lanes); returns the target that ran.
int64_t FmaOfArrays(const double* a, const double* b, const double* c, double* out, size_t n) {
  const hn::ScalableTag<double> dd;
  for (size_t i = 0; i < n; i += hn::Lanes(dd)) {
    hn::StoreU(math::FmaD(dd, hn::LoadU(dd, a + i), hn::LoadU(dd, b + i), hn::LoadU(dd, c + i)),
               dd, out + i);
  }
  return HWY_TARGET;
}

// out[i] = FmaF(a[i], b[i], c[i]), as FmaOfArrays.
int64_t FmaFOfArrays(const float* a, const float* b, const float* c, float* out, size_t n) {
  const hn::ScalableTag<float> df;
  for (size_t i = 0; i < n; i += hn::Lanes(df)) {
    hn::StoreU(math::FmaF(df, hn::LoadU(df, a + i), hn::LoadU(df, b + i), hn::LoadU(df, c + i)),
               df, out + i);
  }
  return HWY_TARGET;
}

}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <gtest/gtest.h>

namespace randtensor {
namespace {

HWY_EXPORT(FmaOfArrays);
HWY_EXPORT(FmaFOfArrays);

uint64_t Bits(double x) {
  uint64_t b;
  std::memcpy(&b, &x, 8);
  return b;
}

uint32_t Bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}

// The cases fill whole vectors of every target: SVE's widest, 2048 bits,
// holds 64 floats.
constexpr size_t kWidestLanes = 64;

template <typename T>
struct Cases {
  std::vector<T> a, b, c;
  void Add(T x, T y, T z) {
    a.push_back(x);
    b.push_back(y);
    c.push_back(z);
  }
  // Zeros of either sign in each operand, and c = 0 (the product rounded,
  // zero signs by IEEE).
  void AddZeros() {
    for (T z : {T(0), -T(0)}) {
      for (T x : {T(0), -T(0), T(1.5), T(-1.5)}) {
        Add(x, 2, z);
        Add(2, x, z);
        Add(x, 3, T(1.25));
      }
    }
  }
  // Ones up to whole vectors of the widest target.
  void PadToWholeVectors() {
    while (a.size() % kWidestLanes != 0) Add(1, 1, 1);
  }
};

// Each target's fma of every case (`run` calls a *OfArrays through the
// dispatch, which picks the target set below), bit for bit against
// `expected`; at least SCALAR and one vector target.
template <typename T, typename Run>
void ExpectEveryTargetGives(const Cases<T>& k, const std::vector<T>& expected, Run run) {
  const size_t n = k.a.size();
  std::vector<T> got(n);
  int checked = 0;
  // Highway's own way to run each target: the dispatch picks the best of the
  // targets it is told the CPU supports.
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    EXPECT_EQ(run(k.a.data(), k.b.data(), k.c.data(), got.data(), n), target)
        << hwy::TargetName(target);
    int wrong = 0;
    for (size_t i = 0; i < n; ++i) {
      if (Bits(got[i]) != Bits(expected[i]) && wrong++ < 5) {
        ADD_FAILURE() << hwy::TargetName(target) << ": fma(" << k.a[i] << ", " << k.b[i] << ", "
                      << k.c[i] << ") = " << got[i] << ", the C library's " << expected[i];
      }
    }
    EXPECT_EQ(wrong, 0) << hwy::TargetName(target);
    ++checked;
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(checked, 2);
}

// Random significands in [1, 2) times 2^e, e in [lo, hi], of either sign.
template <typename T>
struct RandomValues {
  explicit RandomValues(uint64_t seed) : rng(seed) {}
  T operator()(int lo, int hi) {
    const int e = lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1));
    return std::ldexp(significand(rng), e) * ((rng() & 1) ? T(-1) : T(1));
  }
  std::mt19937_64 rng;
  std::uniform_real_distribution<T> significand{T(1), T(2)};
};

// Operands: a and b of random significands with exponents in [lo, hi], c
// near a b (cancellation), or far from it, or a tie-maker: c = -RN(a b) plus
// a few ulps, so that a b + c is the product's rounding error, where the
// emulation's rounding to odd decides.
Cases<double> MakeCases() {
  Cases<double> k;
  RandomValues<double> value(20261126);
  std::mt19937_64& rng = value.rng;
  for (int i = 0; i < 200000; ++i) {
    const double x = value(-60, 10), y = value(-60, 10);
    const double p = x * y;
    switch (i % 5) {
      case 0: k.Add(x, y, value(-120, 20)); break;              // any size
      case 1: k.Add(x, y, -p); break;                            // the product's error alone
      case 2:  // a few ulps from the product's error
        k.Add(x, y, -p + std::ldexp(p, -53) * static_cast<double>(static_cast<int>(rng() % 7) - 3));
        break;
      case 3: k.Add(x, y, std::nextafter(-p, 0.0) * 0.5); break;  // half cancels
      default:  // the series' sizes: small products onto 1 / (2k + 1)
        k.Add(std::fabs(x) * 1e-2, std::fabs(y) * 1e-2, 1.0 / (3 + 2 * (i % 11)));
        break;
    }
  }
  k.AddZeros();
  // Outside the emulation's range: the C library computes these.
  k.Add(1e300, 1e10, -1e308);
  k.Add(1e-300, 1e-300, 1e-310);
  k.Add(1e200, 1e200, 1.0);
  k.Add(3.0, 1e-310, 2e-310);
  k.Add(1e308, 10.0, -1e308);
  k.PadToWholeVectors();
  return k;
}

TEST(FmaD, EqualsTheCLibraryOnEveryTarget) {
  const Cases<double> k = MakeCases();
  std::vector<double> expected(k.a.size());
  for (size_t i = 0; i < k.a.size(); ++i) expected[i] = std::fma(k.a[i], k.b[i], k.c[i]);
  ExpectEveryTargetGives(
      k, expected, [](auto... args) { return HWY_DYNAMIC_DISPATCH(FmaOfArrays)(args...); });
}

// Operands of FmaF: random ones of many magnitudes, cancelling sums, and
// near-ties: a b close to half an ulp of c (b = RN((m - c) / a), m the
// midpoint above c), so that a b + c lies within about 2^-48 |c| of a
// midpoint of floats, where rounding it to double first may land on the
// midpoint and round the wrong way: what SSE4's and SCALAR's rounding to
// odd in double prevents; the same next to midpoints of subnormal floats.
Cases<float> MakeCasesF() {
  Cases<float> k;
  RandomValues<float> value(20261201);
  std::mt19937_64& rng = value.rng;
  for (int i = 0; i < 200000; ++i) {
    const float x = value(-30, 10), y = value(-30, 10);
    const float p = x * y;
    switch (i % 4) {
      case 0: k.Add(x, y, value(-60, 20)); break;  // any size
      case 1: k.Add(x, y, -p); break;              // the product's error alone
      case 2: k.Add(x, y, std::nextafter(-p, 0.0f) * 0.5f); break;  // half cancels
      default: {  // near a midpoint above or below c
        const float c = value(-20, 20);
        const float toward = (rng() & 1) ? INFINITY : -INFINITY;
        const double half = (static_cast<double>(std::nextafter(c, toward)) - c) / 2;
        k.Add(x, static_cast<float>(half / x), c);
        break;
      }
    }
  }
  // Next to a midpoint of subnormal floats: a b = 2^-150 (1 - 2^-46) and c
  // an odd multiple of 2^-149, so that c + a b rounded to double is the
  // midpoint, which rounds away from c.
  for (int i = 0; i < 1000; ++i) {
    const float m = static_cast<float>(2 * (rng() % (1u << 22)) + 1);
    const float sign = (rng() & 1) ? -1.0f : 1.0f;
    k.Add(sign * std::ldexp(1.0f + 0x1p-23f, -75), std::ldexp(1.0f - 0x1p-23f, -75),
          sign * std::ldexp(m, -149));
  }
  k.AddZeros();
  k.PadToWholeVectors();
  return k;
}

TEST(FmaF, EqualsTheCLibraryOnEveryTarget) {
  const Cases<float> k = MakeCasesF();
  std::vector<float> expected(k.a.size());
  int double_rounding_wrong = 0;
  for (size_t i = 0; i < k.a.size(); ++i) {
    expected[i] = std::fmaf(k.a[i], k.b[i], k.c[i]);
    const double sum = static_cast<double>(k.a[i]) * k.b[i] + static_cast<double>(k.c[i]);
    double_rounding_wrong += Bits(static_cast<float>(sum)) != Bits(expected[i]);
  }
  // The cases reach what rounding to nearest twice gets wrong.
  EXPECT_GE(double_rounding_wrong, 100);
  ExpectEveryTargetGives(
      k, expected, [](auto... args) { return HWY_DYNAMIC_DISPATCH(FmaFOfArrays)(args...); });
}

}  // namespace
}  // namespace randtensor
#endif  // HWY_ONCE
