// integers(low, high) converters (SPEC.md section 8): low + (x mod r) from
// one word per element while r = high - low < 2^28, low + (((a << 32) | b)
// mod r) from two beyond; int32, int64, float32, float64 (values the type
// holds exactly: fill.cc checks). Included only through foreach_target.h,
// hence the toggle guard.

#if defined(RANDTENSOR_SRC_CONVERT_INTEGERS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_CONVERT_INTEGERS_INL_H_
#undef RANDTENSOR_SRC_CONVERT_INTEGERS_INL_H_
#else
#define RANDTENSOR_SRC_CONVERT_INTEGERS_INL_H_
#endif

#include <cstdint>
#include <type_traits>

#include "hwy/highway.h"
#include "src/capabilities-inl.h"
#include "src/convert/common-inl.h"
#include "src/params.h"
#include "src/philox-inl.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {
namespace convert {

#if HWY_TARGET != HWY_SCALAR
// x mod r for every word x, r = p.range < 2^28: q = floor(x / r) by the
// multiply of SetIntegerRange (params.h), exact for every 32-bit x, then
// x - q r (exact: q r <= x). About 10 operations per vector, where
// floor(x * (1 / r)) in double lanes took about 24.
HWY_INLINE VW ModRange(const detail::IntegersParams& p, VW w) {
  const DW dw;
#if RANDTENSOR_NARROW_LANES
  VW q0, lo;
  Multiply(w, p.mod_magic, &q0, &lo);  // narrow lanes' 32x32 -> 64 (philox-inl.h)
#else
  const DU64 du;
  const VW magic = hn::Set(dw, p.mod_magic);
  const VU64 even = hn::MulEven(w, magic);
  const VU64 odd = hn::MulEven(hn::BitCast(dw, hn::ShiftRight<32>(hn::BitCast(du, w))), magic);
  const VW q0 = hn::BitCast(
      dw, hn::Or(hn::ShiftRight<32>(even), hn::And(odd, hn::Set(du, 0xFFFFFFFF00000000ull))));
#endif
  const VW t = hn::Add(hn::ShiftRightSame(hn::Sub(w, q0), p.mod_pre), q0);
  const VW q = hn::ShiftRightSame(t, p.mod_post);
  return hn::Sub(w, hn::Mul(q, hn::Set(dw, p.range)));
}

// x mod r for 64-bit x in every 64-bit lane, r = p.range64 in [2^28, 2^64):
// q = floor(x * (1 / r)) in double is within one of floor(x / r) (relative
// error about 2^-51 on x / r < 2^36); q - 1 (at least 0) is then at most the
// true quotient and at most two below it, so m = x - (q - 1) r, computed
// modulo 2^64 with 32-bit partial products, is exact (0 <= m <= x < 2^64)
// and below 3r: two conditional subtractions finish it.
HWY_INLINE VU64 ModRange64(const detail::IntegersParams& p, VU64 x) {
  const DU64 du;
  const DD dd;
  const DW d32;
  const uint64_t r = p.range64;
  const VD xd = hn::Add(hn::Mul(math::DoubleOfSmall(dd, hn::ShiftRight<32>(x)), hn::Set(dd, 0x1p32)),
                        math::DoubleOfSmall(dd, Low32(x)));
  const VD qd = hn::Floor(hn::Mul(xd, hn::Set(dd, 1.0 / static_cast<double>(r))));  // < 2^37
  VU64 q = hn::And(hn::BitCast(du, hn::Add(qd, hn::Set(dd, 0x1p52))), hn::Set(du, 0xFFFFFFFFFFFFFull));
  q = hn::Sub(q, hn::IfThenElseZero(hn::Ne(q, hn::Zero(du)), hn::Set(du, 1)));
  const auto mul = [&](VU64 a, VU64 b) {  // products of the low 32 bits
    return hn::MulEven(hn::BitCast(d32, a), hn::BitCast(d32, b));
  };
  const VU64 rl = hn::Set(du, r & 0xFFFFFFFFu), rh = hn::Set(du, r >> 32);
  const VU64 ql = Low32(q), qh = hn::ShiftRight<32>(q);
  const VU64 qr = hn::Add(mul(ql, rl), hn::ShiftLeft<32>(hn::Add(mul(ql, rh), mul(qh, rl))));
  VU64 m = hn::Sub(x, qr);
  const VU64 rv = hn::Set(du, r);
  m = hn::IfThenElse(hn::Lt(m, rv), m, hn::Sub(m, rv));
  return hn::IfThenElse(hn::Lt(m, rv), m, hn::Sub(m, rv));
}
#endif

// One word per element (r < 2^28): low + (x mod r), exact in T.
template <typename T>
struct IntegersOneWord : ConverterDefaults {
  using Type = T;
  using Params = detail::IntegersParams;
  static constexpr int kWords = 1;
  static constexpr size_t kGroup = 1;

  template <class Out, class... W>
  static HWY_INLINE void Vectors(const Params& p, Out out, bool nontemporal, W... w) {
    const size_t N = hn::Lanes(DW());
    ForEachVector(
        [&](size_t g, VW x) __attribute__((always_inline)) { One(p, x, out + g * N, nontemporal); },
        w...);
  }

