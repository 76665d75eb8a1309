// Replaying a GPU framework's element order (SPEC.md section 9): which
// Philox words each element of a tensor gets when PyTorch fills it on a CUDA
// device, so that a CPU computes the very tensor the GPU computed.
//
// PyTorch's CUDA distribution kernels (tests/reference/torch_cuda/ORDER.md
// has the sources and the GPU proof) launch G threads, 256 per block,
//     G = 256 * min(ceil(N / 256), sm_count * floor(threads_per_sm / 256)),
// thread t drawing from curand_init(seed, t, philox_offset): its k-th
// Philox block is the one at counter philox_offset / 4 + k + t * 2^64. A distribution whose
// elements take w stream words (distribution.h) yields U = 4 / w elements
// per block, and element e of the row-major tensor is
//     element floor(e / G) of thread (e mod G)'s stream
// (block floor(e / (G U)), lane (e mod G U) / G). Every thread draws
// K = ceil(N / (G U)) blocks, and the generator's Philox offset advances by
// 4 K.
//
// The Philox offset is PyTorch's name and unit (CUDAGeneratorImpl's
// philox_offset_per_thread, torch.cuda's get_offset): 4 * the Philox blocks
// each thread used, a multiple of 4. It is not FillOptions::element_offset,
// which counts elements of the stream order.
// Values are SPEC.md section 8's formulas, as in stream order.
//
// Tensors of up to sm_count * threads_per_sm elements (rounded down to 256)
// get one element per thread, whatever the GPU: GpuGeometry{} (zeros)
// replays them, and any tensor as a GPU with unlimited threads would fill
// it. Larger tensors depend on the GPU's geometry (kGpuPresets, or
// torch.cuda.get_device_properties: multi_processor_count and
// max_threads_per_multi_processor).
#ifndef RANDTENSOR_REPLAY_H_
#define RANDTENSOR_REPLAY_H_

#include <cstdint>

#include "randtensor/export.h"
#include "randtensor/philox.h"
#include "randtensor/status.h"

namespace randtensor {

enum class DataType : int32_t;  // fill.h

// Which element of the output reads which stream words (FillOptions::order).
enum class ElementOrder : int32_t {
  kStream = 0,     // element e reads stream words [w e, w e + w) (fill.h)
  kTorchCuda = 1,  // PyTorch's CUDA distribution kernels (above)
};

// A CUDA GPU's launch limits as PyTorch reads them. Zeros: no limit (one
// element per thread); otherwise both are needed, threads_per_sm >= 256.
struct GpuGeometry {
  int32_t sm_count = 0;        // cudaDeviceProp::multiProcessorCount
  int32_t threads_per_sm = 0;  // cudaDeviceProp::maxThreadsPerMultiProcessor
};

struct GpuPreset {
  const char* name;  // lower case: "h100-sxm", "a100", ...
  GpuGeometry geometry;
};

// The presets (static storage); *count receives their number.
RANDTENSOR_API const GpuPreset* GpuPresets(int* count) noexcept;

// The preset called `name` (case ignored), or nullptr.
RANDTENSOR_API const GpuPreset* FindGpuPreset(const char* name) noexcept;

// PyTorch's CUDA generator state (seed, philox_offset), as
// torch.cuda.get_rng_state holds it, as a PhiloxState: key (seed mod 2^32,
// seed >> 32), counter philox_offset / 4. PyTorch keeps it at multiples of
// 4; another value is an error naming it.
RANDTENSOR_API Status TorchCudaState(uint64_t seed, uint64_t philox_offset,
                                     PhiloxState* state) noexcept;

// The Philox offset a state stands for: 4 * (counter words 0-1). Counter
// words 2-3 must be 0 and words 0-1 below 2^62, else an error.
RANDTENSOR_API Status TorchCudaOffset(const PhiloxState& state, uint64_t* philox_offset) noexcept;

// Threads G that PyTorch launches for `count` elements on `gpu` (above),
// or an error naming a bad geometry.
RANDTENSOR_API Status TorchCudaThreads(uint64_t count, const GpuGeometry& gpu,
                                       uint64_t* threads) noexcept;

// PyTorch CUDA's fused dropout (native_dropout(x, p, train=True), also what
// F.dropout runs when not in place), replayed: `count` contiguous elements of
// `dtype` (float32, float64, float16, bfloat16) from `input` to `output`
// (may be the same memory) and, unless null, the keep mask to `mask` (one
// byte 0 or 1 per element, as torch.bool). ORDER.md section 6: the grid of
// the distributions, keep = u32(word) < acc(1 - p), output = x * keep *
// acc(1 / acc(1 - p)) in acc = float (double for float64), rounded once to
// dtype. The element order depends on PyTorch's vector width: 16 / element
// size capped by `max_vector` (what the input's address allows: 8 for a
// fresh allocation, 4, 2 or 1 for an offset view; 0 means 8), then halved
// until it divides count. `*out_state` (may be null or alias in_state) is
// the generator's next state: philox_offset / 4 advanced by ceil(count / (4 G)),
// which PyTorch reserves even where its vectorized kernel reads further.
// 0 < p < 1 (PyTorch draws nothing otherwise); threads as FillOptions.
RANDTENSOR_API Status TorchCudaDropout(DataType dtype, uint64_t count, const void* input,
                                       void* output, void* mask, double p,
                                       const PhiloxState& in_state, PhiloxState* out_state,
                                       const GpuGeometry& gpu, int32_t max_vector = 0,
                                       uint32_t threads = 0) noexcept;

// cuRAND's host generator CURAND_RNG_PSEUDO_PHILOX4_32_10 (default
// ordering; tests/reference/curand_host/ORDERING.md, measured on an H100
// with cuRAND 10.4): 65,536 subsequences. With the generator at position P
// (curandSetGeneratorOffset sets it) output i, e = P + i, is word e mod 4 of
// Philox block S + (e / 4) / 65536 of subsequence (e / 4) mod 65536; the
// double functions take two blocks per subsequence and round (ORDERING.md).
// Values are SPEC.md section 8's u32 / u53 / Box-Muller without PyTorch's
// flip of 1.0 (cuRAND's uniforms are in (0, 1]), normals z * stddev + mean.
struct CurandHostGenerator {
  uint64_t seed = 0;    // curandSetPseudoRandomGeneratorSeed (cuRAND's default: 0)
  uint64_t offset = 0;  // P: outputs drawn so far plus curandSetGeneratorOffset's
  uint64_t skew = 0;    // S: blocks the double functions' rounds moved ahead (0 after an offset is set)
};

enum class CurandHostFunction : int32_t {
  kGenerate = 0,        // curandGenerate: uint32
  kUniform = 1,         // curandGenerateUniform: float
  kUniformDouble = 2,   // curandGenerateUniformDouble: double
  kNormal = 3,          // curandGenerateNormal: float (mean, stddev)
  kNormalDouble = 4,    // curandGenerateNormalDouble: double
};

// Writes `count` outputs of `function` to `out` (uint32, float or double,
// aligned to its size) from `*generator` and advances it as cuRAND does
// (offset += count; the skew as ORDERING.md says). Normals within SPEC.md's
// bounds of the exact formula (the GPU's own differ by up to ~4e-6 in
// float). On error nothing is written and the generator is unchanged.
RANDTENSOR_API Status CurandHostGenerate(CurandHostGenerator* generator,
                                         CurandHostFunction function, void* out, uint64_t count,
                                         double mean = 0, double stddev = 1,
                                         uint32_t threads = 0) noexcept;

}  // namespace randtensor

#endif  // RANDTENSOR_REPLAY_H_
