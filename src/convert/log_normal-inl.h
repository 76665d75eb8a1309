// log_normal(mean, std) converters (docs/SPEC.md section 8.1): PyTorch CUDA's
// exp of normal(mean, std) in the accumulation type. The normal is
// normal-inl.h's, of the same words in the same pairs (so the same values
// and state as a normal fill), into an L1 buffer; exp (math::ExpD) in
// double lanes, rounded once to float or double (float16 and bfloat16
// through float). Included only through foreach_target.h, hence the toggle
// guard.

#if defined(RANDTENSOR_SRC_CONVERT_LOG_NORMAL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_CONVERT_LOG_NORMAL_INL_H_
#undef RANDTENSOR_SRC_CONVERT_LOG_NORMAL_INL_H_
#else
#define RANDTENSOR_SRC_CONVERT_LOG_NORMAL_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"
#include "src/convert/common-inl.h"
#include "src/convert/normal-inl.h"
#include "src/math-inl.h"
#include "src/params.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {
namespace convert {

// exp of float lanes, rounded once to float. Out of line: one copy per
// target shared by the three float types.
inline HWY_NOINLINE VF ExpOfFloats(VF x) {
  return math::InDoubleLanes(DF(), x, [](auto dd, auto xd) { return math::ExpD(dd, xd); });
}

// float32 (T float), float16 (T uint16_t) or bfloat16 (kBfloat16): the float
// normal's pairs, then exp.
template <typename T, bool kBfloat16 = false>
struct LogNormalFloats : ConverterDefaults {
  using Normal = NormalFloat32;
  using Type = T;
  using Params = detail::NormalParams;
  static constexpr int kWords = 1;
  static constexpr size_t kGroup = Normal::kGroup;
  static constexpr bool kPairs = true;
  static constexpr bool kAfterGroup = true;

  template <class F>
  static HWY_INLINE void WithConstants(const Params& p, const F& f) {
    Normal::WithConstants(p, f);
  }

#if HWY_TARGET != HWY_SCALAR
  template <class K, class Out, class... W>
  static HWY_INLINE void Vectors(const K& k, Out out, bool nontemporal, W... w) {
    constexpr size_t kVectors = sizeof...(W);
    if constexpr (kVectors != 0) {
      const DF df;
      const size_t N = hn::Lanes(df);
      HWY_ALIGN float x[kVectors * hn::MaxLanes(DF())];
      Normal::Vectors(k, x, false, w...);
      for (size_t i = 0; i < kVectors; ++i) {
        StoreFloats<T, kBfloat16>(ExpOfFloats(hn::Load(df, x + i * N)), out + i * N,
                                  nontemporal);
      }
    }
  }
#endif

  // One pair = words[0, 2) to out[0, 2) (the scalar target: one lane).
  template <class K>
  static HWY_INLINE void Scalar(const K& k, const uint32_t* words, T* out) {
    float x[2];
    Normal::Scalar(k, words, x);
    for (int i = 0; i < 2; ++i) {
      StoreFloats<T, kBfloat16>(ExpOfFloats(hn::Set(DF(), x[i])), out + i, false);
    }
  }
};
using LogNormalFloat32 = LogNormalFloats<float>;
using LogNormalFloat16 = LogNormalFloats<uint16_t>;
using LogNormalBfloat16 = LogNormalFloats<uint16_t, true>;

// float64: the float64 normal's pairs (four words), then exp.
struct LogNormalFloat64 : ConverterDefaults {
  using Normal = NormalFloat64;
  using Type = double;
  using Params = detail::NormalParams;
  static constexpr int kWords = 2;
  static constexpr size_t kGroup = Normal::kGroup;
  static constexpr bool kPairs = true;
  static constexpr bool kAfterGroup = true;

#if HWY_TARGET != HWY_SCALAR
  template <class Out, class... W>
  static HWY_INLINE void Vectors(const Params& p, Out out, bool nontemporal, W... w) {
    constexpr size_t kVectors = sizeof...(W);
    if constexpr (kVectors != 0) {
      const DD dd;
      const size_t N64 = hn::Lanes(dd);
      HWY_ALIGN double x[kVectors * hn::MaxLanes(DD())];
      Normal::Vectors(p, x, false, w...);
      for (size_t i = 0; i < kVectors; ++i) {
        Put(dd, math::ExpD(dd, hn::Load(dd, x + i * N64)), out + i * N64, nontemporal);
      }
    }
  }
#endif

  // One pair = words[0, 4) to out[0, 2).
  static HWY_INLINE void Scalar(const Params& p, const uint32_t* words, double* out) {
    const hn::Simd<double, 1, 0> d1;
    Normal::Scalar(p, words, out);
    for (int i = 0; i < 2; ++i) out[i] = hn::GetLane(math::ExpD(d1, hn::Set(d1, out[i])));
  }
};

}  // namespace convert
}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_CONVERT_LOG_NORMAL_INL_H_ toggle guard
