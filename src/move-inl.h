// Move kernels: placing elements that were generated into L1 (see
// kernel_list.h). Compiled once per target through kernels.cc; included only
// there, hence the toggle guard.
//
// Streamed outputs stay streamed to their ends: a plain store that misses
// waits for its line to be read, and stores retire in order, so on Intel one
// such store per row stalls the non-temporal stores behind it.

#if defined(RANDTENSOR_SRC_MOVE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_MOVE_INL_H_
#undef RANDTENSOR_SRC_MOVE_INL_H_
#else
#define RANDTENSOR_SRC_MOVE_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "src/capabilities-inl.h"
#include "src/kernels.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
using DU32 = hn::ScalableTag<uint32_t>;  // as in philox-inl.h
using VU32 = hn::Vec<DU32>;
#endif

// Bytes per vector store; on the scalar target one block (nontemporal is then a
// plain copy).
constexpr size_t kVectorBytes = HWY_TARGET == HWY_SCALAR ? 16 : HWY_MAX_BYTES;

// The move kernels are compiled in kernels_bits.cc only (RANDTENSOR_BITS_UNIT);
// the other kernel units store non-temporally through these declarations.
void NonTemporalCopy(const uint32_t* HWY_RESTRICT src, uint64_t n, uint32_t* HWY_RESTRICT dst);
void NonTemporalCopyBytes(const uint8_t* HWY_RESTRICT src, uint64_t n, uint8_t* HWY_RESTRICT dst);
void WriteTile(const uint32_t* HWY_RESTRICT stage, size_t pitch, size_t rows, size_t cols,
               uint32_t* HWY_RESTRICT dst, int64_t stride_l, bool nontemporal);

