// The row kernels, compiled once per SIMD target, and the table that lists them.
//
// Highway's foreach_target.h re-includes this file once for every target in
// HWY_TARGETS (we define HWY_COMPILE_ALL_ATTAINABLE, so SSSE3, SSE4, AVX2, AVX3
// and the portable SCALAR are all built), each time inside a namespace named
// after the target. The HWY_ONCE block at the end then lists them in one table.
// Which entry runs is decided in targets.cc, never here.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "src/kernels.h"
#include "src/philox-inl.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {
namespace {

using detail::Stream;

// Blocks staged in L1 when streaming to an address that is not block-aligned:
// 4 KiB of output per trip.
constexpr uint64_t kStageBlocks = 256;

// Bytes per vector store; on the scalar target one block (streaming is then a
// plain copy).
constexpr size_t kVectorBytes = HWY_TARGET == HWY_SCALAR ? 16 : HWY_MAX_BYTES;

// Copies `n` words from L1 to `dst` with streaming stores only: whole vectors
// where dst is vector-aligned, and the unaligned ends in 16-, 8- and 4-byte
// streaming pieces. The ends must not be plain stores: a plain store that
// misses waits for its line to be read, and stores retire in order, so on
// Intel one such store per row (the half line that ends a padded row) stalls
// the streaming stores behind it.
void StreamCopy(const uint32_t* HWY_RESTRICT src, uint64_t n, uint32_t* HWY_RESTRICT dst) {
#if HWY_TARGET == HWY_SCALAR || !HWY_ARCH_X86_64
  std::memcpy(dst, src, n * 4);
#else
  const DU32 d;
  const size_t N = hn::Lanes(d);
  const hn::FixedTag<uint32_t, 4> d4;
  const auto misaligned = [&](size_t bytes) { return reinterpret_cast<uintptr_t>(dst) % bytes; };
  const auto word = [&] {
    _mm_stream_si32(reinterpret_cast<int*>(dst), static_cast<int>(*src));
    ++src, ++dst, --n;
  };
  const auto pair = [&] {
    long long v;
    std::memcpy(&v, src, 8);
    _mm_stream_si64(reinterpret_cast<long long*>(dst), v);
    src += 2, dst += 2, n -= 2;
  };
  const auto quad = [&] {
    hn::Stream(hn::LoadU(d4, src), d4, dst);
    src += 4, dst += 4, n -= 4;
  };
  if (n >= 1 && misaligned(8)) word();
  if (n >= 2 && misaligned(16)) pair();
  while (n >= 4 && misaligned(kVectorBytes)) quad();
  for (; n >= N; src += N, dst += N, n -= N) hn::Stream(hn::LoadU(d, src), d, dst);
  while (n >= 4) quad();
  if (n >= 2) pair();
  if (n >= 1) word();
#endif
}

#if HWY_TARGET == HWY_SCALAR

// One lane: the reference itself, block by block.
template <bool kStream>
void GenerateBlocks(const Stream& s, uint64_t block, uint64_t nblocks, uint32_t* out) {
  PhiloxKey key{{s.keys.k0[0], s.keys.k1[0]}};
  Counter128 c = s.start.Plus(block);
  for (uint64_t i = 0; i < nblocks; ++i, c = c.Plus(1)) {
    const PhiloxBlock b = philox::Block(c, key);
    std::memcpy(out + 4 * i, b.v, sizeof(b.v));
  }
}

#else

// Independent vectors in flight per round: enough to cover the multiplier
// latency without spilling (each batch holds 4 registers; AVX-512 has 32,
// AVX2 and SSE4 16). Tuned on Zen 4 with 256 KiB fills (tools: benchmarks/).
#if HWY_TARGET <= HWY_AVX3
constexpr size_t kBatches = 6;
#elif HWY_TARGET == HWY_AVX2
constexpr size_t kBatches = 4;
#else
constexpr size_t kBatches = 6;
#endif

// Calls fn(std::integral_constant<size_t, k>()) for a run-time group size k
// in [1, kBatches], so that each size gets its own fully unrolled code.
template <class Fn>
HWY_INLINE void WithGroupSize(size_t k, const Fn& fn) {
  using std::integral_constant;
  switch (k) {
    case 1: return fn(integral_constant<size_t, 1>());
    case 2: return fn(integral_constant<size_t, HWY_MIN(2, kBatches)>());
    case 3: return fn(integral_constant<size_t, HWY_MIN(3, kBatches)>());
    case 4: return fn(integral_constant<size_t, HWY_MIN(4, kBatches)>());
    case 5: return fn(integral_constant<size_t, HWY_MIN(5, kBatches)>());
    default: return fn(integral_constant<size_t, kBatches>());
  }
}
static_assert(kBatches <= 6, "WithGroupSize's cases cover groups of up to 6 vectors");

// The size of each group when `vectors` are cut into groups of at most
// kBatches as evenly as possible: 16 vectors go as 6 + 5 + 5, not
// 6 + 6 + 3 + 1, so no group is too small to hide the multiplier latency.
HWY_INLINE size_t NextGroup(uint64_t vectors) {
  const uint64_t groups = (vectors + kBatches - 1) / kBatches;
  return static_cast<size_t>((vectors + groups - 1) / groups);
}

// Writes stream blocks [block, block + nblocks) to out[0 .. 4 * nblocks).
// With kStream, `out` must be aligned to the vector size.
//
// The run's vectors (the last one possibly partial) go in groups (see
// NextGroup); a partial last vector is computed within the last group into
// `tmp`.
template <bool kStream>
void GenerateBlocks(const Stream& s, uint64_t block, uint64_t nblocks, uint32_t* out) {
  const size_t N = BlocksPerVector();
  const VState lane_block = BlockOfLane();
  const uint64_t partial = nblocks % N;
  uint64_t vectors = nblocks / N + (partial != 0 ? 1 : 0);
  Counter128 c = s.start.Plus(block);
  HWY_ALIGN uint32_t tmp[4 * hn::MaxLanes(DState())];
  while (vectors != 0) {
    const size_t k = NextGroup(vectors);
    const bool ends_partial = k == vectors && partial != 0;
    WithGroupSize(k, [&](auto group) {
      GenerateBatches<decltype(group)::value, kStream>(
          c, [&](size_t b) { return uint64_t{b} * N; }, s.keys, lane_block,
          [&](size_t b) { return ends_partial && b + 1 == k ? tmp : out + 4 * N * b; },
          ends_partial);
    });
    if (ends_partial) {
      // Streamed output stays streamed to the end (see StreamCopy).
      uint32_t* dst = out + 4 * N * (k - 1);
      if (kStream) {
        StreamCopy(tmp, partial * 4, dst);
      } else {
        std::memcpy(dst, tmp, partial * 16);
      }
    }
    c = c.Plus(k * N);
    out += 4 * N * k;
    vectors -= k;
  }
}

#endif  // HWY_TARGET == HWY_SCALAR

// Whole blocks [block, block + nblocks) to dst (4-byte aligned only).
void FillBlocks(const Stream& s, uint64_t block, uint64_t nblocks, uint32_t* dst,
                bool streaming) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(dst);
  if (!streaming) {
    GenerateBlocks<false>(s, block, nblocks, dst);
  } else if (addr % 16 == 0) {
    // Blocks can line up with vectors: the few blocks up to the next vector
    // boundary through L1, then whole vectors streamed straight from
    // registers (GenerateBlocks streams its partial end through StreamCopy).
    const uint64_t to_boundary = ((kVectorBytes - addr % kVectorBytes) % kVectorBytes) / 16;
    const uint64_t head = std::min(to_boundary, nblocks);
    if (head != 0) {
      HWY_ALIGN uint32_t stage[kVectorBytes / 4];
      GenerateBlocks<false>(s, block, head, stage);
      StreamCopy(stage, 4 * head, dst);
    }
    GenerateBlocks<true>(s, block + head, nblocks - head, dst + 4 * head);
  } else {
    // Blocks straddle vectors: stage them in L1, then stream the copy.
    HWY_ALIGN uint32_t stage[4 * kStageBlocks];
    while (nblocks != 0) {
      const uint64_t n = std::min(nblocks, kStageBlocks);
      GenerateBlocks<false>(s, block, n, stage);
      StreamCopy(stage, 4 * n, dst);
      block += n;
      nblocks -= n;
      dst += 4 * n;
    }
  }
}

