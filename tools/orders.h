// `generate --order`: which element reads which stream words. `stream` is
// the library's own order; `torch-cuda` replays PyTorch's CUDA kernels on a
// given GPU (randtensor/replay.h), `curand-host` cuRAND's host generator.
#ifndef RANDTENSOR_TOOLS_ORDERS_H_
#define RANDTENSOR_TOOLS_ORDERS_H_

#include "tools/cli_args.h"
#include "tools/generate.h"
#include "tools/generate_args.h"

namespace randtensor_cli {

// --order, --gpu / --sm-count --threads-per-sm into `args`, after the rest
// of its options are read (a torch-cuda state is made from --seed).
void ParseOrder(const Options& options, GenerateArgs* args);

// --order curand-host: the function of (--dist, --dtype), the outputs into
// one buffer (and --out), the generator's offset and skew after the call.
GenerateResult RunCurandHost(const GenerateArgs& args);

}  // namespace randtensor_cli

#endif  // RANDTENSOR_TOOLS_ORDERS_H_
