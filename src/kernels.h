// The kernel interface between the writer and the per-target SIMD code.
//
// kernels.cc compiles the same kernels once per SIMD target (Highway's
// foreach_target) and lists them in one table; targets.cc picks one entry;
// writer.cc only ever calls through an entry. Tests and benchmarks walk the
// same table, so a target cannot be compiled yet untested.
#ifndef RANDTENSOR_SRC_KERNELS_H_
#define RANDTENSOR_SRC_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "randtensor/philox.h"

namespace randtensor {
namespace detail {

// Per-round keys, hoisted out of every kernel loop: round r uses
// (k0 + r * W0, k1 + r * W1) mod 2^32.
struct RoundKeys {
  uint32_t k0[philox::kRounds];
  uint32_t k1[philox::kRounds];

  explicit RoundKeys(const PhiloxKey& key) noexcept {
    uint32_t a = key.k[0], b = key.k[1];
    for (int r = 0; r < philox::kRounds; ++r) {
      k0[r] = a;
      k1[r] = b;
      a += philox::kWeyl0;
      b += philox::kWeyl1;
    }
  }
};

// What every kernel needs to know about the stream: element e of the stream is
// word e % 4 of Philox(start + e / 4, key).
struct Stream {
  Counter128 start;
  RoundKeys keys;
};

// Each kernel writes elements [first, first + count) of the stream and
// returns the Highway target bit of the code that ran (so tests can prove that
// a forced target really runs).

// Contiguous: element first + i goes to dst[i]. `streaming` asks for
// non-temporal stores; the caller issues the store fence afterwards.
using FillContiguousFn = int64_t (*)(const Stream& stream, uint64_t first, uint64_t count,
                                     uint32_t* dst, bool streaming);

// Columns: for m < rows and l < cols, element first + m * step + l goes to
// dst[l * stride_l + m] (NHWC, column-major: M has stride 1), generated
// straight into place. Returns 0 without writing when this target cannot
// (see kernels.cc for the shapes it takes); the writer then stages the tile.
// `streaming` asks for non-temporal stores; the caller issues the fence.
using FillColumnsFn = int64_t (*)(const Stream& stream, uint64_t first, uint64_t step,
                                  size_t rows, size_t cols, uint32_t* dst, int64_t stride_l,
                                  bool streaming);

// Writes a tile held row-major in L1 transposed: stage[m * pitch + l] goes to
// dst[l * stride_l + m] for m < rows, l < cols. The transposed writer's
// output step (NHWC, column-major): memory is written in runs along m.
// `streaming` asks for non-temporal stores where runs are whole cache lines;
// the caller issues the fence.
using WriteTileFn = void (*)(const uint32_t* stage, size_t pitch, size_t rows, size_t cols,
                             uint32_t* dst, int64_t stride_l, bool streaming);

// Copies `n` words from L1 to dst, with streaming stores (whole aligned
// vectors) when asked; the caller issues the fence.
using CopyFn = void (*)(const uint32_t* src, uint64_t n, uint32_t* dst, bool streaming);

struct KernelTable {
  const char* name;     // Highway's target name ("AVX3", "SCALAR", ...)
  int64_t hwy_target;   // Highway's target bit
  int lanes;            // 32-bit lanes per vector
  FillContiguousFn fill_contiguous;
  FillColumnsFn fill_columns;
  WriteTileFn write_tile;
  CopyFn copy;
};

// All compiled kernel tables, widest target first.
const KernelTable* CompiledKernels(int* count) noexcept;

// Orders streaming stores before any later store (x86 sfence); every task
// that streamed calls it before reporting completion.
void StreamFence() noexcept;

}  // namespace detail
}  // namespace randtensor

#endif  // RANDTENSOR_SRC_KERNELS_H_
