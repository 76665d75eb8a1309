// What every converter (src/convert/<distribution>-inl.h) shares: the
// vector types, stores, and the exactly rounded steps from words to floats
// (SPEC.md section 8). Included only through foreach_target.h, hence the
// toggle guard.
//
// Bit-exact on every target: only exactly rounded operations (add, mul,
// compare, integer ops, int32 -> float conversion of values below 2^24), no
// contraction (the kernel units are built with -ffp-contract=off), and every
// fused multiply-add stated: hardware FMA where the target has it
// (RANDTENSOR_FMA), else an exact emulation (math-inl.h). float16 and
// bfloat16 are built from float bits with integer round-to-nearest-even,
// never DemoteTo (which truncates on SSE4 and rounds on F16C). Vector state
// lives in local variables only (SVE's vectors are sizeless).

#if defined(RANDTENSOR_SRC_CONVERT_COMMON_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_CONVERT_COMMON_INL_H_
#undef RANDTENSOR_SRC_CONVERT_COMMON_INL_H_
#else
#define RANDTENSOR_SRC_CONVERT_COMMON_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwy/highway.h"
#include "src/capabilities-inl.h"
#include "src/math-inl.h"
#include "src/params.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {
namespace convert {

namespace hn = hwy::HWY_NAMESPACE;

using DW = hn::ScalableTag<uint32_t>;  // stream words
using DF = hn::Rebind<float, DW>;      // one float per word
using DI = hn::Rebind<int32_t, DW>;
using VW = hn::Vec<DW>;
using VF = hn::Vec<DF>;

// What a converter does not override (docs/architecture.md, "How to add a
// distribution"): one element per kWords words, each on its own, converted
// as soon as its batch's words are in stream order, from the parameters
// themselves.
struct ConverterDefaults {
  // Elements made two at a time from one pair (Box-Muller): the driver
  // starts its word chunks at even elements.
  static constexpr bool kPairs = false;
  // Long conversions (log, sine): made from words in L1 by one out-of-line
  // loop (run-inl.h, ConvertBlockVectors), not batch by batch inside the
  // rounds, where the other batches' live state would leave them too few
  // registers and each batch of every group size would compile its own
  // copy. The words come from the bits kind's run (BlockWords, and
  // ThreadRows for GPU orders), so such a kind compiles no rounds of its own.
  static constexpr bool kAfterGroup = false;
  // Takes a vector of Philox blocks in the state's order (words 0-3 of
  // BlocksPerVector() blocks, one vector each) through Blocks(), round 9
  // unfused: set only where a target's fast path needs it.
  static constexpr bool kFromBlocks = false;
  // A second converter of the same values that the driver switches to for
  // the whole call where UseVariant(params) (an instruction the CPU may
  // lack, allowed by the parameters); void: none.
  using Variant = void;
  template <class P>
  static bool UseVariant(const P&) {
    return false;
  }
  // Calls f(k) with k what Vectors/Blocks/Scalar read: made once per call,
  // in local variables (vectors cannot be members). By default the
  // parameters themselves.
  template <class P, class F>
  static HWY_INLINE void WithConstants(const P& p, const F& f) {
    f(p);
  }
};

// f(i, w) for every vector w of the pack, i its index, in order.
template <class F, class... W>
HWY_INLINE void ForEachVector(const F& f, W... w) {
  size_t i = 0;
  (f(i++, w), ...);
}
// f(i, a, b) for every pair of vectors (a, b) = (w[2i], w[2i + 1]) of the
// pack, from index i.
template <class F>
HWY_INLINE void ForEachVectorPair(const F&, size_t) {}
template <class F, class... W>
HWY_INLINE void ForEachVectorPair(const F& f, size_t i, VW a, VW b, W... rest) {
  f(i, a, b);
  ForEachVectorPair(f, i + 1, rest...);
}

// fma(a, b, c) in float with one rounding on every target (math::FmaF:
// fused, or an exact emulation in double lanes without FMA).
HWY_INLINE VF FmaExact(VF a, VF b, VF c) { return math::FmaF(DF(), a, b, c); }

// float(x) of every word, correctly rounded: vcvtudq2ps on AVX-512; else
// hi * 65536 + lo (both exact in float, the product too: one rounding, in
// one multiply-add where the target fuses it).
HWY_INLINE VF FloatOfWord(VW x) {
  const DF df;
#if RANDTENSOR_AVX512
  return hn::ConvertTo(df, x);  // round to nearest even
#else
  const DI di;
  const VF hi = hn::ConvertTo(df, hn::BitCast(di, hn::ShiftRight<16>(x)));
  const VF lo = hn::ConvertTo(df, hn::BitCast(di, hn::And(x, hn::Set(DW(), 0xFFFFu))));
  return math::MulAddExactProduct(hi, hn::Set(df, 65536.0f), lo);
#endif
}

// u32(x) = fma(float(x), 2^-32, 2^-33): the product is exact (a power of
// two), so fused or not it rounds once.
HWY_INLINE VF UnitFloat(VW x) {
  const DF df;
  return math::MulAddExactProduct(FloatOfWord(x), hn::Set(df, 0x1p-32f), hn::Set(df, 0x1p-33f));
}

// Round-to-nearest-even float -> float16 bits (in the low half of each word),
// for finite inputs: normal, subnormal and overflow to infinity.
HWY_INLINE VW Float16Bits(VF f) {
  const DW dw;
  const DI di;
  const DF df;
  VW x = hn::BitCast(dw, f);
  const VW sign = hn::And(x, hn::Set(dw, 0x80000000u));
  x = hn::Xor(x, sign);
  const hn::Vec<DI> xi = hn::BitCast(di, x);  // < 2^31: signed compares are exact
  // Normal: rebias the exponent (-112 << 23), add half an ulp minus one plus
  // the kept lsb (ties to even), drop 13 bits.
  const VW odd = hn::And(hn::ShiftRight<13>(x), hn::Set(dw, 1u));
  const VW normal =
      hn::ShiftRight<13>(hn::Add(hn::Add(x, hn::Set(dw, 0xC8000FFFu)), odd));
  // Subnormal (below 2^-14): adding 0.5f lines the result up in the low
  // mantissa bits, the float add doing the rounding.
  const VF magic = hn::BitCast(df, hn::Set(dw, 0x3F000000u));
  const VW sub = hn::Sub(hn::BitCast(dw, hn::Add(hn::BitCast(df, x), magic)), hn::BitCast(dw, magic));
  VW out = hn::IfThenElse(hn::RebindMask(dw, hn::Lt(xi, hn::Set(di, 0x38800000))), sub, normal);
  out = hn::IfThenElse(hn::RebindMask(dw, hn::Gt(xi, hn::Set(di, 0x477FEFFF))), hn::Set(dw, 0x7C00u),
                       out);
  return hn::Or(out, hn::ShiftRight<16>(sign));
}

// Round-to-nearest-even float -> bfloat16 bits (finite inputs), in the high
// half of each word (the low half is garbage).
HWY_INLINE VW Bfloat16Rounded(VF f) {
  const DW dw;
  const VW x = hn::BitCast(dw, f);
#if RANDTENSOR_AVX512
  // + 1 where the kept lsb (bit 16) is set: a test and a masked add.
  const __mmask16 odd = _mm512_test_epi32_mask(x.raw, hn::Set(dw, 0x10000u).raw);
  const VW up = hn::Add(x, hn::Set(dw, 0x7FFFu));
  return VW{_mm512_mask_add_epi32(up.raw, odd, up.raw, hn::Set(dw, 1u).raw)};
#else
  const VW odd = hn::And(hn::ShiftRight<16>(x), hn::Set(dw, 1u));
  return hn::Add(hn::Add(x, hn::Set(dw, 0x7FFFu)), odd);
#endif
}
// ... in the low half of each word.
HWY_INLINE VW Bfloat16Bits(VF f) { return hn::ShiftRight<16>(Bfloat16Rounded(f)); }

// A store of one vector of elements: plain (any alignment), or with
// `nontemporal` a non-temporal store (p aligned to the vector) where the
// vector is a whole 16 bytes or more; smaller ones (SSE4's quarter vectors)
// store plainly either way.
template <class D, class V, typename T>
HWY_INLINE void Put(D d, V v, T* HWY_RESTRICT p, bool nontemporal) {
  if constexpr (hn::MaxLanes(D()) * sizeof(T) >= 16) {
    if (nontemporal) return hn::Stream(v, d, p);
  }
  hn::StoreU(v, d, p);
}

#if HWY_TARGET != HWY_SCALAR
// Copies n >= 1 bytes from `from`, readable a vector past n, to `to`,
// writing no byte outside [to, to + n) (a neighbouring row or its padding
// may be another thread's), on targets without masked stores (the pieces
// of vectors that cross a row end, spilled or copied): as moves of the
// largest power of two up to a vector, whose last move ends at n and
// overlaps the one before (the same bytes again), so the size, which
// changes from row end to row end, costs a few branches, not a loop of
// words and three more. No call: inside the run's loop a call would make
// the compiler save and restore the Philox state's vector registers
// around it.
HWY_INLINE void CopyPiece(const uint8_t* HWY_RESTRICT from, size_t n, uint8_t* HWY_RESTRICT to) {
  const hn::ScalableTag<uint8_t> d8;
  const size_t V = hn::Lanes(d8);
  // Moves of `size` bytes from the start (n >= size), the last one ending
  // at n: it overlaps the one before unless n is a multiple of the size.
  const auto in_moves = [&](size_t size, auto move) __attribute__((always_inline)) {
    for (size_t i = 0; i + size < n; i += size) move(i);
    move(n - size);
  };
  // A move of the size of `type` (a constant size: one load, one store).
  const auto word = [&](auto type) __attribute__((always_inline)) {
    using W = decltype(type);
    return [&](size_t i) __attribute__((always_inline)) {
      W w;
      std::memcpy(&w, from + i, sizeof(w));
      std::memcpy(to + i, &w, sizeof(w));
    };
  };
  struct Bytes16 {
    uint64_t half[2];
  };
  if (n >= V) {
    return in_moves(V, [&](size_t i) __attribute__((always_inline)) {
      hn::StoreU(hn::LoadU(d8, from + i), d8, to + i);
    });
  }
  if (n >= 16) return in_moves(16, word(Bytes16{}));  // only where V > 16
  if (n >= 8) return in_moves(8, word(uint64_t{0}));
  if (n >= 4) return in_moves(4, word(uint32_t{0}));
  if (n >= 2) return in_moves(2, word(uint16_t{0}));
  in_moves(1, word(uint8_t{0}));
}

#endif

#if RANDTENSOR_PLACES_PIECES
// Where a word vector's elements go when they may cross a row end (rows
// that are not whole vectors: the run driver's Placing::kCrossing):
// elements [0, k) from `at`, the others from `next` on, which lies k
// elements before the next row's start, so that element i >= k goes to
// next + i. One plain store where all lie in this row; else two masked
// stores, each writing only its own lanes (and never faulting on the
// others), or, without masked stores (RANDTENSOR_COPIED_CROSSINGS), the
// vector stored into L1 and its two pieces copied out: nothing outside the
// rows is written. The branch is taken once per row, in a short repeating
// pattern where rows are short; two masked stores for every vector cost
// more (docs/kernel-speed.md).
template <typename T>
struct RowCrossing {
  T* at;
  T* next;
  size_t k;
  // The same elements from the j-th on (a converter's later store).
  RowCrossing operator+(size_t j) const { return {at + j, next + j, k > j ? k - j : 0}; }
};
template <class D, class V, typename T>
HWY_INLINE void Put(D d, V v, RowCrossing<T> p, bool) {
  using U = hn::TFromD<D>;
  static_assert(sizeof(U) == sizeof(T), "a lane per element");
  const size_t lanes = hn::Lanes(d);
  if (p.k >= lanes) return hn::StoreU(v, d, reinterpret_cast<U*>(p.at));
#if RANDTENSOR_MASKED_STORES
  const auto first = hn::FirstN(d, p.k);
  hn::BlendedStore(v, first, d, reinterpret_cast<U*>(p.at));
  hn::BlendedStore(v, hn::AndNot(first, hn::FirstN(d, lanes)), d, reinterpret_cast<U*>(p.next));
#else
  // Two vectors: CopyPiece may read a vector past a piece's end.
  HWY_ALIGN U l1[2 * hn::MaxLanes(D())];
  hn::Store(v, d, l1);
  const uint8_t* from = reinterpret_cast<const uint8_t*>(l1);
  const size_t first = p.k * sizeof(U);  // 0 for a later store past the row end
  if (first != 0) CopyPiece(from, first, reinterpret_cast<uint8_t*>(p.at));
  CopyPiece(from + first, (lanes - p.k) * sizeof(U), reinterpret_cast<uint8_t*>(p.next + p.k));
#endif
}
// The places of a converter's stores in rows they may cross
// (Placing::kCrossing), for converters that store each of their results
// once, in stream order (those that take a whole vector of blocks at once,
// C::kFromBlocks; the long-math ones, from words in L1; word vectors
// converted together): each store takes its place from the rows' cursor
// (Crossing) when it is made, for as many elements as its vector holds, so
// `out + j` needs no offset of its own.
template <class Cursor>
struct StreamCrossings {
  Cursor* cursor;
  StreamCrossings operator+(size_t) const { return *this; }
};
template <class D, class V, class Cursor>
HWY_INLINE void Put(D d, V v, StreamCrossings<Cursor> p, bool nontemporal) {
  Put(d, v, p.cursor->Crossing(hn::Lanes(d)), nontemporal);
}
template <typename U, class Cursor>
HWY_INLINE StreamCrossings<Cursor> As(StreamCrossings<Cursor> p) {
  return p;  // Put's RowCrossing checks the element size
}
// The place of elements viewed as U (the same size): for converters that
// store integers into float or signed outputs.
template <typename U, typename T>
HWY_INLINE RowCrossing<U> As(RowCrossing<T> p) {
  static_assert(sizeof(U) == sizeof(T), "the same element size");
  return {reinterpret_cast<U*>(p.at), reinterpret_cast<U*>(p.next), p.k};
}
#endif
template <typename U, typename T>
HWY_INLINE U* As(T* p) {
  static_assert(sizeof(U) == sizeof(T), "the same element size");
  return reinterpret_cast<U*>(p);
}

// Stores the low 16 / 8 bits of each word (values that fit).
template <class Out>
HWY_INLINE void Store16(VW v, Out dst, bool nontemporal) {
  const hn::Rebind<uint16_t, DW> d16;
  Put(d16, hn::DemoteTo(d16, hn::BitCast(DI(), v)), dst, nontemporal);
}
template <class Out>
HWY_INLINE void Store8(VW v, Out dst, bool nontemporal) {
  const hn::Rebind<uint8_t, DW> d8;
  Put(d8, hn::DemoteTo(d8, hn::BitCast(DI(), v)), dst, nontemporal);
}

// Stores float16 (RNE, subnormals, overflow) or bfloat16 bits of t.
template <bool kBfloat16, class Out>
HWY_INLINE void StoreHalf(VF t, Out dst, bool nontemporal) {
#if RANDTENSOR_F16C
  if constexpr (!kBfloat16) {
    // F16C's vcvtps2ph with an immediate round-to-nearest-even (Highway's
    // DemoteTo here) is the same rounding as Float16Bits, subnormals too, in
    // one instruction; SSE4 has no F16C (and Highway truncates there).
    const hn::Rebind<hwy::float16_t, DF> dh;
    Put(hn::Rebind<uint16_t, DF>(), hn::BitCast(hn::Rebind<uint16_t, DF>(), hn::DemoteTo(dh, t)),
        dst, nontemporal);
    return;
  }
#endif
  Store16(kBfloat16 ? Bfloat16Bits(t) : Float16Bits(t), dst, nontemporal);
}

// Stores float values t as T: float32 as they are, uint16_t as float16 or
// (kBfloat16) bfloat16 bits, each rounded once.
template <typename T, bool kBfloat16, class Out>
HWY_INLINE void StoreFloats(VF t, Out dst, bool nontemporal) {
  if constexpr (std::is_same<T, float>::value) {
    Put(DF(), t, dst, nontemporal);
  } else {
    static_assert(std::is_same<T, uint16_t>::value, "float32, float16 or bfloat16 bits");
    StoreHalf<kBfloat16>(t, dst, nontemporal);
  }
}

// ------------------------------------------------- two words per element
// float64 elements read u53(a, b) = fma(double(a ^ (b << 21)), 2^-53,
// 2^-54) (the product is exact: one rounding in the add).

HWY_INLINE double UnitDoubleScalar(uint32_t a, uint32_t b, double scale) {
  const uint64_t z = uint64_t{a} ^ (uint64_t{b} << 21);  // < 2^53: exact in double
  return static_cast<double>(z) * scale + scale * 0.5;
}

#if HWY_TARGET != HWY_SCALAR
// Two stream words per 64-bit lane (word 2j low, word 2j + 1 high): the view
// the two-word kinds and the double arithmetic work in.
using DU64 = hn::Repartition<uint64_t, DW>;
using DD = hn::Repartition<double, DW>;
using VU64 = hn::Vec<DU64>;
using VD = hn::Vec<DD>;

HWY_INLINE VU64 Low32(VU64 v) { return hn::And(v, hn::Set(DU64(), 0xFFFFFFFFull)); }

// z = a ^ (b << 21) < 2^53 of the word pairs (a, b) in l's lanes (a low).
HWY_INLINE VU64 Z53(VU64 l) {
  const VU64 b21 = hn::ShiftLeft<21>(hn::ShiftRight<32>(l));
#if RANDTENSOR_AVX512
  const DU64 du;
  // b21 ^ (l & 0xFFFFFFFF) in one ternary-logic op (0x78: A ^ (B & C)).
  return VU64{_mm512_ternarylogic_epi64(b21.raw, l.raw, hn::Set(du, 0xFFFFFFFFull).raw, 0x78)};
#else
  return hn::Xor(Low32(l), b21);
#endif
}

// z as a double (exact).
HWY_INLINE VD DoubleOfZ53(VU64 z) {
  const DD dd;
#if RANDTENSOR_AVX512
  return hn::ConvertTo(dd, hn::BitCast(hn::RebindToSigned<DD>(), z));  // vcvtqq2pd: exact
#else
  return hn::Add(hn::Mul(math::DoubleOfSmall(dd, hn::ShiftRight<32>(z)), hn::Set(dd, 0x1p32)),
                 math::DoubleOfSmall(dd, Low32(z)));  // exact
#endif
}

// u53 (scale 2^-53) or v (scale 2^-52) of z53 values z: z scale + scale /
// 2, the product exact, so one rounding fused or not.
HWY_INLINE VD UnitDoubleOfZ(VU64 z, double scale) {
  const DD dd;
  return math::MulAddExactProduct(DoubleOfZ53(z), hn::Set(dd, scale), hn::Set(dd, scale * 0.5));
}
// ... of the word pairs in l's lanes.
HWY_INLINE VD UnitDouble(VU64 l, double scale) { return UnitDoubleOfZ(Z53(l), scale); }
#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace convert
}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_CONVERT_COMMON_INL_H_ toggle guard
