// exponential(lambda) converters (docs/SPEC.md section 8.1): PyTorch CUDA's
// -log(u) / lambda of cuRAND's u, with its rule for u near 1 (log u taken as
// -eps/2 of the accumulation type where u >= 1 - eps/2, so that no element
// is 0). float32, float16 and bfloat16 from one word per element (u32,
// lambda a float), float64 from two (u53): unit_transform-inl.h. The log
// (math::LogCompensated: within 1.47 2^-53 of log u) and the division in
// double lanes. Included only through foreach_target.h, hence the toggle
// guard.

#if defined(RANDTENSOR_SRC_CONVERT_EXPONENTIAL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_CONVERT_EXPONENTIAL_INL_H_
#undef RANDTENSOR_SRC_CONVERT_EXPONENTIAL_INL_H_
#else
#define RANDTENSOR_SRC_CONVERT_EXPONENTIAL_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"
#include "src/convert/unit_transform-inl.h"
#include "src/math-inl.h"
#include "src/params.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {
namespace convert {

struct Exponential : UnitTransformDefaults {
  using Params = detail::ExponentialParams;
  // -g / lambda, g = log(u), or -eps/2 where u >= 1 - eps/2 (eps/2 = 2^-24
  // for a float u, 2^-53 for a double one).
  template <class D, class V>
  static HWY_INLINE V Of(D dd, V u, const Params& p, bool wide) {
    const double half_eps = wide ? 0x1p-53 : 0x1p-24;
    const V g = hn::IfThenElse(hn::Ge(u, hn::Set(dd, 1.0 - half_eps)), hn::Set(dd, -half_eps),
                               math::LogCompensated(dd, u));
    return hn::Div(hn::Neg(g), hn::Set(dd, p.lambda));
  }
};
using ExponentialFloat32 = UnitFloats<Exponential, float>;
using ExponentialFloat16 = UnitFloats<Exponential, uint16_t>;
using ExponentialBfloat16 = UnitFloats<Exponential, uint16_t, true>;
using ExponentialFloat64 = UnitFloat64<Exponential>;

}  // namespace convert
}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_CONVERT_EXPONENTIAL_INL_H_ toggle guard
