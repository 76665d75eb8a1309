// The DirectML-shaped entry point: DirectML's own rules and limits, checked
// with DirectML's field names, then the native fill.

#include "randtensor/directml.h"

#include <cstdio>
#include <new>

#include "src/layout.h"
#include "src/plan.h"

namespace randtensor {
namespace dml {
namespace {

__extension__ typedef __int128 i128;  // GCC and Clang

constexpr UINT kMaxDimensions = 8;               // feature level 4.0
constexpr uint64_t kMaxElements = 0xFFFFFFFFu;   // DirectML's per-tensor limit
constexpr UINT kStateSizes[4] = {1, 1, 1, 6};

int DataTypeSize(DML_TENSOR_DATA_TYPE type) {
  switch (type) {
    case DML_TENSOR_DATA_TYPE_UINT8:
    case DML_TENSOR_DATA_TYPE_INT8: return 1;
    case DML_TENSOR_DATA_TYPE_FLOAT16:
    case DML_TENSOR_DATA_TYPE_UINT16:
    case DML_TENSOR_DATA_TYPE_INT16: return 2;
    case DML_TENSOR_DATA_TYPE_FLOAT32:
    case DML_TENSOR_DATA_TYPE_UINT32:
    case DML_TENSOR_DATA_TYPE_INT32: return 4;
    case DML_TENSOR_DATA_TYPE_FLOAT64:
    case DML_TENSOR_DATA_TYPE_UINT64:
    case DML_TENSOR_DATA_TYPE_INT64: return 8;
    case DML_TENSOR_DATA_TYPE_UNKNOWN: break;
  }
  return 0;
}

// "{1,1,1,6}" for a list of UINTs.
void FormatList(const UINT* v, UINT n, char* buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (UINT i = 0; i < n && used + 1 < cap; ++i) {
    used += std::snprintf(buf + used, cap - used, "%s%u", i == 0 ? "{" : ",", v[i]);
  }
  if (used + 1 < cap) std::snprintf(buf + used, cap - used, "%s", n == 0 ? "{}" : "}");
}

// Sizes/Strides as the native layout wants them (64-bit, nullptr kept).
void Widen(const UINT* v, UINT n, int64_t* out) {
  for (UINT i = 0; i < n; ++i) out[i] = v[i];
}

// Checks the DML_TENSOR_DESC wrapper and returns its buffer description.
Status GetBufferDesc(const DML_TENSOR_DESC* tensor, const char* name,
                     const DML_BUFFER_TENSOR_DESC** out) {
  if (tensor == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "%s is null", name);
  }
  if (tensor->Type != DML_TENSOR_TYPE_BUFFER) {
    return Status::Error(StatusCode::kUnsupported,
                         "%s.Type = %d is not DML_TENSOR_TYPE_BUFFER (1)", name,
                         static_cast<int>(tensor->Type));
  }
  if (tensor->Desc == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "%s.Desc is null", name);
  }
  *out = static_cast<const DML_BUFFER_TENSOR_DESC*>(tensor->Desc);
  return Status();
}

// The checks every UINT32 buffer tensor here shares: data type, flags,
// alignment field.
Status CheckBufferFields(const DML_BUFFER_TENSOR_DESC& t, const char* name) {
  if (t.DataType != DML_TENSOR_DATA_TYPE_UINT32) {
    return Status::Error(StatusCode::kUnsupported,
                         "%s.DataType = %d is not DML_TENSOR_DATA_TYPE_UINT32 (3)", name,
                         static_cast<int>(t.DataType));
  }
  if ((t.Flags & ~DML_TENSOR_FLAG_OWNED_BY_DML) != 0) {
    return Status::Error(StatusCode::kInvalidArgument, "%s.Flags = 0x%x has unknown bits",
                         name, static_cast<unsigned>(t.Flags));
  }
  const UINT a = t.GuaranteedBaseOffsetAlignment;
  if (a != 0 && (a < 4 || (a & (a - 1)) != 0)) {
    return Status::Error(StatusCode::kMisaligned,
                         "%s.GuaranteedBaseOffsetAlignment = %u is not 0 or a power of two "
                         ">= 4 (the element size)",
                         name, a);
  }
  return Status();
}

// The state tensors: UINT32, sizes {1,1,1,6}, contiguous, at least 24 bytes.
Status CheckStateDesc(const DML_BUFFER_TENSOR_DESC& t, const char* name) {
  Status status = CheckBufferFields(t, name);
  if (!status.ok()) return status;
  if (t.DimensionCount != 4) {
    return Status::Error(StatusCode::kInvalidArgument, "%s.DimensionCount = %u must be 4", name,
                         t.DimensionCount);
  }
  if (t.Sizes == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "%s.Sizes is null", name);
  }
  for (int d = 0; d < 4; ++d) {
    if (t.Sizes[d] != kStateSizes[d]) {
      char list[64];
      FormatList(t.Sizes, 4, list, sizeof(list));
      return Status::Error(StatusCode::kInvalidArgument, "%s.Sizes = %s must be {1,1,1,6}",
                           name, list);
    }
  }
  if (t.Strides != nullptr && t.Strides[3] != 1) {
    return Status::Error(StatusCode::kUnsupported,
                         "%s.Strides[3] = %u: the six state words must be contiguous (1)", name,
                         t.Strides[3]);
  }
  if (t.TotalTensorSizeInBytes < sizeof(PhiloxState)) {
    return Status::Error(StatusCode::kBufferTooSmall,
                         "%s.TotalTensorSizeInBytes = %llu is less than the minimum 24", name,
                         static_cast<unsigned long long>(t.TotalTensorSizeInBytes));
  }
  return Status();
}

