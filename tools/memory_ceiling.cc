#include "tools/memory_ceiling.h"

#include <cstring>
#include <thread>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace randtensor_cli {
namespace {

void StreamPart(char* p, size_t bytes) {
#if defined(__SSE2__)
  // 16-byte streaming stores are baseline x86-64; memory bandwidth, not the
  // store width, bounds a fill this large.
  const __m128i v = _mm_set1_epi32(0x5a5a5a5a);
  for (size_t i = 0; i < bytes; i += 64) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(p + i), v);
    _mm_stream_si128(reinterpret_cast<__m128i*>(p + i + 16), v);
    _mm_stream_si128(reinterpret_cast<__m128i*>(p + i + 32), v);
    _mm_stream_si128(reinterpret_cast<__m128i*>(p + i + 48), v);
  }
  _mm_sfence();
#else
  std::memset(p, 0x5a, bytes);
#endif
}

}  // namespace

void StreamingFill(void* data, size_t bytes, uint32_t threads) {
  if (threads < 1) threads = 1;
  const size_t lines = bytes / 64;
  std::vector<std::thread> workers;
  workers.reserve(threads - 1);
  char* base = static_cast<char*>(data);
  for (uint32_t t = 1; t < threads; ++t) {
    const size_t first = lines * t / threads, end = lines * (t + 1) / threads;
    workers.emplace_back(StreamPart, base + first * 64, (end - first) * 64);
  }
  StreamPart(base, lines / threads * 64);
  for (std::thread& w : workers) w.join();
}

}  // namespace randtensor_cli
