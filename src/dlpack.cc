// DLPack: a DLTensor is checked in DLPack's own vocabulary (device, dtype,
// ndim, shape, strides, data, byte_offset), then becomes a TensorDesc, the
// address of element (0, ..., 0) and a buffer of exactly its span, and the
// native Fill does the rest. The C entry point, randtensor_fill_dltensor,
// lives with the other C wrappers in c_api.cc.

#include "randtensor/dlpack.h"

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "randtensor/fill.h"
#include "src/layout.h"
#include "src/plan.h"

namespace randtensor {
namespace {

constexpr detail::FieldNames kDLPackNames = {"ndim", "shape", "strides"};

const char* DeviceTypeName(int type) {
  switch (type) {
    case kDLCPU: return "kDLCPU";
    case kDLCUDA: return "kDLCUDA";
    case kDLCUDAHost: return "kDLCUDAHost";
    case kDLOpenCL: return "kDLOpenCL";
    case kDLVulkan: return "kDLVulkan";
    case kDLMetal: return "kDLMetal";
    case kDLVPI: return "kDLVPI";
    case kDLROCM: return "kDLROCM";
    case kDLROCMHost: return "kDLROCMHost";
    case kDLExtDev: return "kDLExtDev";
    case kDLCUDAManaged: return "kDLCUDAManaged";
  }
  return "an unknown device type";
}

// A producer built against a newer DLPack sends device types this header's
// enum does not list (kDLHexagon = 16, ...), and loading such a value through
// the C++ enum type is undefined: read the raw bits.
int32_t RawDeviceType(const DLDevice& device) {
  static_assert(sizeof(device.device_type) == sizeof(int32_t), "DLPack enums are 32-bit");
  int32_t type;
  std::memcpy(&type, &device.device_type, sizeof(type));
  return type;
}

// Only memory the CPU can address directly: a pinned or managed CUDA
// allocation qualifies, device memory does not.
Status CheckDevice(const DLDevice& device) {
  const int type = RawDeviceType(device);
  if (type == kDLCPU || type == kDLCUDAHost || type == kDLCUDAManaged) return Status();
  return Status::Error(StatusCode::kUnsupported,
                       "device.device_type = %d (%s): only memory the CPU can address "
                       "(kDLCPU, kDLCUDAHost, kDLCUDAManaged) is supported",
                       type, DeviceTypeName(type));
}

const char* TypeCodeName(uint8_t code) {
  switch (code) {
    case kDLInt: return "int";
    case kDLUInt: return "uint";
    case kDLFloat: return "float";
    case kDLOpaqueHandle: return "handle";
    case kDLBfloat: return "bfloat";
    case kDLComplex: return "complex";
  }
  return nullptr;
}

// The library's type of a DLPack dtype (one lane): uint8/32, int32/64,
// float16/32/64, bfloat16 and bool (kDLBool = 6 in DLPack 0.8+; this header
// is older, hence the number).
Status TypeOf(const DLDataType& dtype, DataType* type) {
  constexpr uint8_t kDLBoolCode = 6;
  const uint8_t code = dtype.code;
  const unsigned bits = dtype.bits;
  bool found = dtype.lanes == 1;
  if (found && code == kDLUInt && bits == 32) *type = DataType::kUint32;
  else if (found && code == kDLUInt && bits == 8) *type = DataType::kUint8;
  else if (found && code == kDLInt && bits == 32) *type = DataType::kInt32;
  else if (found && code == kDLInt && bits == 64) *type = DataType::kInt64;
  else if (found && code == kDLFloat && bits == 16) *type = DataType::kFloat16;
  else if (found && code == kDLFloat && bits == 32) *type = DataType::kFloat32;
  else if (found && code == kDLFloat && bits == 64) *type = DataType::kFloat64;
  else if (found && code == kDLBfloat && bits == 16) *type = DataType::kBfloat16;
  else if (found && code == kDLBoolCode && bits == 8) *type = DataType::kBool;
  else found = false;
  if (found) return Status();
  // NumPy-style name, "x<lanes>" for vector types: "float32", "uint32x2".
  char name[32] = "an unknown type code";
  const char* code_name = TypeCodeName(dtype.code);
  if (code_name != nullptr) {
    const int used = std::snprintf(name, sizeof(name), "%s%u", code_name, unsigned{dtype.bits});
    if (dtype.lanes != 1) {  // short names: `used` is far below sizeof(name)
      std::snprintf(name + used, sizeof(name) - used, "x%u", unsigned{dtype.lanes});
    }
  }
  return Status::Error(StatusCode::kUnsupported,
                       "dtype = %s (code %u, bits %u, lanes %u): not a type randtensor fills "
                       "(uint8, uint32, int32, int64, float16, float32, float64, bfloat16, bool)",
                       name, unsigned{dtype.code}, unsigned{dtype.bits}, unsigned{dtype.lanes});
}

// The address of element (0, ..., 0), data + byte_offset, once it is known
// to be non-null, aligned and inside the address space. An empty tensor is
// never written, so its pointers are not checked (producers leave them
// arbitrary) and its origin is null.
Status Origin(const DLTensor& tensor, uint64_t count, int element_size, void** origin) {
  *origin = nullptr;
  if (count == 0) return Status();
  const uintptr_t data = reinterpret_cast<uintptr_t>(tensor.data);
  const uint64_t offset = tensor.byte_offset;
  if (tensor.data == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "data is null for %" PRIu64 " elements",
                         count);
  }
  if (offset % static_cast<uint64_t>(element_size) != 0) {
    return Status::Error(StatusCode::kMisaligned,
                         "byte_offset = %" PRIu64 " is not a multiple of the element size (%d "
                         "bytes)",
                         offset, element_size);
  }
  if (offset > UINTPTR_MAX - data) {  // before data + offset is formed: it would wrap
    return Status::Error(StatusCode::kOverflow,
                         "byte_offset = %" PRIu64 " from data = %p runs past the end of the "
                         "address space",
                         offset, tensor.data);
  }
  // byte_offset is a multiple of 4 here, so data + byte_offset is aligned iff data is.
  if (data % static_cast<uintptr_t>(element_size) != 0) {
    return Status::Error(StatusCode::kMisaligned,
                         "data = %p (+ byte_offset = %" PRIu64 ") is not aligned to the "
                         "element size (%d bytes)",
                         tensor.data, offset, element_size);
  }
  *origin = static_cast<char*>(tensor.data) + offset;
  return Status();
}

}  // namespace

