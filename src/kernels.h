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
#include "src/kernel_list.h"
#include "src/params.h"

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

// What every kernel reads: the stream (word j is word j % 4 of
// Philox(start + j / 4, key)) and the distribution's parameters (params.h).
struct KernelArgs {
  Counter128 start;
  RoundKeys keys;
  KindParams params = {};
};

// ------------------------------------------------------------ generate
// Generate kernels compute elements of one kind (kernel_list.h) from the
// stream and store them; element e of the stream reads stream words
// [w * e, w * e + w) for w words per element.

// Contiguous: element first + i goes to dst[i] (dst aligned to the element
// size). `nontemporal` asks for non-temporal stores; the caller issues the
// store fence afterwards.
using GenerateFn = void (*)(const KernelArgs& args, uint64_t first, uint64_t count, void* dst,
                            bool nontemporal);

// Rows: `rows` runs of `row` elements, consecutive in the stream from
// element `first`; run r goes to dst + r * row_stride elements (the
// writer's padded rows, generated as one run so that no row restarts it;
// vectors that cross a row end are placed through L1). Any rows with
// regular stores; non-temporal stores only where every vector lies inside a
// row, aligned (rows of whole vectors of Philox blocks from a block
// boundary, vector-aligned): other non-temporal rows write nothing and
// return false. The caller fences non-temporal stores.
using GenerateRowsFn = bool (*)(const KernelArgs& args, uint64_t first, uint64_t row,
                                uint64_t rows, void* dst, int64_t row_stride, bool nontemporal);

// Columns: for m < rows and l < cols, element first + m * step + l goes to
// element l * stride_l + m of dst (NHWC, column-major: M has stride 1),
// generated straight into place. Only where the table entry declares it
// (column_lanes != 0) and the shape allows (ColumnsFit).
using GenerateColumnsFn = void (*)(const KernelArgs& args, uint64_t first, uint64_t step,
                                   size_t rows, size_t cols, void* dst, int64_t stride_l,
                                   bool nontemporal);

// Converts the words of n elements (w * n stream words, w = the kind's words
// per element) to n elements of the kind:
// what `contiguous` does after the rounds, exposed so tests can feed chosen
// words (edge cases no seed would reach).
using ConvertFn = void (*)(const KindParams& params, const uint32_t* words, uint64_t n,
                           void* dst);

// ------------------------------------------------------------- replay
// GPU thread orders (replay.h): thread t's block for one call is the Philox
// block at counter args.start + t * 2^64 (args.start: the generator's
// offset / 4 plus the call), so a vector of consecutive threads varies
// counter word 2 across lanes, where the stream-order kernels vary word 0.

// The blocks of threads [t0, t0 + count), thread-major: words[4 i + k] is
// word k of thread t0 + i's block.
using ThreadBlocksFn = void (*)(const KernelArgs& args, uint64_t t0, uint64_t count,
                                uint32_t* words);

// Rows of a one-word element-wise kind, straight from the state vectors
// (no transpose): for k < 4 and i < counts[k] (counts never increase with
// k), dst[k * row_stride + i] = the element of word k of thread t0 + i's
// block. `nontemporal`: non-temporal stores for whole vectors, which needs dst
// aligned to the vector size and row_stride and t0 multiples of the lanes.
using ReplayRowsFn = void (*)(const KernelArgs& args, uint64_t t0, const uint64_t counts[4],
                              void* dst, uint64_t row_stride, bool nontemporal);

struct GenerateKernels {
  GenerateFn contiguous;
  ConvertFn convert;
  GenerateColumnsFn columns;  // nullptr when column_lanes == 0
  // Runs per call of `columns` come in multiples of this (its lanes); 0: no
  // column kernel on this target for this kind.
  uint32_t column_lanes;
  // Replay rows; nullptr for kinds that are not one word per element, each
  // on its own (normals pair words): those convert thread-major blocks.
  ReplayRowsFn replay_rows = nullptr;
  GenerateRowsFn rows = nullptr;
  // Elements per vector of Philox blocks (1 on the scalar target): rows of
  // whole vectors from a block boundary go through `rows` with no vector
  // crossing a row end.
  uint64_t vector_elements = 1;
  // Elements per hardware vector where the kind places each on its own, else
  // 0: rows of whole hardware vectors that a vector of blocks holds whole
  // (16 or 32 floats on AVX-512) also go through `rows` from registers.
  uint64_t split_elements = 0;
  // Rows at least this long that vectors cross go through `rows` from
  // registers too (each store whole, or in two pieces), where the target
  // places pieces of the kind's elements (masked stores; copies through
  // L1 on AVX2 and SSE4); 0: none.
  uint64_t cross_elements = 0;
  // Rows at least this long that vectors cross go through `rows` with the
  // crossing vectors spilled through L1, where they are not crossed (NEON,
  // AVX2's bytes): a group of vectors; 0: none.
  uint64_t spill_elements = 0;
  // Elements per group of vectors of blocks that the run driver keeps in
  // flight together (1 on the scalar target): a run's last vectors short
  // of a group go one at a time, each waiting on its own chain of rounds,
  // so the writer's staged runs come in whole groups.
  uint64_t group_elements = 1;
};

