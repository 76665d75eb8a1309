// Captures what ONE CUDA thread computes with cuRAND's device API (Philox4_32_10)
// after curand_init(seed, subsequence, offset), for a few triples. Every
// (triple, function) pair runs in its own thread with its own fresh curand_init,
// so each output file is one thread's sequence, element after element.
//
//   curand_capture OUTDIR CALLS4 CALLS2
//
// writes, for triple t (0..NT-1):
//   OUTDIR/bits_t.u32       CALLS4 * 4 words of curand4
//   OUTDIR/uniform4_t.f32   CALLS4 * 4 floats of curand_uniform4
//   OUTDIR/normal4_t.f32    CALLS4 * 4 floats of curand_normal4
//   OUTDIR/uniform2d_t.f64  CALLS2 * 2 doubles of curand_uniform2_double
//   OUTDIR/normal2d_t.f64   CALLS2 * 2 doubles of curand_normal2_double
// and OUTDIR/triples.txt (t seed subsequence offset, decimal).
// Built with plain nvcc (no --use_fast_math): nvcc's default --fmad=true is what
// cuRAND's formulas (and PyTorch's) are compiled with.
#include <curand_kernel.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

struct Triple {
  unsigned long long seed, subsequence, offset;
};

// Offsets are multiples of 4 (SPEC.md section 8); the last one has offset / 4
// above 2^32, so the counter's word 1 is exercised.
static const Triple kTriples[] = {
    {0ULL, 0ULL, 0ULL},
    {20111115ULL, 1ULL, 0ULL},
    {0xdeadbeefcafef00dULL, 12345ULL, 4096ULL},
    {0x0123456789abcdefULL, 0xfedcba9876543210ULL, 4ULL * ((1ULL << 32) + 5ULL)},
};
static const int kNT = sizeof(kTriples) / sizeof(kTriples[0]);
enum { kBits, kUniform4, kNormal4, kUniform2d, kNormal2d, kNF };

__global__ void capture(const Triple* triples, int nt, long long calls4, long long calls2,
                        unsigned* bits, float* uni4, float* nor4, double* uni2d,
                        double* nor2d) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= nt * kNF) return;
  int t = id / kNF, f = id % kNF;
  curandStatePhilox4_32_10_t state;
  curand_init(triples[t].seed, triples[t].subsequence, triples[t].offset, &state);
  switch (f) {
    case kBits: {
      uint4* out = reinterpret_cast<uint4*>(bits) + t * calls4;
      for (long long c = 0; c < calls4; ++c) out[c] = curand4(&state);
      break;
    }
    case kUniform4: {
      float4* out = reinterpret_cast<float4*>(uni4) + t * calls4;
      for (long long c = 0; c < calls4; ++c) out[c] = curand_uniform4(&state);
      break;
    }
    case kNormal4: {
      float4* out = reinterpret_cast<float4*>(nor4) + t * calls4;
      for (long long c = 0; c < calls4; ++c) out[c] = curand_normal4(&state);
      break;
    }
    case kUniform2d: {
      double2* out = reinterpret_cast<double2*>(uni2d) + t * calls2;
      for (long long c = 0; c < calls2; ++c) out[c] = curand_uniform2_double(&state);
      break;
    }
    case kNormal2d: {
      double2* out = reinterpret_cast<double2*>(nor2d) + t * calls2;
      for (long long c = 0; c < calls2; ++c) out[c] = curand_normal2_double(&state);
      break;
    }
  }
}

// _curand_uniform(x) (curand_uniform.h) for EVERY uint32 x: counts the x that give
// 1.0f and 0.0f, and the x where it differs from one IEEE fma of the correctly
// rounded float(x) (fmaf is a single rounding by definition). edges gets the
// results for x < 1024 and x >= 2^32 - 1024.
__global__ void all_uniform(unsigned long long* counts, float* edges) {
  unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  unsigned long long ones = 0, zeros = 0, mism = 0, unfused = 0;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
       i < (1ULL << 32); i += stride) {
    unsigned x = (unsigned)i;
    float u = _curand_uniform(x);
    float f = fmaf(__uint2float_rn(x), 2.3283064e-10f, 2.3283064e-10f / 2.0f);
    float g = __fadd_rn(__fmul_rn(__uint2float_rn(x), 2.3283064e-10f), 2.3283064e-10f / 2.0f);
    ones += (u == 1.0f);
    zeros += (u == 0.0f);
    mism += (__float_as_uint(u) != __float_as_uint(f));
    unfused += (__float_as_uint(g) != __float_as_uint(f));
    if (x < 1024u) edges[x] = u;
    if (x >= 0xFFFFFC00u) edges[1024 + (x - 0xFFFFFC00u)] = u;
  }
  atomicAdd(&counts[0], ones);
  atomicAdd(&counts[1], zeros);
  atomicAdd(&counts[2], mism);
  atomicAdd(&counts[3], unfused);
}

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                 \
      return 1;                                                                \
    }                                                                          \
  } while (0)

