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

__extension__ typedef __int128 i128;  // GCC and Clang: bounds without overflow

Status PlanFill(const Layout& layout, GenerateKind kind, void* data, uint64_t buffer_bytes,
                uint64_t byte_offset, const PhiloxState* out_state, const FillOptions& options,
                Plan* plan) noexcept {
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
    if (byte_offset % static_cast<uint64_t>(element_size) != 0) {
      return Status::Error(StatusCode::kMisaligned,
                           "byte_offset = %llu is not a multiple of the element size (%d bytes)",
                           static_cast<unsigned long long>(byte_offset), element_size);
    }
    // Every element inside [data, data + buffer_bytes): the lowest at or
    // after the start, the highest before the end. 128-bit: no wrap.
    const i128 first = static_cast<i128>(byte_offset) + static_cast<i128>(layout.low) * element_size;
    const i128 end =
        static_cast<i128>(byte_offset) + (static_cast<i128>(layout.high) + 1) * element_size;
    if (first < 0) {
      return Status::Error(StatusCode::kBufferTooSmall,
                           "byte_offset = %llu: the strides reach %lld elements before element "
                           "(0, ..., 0), %lld bytes before data = %p, the buffer's start (with "
                           "negative strides, byte_offset is where element (0, ..., 0) lies)",
                           static_cast<unsigned long long>(byte_offset),
                           static_cast<long long>(-layout.low), static_cast<long long>(-first),
                           data);
    }
    if (end > static_cast<i128>(buffer_bytes)) {
      return Status::Error(StatusCode::kBufferTooSmall,
                           "buffer_bytes = %llu is less than the %llu bytes the layout spans%s",
                           static_cast<unsigned long long>(buffer_bytes),
                           static_cast<unsigned long long>(end),
                           byte_offset != 0 ? " from data (byte_offset included)" : "");
    }
    if (buffer_bytes - 1 > UINTPTR_MAX - addr) {
      return Status::Error(StatusCode::kOverflow,
                           "buffer_bytes = %llu from data = %p runs past the end of the address "
                           "space",
                           static_cast<unsigned long long>(buffer_bytes), data);
    }
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
  if (out_state != nullptr && data != nullptr &&
      RangesOverlap(addr, buffer_bytes, reinterpret_cast<uintptr_t>(out_state),
                    sizeof(PhiloxState))) {
    return Status::Error(StatusCode::kOverlap,
                         "out_state = %p overlaps the output buffer (%p, %llu bytes)",
                         static_cast<const void*>(out_state), data,
                         static_cast<unsigned long long>(buffer_bytes));
  }
  const KernelTable* kernels = nullptr;
  Status status = ActiveKernels(&kernels);
  if (!status.ok()) return status;

  plan->kind = kind;
  plan->element_size = element_size;
  plan->words_per_element = WordsPerElement(kind);
  plan->layout = &layout;
  plan->stream_base = options.element_offset;
  plan->stream_end = options.element_offset + layout.count;
  plan->origin = static_cast<char*>(data) + byte_offset;
  plan->kernels = kernels;
  plan->streaming = streaming;
  plan->threads = options.threads != 0 ? options.threads : DefaultThreads();
  plan->parallel_for = options.parallel_for;
  plan->task_elements = options.task_elements;
  return Status();
}

void ExecutePlan(const Plan& plan, const PhiloxState& in_state, PhiloxState* out_state,
                 FillInfo* info) noexcept {
  const PhiloxState state = in_state;  // out_state may be the same memory
  FillInfo done;
  if (plan.layout->count != 0) WriteTensor(plan, state, &done);
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
  status = detail::PlanFill(layout, kind, data, buffer_bytes, desc.byte_offset, out_state,
                            options, &plan);
  if (!status.ok()) return status;
  detail::ExecutePlan(plan, state, out_state, options.info);
  return Status();
}

}  // namespace randtensor
