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

// Fills `tensor` in its logical order (stream) or as a packed row-major
// block (torch_cuda) from `state`.
void FillStrided(const char* op, const at::Tensor& tensor, randtensor::DataType type,
                 const randtensor::FillOptions& options, const randtensor::PhiloxState& state,
                 randtensor::PhiloxState* next) {
  const int64_t element = tensor.element_size();
  randtensor::TensorDesc desc;
  desc.dtype = type;
  if (tensor.is_contiguous()) {  // logical order is memory order: one packed row
    const int64_t count = tensor.numel();
    PrepareFirstTouch(tensor.data_ptr(), static_cast<size_t>(count * element));
    desc.rank = 1;
    desc.sizes = &count;
    const randtensor::Status status = randtensor::Fill(
        desc, tensor.data_ptr(), static_cast<uint64_t>(count * element), state, next, options);
    TORCH_CHECK(status.ok(), op, ": ", status.message());
    return;
  }
  const int64_t rank = tensor.dim();
  TORCH_CHECK(rank <= randtensor::kMaxRank, op, ": randtensor fills tensors of up to ",
              randtensor::kMaxRank, " dimensions, not ", rank);
  // The buffer spans the lowest to the highest element address; element
  // (0, ..., 0) lies `low` elements after its start.
  int64_t low = 0, high = 0;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t reach = (tensor.size(d) - 1) * tensor.stride(d);
    (reach < 0 ? low : high) += reach;
  }
  desc.rank = static_cast<int32_t>(rank);
  desc.sizes = tensor.sizes().data();
  desc.strides = tensor.strides().data();
  desc.byte_offset = static_cast<uint64_t>(-low * element);
  char* start = static_cast<char*>(tensor.data_ptr()) + low * element;
  const uint64_t bytes = static_cast<uint64_t>((high - low + 1) * element);
  const randtensor::Status status =
      randtensor::Fill(desc, start, bytes, state, next, options);
  TORCH_CHECK(status.ok(), op, ": ", status.message());
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
  randtensor::PhiloxState state, next;
  randtensor::Status status = randtensor::TorchCudaState(gen->current_seed(), offset, &state);
  TORCH_CHECK(status.ok(), op, ": ", status.message());

  const Settings now = CurrentSettings();
  randtensor::FillOptions options;
  options.threads = FillThreads(tensor.numel());
  options.distribution = distribution;
  options.order = now.order;
  options.gpu = now.gpu;
  if (now.order == randtensor::ElementOrder::kStream) {
    FillStrided(op, tensor, type, options, state, &next);
  } else {
    // The GPU numbers elements as a TensorIterator visits them: dimensions
    // sorted by stride and merged where they can be. The iterator's shape
    // (fastest first) reversed is a row-major shape whose packed fill is the
    // GPU's; placed in the tensor through the iterator's own strides.
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
      FillStrided(op, target, type, options, state, &next);
    } else {
      at::Tensor block = at::empty(sizes, tensor.options());
      FillStrided(op, block, type, options, state, &next);
      target.copy_(block);
    }
  }
  status = randtensor::TorchCudaOffset(next, next_offset);
  TORCH_CHECK(status.ok(), op, ": ", status.message());
}

void Draw(const char* op, const at::Tensor& tensor, const randtensor::Distribution& distribution,
          at::CPUGeneratorImpl* gen) {
  std::lock_guard<std::mutex> lock(gen->mutex_);
  uint64_t next = 0;
  DrawLocked(op, tensor, distribution, gen, ReadOffset(gen), &next);
  WriteOffset(gen, next);
}

}  // namespace randtensor_torch
