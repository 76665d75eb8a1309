// bernoulli(p) converters (SPEC.md section 8): 1 if u32(x) < float(p) else
// 0, in uint8, int32, float32, float16, bfloat16 from one word per element,
// and u53 < p in float64 from two. The kinds of one element size share a
// converter: the bits of 1 are a parameter (BernoulliParams::one).
// Included only through foreach_target.h, hence the toggle guard.

#if defined(RANDTENSOR_SRC_CONVERT_BERNOULLI_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_CONVERT_BERNOULLI_INL_H_
#undef RANDTENSOR_SRC_CONVERT_BERNOULLI_INL_H_
#else
#define RANDTENSOR_SRC_CONVERT_BERNOULLI_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"
#include "src/convert/common-inl.h"
#include "src/params.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {
namespace convert {

// One word per element: the element is p.one (the bits of 1 in the output
// type, of T's size) where x < p_words (the same as u32(x) < float(p):
// BernoulliWords, params.h), else 0.
template <typename T>
struct BernoulliWordwise : ConverterDefaults {
  using Type = T;
  using Params = detail::BernoulliParams;
  static constexpr int kWords = 1;
  static constexpr size_t kGroup = 1;

  template <class Out, class... W>
  static HWY_INLINE void Vectors(const Params& p, Out out, bool nontemporal, W... w) {
    const DW dw;
    const size_t N = hn::Lanes(dw);
    ForEachVector(
        [&](size_t g, VW x) __attribute__((always_inline)) {
          const auto to = out + g * N;
          if constexpr (sizeof(T) == 1) {
#if RANDTENSOR_AVX512
            // The compare's mask picks bytes of 1 directly (a zero-masked
            // byte move): no select on words and no narrowing of them.
            const __mmask16 hit = _mm512_cmplt_epu32_mask(x.raw, hn::Set(dw, p.p_words).raw);
            const hn::Rebind<uint8_t, DW> d8;
            Put(d8, hn::Vec<decltype(d8)>{_mm_maskz_mov_epi8(hit, _mm_set1_epi8(1))}, to,
                nontemporal);
#else
            Store8(Bits(p, x), to, nontemporal);
#endif
          } else if constexpr (sizeof(T) == 2) {
            Store16(Bits(p, x), to, nontemporal);
          } else {
            Put(dw, Bits(p, x), to, nontemporal);
          }
        },
        w...);
  }

  static HWY_INLINE VW Bits(const Params& p, VW w) {
    const DW dw;
    return hn::IfThenElseZero(hn::Lt(w, hn::Set(dw, p.p_words)), hn::Set(dw, p.one));
  }
};
using BernoulliUint8 = BernoulliWordwise<uint8_t>;     // one = 1
using Bernoulli32 = BernoulliWordwise<uint32_t>;       // int32, float32
using Bernoulli16 = BernoulliWordwise<uint16_t>;       // float16, bfloat16

// float64: 1.0 where u53(a, b) < p.
struct BernoulliFloat64 : ConverterDefaults {
  using Type = double;
  using Params = detail::BernoulliParams;
  static constexpr int kWords = 2;
  static constexpr size_t kGroup = 1;

#if HWY_TARGET != HWY_SCALAR
  template <class Out, class... W>
  static HWY_INLINE void Vectors(const Params& p, Out out, bool nontemporal, W... w) {
    const DD dd;
    const DU64 du;
    const size_t N64 = hn::Lanes(dd);
    ForEachVector(
        [&](size_t g, VW x) __attribute__((always_inline)) {
          const auto hit = hn::Lt(UnitDouble(hn::BitCast(du, x), 0x1p-53), hn::Set(dd, p.p_d));
          Put(dd, hn::IfThenElseZero(hit, hn::Set(dd, 1.0)), out + g * N64, nontemporal);
        },
        w...);
  }
#endif

  static HWY_INLINE void Scalar(const Params& p, const uint32_t* words, double* out) {
    out[0] = UnitDoubleScalar(words[0], words[1], 0x1p-53) < p.p_d ? 1.0 : 0.0;
  }
};

}  // namespace convert
}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_CONVERT_BERNOULLI_INL_H_ toggle guard
