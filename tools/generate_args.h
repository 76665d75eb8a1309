// What `randtensor generate` was asked to do: its options read, checked
// against each other and turned into the library's terms. Every rejection is
// a usage error (status 2) naming the option, raised before any work.
#ifndef RANDTENSOR_TOOLS_GENERATE_ARGS_H_
#define RANDTENSOR_TOOLS_GENERATE_ARGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "randtensor/distribution.h"
#include "randtensor/fill.h"
#include "randtensor/philox.h"
#include "randtensor/replay.h"
#include "tools/packed_output.h"

namespace randtensor_cli {

// What --out holds: the buffer as it is, or the logical tensor as a .npy file.
enum class OutputFormat { kRaw, kNpy };

// --dtype: the library's type, its size and the NumPy dtype an npy file says.
struct DtypeInfo {
  const char* name;
  randtensor::DataType type;
  int size;
  const char* npy;  // bfloat16 has no NumPy dtype: its bit patterns as '<u2'
};

// The --dtype of that name, or nullptr.
const DtypeInfo* FindDtype(const std::string& name);

struct GenerateArgs {
  std::vector<uint32_t> sizes;
  std::optional<std::vector<uint32_t>> strides;
  std::optional<uint64_t> total_bytes;
  randtensor::PhiloxState state = randtensor::PhiloxState::FromSeed(0);
  uint32_t threads = 0;  // 0: the library's default
  std::optional<std::string> target;
  std::optional<std::string> out;
  OutputFormat format = OutputFormat::kRaw;
  uint8_t pad_byte = 0;
  uint32_t repeat = 0;                           // 0: no timing
  const DtypeInfo* dtype = FindDtype("uint32");  // --dtype
  randtensor::Distribution distribution;         // --dist and its parameters
  uint64_t offset = 0;                           // --offset: the first stream element
  uint64_t chunk_bytes = kDefaultChunkBytes;     // --chunk-bytes
  bool quiet = false;                            // --quiet
  // --order torch-cuda: PyTorch's CUDA element order on this GPU (replay.h).
  // The generator's Philox offset (--philox-offset) is folded into `state`,
  // and `offset` stays 0.
  randtensor::ElementOrder order = randtensor::ElementOrder::kStream;
  randtensor::GpuGeometry gpu;
  // The label of the Philox offset printed after the fill: "philox-offset",
  // or "offset" when the run spelled it --offset (the deprecated spelling,
  // whose output scripts parse).
  const char* philox_offset_label = "philox-offset";
  // --order curand-host: cuRAND's host generator from (seed, --offset).
  bool curand_host = false;
};

uint64_t ElementCount(const std::vector<uint32_t>& sizes);

// The arguments of `generate` (the words after it), or nothing when they ask
// for --help. Fails (CliError, status 2) on any bad argument.
std::optional<GenerateArgs> ParseGenerateArgs(const std::vector<std::string>& words);

}  // namespace randtensor_cli

#endif  // RANDTENSOR_TOOLS_GENERATE_ARGS_H_
