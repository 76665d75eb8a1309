// Per-kernel benchmarks, expanded from the one kernel list (src/kernel_list.h)
// for every compiled target this CPU supports:
//   kernel/<TARGET>/generate/<kind>/<bytes>   a generate kernel into L1/L2
//   kernel/<TARGET>/copy/<size>B/<bytes>      a move kernel's copy
// Rates are output bytes per second. The whole-fill benchmarks (with layouts,
// threads and the ceilings) are randtensor_bench.
//
//   randtensor_kernel_bench --benchmark_filter='kernel/AVX3/'

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "hwy/targets.h"
#include "randtensor/philox.h"
#include "src/kernel_list.h"
#include "src/kernels.h"

namespace {

using randtensor::detail::GenerateKind;
using randtensor::detail::KernelTable;

struct Aligned {
  explicit Aligned(size_t bytes) : p(static_cast<uint8_t*>(std::aligned_alloc(64, bytes))) {
    std::memset(p, 0x5A, bytes);
  }
  ~Aligned() { std::free(p); }
  uint8_t* p;
};

void BM_Generate(benchmark::State& state, const KernelTable* table, GenerateKind kind,
                 size_t bytes) {
  const size_t size = static_cast<size_t>(randtensor::detail::ElementBytes(kind));
  const uint64_t n = bytes / size;
  Aligned out(bytes);
  const randtensor::PhiloxState s = randtensor::PhiloxState::FromSeed(42);
  const randtensor::detail::KernelArgs args{s.counter(), randtensor::detail::RoundKeys(s.key())};
  const auto generate = table->Generate(kind).contiguous;
  for (auto _ : state) {
    generate(args, 0, n, out.p, false);
    benchmark::DoNotOptimize(out.p);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n * size));
}

void BM_Copy(benchmark::State& state, const KernelTable* table, int size, size_t bytes) {
  Aligned in(bytes), out(bytes);
  const auto copy = table->Move(size).copy;
  for (auto _ : state) {
    copy(in.p, bytes / static_cast<size_t>(size), out.p, false);
    benchmark::DoNotOptimize(out.p);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

}  // namespace

int main(int argc, char** argv) {
  int count = 0;
  const KernelTable* tables = randtensor::detail::CompiledKernels(&count);
  for (int t = 0; t < count; ++t) {
    if ((tables[t].hwy_target & hwy::SupportedTargets()) == 0) continue;
    const std::string target = tables[t].name;
    for (const size_t bytes : {size_t{16} << 10, size_t{256} << 10}) {
      const std::string size_name = std::to_string(bytes >> 10) + "KiB";
      for (int k = 0; k < randtensor::detail::kGenerateKinds; ++k) {
        const auto kind = static_cast<GenerateKind>(k);
        benchmark::RegisterBenchmark(
            ("kernel/" + target + "/generate/" + randtensor::detail::KindName(kind) + "/" + size_name).c_str(),
            BM_Generate, &tables[t], kind, bytes);
      }
#define RANDTENSOR_COPY_BENCH(size, type)                                                   \
  benchmark::RegisterBenchmark(                                                             \
      ("kernel/" + target + "/copy/" #size "B/" + size_name).c_str(), BM_Copy, &tables[t], \
      size, bytes);
      RANDTENSOR_MOVE_SIZES(RANDTENSOR_COPY_BENCH)
#undef RANDTENSOR_COPY_BENCH
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
