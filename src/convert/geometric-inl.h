// geometric(p) converters (docs/SPEC.md section 8.1): PyTorch CUDA's
// ceil(log(u) / log(q)), q = 1 - p in the accumulation type, of cuRAND's u.
// float32, float16, bfloat16, uint8, int32 and int64 from one word per
// element (u32, q a float: PyTorch's accumulation type for the integer types
// is float too, and its transform returns the float integer), float64 from
// two (u53): unit_transform-inl.h. log u (math::LogCompensated), the
// quotient and the ceiling in double lanes; log q once per call. Included
// only through foreach_target.h, hence the toggle guard.

#if defined(RANDTENSOR_SRC_CONVERT_GEOMETRIC_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_CONVERT_GEOMETRIC_INL_H_
#undef RANDTENSOR_SRC_CONVERT_GEOMETRIC_INL_H_
#else
#define RANDTENSOR_SRC_CONVERT_GEOMETRIC_INL_H_
#endif

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "hwy/highway.h"
#include "src/convert/unit_transform-inl.h"
#include "src/math-inl.h"
#include "src/params.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {
namespace convert {

// What the geometric converters read: log q, made once per call by the
// same LogCompensated as log u (one lane), so every target has its bits;
// -inf where q = 0 (p rounds to 1: every value a zero, as IEEE's log u /
// -inf; fill.cc refuses q = 1).
struct GeometricConstants {
  double log_q;
};

struct Geometric : UnitTransformDefaults {
  using Params = detail::GeometricParams;
  template <class G>
  static HWY_INLINE void WithConstants(const Params& p, const G& g) {
    const hn::Simd<double, 1, 0> d1;
    const double log_q = p.q > 0 ? hn::GetLane(math::LogCompensated(d1, hn::Set(d1, p.q)))
                                 : -HUGE_VAL;
    g(GeometricConstants{log_q});
  }
  // ceil(log u / log q); u = 1 gives -0 (+0 over log q < 0).
  template <class D, class V>
  static HWY_INLINE V Of(D dd, V u, const GeometricConstants& k, bool) {
    return hn::Ceil(hn::Div(math::LogCompensated(dd, u), hn::Set(dd, k.log_q)));
  }
};
using GeometricFloat32 = UnitFloats<Geometric, float>;
using GeometricFloat16 = UnitFloats<Geometric, uint16_t>;
using GeometricBfloat16 = UnitFloats<Geometric, uint16_t, true>;
using GeometricFloat64 = UnitFloat64<Geometric>;

// uint8, int32, int64: GeometricFloat32's float integers, converted exactly
// (fill.cc refuses a p whose largest value, from u = 2^-33, does not fit T).
template <typename T>
struct GeometricIntegers : UnitFloats<Geometric, float> {
  using Type = T;

  template <class Out, class... W>
  static HWY_INLINE void Vectors(const GeometricConstants& k, Out out, bool nontemporal, W... w) {
    const DF df;
    const DI di;
    const size_t N = hn::Lanes(df);
    ForEachVector(
        [&](size_t i, VW x) __attribute__((always_inline)) {
          const VF c = Values(x, k);
          if constexpr (std::is_same<T, int64_t>::value) {
#if HWY_TARGET == HWY_SCALAR
            out[i] = static_cast<int64_t>(hn::GetLane(c));
            (void)nontemporal;
            (void)N;
#else
            const hn::Half<DF> dh;
            const hn::Rebind<double, decltype(dh)> dd;
            const hn::Rebind<int64_t, decltype(dd)> di64;
            Put(di64, hn::ConvertTo(di64, hn::PromoteTo(dd, hn::LowerHalf(dh, c))), out + i * N,
                nontemporal);
            Put(di64, hn::ConvertTo(di64, hn::PromoteTo(dd, hn::UpperHalf(dh, c))),
                out + i * N + hn::Lanes(dd), nontemporal);
#endif
          } else if constexpr (std::is_same<T, int32_t>::value) {
            Put(di, hn::ConvertTo(di, c), out + i * N, nontemporal);
          } else {
            static_assert(std::is_same<T, uint8_t>::value, "uint8, int32 or int64");
            Store8(hn::BitCast(DW(), hn::ConvertTo(di, c)), out + i * N, nontemporal);
          }
        },
        w...);
  }
};
using GeometricUint8 = GeometricIntegers<uint8_t>;
using GeometricInt32 = GeometricIntegers<int32_t>;
using GeometricInt64 = GeometricIntegers<int64_t>;

}  // namespace convert
}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_CONVERT_GEOMETRIC_INL_H_ toggle guard