// Whether rows of `row` elements from a block boundary go through `rows`
// with every vector stored straight from registers: whole vectors of Philox
// blocks, whole hardware vectors that a vector of blocks holds whole, or
// rows of at least cross_elements.
inline bool RowsFromRegisters(const GenerateKernels& k, uint64_t row) {
  if (row % k.vector_elements == 0) return true;
  if (k.cross_elements != 0 && row >= k.cross_elements) return true;
  return k.split_elements != 0 && k.vector_elements % row == 0 && row % k.split_elements == 0;
}

// Whether `columns` takes this shape: whole Philox blocks per run, whole
// vectors of runs, and per-lane block offsets that fit in 32 bits.
inline bool ColumnsFit(const GenerateKernels& k, uint64_t first, uint64_t step, size_t rows) {
  return k.column_lanes != 0 && first % 4 == 0 && step % 4 == 0 && rows % k.column_lanes == 0 &&
         step / 4 <= 0xFFFFFFFFu / k.column_lanes;
}

// ---------------------------------------------------------------- move
// Move kernels place elements staged in L1; they are keyed by element size
// only (kernel_list.h), so every type of that size shares them. Pointers are
// aligned to the element size; strides count elements.

// Copies n elements; with `nontemporal`, non-temporal stores wherever whole
// aligned 4-byte words allow (bytes outside them are stored plainly: a
// neighbouring element or padding may share the word). The caller fences.
using CopyFn = void (*)(const void* src, uint64_t n, void* dst, bool nontemporal);

// Scatters n elements: src[k] goes to dst[k * stride].
using ScatterFn = void (*)(const void* src, uint64_t n, void* dst, int64_t stride);

// Writes a tile held row-major in L1 transposed: stage[m * pitch + l] goes to
// dst[l * stride_l + m] for m < rows, l < cols (runs along m, stride +1).
// `nontemporal` asks for non-temporal stores where runs are whole cache lines;
// the caller fences.
using WriteTileFn = void (*)(const void* stage, size_t pitch, size_t rows, size_t cols,
                             void* dst, int64_t stride_l, bool nontemporal);

// The same with stride -1 along m (a reversed view): stage[m * pitch + l]
// goes to dst[l * stride_l - m].
using WriteTileReversedFn = void (*)(const void* stage, size_t pitch, size_t rows, size_t cols,
                                     void* dst, int64_t stride_l);

// Copies `rows` packed rows of n elements each to rows `step` elements apart:
// row r's src[r * n + k] goes to dst[r * step + k]. Plain stores; only the
// rows' own elements are written.
using CopyRowsFn = void (*)(const void* src, uint64_t n, uint64_t rows, void* dst, int64_t step);

struct MoveKernels {
  CopyFn copy;
  CopyRowsFn copy_rows;
  ScatterFn scatter;
  WriteTileFn write_tile;
  WriteTileReversedFn write_tile_reversed;
};

// One compiled target's kernels. Which target's code runs is a property of
// the entry: every function in it was compiled for `hwy_target`.
struct KernelTable {
  const char* name;    // Highway's target name ("AVX3", "SCALAR", ...)
  int64_t hwy_target;  // Highway's target bit
  int lanes;           // 32-bit lanes per vector
  GenerateKernels generate[kGenerateKinds];  // by GenerateKind
  MoveKernels move[kMoveSizes];              // by MoveIndex(element size)
  ThreadBlocksFn thread_blocks;

  const GenerateKernels& Generate(GenerateKind kind) const {
    return generate[static_cast<int>(kind)];
  }
  const MoveKernels& Move(int element_size) const { return move[MoveIndex(element_size)]; }
};

// ------------------------------------------------------------ kernel units
// Each kernel unit (kernel_list.h, src/kernels_<unit>.cc) fills its part of
// a target's table: AddKernelsFn, compiled for that target, so only called
// for a target the CPU supports.
using AddKernelsFn = void (*)(KernelTable* table);

// The unit's function for one Highway target bit (nullptr if not compiled).
#define RANDTENSOR_UNIT_LOOKUP(unit) AddKernelsFn unit##Kernels(int64_t target) noexcept;
RANDTENSOR_KERNEL_UNITS(RANDTENSOR_UNIT_LOOKUP)
#undef RANDTENSOR_UNIT_LOOKUP

// A unit's compiled targets (RANDTENSOR_COMPILED_TARGETS in compiled_targets.h).
struct TargetKernels {
  int64_t target;
  AddKernelsFn add;
};
template <size_t kCount>
AddKernelsFn FindTarget(int64_t target, const TargetKernels (&list)[kCount]) noexcept {
  for (const TargetKernels& entry : list) {
    if (entry.target == target) return entry.add;
  }
  return nullptr;
}

// All compiled kernel tables, widest target first: built from Highway's
// per-target export, so every architecture Highway compiles for is listed.
const KernelTable* CompiledKernels(int* count) noexcept;

// Orders non-temporal stores before any later store (x86 sfence); every task
// that streamed calls it before reporting completion.
void NonTemporalFence() noexcept;

}  // namespace detail
}  // namespace randtensor

#endif  // RANDTENSOR_SRC_KERNELS_H_
