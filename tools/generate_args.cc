#include "tools/generate_args.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "randtensor/status.h"
#include "tools/cli_args.h"
#include "tools/orders.h"

namespace randtensor_cli {
namespace {

using randtensor::PhiloxState;

// Upper bounds that only stop typos: a million timed calls is already hours
// for a large tensor.
constexpr uint64_t kMaxRepeat = 1000000;

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
// normal, bernoulli, exponential, cauchy and log_normal, int64 for integers
// (and for geometric, as NumPy's geometric).
// The value of --name, or `fallback` where it was not given.
double DoubleOr(const Options& options, const char* name, double fallback) {
  return options.Has(name) ? ParseDouble(name, options.Get(name)) : fallback;
}

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
    args->distribution = Distribution::Uniform(DoubleOr(options, "--low", 0.0),
                                               DoubleOr(options, "--high", 1.0));
  } else if (dist == "normal") {
    dtype = "float32";
    allowed = {"--mean", "--std"};
    args->distribution = Distribution::Normal(DoubleOr(options, "--mean", 0.0),
                                              DoubleOr(options, "--std", 1.0));
  } else if (dist == "bernoulli") {
    dtype = "float32";
    allowed = {"--p"};
    args->distribution = Distribution::Bernoulli(DoubleOr(options, "--p", 0.5));
  } else if (dist == "exponential") {
    dtype = "float32";
    allowed = {"--lambda"};
    args->distribution = Distribution::Exponential(DoubleOr(options, "--lambda", 1.0));
  } else if (dist == "cauchy") {
    dtype = "float32";
    allowed = {"--median", "--sigma"};
    args->distribution = Distribution::Cauchy(DoubleOr(options, "--median", 0.0),
                                              DoubleOr(options, "--sigma", 1.0));
  } else if (dist == "log_normal") {
    dtype = "float32";
    allowed = {"--mean", "--std"};
    args->distribution = Distribution::LogNormal(DoubleOr(options, "--mean", 0.0),
                                                 DoubleOr(options, "--std", 1.0));
  } else if (dist == "geometric") {
    dtype = "int64";
    allowed = {"--p"};
    if (!options.Has("--p")) Fail(kExitUsage, "--dist geometric needs --p");
    args->distribution = Distribution::Geometric(DoubleOr(options, "--p", 0.5));
  } else if (dist == "integers") {
    dtype = "int64";
    allowed = {"--low", "--high"};
    if (!options.Has("--high")) Fail(kExitUsage, "--dist integers needs --high");
    args->distribution =
        Distribution::Integers(options.Has("--low") ? ParseInt64("--low", options.Get("--low")) : 0,
                               ParseInt64("--high", options.Get("--high")));
  } else {
    Fail(kExitUsage, "--dist: '" + dist +
                         "' is not a distribution (bits, uniform, normal, bernoulli, integers, "
                         "exponential, cauchy, log_normal, geometric)");
  }
  for (const char* flag :
       {"--low", "--high", "--mean", "--std", "--p", "--lambda", "--median", "--sigma"}) {
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

}  // namespace

const DtypeInfo* FindDtype(const std::string& name) {
  for (const DtypeInfo& d : kDtypes) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

uint64_t ElementCount(const std::vector<uint32_t>& sizes) {
  uint64_t n = 1;
  for (uint32_t s : sizes) n *= s;  // validated: at most 2^32 - 1
  return n;
}

// The arguments of `generate`, or nothing when they ask for --help.
std::optional<GenerateArgs> ParseGenerateArgs(const std::vector<std::string>& words) {
  const Options options(
      words, {"--sizes",       "--strides", "--total-bytes", "--state",    "--seed",
              "--threads",     "--target",  "--out",         "--format",   "--pad-byte",
              "--repeat",      "--dist",    "--dtype",       "--low",      "--high",
              "--mean",        "--std",     "--p",           "--offset",   "--philox-offset",
              "--lambda",      "--median",  "--sigma",
              "--chunk-bytes", "--order",   "--gpu",         "--sm-count", "--threads-per-sm"},
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

}  // namespace randtensor_cli