// The part [skip, skip + n) of the one block `block`: row ends that start or
// stop in the middle of a Philox block. One block is cheaper in scalar code
// than a whole vector of them.
void FillPartialBlock(const Stream& s, uint64_t block, uint64_t skip, uint64_t n,
                      uint32_t* dst, bool streaming) {
  const PhiloxBlock b =
      philox::Block(s.start.Plus(block), PhiloxKey{{s.keys.k0[0], s.keys.k1[0]}});
  if (streaming) {
    StreamCopy(b.v + skip, n, dst);
  } else {
    std::memcpy(dst, b.v + skip, n * 4);
  }
}

int64_t FillContiguous(const Stream& s, uint64_t first, uint64_t count, uint32_t* dst,
                       bool streaming) {
  if (count == 0) return HWY_TARGET;
  uint64_t block = first / 4;
  const uint64_t skip = first % 4;
  if (skip != 0) {
    const uint64_t n = std::min<uint64_t>(count, 4 - skip);
    FillPartialBlock(s, block, skip, n, dst, streaming);
    ++block;
    dst += n;
    count -= n;
  }
  FillBlocks(s, block, count / 4, dst, streaming);
  if (count % 4 != 0) {
    FillPartialBlock(s, block + count / 4, 0, count % 4, dst + count / 4 * 4, streaming);
  }
  return HWY_TARGET;
}

