// The C API (randtensor/randtensor.h, and the C entry point of
// randtensor/dlpack.h): thin wrappers over the C++ API.
//
// The C++ API already validates everything and never throws, so each wrapper
// only converts types, checks the pointers that C passes where C++ takes
// references, and records the message of a failure in a per-thread buffer
// for randtensor_last_error().

#include "randtensor/randtensor.h"

#include <cstdio>
#include <cstring>
#include <type_traits>

#include "randtensor/dlpack.h"
#include "randtensor/fill.h"
#include "randtensor/parallel.h"
#include "randtensor/status.h"
#include "randtensor/targets.h"

namespace randtensor {
namespace {

// The C enumerators are the C++ codes, so a status converts by value.
#define RANDTENSOR_SAME_CODE(c, cpp) \
  static_assert(static_cast<int>(c) == static_cast<int>(StatusCode::cpp), #c)
RANDTENSOR_SAME_CODE(RANDTENSOR_OK, kOk);
RANDTENSOR_SAME_CODE(RANDTENSOR_INVALID_ARGUMENT, kInvalidArgument);
RANDTENSOR_SAME_CODE(RANDTENSOR_UNSUPPORTED, kUnsupported);
RANDTENSOR_SAME_CODE(RANDTENSOR_OVERFLOW, kOverflow);
RANDTENSOR_SAME_CODE(RANDTENSOR_OVERLAP, kOverlap);
RANDTENSOR_SAME_CODE(RANDTENSOR_BUFFER_TOO_SMALL, kBufferTooSmall);
RANDTENSOR_SAME_CODE(RANDTENSOR_MISALIGNED, kMisaligned);
RANDTENSOR_SAME_CODE(RANDTENSOR_UNKNOWN_TARGET, kUnknownTarget);
RANDTENSOR_SAME_CODE(RANDTENSOR_UNSUPPORTED_TARGET, kUnsupportedTarget);
#undef RANDTENSOR_SAME_CODE

static_assert(static_cast<int>(RANDTENSOR_UINT32) == static_cast<int>(DataType::kUint32), "");
static_assert(static_cast<int>(RANDTENSOR_STORES_AUTO) == static_cast<int>(StoreMode::kAuto), "");
static_assert(static_cast<int>(RANDTENSOR_STORES_REGULAR) == static_cast<int>(StoreMode::kRegular),
              "");
static_assert(static_cast<int>(RANDTENSOR_STORES_STREAMING) ==
                  static_cast<int>(StoreMode::kStreaming),
              "");
static_assert(RANDTENSOR_MAX_RANK == kMaxRank, "");

// The hooks are handed to the C++ API as they are. GCC and Clang (the
// compilers the library supports: it needs __int128) give extern "C" function
// types no separate identity, so the C and C++ pointer types are one type.
static_assert(std::is_same<randtensor_task_fn, TaskFn>::value, "");
static_assert(std::is_same<randtensor_parallel_for_fn, ParallelForFn>::value, "");

// out_state is handed to Fill as the caller's own memory (not a copy), so the
// check that it does not overlap the output buffer sees the real address.
static_assert(sizeof(PhiloxState) == 6 * sizeof(uint32_t), "");
static_assert(alignof(PhiloxState) == alignof(uint32_t), "");
static_assert(std::is_standard_layout<PhiloxState>::value, "");

// C leaves an enum's underlying type to the compiler and lets any int value
// through; read the bits as int32 so an out-of-range value reaches the C++
// validation intact instead of being an out-of-range C++ enum.
template <typename Enum>
int32_t RawEnum(const Enum& value) {
  static_assert(sizeof(Enum) == sizeof(int32_t), "C enums are 32-bit on supported ABIs");
  int32_t raw;
  std::memcpy(&raw, &value, sizeof(raw));
  return raw;
}

thread_local char t_last_error[Status::kMaxMessage] = "";

// Returns `status` as a C code; a failure also becomes this thread's last error.
randtensor_status Report(const Status& status) {
  if (!status.ok()) std::snprintf(t_last_error, sizeof(t_last_error), "%s", status.message());
  return static_cast<randtensor_status>(status.code());
}

randtensor_status NullArgument(const char* name) {
  return Report(Status::Error(StatusCode::kInvalidArgument, "%s is null", name));
}

FillOptions ToFillOptions(const randtensor_fill_options* options) {
  FillOptions out;
  if (options == nullptr) return out;
  out.element_offset = options->element_offset;
  out.threads = options->threads;
  out.stores = static_cast<StoreMode>(RawEnum(options->stores));  // Fill validates it
  out.task_elements = options->task_elements;
  out.parallel_for = ParallelFor{options->parallel_for, options->parallel_for_context};
  const randtensor_distribution& d = options->distribution;
  out.distribution.kind = static_cast<DistributionKind>(RawEnum(d.kind));  // Fill validates it
  // The parameters of the kind, by their names (randtensor.h). The names in
  // one union alias each other (GCC and Clang define reading another member
  // of a union), so a caller that set the deprecated a / b is read the same.
  switch (out.distribution.kind) {
    case DistributionKind::kUniform:
      out.distribution.low = d.low;
      out.distribution.high = d.high;
      break;
    case DistributionKind::kNormal:
      out.distribution.mean = d.mean;
      out.distribution.std = d.std;
      break;
    case DistributionKind::kBernoulli:
    case DistributionKind::kGeometric: out.distribution.p = d.p; break;
    case DistributionKind::kExponential: out.distribution.lambda = d.lambda; break;
    case DistributionKind::kCauchy:
      out.distribution.median = d.median;
      out.distribution.sigma = d.sigma;
      break;
    case DistributionKind::kLogNormal:
      out.distribution.mean = d.mean;
      out.distribution.std = d.std;
      break;
    default: break;
  }
  out.distribution.int_low = d.int_low;
  out.distribution.int_high = d.int_high;
  out.region = nullptr;  // set by the caller, which knows the rank (RegionOf)
  out.order = static_cast<ElementOrder>(RawEnum(options->order));  // Fill validates it
  out.gpu = GpuGeometry{options->gpu_sm_count, options->gpu_threads_per_sm};
  return out;
}

// The part every C fill shares: the state pointers, the options, the report.
// `fill(in_state, out_state, options)` runs the C++ fill itself.
template <typename FillFn>
randtensor_status FillFromC(const uint32_t* in_state, uint32_t* out_state,
                            const randtensor_fill_options* options, randtensor_fill_info* info,
                            const FillFn& fill) {
  if (in_state == nullptr) return NullArgument("in_state");
  PhiloxState in;
  std::memcpy(in.words, in_state, sizeof(in.words));  // before anything is written
  FillOptions cpp_options = ToFillOptions(options);
  FillInfo ran;
  cpp_options.info = &ran;
  const Status status = fill(in, reinterpret_cast<PhiloxState*>(out_state), cpp_options);
  if (status.ok() && info != nullptr) {
    *info = randtensor_fill_info{ran.target, ran.lanes, ran.tasks, ran.streaming ? 1 : 0,
                                 ran.strategy};
  }
  return Report(status);
}

// `dtype` by reference: a C caller may pass any int, and copying the
// parameter would load it as the C++ enum (see RawEnum).
TensorDesc ToTensorDesc(const randtensor_dtype& dtype, int32_t rank, const int64_t* sizes,
                        const int64_t* strides) {
  TensorDesc desc;
  desc.dtype = static_cast<DataType>(RawEnum(dtype));  // Fill validates it
  desc.rank = rank;
  desc.sizes = sizes;
  desc.strides = strides;
  return desc;
}

// Runs `get(&target_info)` and converts its answer for C.
template <typename GetFn>
randtensor_status QueryTarget(randtensor_target_info* info, const GetFn& get) {
  if (info == nullptr) return NullArgument("info");
  TargetInfo target;
  const Status status = get(&target);
  if (status.ok()) {
    *info = randtensor_target_info{target.name, target.lanes, target.supported ? 1 : 0,
                                   target.active ? 1 : 0};
  }
  return Report(status);
}

#define RANDTENSOR_STRINGIFY_(x) #x
#define RANDTENSOR_STRINGIFY(x) RANDTENSOR_STRINGIFY_(x)
constexpr char kVersion[] = RANDTENSOR_STRINGIFY(RANDTENSOR_VERSION_MAJOR) "."
                            RANDTENSOR_STRINGIFY(RANDTENSOR_VERSION_MINOR) "."
                            RANDTENSOR_STRINGIFY(RANDTENSOR_VERSION_PATCH);

}  // namespace
}  // namespace randtensor

extern "C" {

const char* randtensor_last_error(void) { return randtensor::t_last_error; }

const char* randtensor_status_name(randtensor_status status) {
  return randtensor::StatusCodeName(
      static_cast<randtensor::StatusCode>(randtensor::RawEnum(status)));
}

const char* randtensor_version(void) { return randtensor::kVersion; }

// ------------------------------------------------------------- threading

void randtensor_set_default_threads(uint32_t threads) { randtensor::SetDefaultThreads(threads); }

uint32_t randtensor_default_threads(void) { return randtensor::DefaultThreads(); }

void randtensor_set_default_parallel_for(randtensor_parallel_for_fn fn, void* pool_context) {
  randtensor::SetDefaultParallelFor(randtensor::ParallelFor{fn, pool_context});
}

// ------------------------------------------------------------------ fill

namespace randtensor {
namespace {

// randtensor_fill and randtensor_fill_ex; `dtype` by reference (ToTensorDesc).
randtensor_status FillEx(void* data, uint64_t buffer_bytes, uint64_t byte_offset,
                         const randtensor_dtype& dtype, int32_t rank, const int64_t* sizes,
                         const int64_t* strides, const uint32_t in_state[6], uint32_t out_state[6],
                         const randtensor_fill_options* options, randtensor_fill_info* info) {
  TensorDesc desc = ToTensorDesc(dtype, rank, sizes, strides);
  desc.byte_offset = byte_offset;
  Region region;
  const bool has_region = options != nullptr && options->region_global_sizes != nullptr;
  if (has_region) {
    region.rank = rank;
    region.global_sizes = options->region_global_sizes;
    region.start = options->region_start;
  }
  return FillFromC(in_state, out_state, options, info,
                   [&](const auto& in, auto* out, const auto& fill_options) {
                     FillOptions with_region = fill_options;
                     if (has_region) with_region.region = &region;
                     return Fill(desc, data, buffer_bytes, in, out, with_region);
                   });
}

}  // namespace
}  // namespace randtensor

randtensor_status randtensor_fill(void* data, uint64_t buffer_bytes, uint64_t byte_offset,
                                  randtensor_dtype dtype, int32_t rank, const int64_t* sizes,
                                  const int64_t* strides, const uint32_t in_state[6],
                                  uint32_t out_state[6], const randtensor_fill_options* options) {
  return randtensor::FillEx(data, buffer_bytes, byte_offset, dtype, rank, sizes, strides,
                            in_state, out_state, options, nullptr);
}

randtensor_status randtensor_fill_ex(void* data, uint64_t buffer_bytes, uint64_t byte_offset,
                                     randtensor_dtype dtype, int32_t rank, const int64_t* sizes,
                                     const int64_t* strides, const uint32_t in_state[6],
                                     uint32_t out_state[6], const randtensor_fill_options* options,
                                     randtensor_fill_info* info) {
  return randtensor::FillEx(data, buffer_bytes, byte_offset, dtype, rank, sizes, strides,
                            in_state, out_state, options, info);
}

randtensor_status randtensor_min_buffer_bytes(randtensor_dtype dtype, int32_t rank,
                                              const int64_t* sizes, const int64_t* strides,
                                              uint64_t* bytes) {
  return randtensor::Report(
      randtensor::MinBufferBytes(randtensor::ToTensorDesc(dtype, rank, sizes, strides), bytes));
}

randtensor_status randtensor_torch_cuda_state(uint64_t seed, uint64_t philox_offset,
                                              uint32_t state[6]) {
  if (state == nullptr) return randtensor::NullArgument("state");
  randtensor::PhiloxState s;
  const randtensor::Status status = randtensor::TorchCudaState(seed, philox_offset, &s);
  if (status.ok()) std::memcpy(state, s.words, sizeof s.words);
  return randtensor::Report(status);
}

randtensor_status randtensor_torch_cuda_offset(const uint32_t state[6], uint64_t* philox_offset) {
  if (state == nullptr) return randtensor::NullArgument("state");
  randtensor::PhiloxState s;
  std::memcpy(s.words, state, sizeof s.words);
  return randtensor::Report(randtensor::TorchCudaOffset(s, philox_offset));
}

// Here rather than in dlpack.cc: it shares the C plumbing above, and
// FillDLTensor (dlpack.cc) does the DLPack work.
randtensor_status randtensor_fill_dltensor(const DLTensor* tensor, const uint32_t in_state[6],
                                           uint32_t out_state[6],
                                           const randtensor_fill_options* options) {
  if (tensor == nullptr) return randtensor::NullArgument("tensor");
  if (options != nullptr && options->region_global_sizes != nullptr) {
    return randtensor::Report(randtensor::Status::Error(
        randtensor::StatusCode::kUnsupported,
        "options->region_global_sizes is set: DLPack fills take no region in this version "
        "(randtensor_fill does)"));
  }
  return randtensor::FillFromC(
      in_state, out_state, options, nullptr,
      [&](const auto& in, auto* out, const auto& fill_options) {
        return randtensor::FillDLTensor(*tensor, in, out, fill_options);
      });
}

// --------------------------------------------------------------- targets

int32_t randtensor_target_count(void) { return randtensor::TargetCount(); }

randtensor_status randtensor_get_target(int32_t index, randtensor_target_info* info) {
  return randtensor::QueryTarget(
      info, [index](randtensor::TargetInfo* t) { return randtensor::GetTarget(index, t); });
}

randtensor_status randtensor_get_active_target(randtensor_target_info* info) {
  return randtensor::QueryTarget(
      info, [](randtensor::TargetInfo* t) { return randtensor::GetActiveTarget(t); });
}

randtensor_status randtensor_set_target(const char* name) {
  return randtensor::Report(randtensor::SetTarget(name));
}

}  // extern "C"
