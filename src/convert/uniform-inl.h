// uniform(low, high) converters (SPEC.md section 8): float32, float16,
// bfloat16 from one word per element, float64 from two. Included only
// through foreach_target.h, hence the toggle guard.

#if defined(RANDTENSOR_SRC_CONVERT_UNIFORM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_CONVERT_UNIFORM_INL_H_
#undef RANDTENSOR_SRC_CONVERT_UNIFORM_INL_H_
#else
#define RANDTENSOR_SRC_CONVERT_UNIFORM_INL_H_
#endif

#include <cmath>
#include <cstdint>

#include "hwy/highway.h"
#include "src/convert/common-inl.h"
#include "src/philox-inl.h"
#include "src/pack_bfloat16-inl.h"
#include "src/params.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {
namespace convert {

// t = fma(u32(x), R, L) in float; t == H flips to L (PyTorch's (0, 1] ->
// [0, 1)). For float16/bfloat16, PyTorch casts the bounds to the output type
// first (L, H and R are values of that type, R = half(H - L)), rounds t once
// to the type and compares there (tests/reference/README.md).
// Here the flip is decided on the word, before the fma: the element is L
// where the word is in the flip interval (UniformParams: the words whose
// element is H), so nothing compares after the rounding; L is a value of
// the type, so it rounds to itself. On AVX-512 the flip is the fma's mask
// (vfmadd with a mask keeps the addend L), off the fma's path: the words'
// test runs beside the conversion.
HWY_INLINE VF UniformFloat(const detail::UniformParams& p, VW w) {
  const DF df;
  const DW dw;
  if (p.unit_scale) {  // uniform(0, 2^k): t = u32(x) 2^k in one multiply-add (params.h)
    const VF mul = hn::Set(df, p.scale_mul), add = hn::Set(df, p.scale_add);
#if RANDTENSOR_AVX512
    const __mmask16 keep = _mm512_cmplt_epu32_mask(w.raw, hn::Set(dw, p.flip_first).raw);
    return VF{_mm512_maskz_fmadd_ps(keep, FloatOfWord(w).raw, mul.raw, add.raw)};  // L = 0
#else
    const auto keep = hn::RebindMask(df, hn::Lt(w, hn::Set(dw, p.flip_first)));
    return hn::IfThenElseZero(keep, math::MulAddExactProduct(FloatOfWord(w), mul, add));
#endif
  }
  const VF u = UnitFloat(w);
  const VF range = hn::Set(df, p.range_f), low = hn::Set(df, p.low_f);
  const VW from_first = hn::Sub(w, hn::Set(dw, p.flip_first));
#if RANDTENSOR_AVX512
  const __mmask16 keep = _mm512_cmpge_epu32_mask(from_first.raw, hn::Set(dw, p.flip_count).raw);
  return VF{_mm512_mask3_fmadd_ps(u.raw, range.raw, low.raw, keep)};
#else
  const auto flip = hn::RebindMask(df, hn::Lt(from_first, hn::Set(dw, p.flip_count)));
  return hn::IfThenElse(flip, low, FmaExact(u, range, low));
#endif
}

// float32 (T float), float16 (T uint16_t) or bfloat16 (kBfloat16): one word
// per element. kPack: bfloat16 through AVX512_BF16's pack, the Variant the
// driver takes where the fill's parameters allow it (bf16_pack).
template <typename T, bool kBfloat16 = false, bool kPack = false>
struct UniformFloats : ConverterDefaults {
  using Type = T;
  using Params = detail::UniformParams;
  static constexpr int kWords = 1;
#if RANDTENSOR_AVX512
  // bfloat16 two vectors at a time: one permute (or pack) takes both
  // vectors' halves.
  static constexpr size_t kGroup = kBfloat16 ? 2 : 1;
  using Variant =
      std::conditional_t<kBfloat16 && !kPack, UniformFloats<T, kBfloat16, true>, void>;
  static bool UseVariant(const Params& p) { return p.bf16_pack; }
#else
  static constexpr size_t kGroup = 1;
#endif

