// The native fill: validate everything, then hand the work to the writer.

#include "randtensor/fill.h"

#include <cstdint>

#include "src/dispatch.h"
#include "src/layout.h"
#include "src/writer.h"

namespace randtensor {
namespace {

constexpr detail::FieldNames kNativeNames = {"rank", "sizes", "strides"};

bool RangesOverlap(uintptr_t a, uint64_t a_bytes, uintptr_t b, uint64_t b_bytes) {
  if (a_bytes == 0 || b_bytes == 0) return false;
  // a and b overlap iff each starts before the other ends; compare distances
  // so that no end address is formed (it could wrap).
  return a <= b ? b - a < a_bytes : a - b < b_bytes;
}

}  // namespace

int ElementSize(DataType type) noexcept {
  switch (type) {
    case DataType::kUint32: return 4;
  }
  return 0;
}

namespace {

// The descriptor's own rules: data type and layout.
Status Analyze(const TensorDesc& desc, int* element_size, detail::Layout* layout) {
  *element_size = ElementSize(desc.dtype);
  if (*element_size == 0) {
    return Status::Error(StatusCode::kUnsupported, "dtype = %d is not a supported data type",
                         static_cast<int>(desc.dtype));
  }
  return detail::AnalyzeLayout(desc.rank, desc.sizes, desc.strides, *element_size,
                               kNativeNames, layout);
}

}  // namespace

Status MinBufferBytes(const TensorDesc& desc, uint64_t* bytes) noexcept {
  if (bytes == nullptr) return Status::Error(StatusCode::kInvalidArgument, "bytes is null");
  int element_size = 0;
  detail::Layout layout;
  Status status = Analyze(desc, &element_size, &layout);
  if (status.ok()) *bytes = layout.min_bytes;
  return status;
}

Status Fill(const TensorDesc& desc, void* data, uint64_t buffer_bytes,
            const PhiloxState& in_state, PhiloxState* out_state,
            const FillOptions& options) noexcept {
  // Read the whole input state first: out_state may be the same memory.
  const PhiloxState state = in_state;

  int element_size = 0;
  detail::Layout layout;
  Status status = Analyze(desc, &element_size, &layout);
  if (!status.ok()) return status;

  const uintptr_t addr = reinterpret_cast<uintptr_t>(data);
  if (layout.count != 0) {
    if (data == nullptr) {
      return Status::Error(StatusCode::kInvalidArgument, "data is null for %llu elements",
                           static_cast<unsigned long long>(layout.count));
    }
    if (addr % static_cast<uintptr_t>(element_size) != 0) {
      return Status::Error(StatusCode::kMisaligned,
                           "data = %p is not aligned to the element size (%d bytes)", data,
                           element_size);
    }
    // Every element must be addressable: data + low * size >= 0 and
    // data + (high + 1) * size <= 2^64 (the span fits in 64 bits already).
    const uint64_t below = static_cast<uint64_t>(-layout.low) * element_size;
    const uint64_t above = (static_cast<uint64_t>(layout.high) + 1) * element_size;
    if (layout.low < 0 && below > addr) {
      return Status::Error(StatusCode::kOverflow,
                           "strides reach %lld elements below data = %p, past address 0",
                           static_cast<long long>(layout.low), data);
    }
    if (above - 1 > UINTPTR_MAX - addr) {
      return Status::Error(StatusCode::kOverflow,
                           "strides reach %lld elements above data = %p, past the end of the "
                           "address space",
                           static_cast<long long>(layout.high), data);
    }
  }
  if (buffer_bytes < layout.min_bytes) {
    return Status::Error(StatusCode::kBufferTooSmall,
                         "buffer_bytes = %llu is less than the %llu bytes the layout spans",
                         static_cast<unsigned long long>(buffer_bytes),
                         static_cast<unsigned long long>(layout.min_bytes));
  }
  if (options.element_offset > UINT64_MAX - layout.count) {
    return Status::Error(StatusCode::kOverflow,
                         "element_offset = %llu plus %llu elements overflows 64 bits",
                         static_cast<unsigned long long>(options.element_offset),
                         static_cast<unsigned long long>(layout.count));
  }
  if (options.stores != StoreMode::kAuto && options.stores != StoreMode::kRegular &&
      options.stores != StoreMode::kStreaming) {
    return Status::Error(StatusCode::kInvalidArgument, "stores = %d is not a StoreMode",
                         static_cast<int>(options.stores));
  }
  const uintptr_t buffer = addr - static_cast<uintptr_t>(-layout.low) * element_size;
  if (out_state != nullptr && data != nullptr &&
      RangesOverlap(buffer, buffer_bytes, reinterpret_cast<uintptr_t>(out_state),
                    sizeof(PhiloxState))) {
    return Status::Error(StatusCode::kOverlap,
                         "out_state = %p overlaps the output buffer (%p, %llu bytes)",
                         static_cast<void*>(out_state), reinterpret_cast<void*>(buffer),
                         static_cast<unsigned long long>(buffer_bytes));
  }
  const detail::KernelTable* kernels = nullptr;
  status = detail::ActiveKernels(&kernels);
  if (!status.ok()) return status;

  // Validated: from here on nothing fails.
  if (layout.count != 0) {
    detail::WriteTensor(layout, static_cast<uint32_t*>(data), *kernels, state, options,
                        options.info);
  } else if (options.info != nullptr) {
    *options.info = FillInfo();
  }
  if (out_state != nullptr) {
    *out_state = philox::Advance(state, options.element_offset + layout.count);
  }
  return Status();
}

}  // namespace randtensor
