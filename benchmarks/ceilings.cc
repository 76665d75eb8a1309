// Ceiling kernels for the benchmarks (see ceilings.h). Written with raw
// intrinsics on purpose: they are yardsticks, independent of randtensor's
// Highway code.

#include "ceilings.h"

#include <immintrin.h>

#include <Random123/philox.h>

#include <cstring>

namespace randtensor_bench {

#define RT_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))
#define RT_AVX2 __attribute__((target("avx2")))

bool HasAvx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
}

namespace {

RT_AVX2 void FillStreamingAvx2(uint32_t* dst, size_t n, uint32_t value) {
  size_t i = 0;
  for (; i < n && reinterpret_cast<uintptr_t>(dst + i) % 32 != 0; ++i) dst[i] = value;
  const __m256i v = _mm256_set1_epi32(static_cast<int>(value));
  for (; i + 8 <= n; i += 8) _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i), v);
  for (; i < n; ++i) dst[i] = value;
  _mm_sfence();
}

RT_AVX2 void FillRegularAvx2(uint32_t* dst, size_t n, uint32_t value) {
  size_t i = 0;
  const __m256i v = _mm256_set1_epi32(static_cast<int>(value));
  for (; i + 8 <= n; i += 8) _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), v);
  for (; i < n; ++i) dst[i] = value;
}

template <bool kStream>
RT_AVX512 inline void Store(uint32_t* p, __m512i v) {
  if (kStream) {
    _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v);  // p is 64-byte aligned
  } else {
    _mm512_storeu_si512(p, v);
  }
}

}  // namespace

void FillStreaming(uint32_t* dst, size_t n, uint32_t value) {
  FillStreamingAvx2(dst, n, value);
}

void FillRegular(uint32_t* dst, size_t n, uint32_t value) { FillRegularAvx2(dst, n, value); }

namespace {

template <bool kStream>
RT_AVX512 void ReferencePhiloxImpl(uint32_t* dst, size_t n, uint64_t block, uint32_t k0,
                                   uint32_t k1) {
  constexpr int B = 8;  // interleaved batches of 16 blocks
  const __m512i m0 = _mm512_set1_epi32(static_cast<int>(0xD2511F53u));
  const __m512i m1 = _mm512_set1_epi32(static_cast<int>(0xCD9E8D57u));
  // Lane 4c + r holds block 4r + c: the final transpose is in-lane only.
  const __m512i lane = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
  __m512i K0[10], K1[10];
  for (int r = 0; r < 10; ++r) {
    K0[r] = _mm512_set1_epi32(static_cast<int>(k0 + r * 0x9E3779B9u));
    K1[r] = _mm512_set1_epi32(static_cast<int>(k1 + r * 0xBB67AE85u));
  }
  const size_t blocks = n / 4;
  for (size_t b0 = 0; b0 + 16 * B <= blocks; b0 += 16 * B) {
    __m512i x0[B], x1[B], x2[B], x3[B];
#pragma GCC unroll 8
    for (int b = 0; b < B; ++b) {
      x0[b] = _mm512_add_epi32(
          _mm512_set1_epi32(static_cast<int>(block + b0 + 16 * b)), lane);
      x1[b] = x2[b] = x3[b] = _mm512_setzero_si512();
    }
#pragma GCC unroll 10
    for (int r = 0; r < 10; ++r) {
#pragma GCC unroll 8
      for (int b = 0; b < B; ++b) {
        const __m512i e0 = _mm512_mul_epu32(x0[b], m0);
        const __m512i o0 = _mm512_mul_epu32(_mm512_srli_epi64(x0[b], 32), m0);
        const __m512i e1 = _mm512_mul_epu32(x2[b], m1);
        const __m512i o1 = _mm512_mul_epu32(_mm512_srli_epi64(x2[b], 32), m1);
        const __m512i hi0 = _mm512_mask_shuffle_epi32(o0, 0x5555, e0, _MM_PERM_CDAB);
        const __m512i lo0 = _mm512_mask_shuffle_epi32(e0, 0xAAAA, o0, _MM_PERM_CDAB);
        const __m512i hi1 = _mm512_mask_shuffle_epi32(o1, 0x5555, e1, _MM_PERM_CDAB);
        const __m512i lo1 = _mm512_mask_shuffle_epi32(e1, 0xAAAA, o1, _MM_PERM_CDAB);
        x0[b] = _mm512_ternarylogic_epi32(hi1, x1[b], K0[r], 0x96);
        x2[b] = _mm512_ternarylogic_epi32(hi0, x3[b], K1[r], 0x96);
        x1[b] = lo1;
        x3[b] = lo0;
      }
    }
#pragma GCC unroll 8
    for (int b = 0; b < B; ++b) {
      uint32_t* out = dst + 4 * (b0 + 16 * b);
      const __m512i a = _mm512_unpacklo_epi32(x0[b], x1[b]);
      const __m512i c = _mm512_unpacklo_epi32(x2[b], x3[b]);
      const __m512i e = _mm512_unpackhi_epi32(x0[b], x1[b]);
      const __m512i g = _mm512_unpackhi_epi32(x2[b], x3[b]);
      Store<kStream>(out, _mm512_unpacklo_epi64(a, c));
      Store<kStream>(out + 16, _mm512_unpackhi_epi64(a, c));
      Store<kStream>(out + 32, _mm512_unpacklo_epi64(e, g));
      Store<kStream>(out + 48, _mm512_unpackhi_epi64(e, g));
    }
  }
  if (kStream) _mm_sfence();
}

}  // namespace

