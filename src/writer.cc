// The tiled writer (see writer.h).
//
// Three ways to place a tensor, chosen from its canonical layout:
//
// - Rows (innermost stride 1: packed, padded rows). Long rows are generated
//   straight into the output by the contiguous kernel, with streaming stores
//   when the output is larger than the cache. Shorter rows would pay the
//   kernel's per-call cost and a partial vector per row, so a chunk spanning
//   many rows is generated into an L1 staging buffer and copied out row by
//   row (streamed where the output is).
// - Transposed (innermost stride not 1, but another dimension M has stride
//   +-1: NHWC, column-major). Work goes in 2-D tiles: for Tm indices along M,
//   a segment of Tl logical elements along the innermost dimension L each
//   (contiguous in the stream, so the kernel runs at full speed) goes into
//   L1; the tile is then written out along M, so memory is written in runs
//   instead of one element per cache line. Where the kernel can, it skips
//   the staging: on AVX-512 a tile whose extent along M is a multiple of 16
//   (NHWC with 16, 32, 64 ... channels; column-major) is generated one run
//   per lane, straight into whole cache lines (FillColumnsFn).
// - Scattered (no unit stride at all): staged chunks, scattered element by
//   element. Correct for every layout, fast for none; no common layout lands
//   here.
//
// Work is cut into tasks that own disjoint sets of elements: ranges of the
// logical order for rows and scattered, ranges of tiles for transposed. A
// Philox block that straddles two tasks is computed by both; each writes only
// its own elements, so values never depend on the cut.

#include "src/writer.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include <unistd.h>

#include "src/thread_pool.h"

namespace randtensor {
namespace detail {
namespace {

// Below this many elements per task, threads cost more than they save.
constexpr uint64_t kMinTaskElements = uint64_t{1} << 16;  // 256 KiB of UINT32
// Words of L1 staging per task (16 KiB: leaves room in a 32 KiB L1D).
constexpr uint64_t kStageWords = 4096;
// Rows shorter than this are staged rather than generated in place (measured:
// longer rows lose more to the staging copy than to their partial vectors).
constexpr int64_t kDirectRow = 128;
// Indices along M per transposed tile: each written run is 16 words, one
// whole cache line. Tiles grow along M when the rows along L are short.
constexpr int64_t kTileRows = 16;

enum class Strategy { kRows, kStagedRows, kTransposed, kScattered };

struct Job {
  const Layout* layout;
  uint32_t* origin;
  const KernelTable* kernels;
  Stream stream;
  uint64_t offset;  // FillOptions::element_offset
  bool streaming;
  Strategy strategy;
  // Rows, staged rows, scattered: tasks are logical ranges of `tile`
  // elements, tile k starting at k * tile - lead (clamped) so that tile
  // boundaries fall on Philox block boundaries of the stream.
  uint64_t tile;
  uint64_t lead;
  // Transposed: dimension indices and tile shape.
  int dim_m;                 // the dimension with stride +-1
  int64_t tile_m, tile_l;    // tile extent along M and along L (innermost)
  uint64_t chunks_m, chunks_l;  // tiles per M and per L
  uint64_t units, units_per_task;
  std::atomic<int64_t> target_ran{0};
};

// Walks the canonical layout in logical order, a row (run along the
// innermost dimension) at a time.
class RowCursor {
 public:
  RowCursor(const Layout& L, uint64_t begin) : L_(L), inner_(L.rank - 1) {
    if (begin == 0) return;  // element (0, ..., 0): no divisions needed
    uint64_t rest = begin;
    for (int d = inner_; d >= 0; --d) {  // divisions once per task only
      idx_[d] = static_cast<int64_t>(rest % static_cast<uint64_t>(L.sizes[d]));
      rest /= static_cast<uint64_t>(L.sizes[d]);
      pos_ += idx_[d] * L.strides[d];
    }
  }

  int64_t offset() const { return pos_; }
  uint64_t row_left() const { return static_cast<uint64_t>(L_.sizes[inner_] - idx_[inner_]); }