  template <class Out>
  static HWY_INLINE void One(const Params& p, VW w, Out out, bool nontemporal) {
#if HWY_TARGET == HWY_SCALAR
    (void)nontemporal;
    out[0] = static_cast<T>(p.low + static_cast<int64_t>(hn::GetLane(w) % p.range));
#else
    const DW dw;
    const VW m = ModRange(p, w);
    const VW low32 = hn::Set(dw, static_cast<uint32_t>(p.low));
    if constexpr (std::is_same<T, int32_t>::value) {
      Put(dw, hn::Add(m, low32), As<uint32_t>(out), nontemporal);  // two's complement
    } else if constexpr (std::is_same<T, float>::value) {
      Put(DF(), hn::ConvertTo(DF(), hn::BitCast(DI(), hn::Add(m, low32))), out, nontemporal);
    } else {
      const DU64 du;
      const DD dd;
      const hn::Half<DW> dh;
      const size_t half = hn::Lanes(du);
      const VU64 lo = hn::PromoteTo(du, hn::LowerHalf(dh, m));
      const VU64 hi = hn::PromoteTo(du, hn::UpperHalf(dh, m));
      if constexpr (std::is_same<T, int64_t>::value) {
        const VU64 low = hn::Set(du, static_cast<uint64_t>(p.low));  // wraps: two's complement
        Put(du, hn::Add(lo, low), As<uint64_t>(out), nontemporal);
        Put(du, hn::Add(hi, low), As<uint64_t>(out) + half, nontemporal);
      } else {
        const VD low = hn::Set(dd, static_cast<double>(p.low));  // |low + m| <= 2^53: exact
        Put(dd, hn::Add(math::DoubleOfSmall(dd, lo), low), out, nontemporal);
        Put(dd, hn::Add(math::DoubleOfSmall(dd, hi), low), out + half, nontemporal);
      }
    }
#endif
  }
};
using IntegersInt32 = IntegersOneWord<int32_t>;
using IntegersInt64 = IntegersOneWord<int64_t>;
using IntegersFloat32 = IntegersOneWord<float>;
using IntegersFloat64 = IntegersOneWord<double>;

// Two words per element (r >= 2^28): low + (((a << 32) | b) mod r); low + m
// is within the output type (checked), and wrap-around of the unsigned sum
// is the two's complement value.
template <typename T>
struct IntegersTwoWords : ConverterDefaults {
  using Type = T;
  using Params = detail::IntegersParams;
  static constexpr int kWords = 2;
  static constexpr size_t kGroup = 1;

#if HWY_TARGET != HWY_SCALAR
  template <class Out, class... W>
  static HWY_INLINE void Vectors(const Params& p, Out out, bool nontemporal, W... w) {
    const DU64 du;
    const size_t N64 = hn::Lanes(du);
    ForEachVector(
        [&](size_t g, VW x) __attribute__((always_inline)) {
          const VU64 l = hn::BitCast(du, x);  // word 2i low, 2i + 1 high
          const VU64 ab = hn::Or(hn::ShiftLeft<32>(l), hn::ShiftRight<32>(l));  // (a << 32) | b
          const VU64 v = hn::Add(ModRange64(p, ab), hn::Set(du, static_cast<uint64_t>(p.low)));
          if constexpr (std::is_same<T, int64_t>::value) {
            Put(du, v, As<uint64_t>(out + g * N64), nontemporal);
          } else if constexpr (!std::is_pointer<Out>::value) {
            // Into rows that it crosses (masked stores): the narrowed lanes
            // as one vector of T.
            HWY_ALIGN uint64_t lanes[hn::MaxLanes(du)];
            hn::Store(v, du, lanes);
            const hn::Rebind<T, DU64> dt;
            HWY_ALIGN T values[hn::MaxLanes(du)];
            for (size_t i = 0; i < N64; ++i) values[i] = static_cast<T>(static_cast<int64_t>(lanes[i]));
            Put(dt, hn::Load(dt, values), out + g * N64, nontemporal);
          } else {
            HWY_ALIGN uint64_t lanes[hn::MaxLanes(du)];
            hn::Store(v, du, lanes);
            for (size_t i = 0; i < N64; ++i) {
              out[g * N64 + i] = static_cast<T>(static_cast<int64_t>(lanes[i]));
            }
          }
        },
        w...);
  }
#endif

  static HWY_INLINE void Scalar(const Params& p, const uint32_t* words, T* out) {
    const uint64_t x = (uint64_t{words[0]} << 32) | words[1];
    out[0] = static_cast<T>(static_cast<int64_t>(static_cast<uint64_t>(p.low) + x % p.range64));
  }
};
using IntegersWideInt32 = IntegersTwoWords<int32_t>;
using IntegersWideInt64 = IntegersTwoWords<int64_t>;
using IntegersWideFloat64 = IntegersTwoWords<double>;

}  // namespace convert
}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_CONVERT_INTEGERS_INL_H_ toggle guard
