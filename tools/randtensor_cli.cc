// randtensor: fill a tensor with Philox4x32-10 random numbers from the shell.
//
// The tool is a thin shell around the DirectML-shaped entry point
// (randtensor/directml.h): `generate` builds the same descriptors a DirectML
// program would, so what it accepts, rejects and produces is exactly what
// ExecuteRandomGenerator does. The library never prints; everything the user
// sees is printed here.

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "randtensor/directml.h"
#include "randtensor/fill.h"
#include "randtensor/philox.h"
#include "randtensor/status.h"
#include "randtensor/targets.h"
#include "tools/buffer.h"
#include "tools/cli_args.h"
#include "tools/memory_ceiling.h"
#include "tools/mpi_output.h"
#include "tools/output_file.h"
#include "tools/packed_output.h"

#ifndef RANDTENSOR_VERSION
#error "RANDTENSOR_VERSION must be defined (tools/CMakeLists.txt passes PROJECT_VERSION)"
#endif

namespace randtensor_cli {
namespace {

namespace dml = randtensor::dml;
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
    "  --dist D              bits (default), uniform, normal, bernoulli, integers\n"
    "                        (SPEC.md section 8: the values cuRAND and PyTorch's CUDA\n"
    "                        transforms compute)\n"
    "  --dtype T             uint32, float32, float64, float16, bfloat16, uint8, bool,\n"
    "                        int32, int64 (default: uint32 for bits, float32 for\n"
    "                        uniform/normal/bernoulli, int64 for integers); --format npy\n"
    "                        writes that dtype, bfloat16 as '<u2' bit patterns\n"
    "  --low A --high B      uniform [A, B) (default 0, 1); integers [A, B) (A default 0)\n"
    "  --mean M --std S      normal (default 0, 1)\n"
    "  --p P                 bernoulli (default 0.5)\n"
    "  --offset K            start at element K of the stream (sharding; cuRAND's offset)\n"
    "  --order O             stream (default) or torch-cuda: the element order of\n"
    "                        PyTorch's CUDA kernels (torch.rand/randn/bernoulli_/\n"
    "                        randint on a GPU), packed tensors only; --seed and --offset\n"
    "                        are then the CUDA generator's (torch.cuda.get_rng_state;\n"
    "                        offset a multiple of 4), and a line `offset: N` follows\n"
    "                        the state with the generator's next offset\n"
    "                        curand-host: cuRAND's host generator (PHILOX4_32_10,\n"
    "                        default ordering) for --dist bits/uniform/normal in\n"
    "                        uint32/float32/float64, from --seed after skipping --offset\n"
    "                        outputs; prints `offset: N` and `skew: S` (its next state)\n"
    "                        instead of the state line\n"
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
// Upper bounds that only stop typos: a million timed calls is already hours
// for a large tensor.
constexpr uint64_t kMaxRepeat = 1000000;
// The main job's memory-ceiling probe: large enough to leave the caches on
// most machines, small enough to take well under a second.
constexpr uint64_t kCeilingBytes = uint64_t{256} << 20;
constexpr uint32_t kCeilingRepeat = 5;

std::string Message(const Status& status) { return status.message(); }

// What --out holds: the buffer as it is, or the logical tensor as a .npy file.
enum class OutputFormat { kRaw, kNpy };

// --dtype: the library's type, its size and the NumPy dtype an npy file says.
struct DtypeInfo {
  const char* name;
  randtensor::DataType type;
  int size;
  const char* npy;  // bfloat16 has no NumPy dtype: its bit patterns as '<u2'
};
constexpr DtypeInfo kDtypes[] = {
    {"uint32", randtensor::DataType::kUint32, 4, "<u4"},
    {"float32", randtensor::DataType::kFloat32, 4, "<f4"},
    {"float64", randtensor::DataType::kFloat64, 8, "<f8"},
    {"float16", randtensor::DataType::kFloat16, 2, "<f2"},
    {"bfloat16", randtensor::DataType::kBfloat16, 2, "<u2"},
    {"uint8", randtensor::DataType::kUint8, 1, "|u1"},
    {"bool", randtensor::DataType::kBool, 1, "|b1"},
    {"int32", randtensor::DataType::kInt32, 4, "<i4"},
    {"int64", randtensor::DataType::kInt64, 8, "<i8"},
};

const DtypeInfo* FindDtype(const std::string& name) {
  for (const DtypeInfo& d : kDtypes) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

// What `generate` was asked to do, parsed and range-checked.
struct GenerateArgs {
  std::vector<uint32_t> sizes;
  std::optional<std::vector<uint32_t>> strides;
  std::optional<uint64_t> total_bytes;
  PhiloxState state = PhiloxState::FromSeed(0);
  uint32_t threads = 0;  // 0: the library's default
  std::optional<std::string> target;
  std::optional<std::string> out;
  OutputFormat format = OutputFormat::kRaw;
  uint8_t pad_byte = 0;
  uint32_t repeat = 0;  // 0: no timing
  const DtypeInfo* dtype = &kDtypes[0];     // --dtype
  randtensor::Distribution distribution;    // --dist and its parameters
  uint64_t offset = 0;                       // --offset: first stream element
  uint64_t chunk_bytes = kDefaultChunkBytes;  // --chunk-bytes
  bool quiet = false;                         // --quiet
  // --order torch-cuda: PyTorch's CUDA element order on this GPU (replay.h);
  // `offset` is then the generator's offset, folded into `state`.
  randtensor::ElementOrder order = randtensor::ElementOrder::kStream;
  randtensor::GpuGeometry gpu;
  // --order curand-host: cuRAND's host generator from (seed, --offset).
  bool curand_host = false;
};

// Whether a fill needs the native API: the DirectML-shaped entry point is
// UINT32 bits from element 0 only, as DirectML is.
bool NeedsNativeFill(const GenerateArgs& args) {
  return args.dtype->type != randtensor::DataType::kUint32 ||
         args.distribution.kind != randtensor::DistributionKind::kBits || args.offset != 0 ||
         args.order != randtensor::ElementOrder::kStream;
}

// ---------------------------------------------------------------------------
// DirectML descriptors

// One DML_RANDOM_GENERATOR operator with its state tensors and output tensor,
// owning the arrays the descriptors point into (hence not copyable).
class RandomGenerator {
 public:
  RandomGenerator(const std::vector<uint32_t>& sizes,
                  const std::optional<std::vector<uint32_t>>& strides, uint64_t total_bytes)
      : sizes_(sizes), strides_(strides.value_or(std::vector<uint32_t>())) {
    output_ = {dml::DML_TENSOR_DATA_TYPE_UINT32,
               dml::DML_TENSOR_FLAG_NONE,
               static_cast<dml::UINT>(sizes_.size()),
               sizes_.data(),
               strides.has_value() ? strides_.data() : nullptr,
               total_bytes,
               0};
    state_ = {dml::DML_TENSOR_DATA_TYPE_UINT32,
              dml::DML_TENSOR_FLAG_NONE,
              4,
              kStateSizes,
              nullptr,
              sizeof(PhiloxState),
              0};
    state_tensor_ = {dml::DML_TENSOR_TYPE_BUFFER, &state_};
    output_tensor_ = {dml::DML_TENSOR_TYPE_BUFFER, &output_};
    desc_ = {&state_tensor_, &output_tensor_, &state_tensor_,
             dml::DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10};
  }
  RandomGenerator(const RandomGenerator&) = delete;
  RandomGenerator& operator=(const RandomGenerator&) = delete;

  uint64_t total_bytes() const { return output_.TotalTensorSizeInBytes; }

  // Checks the descriptors without touching any memory (DirectML's
  // CreateOperator step), so an invalid one is reported before the possibly
  // huge buffer is allocated; the checked operator then serves every call
  // (--repeat times calls as a DirectML user's dispatches run).
  Status Create() { return dml::RandomGeneratorOperator::Create(desc_, &op_); }

  Status Execute(void* data, const PhiloxState& in, PhiloxState* out,
                 const randtensor::FillOptions& options) const {
    // Bindings are mutable in DirectML's shape; the input state is only read.
    const dml::DML_BUFFER_BINDING in_binding = {const_cast<PhiloxState*>(&in), sizeof(in)};
    const dml::DML_BUFFER_BINDING out_binding = {data, output_.TotalTensorSizeInBytes};
    const dml::DML_BUFFER_BINDING state_binding = {out, sizeof(*out)};
    return op_.Execute(in_binding, out_binding, &state_binding, options);
  }

 private:
  static constexpr dml::UINT kStateSizes[4] = {1, 1, 1, 6};

  std::vector<uint32_t> sizes_;
  std::vector<uint32_t> strides_;
  dml::DML_BUFFER_TENSOR_DESC output_;
  dml::DML_BUFFER_TENSOR_DESC state_;
  dml::DML_TENSOR_DESC state_tensor_;
  dml::DML_TENSOR_DESC output_tensor_;
  dml::DML_RANDOM_GENERATOR_OPERATOR_DESC desc_;
  dml::RandomGeneratorOperator op_;  // empty until Create succeeds
};

// TotalTensorSizeInBytes: the user's, or DirectML's minimum. When the minimum
// cannot be computed the descriptor is invalid; 0 then lets Validate() report
// the problem in the operator's own words ("OutputTensor.Sizes[1] = 0 ...").
uint64_t TotalBytes(const GenerateArgs& args, std::string* calc_error) {
  if (args.total_bytes.has_value()) return *args.total_bytes;
  uint64_t bytes = 0;
  const Status status = dml::CalcBufferTensorSizeChecked(
      dml::DML_TENSOR_DATA_TYPE_UINT32, static_cast<dml::UINT>(args.sizes.size()),
      args.sizes.data(), args.strides.has_value() ? args.strides->data() : nullptr, &bytes);
  if (!status.ok()) {
    *calc_error = Message(status);
    return 0;
  }
  return bytes;
}

// ---------------------------------------------------------------------------
// Output buffer and file

uint64_t ElementCount(const std::vector<uint32_t>& sizes) {
  uint64_t n = 1;
  for (uint32_t s : sizes) n *= s;  // validated: at most 2^32 - 1
  return n;
}

// --format raw: the buffer byte for byte, padding included.
void WriteRaw(const std::string& path, const Buffer& buffer) {
  OutputFile file(path);
  file.Write(buffer.data(), buffer.size());
  file.Commit();
}

// The .npy header (format version 1.0) for a C-ordered `descr` array of shape
// `sizes`: magic, version, little-endian header length, then the dict padded
// with spaces and ended by a newline so the data starts at a multiple of 64.
std::string NpyHeader(const std::vector<uint32_t>& sizes, const char* descr) {
  std::string shape;
  for (uint32_t size : sizes) shape += std::to_string(size) + ", ";
  // Python's tuple syntax: "(7,)" for one dimension, "(3, 5)" for more.
  shape.resize(shape.size() - (sizes.size() == 1 ? 1 : 2));
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" +
                     shape + "), }";
  constexpr size_t kPreamble = 10;  // magic (6), version (2), header length (2)
  dict.append((64 - (kPreamble + dict.size() + 1) % 64) % 64, ' ');
  dict += '\n';
  const size_t length = dict.size();  // < 65536: eight 10-digit sizes at most
  const char preamble[kPreamble] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                    static_cast<char>(length & 0xFF),
                                    static_cast<char>(length >> 8)};
  return std::string(preamble, kPreamble) + dict;
}

// Calls visit(offset) with the element offset of every element, in logical
// row-major order (last dimension fastest), by counting through the indices.
template <typename Visit>
void ForEachElementOffset(const std::vector<uint32_t>& sizes,
                          const std::vector<uint64_t>& strides, const Visit& visit) {
  std::vector<uint32_t> index(sizes.size(), 0);
  uint64_t offset = 0;
  for (uint64_t e = 0, count = ElementCount(sizes); e < count; ++e) {
    visit(offset);
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) {
        offset += strides[d];
        break;
      }
      offset -= uint64_t{sizes[d] - 1} * strides[d];  // back to index 0, carry on
      index[d] = 0;
    }
  }
}