// See FillColumnsFn. AVX-512 lanes hold one 32-bit word each, so lane j can
// compute a block of run j: after the rounds, state vector k holds word k of
// block p of N neighbouring runs, i.e. element 4p + k of each -- N
// neighbouring addresses of the output, a whole cache line stored straight
// from the register with no staging and no transpose. (Wider-lane targets
// would need to pack lanes first; they use the staged tile instead.)
int64_t FillColumns(const Stream& s, uint64_t first, uint64_t step, size_t rows, size_t cols,
                    uint32_t* dst, int64_t stride_l, bool streaming) {
#if HWY_TARGET <= HWY_AVX3
  const DU32 d;
  const size_t N = hn::Lanes(d);
  const uint64_t run_blocks = step / 4;
  // Whole blocks per run, whole vectors of runs, lane offsets within 32 bits.
  if (first % 4 != 0 || step % 4 != 0 || rows % N != 0 || run_blocks > 0xFFFFFFFFu / N) {
    return 0;
  }
  const bool stream = streaming && reinterpret_cast<uintptr_t>(dst) % 64 == 0 &&
                      (stride_l * 4) % 64 == 0;
  const VState lanes =
      hn::Mul(hn::Iota(d, 0), hn::Set(d, static_cast<uint32_t>(run_blocks)));
  const uint64_t lanes_max = (N - 1) * run_blocks;
  const Counter128 base = s.start.Plus(first / 4);
  // Vectors in order of block p (outer) and group g of N runs (inner), so
  // consecutive vectors write neighbouring lines.
  const size_t groups = rows / N;
  const uint64_t vectors = groups * ((cols + 3) / 4);
  size_t p = 0, g = 0;
  for (uint64_t v = 0; v < vectors;) {
    const size_t k = NextGroup(vectors - v);
    uint64_t delta[kBatches] = {};
    uint32_t* out[kBatches] = {};
    size_t words[kBatches] = {};  // columns 4p.. that exist (fewer at the end)
    for (size_t b = 0; b < k; ++b) {
      delta[b] = g * N * run_blocks + p;
      out[b] = dst + static_cast<int64_t>(4 * p) * stride_l + static_cast<int64_t>(g * N);
      words[b] = std::min<size_t>(4, cols - 4 * p);
      if (++g == groups) g = 0, ++p;
    }
    WithGroupSize(k, [&](auto group) {
      constexpr size_t kK = decltype(group)::value;
      VState x[4][kK];
      PhiloxBatches<kK>(
          base, [&](size_t b) { return delta[b]; }, lanes, lanes_max, s.keys, x[0], x[1], x[2],
          x[3]);
      for (size_t b = 0; b < kK; ++b) {
        for (size_t w = 0; w < words[b]; ++w) {
          uint32_t* line = out[b] + static_cast<int64_t>(w) * stride_l;
          if (stream) {
            hn::Stream(x[w][b], d, line);
          } else {
            hn::StoreU(x[w][b], d, line);
          }
        }
      }
    });
    v += k;
  }
  return HWY_TARGET;
#else
  (void)s, (void)first, (void)step, (void)rows, (void)cols, (void)dst, (void)stride_l,
      (void)streaming;
  return 0;
#endif
}

