// Throughput of the instructions a Philox round is made of, on this core:
// how many of each the core retires per cycle, alone and mixed as in one
// AVX-512 round, to bound the bits kernel (benchmarks/RESULTS.md). The clock
// is measured with a chain of dependent adds (one per cycle on AMD cores),
// since these VMs expose no cycle counter. Intel's newer renamers fold
// chains of add-immediates (a Xeon read 11 GHz): there, only the ratios
// between rows mean anything. (vpxord of a register
// with itself is a zeroing idiom, retired without a port: its row shows the
// front end, not an ALU.)
//
//   build/benchmarks/randtensor_port_probe
#include <immintrin.h>

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace {

double Seconds(void (*fn)(long), long n) {
  fn(n / 10);  // warm up (clock ramps)
  const auto t0 = std::chrono::steady_clock::now();
  fn(n);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// 8 dependent adds per iteration: 8 cycles.
void AddChain(long n) {
  uint64_t x = 1;
  for (long i = 0; i < n; ++i) {
    asm volatile(
        "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
        "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
        : "+r"(x));
  }
}

// 12 independent zmm ops of one kind per iteration (enough chains to hide
// any latency up to 6 cycles at 2 per cycle).
#define OPS12(op)                                                                  \
  asm volatile(op " %%zmm0, %%zmm0, %%zmm0\n\t" op " %%zmm1, %%zmm1, %%zmm1\n\t" \
               op " %%zmm2, %%zmm2, %%zmm2\n\t" op " %%zmm3, %%zmm3, %%zmm3\n\t" \
               op " %%zmm4, %%zmm4, %%zmm4\n\t" op " %%zmm5, %%zmm5, %%zmm5\n\t" \
               op " %%zmm6, %%zmm6, %%zmm6\n\t" op " %%zmm7, %%zmm7, %%zmm7\n\t" \
               op " %%zmm8, %%zmm8, %%zmm8\n\t" op " %%zmm9, %%zmm9, %%zmm9\n\t" \
               op " %%zmm10, %%zmm10, %%zmm10\n\t" op " %%zmm11, %%zmm11, %%zmm11\n\t" ::: \
               "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",      \
               "xmm9", "xmm10", "xmm11")

__attribute__((target("avx512f"))) void Mul(long n) {
  for (long i = 0; i < n; ++i) OPS12("vpmuludq");
}
__attribute__((target("avx512f"))) void Xor(long n) {
  for (long i = 0; i < n; ++i) OPS12("vpxord");
}
__attribute__((target("avx512f"))) void Shuffle(long n) {  // vpshufd with a mask, as the merges
  for (long i = 0; i < n; ++i) {
    asm volatile(
        "vpshufd $0xb1, %%zmm0, %%zmm0%{%%k1%}\n\tvpshufd $0xb1, %%zmm1, %%zmm1%{%%k1%}\n\t"
        "vpshufd $0xb1, %%zmm2, %%zmm2%{%%k1%}\n\tvpshufd $0xb1, %%zmm3, %%zmm3%{%%k1%}\n\t"
        "vpshufd $0xb1, %%zmm4, %%zmm4%{%%k1%}\n\tvpshufd $0xb1, %%zmm5, %%zmm5%{%%k1%}\n\t"
        "vpshufd $0xb1, %%zmm6, %%zmm6%{%%k1%}\n\tvpshufd $0xb1, %%zmm7, %%zmm7%{%%k1%}\n\t"
        "vpshufd $0xb1, %%zmm8, %%zmm8%{%%k1%}\n\tvpshufd $0xb1, %%zmm9, %%zmm9%{%%k1%}\n\t"
        "vpshufd $0xb1, %%zmm10, %%zmm10%{%%k1%}\n\tvpshufd $0xb1, %%zmm11, %%zmm11%{%%k1%}\n\t" ::
            : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
              "xmm10", "xmm11");
  }
}
__attribute__((target("avx512f"))) void Shift(long n) {
  for (long i = 0; i < n; ++i) {
    asm volatile(
        "vpsrlq $32, %%zmm0, %%zmm0\n\tvpsrlq $32, %%zmm1, %%zmm1\n\tvpsrlq $32, %%zmm2, %%zmm2\n\t"
        "vpsrlq $32, %%zmm3, %%zmm3\n\tvpsrlq $32, %%zmm4, %%zmm4\n\tvpsrlq $32, %%zmm5, %%zmm5\n\t"
        "vpsrlq $32, %%zmm6, %%zmm6\n\tvpsrlq $32, %%zmm7, %%zmm7\n\tvpsrlq $32, %%zmm8, %%zmm8\n\t"
        "vpsrlq $32, %%zmm9, %%zmm9\n\tvpsrlq $32, %%zmm10, %%zmm10\n\tvpsrlq $32, %%zmm11, %%zmm11\n\t" ::
            : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
              "xmm10", "xmm11");
  }
}
// The float conversions' expensive instructions (docs/kernel-speed.md, "The
// float normals"): float16 packing, the square root and the division of
// Box-Muller, each register its own chain (latency hidden by 12 chains).
#define UNARY12(op, dst)                                                                  \
  asm volatile(op " %%zmm0, %%" dst "0\n\t" op " %%zmm1, %%" dst "1\n\t" op " %%zmm2, %%" dst \
               "2\n\t" op " %%zmm3, %%" dst "3\n\t" op " %%zmm4, %%" dst "4\n\t" op      \
               " %%zmm5, %%" dst "5\n\t" op " %%zmm6, %%" dst "6\n\t" op " %%zmm7, %%" dst \
               "7\n\t" op " %%zmm8, %%" dst "8\n\t" op " %%zmm9, %%" dst "9\n\t" op      \
               " %%zmm10, %%" dst "10\n\t" op " %%zmm11, %%" dst "11\n\t" ::              \
                   : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", \
                     "xmm9", "xmm10", "xmm11")
__attribute__((target("avx512f"))) void HalfPack(long n) {
  for (long i = 0; i < n; ++i) UNARY12("vcvtps2ph $8,", "ymm");
}
__attribute__((target("avx512f"))) void Sqrt(long n) {
  for (long i = 0; i < n; ++i) UNARY12("vsqrtps", "zmm");
}
__attribute__((target("avx512f"))) void Div(long n) {
  for (long i = 0; i < n; ++i) OPS12("vdivps");
}

// One narrow-lane round's mix, per 16 blocks: 4 vpmuludq, 2 moves of the odd
// words down (DOWN: vpsrlq as the kernel does, or an unmasked vpshufd), 4
// masked vpshufd merges, 2 vpternlogd (12 ops); three copies. Each register
// is a dependent chain, so these rows show latency as much as issue width
// (docs/kernel-speed.md measures issue width with independent operands).
#define NARROW_ROUND(DOWN)                                                           \
  NARROW_ONE(DOWN, "0", "1", "2", "3")                                               \
  NARROW_ONE(DOWN, "4", "5", "6", "7") NARROW_ONE(DOWN, "8", "9", "10", "11")
#define NARROW_ONE(DOWN, a, b, c, d)                                                 \
  "vpmuludq %%zmm" a ", %%zmm" a ", %%zmm" a "\n\t"                                  \
  DOWN ", %%zmm" b ", %%zmm" b "\n\t"                                                \
  "vpmuludq %%zmm" b ", %%zmm" b ", %%zmm" b "\n\t"                                  \
  "vpshufd $0xb1, %%zmm" c ", %%zmm" c "%{%%k1%}\n\t"                                \
  "vpshufd $0xb1, %%zmm" d ", %%zmm" d "%{%%k1%}\n\t"                                \
  "vpmuludq %%zmm" c ", %%zmm" c ", %%zmm" c "\n\t"                                  \
  DOWN ", %%zmm" d ", %%zmm" d "\n\t"                                                \
  "vpmuludq %%zmm" d ", %%zmm" d ", %%zmm" d "\n\t"                                  \
  "vpshufd $0xb1, %%zmm" a ", %%zmm" a "%{%%k1%}\n\t"                                \
  "vpshufd $0xb1, %%zmm" b ", %%zmm" b "%{%%k1%}\n\t"                                \
  "vpternlogd $0x96, %%zmm" a ", %%zmm" b ", %%zmm" c "\n\t"                         \
  "vpternlogd $0x96, %%zmm" c ", %%zmm" d ", %%zmm" a "\n\t"
#define ZMM_CLOBBERS \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11"

__attribute__((target("avx512f"))) void RoundMix(long n) {
  for (long i = 0; i < n; ++i) asm volatile(NARROW_ROUND("vpsrlq $32") ::: ZMM_CLOBBERS);
}
__attribute__((target("avx512f"))) void RoundMixShuf(long n) {
  for (long i = 0; i < n; ++i) asm volatile(NARROW_ROUND("vpshufd $0xb1") ::: ZMM_CLOBBERS);
}

// One wide-lane round's mix, per 16 blocks (two vectors of 8): 4 vpmuludq,
// 4 vpsrlq, 4 vpternlogd (12 ops), three copies (chains, as above).
__attribute__((target("avx512f"))) void WideMix(long n) {
  for (long i = 0; i < n; ++i) {
    asm volatile(
#define ONE(a, b, c, d)                                                                  \
  "vpmuludq %%zmm" a ", %%zmm" a ", %%zmm" a "\n\t"                                      \
  "vpmuludq %%zmm" b ", %%zmm" b ", %%zmm" b "\n\t"                                      \
  "vpmuludq %%zmm" c ", %%zmm" c ", %%zmm" c "\n\t"                                      \
  "vpmuludq %%zmm" d ", %%zmm" d ", %%zmm" d "\n\t"                                      \
  "vpsrlq $32, %%zmm" a ", %%zmm" a "\n\t"                                               \
  "vpsrlq $32, %%zmm" b ", %%zmm" b "\n\t"                                               \
  "vpsrlq $32, %%zmm" c ", %%zmm" c "\n\t"                                               \
  "vpsrlq $32, %%zmm" d ", %%zmm" d "\n\t"                                               \
  "vpternlogd $0x96, %%zmm" a ", %%zmm" b ", %%zmm" c "\n\t"                             \
  "vpternlogd $0x96, %%zmm" b ", %%zmm" c ", %%zmm" d "\n\t"                             \
  "vpternlogd $0x96, %%zmm" c ", %%zmm" d ", %%zmm" a "\n\t"                             \
  "vpternlogd $0x96, %%zmm" d ", %%zmm" a ", %%zmm" b "\n\t"
        ONE("0", "1", "2", "3") ONE("4", "5", "6", "7") ONE("8", "9", "10", "11")
#undef ONE
        :: : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
             "xmm10", "xmm11");
  }
}

}  // namespace

int main() {
  if (!__builtin_cpu_supports("avx512f")) {
    std::printf("no AVX-512 on this CPU\n");
    return 0;
  }
  const long n = 200000000;
  const double ghz = 8.0 * n / Seconds(AddChain, n) / 1e9;
  std::printf("clock (dependent adds): %.2f GHz\n", ghz);
  const long m = 20000000;
  struct {
    const char* name;
    void (*fn)(long);
    int ops;
  } probes[] = {{"vpmuludq zmm", Mul, 12},
                {"vpxord zmm", Xor, 12},
                {"vpshufd zmm{k} (merge)", Shuffle, 12},
                {"vpsrlq zmm", Shift, 12},
                {"narrow round mix, chained", RoundMix, 36},
                {"narrow, vpshufd for the odd words", RoundMixShuf, 36},
                {"wide round mix, chained", WideMix, 36},
                {"vcvtps2ph zmm -> ymm", HalfPack, 12},
                {"vsqrtps zmm", Sqrt, 12},
                {"vdivps zmm", Div, 12}};
  for (const auto& p : probes) {
    const double s = Seconds(p.fn, m);
    const double per_cycle = p.ops * double(m) / (s * ghz * 1e9);
    std::printf("%-34s %.2f per cycle\n", p.name, per_cycle);
  }
  return 0;
}