#ifdef RANDTENSOR_BITS_UNIT
// Copies `n` words from L1 to `dst` with non-temporal stores only: whole vectors
// where dst is vector-aligned, and the unaligned ends in 16-, 8- and 4-byte
// nontemporal pieces. The ends must not be plain stores: a plain store that
// misses waits for its line to be read, and stores retire in order, so on
// Intel one such store per row (the half line that ends a padded row) stalls
// the non-temporal stores behind it.
void NonTemporalCopy(const uint32_t* HWY_RESTRICT src, uint64_t n, uint32_t* HWY_RESTRICT dst) {
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

// Streams n bytes of 1- or 2-byte elements: the bytes before the first and
// after the last whole aligned 4-byte word are stored plainly, since a
// neighbouring element or padding shares those words and must not be written.
void NonTemporalCopyBytes(const uint8_t* HWY_RESTRICT src, uint64_t n, uint8_t* HWY_RESTRICT dst) {
  const uint64_t head = std::min<uint64_t>(n, (4 - reinterpret_cast<uintptr_t>(dst) % 4) % 4);
  std::memcpy(dst, src, head);
  src += head, dst += head, n -= head;
  const uint64_t words = n / 4;
  if (words != 0) {
    // src may be unaligned to 4: stage through an aligned buffer in pieces.
    alignas(64) uint32_t buf[256];
    for (uint64_t done = 0; done < words;) {
      const uint64_t k = std::min<uint64_t>(words - done, 256);
      std::memcpy(buf, src + 4 * done, 4 * k);
      NonTemporalCopy(buf, k, reinterpret_cast<uint32_t*>(dst + 4 * done));
      done += k;
    }
  }
  std::memcpy(dst + 4 * words, src + 4 * words, n % 4);
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
#if RANDTENSOR_AVX512
  const hn::FixedTag<uint32_t, 8> d8;
  const hn::FixedTag<uint32_t, 16> d16;
  hn::Stream(hn::Combine(d16, hn::Combine(d8, q3, q2), hn::Combine(d8, q1, q0)), d16, line);
#elif HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
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

#if RANDTENSOR_AVX512
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
               uint32_t* HWY_RESTRICT dst, int64_t stride_l, bool nontemporal) {
#if HWY_TARGET == HWY_SCALAR
  (void)nontemporal;
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
    // non-temporal stores when the output streams.
#if RANDTENSOR_AVX512
    if (nontemporal && reinterpret_cast<uintptr_t>(dst) % 64 == 0) {
      const size_t done = StreamDenseLines(stage, pitch, rows, cols, dst);
      stage += done;  // the rest (fewer than 16 columns) as below
      dst += done * rows;
      cols -= done;
    }
#endif
    alignas(64) uint32_t dense[4096];
    uint32_t* target = nontemporal && rows * cols <= 4096 ? dense : dst;
    for (; l + 4 <= cols; l += 4) {
      uint32_t* out = target + l * rows;
      if (rows == 2) hn::StoreInterleaved2(row(0, l), row(1, l), d, out);
      if (rows == 3) hn::StoreInterleaved3(row(0, l), row(1, l), row(2, l), d, out);
      if (rows == 4) hn::StoreInterleaved4(row(0, l), row(1, l), row(2, l), row(3, l), d, out);
    }
    WriteTileScalar(stage, pitch, 0, rows, l, cols, target, stride_l);
    if (target == dense) NonTemporalCopy(dense, rows * cols, dst);
    return;
  }
  // 4 x 4 blocks transposed in registers: rows m..m+3 of columns l..l+3
  // become the four 4-word pieces t0..t3, one per column.
  const auto transpose = [&](size_t m, size_t l0, V* t0, V* t1, V* t2, V* t3) {
    const V r0 = row(m, l0), r1 = row(m + 1, l0), r2 = row(m + 2, l0), r3 = row(m + 3, l0);
    const auto t01 = hn::BitCast(d64, hn::InterleaveLower(d, r0, r1));  // r0[0] r1[0] r0[1] r1[1]
    const auto t23 = hn::BitCast(d64, hn::InterleaveLower(d, r2, r3));
    const auto u01 = hn::BitCast(d64, hn::InterleaveUpper(d, r0, r1));  // r0[2] r1[2] r0[3] r1[3]
    const auto u23 = hn::BitCast(d64, hn::InterleaveUpper(d, r2, r3));
    *t0 = hn::BitCast(d, hn::InterleaveLower(d64, t01, t23));
    *t1 = hn::BitCast(d, hn::InterleaveUpper(d64, t01, t23));
    *t2 = hn::BitCast(d, hn::InterleaveLower(d64, u01, u23));
    *t3 = hn::BitCast(d, hn::InterleaveUpper(d64, u01, u23));
  };
  const size_t rows4 = rows / 4 * 4;
  if (nontemporal && rows % kLineWords == 0 && reinterpret_cast<uintptr_t>(dst) % 64 == 0 &&
      (stride_l * 4) % 64 == 0) {
    // Every run is whole aligned cache lines: store each line non-temporally from
    // registers, its four pieces joined into the widest vector the target
    // has (Intel loses a third of the rate when 16-byte non-temporal stores
    // leave several lines half written at once).
    for (; l + 4 <= cols; l += 4) {
      for (size_t m = 0; m < rows; m += kLineWords) {
        // aj, bj, cj, dj: rows m..m+3, m+4..m+7, m+8..m+11, m+12..m+15 of
        // column l + j.
        V a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, e0, e1, e2, e3;
        transpose(m, l, &a0, &a1, &a2, &a3);
        transpose(m + 4, l, &b0, &b1, &b2, &b3);
        transpose(m + 8, l, &c0, &c1, &c2, &c3);
        transpose(m + 12, l, &e0, &e1, &e2, &e3);
        uint32_t* line = dst + static_cast<int64_t>(l) * stride_l + static_cast<int64_t>(m);
        StreamLine(a0, b0, c0, e0, line);
        StreamLine(a1, b1, c1, e1, line + stride_l);
        StreamLine(a2, b2, c2, e2, line + 2 * stride_l);
        StreamLine(a3, b3, c3, e3, line + 3 * stride_l);
      }
    }
    WriteTileScalar(stage, pitch, 0, rows, l, cols, dst, stride_l);
    return;
  }
  // Otherwise regular stores; m innermost so each column's run in memory is
  // written in order.
  for (; l + 4 <= cols; l += 4) {
    for (size_t m = 0; m < rows4; m += 4) {
      V t0, t1, t2, t3;
      transpose(m, l, &t0, &t1, &t2, &t3);
      uint32_t* out = dst + static_cast<int64_t>(l) * stride_l + static_cast<int64_t>(m);
      hn::StoreU(t0, d, out);
      hn::StoreU(t1, d, out + stride_l);
      hn::StoreU(t2, d, out + 2 * stride_l);
      hn::StoreU(t3, d, out + 3 * stride_l);
    }
    WriteTileScalar(stage, pitch, rows4, rows, l, l + 4, dst, stride_l);
  }
  WriteTileScalar(stage, pitch, 0, rows, l, cols, dst, stride_l);
#endif
}


#endif  // RANDTENSOR_BITS_UNIT

// ------------------------------------------------- the move kernels by size