  template <class Out, class... W>
  static HWY_INLINE void Vectors(const Params& p, Out out, bool nontemporal, W... w) {
    const size_t N = hn::Lanes(DW());
#if RANDTENSOR_AVX512
    if constexpr (kBfloat16 && sizeof...(W) % 2 == 0) {
      // AVX512_BF16's pack where the parameters allow it; else each word
      // rounded in place (its high half is the bfloat16), then one two-table
      // word permute takes the high halves of both: no shifts, and no
      // narrowing of each vector on its own.
      const hn::ScalableTag<uint16_t> d16;
      const __m512i high_halves = _mm512_set_epi16(
          63, 61, 59, 57, 55, 53, 51, 49, 47, 45, 43, 41, 39, 37, 35, 33,
          31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
      ForEachVectorPair(
          [&](size_t i, VW w0, VW w1) __attribute__((always_inline)) {
            const auto to = out + 2 * i * N;
            if constexpr (kPack) {
              Put(d16, PackBfloat16(UniformFloat(p, w0), UniformFloat(p, w1)), to, nontemporal);
            } else {
              const VW a = Bfloat16Rounded(UniformFloat(p, w0));
              const VW b = Bfloat16Rounded(UniformFloat(p, w1));
              Put(d16, hn::Vec<decltype(d16)>{_mm512_permutex2var_epi16(a.raw, high_halves, b.raw)},
                  to, nontemporal);
            }
          },
          0, w...);
      return;
    }
#endif
    ForEachVector(
        [&](size_t g, VW x) __attribute__((always_inline)) {
          StoreFloats<T, kBfloat16>(UniformFloat(p, x), out + g * N, nontemporal);
        },
        w...);
  }
};
using UniformFloat32 = UniformFloats<float>;
using UniformFloat16 = UniformFloats<uint16_t>;
using UniformBfloat16 = UniformFloats<uint16_t, true>;

#if HWY_TARGET != HWY_SCALAR
// float64 of z53 values z (SPEC.md section 8): t = fma(u53, R, L), t = H
// flipped to L. uniform(0, 2^k): t = u53 2^k in one multiply-add of
// float(z), and t = H exactly where u53 = 1, i.e. z = 2^53 - 1 (z 2^-53 +
// 2^-54 is then the midpoint 1 - 2^-54, which rounds to even, 1): L = 0
// there.
template <class Out>
HWY_INLINE void UniformDoubleOfZ(const detail::UniformParams& p, VU64 z, Out out,
                                 bool nontemporal) {
  const DD dd;
  const DU64 du;
  if (p.unit_scale) {
    const VD mul = hn::Set(dd, p.scale_mul_d), add = hn::Set(dd, p.scale_add_d);
    const VU64 top = hn::Set(du, (uint64_t{1} << 53) - 1);
#if RANDTENSOR_AVX512
    const __mmask8 keep = _mm512_cmplt_epu64_mask(z.raw, top.raw);
    Put(dd, VD{_mm512_maskz_fmadd_pd(keep, DoubleOfZ53(z).raw, mul.raw, add.raw)}, out,
        nontemporal);
#else
    const hn::RebindToSigned<DU64> di64;  // z < 2^53: the signed compare is exact
    const auto keep = hn::RebindMask(dd, hn::Lt(hn::BitCast(di64, z), hn::BitCast(di64, top)));
    Put(dd, hn::IfThenElseZero(keep, math::MulAddExactProduct(DoubleOfZ53(z), mul, add)), out,
        nontemporal);
#endif
    return;
  }
  const VD t =
      math::FmaD(dd, UnitDoubleOfZ(z, 0x1p-53), hn::Set(dd, p.range_d), hn::Set(dd, p.low_d));
  Put(dd, hn::IfThenElse(hn::Eq(t, hn::Set(dd, p.high_d)), hn::Set(dd, p.low_d), t), out,
      nontemporal);
}
#endif

// float64: two words per element (u53).
struct UniformFloat64 : ConverterDefaults {
  using Type = double;
  using Params = detail::UniformParams;
  static constexpr int kWords = 2;
  static constexpr size_t kGroup = 1;

#if HWY_TARGET != HWY_SCALAR
  template <class Out, class... W>
  static HWY_INLINE void Vectors(const Params& p, Out out, bool nontemporal, W... w) {
    const DU64 du;
    const size_t N64 = hn::Lanes(du);
    ForEachVector(
        [&](size_t g, VW x) __attribute__((always_inline)) {
          UniformDoubleOfZ(p, Z53(hn::BitCast(du, x)), out + g * N64, nontemporal);
        },
        w...);
  }
#endif

#if RANDTENSOR_AVX512
  // Straight from one vector of Philox blocks after round 9, in the state's
  // order: a block's elements are (w0, w1) and (w2, w3), so z53 = a ^ (b <<
  // 21) is made in 32-bit halves, low a ^ (b << 21 mod 2^32) and high
  // b >> 11, and one transpose puts each z's halves together in memory
  // order: 6 + 8 operations per 16 blocks (32 elements), where the fused
  // round 9 (6 more than a plain one) and Z53 on whole lanes (3 per 8
  // elements) took 18.
  static constexpr bool kFromBlocks = true;
  template <class Out>
  static HWY_INLINE void Blocks(const Params& p, VW w0, VW w1, VW w2, VW w3, Out out,
                                bool nontemporal) {
    const DU64 du;
    const size_t N64 = hn::Lanes(du);
    const auto low = [](VW a, VW b) { return hn::Xor(a, hn::ShiftLeft<21>(b)); };
    TransposeBlocks(low(w0, w1), hn::ShiftRight<11>(w1), low(w2, w3), hn::ShiftRight<11>(w3),
                    [&](VW z, size_t i) {
                      UniformDoubleOfZ(p, hn::BitCast(du, z), out + i * N64, nontemporal);
                    });
  }
#endif

  static HWY_INLINE void Scalar(const Params& p, const uint32_t* words, double* out) {
    const double t = std::fma(UnitDoubleScalar(words[0], words[1], 0x1p-53), p.range_d, p.low_d);
    out[0] = t == p.high_d ? p.low_d : t;
  }
};

}  // namespace convert
}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_CONVERT_UNIFORM_INL_H_ toggle guard
