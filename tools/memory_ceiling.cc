#include "tools/memory_ceiling.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "randtensor/fill.h"
#include "randtensor/parallel.h"
#include "randtensor/philox.h"
#include "tools/buffer.h"
#include "tools/cli_args.h"
#include "tools/timing.h"

namespace randtensor_cli {
namespace {

// The main job's memory-ceiling probe: large enough to leave the caches on
// most machines, small enough to take well under a second.
constexpr uint64_t kCeilingBytes = uint64_t{256} << 20;
constexpr uint32_t kCeilingRepeat = 5;

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

CeilingResult MeasureCeiling() {
  CeilingResult r;
  r.bytes = kCeilingBytes;
  r.threads = randtensor::DefaultThreads();
  Buffer buffer(r.bytes);
  const int64_t sizes[1] = {static_cast<int64_t>(r.bytes / 4)};
  randtensor::TensorDesc desc;
  desc.rank = 1;
  desc.sizes = sizes;
  const randtensor::PhiloxState state = randtensor::PhiloxState::FromSeed(0);
  const auto fill = [&] {
    const randtensor::Status s = randtensor::Fill(desc, buffer.data(), r.bytes, state, nullptr);
    if (!s.ok()) Fail(kExitFailure, s.message());
  };
  const auto stream = [&] { StreamingFill(buffer.data(), r.bytes, r.threads); };
  fill();
  stream();
  const double fill_s = MedianSeconds(kCeilingRepeat, fill);
  const double stream_s = MedianSeconds(kCeilingRepeat, stream);
  r.randtensor_gbps = static_cast<double>(r.bytes) / std::max(fill_s, 1e-9) / 1e9;
  r.streaming_gbps = static_cast<double>(r.bytes) / std::max(stream_s, 1e-9) / 1e9;
  return r;
}

}  // namespace randtensor_cli