// --format npy: the logical tensor read back through the strides, so the file
// holds the same array whatever --strides and --total-bytes were.
void WriteNpy(const std::string& path, const Buffer& buffer, const std::vector<uint32_t>& sizes,
              const std::vector<uint64_t>& strides, const DtypeInfo& dtype) {
  OutputFile file(path);
  const std::string header = NpyHeader(sizes, dtype.npy);
  file.Write(header.data(), header.size());
  constexpr size_t kChunkBytes = size_t{1} << 20;  // few writes, little memory
  std::vector<uint8_t> chunk;
  chunk.reserve(kChunkBytes);
  ForEachElementOffset(sizes, strides, [&](uint64_t offset) {
    uint64_t value = 0;
    std::memcpy(&value, buffer.data() + offset * dtype.size, static_cast<size_t>(dtype.size));
    for (int shift = 0; shift < 8 * dtype.size; shift += 8) {
      chunk.push_back(static_cast<uint8_t>(value >> shift));  // little-endian on any host
    }
    if (chunk.size() >= kChunkBytes) {
      file.Write(chunk.data(), chunk.size());
      chunk.clear();
    }
  });
  file.Write(chunk.data(), chunk.size());
  file.Commit();
}

// ---------------------------------------------------------------------------
// generate

// Median wall time of `repeat` calls of `call`, in seconds.
template <typename Call>
double MedianSeconds(uint32_t repeat, const Call& call) {
  using Clock = std::chrono::steady_clock;
  const auto since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  // Calls are timed in batches of at least 20 us (the repeat calls split
  // evenly, at least one per batch), so that reading the clock (some 20-40
  // ns a reading here) stays out of the per-call time of small fills; the
  // median is over the batches' per-call means.
  const auto probe = Clock::now();
  call();
  const double one = std::max(since(probe), 1e-9);
  const uint32_t batch = static_cast<uint32_t>(
      std::min<double>(repeat, std::max(1.0, std::ceil(20e-6 / one))));
  std::vector<double> seconds(std::max<uint32_t>(1, repeat / batch));
  for (double& s : seconds) {
    const auto start = Clock::now();
    for (uint32_t i = 0; i < batch; ++i) call();
    s = since(start) / batch;
  }
  std::sort(seconds.begin(), seconds.end());
  const size_t mid = seconds.size() / 2;
  return seconds.size() % 2 == 1 ? seconds[mid] : (seconds[mid - 1] + seconds[mid]) / 2;
}

