// The element-wise shape of PyTorch's transforms of cuRAND's u (docs/SPEC.md
// section 8.1: exponential, Cauchy, geometric): a function of u in double
// lanes, of u = u32 of one word (float32, float16, bfloat16: the result
// rounded once to float, then to the type) or of u = u53 of two (float64).
// Each distribution's file gives the function as a struct F:
//   using Params = detail::XParams;
//   template <class P, class G> static void WithConstants(const P&, const G&)
//       (optional through UnitTransformDefaults: the parameters themselves)
//   static VF Angle(VF u, const K& k)  float-lane steps before the doubles
//       (optional: u itself)
//   template <class D, class V> static V Of(D dd, V x, const K& k, bool wide)
//       x = Angle(u) in double lanes (wide: u53, float64), the value as a
//       double.
// Included only through foreach_target.h, hence the toggle guard.

#if defined(RANDTENSOR_SRC_CONVERT_UNIT_TRANSFORM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_CONVERT_UNIT_TRANSFORM_INL_H_
#undef RANDTENSOR_SRC_CONVERT_UNIT_TRANSFORM_INL_H_
#else
#define RANDTENSOR_SRC_CONVERT_UNIT_TRANSFORM_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"
#include "src/convert/common-inl.h"
#include "src/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {
namespace convert {

struct UnitTransformDefaults {
  template <class P, class G>
  static HWY_INLINE void WithConstants(const P& p, const G& g) {
    g(p);
  }
  template <class K>
  static HWY_INLINE VF Angle(VF u, const K&) {
    return u;
  }
};

// float32 (T float), float16 (T uint16_t) or bfloat16 (kBfloat16): one word
// per element.
template <class F, typename T, bool kBfloat16 = false>
struct UnitFloats : ConverterDefaults {
  using Type = T;
  using Params = typename F::Params;
  static constexpr int kWords = 1;
  static constexpr size_t kGroup = 1;
  static constexpr bool kAfterGroup = true;  // log, tan: long polynomials

  template <class G>
  static HWY_INLINE void WithConstants(const Params& p, const G& g) {
    F::WithConstants(p, g);
  }

  // The function of every word's u32 as floats.
  template <class K>
  static HWY_INLINE VF Values(VW x, const K& k) {
    return math::InDoubleLanes(DF(), F::Angle(UnitFloat(x), k),
                               [&](auto dd, auto v) { return F::Of(dd, v, k, false); });
  }

  template <class K, class Out, class... W>
  static HWY_INLINE void Vectors(const K& k, Out out, bool nontemporal, W... w) {
    const size_t N = hn::Lanes(DF());
    ForEachVector(
        [&](size_t i, VW x) __attribute__((always_inline)) {
          StoreFloats<T, kBfloat16>(Values(x, k), out + i * N, nontemporal);
        },
        w...);
  }
};

// float64: u = u53(a, b) of each word pair.
template <class F>
struct UnitFloat64 : ConverterDefaults {
  using Type = double;
  using Params = typename F::Params;
  static constexpr int kWords = 2;
  static constexpr size_t kGroup = 1;
  static constexpr bool kAfterGroup = true;

  template <class G>
  static HWY_INLINE void WithConstants(const Params& p, const G& g) {
    F::WithConstants(p, g);
  }

#if HWY_TARGET != HWY_SCALAR
  template <class K, class Out, class... W>
  static HWY_INLINE void Vectors(const K& k, Out out, bool nontemporal, W... w) {
    const DD dd;
    const DU64 du;
    const size_t N64 = hn::Lanes(dd);
    ForEachVector(
        [&](size_t i, VW x) __attribute__((always_inline)) {
          const VD u = UnitDouble(hn::BitCast(du, x), 0x1p-53);
          Put(dd, F::Of(dd, u, k, true), out + i * N64, nontemporal);
        },
        w...);
  }
#endif
  template <class K>
  static HWY_INLINE void Scalar(const K& k, const uint32_t* words, double* out) {
    const hn::Simd<double, 1, 0> d1;
    const auto u = hn::Set(d1, UnitDoubleScalar(words[0], words[1], 0x1p-53));
    out[0] = hn::GetLane(F::Of(d1, u, k, true));
  }
};

}  // namespace convert
}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_CONVERT_UNIT_TRANSFORM_INL_H_ toggle guard