// Scalar tail of WriteTile: the rectangle [m0, rows) x [l0, cols).
void WriteTileScalar(const uint32_t* HWY_RESTRICT stage, size_t pitch, size_t m0, size_t rows,
                     size_t l0, size_t cols, uint32_t* HWY_RESTRICT dst, int64_t stride_l) {
  for (size_t l = l0; l < cols; ++l) {
    uint32_t* column = dst + static_cast<int64_t>(l) * stride_l;
    for (size_t m = m0; m < rows; ++m) column[m] = stage[m * pitch + l];
  }
}

// Streaming stores pay off only for whole cache lines: a partly written line
// costs a partial write (and on Intel stalls the write-combining buffers).
constexpr size_t kLineWords = 16;

#if HWY_TARGET != HWY_SCALAR
// Streams one 64-byte aligned cache line given as four 4-word pieces, in as
// few stores as the target's vectors allow.
HWY_INLINE void StreamLine(hn::Vec<hn::FixedTag<uint32_t, 4>> q0,
                           hn::Vec<hn::FixedTag<uint32_t, 4>> q1,
                           hn::Vec<hn::FixedTag<uint32_t, 4>> q2,
                           hn::Vec<hn::FixedTag<uint32_t, 4>> q3, uint32_t* HWY_RESTRICT line) {
#if HWY_TARGET <= HWY_AVX3
  const hn::FixedTag<uint32_t, 8> d8;
  const hn::FixedTag<uint32_t, 16> d16;
  hn::Stream(hn::Combine(d16, hn::Combine(d8, q3, q2), hn::Combine(d8, q1, q0)), d16, line);
#elif HWY_TARGET <= HWY_AVX2
  const hn::FixedTag<uint32_t, 8> d8;
  hn::Stream(hn::Combine(d8, q1, q0), d8, line);
  hn::Stream(hn::Combine(d8, q3, q2), d8, line + 8);
#else
  const hn::FixedTag<uint32_t, 4> d4;
  hn::Stream(q0, d4, line);
  hn::Stream(q1, d4, line + 4);
  hn::Stream(q2, d4, line + 8);
  hn::Stream(q3, d4, line + 12);
#endif
}
#endif

#if HWY_TARGET <= HWY_AVX3
// The dense tile of 2 to 4 rows (NHWC with that many channels), streamed from
// registers: 16 columns of every row are loaded, and each output line (16
// words, 16 / rows columns) is gathered from them by one two-source lane
// permute (vpermt2d) for rows 0-1 plus one for rows 2-3, then streamed. That
// is 2 permutes per line where interleaving 4 columns at a time with 128-bit
// shuffles took about 12 and a second pass through L1. `dst` must be 64-byte
// aligned; returns the columns written (a multiple of 16).
size_t StreamDenseLines(const uint32_t* HWY_RESTRICT stage, size_t pitch, size_t rows,
                        size_t cols, uint32_t* HWY_RESTRICT dst) {
  const DU32 d;
  // Line k, lane j holds word g = 16k + j: column g / rows of row g % rows.
  // Rows 0-1 come from (v0, v1) through idx01, rows 2-3 from (v2, v3)
  // through idx23 into the lanes of mask23.
  HWY_ALIGN uint32_t idx01[4][16], idx23[4][16];
  __mmask16 mask23[4] = {};
  for (size_t k = 0; k < rows; ++k) {
    for (uint32_t j = 0; j < 16; ++j) {
      const uint32_t g = static_cast<uint32_t>(16 * k) + j;
      const uint32_t column = g / static_cast<uint32_t>(rows), row = g % static_cast<uint32_t>(rows);
      idx01[k][j] = column + (row == 1 ? 16 : 0);
      idx23[k][j] = column + (row == 3 ? 16 : 0);
      if (row >= 2) mask23[k] = static_cast<__mmask16>(mask23[k] | (1u << j));
    }
  }
  size_t l = 0;
  for (; l + 16 <= cols; l += 16) {
    __m512i v[4];
    for (size_t m = 0; m < rows; ++m) v[m] = hn::LoadU(d, stage + m * pitch + l).raw;
    for (size_t k = 0; k < rows; ++k) {
      __m512i line = _mm512_permutex2var_epi32(v[0], hn::Load(d, idx01[k]).raw, v[1]);
      if (rows == 3) {
        line = _mm512_mask_permutexvar_epi32(line, mask23[k], hn::Load(d, idx23[k]).raw, v[2]);
      } else if (rows == 4) {
        line = _mm512_mask_mov_epi32(
            line, mask23[k], _mm512_permutex2var_epi32(v[2], hn::Load(d, idx23[k]).raw, v[3]));
      }
      hn::Stream(VU32{line}, d, dst + l * rows + 16 * k);
    }
  }
  return l;
}
#endif

