// Proof of docs/SPEC.md section 8.1's bounds for randtensor's exponential,
// Cauchy, geometric and log-normal (src/math-inl.h: LogCompensated, TanD,
// ExpD, all in double lanes): the relative error of each double
// intermediate against long double (64-bit significand) references, over
// every float u that u32 can give (every float argument where the transform
// has float inputs) and over samples of the double ones. Not part of CI
// (a few minutes on two cores).
//
//   g++ -std=c++17 -O2 -march=native -ffp-contract=off -pthread -I. -Iinclude
//       tests/reference/transforms_check.cc -o /tmp/transforms_check -lhwy
//   /tmp/transforms_check [double_samples]
//
// Parts (the math runs on this build's static target; every target computes
// the same bits: tests/kernels_test.cc):
//  1. log u by LogCompensated for every u = u32(x) (x < 2^24, and every float
//     in [2^24, 2^32] as float(x)); relative error in units of 2^-53.
//  2. tan a by TanD for every float a = RN(PI_F RN(clamp(u) - 0.5)) of those
//     u (the float Cauchy's angle); relative error.
//  3. exp x by ExpD for every float x in [-104, 89] with a multiple-of-8 bit
//     pattern, plus every float in [-1, 1] within 2^20 bit patterns of 0 and
//     of +-1; relative error of the double result.
//  4. geometric: for several p, every u of part 1: the u where ceil of the
//     computed ratio differs from the exact ratio's ceiling, and the largest
//     |R' / R - 1| (the spec allows k or k + 1 only where R is within 2^-50
//     R of an integer k).
//  5. doubles, `double_samples` (default 10^7) random each: u53 for log (and
//     geometric's ratio), a = RN(pi RN(u53 - 0.5)) for tan, and exp on
//     uniform x in [-745, 709.8] (errors in ulps there, subnormals included).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "hwy/highway.h"
#include "src/math-inl.h"

namespace hn = hwy::HWY_NAMESPACE;
namespace math = randtensor::HWY_NAMESPACE::math;
using LD = long double;

namespace {

const hn::ScalableTag<double> dd;
using VD = hn::Vec<decltype(dd)>;

float U32(uint64_t x) { return std::fma(static_cast<float>(x), 0x1p-32f, 0x1p-33f); }

template <class F>
void Apply(const std::vector<double>& in, std::vector<double>* out, F f) {
  const size_t n = hn::Lanes(dd);
  out->resize(in.size());
  std::vector<double> buf(n);
  for (size_t i = 0; i < in.size(); i += n) {
    for (size_t j = 0; j < n; ++j) buf[j] = in[std::min(i + j, in.size() - 1)];
    const VD r = f(hn::LoadU(dd, buf.data()));
    hn::StoreU(r, dd, buf.data());
    for (size_t j = 0; j < n && i + j < in.size(); ++j) (*out)[i + j] = buf[j];
  }
}

// Every u = u32(x): x < 2^24 one by one, then float(x) through every float
// in [2^24, 2^32].
std::vector<double> AllFloatU() {
  std::vector<double> u;
  u.reserve((1u << 24) + (1u << 26) + 1);
  for (uint32_t x = 0; x < (1u << 24); ++x) u.push_back(U32(x));
  for (float f = 0x1p24f; f <= 0x1p32f; f = std::nextafter(f, 1e30f)) {
    u.push_back(std::fma(f, 0x1p-32f, 0x1p-33f));
  }
  return u;
}

struct Max {
  LD rel = 0;
  double at = 0;
  void Add(LD got, LD exact, double arg) {
    if (exact == 0) return;
    const LD r = std::fabs(got - exact) / std::fabs(exact);
    if (r > rel) rel = r, at = arg;
  }
  void Print(const char* what) const {
    std::printf("%-44s %.4Lf 2^-53 relative (at %a)\n", what, rel * 0x1p53L, at);
  }
};

// u53 = fma(double(z), 2^-53, 2^-54) for a 53-bit z: exact as z 2^-53 + 2^-54
// rounded, which is what fma gives.
double U53(uint64_t z) { return std::fma(static_cast<double>(z), 0x1p-53, 0x1p-54); }

}  // namespace