void ReferencePhilox(uint32_t* dst, size_t n, uint64_t block, uint32_t k0, uint32_t k1) {
  ReferencePhiloxImpl<false>(dst, n, block, k0, k1);
}

void ReferencePhiloxStreaming(uint32_t* dst, size_t n, uint64_t block, uint32_t k0,
                              uint32_t k1) {
  ReferencePhiloxImpl<true>(dst, n, block, k0, k1);
}

namespace {

// The narrower floors: one block per 64-bit lane (the word in the low half),
// so vpmuludq yields each product in place and a round needs no shuffle; 6
// interleaved batches. V is a small traits struct over __m256i or __m128i.
struct Avx2Ops {
  using V = __m256i;
  static constexpr int kBlocks = 4;
  RT_AVX2 static V Set64(uint64_t x) { return _mm256_set1_epi64x(static_cast<long long>(x)); }
  RT_AVX2 static V Set32(uint32_t x) { return _mm256_set1_epi32(static_cast<int>(x)); }
  RT_AVX2 static V Lanes() { return _mm256_set_epi64x(3, 1, 2, 0); }  // lane 2c+r: block 2r+c
  RT_AVX2 static V Add64(V a, V b) { return _mm256_add_epi64(a, b); }
  RT_AVX2 static V Mul(V a, V b) { return _mm256_mul_epu32(a, b); }
  RT_AVX2 static V Hi(V a) { return _mm256_srli_epi64(a, 32); }
  RT_AVX2 static V Xor(V a, V b) { return _mm256_xor_si256(a, b); }
  RT_AVX2 static V Lo32(V a, V b) { return _mm256_unpacklo_epi32(a, b); }
  RT_AVX2 static V Hi32(V a, V b) { return _mm256_unpackhi_epi32(a, b); }
  RT_AVX2 static V Lo64(V a, V b) { return _mm256_unpacklo_epi64(a, b); }
  RT_AVX2 static void Store(uint32_t* p, V v) { _mm256_storeu_si256(reinterpret_cast<V*>(p), v); }
};

struct Sse4Ops {
  using V = __m128i;
  static constexpr int kBlocks = 2;
  static V Set64(uint64_t x) { return _mm_set1_epi64x(static_cast<long long>(x)); }
  static V Set32(uint32_t x) { return _mm_set1_epi32(static_cast<int>(x)); }
  static V Lanes() { return _mm_set_epi64x(1, 0); }
  static V Add64(V a, V b) { return _mm_add_epi64(a, b); }
  static V Mul(V a, V b) { return _mm_mul_epu32(a, b); }
  static V Hi(V a) { return _mm_srli_epi64(a, 32); }
  static V Xor(V a, V b) { return _mm_xor_si128(a, b); }
  static V Lo32(V a, V b) { return _mm_unpacklo_epi32(a, b); }
  static V Hi32(V a, V b) { return _mm_unpackhi_epi32(a, b); }
  static V Lo64(V a, V b) { return _mm_unpacklo_epi64(a, b); }
  static void Store(uint32_t* p, V v) { _mm_storeu_si128(reinterpret_cast<V*>(p), v); }
};

template <class O>
__attribute__((always_inline)) inline void NarrowPhilox(uint32_t* dst, size_t n, uint64_t block,
                                                        uint32_t k0, uint32_t k1) {
  using V = typename O::V;
  constexpr int B = 6;
  constexpr int kStep = B * O::kBlocks;  // blocks per trip
  const V m0 = O::Set32(0xD2511F53u), m1 = O::Set32(0xCD9E8D57u);
  const V lane = O::Lanes();
  for (size_t b0 = 0; b0 + kStep <= n / 4; b0 += kStep) {
    V x0[B], x1[B], x2[B], x3[B];
#pragma GCC unroll 8
    for (int b = 0; b < B; ++b) {
      x0[b] = O::Add64(O::Set64(static_cast<uint32_t>(block + b0 + O::kBlocks * b)), lane);
      x1[b] = x2[b] = x3[b] = O::Set64(0);
    }
#pragma GCC unroll 10
    for (int r = 0; r < 10; ++r) {
      const V kk0 = O::Set32(k0 + r * 0x9E3779B9u), kk1 = O::Set32(k1 + r * 0xBB67AE85u);
#pragma GCC unroll 8
      for (int b = 0; b < B; ++b) {
        const V p0 = O::Mul(x0[b], m0), p1 = O::Mul(x2[b], m1);
        x0[b] = O::Xor(O::Xor(O::Hi(p1), x1[b]), kk0);
        x2[b] = O::Xor(O::Xor(O::Hi(p0), x3[b]), kk1);
        x1[b] = p1;
        x3[b] = p0;
      }
    }
#pragma GCC unroll 8
    for (int b = 0; b < B; ++b) {
      uint32_t* out = dst + 4 * (b0 + O::kBlocks * b);
      O::Store(out, O::Lo64(O::Lo32(x0[b], x1[b]), O::Lo32(x2[b], x3[b])));
      O::Store(out + 2 * O::kBlocks, O::Lo64(O::Hi32(x0[b], x1[b]), O::Hi32(x2[b], x3[b])));
    }
  }
}

}  // namespace

RT_AVX2 void ReferencePhiloxAvx2(uint32_t* dst, size_t n, uint64_t block, uint32_t k0,
                                 uint32_t k1) {
  NarrowPhilox<Avx2Ops>(dst, n, block, k0, k1);
}

void ReferencePhiloxSse4(uint32_t* dst, size_t n, uint64_t block, uint32_t k0, uint32_t k1) {
  NarrowPhilox<Sse4Ops>(dst, n, block, k0, k1);
}

void Random123Loop(uint32_t* dst, size_t n, uint64_t block, uint32_t k0, uint32_t k1) {
  r123::Philox4x32 philox;
  const r123::Philox4x32::key_type key = {{k0, k1}};
  for (size_t i = 0; i + 4 <= n; i += 4, ++block) {
    const r123::Philox4x32::ctr_type ctr = {
        {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0, 0}};
    const r123::Philox4x32::ctr_type out = philox(ctr, key);
    std::memcpy(dst + i, out.v, 16);
  }
}

}  // namespace randtensor_bench