void WriteTile(const uint32_t* HWY_RESTRICT stage, size_t pitch, size_t rows, size_t cols,
               uint32_t* HWY_RESTRICT dst, int64_t stride_l, bool streaming) {
#if HWY_TARGET == HWY_SCALAR
  (void)streaming;
  WriteTileScalar(stage, pitch, 0, rows, 0, cols, dst, stride_l);
#else
  const hn::FixedTag<uint32_t, 4> d;
  const hn::FixedTag<uint64_t, 2> d64;
  using V = hn::Vec<decltype(d)>;
  const auto row = [&](size_t m, size_t l) { return hn::LoadU(d, stage + m * pitch + l); };
  size_t l = 0;
  if (rows >= 2 && rows <= 4 && stride_l == static_cast<int64_t>(rows)) {
    // A few rows written densely (NHWC with 2 to 4 channels): the tile is
    // one contiguous run. Streamed on AVX-512 16 columns at a time straight
    // from registers (StreamDenseLines); otherwise, and for the last
    // columns, interleaved four columns at a time, through an L1 copy with
    // streaming stores when the output streams.
#if HWY_TARGET <= HWY_AVX3
    if (streaming && reinterpret_cast<uintptr_t>(dst) % 64 == 0) {
      const size_t done = StreamDenseLines(stage, pitch, rows, cols, dst);
      stage += done;  // the rest (fewer than 16 columns) as below
      dst += done * rows;
      cols -= done;
    }
#endif
    alignas(64) uint32_t dense[4096];
    uint32_t* target = streaming && rows * cols <= 4096 ? dense : dst;
    for (; l + 4 <= cols; l += 4) {
      uint32_t* out = target + l * rows;
      if (rows == 2) hn::StoreInterleaved2(row(0, l), row(1, l), d, out);
      if (rows == 3) hn::StoreInterleaved3(row(0, l), row(1, l), row(2, l), d, out);
      if (rows == 4) hn::StoreInterleaved4(row(0, l), row(1, l), row(2, l), row(3, l), d, out);
    }
    WriteTileScalar(stage, pitch, 0, rows, l, cols, target, stride_l);
    if (target == dense) StreamCopy(dense, rows * cols, dst);
    return;
  }
  // 4 x 4 blocks transposed in registers: rows m..m+3 of columns l..l+3
  // become the four 4-word pieces t[0..3], one per column.
  const auto transpose = [&](size_t m, size_t l0, V t[4]) {
    const V r0 = row(m, l0), r1 = row(m + 1, l0), r2 = row(m + 2, l0), r3 = row(m + 3, l0);
    const auto t01 = hn::BitCast(d64, hn::InterleaveLower(d, r0, r1));  // r0[0] r1[0] r0[1] r1[1]
    const auto t23 = hn::BitCast(d64, hn::InterleaveLower(d, r2, r3));
    const auto u01 = hn::BitCast(d64, hn::InterleaveUpper(d, r0, r1));  // r0[2] r1[2] r0[3] r1[3]
    const auto u23 = hn::BitCast(d64, hn::InterleaveUpper(d, r2, r3));
    t[0] = hn::BitCast(d, hn::InterleaveLower(d64, t01, t23));
    t[1] = hn::BitCast(d, hn::InterleaveUpper(d64, t01, t23));
    t[2] = hn::BitCast(d, hn::InterleaveLower(d64, u01, u23));
    t[3] = hn::BitCast(d, hn::InterleaveUpper(d64, u01, u23));
  };
  const size_t rows4 = rows / 4 * 4;
  if (streaming && rows % kLineWords == 0 && reinterpret_cast<uintptr_t>(dst) % 64 == 0 &&
      (stride_l * 4) % 64 == 0) {
    // Every run is whole aligned cache lines: stream each line from
    // registers, its four pieces joined into the widest vector the target
    // has (Intel loses a third of the rate when 16-byte streaming stores
    // leave several lines half written at once).
    for (; l + 4 <= cols; l += 4) {
      for (size_t m = 0; m < rows; m += kLineWords) {
        V t[4][4];  // t[k][j]: rows m+4k..m+4k+3 of column l+j
        for (size_t k = 0; k < 4; ++k) transpose(m + 4 * k, l, t[k]);
        for (int64_t j = 0; j < 4; ++j) {
          uint32_t* line = dst + (static_cast<int64_t>(l) + j) * stride_l + static_cast<int64_t>(m);
          StreamLine(t[0][j], t[1][j], t[2][j], t[3][j], line);
        }
      }
    }
    WriteTileScalar(stage, pitch, 0, rows, l, cols, dst, stride_l);
    return;
  }
  // Otherwise regular stores; m innermost so each column's run in memory is
  // written in order.
  for (; l + 4 <= cols; l += 4) {
    for (size_t m = 0; m < rows4; m += 4) {
      V t[4];
      transpose(m, l, t);
      uint32_t* out = dst + static_cast<int64_t>(l) * stride_l + static_cast<int64_t>(m);
      for (int64_t j = 0; j < 4; ++j) hn::StoreU(t[j], d, out + j * stride_l);
    }
    WriteTileScalar(stage, pitch, rows4, rows, l, l + 4, dst, stride_l);
  }
  WriteTileScalar(stage, pitch, 0, rows, l, cols, dst, stride_l);
#endif
}

}  // namespace

