// `randtensor generate`: fills the tensor its arguments describe, in the
// order they ask for, times it with --repeat, writes --out (in this process
// or across the ranks of an MPI job) and prints the output state.
#ifndef RANDTENSOR_TOOLS_GENERATE_H_
#define RANDTENSOR_TOOLS_GENERATE_H_

#include <optional>

#include "randtensor/fill.h"
#include "randtensor/philox.h"
#include "randtensor/replay.h"
#include "tools/generate_args.h"

namespace randtensor_cli {

// What one `generate` did, for the caller to print.
struct GenerateResult {
  randtensor::PhiloxState state_out;
  std::optional<randtensor::CurandHostGenerator> curand;  // --order curand-host: after the call
  double gbps = 0;            // with --repeat: output bytes / median seconds per call, 1e9
  double gelems = 0;          // with --repeat: elements / median seconds per call, 1e9
  randtensor::FillInfo info;  // the target that ran, tasks, stores
};

// Fills (and times, with --repeat) the tensor `args` describes and writes
// --out. UINT32 bits from element 0 go through the DirectML-shaped entry
// point (what it accepts and refuses is exactly ExecuteRandomGenerator's);
// other types, distributions and offsets through the native API. Fails
// (CliError) before printing anything.
GenerateResult RunGenerate(const GenerateArgs& args);

// RunGenerate, then prints its result: the state line (or cuRAND's
// position), the generator's offset under --order torch-cuda, the rates with
// --repeat. Returns the exit status.
int Generate(const GenerateArgs& args);

}  // namespace randtensor_cli

#endif  // RANDTENSOR_TOOLS_GENERATE_H_
