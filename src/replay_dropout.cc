// PyTorch CUDA's fused dropout replayed (randtensor/replay.h,
// tests/reference/torch_cuda/ORDER.md section 6). The Philox blocks come from
// the vectorized ThreadBlocks kernel, a chunk of threads per call at a time;
// each word then decides one element, in whichever place the GPU's kernel
// (vectorized or not) gives it. Not a speed path: one compare and one
// multiply per element after the blocks.

#include <cmath>
#include <cstdint>
#include <cstring>

#include "randtensor/fill.h"
#include "randtensor/replay.h"
#include "src/dispatch.h"
#include "src/half.h"
#include "src/kernels.h"
#include "src/thread_pool.h"

namespace randtensor {
namespace {

using detail::KernelArgs;

constexpr uint64_t kChunk = 512;  // threads per L1 chunk of blocks

struct DropoutJob {
  DataType dtype;
  uint64_t n, g, vec, calls, chunks;
  const void* input;
  void* output;
  uint8_t* mask;
  PhiloxState state;
  uint32_t keep_words;  // words x with u32(x) < acc(1 - p): [0, keep_words)
  float scale_f;
  double scale_d;
  const detail::KernelTable* kernels;
};

// The element word `w` of call `c` of thread t decides, or n if none.
uint64_t ElementOf(const DropoutJob& j, uint64_t t, uint64_t c, uint64_t w) {
  if (j.vec == 1) {  // fused_dropout_kernel: the distributions' grid-stride order
    const uint64_t e = c * 4 * j.g + w * j.g + t;
    return e < j.n ? e : j.n;
  }
  // fused_dropout_kernel_vec: thread t owns vec consecutive elements per
  // stride of g vec, drawing ceil(vec / 4) calls each time.
  const uint64_t per = (j.vec + 3) / 4;
  const uint64_t k = c / per, at = (c % per) * 4 + w;
  if (at >= j.vec) return j.n;  // vec 2: words 2, 3 are drawn and dropped
  const uint64_t e = (k * j.g + t) * j.vec + at;
  return e < j.n ? e : j.n;
}

void Place(const DropoutJob& j, uint64_t e, bool keep) {
  if (j.mask != nullptr) j.mask[e] = keep ? 1 : 0;
  const float k = keep ? 1.0f : 0.0f;
  switch (j.dtype) {
    case DataType::kFloat32: {
      float x;
      std::memcpy(&x, static_cast<const float*>(j.input) + e, 4);
      static_cast<float*>(j.output)[e] = x * k * j.scale_f;
      return;
    }
    case DataType::kFloat64: {
      double x;
      std::memcpy(&x, static_cast<const double*>(j.input) + e, 8);
      static_cast<double*>(j.output)[e] = x * static_cast<double>(k) * j.scale_d;
      return;
    }
    case DataType::kFloat16: {
      const float x = detail::Float16Value(static_cast<const uint16_t*>(j.input)[e]);
      static_cast<uint16_t*>(j.output)[e] = detail::Float16Bits(x * k * j.scale_f);
      return;
    }
    default: {  // bfloat16
      const float x = detail::Bfloat16Value(static_cast<const uint16_t*>(j.input)[e]);
      static_cast<uint16_t*>(j.output)[e] = detail::Bfloat16Bits(x * k * j.scale_f);
      return;
    }
  }
}

void RunDropoutTask(void* context, uint32_t index) {
  const DropoutJob& j = *static_cast<const DropoutJob*>(context);
  const uint64_t c = index / j.chunks, t0 = (index % j.chunks) * kChunk;
  const uint64_t m = j.g - t0 < kChunk ? j.g - t0 : kChunk;
  const KernelArgs s{j.state.counter().Plus(c), detail::RoundKeys(j.state.key()), {}};
  alignas(64) uint32_t words[4 * kChunk];
  j.kernels->thread_blocks(s, t0, m, words);
  for (uint64_t i = 0; i < m; ++i) {
    for (uint64_t w = 0; w < 4; ++w) {
      const uint64_t e = ElementOf(j, t0 + i, c, w);
      if (e < j.n) Place(j, e, words[4 * i + w] < j.keep_words);
    }
  }
}

}  // namespace

Status TorchCudaDropout(DataType dtype, uint64_t count, const void* input, void* output,
                        void* mask, double p, const PhiloxState& in_state, PhiloxState* out_state,
                        const GpuGeometry& gpu, int32_t max_vector, uint32_t threads) noexcept {
  const PhiloxState state = in_state;  // out_state may alias it
  const int size = ElementSize(dtype);
  if (dtype != DataType::kFloat32 && dtype != DataType::kFloat64 &&
      dtype != DataType::kFloat16 && dtype != DataType::kBfloat16) {
    return Status::Error(StatusCode::kUnsupported,
                         "dtype = %d: dropout takes float32, float64, float16 or bfloat16",
                         static_cast<int>(dtype));
  }
  if (!(p > 0 && p < 1)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "p = %g: PyTorch's fused dropout runs for 0 < p < 1 only (it draws "
                         "nothing otherwise)",
                         p);
  }
  if (max_vector != 0 && max_vector != 1 && max_vector != 2 && max_vector != 4 && max_vector != 8) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "max_vector = %d is not 0, 1, 2, 4 or 8", max_vector);
  }
  if (count != 0 && (input == nullptr || output == nullptr)) {
    return Status::Error(StatusCode::kInvalidArgument, "input or output is null for %llu elements",
                         static_cast<unsigned long long>(count));
  }
  DropoutJob j;
  Status status = TorchCudaThreads(count, gpu, &j.g);
  if (!status.ok()) return status;
  status = detail::ActiveKernels(&j.kernels);
  if (!status.ok()) return status;
  j.dtype = dtype;
  j.n = count;
  j.input = input;
  j.output = output;
  j.mask = static_cast<uint8_t*>(mask);
  j.state = state;
  // get_vector_size: 16 / sizeof(T) capped by the address's alignment, then
  // halved until it divides the element count.
  uint64_t vec = static_cast<uint64_t>(16 / size);
  const uint64_t cap = max_vector == 0 ? 8 : static_cast<uint64_t>(max_vector);
  if (vec > cap) vec = cap;
  while (vec > 1 && count % vec != 0) vec /= 2;
  j.vec = vec;
  const double p1m = 1.0 - p;
  const uint64_t reserved = count == 0 ? 0 : (count - 1) / (4 * j.g) + 1;
  if (dtype == DataType::kFloat64) {
    j.keep_words = detail::BernoulliWords(p1m);  // compared in double
    j.scale_d = 1.0 / p1m;
  } else {
    const float pa = static_cast<float>(p1m);
    j.keep_words = detail::BernoulliWords(pa);
    j.scale_f = static_cast<float>(1.0 / static_cast<double>(pa));
  }
  // Calls thread 0 makes (the most any thread makes).
  j.calls = vec == 1 ? reserved
                     : (count == 0 ? 0 : ((count - 1) / (j.g * vec) + 1) * ((vec + 3) / 4));
  j.chunks = (j.g - 1) / kChunk + 1;
  if (count != 0) {
    detail::RunTasks(ParallelFor{}, static_cast<uint32_t>(j.calls * j.chunks),
                     threads != 0 ? threads : DefaultThreads(), RunDropoutTask, &j);
  }
  if (out_state != nullptr) {
    *out_state = philox::AdvanceBlocks(state, reserved);
  }
  return Status();
}

}  // namespace randtensor