void Copy(const uint32_t* HWY_RESTRICT src, uint64_t n, uint32_t* HWY_RESTRICT dst,
          bool streaming) {
  if (streaming) {
    StreamCopy(src, n, dst);
  } else {
    std::memcpy(dst, src, n * 4);
  }
}

// The entry this target contributes to the table. A function rather than a
// global so the table is complete even when used from static initializers.
detail::KernelTable GetKernelTable() {
  return {hwy::TargetName(HWY_TARGET), HWY_TARGET,
          static_cast<int>(hn::Lanes(hn::ScalableTag<uint32_t>())), FillContiguous, FillColumns,
          WriteTile, Copy};
}

}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace randtensor {
namespace detail {

// Widest first, so that the first supported entry is the default choice.
const KernelTable* CompiledKernels(int* count) noexcept {
  static const KernelTable kTables[] = {
#if HWY_TARGETS & HWY_AVX3_DL
      N_AVX3_DL::GetKernelTable(),
#endif
#if HWY_TARGETS & HWY_AVX3
      N_AVX3::GetKernelTable(),
#endif
#if HWY_TARGETS & HWY_AVX2
      N_AVX2::GetKernelTable(),
#endif
#if HWY_TARGETS & HWY_SSE4
      N_SSE4::GetKernelTable(),
#endif
#if HWY_TARGETS & HWY_SSSE3
      N_SSSE3::GetKernelTable(),
#endif
#if HWY_TARGETS & HWY_EMU128
      N_EMU128::GetKernelTable(),
#endif
#if HWY_TARGETS & HWY_SCALAR
      N_SCALAR::GetKernelTable(),
#endif
  };
  *count = static_cast<int>(sizeof(kTables) / sizeof(kTables[0]));
  return kTables;
}

void StreamFence() noexcept { hwy::FlushStream(); }

}  // namespace detail
}  // namespace randtensor
#endif  // HWY_ONCE
