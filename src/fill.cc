// The native fill and the plan every entry point executes (see plan.h).

#include "randtensor/fill.h"

#include <cstdint>

#include "src/dispatch.h"
#include "src/layout.h"
#include "src/plan.h"
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

// The generate kernel of a public data type (bits: the only one so far).
bool KindOf(DataType type, detail::GenerateKind* kind) {
  switch (type) {
    case DataType::kUint32: *kind = detail::GenerateKind::kBitsUint32; return true;
  }
  return false;
}

// The descriptor's own rules: data type and layout.
Status Analyze(const TensorDesc& desc, detail::GenerateKind* kind, detail::Layout* layout) {
  if (!KindOf(desc.dtype, kind)) {
    return Status::Error(StatusCode::kUnsupported, "dtype = %d is not a supported data type",
                         static_cast<int>(desc.dtype));
  }
  return detail::AnalyzeLayout(desc.rank, desc.sizes, desc.strides,
                               detail::ElementBytes(*kind), kNativeNames, layout);
}

}  // namespace

int ElementSize(DataType type) noexcept {
  detail::GenerateKind kind;
  return KindOf(type, &kind) ? detail::ElementBytes(kind) : 0;
}

namespace detail {

Status PlanFill(const Layout& layout, GenerateKind kind, void* data, uint64_t buffer_bytes,
                const PhiloxState* out_state, const FillOptions& options, Plan* plan) noexcept {
  const int element_size = ElementBytes(kind);
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
  bool streaming = false;
  switch (options.stores) {
    case StoreMode::kAuto: streaming = StreamingPays(layout.count * element_size); break;
    case StoreMode::kRegular: streaming = false; break;
    case StoreMode::kStreaming: streaming = true; break;
    default:
      return Status::Error(StatusCode::kInvalidArgument, "stores = %d is not a StoreMode",
                           static_cast<int>(options.stores));
  }
  const uintptr_t buffer = addr - static_cast<uintptr_t>(-layout.low) * element_size;
  if (out_state != nullptr && data != nullptr &&
      RangesOverlap(buffer, buffer_bytes, reinterpret_cast<uintptr_t>(out_state),
                    sizeof(PhiloxState))) {
    return Status::Error(StatusCode::kOverlap,
                         "out_state = %p overlaps the output buffer (%p, %llu bytes)",
                         static_cast<const void*>(out_state), reinterpret_cast<void*>(buffer),
                         static_cast<unsigned long long>(buffer_bytes));
  }
  const KernelTable* kernels = nullptr;
  Status status = ActiveKernels(&kernels);
  if (!status.ok()) return status;

  plan->kind = kind;
  plan->element_size = element_size;
  plan->words_per_element = WordsPerElement(kind);
  plan->layout = layout;
  plan->stream_base = options.element_offset;
  plan->stream_end = options.element_offset + layout.count;
  plan->origin = static_cast<char*>(data);
  plan->kernels = kernels;
  plan->streaming = streaming;
  plan->threads = options.threads != 0 ? options.threads : DefaultThreads();
  plan->parallel_for = options.parallel_for;
  plan->task_elements = options.tile_elements;
  return Status();
}

void ExecutePlan(const Plan& plan, const PhiloxState& in_state, PhiloxState* out_state,
                 FillInfo* info) noexcept {
  const PhiloxState state = in_state;  // out_state may be the same memory
  FillInfo done;
  if (plan.layout.count != 0) WriteTensor(plan, state, &done);
  if (info != nullptr) *info = done;
  if (out_state != nullptr) {
    // Words per element w: the fill owns stream words up to w * stream_end.
    *out_state = philox::Advance(state, plan.stream_end * plan.words_per_element);
  }
}

}  // namespace detail

Status MinBufferBytes(const TensorDesc& desc, uint64_t* bytes) noexcept {
  if (bytes == nullptr) return Status::Error(StatusCode::kInvalidArgument, "bytes is null");
  detail::GenerateKind kind;
  detail::Layout layout;
  Status status = Analyze(desc, &kind, &layout);
  if (status.ok()) *bytes = layout.min_bytes;
  return status;
}

Status Fill(const TensorDesc& desc, void* data, uint64_t buffer_bytes,
            const PhiloxState& in_state, PhiloxState* out_state,
            const FillOptions& options) noexcept {
  const PhiloxState state = in_state;  // read first: out_state may be the same memory
  detail::GenerateKind kind;
  detail::Layout layout;
  Status status = Analyze(desc, &kind, &layout);
  if (!status.ok()) return status;
  detail::Plan plan;
  status = detail::PlanFill(layout, kind, data, buffer_bytes, out_state, options, &plan);
  if (!status.ok()) return status;
  detail::ExecutePlan(plan, state, out_state, options.info);
  return Status();
}

}  // namespace randtensor
