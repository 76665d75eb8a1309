// Distributions: what values a fill writes (SPEC.md section 8, profile
// `cuda`: what one CUDA thread computes with cuRAND's device API and
// PyTorch's CUDA transforms, element after element).
//
// Element i of a fill (stream index i = element_offset + logical index) reads
// `w` stream words, w = 1 or 2 by distribution and type, and the output state
// is C + ceil((offset + N) * w / 4). Values never depend on layout, threads,
// tiling or the SIMD target.
//
// Every row of SPEC.md section 8's table (a type a distribution cannot hold
// is refused with kUnsupported, naming both):
//   bits                    uint32
//   uniform(low, high)      float32, float16, bfloat16; float64 (two words)
//   normal(mean, std)       float32, float16, bfloat16; float64 (four words a
//                           pair); randtensor's own log/sin/cos: within
//                           SPEC's 2 ulp (float) / 4 ulp (double) of the
//                           exact formula
//   bernoulli(p)            uint8, bool, int32, float32, float16, bfloat16;
//                           float64 (two words)
//   integers(low, high)     int32, uint32, int64, float64 (and float32 below
//                           2^24): one word per element when high - low <
//                           2^28, two words otherwise (PyTorch's rule)
// and PyTorch's other transforms of a uniform or a normal (docs/SPEC.md
// section 8.1: its CUDA formulas; randtensor's own log/tan/exp, within the
// bounds stated there):
//   exponential(lambda)     float32, float16, bfloat16; float64 (two words)
//   cauchy(median, sigma)   float32, float16, bfloat16; float64 (two words)
//   log_normal(mean, std)   exp of normal(mean, std): the normal's types and
//                           words
//   geometric(p)            float32, float16, bfloat16, uint8, int32, int64;
//                           float64 (two words)
#ifndef RANDTENSOR_DISTRIBUTION_H_
#define RANDTENSOR_DISTRIBUTION_H_

#include <cstdint>

namespace randtensor {

enum class DistributionKind : int32_t {
  kBits = 0,       // the stream's words (uint32)
  kUniform = 1,    // [low, high)
  kNormal = 2,     // mean, std
  kBernoulli = 3,  // 1 with probability p, else 0
  kIntegers = 4,   // [int_low, int_high)
  kExponential = 5,  // rate lambda
  kCauchy = 6,       // median, sigma
  kLogNormal = 7,    // exp of normal(mean, std)
  kGeometric = 8,    // trials to the first success, probability p each
};

struct Distribution {
  DistributionKind kind = DistributionKind::kBits;
  double low = 0, high = 1;           // uniform
  double mean = 0, std = 1;           // normal
  double p = 0.5;                     // bernoulli, geometric
  int64_t int_low = 0, int_high = 1;  // integers
  double lambda = 1;                  // exponential
  double median = 0, sigma = 1;       // cauchy (log_normal: mean, std)

  static Distribution Bits() { return Distribution(); }
  static Distribution Uniform(double low, double high) {
    Distribution d;
    d.kind = DistributionKind::kUniform;
    d.low = low;
    d.high = high;
    return d;
  }
  static Distribution Normal(double mean, double std) {
    Distribution d;
    d.kind = DistributionKind::kNormal;
    d.mean = mean;
    d.std = std;
    return d;
  }
  static Distribution Bernoulli(double p) {
    Distribution d;
    d.kind = DistributionKind::kBernoulli;
    d.p = p;
    return d;
  }
  static Distribution Integers(int64_t low, int64_t high) {
    Distribution d;
    d.kind = DistributionKind::kIntegers;
    d.int_low = low;
    d.int_high = high;
    return d;
  }
  static Distribution Exponential(double lambda) {
    Distribution d;
    d.kind = DistributionKind::kExponential;
    d.lambda = lambda;
    return d;
  }
  static Distribution Cauchy(double median, double sigma) {
    Distribution d;
    d.kind = DistributionKind::kCauchy;
    d.median = median;
    d.sigma = sigma;
    return d;
  }
  static Distribution LogNormal(double mean, double std) {
    Distribution d = Normal(mean, std);
    d.kind = DistributionKind::kLogNormal;
    return d;
  }
  static Distribution Geometric(double p) {
    Distribution d = Bernoulli(p);
    d.kind = DistributionKind::kGeometric;
    return d;
  }
};

}  // namespace randtensor

#endif  // RANDTENSOR_DISTRIBUTION_H_