int main(int argc, char** argv) {
  const long samples = argc > 1 ? std::atol(argv[1]) : 10000000;
  const std::vector<double> u = AllFloatU();
  std::printf("%zu float u\n", u.size());
  std::vector<double> out;

  // 1. log u (float u)
  Apply(u, &out, [](VD v) { return math::LogCompensated(dd, v); });
  Max log_f;
  for (size_t i = 0; i < u.size(); ++i) {
    if (u[i] != 1.0) log_f.Add(out[i], std::log(static_cast<LD>(u[i])), u[i]);
  }
  log_f.Print("1. log u, every float u");
  std::vector<double> log_u = out;

  // 2. tan of the float Cauchy angle
  std::vector<double> a(u.size());
  for (size_t i = 0; i < u.size(); ++i) {
    float v = static_cast<float>(u[i]);
    v = std::min(std::max(v, 0x1p-23f), 1.0f - 0x1p-23f);
    const float t = v - 0.5f;
    a[i] = static_cast<float>(3.14159274101257324f * t);
  }
  Apply(a, &out, [](VD v) { return math::TanD(dd, v); });
  Max tan_f;
  for (size_t i = 0; i < a.size(); ++i) tan_f.Add(out[i], std::tan(static_cast<LD>(a[i])), a[i]);
  tan_f.Print("2. tan a, every float Cauchy angle");

  // 3. exp of floats
  {
    std::vector<double> x;
    for (uint32_t b = 0; b < 0x80000000u; b += 8) {
      float f;
      std::memcpy(&f, &b, 4);
      if (f <= 89.0f) x.push_back(f);
      if (f <= 104.0f) x.push_back(-f);
    }
    for (int32_t d = -(1 << 20); d < (1 << 20); ++d) {
      for (float c : {1.0f, -1.0f}) {
        uint32_t b;
        std::memcpy(&b, &c, 4);
        b += d;
        float f;
        std::memcpy(&f, &b, 4);
        x.push_back(f);
      }
      uint32_t b = static_cast<uint32_t>(d < 0 ? (0x80000000u | -d) : d);
      float f;
      std::memcpy(&f, &b, 4);
      x.push_back(f);
    }
    Apply(x, &out, [](VD v) { return math::ExpD(dd, v); });
    Max exp_f;
    for (size_t i = 0; i < x.size(); ++i) exp_f.Add(out[i], std::exp(static_cast<LD>(x[i])), x[i]);
    std::printf("%zu float x\n", x.size());
    exp_f.Print("3. exp x, float x");
  }

  // 4. geometric's ceiling, float u
  for (double p : {0.2, 0.5, 0.25, 0.75, 0.01, 1e-6, 0.9, 0.999, 1.0 / 3}) {
    const float q = 1.0f - static_cast<float>(p);
    std::vector<double> qv(1, q), lq;
    Apply(qv, &lq, [](VD v) { return math::LogCompensated(dd, v); });
    const LD lq_exact = std::log(static_cast<LD>(q));
    Max ratio;
    long differ = 0, beyond = 0;
    for (size_t i = 0; i < u.size(); ++i) {
      const double r = log_u[i] / lq[0];
      const LD exact = std::log(static_cast<LD>(u[i])) / lq_exact;
      ratio.Add(r, exact, u[i]);
      if (std::ceil(r) != std::ceil(exact)) {
        ++differ;
        const LD k = std::round(exact);
        if (std::fabs(exact - k) > 0x1p-50L * exact) ++beyond;
      }
    }
    char what[96];
    std::snprintf(what, sizeof what, "4. geometric p=%g: ratio", p);
    ratio.Print(what);
    std::printf("   ceil differs for %ld u, %ld of them beyond 2^-50 R of an integer\n", differ,
                beyond);
    if (beyond != 0) return 1;
  }

  // 5. doubles
  std::mt19937_64 rng(20261127);
  std::vector<double> ud(samples), ad(samples), xd(samples);
  for (long i = 0; i < samples; ++i) {
    // u53 over its whole range: a random binade, then a random significand.
    const int shift = static_cast<int>(rng() % 54);
    ud[i] = U53((rng() >> 11) >> shift);
    const double t = (i % 4 == 0) ? U53((uint64_t{1} << 53) - 1 - (rng() % 4096)) - 0.5
                                  : ud[i] - 0.5;
    ad[i] = (i % 2 ? -1 : 1) * (3.141592653589793 * t);
    xd[i] = -745.0 + (709.8 + 745.0) * std::ldexp(static_cast<double>(rng() >> 11), -53);
  }
  ud.push_back(U53(0));
  ud.push_back(U53((uint64_t{1} << 53) - 2));
  Apply(ud, &out, [](VD v) { return math::LogCompensated(dd, v); });
  Max log_d;
  for (size_t i = 0; i < ud.size(); ++i) {
    if (ud[i] != 1.0) log_d.Add(out[i], std::log(static_cast<LD>(ud[i])), ud[i]);
  }
  log_d.Print("5. log u53, sampled");
  ad.push_back(3.141592653589793 * 0.5);
  ad.push_back(-3.141592653589793 * 0.5);
  Apply(ad, &out, [](VD v) { return math::TanD(dd, v); });
  Max tan_d;
  for (size_t i = 0; i < ad.size(); ++i) tan_d.Add(out[i], std::tan(static_cast<LD>(ad[i])), ad[i]);
  tan_d.Print("5. tan a, double Cauchy angle, sampled");
  Apply(xd, &out, [](VD v) { return math::ExpD(dd, v); });
  Max exp_d;
  double worst_ulp = 0, worst_at = 0;
  for (size_t i = 0; i < xd.size(); ++i) {
    const LD e = std::exp(static_cast<LD>(xd[i]));
    if (e > static_cast<LD>(1.7976931348623157e308)) {  // rounds to infinity
      if (!std::isinf(out[i])) std::printf("   exp(%a) = %a, want infinity\n", xd[i], out[i]);
      continue;
    }
    if (e >= 0x1p-1022L) exp_d.Add(out[i], e, xd[i]);  // subnormals: in ulps below
    const double rounded = static_cast<double>(e);
    const double ulp = std::nextafter(rounded, 1e308) - rounded;
    const double du = static_cast<double>(std::fabs(out[i] - e) / ulp);
    if (du > worst_ulp) worst_ulp = du, worst_at = xd[i];
  }
  exp_d.Print("5. exp x, double x, sampled");
  std::printf("   largest error %.4f ulp of the double result (at %a)\n", worst_ulp, worst_at);
  for (double x : {-746.0, -745.2, -745.1, -708.5, 709.7, 709.79, 710.0, 1e300, -1e300}) {
    std::vector<double> in(1, x), o;
    Apply(in, &o, [](VD v) { return math::ExpD(dd, v); });
    std::printf("   exp(%g) = %a, long double %La\n", x, o[0], std::exp(static_cast<LD>(x)));
  }
  return 0;
}
