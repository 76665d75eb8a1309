// Writes n consecutive curand() outputs of one cuRAND device-API Philox4_32_10
// stream, curand_init(seed, subsequence, offset), as raw little-endian words.
// run.sh compares them with randtensor's stream for the state SPEC.md
// section 7 derives from (seed, subsequence, offset).
//
//   curand_check SEED SUBSEQUENCE OFFSET N OUT_FILE
#include <curand_kernel.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void Generate(unsigned long long seed, unsigned long long subsequence,
                         unsigned long long offset, unsigned n, uint32_t* out) {
  curandStatePhilox4_32_10_t state;
  curand_init(seed, subsequence, offset, &state);
  for (unsigned i = 0; i < n; ++i) out[i] = curand(&state);
}

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s SEED SUBSEQUENCE OFFSET N OUT_FILE\n", argv[0]);
    return 2;
  }
  const unsigned long long seed = std::strtoull(argv[1], nullptr, 0);
  const unsigned long long subsequence = std::strtoull(argv[2], nullptr, 0);
  const unsigned long long offset = std::strtoull(argv[3], nullptr, 0);
  const unsigned n = static_cast<unsigned>(std::strtoul(argv[4], nullptr, 0));
  uint32_t* device = nullptr;
  if (cudaMalloc(&device, n * sizeof(uint32_t)) != cudaSuccess) return 1;
  Generate<<<1, 1>>>(seed, subsequence, offset, n, device);
  std::vector<uint32_t> host(n);
  if (cudaMemcpy(host.data(), device, n * sizeof(uint32_t), cudaMemcpyDeviceToHost) !=
      cudaSuccess) {
    std::fprintf(stderr, "CUDA error\n");
    return 1;
  }
  cudaFree(device);
  FILE* f = std::fopen(argv[5], "wb");
  if (f == nullptr || std::fwrite(host.data(), 4, n, f) != n || std::fclose(f) != 0) return 1;
  return 0;
}