  // Moves n elements on (n <= row_left()), to the next row's start when the
  // row ends.
  void Advance(uint64_t n) {
    const int64_t step = static_cast<int64_t>(n);
    if (step < L_.sizes[inner_] - idx_[inner_]) {
      idx_[inner_] += step;
      pos_ += step * L_.strides[inner_];
      return;
    }
    pos_ -= idx_[inner_] * L_.strides[inner_];
    idx_[inner_] = 0;
    for (int d = inner_ - 1; d >= 0; --d) {  // odometer carry
      pos_ += L_.strides[d];
      if (++idx_[d] < L_.sizes[d]) return;
      pos_ -= L_.sizes[d] * L_.strides[d];
      idx_[d] = 0;
    }
  }

 private:
  const Layout& L_;
  int inner_;
  int64_t idx_[kMaxRank] = {};
  int64_t pos_ = 0;
};

int64_t FillRun(const Job& job, uint64_t e, uint64_t count, uint32_t* dst, bool streaming) {
  return job.kernels->fill_contiguous(job.stream, job.offset + e, count, dst, streaming);
}

// Rows generated in place, one kernel call per row.
int64_t WriteRows(const Job& job, uint64_t begin, uint64_t end) {
  RowCursor cur(*job.layout, begin);
  int64_t ran = 0;
  for (uint64_t e = begin; e < end;) {
    const uint64_t len = std::min(cur.row_left(), end - e);
    ran = FillRun(job, e, len, job.origin + cur.offset(), job.streaming);
    e += len;
    if (e < end) cur.Advance(len);
  }
  return ran;
}

// Short rows or no unit stride: a chunk of the logical order at a time goes
// to L1, then each row piece is copied (stride 1) or scattered.
int64_t WriteStaged(const Job& job, uint64_t begin, uint64_t end) {
  alignas(64) uint32_t stage[kStageWords];
  const int64_t stride = job.layout->strides[job.layout->rank - 1];
  RowCursor cur(*job.layout, begin);
  int64_t ran = 0;
  for (uint64_t chunk = begin; chunk < end;) {
    const uint64_t n = std::min(end - chunk, kStageWords);
    ran = FillRun(job, chunk, n, stage, false);
    for (uint64_t i = 0; i < n;) {
      const uint64_t len = std::min(cur.row_left(), n - i);
      uint32_t* dst = job.origin + cur.offset();
      if (stride == 1) {
        job.kernels->copy(stage + i, len, dst, job.streaming);
      } else {
        int64_t at = 0;
        for (uint64_t k = 0; k < len; ++k, at += stride) dst[at] = stage[i + k];
      }
      i += len;
      if (chunk + i < end) cur.Advance(len);
    }
    chunk += n;
  }
  return ran;
}

// Transposed tiles [unit_begin, unit_end) (see the top of this file). Units
// are numbered with the tile along M fastest, then along L, then the other
// dimensions in logical order, so consecutive units write neighbouring memory.
int64_t WriteTransposed(const Job& job, uint64_t unit_begin, uint64_t unit_end) {
  alignas(64) uint32_t stage[kStageWords];
  const Layout& L = *job.layout;
  const int dl = L.rank - 1, dm = job.dim_m;
  const int64_t stride_l = L.strides[dl], stride_m = L.strides[dm];
  // M just outside L and whole rows per tile: rows are consecutive logically.
  const bool whole_rows = dm == dl - 1 && job.tile_l == L.sizes[dl];

  // Logical (row-major) stride of each canonical dimension.
  int64_t lstride[kMaxRank];
  int64_t acc = 1;
  for (int d = dl; d >= 0; --d) {
    lstride[d] = acc;
    acc *= L.sizes[d];
  }

  int64_t ran = 0;
  for (uint64_t u = unit_begin; u < unit_end; ++u) {
    uint64_t rest = u;
    const int64_t m0 = static_cast<int64_t>(rest % job.chunks_m) * job.tile_m;
    rest /= job.chunks_m;
    const int64_t l0 = static_cast<int64_t>(rest % job.chunks_l) * job.tile_l;
    rest /= job.chunks_l;
    // The other dimensions: logical base and memory base of this tile.
    uint64_t e0 = 0;
    int64_t p0 = 0;
    for (int d = dl - 1; d >= 0; --d) {
      if (d == dm) continue;
      const int64_t i = static_cast<int64_t>(rest % static_cast<uint64_t>(L.sizes[d]));
      rest /= static_cast<uint64_t>(L.sizes[d]);
      e0 += static_cast<uint64_t>(i * lstride[d]);
      p0 += i * L.strides[d];
    }
    const int64_t rows = std::min(job.tile_m, L.sizes[dm] - m0);
    const int64_t cols = std::min(job.tile_l, L.sizes[dl] - l0);
    const uint64_t first = e0 + static_cast<uint64_t>(m0 * lstride[dm] + l0);
    uint32_t* base = job.origin + p0 + m0 * stride_m + l0 * stride_l;
    if (stride_m == 1) {  // straight into place where the kernel can
      const int64_t direct = job.kernels->fill_columns(
          job.stream, job.offset + first, static_cast<uint64_t>(lstride[dm]),
          static_cast<size_t>(rows), static_cast<size_t>(cols), base, stride_l, job.streaming);
      if (direct != 0) {
        ran = direct;
        continue;
      }
    }
    if (whole_rows) {  // the tile's rows follow each other in the stream
      ran = FillRun(job, first, static_cast<uint64_t>(rows * cols), stage, false);
    } else {
      for (int64_t m = 0; m < rows; ++m) {
        ran = FillRun(job, first + static_cast<uint64_t>(m * lstride[dm]),
                      static_cast<uint64_t>(cols), stage + m * job.tile_l, false);
      }
    }
    // Write along M: for each column l, `rows` neighbouring addresses.
    if (stride_m == 1) {
      job.kernels->write_tile(stage, static_cast<size_t>(job.tile_l), static_cast<size_t>(rows),
                              static_cast<size_t>(cols), base, stride_l, job.streaming);
    } else {  // stride -1: a reversed view, rare enough for plain loops
      for (int64_t l = 0; l < cols; ++l) {
        for (int64_t m = 0; m < rows; ++m) base[l * stride_l - m] = stage[m * job.tile_l + l];
      }
    }
  }
  return ran;
}

void RunTask(void* context, uint32_t index) {
  Job& job = *static_cast<Job*>(context);
  int64_t ran = 0;
  if (job.strategy == Strategy::kTransposed) {
    const uint64_t begin = std::min(job.units, uint64_t{index} * job.units_per_task);
    const uint64_t end = std::min(job.units, begin + job.units_per_task);
    ran = WriteTransposed(job, begin, end);
  } else {
    const uint64_t n = job.layout->count;
    const uint64_t start = uint64_t{index} * job.tile;
    const uint64_t begin = start < job.lead ? 0 : std::min(n, start - job.lead);
    const uint64_t end = std::min(n, start + job.tile - job.lead);
    ran = job.strategy == Strategy::kRows ? WriteRows(job, begin, end)
                                          : WriteStaged(job, begin, end);
  }
  if (job.streaming) StreamFence();
  job.target_ran.store(ran, std::memory_order_relaxed);
}

// Streaming stores skip the caches: right for outputs larger than the last
// level cache (the data would be evicted before use anyway, and regular
// stores first read every line), wrong for outputs the consumer reads soon.
// The L3 size the system reports, but at most 32 MiB: on chiplet CPUs and in
// VMs it is the whole socket's (320 MiB on both hosts we measure), while one
// core writes into its own slice; at 64 MiB regular stores measured 1.2-2x
// slower than streaming ones for NHWC and column-major outputs.
uint64_t StreamingThresholdBytes() {
  static const uint64_t bytes = [] {
    constexpr uint64_t kCap = uint64_t{32} << 20;
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return l3 > 0 ? std::min(static_cast<uint64_t>(l3), kCap) : kCap;
  }();
  return bytes;
}

bool ResolveStreaming(StoreMode mode, uint64_t count) {
  switch (mode) {
    case StoreMode::kRegular: return false;
    case StoreMode::kStreaming: return true;
    case StoreMode::kAuto: break;
  }
  return count * 4 >= StreamingThresholdBytes();
}

// The dimension with stride +-1 other than the innermost, or -1.
int UnitStrideDim(const Layout& L) {
  for (int d = L.rank - 2; d >= 0; --d) {
    if (L.strides[d] == 1 || L.strides[d] == -1) return d;
  }
  return -1;
}

// Tasks for a logical-range strategy; returns the task count.
uint64_t PlanRanges(Job& job, uint64_t n, uint32_t threads, uint64_t tile_option) {
  if (tile_option == 0 && n + job.lead <= kMinTaskElements) {  // small: one task, inline
    job.tile = (n + job.lead + 3) / 4 * 4;
    return 1;
  }
  // One tile never needs more than all elements; clamping first keeps the
  // rounding below from overflowing for absurd requests.
  uint64_t tile = std::min(tile_option, n + job.lead);
  if (tile == 0) {
    // One tile per thread, but never tiles so small that threads cost more.
    tile = std::max((n + job.lead + threads - 1) / threads, kMinTaskElements);
  }
  // A multiple of 4 (whole Philox blocks), and few enough tiles for 32 bits.
  tile = std::max(tile, (n + job.lead) / UINT32_MAX + 1);
  job.tile = (tile + 3) / 4 * 4;
  return (n + job.lead + job.tile - 1) / job.tile;
}

// Tasks for transposed tiles; returns the task count.
uint64_t PlanTiles(Job& job, uint32_t threads, uint64_t tile_option) {
  const Layout& L = *job.layout;
  const int64_t size_m = L.sizes[job.dim_m], size_l = L.sizes[L.rank - 1];
  const int64_t stage = static_cast<int64_t>(kStageWords);
  job.tile_m = std::min(size_m, kTileRows);
  job.tile_l = std::min(size_l, stage / job.tile_m);
  // Tiles that cut L start on a multiple of 16 columns, so that a dense
  // streamed tile (NHWC with 2-4 channels) begins on a cache line.
  if (job.tile_l < size_l && job.tile_l > 16) job.tile_l = job.tile_l / 16 * 16;
  if (job.tile_l == size_l) job.tile_m = std::min(size_m, std::max(job.tile_m, stage / size_l));
  job.chunks_m = static_cast<uint64_t>((size_m + job.tile_m - 1) / job.tile_m);
  job.chunks_l = static_cast<uint64_t>((size_l + job.tile_l - 1) / job.tile_l);
  const uint64_t units =
      job.chunks_m * job.chunks_l * (L.count / static_cast<uint64_t>(size_m * size_l));
  job.units = units;
  const uint64_t unit_elements = static_cast<uint64_t>(job.tile_m * job.tile_l);
  uint64_t per_task;
  if (tile_option != 0) {
    per_task = std::max<uint64_t>(1, (std::min(tile_option, L.count) + unit_elements - 1) / unit_elements);
  } else {
    per_task = std::max((units + threads - 1) / threads,
                        (kMinTaskElements + unit_elements - 1) / unit_elements);
  }
  per_task = std::max(per_task, units / UINT32_MAX + 1);
  job.units_per_task = per_task;
  return (units + per_task - 1) / per_task;
}

}  // namespace

void WriteTensor(const Layout& layout, uint32_t* origin, const KernelTable& kernels,
                 const PhiloxState& state, const FillOptions& options, FillInfo* info) noexcept {
  const uint64_t n = layout.count;
  const uint32_t threads = options.threads != 0 ? options.threads : DefaultThreads();
  const int inner = layout.rank - 1;
  const int64_t row = layout.sizes[inner];

  Job job{&layout, origin, &kernels, Stream{state.counter(), RoundKeys(state.key())},
          options.element_offset, ResolveStreaming(options.stores, n), Strategy::kRows,
          0, options.element_offset % 4, -1, 0, 0, 0, 0, 0, 0};
  if (layout.strides[inner] == 1) {
    job.strategy = row >= kDirectRow || layout.rank == 1 ? Strategy::kRows
                                                         : Strategy::kStagedRows;
  } else {
    job.dim_m = UnitStrideDim(layout);
    job.strategy = job.dim_m >= 0 ? Strategy::kTransposed : Strategy::kScattered;
  }
  const uint64_t tasks = job.strategy == Strategy::kTransposed
                             ? PlanTiles(job, threads, options.tile_elements)
                             : PlanRanges(job, n, threads, options.tile_elements);
  RunTasks(options.parallel_for, static_cast<uint32_t>(tasks), threads, RunTask, &job);

  if (info != nullptr) {
    info->tasks = static_cast<uint32_t>(tasks);
    info->streaming = job.streaming;
    // Name the target that the kernel code itself says it was compiled for,
    // not the one we meant to call: tests use this to prove forcing works.
    info->target = "";
    info->lanes = 0;
    int count = 0;
    const KernelTable* all = CompiledKernels(&count);
    const int64_t ran = job.target_ran.load(std::memory_order_relaxed);
    for (int i = 0; i < count; ++i) {
      if (all[i].hwy_target != ran) continue;
      info->target = all[i].name;
      info->lanes = all[i].lanes;
    }
  }
}

}  // namespace detail
}  // namespace randtensor
