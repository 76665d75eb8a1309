// The constants each distribution's converter (src/convert/) needs, resolved
// once per fill from the request and the output type (fill.cc, Resolve*),
// one struct per distribution. A plan holds the one that its kind's
// converter reads (KindParams); the kernels see only their own
// (ParamsOf<P>).
#ifndef RANDTENSOR_SRC_PARAMS_H_
#define RANDTENSOR_SRC_PARAMS_H_

#include <cstdint>
#include <variant>

namespace randtensor {
namespace detail {

// uniform(low, high) (src/convert/uniform-inl.h).
struct UniformParams {
  // float32/16/bf16: L and R = H - L as floats (for float16/bfloat16 values
  // of that type, as PyTorch casts them); H only through the flip interval:
  // the words whose element is H, flipped to L, are
  // [flip_first, flip_first + flip_count) (UniformFlipWords, fill.cc).
  float low_f = 0, range_f = 0;
  uint32_t flip_first = 0, flip_count = 0;
  // float64: L, H, R = H - L.
  double low_d = 0, high_d = 0, range_d = 0;
  // Where L = 0 and R = H = 2^k: t = u32(x) R is one multiply-add of
  // float(x), scale_mul = 2^(k-32), scale_add = 2^(k-33), and the flipped
  // words are [flip_first, 2^32) (fill.cc ResolveUniform). For float64, u53 R
  // with scale_mul_d = 2^(k-53), scale_add_d = 2^(k-54), the flipped words
  // those with z = 2^53 - 1.
  bool unit_scale = false;
  float scale_mul = 0, scale_add = 0;
  double scale_mul_d = 0, scale_add_d = 0;
  // bfloat16: round with AVX512_BF16's pack (CpuHasBfloat16Pack), which
  // treats subnormal floats as zero; set only where no t is subnormal
  // (fill.cc, ResolveUniform), so the bits are the integer rounding's.
  bool bf16_pack = false;
};

// normal(mean, std) (src/convert/normal-inl.h).
struct NormalParams {
  float mean_f = 0, std_f = 1;   // float32/16/bf16: float(mean), float(std)
  double mean_d = 0, std_d = 1;  // float64
};

// bernoulli(p) (src/convert/bernoulli-inl.h).
struct BernoulliParams {
  uint32_t p_words = 0;  // the words x with u32(x) < float(p) are [0, p_words)
  double p_d = 0;        // float64: p
  // The bits of 1 in the output type (1, 1.0f, float16 or bfloat16 1.0):
  // a parameter, so that the kinds of one element size share one kernel.
  uint32_t one = 1;
};

// integers(low, high) (src/convert/integers-inl.h).
struct IntegersParams {
  int64_t low = 0;
  // One word per element: range = high - low (< 2^28) and floor(x / range)
  // by a multiply (SetIntegerRange).
  uint32_t range = 1;
  uint32_t mod_magic = 0;
  int mod_pre = 0, mod_post = 0;
  // Two words per element: high - low.
  uint64_t range64 = 1;
};

// exponential(lambda) (src/convert/exponential-inl.h): lambda rounded to the
// accumulation type (float for float32/16/bf16, double for float64).
struct ExponentialParams {
  double lambda = 1;
};

// cauchy(median, sigma) (src/convert/cauchy-inl.h): both rounded to the
// accumulation type.
struct CauchyParams {
  double median = 0, sigma = 1;
};

// geometric(p) (src/convert/geometric-inl.h): q = 1 - p in the accumulation
// type (float for every output type but float64), p rounded to it first.
// log_normal(mean, std) reads NormalParams.
struct GeometricParams {
  double q = 0.5;
};

// The parameters of one fill: those of its kind's converter (bits has none:
// std::monostate). A new distribution adds its struct here.
using KindParams =
    std::variant<std::monostate, UniformParams, NormalParams, BernoulliParams, IntegersParams,
                 ExponentialParams, CauchyParams, GeometricParams>;

// Converter parameters of type P out of a fill's; the defaults where the
// caller handed another kind's (which the plan never does), so a kernel
// never reads through a null pointer.
template <class P>
const P& ParamsOf(const KindParams& k) {
  static const P kDefaults{};
  const P* p = std::get_if<P>(&k);
  return p != nullptr ? *p : kDefaults;
}
template <>
inline const std::monostate& ParamsOf<std::monostate>(const KindParams&) {
  static const std::monostate kNone{};
  return kNone;
}

// u32(x) in plain C++ (SPEC.md section 8): the product is exact, so one
// rounding whether or not the compiler fuses it.
inline float UnitFloatOfWord(uint64_t x) {
  return static_cast<float>(x) * 0x1p-32f + 0x1p-33f;
}

// bernoulli(p) as a threshold on the word: u32(x) = fma(float(x), 2^-32,
// 2^-33) never decreases as x grows, so the words with u32(x) < p are
// [0, X) for the smallest X with u32(X) >= p (X <= 2^32 - 128: the 128
// largest words give 1.0f, which no p passes). One integer compare per word
// then decides exactly what the float compare would. The compare is made in
// P's type: float for bernoulli, double for float64 dropout (a float u32
// against a double 1 - p).
template <typename P>
inline uint32_t BernoulliWords(P p) {
  const auto u32 = UnitFloatOfWord;
  uint64_t lo = 0, hi = uint64_t{1} << 32;  // u32(hi - 1) = 1.0f >= p
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (static_cast<P>(u32(mid)) < p) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return static_cast<uint32_t>(lo);
}

// integers with one word per element: range r in [1, 2^28) and the
// constants of floor(x / r) for every 32-bit x without a division
// (libdivide's branch-free unsigned division, after Granlund and Montgomery):
// q0 = hi32(x * magic), q = ((x - q0) >> pre) + q0) >> post. With
// L = floor(log2 r): magic = 1 + (2 floor(2^(32+L) / r) + [2 rem >= r])
// mod 2^32, pre 1, post L; a power of two: magic 0, pre 1, post L - 1;
// r = 1: magic 0, pre 0, post 0 (q = x).
inline void SetIntegerRange(IntegersParams* p, uint32_t r) {
  p->range = r;
  p->mod_magic = 0, p->mod_pre = 0, p->mod_post = 0;
  if (r <= 1) return;
  int log2 = 0;
  while ((r >> (log2 + 1)) != 0) ++log2;
  p->mod_pre = 1;
  if ((r & (r - 1)) == 0) {
    p->mod_post = log2 - 1;
    return;
  }
  const uint64_t num = uint64_t{1} << (32 + log2);
  const uint64_t rem = num % r;
  uint64_t m = 2 * (num / r) + (2 * rem >= r ? 1 : 0);
  p->mod_magic = static_cast<uint32_t>(m + 1);
  p->mod_post = log2;
}

}  // namespace detail
}  // namespace randtensor

#endif  // RANDTENSOR_SRC_PARAMS_H_
