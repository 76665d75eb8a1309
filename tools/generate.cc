#include "tools/generate.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "randtensor/status.h"
#include "randtensor/targets.h"
#include "tools/buffer.h"
#include "tools/cli_args.h"
#include "tools/directml_generator.h"
#include "tools/mpi_output.h"
#include "tools/orders.h"
#include "tools/output_file.h"
#include "tools/output_formats.h"
#include "tools/packed_output.h"
#include "tools/timing.h"

namespace randtensor_cli {
namespace {

using randtensor::PhiloxState;
using randtensor::Status;

// Whether a fill needs the native API: the DirectML-shaped entry point is
// UINT32 bits from element 0 only, as DirectML is.
bool NeedsNativeFill(const GenerateArgs& args) {
  return args.dtype->type != randtensor::DataType::kUint32 ||
         args.distribution.kind != randtensor::DistributionKind::kBits || args.offset != 0 ||
         args.order != randtensor::ElementOrder::kStream;
}

// Applies --target, then makes sure a target is usable: a bad
// RANDTENSOR_TARGET is reported here, before any work.
void SelectTarget(const std::optional<std::string>& target) {
  if (target.has_value()) {
    const Status status = randtensor::SetTarget(target->c_str());
    if (!status.ok()) Fail(kExitUsage, std::string("--target: ") + status.message());
  }
  randtensor::TargetInfo active;
  const Status status = randtensor::GetActiveTarget(&active);
  if (!status.ok()) Fail(kExitUsage, status.message());
}

// Runs `fill` once (which also takes the page faults and thread start-up),
// then, with --repeat, times that many more calls into the same buffer from
// the same input state (the fill is a pure function of it).
template <typename FillOnce>
void FillAndTime(const GenerateArgs& args, const FillOnce& fill, GenerateResult* result) {
  Status status = fill(&result->state_out, &result->info);
  if (!status.ok()) Fail(kExitUsage, status.message());
  if (args.repeat == 0) return;
  PhiloxState scratch;
  randtensor::FillInfo info;
  const double seconds = MedianSeconds(args.repeat, [&] {
    const Status s = fill(&scratch, &info);
    if (!s.ok()) Fail(kExitFailure, s.message());
  });
  const double elements = static_cast<double>(ElementCount(args.sizes));
  // steady_clock ticks in nanoseconds; a zero median would only mean "faster
  // than the clock", so count it as one tick rather than divide by zero.
  result->gelems = elements / std::max(seconds, 1e-9) / 1e9;
  result->gbps = result->gelems * args.dtype->size;
}

// Whether the output is packed and can be filled and written in chunks: no
// --strides or --total-bytes, and no --repeat (which times whole fills).
bool IsPacked(const GenerateArgs& args) {
  return !args.strides.has_value() && !args.total_bytes.has_value() && args.repeat == 0 &&
         args.order == randtensor::ElementOrder::kStream;  // a replay is one whole fill
}

// Under mpirun the ranks write one packed file together; the rest would need
// a single buffer or a single writer.
void CheckMpiArgs(const GenerateArgs& args) {
  if (args.strides.has_value() || args.total_bytes.has_value()) {
    Fail(kExitUsage,
         "under mpirun generate writes packed tensors only: --strides and "
         "--total-bytes are not supported");
  }
  if (args.repeat != 0) Fail(kExitUsage, "under mpirun --repeat is not supported");
  if (args.order != randtensor::ElementOrder::kStream) {
    Fail(kExitUsage, "under mpirun --order torch-cuda is not supported (run one process)");
  }
  if (args.out == "-") {
    Fail(kExitUsage,
         "under mpirun --out - is not supported: the ranks write one shared file "
         "(give --out FILE)");
  }
}

// A packed tensor, chunk by chunk (each chunk a region of the whole): in this
// process, or across the ranks of an MPI job. `total_bytes` is the raw
// buffer's size (the elements rounded up to 4 bytes). The library checks
// the fill on one element first, so a bad argument exits 2 before any file
// exists, and that check gives the output state (the whole fill's).
GenerateResult RunPacked(const GenerateArgs& args, const randtensor::FillOptions& options,
                         uint64_t total_bytes) {
  PackedJob job;
  job.dtype = args.dtype->type;
  job.element_bytes = args.dtype->size;
  job.sizes.assign(args.sizes.begin(), args.sizes.end());
  job.state = args.state;
  job.options = options;
  job.options.info = nullptr;
  if (MpiActive() && args.threads == 0) job.options.threads = MpiDefaultThreads();
  job.chunk_bytes = args.chunk_bytes;
  job.quiet = args.quiet;
  job.pad_byte = args.pad_byte;
  if (args.out.has_value() && args.format == OutputFormat::kNpy) {
    job.header = NpyHeader(args.sizes, args.dtype->npy);
    job.little_endian = true;
  } else if (args.out.has_value()) {
    job.tail_bytes = total_bytes - job.elements() * static_cast<uint64_t>(job.element_bytes);
  }
  GenerateResult result;
  CheckPackedJob(job, &result.state_out, &result.info);
  if (MpiActive()) {
    MpiWritePacked(job, args.out);
    return result;
  }
  std::optional<OutputFile> out;
  if (args.out.has_value()) out.emplace(*args.out);
  WritePacked(job, out.has_value() ? &*out : nullptr);
  if (out.has_value()) out->Commit();
  return result;
}

}  // namespace

GenerateResult RunGenerate(const GenerateArgs& args) {
  SelectTarget(args.target);
  if (args.curand_host) return RunCurandHost(args);
  if (MpiActive()) CheckMpiArgs(args);
  GenerateResult result;
  randtensor::FillOptions options;
  options.threads = args.threads;
  options.element_offset = args.offset;
  options.distribution = args.distribution;
  options.order = args.order;
  options.gpu = args.gpu;

  if (!NeedsNativeFill(args)) {
    std::string calc_error;
    RandomGenerator generator(args.sizes, args.strides, TotalBytes(args, &calc_error));
    Status status = generator.Create();
    if (!status.ok()) Fail(kExitUsage, status.message());
    if (!calc_error.empty()) Fail(kExitUsage, calc_error);  // not expected: Validate agrees
    if (IsPacked(args)) return RunPacked(args, options, generator.total_bytes());
    // Padding is never written by the library, so setting the whole buffer to
    // the pad byte first leaves exactly the padding with that value.
    Buffer buffer(generator.total_bytes());
    std::memset(buffer.data(), args.pad_byte, buffer.size());
    FillAndTime(
        args,
        [&](PhiloxState* out, randtensor::FillInfo* info) {
          options.info = info;
          return generator.Execute(buffer.data(), args.state, out, options);
        },
        &result);
    if (args.out.has_value()) WriteOutput(args, buffer);
    return result;
  }

  const std::vector<int64_t> sizes(args.sizes.begin(), args.sizes.end());
  std::vector<int64_t> strides;
  if (args.strides.has_value()) strides.assign(args.strides->begin(), args.strides->end());
  randtensor::TensorDesc desc;
  desc.dtype = args.dtype->type;
  desc.rank = static_cast<int32_t>(sizes.size());
  desc.sizes = sizes.data();
  desc.strides = strides.empty() ? nullptr : strides.data();
  uint64_t bytes = 0;
  Status status = randtensor::MinBufferBytes(desc, &bytes);
  if (!status.ok()) Fail(kExitUsage, status.message());
  if (args.total_bytes.has_value()) {
    if (*args.total_bytes < bytes) {
      Fail(kExitUsage, "--total-bytes " + std::to_string(*args.total_bytes) + " is less than the " +
                           std::to_string(bytes) + " bytes the layout spans");
    }
    bytes = *args.total_bytes;
  }
  if (IsPacked(args)) return RunPacked(args, options, bytes);
  Buffer buffer(bytes);
  std::memset(buffer.data(), args.pad_byte, buffer.size());
  FillAndTime(
      args,
      [&](PhiloxState* out, randtensor::FillInfo* info) {
        options.info = info;
        return randtensor::Fill(desc, buffer.data(), bytes, args.state, out, options);
      },
      &result);
  if (args.out.has_value()) WriteOutput(args, buffer);
  return result;
}

int Generate(const GenerateArgs& args) {
  const GenerateResult result = RunGenerate(args);
  // Print only at the end: on any failure above stdout stays empty. With
  // --out - standard output holds the data, so the text goes to stderr.
  std::FILE* text = args.out == "-" ? stderr : stdout;
  if (result.curand.has_value()) {  // no Philox state: cuRAND's generator position
    std::fprintf(text, "offset: %llu\nskew: %llu\n",
                 static_cast<unsigned long long>(result.curand->offset),
                 static_cast<unsigned long long>(result.curand->skew));
    return kExitOk;
  }
  std::fprintf(text, "%s\n", FormatState(result.state_out).c_str());
  uint64_t philox_offset = 0;
  if (args.order == randtensor::ElementOrder::kTorchCuda &&
      randtensor::TorchCudaOffset(result.state_out, &philox_offset).ok()) {
    std::fprintf(text, "%s: %llu\n", args.philox_offset_label,
                 static_cast<unsigned long long>(philox_offset));
  }
  if (args.repeat > 0) {
    std::fprintf(text, "GBps: %.4g\nGelem/s: %.4g\n", result.gbps, result.gelems);
  }
  return kExitOk;
}

}  // namespace randtensor_cli
