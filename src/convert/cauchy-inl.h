// cauchy(median, sigma) converters (docs/SPEC.md section 8.1): PyTorch CUDA's
// median + sigma tan(pi (u - 1/2)) of cuRAND's u. float32, float16 and
// bfloat16 from one word per element: u = u32 clipped to [2^-23, 1 - 2^-23]
// (torch 2.1 and later, float only), t = u - 1/2 and a = PI_F t in float
// (IEEE steps, exact on every target); float64 from two words: u53, t and a
// in double, no clip (unit_transform-inl.h). tan (math::TanD) and the fma
// with sigma and median in double lanes. Included only through
// foreach_target.h, hence the toggle guard.

#if defined(RANDTENSOR_SRC_CONVERT_CAUCHY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_CONVERT_CAUCHY_INL_H_
#undef RANDTENSOR_SRC_CONVERT_CAUCHY_INL_H_
#else
#define RANDTENSOR_SRC_CONVERT_CAUCHY_INL_H_
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

struct Cauchy : UnitTransformDefaults {
  using Params = detail::CauchyParams;
  // The float angle a = float(pi) (clip(u) - 1/2), each step rounded to float.
  static HWY_INLINE VF Angle(VF u, const Params&) {
    const DF df;
    const VF clipped =
        hn::Min(hn::Max(u, hn::Set(df, 0x1p-23f)), hn::Set(df, 1.0f - 0x1p-23f));
    return hn::Mul(hn::Set(df, 3.14159274101257324f), hn::Sub(clipped, hn::Set(df, 0.5f)));
  }
  // median + sigma tan(a); for float64 a = double(pi) (u - 1/2) first.
  template <class D, class V>
  static HWY_INLINE V Of(D dd, V x, const Params& p, bool wide) {
    const V a = wide ? hn::Mul(hn::Set(dd, 3.141592653589793), hn::Sub(x, hn::Set(dd, 0.5))) : x;
    return math::FmaD(dd, hn::Set(dd, p.sigma), math::TanD(dd, a), hn::Set(dd, p.median));
  }
};
using CauchyFloat32 = UnitFloats<Cauchy, float>;
using CauchyFloat16 = UnitFloats<Cauchy, uint16_t>;
using CauchyBfloat16 = UnitFloats<Cauchy, uint16_t, true>;
using CauchyFloat64 = UnitFloat64<Cauchy>;

}  // namespace convert
}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_CONVERT_CAUCHY_INL_H_ toggle guard