static int write_file(const std::string& path, const void* data, size_t bytes) {
  FILE* f = fopen(path.c_str(), "wb");
  if (!f || fwrite(data, 1, bytes, f) != bytes || fclose(f) != 0) {
    fprintf(stderr, "cannot write %s\n", path.c_str());
    return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s OUTDIR CALLS4 CALLS2\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  long long calls4 = atoll(argv[2]), calls2 = atoll(argv[3]);
  size_t n4 = (size_t)kNT * calls4 * 4, n2 = (size_t)kNT * calls2 * 2;
  Triple* d_triples;
  unsigned* d_bits;
  float *d_uni4, *d_nor4;
  double *d_uni2d, *d_nor2d;
  CHECK(cudaMalloc(&d_triples, sizeof(kTriples)));
  CHECK(cudaMemcpy(d_triples, kTriples, sizeof(kTriples), cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&d_bits, n4 * 4));
  CHECK(cudaMalloc(&d_uni4, n4 * 4));
  CHECK(cudaMalloc(&d_nor4, n4 * 4));
  CHECK(cudaMalloc(&d_uni2d, n2 * 8));
  CHECK(cudaMalloc(&d_nor2d, n2 * 8));
  capture<<<1, 32>>>(d_triples, kNT, calls4, calls2, d_bits, d_uni4, d_nor4, d_uni2d, d_nor2d);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> bits(n4);
  std::vector<float> uni4(n4), nor4(n4);
  std::vector<double> uni2d(n2), nor2d(n2);
  CHECK(cudaMemcpy(bits.data(), d_bits, n4 * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(uni4.data(), d_uni4, n4 * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(nor4.data(), d_nor4, n4 * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(uni2d.data(), d_uni2d, n2 * 8, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(nor2d.data(), d_nor2d, n2 * 8, cudaMemcpyDeviceToHost));
  unsigned long long* d_counts;
  float* d_edges;
  CHECK(cudaMalloc(&d_counts, 4 * sizeof(unsigned long long)));
  CHECK(cudaMemset(d_counts, 0, 4 * sizeof(unsigned long long)));
  CHECK(cudaMalloc(&d_edges, 2048 * sizeof(float)));
  all_uniform<<<1024, 256>>>(d_counts, d_edges);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  unsigned long long counts[4];
  std::vector<float> edges(2048);
  CHECK(cudaMemcpy(counts, d_counts, sizeof(counts), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(edges.data(), d_edges, 2048 * sizeof(float), cudaMemcpyDeviceToHost));
  FILE* cf = fopen((dir + "/all_uniform.txt").c_str(), "w");
  if (!cf) return 1;
  fprintf(cf, "ones %llu zeros %llu differs_from_fmaf %llu unfused_differs_from_fmaf %llu\n",
          counts[0], counts[1], counts[2], counts[3]);
  fclose(cf);
  printf("all 2^32 x: ones %llu zeros %llu differs_from_fmaf %llu unfused_differs_from_fmaf %llu\n",
         counts[0], counts[1], counts[2], counts[3]);
  if (write_file(dir + "/edges.f32", edges.data(), 2048 * sizeof(float))) return 1;
  size_t m4 = (size_t)calls4 * 4, m2 = (size_t)calls2 * 2;
  FILE* tf = fopen((dir + "/triples.txt").c_str(), "w");
  if (!tf) return 1;
  for (int t = 0; t < kNT; ++t) {
    fprintf(tf, "%d %llu %llu %llu\n", t, kTriples[t].seed, kTriples[t].subsequence,
            kTriples[t].offset);
    std::string s = std::to_string(t);
    if (write_file(dir + "/bits_" + s + ".u32", bits.data() + t * m4, m4 * 4) ||
        write_file(dir + "/uniform4_" + s + ".f32", uni4.data() + t * m4, m4 * 4) ||
        write_file(dir + "/normal4_" + s + ".f32", nor4.data() + t * m4, m4 * 4) ||
        write_file(dir + "/uniform2d_" + s + ".f64", uni2d.data() + t * m2, m2 * 8) ||
        write_file(dir + "/normal2d_" + s + ".f64", nor2d.data() + t * m2, m2 * 8))
      return 1;
  }
  fclose(tf);
  printf("captured %d triples: %zu floats per float function, %zu doubles per double function\n",
         kNT, n4, n2);
  return 0;
}