// What a binding is checked against: its tensor's size and alignment fields
// (copied when an operator is checked: DirectML's CreateOperator keeps no
// pointer into the caller's description either).
struct TensorFields {
  UINT64 total_bytes = 0;  // TotalTensorSizeInBytes
  UINT alignment = 0;      // GuaranteedBaseOffsetAlignment
};

TensorFields FieldsOf(const DML_BUFFER_TENSOR_DESC& t) {
  return {t.TotalTensorSizeInBytes, t.GuaranteedBaseOffsetAlignment};
}

// A binding against its tensor: present, large enough, aligned.
Status CheckBinding(const DML_BUFFER_BINDING& b, const TensorFields& t, const char* binding,
                    const char* tensor) {
  if (b.Data == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "%s.Data is null", binding);
  }
  if (b.SizeInBytes < t.total_bytes) {
    return Status::Error(StatusCode::kBufferTooSmall,
                         "%s.SizeInBytes = %llu is less than %s.TotalTensorSizeInBytes = %llu",
                         binding, static_cast<unsigned long long>(b.SizeInBytes), tensor,
                         static_cast<unsigned long long>(t.total_bytes));
  }
  const uintptr_t addr = reinterpret_cast<uintptr_t>(b.Data);
  const UINT a = t.alignment;
  if (a != 0 && addr % a != 0) {
    return Status::Error(StatusCode::kMisaligned,
                         "%s.Data = %p is not a multiple of %s.GuaranteedBaseOffsetAlignment = "
                         "%u",
                         binding, b.Data, tensor, a);
  }
  if (addr % 4 != 0) {
    return Status::Error(StatusCode::kMisaligned,
                         "%s.Data = %p is not aligned to the element size (4 bytes)", binding,
                         b.Data);
  }
  if (t.total_bytes > UINTPTR_MAX - addr + 1) {
    return Status::Error(StatusCode::kOverflow,
                         "%s.Data = %p plus %s.TotalTensorSizeInBytes = %llu runs past the end "
                         "of the address space",
                         binding, b.Data, tensor, static_cast<unsigned long long>(t.total_bytes));
  }
  return Status();
}