// Element strides of the output: --strides, or packed row-major.
std::vector<uint64_t> ElementStrides(const GenerateArgs& args) {
  std::vector<uint64_t> strides(args.sizes.size());
  uint64_t step = 1;
  for (size_t d = args.sizes.size(); d-- > 0;) {
    strides[d] = args.strides.has_value() ? (*args.strides)[d] : step;
    step *= args.sizes[d];  // validated: at most 2^32 - 1 elements
  }
  return strides;
}

void WriteOutput(const GenerateArgs& args, const Buffer& buffer) {
  if (args.format == OutputFormat::kNpy) {
    WriteNpy(*args.out, buffer, args.sizes, ElementStrides(args), *args.dtype);
  } else {
    WriteRaw(*args.out, buffer);
  }
}

// Applies --target, then makes sure a target is usable: a bad
// RANDTENSOR_TARGET is reported here, before any work.
void SelectTarget(const std::optional<std::string>& target) {
  if (target.has_value()) {
    const Status status = randtensor::SetTarget(target->c_str());
    if (!status.ok()) Fail(kExitUsage, "--target: " + Message(status));
  }
  randtensor::TargetInfo active;
  const Status status = randtensor::GetActiveTarget(&active);
  if (!status.ok()) Fail(kExitUsage, Message(status));
}

