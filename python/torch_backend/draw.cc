#include "draw.h"

#include <ATen/MemoryOverlap.h>
#include <ATen/Parallel.h>
#include <ATen/TensorIterator.h>
#include <ATen/Utils.h>
#include <ATen/core/DistributionsHelper.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

#include "first_touch.h"
#include "stream_position.h"

namespace randtensor_torch {
namespace {

// Read on every draw, written by install(): two atomics, not a lock.
std::atomic<int32_t> order{static_cast<int32_t>(randtensor::ElementOrder::kStream)};
std::atomic<int64_t> geometry{0};  // sm_count << 32 | threads_per_sm

// Fills `tensor` in its logical order from `state`. PyTorch's strides are
// never negative, so the buffer runs from the data pointer to the element
// furthest from it.
void FillStrided(const char* op, const at::Tensor& tensor, randtensor::DataType type,
                 const randtensor::FillOptions& options, const randtensor::PhiloxState& state,
                 randtensor::PhiloxState* next) {
  const int64_t element = tensor.element_size();
  const int64_t count = tensor.numel();
  randtensor::TensorDesc desc;
  desc.dtype = type;
  randtensor::Status status;
  if (tensor.is_contiguous()) {  // logical order is memory order: one packed row
    PrepareFirstTouch(tensor.data_ptr(), static_cast<size_t>(count * element), options.threads);
    desc.rank = 1;
    desc.sizes = &count;
    status = randtensor::Fill(desc, tensor.data_ptr(), static_cast<uint64_t>(count * element),
                              state, next, options);
  } else {
    int64_t last = 0;  // elements from the first element to the furthest
    for (int64_t d = 0; d < tensor.dim(); ++d) last += (tensor.size(d) - 1) * tensor.stride(d);
    desc.rank = static_cast<int32_t>(tensor.dim());
    desc.sizes = tensor.sizes().data();
    desc.strides = tensor.strides().data();
    status = randtensor::Fill(desc, tensor.data_ptr(), static_cast<uint64_t>((last + 1) * element),
                              state, next, options);
  }
  TORCH_CHECK(status.ok(), op, ": ", status.message());
}

// The GPU numbers elements as a TensorIterator visits them: dimensions
// sorted by stride and merged where they can be. The iterator's shape
// (fastest first) reversed is a row-major shape whose packed fill is the
// GPU's, placed in the tensor through the iterator's own strides.
void FillInIteratorOrder(const char* op, const at::Tensor& tensor, randtensor::DataType type,
                         const randtensor::FillOptions& options,
                         const randtensor::PhiloxState& state, randtensor::PhiloxState* next) {
  auto iter = at::TensorIterator::borrowing_nullary_op(tensor);
  const int ndim = iter.ndim();
  std::vector<int64_t> sizes(ndim), strides(ndim);
  bool packed = true;
  int64_t expected = 1;
  for (int d = 0; d < ndim; ++d) {
    sizes[ndim - 1 - d] = iter.shape()[d];
    strides[ndim - 1 - d] = iter.strides(0)[d] / tensor.element_size();
    packed = packed && (iter.shape()[d] == 1 || strides[ndim - 1 - d] == expected);
    expected *= iter.shape()[d];
  }
  at::Tensor target = tensor.as_strided(sizes, strides, tensor.storage_offset());
  if (packed) {
    FillStrided(op, target, type, options, state, next);
  } else {
    at::Tensor block = at::empty(sizes, tensor.options());
    FillStrided(op, block, type, options, state, next);
    target.copy_(block);
  }
}

}  // namespace

Settings CurrentSettings() {
  Settings now;
  now.order = static_cast<randtensor::ElementOrder>(order.load(std::memory_order_acquire));
  const int64_t packed = geometry.load(std::memory_order_acquire);
  now.gpu.sm_count = static_cast<int32_t>(packed >> 32);
  now.gpu.threads_per_sm = static_cast<int32_t>(packed & 0xFFFFFFFF);
  return now;
}

void SetSettings(const Settings& settings) {
  geometry.store(int64_t{settings.gpu.sm_count} << 32 | settings.gpu.threads_per_sm,
                 std::memory_order_release);
  order.store(static_cast<int32_t>(settings.order), std::memory_order_release);
}

at::CPUGeneratorImpl* CpuGenerator(const c10::optional<at::Generator>& generator) {
  if (!generator.has_value() || !generator->defined()) {
    // The default generator's object lives as long as the process (its state
    // changes in place): looked up once.
    static at::CPUGeneratorImpl* const default_generator =
        at::check_generator<at::CPUGeneratorImpl>(at::detail::getDefaultCPUGenerator());
    return default_generator;
  }
  return at::get_generator_or_default<at::CPUGeneratorImpl>(generator,
                                                             at::detail::getDefaultCPUGenerator());
}

bool LibraryType(at::ScalarType type, randtensor::DataType* out) {
  using randtensor::DataType;
  switch (type) {
    case at::kFloat: *out = DataType::kFloat32; return true;
    case at::kDouble: *out = DataType::kFloat64; return true;
    case at::kHalf: *out = DataType::kFloat16; return true;
    case at::kBFloat16: *out = DataType::kBfloat16; return true;
    case at::kByte: *out = DataType::kUint8; return true;
    case at::kBool: *out = DataType::kBool; return true;
    case at::kInt: *out = DataType::kInt32; return true;
    case at::kLong: *out = DataType::kInt64; return true;
    default: return false;
  }
}

randtensor::PhiloxState StateAt(const char* op, at::CPUGeneratorImpl* gen, uint64_t offset) {
  randtensor::PhiloxState state;
  const randtensor::Status status =
      randtensor::TorchCudaState(gen->current_seed(), offset, &state);
  TORCH_CHECK(status.ok(), op, ": ", status.message());
  return state;
}

uint64_t OffsetOf(const char* op, const randtensor::PhiloxState& state) {
  uint64_t offset = 0;
  const randtensor::Status status = randtensor::TorchCudaOffset(state, &offset);
  TORCH_CHECK(status.ok(), op, ": ", status.message());
  return offset;
}

uint32_t FillThreads(int64_t elements) {
  // Below this the library runs on the caller anyway: skip asking torch.
  if (elements < (int64_t{1} << 15)) return 1;
  return at::in_parallel_region() ? 1u : static_cast<uint32_t>(std::max(1, at::get_num_threads()));
}

void DrawLocked(const char* op, const at::Tensor& tensor,
                const randtensor::Distribution& distribution, at::CPUGeneratorImpl* gen,
                uint64_t offset, uint64_t* next_offset) {
  randtensor::DataType type;
  if (distribution.kind == randtensor::DistributionKind::kBits) {
    // The stream's words as uint32, into any 4-byte type's memory.
    TORCH_CHECK(tensor.element_size() == 4, op, ": stream words fill 4-byte types, not ",
                tensor.scalar_type());
    type = randtensor::DataType::kUint32;
  } else {
    TORCH_CHECK(LibraryType(tensor.scalar_type(), &type), op, ": randtensor cannot fill ",
                tensor.scalar_type());
  }
  *next_offset = offset;
  if (tensor.numel() == 0) return;  // PyTorch draws nothing for an empty tensor.
  if (!tensor.is_contiguous()) at::assert_no_internal_overlap(tensor);  // PyTorch's message
  const randtensor::PhiloxState state = StateAt(op, gen, offset);
  randtensor::PhiloxState next;
  const Settings now = CurrentSettings();
  randtensor::FillOptions options;
  options.threads = FillThreads(tensor.numel());
  options.distribution = distribution;
  options.order = now.order;
  options.gpu = now.gpu;
  // A contiguous tensor is visited in memory order by both.
  if (now.order == randtensor::ElementOrder::kStream || tensor.is_contiguous()) {
    FillStrided(op, tensor, type, options, state, &next);
  } else {
    FillInIteratorOrder(op, tensor, type, options, state, &next);
  }
  *next_offset = OffsetOf(op, next);
}

void Draw(const char* op, const at::Tensor& tensor, const randtensor::Distribution& distribution,
          at::CPUGeneratorImpl* gen) {
  std::lock_guard<std::mutex> lock(gen->mutex_);
  uint64_t next = 0;
  DrawLocked(op, tensor, distribution, gen, ReadOffset(gen), &next);
  WriteOffset(gen, next);
}

}  // namespace randtensor_torch