bool RangesOverlap(const void* a, uint64_t a_bytes, const void* b, uint64_t b_bytes) {
  const uintptr_t x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  if (a_bytes == 0 || b_bytes == 0) return false;
  return x <= y ? y - x < a_bytes : x - y < b_bytes;
}

}  // namespace

Status CalcBufferTensorSizeChecked(DML_TENSOR_DATA_TYPE dataType, UINT dimensionCount,
                                   const UINT* sizes, const UINT* strides,
                                   UINT64* bytes) noexcept {
  if (bytes == nullptr) return Status::Error(StatusCode::kInvalidArgument, "bytes is null");
  const int element_size = DataTypeSize(dataType);
  if (element_size == 0) {
    return Status::Error(StatusCode::kUnsupported, "dataType = %d is not a DirectML data type",
                         static_cast<int>(dataType));
  }
  if (dimensionCount < 1 || dimensionCount > kMaxDimensions) {
    return Status::Error(StatusCode::kUnsupported, "dimensionCount = %u is outside 1 to %u",
                         dimensionCount, kMaxDimensions);
  }
  if (sizes == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "sizes is null");
  }
  for (UINT d = 0; d < dimensionCount; ++d) {
    if (sizes[d] == 0) {
      return Status::Error(StatusCode::kInvalidArgument, "sizes[%u] = 0: sizes must be >= 1", d);
    }
  }
  // DirectML's formula, which (unlike the layout rules) does not reject
  // overlapping strides: it only measures the span.
  // Every step is checked against 2^64 before the next can overflow 128 bits.
  const i128 limit = static_cast<i128>(UINT64_MAX - 3);
  i128 span = 1;
  for (UINT d = 0; d < dimensionCount && span <= limit; ++d) {
    span = strides == nullptr ? span * sizes[d]
                              : span + static_cast<i128>(sizes[d] - 1) * strides[d];
  }
  if (span > limit || span * element_size > limit) {
    return Status::Error(StatusCode::kOverflow, "sizes and strides span more than 2^64 bytes");
  }
  *bytes = (static_cast<UINT64>(span * element_size) + 3) & ~UINT64{3};
  return Status();
}

UINT64 CalcBufferTensorSize(DML_TENSOR_DATA_TYPE dataType, UINT dimensionCount,
                            const UINT* sizes, const UINT* strides) noexcept {
  UINT64 bytes = 0;
  return CalcBufferTensorSizeChecked(dataType, dimensionCount, sizes, strides, &bytes).ok()
             ? bytes
             : 0;
}

// What a valid operator description boils down to: everything an execution
// needs besides its bindings (RandomGeneratorOperator keeps one).
struct CheckedOperator {
  TensorFields in, out, out_state;
  bool has_out_state = false;  // desc.OutputStateTensor was set
  detail::Layout layout;       // the output tensor's, analyzed once
};

