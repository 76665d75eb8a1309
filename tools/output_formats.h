// What `generate` writes: --out as raw bytes or a .npy file, and the state
// line it prints (scripts parse both).
#ifndef RANDTENSOR_TOOLS_OUTPUT_FORMATS_H_
#define RANDTENSOR_TOOLS_OUTPUT_FORMATS_H_

#include <string>
#include <vector>

#include "randtensor/philox.h"
#include "tools/buffer.h"
#include "tools/generate_args.h"

namespace randtensor_cli {

// The .npy header (format version 1.0) of a C-ordered array of NumPy dtype
// `descr` ("<u4") and shape `sizes`.
std::string NpyHeader(const std::vector<uint32_t>& sizes, const char* descr);

// Writes the filled `buffer` to --out in --format: raw, the buffer byte for
// byte with its padding; npy, the logical tensor read back through the
// strides. Fails (status 1) when the file cannot be written.
void WriteOutput(const GenerateArgs& args, const Buffer& buffer);

// "state: 0x........ (six words)", the line `generate` prints.
std::string FormatState(const randtensor::PhiloxState& state);

}  // namespace randtensor_cli

#endif  // RANDTENSOR_TOOLS_OUTPUT_FORMATS_H_
