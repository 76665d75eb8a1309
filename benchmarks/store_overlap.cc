// Whether this core overlaps streaming (non-temporal) stores with
// independent work, as it does regular stores: a loop of register-only
// rounds (8 independent multiply/shift/XOR chains, a Philox round's
// operations) with a burst of B 64-byte stores after every B*K rounds of
// each chain, writing a buffer larger than the caches, timed with streaming
// stores, with regular stores, and with its stores landing in a 64 KiB
// buffer (the work alone). Where the two overlap, the streaming loop runs
// at the slower of the work alone and the plain streaming fill (K = 0);
// where they take turns, at 1 / (1 / work + 1 / fill). The automatic store
// mode (src/store_choice.cc) measures the effect on the real kernels; this
// isolates it (benchmarks/RESULTS.md, "The Zen 5 VM").
//
//   build/benchmarks/randtensor_store_overlap [MiB]   (default 256; x86-64 with AVX-512)
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// GB/s of stores written to buf[0, bytes) in bursts of B lines, with B*K
// rounds of every chain after each burst.
template <bool kStreaming>
__attribute__((target("avx512f"))) double Pass(char* buf, size_t bytes, int B, int K) {
  __m512i a0 = _mm512_set1_epi32(1), a1 = _mm512_set1_epi32(2), a2 = _mm512_set1_epi32(3),
          a3 = _mm512_set1_epi32(4), a4 = _mm512_set1_epi32(5), a5 = _mm512_set1_epi32(6),
          a6 = _mm512_set1_epi32(7), a7 = _mm512_set1_epi32(8);
  const __m512i mul = _mm512_set1_epi32(static_cast<int>(0xD2511F53u));
  const __m512i key = _mm512_set1_epi32(static_cast<int>(0x9E3779B9u));
  const size_t burst = static_cast<size_t>(B) * 64;
  const auto t0 = std::chrono::steady_clock::now();
  size_t at = 0;
  for (; at + burst <= bytes; at += burst) {
    for (int b = 0; b < B; ++b) {
      auto* line = reinterpret_cast<__m512i*>(buf + at + static_cast<size_t>(b) * 64);
      const __m512i v = _mm512_xor_si512(a0, a1);
      if (kStreaming) {
        _mm512_stream_si512(line, v);
      } else {
        _mm512_store_si512(line, v);
      }
    }
    for (int r = 0; r < B * K; ++r) {
#define RANDTENSOR_ROUND(x) \
  x = _mm512_xor_si512(_mm512_mul_epu32(x, mul), _mm512_xor_si512(_mm512_srli_epi64(x, 32), key));
      RANDTENSOR_ROUND(a0) RANDTENSOR_ROUND(a1) RANDTENSOR_ROUND(a2) RANDTENSOR_ROUND(a3)
      RANDTENSOR_ROUND(a4) RANDTENSOR_ROUND(a5) RANDTENSOR_ROUND(a6) RANDTENSOR_ROUND(a7)
#undef RANDTENSOR_ROUND
    }
  }
  _mm_sfence();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Keeps the chains: their last values reach memory.
  _mm512_store_si512(reinterpret_cast<__m512i*>(buf),
                     _mm512_xor_si512(_mm512_xor_si512(_mm512_xor_si512(a2, a3), a4),
                                      _mm512_xor_si512(_mm512_xor_si512(a5, a6), a7)));
  return static_cast<double>(at) / seconds / 1e9;
}

// The same work, its stores rewriting a 64 KiB buffer (L1 and L2): GB/s.
__attribute__((target("avx512f"))) double WorkAlone(char* small, size_t bytes, int B, int K) {
  constexpr size_t kSmall = 64 << 10;
  const auto t0 = std::chrono::steady_clock::now();
  size_t done = 0;
  for (; done < bytes; done += kSmall) Pass<false>(small, kSmall, B, K);
  return static_cast<double>(done) /
         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  if (!__builtin_cpu_supports("avx512f")) {
    std::printf("randtensor_store_overlap: needs AVX-512; nothing measured\n");
    return 0;
  }
  const size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 256;
  const size_t bytes = std::max<size_t>(mib, 1) << 20;
  char* big = static_cast<char*>(std::aligned_alloc(4096, bytes));
  char* small = static_cast<char*>(std::aligned_alloc(4096, 64 << 10));
  if (big == nullptr || small == nullptr) {
    std::printf("randtensor_store_overlap: cannot allocate %zu MiB\n", mib);
    return 1;
  }
  std::memset(big, 1, bytes);  // first touch outside the timings
  std::memset(small, 1, 64 << 10);
  constexpr int kReps = 3;  // best of
  const int bursts[] = {1, 24};
  const int works[] = {0, 1, 2, 4, 8, 16, 32};
  double fill = 0;  // the plain streaming fill (B = 1, K = 0)
  std::printf("%zu MiB, best of %d\n", bytes >> 20, kReps);
  std::printf(" B  K | streaming GB/s | regular GB/s | work alone GB/s | streaming / taking turns | "
              "streaming / overlapped\n");
  for (const int B : bursts) {
    for (const int K : works) {
      double streaming = 0, regular = 0, work = 0;
      for (int rep = 0; rep < kReps; ++rep) {
        streaming = std::max(streaming, Pass<true>(big, bytes, B, K));
        regular = std::max(regular, Pass<false>(big, bytes, B, K));
        work = std::max(work, WorkAlone(small, bytes, B, K));
      }
      if (B == 1 && K == 0) fill = streaming;
      const double turns = K == 0 ? fill : 1.0 / (1.0 / fill + 1.0 / work);
      const double overlapped = K == 0 ? fill : std::min(fill, work);
      std::printf("%2d %2d | %14.1f | %12.1f | %15.1f | %24.2f | %22.2f\n", B, K, streaming,
                  regular, work, streaming / turns, streaming / overlapped);
    }
  }
  std::free(big);
  std::free(small);
  return 0;
}