namespace {

// Every rule that does not involve a binding (DirectML's CreateOperator).
Status CheckOperator(const DML_RANDOM_GENERATOR_OPERATOR_DESC& desc, CheckedOperator* op) {
  if (desc.Type != DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10) {
    return Status::Error(StatusCode::kUnsupported,
                         "Type = %d is not DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10 (0)",
                         static_cast<int>(desc.Type));
  }
  const DML_BUFFER_TENSOR_DESC* in = nullptr;
  const DML_BUFFER_TENSOR_DESC* out = nullptr;
  const DML_BUFFER_TENSOR_DESC* out_state = nullptr;
  Status status = GetBufferDesc(desc.InputStateTensor, "InputStateTensor", &in);
  if (status.ok()) status = CheckStateDesc(*in, "InputStateTensor");
  if (status.ok()) status = GetBufferDesc(desc.OutputTensor, "OutputTensor", &out);
  if (status.ok()) status = CheckBufferFields(*out, "OutputTensor");
  if (status.ok() && desc.OutputStateTensor != nullptr) {
    status = GetBufferDesc(desc.OutputStateTensor, "OutputStateTensor", &out_state);
    // One description for both states (the usual in-place update): checked once.
    if (status.ok() && out_state != in) {
      status = CheckStateDesc(*out_state, "OutputStateTensor");
    }
  }
  if (!status.ok()) return status;

  // The output tensor: DirectML's limits, then the shared layout rules.
  if (out->DimensionCount < 1 || out->DimensionCount > kMaxDimensions) {
    return Status::Error(StatusCode::kUnsupported,
                         "OutputTensor.DimensionCount = %u is outside 1 to %u",
                         out->DimensionCount, kMaxDimensions);
  }
  if (out->Sizes == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "OutputTensor.Sizes is null");
  }
  uint64_t count = 1;
  for (UINT d = 0; d < out->DimensionCount; ++d) {
    if (out->Sizes[d] == 0) {
      return Status::Error(StatusCode::kInvalidArgument,
                           "OutputTensor.Sizes[%u] = 0: DirectML sizes must be >= 1", d);
    }
    count *= out->Sizes[d];  // cannot overflow before exceeding the limit below
    if (count > kMaxElements) {
      char list[128];
      FormatList(out->Sizes, out->DimensionCount, list, sizeof(list));
      return Status::Error(StatusCode::kUnsupported,
                           "OutputTensor.Sizes = %s hold more than DirectML's limit of "
                           "4294967295 elements",
                           list);
    }
  }
  int64_t sizes[kMaxRank];
  int64_t strides[kMaxRank];
  Widen(out->Sizes, out->DimensionCount, sizes);
  if (out->Strides != nullptr) Widen(out->Strides, out->DimensionCount, strides);
  detail::Layout& layout = op->layout;
  status = detail::AnalyzeLayout(
      out->DimensionCount, sizes, out->Strides != nullptr ? strides : nullptr, 4,
      {"OutputTensor.DimensionCount", "OutputTensor.Sizes", "OutputTensor.Strides"}, &layout);
  if (!status.ok()) return status;
  if (out->TotalTensorSizeInBytes < layout.min_bytes) {
    return Status::Error(StatusCode::kBufferTooSmall,
                         "OutputTensor.TotalTensorSizeInBytes = %llu is less than the minimum "
                         "%llu (CalcBufferTensorSize)",
                         static_cast<unsigned long long>(out->TotalTensorSizeInBytes),
                         static_cast<unsigned long long>(layout.min_bytes));
  }
  op->in = FieldsOf(*in);
  op->out = FieldsOf(*out);
  op->has_out_state = out_state != nullptr;
  if (out_state != nullptr) op->out_state = FieldsOf(*out_state);
  return Status();
}