std::string FormatState(const PhiloxState& state) {
  char line[80];
  std::snprintf(line, sizeof(line), "state: 0x%08x 0x%08x 0x%08x 0x%08x 0x%08x 0x%08x",
                state.words[0], state.words[1], state.words[2], state.words[3], state.words[4],
                state.words[5]);
  return line;
}

// What one `generate` did, for the caller to print.
struct GenerateResult {
  PhiloxState state_out;
  std::optional<randtensor::CurandHostGenerator> curand;  // --order curand-host: after the call
  double gbps = 0;            // with --repeat: output bytes / median seconds per call, 1e9
  double gelems = 0;          // with --repeat: elements / median seconds per call, 1e9
  randtensor::FillInfo info;  // the target that ran, tasks, stores
};

// Runs `fill` once (which also takes the page faults and thread start-up),
// then, with --repeat, times that many more calls into the same buffer from
// the same input state (the fill is a pure function of it).
template <typename FillOnce>
void FillAndTime(const GenerateArgs& args, const FillOnce& fill, GenerateResult* result) {
  Status status = fill(&result->state_out, &result->info);
  if (!status.ok()) Fail(kExitUsage, Message(status));
  if (args.repeat == 0) return;
  PhiloxState scratch;
  randtensor::FillInfo info;
  const double seconds = MedianSeconds(args.repeat, [&] {
    const Status s = fill(&scratch, &info);
    if (!s.ok()) Fail(kExitFailure, Message(s));
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
    Fail(kExitUsage, "under mpirun generate writes packed tensors only: --strides and "
                     "--total-bytes are not supported");
  }
  if (args.repeat != 0) Fail(kExitUsage, "under mpirun --repeat is not supported");
  if (args.order != randtensor::ElementOrder::kStream) {
    Fail(kExitUsage, "under mpirun --order torch-cuda is not supported (run one process)");
  }
  if (args.out == "-") {
    Fail(kExitUsage, "under mpirun --out - is not supported: the ranks write one shared file "
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

// Fills (and times, with --repeat) the tensor `args` describes and writes
// --out. UINT32 bits from element 0 go through the DirectML-shaped entry
// point (what it accepts and refuses is exactly ExecuteRandomGenerator's);
// other types, distributions and offsets through the native API. Fails
// (CliError) before printing anything.
// --order curand-host: the function of (--dist, --dtype), the outputs into
// one buffer, the generator's offset and skew after the call.
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
    Fail(kExitUsage, "--order curand-host: cuRAND's host generator makes --dist bits (uint32), "
                     "uniform (0, 1) or normal, float32 or float64");
  }
  if (args.strides.has_value() || args.total_bytes.has_value() || args.repeat != 0 ||
      MpiActive()) {
    Fail(kExitUsage, "--order curand-host writes packed outputs once: no --strides, "
                     "--total-bytes, --repeat or mpirun");
  }
  const uint64_t n = ElementCount(args.sizes);
  Buffer buffer(n * static_cast<uint64_t>(args.dtype->size));
  GenerateResult result;
  randtensor::CurandHostGenerator g;
  g.seed = uint64_t{args.state.words[4]} | uint64_t{args.state.words[5]} << 32;
  g.offset = args.offset;
  const Status status = randtensor::CurandHostGenerate(&g, f, buffer.data(), n, d.mean, d.std,
                                                       args.threads);
  if (!status.ok()) Fail(kExitUsage, Message(status));
  result.curand = g;
  if (args.out.has_value()) WriteOutput(args, buffer);
  return result;
}

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
    if (!status.ok()) Fail(kExitUsage, Message(status));
    if (!calc_error.empty()) Fail(kExitUsage, calc_error);  // not expected: Validate agrees
    if (IsPacked(args)) return RunPacked(args, options, generator.total_bytes());
    // Padding is never written by the library, so setting the whole buffer to
    // the pad byte first leaves exactly the padding with that value.
    Buffer buffer(generator.total_bytes());
    std::memset(buffer.data(), args.pad_byte, buffer.size());
    FillAndTime(args, [&](PhiloxState* out, randtensor::FillInfo* info) {
      options.info = info;
      return generator.Execute(buffer.data(), args.state, out, options);
    }, &result);
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
  if (!status.ok()) Fail(kExitUsage, Message(status));
  if (args.total_bytes.has_value()) {
    if (*args.total_bytes < bytes) {
      Fail(kExitUsage, "--total-bytes " + std::to_string(*args.total_bytes) +
                           " is less than the " + std::to_string(bytes) +
                           " bytes the layout spans");
    }
    bytes = *args.total_bytes;
  }
  if (IsPacked(args)) return RunPacked(args, options, bytes);
  Buffer buffer(bytes);
  std::memset(buffer.data(), args.pad_byte, buffer.size());
  FillAndTime(args, [&](PhiloxState* out, randtensor::FillInfo* info) {
    options.info = info;
    return randtensor::Fill(desc, buffer.data(), bytes, args.state, out, options);
  }, &result);
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
  uint64_t offset = 0;
  if (args.order == randtensor::ElementOrder::kTorchCuda &&
      randtensor::TorchCudaOffset(result.state_out, &offset).ok()) {
    std::fprintf(text, "offset: %llu\n", static_cast<unsigned long long>(offset));
  }
  if (args.repeat > 0) {
    std::fprintf(text, "GBps: %.4g\nGelem/s: %.4g\n", result.gbps, result.gelems);
  }
  return kExitOk;
}

// --state (six words) or --seed (PhiloxState::FromSeed); default --seed 0.
PhiloxState ParseInputState(const Options& options) {
  if (options.Has("--state") && options.Has("--seed")) {
    Fail(kExitUsage, "--state and --seed cannot both be given");
  }
  if (options.Has("--seed")) {
    return PhiloxState::FromSeed(ParseNumber("--seed", options.Get("--seed"), UINT64_MAX));
  }
  PhiloxState state = PhiloxState::FromSeed(0);
  if (options.Has("--state")) {
    const std::vector<uint32_t> words = ParseUint32List("--state", options.Get("--state"));
    if (words.size() != 6) {
      Fail(kExitUsage, "--state has " + std::to_string(words.size()) +
                           " values; it needs 6 (counter words 0-3, key words 0-1)");
    }
    std::copy(words.begin(), words.end(), state.words);
  }
  return state;
}

// --format: only meaningful with --out, so without it a likely mistake (the
// user expected output somewhere) is an error rather than silently ignored.
OutputFormat ParseFormat(const std::string& text, const std::optional<std::string>& out) {
  OutputFormat format = OutputFormat::kRaw;
  if (text == "npy") {
    format = OutputFormat::kNpy;
  } else if (text != "raw") {
    Fail(kExitUsage, "--format: '" + text + "' is not a format (raw or npy)");
  }
  if (!out.has_value()) Fail(kExitUsage, "--format " + text + " needs --out FILE");
  return format;
}

// --dist, --dtype and the distribution's parameters. Each parameter belongs
// to one distribution; giving it to another is a usage error (a likely typo).
// --dtype defaults as PyTorch's do: uint32 for bits, float32 for uniform,
// normal and bernoulli, int64 for integers.
void ParseDistribution(const Options& options, GenerateArgs* args) {
  using randtensor::Distribution;
  const std::string dist = options.Has("--dist") ? options.Get("--dist") : "bits";
  const char* dtype = "uint32";
  std::vector<std::string> allowed;
  if (dist == "bits") {
    args->distribution = Distribution::Bits();
  } else if (dist == "uniform") {
    dtype = "float32";
    allowed = {"--low", "--high"};
    args->distribution = Distribution::Uniform(
        options.Has("--low") ? ParseDouble("--low", options.Get("--low")) : 0.0,
        options.Has("--high") ? ParseDouble("--high", options.Get("--high")) : 1.0);
  } else if (dist == "normal") {
    dtype = "float32";
    allowed = {"--mean", "--std"};
    args->distribution = Distribution::Normal(
        options.Has("--mean") ? ParseDouble("--mean", options.Get("--mean")) : 0.0,
        options.Has("--std") ? ParseDouble("--std", options.Get("--std")) : 1.0);
  } else if (dist == "bernoulli") {
    dtype = "float32";
    allowed = {"--p"};
    args->distribution =
        Distribution::Bernoulli(options.Has("--p") ? ParseDouble("--p", options.Get("--p")) : 0.5);
  } else if (dist == "integers") {
    dtype = "int64";
    allowed = {"--low", "--high"};
    if (!options.Has("--high")) Fail(kExitUsage, "--dist integers needs --high");
    args->distribution = Distribution::Integers(
        options.Has("--low") ? ParseInt64("--low", options.Get("--low")) : 0,
        ParseInt64("--high", options.Get("--high")));
  } else {
    Fail(kExitUsage, "--dist: '" + dist +
                         "' is not a distribution (bits, uniform, normal, bernoulli, integers)");
  }
  for (const char* flag : {"--low", "--high", "--mean", "--std", "--p"}) {
    if (options.Has(flag) && std::find(allowed.begin(), allowed.end(), flag) == allowed.end()) {
      Fail(kExitUsage, std::string(flag) + " does not apply to --dist " + dist);
    }
  }
  if (options.Has("--dtype")) {
    args->dtype = FindDtype(options.Get("--dtype"));
    if (args->dtype == nullptr) {
      Fail(kExitUsage, "--dtype: '" + options.Get("--dtype") +
                           "' is not a type (uint32, float32, float64, float16, bfloat16, uint8, "
                           "bool, int32, int64)");
    }
  } else {
    args->dtype = FindDtype(dtype);
  }
}

// Up to this many elements PyTorch's CUDA order is the same on every GPU of
// the presets (the T4's 40 SMs x 1024 threads is the smallest grid).
constexpr uint64_t kGeometryFreeElements = 40960;

// --order, --gpu / --sm-count --threads-per-sm. With --order torch-cuda,
// --offset is the generator's offset (a multiple of 4, as torch keeps it):
// the state's counter becomes offset / 4 and the fill starts at element 0.
void ParseOrder(const Options& options, GenerateArgs* args) {
  const std::string order = options.Has("--order") ? options.Get("--order") : "stream";
  const bool has_gpu = options.Has("--gpu") || options.Has("--sm-count") ||
                       options.Has("--threads-per-sm");
  if (order == "stream" || order == "curand-host") {
    if (has_gpu) Fail(kExitUsage, "--gpu, --sm-count and --threads-per-sm need --order torch-cuda");
    if (order == "curand-host" && options.Has("--state")) {
      Fail(kExitUsage, "--order curand-host takes --seed and --offset (outputs to skip), not "
                       "--state");
    }
    args->curand_host = order == "curand-host";
    return;
  }
  if (order != "torch-cuda") {
    Fail(kExitUsage, "--order: '" + order + "' is not an order (stream, torch-cuda or curand-host)");
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
    args->gpu.sm_count = static_cast<int32_t>(
        ParseNumber("--sm-count", options.Get("--sm-count"), INT32_MAX));
    args->gpu.threads_per_sm = static_cast<int32_t>(
        ParseNumber("--threads-per-sm", options.Get("--threads-per-sm"), INT32_MAX));
  } else if (ElementCount(args->sizes) > kGeometryFreeElements) {
    Fail(kExitUsage, std::to_string(ElementCount(args->sizes)) + " elements: above " +
                         std::to_string(kGeometryFreeElements) +
                         " PyTorch's CUDA order depends on the GPU; give --gpu NAME or "
                         "--sm-count N --threads-per-sm M");
  }
  if (options.Has("--state")) {
    Fail(kExitUsage, "--order torch-cuda takes --seed and --offset (the CUDA generator's "
                     "state), not --state");
  }
  const uint64_t seed = static_cast<uint64_t>(args->state.words[4]) |
                        static_cast<uint64_t>(args->state.words[5]) << 32;
  const Status status = randtensor::TorchCudaState(seed, args->offset, &args->state);
  if (!status.ok()) Fail(kExitUsage, "--offset: " + Message(status));
  args->offset = 0;
}

// The arguments of `generate`, or nothing when they ask for --help.
std::optional<GenerateArgs> ParseGenerateArgs(const std::vector<std::string>& words) {
  const Options options(words, {"--sizes", "--strides", "--total-bytes", "--state", "--seed",
                                "--threads", "--target", "--out", "--format", "--pad-byte",
                                "--repeat", "--dist", "--dtype", "--low", "--high", "--mean",
                                "--std", "--p", "--offset", "--chunk-bytes", "--order", "--gpu",
                                "--sm-count", "--threads-per-sm"},
                        {"--quiet"});
  if (options.help()) return std::nullopt;
  GenerateArgs args;
  if (!options.Has("--sizes")) Fail(kExitUsage, "generate needs --sizes");
  args.sizes = ParseUint32List("--sizes", options.Get("--sizes"));
  if (options.Has("--strides")) {
    args.strides = ParseUint32List("--strides", options.Get("--strides"));
    if (args.strides->size() != args.sizes.size()) {
      Fail(kExitUsage, "--strides has " + std::to_string(args.strides->size()) +
                           " values but --sizes has " + std::to_string(args.sizes.size()));
    }
  }
  if (options.Has("--total-bytes")) {
    args.total_bytes = ParseNumber("--total-bytes", options.Get("--total-bytes"), UINT64_MAX);
  }
  args.state = ParseInputState(options);
  if (options.Has("--threads")) {
    args.threads =
        static_cast<uint32_t>(ParseNumber("--threads", options.Get("--threads"), UINT32_MAX));
    if (args.threads == 0) Fail(kExitUsage, "--threads: must be at least 1");
  }
  if (options.Has("--target")) args.target = options.Get("--target");
  if (options.Has("--out")) args.out = options.Get("--out");
  if (options.Has("--format")) args.format = ParseFormat(options.Get("--format"), args.out);
  if (options.Has("--pad-byte")) {
    args.pad_byte = static_cast<uint8_t>(ParseNumber("--pad-byte", options.Get("--pad-byte"), 255));
  }
  if (options.Has("--repeat")) {
    args.repeat =
        static_cast<uint32_t>(ParseNumber("--repeat", options.Get("--repeat"), kMaxRepeat));
    if (args.repeat == 0) Fail(kExitUsage, "--repeat: must be at least 1");
  }
  ParseDistribution(options, &args);
  if (options.Has("--offset")) {
    args.offset = ParseNumber("--offset", options.Get("--offset"), UINT64_MAX);
  }
  if (options.Has("--chunk-bytes")) {
    args.chunk_bytes = ParseNumber("--chunk-bytes", options.Get("--chunk-bytes"), kMaxChunkBytes);
    if (args.chunk_bytes == 0) Fail(kExitUsage, "--chunk-bytes: must be at least 1");
  }
  args.quiet = options.Has("--quiet");
  ParseOrder(options, &args);
  return args;
}

// ---------------------------------------------------------------------------
// targets and the example

int ListTargets() {
  for (int i = 0; i < randtensor::TargetCount(); ++i) {
    randtensor::TargetInfo target;
    const Status status = randtensor::GetTarget(i, &target);
    if (!status.ok()) Fail(kExitFailure, Message(status));
    std::printf("%s %s%s\n", target.name, target.supported ? "supported" : "unsupported",
                target.active ? " active" : "");
  }
  randtensor::TargetInfo active;
  const Status status = randtensor::GetActiveTarget(&active);
  if (!status.ok()) {
    std::fflush(stdout);  // the list first, then the reason none is active
    Fail(kExitUsage, Message(status));
  }
  return kExitOk;
}

// The memory ceiling: randtensor and a plain streaming-store fill of the same
// large buffer (larger than the caches) on all threads, each the median of a
// few calls after a warm-up that also takes the page faults.
struct CeilingResult {
  uint64_t bytes = 0;
  uint32_t threads = 0;
  double randtensor_gbps = 0, streaming_gbps = 0;
};

CeilingResult MeasureCeiling() {
  CeilingResult r;
  r.bytes = kCeilingBytes;
  r.threads = randtensor::DefaultThreads();
  Buffer buffer(r.bytes);
  const int64_t sizes[1] = {static_cast<int64_t>(r.bytes / 4)};
  randtensor::TensorDesc desc;
  desc.rank = 1;
  desc.sizes = sizes;
  const PhiloxState state = PhiloxState::FromSeed(0);
  const auto fill = [&] {
    const Status s = randtensor::Fill(desc, buffer.data(), r.bytes, state, nullptr);
    if (!s.ok()) Fail(kExitFailure, Message(s));
  };
  const auto stream = [&] { StreamingFill(buffer.data(), r.bytes, r.threads); };
  fill();
  stream();
  const double fill_s = MedianSeconds(kCeilingRepeat, fill);
  const double stream_s = MedianSeconds(kCeilingRepeat, stream);
  r.randtensor_gbps = static_cast<double>(r.bytes) / std::max(fill_s, 1e-9) / 1e9;
  r.streaming_gbps = static_cast<double>(r.bytes) / std::max(stream_s, 1e-9) / 1e9;
  return r;
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