Status FillDLTensor(const DLTensor& tensor, const PhiloxState& in_state, PhiloxState* out_state,
                    const FillOptions& options) noexcept {
  const PhiloxState state = in_state;  // read first: out_state may be the same memory
  Status status = CheckDevice(tensor.device);
  if (status.ok() && options.region != nullptr) {  // refused, never silently ignored
    status = Status::Error(StatusCode::kUnsupported,
                           "options.region is set: DLPack fills take no region in this version "
                           "(randtensor::Fill does)");
  }
  DataType type = DataType::kUint32;
  if (status.ok()) status = TypeOf(tensor.dtype, &type);
  const int element_size = ElementSize(type);
  detail::GenerateKind kind = detail::GenerateKind::kBitsUint32;
  const detail::KindParams* params = nullptr;
  if (status.ok()) status = detail::ResolveDistribution(type, options.distribution, &kind, &params);
  // Analyzed once, with DLPack's field names, and planned from that.
  detail::Layout layout;
  if (status.ok()) {
    status = detail::AnalyzeLayout(tensor.ndim, tensor.shape, tensor.strides, element_size,
                                   kDLPackNames, &layout);
  }
  void* origin = nullptr;
  if (status.ok()) status = Origin(tensor, layout.count, element_size, &origin);
  // DLPack carries no buffer length: the buffer is exactly the elements'
  // span, from the lowest element (which negative strides put below origin).
  const uint64_t below = static_cast<uint64_t>(-layout.low) * static_cast<uint64_t>(element_size);
  if (status.ok() && layout.count != 0 && below > reinterpret_cast<uintptr_t>(origin)) {
    status = Status::Error(StatusCode::kOverflow,
                           "strides reach %lld elements below data + byte_offset = %p, past "
                           "address 0",
                           static_cast<long long>(layout.low), origin);
  }
  detail::Plan plan;
  if (status.ok()) {
    void* lowest = layout.count != 0 ? static_cast<char*>(origin) - below : nullptr;
    // The exact span (min_bytes rounds up to 4 bytes, DirectML's rule).
    const uint64_t span = layout.count != 0 ? static_cast<uint64_t>(layout.high - layout.low + 1) *
                                                  static_cast<uint64_t>(element_size)
                                            : 0;
    status = detail::PlanFill(layout, kind, *params, lowest, span, below, out_state, options,
                              &plan);
  }
  if (!status.ok()) return status;
  detail::ExecutePlan(plan, state, out_state, options.info);
  return Status();
}

}  // namespace randtensor