// Every rule that involves the bindings or the options (DirectML's
// dispatch), then the fill.
Status ExecuteChecked(const CheckedOperator& op, const DML_BUFFER_BINDING& inputState,
                      const DML_BUFFER_BINDING& output, const DML_BUFFER_BINDING* outputState,
                      const FillOptions& options) {
  if ((outputState != nullptr) != op.has_out_state) {
    return Status::Error(StatusCode::kInvalidArgument,
                         op.has_out_state ? "outputState is null but OutputStateTensor is set"
                                          : "outputState is bound but OutputStateTensor is null");
  }
  Status status = CheckBinding(inputState, op.in, "inputState", "InputStateTensor");
  if (status.ok()) status = CheckBinding(output, op.out, "output", "OutputTensor");
  if (status.ok() && outputState != nullptr) {
    status = CheckBinding(*outputState, op.out_state, "outputState", "OutputStateTensor");
    // DirectML may write anywhere in either tensor's TotalTensorSizeInBytes.
    if (status.ok() && RangesOverlap(output.Data, op.out.total_bytes, outputState->Data,
                                     op.out_state.total_bytes)) {
      status = Status::Error(StatusCode::kOverlap,
                             "outputState.Data = %p overlaps the output tensor (%p, %llu "
                             "bytes)",
                             outputState->Data, output.Data,
                             static_cast<unsigned long long>(op.out.total_bytes));
    }
  }
  if (!status.ok()) return status;
  // DirectML's operator writes UINT32 bits of a whole tensor: a request for
  // anything else is refused rather than silently ignored (Fill takes them).
  if (options.distribution.kind != DistributionKind::kBits) {
    return Status::Error(StatusCode::kUnsupported,
                         "options.distribution.kind = %d: DirectML's operator writes UINT32 "
                         "bits only (randtensor::Fill takes distributions)",
                         static_cast<int>(options.distribution.kind));
  }
  if (options.region != nullptr) {
    return Status::Error(StatusCode::kUnsupported,
                         "options.region is set: DirectML's operator fills whole tensors "
                         "(randtensor::Fill takes regions)");
  }
  if (options.element_offset != 0) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "options.element_offset = %llu: DirectML has no element offset",
                         static_cast<unsigned long long>(options.element_offset));
  }

  // The analyzed layout, bound to the output binding.
  PhiloxState* state_out =
      outputState != nullptr ? static_cast<PhiloxState*>(outputState->Data) : nullptr;
  const PhiloxState state = *static_cast<const PhiloxState*>(inputState.Data);
  detail::Plan plan;
  // DirectML's strides are unsigned: element (0, ..., 0) is the buffer's start.
  status = detail::PlanFill(op.layout, detail::GenerateKind::kBitsUint32, detail::kNoParams,
                            output.Data, op.out.total_bytes, 0, state_out, options, &plan);
  if (!status.ok()) return status;
  detail::ExecutePlan(plan, state, state_out, options.info);
  return Status();
}

}  // namespace

Status ValidateRandomGenerator(const DML_RANDOM_GENERATOR_OPERATOR_DESC& desc) noexcept {
  CheckedOperator op;
  return CheckOperator(desc, &op);
}

Status ExecuteRandomGenerator(const DML_RANDOM_GENERATOR_OPERATOR_DESC& desc,
                              const DML_BUFFER_BINDING& inputState,
                              const DML_BUFFER_BINDING& output,
                              const DML_BUFFER_BINDING* outputState,
                              const FillOptions& options) noexcept {
  CheckedOperator op;
  const Status status = CheckOperator(desc, &op);
  if (!status.ok()) return status;
  return ExecuteChecked(op, inputState, output, outputState, options);
}

RandomGeneratorOperator::~RandomGeneratorOperator() { delete checked_; }

RandomGeneratorOperator::RandomGeneratorOperator(RandomGeneratorOperator&& other) noexcept
    : checked_(other.checked_) {
  other.checked_ = nullptr;
}

RandomGeneratorOperator& RandomGeneratorOperator::operator=(
    RandomGeneratorOperator&& other) noexcept {
  if (this != &other) {
    delete checked_;
    checked_ = other.checked_;
    other.checked_ = nullptr;
  }
  return *this;
}

Status RandomGeneratorOperator::Create(const DML_RANDOM_GENERATOR_OPERATOR_DESC& desc,
                                       RandomGeneratorOperator* op) noexcept {
  if (op == nullptr) return Status::Error(StatusCode::kInvalidArgument, "op is null");
  CheckedOperator checked;
  const Status status = CheckOperator(desc, &checked);
  if (!status.ok()) return status;
  CheckedOperator* kept = new (std::nothrow) CheckedOperator(checked);
  if (kept == nullptr) {
    return Status::Error(StatusCode::kOverflow, "op: out of memory for %zu bytes",
                         sizeof(CheckedOperator));
  }
  delete op->checked_;
  op->checked_ = kept;
  return Status();
}

Status RandomGeneratorOperator::Execute(const DML_BUFFER_BINDING& inputState,
                                        const DML_BUFFER_BINDING& output,
                                        const DML_BUFFER_BINDING* outputState,
                                        const FillOptions& options) const noexcept {
  if (checked_ == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "the operator is empty (not created, or moved from)");
  }
  return ExecuteChecked(*checked_, inputState, output, outputState, options);
}

}  // namespace dml
}  // namespace randtensor
