// bits: the stream words themselves (uint32), the identity converter.
// Included only through foreach_target.h, hence the toggle guard.

#if defined(RANDTENSOR_SRC_CONVERT_BITS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_CONVERT_BITS_INL_H_
#undef RANDTENSOR_SRC_CONVERT_BITS_INL_H_
#else
#define RANDTENSOR_SRC_CONVERT_BITS_INL_H_
#endif

#include <cstdint>
#include <variant>

#include "hwy/highway.h"
#include "src/convert/common-inl.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {
namespace convert {

struct Bits : ConverterDefaults {
  using Type = uint32_t;
  using Params = std::monostate;  // none
  static constexpr int kWords = 1;
  static constexpr size_t kGroup = 1;

  template <class Out, class... W>
  static HWY_INLINE void Vectors(const Params&, Out out, bool nontemporal, W... w) {
    const DW dw;
    const size_t N = hn::Lanes(dw);
    ForEachVector([&](size_t g, VW x) __attribute__((always_inline)) {
      Put(dw, x, out + g * N, nontemporal);
    }, w...);
  }
};

}  // namespace convert
}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_CONVERT_BITS_INL_H_ toggle guard
