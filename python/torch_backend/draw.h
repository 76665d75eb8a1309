// One draw: a randtensor fill of a torch CPU tensor from a torch generator's
// (seed, offset), in the element order the backend was installed with.
#ifndef RANDTENSOR_TORCH_DRAW_H_
#define RANDTENSOR_TORCH_DRAW_H_

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include "randtensor/fill.h"

namespace randtensor_torch {

// What install() chose. kStream: element e of the tensor's logical
// (row-major) order reads stream element e. kTorchCuda: the element order
// of PyTorch's CUDA kernels on the GPU `gpu` (replay.h), over the order in
// which a TensorIterator visits the tensor, which is what the GPU follows.
struct Settings {
  randtensor::ElementOrder order = randtensor::ElementOrder::kStream;
  randtensor::GpuGeometry gpu = {};
};
Settings CurrentSettings();
void SetSettings(const Settings& settings);

// The generator a call names, or the default CPU generator.
at::CPUGeneratorImpl* CpuGenerator(const c10::optional<at::Generator>& generator);

// randtensor's type for a torch dtype; false where it has none.
bool LibraryType(at::ScalarType type, randtensor::DataType* out);

// Fills `tensor` (CPU, any strides, a dtype LibraryType knows and
// `distribution` holds) from `gen`'s position and moves the position past
// the Philox blocks used. Takes gen->mutex_. An error the library reports
// (a parameter it cannot use) is raised naming `op`; nothing is written then.
void Draw(const char* op, const at::Tensor& tensor, const randtensor::Distribution& distribution,
          at::CPUGeneratorImpl* gen);

// The same with the generator's lock already held (two fills that must
// start at one position).
void DrawLocked(const char* op, const at::Tensor& tensor,
                const randtensor::Distribution& distribution, at::CPUGeneratorImpl* gen,
                uint64_t offset, uint64_t* next_offset);

// The library's state for torch.cuda's (seed, offset) of `gen`, and the
// offset a state after a fill stands for; errors are raised naming `op`.
randtensor::PhiloxState StateAt(const char* op, at::CPUGeneratorImpl* gen, uint64_t offset);
uint64_t OffsetOf(const char* op, const randtensor::PhiloxState& state);

// Threads for a fill of `elements`: torch's intra-op count, or 1 inside a
// parallel region or for a small fill.
uint32_t FillThreads(int64_t elements);

}  // namespace randtensor_torch

#endif  // RANDTENSOR_TORCH_DRAW_H_