template <typename T>
void CopyElements(const void* HWY_RESTRICT src, uint64_t n, void* HWY_RESTRICT dst,
                  bool nontemporal) {
  if (!nontemporal) {
    std::memcpy(dst, src, n * sizeof(T));
  } else if (sizeof(T) >= 4) {  // whole words: aligned to 4 bytes at least
    NonTemporalCopy(static_cast<const uint32_t*>(src), n * sizeof(T) / 4, static_cast<uint32_t*>(dst));
  } else {
    NonTemporalCopyBytes(static_cast<const uint8_t*>(src), n * sizeof(T), static_cast<uint8_t*>(dst));
  }
}

#if HWY_TARGET != HWY_SCALAR
// Copies `rows` rows of `bytes` >= Lanes(d) bytes each in vectors of d, the
// last vector of a row ending at the row's end (overlapping the one before):
// no call and no byte loop per row, and no byte outside the row is written.
template <class D>
HWY_INLINE void CopyRowsIn(D d, const uint8_t* HWY_RESTRICT src, size_t bytes, uint64_t rows,
                           uint8_t* HWY_RESTRICT dst, int64_t step_bytes) {
  const size_t N = hn::Lanes(d);
  for (uint64_t r = 0; r < rows; ++r, src += bytes, dst += step_bytes) {
    size_t j = 0;
    for (; j + N <= bytes; j += N) hn::StoreU(hn::LoadU(d, src + j), d, dst + j);
    if (j < bytes) hn::StoreU(hn::LoadU(d, src + bytes - N), d, dst + bytes - N);
  }
}
#endif

// Short padded rows out of the L1 stage (the writer's staged rows): a call per
// row to memcpy costs about as much as a short row's copy itself.
template <typename T>
void CopyRowsElements(const void* HWY_RESTRICT src, uint64_t n, uint64_t rows,
                      void* HWY_RESTRICT dst, int64_t step) {
  const size_t bytes = static_cast<size_t>(n) * sizeof(T);
  const uint8_t* from = static_cast<const uint8_t*>(src);
  uint8_t* to = static_cast<uint8_t*>(dst);
  const int64_t step_bytes = step * static_cast<int64_t>(sizeof(T));
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<uint8_t> d;
  const hn::FixedTag<uint8_t, 16> d16;
  if (bytes >= hn::Lanes(d)) return CopyRowsIn(d, from, bytes, rows, to, step_bytes);
  if (bytes >= 16) return CopyRowsIn(d16, from, bytes, rows, to, step_bytes);
#endif
  for (uint64_t r = 0; r < rows; ++r, from += bytes, to += step_bytes) {
    std::memcpy(to, from, bytes);
  }
}

template <typename T>
void ScatterElements(const void* HWY_RESTRICT src, uint64_t n, void* HWY_RESTRICT dst,
                     int64_t stride) {
  const T* in = static_cast<const T*>(src);
  T* out = static_cast<T*>(dst);
  int64_t at = 0;
  for (uint64_t k = 0; k < n; ++k, at += stride) out[at] = in[k];
}

template <typename T>
void WriteTileElements(const void* HWY_RESTRICT stage, size_t pitch, size_t rows, size_t cols,
                       void* HWY_RESTRICT dst, int64_t stride_l, bool nontemporal) {
  if constexpr (sizeof(T) == 4) {
    WriteTile(static_cast<const uint32_t*>(stage), pitch, rows, cols, static_cast<uint32_t*>(dst),
              stride_l, nontemporal);
  } else {
    // No vector transpose for these sizes yet: plain stores, m innermost so
    // each column's run in memory is written in order.
    (void)nontemporal;
    const T* in = static_cast<const T*>(stage);
    T* out = static_cast<T*>(dst);
    for (size_t l = 0; l < cols; ++l) {
      T* column = out + static_cast<int64_t>(l) * stride_l;
      for (size_t m = 0; m < rows; ++m) column[m] = in[m * pitch + l];
    }
  }
}

// Stride -1 along m: a reversed view, rare enough for plain loops.
template <typename T>
void WriteTileReversedElements(const void* HWY_RESTRICT stage, size_t pitch, size_t rows,
                               size_t cols, void* HWY_RESTRICT dst, int64_t stride_l) {
  const T* in = static_cast<const T*>(stage);
  T* out = static_cast<T*>(dst);
  for (size_t l = 0; l < cols; ++l) {
    T* column = out + static_cast<int64_t>(l) * stride_l;
    for (size_t m = 0; m < rows; ++m) column[-static_cast<int64_t>(m)] = in[m * pitch + l];
  }
}

template <typename T>
detail::MoveKernels MoveKernelsFor() {
  return {CopyElements<T>, CopyRowsElements<T>, ScatterElements<T>, WriteTileElements<T>,
          WriteTileReversedElements<T>};
}

}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_MOVE_INL_H_ toggle guard
