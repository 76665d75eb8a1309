// math::FmaD, the fused multiply-add every float64 conversion relies on, on
// every compiled target the CPU supports, against the C library's fma (one
// rounding, computed independently of randtensor). AVX2 and AVX-512 issue
// vfmadd; SSE4 emulates it in its lanes (math::FmaEmulated,
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
// 8); returns the target that ran.
int64_t FmaOfArrays(const double* a, const double* b, const double* c, double* out, size_t n) {
  const hn::ScalableTag<double> dd;
  for (size_t i = 0; i < n; i += hn::Lanes(dd)) {
    hn::StoreU(math::FmaD(dd, hn::LoadU(dd, a + i), hn::LoadU(dd, b + i), hn::LoadU(dd, c + i)),
               dd, out + i);
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

uint64_t Bits(double x) {
  uint64_t b;
  std::memcpy(&b, &x, 8);
  return b;
}

// Operands: a and b of random significands with exponents in [lo, hi], c
// near a b (cancellation), or far from it, or a tie-maker: c = -RN(a b) plus
// a few ulps, so that a b + c is the product's rounding error, where the
// emulation's rounding to odd decides.
struct Cases {
  std::vector<double> a, b, c;
  void Add(double x, double y, double z) {
    a.push_back(x);
    b.push_back(y);
    c.push_back(z);
  }
};

Cases MakeCases() {
  Cases k;
  std::mt19937_64 rng(20261126);
  std::uniform_real_distribution<double> sig(1.0, 2.0);
  const auto value = [&](int lo, int hi) {
    const int e = lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1));
    return std::ldexp(sig(rng), e) * ((rng() & 1) ? -1.0 : 1.0);
  };
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
  // Zeros of either sign, and c = 0 (the product rounded, zero signs by IEEE).
  for (double z : {0.0, -0.0}) {
    for (double x : {0.0, -0.0, 1.5, -1.5}) {
      k.Add(x, 2.0, z);
      k.Add(2.0, x, z);
      k.Add(x, 3.0, 1.25);
    }
  }
  // Outside the emulation's range: the C library computes these.
  k.Add(1e300, 1e10, -1e308);
  k.Add(1e-300, 1e-300, 1e-310);
  k.Add(1e200, 1e200, 1.0);
  k.Add(3.0, 1e-310, 2e-310);
  k.Add(1e308, 10.0, -1e308);
  while (k.a.size() % 8 != 0) k.Add(1.0, 1.0, 1.0);
  return k;
}

TEST(FmaD, EqualsTheCLibraryOnEveryTarget) {
  const Cases k = MakeCases();
  const size_t n = k.a.size();
  std::vector<double> expected(n), got(n);
  for (size_t i = 0; i < n; ++i) expected[i] = std::fma(k.a[i], k.b[i], k.c[i]);
  int checked = 0;
  // Highway's own way to run each target: the dispatch picks the best of the
  // targets it is told the CPU supports.
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    const int64_t ran = HWY_DYNAMIC_DISPATCH(FmaOfArrays)(k.a.data(), k.b.data(), k.c.data(),
                                                          got.data(), n);
    EXPECT_EQ(ran, target) << hwy::TargetName(target);
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

}  // namespace
}  // namespace randtensor
#endif  // HWY_ONCE
