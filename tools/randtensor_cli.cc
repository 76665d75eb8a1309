// randtensor: fill a tensor with Philox4x32-10 random numbers from the shell.
//
// The tool is a thin shell around the DirectML-shaped entry point
// (randtensor/directml.h): `generate` builds the same descriptors a DirectML
// program would, so what it accepts, rejects and produces is exactly what
// ExecuteRandomGenerator does. The library never prints; everything the user
// sees is printed here.
//
// This file holds the commands (the example, `generate`, `targets`), the
// usage text and main(); each job of `generate` has its own file, listed in
// tools/CMakeLists.txt.

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iterator>
#include <new>
#include <string>
#include <vector>

#include "randtensor/philox.h"
#include "randtensor/status.h"
#include "randtensor/targets.h"
#include "tools/cli_args.h"
#include "tools/generate.h"
#include "tools/generate_args.h"
#include "tools/memory_ceiling.h"
#include "tools/mpi_output.h"
#include "tools/output_formats.h"

#ifndef RANDTENSOR_VERSION
#error "RANDTENSOR_VERSION must be defined (tools/CMakeLists.txt passes PROJECT_VERSION)"
#endif

namespace randtensor_cli {
namespace {

using randtensor::PhiloxState;
using randtensor::Status;

constexpr char kUsage[] =
    "usage:\n"
    "  randtensor                 run the DirectML seed's worked example and time it\n"
    "  randtensor generate --sizes S0,S1,... [options]\n"
    "  randtensor targets         list the compiled SIMD targets\n"
    "  randtensor --help | --version\n"
    "\n"
    "generate fills a tensor from the Philox4x32-10 stream and prints the output\n"
    "state; with the defaults (UINT32 bits from element 0) exactly as DirectML's\n"
    "DML_RANDOM_GENERATOR does, through its entry point:\n"
    "  state: 0x........ (six words: counter bits 0-31 ... 96-127, key k0, k1)\n"
    "\n"
    "options (numbers are decimal or 0x-hex):\n"
    "  --sizes S0,S1,...     1 to 8 sizes, each >= 1, at most 2^32-1 elements\n"
    "  --strides T0,T1,...   strides in elements, one per size (default: packed)\n"
    "  --total-bytes B       TotalTensorSizeInBytes (default: the minimum)\n"
    "  --state W0,...,W5     the input state, six 32-bit words in DirectML order\n"
    "  --seed N              64-bit seed: key = (N mod 2^32, N >> 32), counter 0\n"
    "                        (default: --seed 0; give --state or --seed, not both)\n"
    "  --threads T           use at most T threads (default: the library's)\n"
    "  --target NAME         force a SIMD target (see `randtensor targets`)\n"
    "  --out FILE            write the output to FILE in the --format below, through a\n"
    "                        temporary file beside it that replaces FILE only when\n"
    "                        complete (a failed run leaves an older FILE as it was);\n"
    "                        --out - writes to standard output, and the state line\n"
    "                        then goes to standard error\n"
    "  --format raw|npy      what --out holds (needs --out; default raw):\n"
    "                        raw: the buffer, TotalTensorSizeInBytes bytes, little-endian,\n"
    "                          padding bytes set to --pad-byte;\n"
    "                        npy: a NumPy .npy file (version 1.0, dtype '<u4', C order,\n"
    "                          shape = --sizes) of the logical tensor: the elements read\n"
    "                          back through --strides in row-major order, no padding\n"
    "  --pad-byte X          value of the padding bytes in raw --out (0 to 255, default 0)\n"
    "  --dist D              bits (default), uniform, normal, bernoulli, integers,\n"
    "                        exponential, cauchy, log_normal, geometric (SPEC.md\n"
    "                        section 8: the values cuRAND and PyTorch's CUDA\n"
    "                        transforms compute)\n"
    "  --dtype T             uint32, float32, float64, float16, bfloat16, uint8, bool,\n"
    "                        int32, int64 (default: uint32 for bits, float32 for\n"
    "                        the floating distributions, int64 for integers and\n"
    "                        geometric); --format npy\n"
    "                        writes that dtype, bfloat16 as '<u2' bit patterns\n"
    "  --low A --high B      uniform [A, B) (default 0, 1); integers [A, B) (A default 0)\n"
    "  --mean M --std S      normal, log_normal (default 0, 1)\n"
    "  --p P                 bernoulli (default 0.5), geometric (needed)\n"
    "  --lambda L            exponential (default 1)\n"
    "  --median M --sigma S  cauchy (default 0, 1)\n"
    "  --offset K            start at element K of the stream (sharding; cuRAND's offset)\n"
    "  --order O             stream (default) or torch-cuda: the element order of\n"
    "                        PyTorch's CUDA kernels (torch.rand/randn/bernoulli_/\n"
    "                        randint on a GPU), packed tensors only; --seed and\n"
    "                        --philox-offset are then the CUDA generator's\n"
    "                        (torch.cuda.get_rng_state), and a line\n"
    "                        `philox-offset: N` follows the state with its next value\n"
    "                        curand-host: cuRAND's host generator (PHILOX4_32_10,\n"
    "                        default ordering) for --dist bits/uniform/normal in\n"
    "                        uint32/float32/float64, from --seed after skipping --offset\n"
    "                        outputs; prints `offset: N` and `skew: S` (its next state)\n"
    "                        instead of the state line\n"
    "  --philox-offset K     with --order torch-cuda: PyTorch's Philox offset, 4 x the\n"
    "                        Philox blocks its generator used (torch.cuda's\n"
    "                        get_offset; default 0). --offset K was its spelling\n"
    "                        there and still is (deprecated; prints `offset: N`)\n"
    "  --gpu NAME            the GPU whose order to replay (h100-sxm, a100, t4, ...), or\n"
    "  --sm-count N --threads-per-sm M   its multiProcessorCount and\n"
    "                        maxThreadsPerMultiProcessor; needed above 40960 elements\n"
    "  --chunk-bytes N       without --strides, --total-bytes and --repeat the tensor is\n"
    "                        filled and written N bytes at a time (two buffers of N,\n"
    "                        default 16 MiB, at most 1 GiB): any size in bounded memory\n"
    "  --quiet               no progress line (shown on stderr for long runs when it is\n"
    "                        a terminal)\n"
    "  --repeat R            after one warm-up call, time R calls into the same\n"
    "                        buffer and print `GBps: <output bytes / median seconds\n"
    "                        per call / 1e9>` and `Gelem/s: <elements / ...>` (calls\n"
    "                        timed in batches of >= 20 us: the clock's cost is not\n"
    "                        counted, the median is over batches). Every\n"
    "                        call starts from the same input\n"
    "                        state (the operator is a pure function of it), so the\n"
    "                        state printed is the state after ONE call.\n"
    "\n"
    "Invalid arguments exit with status 2 and one line on stderr, before any file\n"
    "is created; a failure to write --out exits with status 1.\n"
    "Under mpirun (a build with MPI), every rank fills its slab of the tensor and\n"
    "writes it into its own range of FILE: the same bytes as one process\n"
    "(packed outputs only; docs/mpi.md).\n"
    "The environment variable RANDTENSOR_TARGET forces a target as --target does.\n";

// The seed page's worked example (SPEC.md section 3): counter
// 0x48656c6c'6f46726f'6d536561'74746c65, key 0, sizes {3,3,20,7219}.
constexpr PhiloxState kExampleState = {{0x74746c65u, 0x6d536561u, 0x6f46726fu, 0x48656c6cu, 0, 0}};
constexpr uint32_t kExampleSizes[] = {3, 3, 20, 7219};
// Enough calls for a stable median while the whole run stays well under a second.
constexpr uint32_t kExampleRepeat = 20;

int ListTargets() {
  for (int i = 0; i < randtensor::TargetCount(); ++i) {
    randtensor::TargetInfo target;
    const Status status = randtensor::GetTarget(i, &target);
    if (!status.ok()) Fail(kExitFailure, status.message());
    std::printf("%s %s%s\n", target.name, target.supported ? "supported" : "unsupported",
                target.active ? " active" : "");
  }
  randtensor::TargetInfo active;
  const Status status = randtensor::GetActiveTarget(&active);
  if (!status.ok()) {
    std::fflush(stdout);  // the list first, then the reason none is active
    Fail(kExitUsage, status.message());
  }
  return kExitOk;
}

// No arguments: what a newcomer needs on one screen. The lines `state:`,
// `GBps:` and `target:` read as `generate` prints them (scripts parse them).
int RunExample() {
  GenerateArgs args;
  args.sizes.assign(std::begin(kExampleSizes), std::end(kExampleSizes));
  args.state = kExampleState;
  args.repeat = kExampleRepeat;
  const GenerateResult example = RunGenerate(args);
  const CeilingResult ceiling = MeasureCeiling();
  const char* target = example.info.target;

  std::printf(
      "randtensor %s: Philox4x32-10 random tensors, bit-exact with DirectML's\n"
      "DML_RANDOM_GENERATOR on every SIMD target, layout and thread count.\n"
      "\n"
      "The DirectML seed's worked example: a UINT32 tensor of sizes 3,3,20,7219\n"
      "(1299420 elements) from counter 0x48656c6c'6f46726f'6d536561'74746c65, key 0.\n"
      "Its output state (counter + ceil(1299420 / 4); the seed page's ...746f776e is\n"
      "a known erratum, see README.md):\n"
      "%s\n"
      "target: %s\n"
      "GBps: %.4g\n"
      "  (the example above, %d lanes, %u task(s), median of %u calls)\n"
      "\n"
      "This machine's memory ceiling, %llu MiB on %u threads:\n"
      "  randtensor %.1f GB/s, streaming-store fill %.1f GB/s: %.2f of the ceiling\n"
      "\n"
      "Next:\n"
      "  randtensor generate --sizes 2,3 --seed 42 --out x.npy --format npy\n"
      "  randtensor generate --help      every option (strides, state, threads, target)\n"
      "  randtensor targets              the SIMD targets and which one runs\n"
      "  README.md                       C++, C, Python, DLPack and CMake usage\n",
      RANDTENSOR_VERSION, FormatState(example.state_out).c_str(), target, example.gbps,
      example.info.lanes, example.info.tasks, kExampleRepeat,
      static_cast<unsigned long long>(ceiling.bytes >> 20), ceiling.threads,
      ceiling.randtensor_gbps, ceiling.streaming_gbps,
      ceiling.randtensor_gbps / std::max(ceiling.streaming_gbps, 1e-9));
  return kExitOk;
}

int Run(const std::vector<std::string>& words) {
  if (words.empty()) return RunExample();
  const std::string& command = words[0];
  const std::vector<std::string> rest(words.begin() + 1, words.end());
  if (command == "-h" || command == "--help") {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (command == "--version") {
    std::printf("randtensor %s\n", RANDTENSOR_VERSION);
    return kExitOk;
  }
  if (command == "generate") {
    const std::optional<GenerateArgs> args = ParseGenerateArgs(rest);
    if (!args.has_value()) {
      std::fputs(kUsage, stdout);
      return kExitOk;
    }
    return Generate(*args);
  }
  if (command == "targets") {
    if (!rest.empty()) Fail(kExitUsage, "targets takes no arguments (got '" + rest[0] + "')");
    return ListTargets();
  }
  Fail(kExitUsage, "unknown command '" + command + "' (try randtensor --help)");
}

}  // namespace
}  // namespace randtensor_cli

int main(int argc, char** argv) {
  using randtensor_cli::kExitFailure;
  // A write past `ulimit -f` raises SIGXFSZ, whose default ends the process
  // without a word and may leave a named temporary file; ignored, the write fails
  // with EFBIG and the usual path reports it and removes the file.
  std::signal(SIGXFSZ, SIG_IGN);
  // Starts MPI only when an MPI launcher started this process (mpi_output.h).
  const randtensor_cli::MpiSession mpi(&argc, &argv);
  const bool speaker = randtensor_cli::MpiRank() == 0;
  // Under mpirun one rank speaks: every rank parses the same arguments and
  // the ranks agree on every failure (mpi_output.cc), so rank 0 says it all.
  if (!speaker && std::freopen("/dev/null", "w", stdout) == nullptr) return kExitFailure;
  try {
    return randtensor_cli::Run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const randtensor_cli::CliError& error) {
    if (speaker) std::fprintf(stderr, "randtensor: %s\n", error.message.c_str());
    return error.exit_code;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "randtensor: out of memory\n");
    return kExitFailure;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "randtensor: %s\n", e.what());
    return kExitFailure;
  }
}
