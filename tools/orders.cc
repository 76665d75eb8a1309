#include "tools/orders.h"

#include <cstdint>
#include <string>

#include "randtensor/replay.h"
#include "randtensor/status.h"
#include "tools/buffer.h"
#include "tools/mpi_output.h"
#include "tools/output_formats.h"

namespace randtensor_cli {
namespace {

using randtensor::Status;

// Up to this many elements PyTorch's CUDA order is the same on every GPU of
// the presets (the T4's 40 SMs x 1024 threads is the smallest grid).
constexpr uint64_t kGeometryFreeElements = 40960;

}  // namespace

// --order, --gpu / --sm-count --threads-per-sm, --philox-offset. With
// --order torch-cuda, --philox-offset is the generator's Philox offset (a
// multiple of 4, as torch keeps it): the state's counter becomes
// philox_offset / 4 and the fill starts at element 0. --offset, which means
// a stream element everywhere else, was its spelling before and still is
// there (deprecated).
void ParseOrder(const Options& options, GenerateArgs* args) {
  const std::string order = options.Has("--order") ? options.Get("--order") : "stream";
  const bool has_gpu =
      options.Has("--gpu") || options.Has("--sm-count") || options.Has("--threads-per-sm");
  if (order == "stream" || order == "curand-host") {
    if (has_gpu) Fail(kExitUsage, "--gpu, --sm-count and --threads-per-sm need --order torch-cuda");
    if (order == "curand-host" && options.Has("--state")) {
      Fail(kExitUsage,
           "--order curand-host takes --seed and --offset (outputs to skip), not "
           "--state");
    }
    if (options.Has("--philox-offset")) {
      Fail(kExitUsage,
           "--philox-offset is the offset of PyTorch's CUDA generator: it needs "
           "--order torch-cuda (--offset K starts at stream element K)");
    }
    args->curand_host = order == "curand-host";
    return;
  }
  if (order != "torch-cuda") {
    Fail(kExitUsage,
         "--order: '" + order + "' is not an order (stream, torch-cuda or curand-host)");
  }
  args->order = randtensor::ElementOrder::kTorchCuda;
  if (options.Has("--gpu")) {
    if (options.Has("--sm-count") || options.Has("--threads-per-sm")) {
      Fail(kExitUsage, "give --gpu or --sm-count with --threads-per-sm, not both");
    }
    const randtensor::GpuPreset* preset = randtensor::FindGpuPreset(options.Get("--gpu").c_str());
    if (preset == nullptr) {
      int count = 0;
      const randtensor::GpuPreset* all = randtensor::GpuPresets(&count);
      std::string names;
      for (int i = 0; i < count; ++i) names += std::string(i ? ", " : "") + all[i].name;
      Fail(kExitUsage, "--gpu: '" + options.Get("--gpu") + "' is not a preset (" + names + ")");
    }
    args->gpu = preset->geometry;
  } else if (options.Has("--sm-count") != options.Has("--threads-per-sm")) {
    Fail(kExitUsage, "--sm-count and --threads-per-sm go together");
  } else if (options.Has("--sm-count")) {
    args->gpu.sm_count =
        static_cast<int32_t>(ParseNumber("--sm-count", options.Get("--sm-count"), INT32_MAX));
    args->gpu.threads_per_sm = static_cast<int32_t>(
        ParseNumber("--threads-per-sm", options.Get("--threads-per-sm"), INT32_MAX));
  } else if (ElementCount(args->sizes) > kGeometryFreeElements) {
    Fail(kExitUsage, std::to_string(ElementCount(args->sizes)) + " elements: above " +
                         std::to_string(kGeometryFreeElements) +
                         " PyTorch's CUDA order depends on the GPU; give --gpu NAME or "
                         "--sm-count N --threads-per-sm M");
  }
  if (options.Has("--state")) {
    Fail(kExitUsage,
         "--order torch-cuda takes --seed and --philox-offset (the CUDA "
         "generator's state), not --state");
  }
  const uint64_t seed = static_cast<uint64_t>(args->state.words[4]) |
                        static_cast<uint64_t>(args->state.words[5]) << 32;
  const bool deprecated = options.Has("--offset");
  if (deprecated && options.Has("--philox-offset")) {
    Fail(kExitUsage,
         "give --philox-offset or --offset (its deprecated spelling under --order "
         "torch-cuda), not both");
  }
  const char* flag = deprecated ? "--offset" : "--philox-offset";
  uint64_t philox_offset = args->offset;  // --offset, already read
  if (options.Has("--philox-offset")) {
    philox_offset = ParseNumber(flag, options.Get("--philox-offset"), UINT64_MAX);
  }
  const Status status = randtensor::TorchCudaState(seed, philox_offset, &args->state);
  if (!status.ok()) Fail(kExitUsage, std::string(flag) + ": " + status.message());
  args->philox_offset_label = deprecated ? "offset" : "philox-offset";
  args->offset = 0;
}

GenerateResult RunCurandHost(const GenerateArgs& args) {
  using F = randtensor::CurandHostFunction;
  const randtensor::DataType t = args.dtype->type;
  const randtensor::Distribution& d = args.distribution;
  F f;
  if (d.kind == randtensor::DistributionKind::kBits && t == randtensor::DataType::kUint32) {
    f = F::kGenerate;
  } else if (d.kind == randtensor::DistributionKind::kUniform && d.low == 0 && d.high == 1 &&
             (t == randtensor::DataType::kFloat32 || t == randtensor::DataType::kFloat64)) {
    f = t == randtensor::DataType::kFloat32 ? F::kUniform : F::kUniformDouble;
  } else if (d.kind == randtensor::DistributionKind::kNormal &&
             (t == randtensor::DataType::kFloat32 || t == randtensor::DataType::kFloat64)) {
    f = t == randtensor::DataType::kFloat32 ? F::kNormal : F::kNormalDouble;
  } else {
    Fail(kExitUsage,
         "--order curand-host: cuRAND's host generator makes --dist bits (uint32), "
         "uniform (0, 1) or normal, float32 or float64");
  }
  if (args.strides.has_value() || args.total_bytes.has_value() || args.repeat != 0 || MpiActive()) {
    Fail(kExitUsage,
         "--order curand-host writes packed outputs once: no --strides, "
         "--total-bytes, --repeat or mpirun");
  }
  const uint64_t n = ElementCount(args.sizes);
  Buffer buffer(n * static_cast<uint64_t>(args.dtype->size));
  GenerateResult result;
  randtensor::CurandHostGenerator g;
  g.seed = uint64_t{args.state.words[4]} | uint64_t{args.state.words[5]} << 32;
  g.offset = args.offset;
  const Status status =
      randtensor::CurandHostGenerate(&g, f, buffer.data(), n, d.mean, d.std, args.threads);
  if (!status.ok()) Fail(kExitUsage, status.message());
  result.curand = g;
  if (args.out.has_value()) WriteOutput(args, buffer);
  return result;
}

}  // namespace randtensor_cli
