// The tiled writer (see writer.h).
//
// Three ways to place a tensor, chosen from its canonical layout:
//
// - Rows (innermost stride 1: packed, padded rows). Long rows are generated
//   straight into the output by the contiguous kernel, with non-temporal stores
//   where the host writes them faster (store_choice.h); padded rows go
//   several rows per call (the kernels' `rows`; streamed only where they
//   are whole aligned vectors), since a call per row would restart the run
//   with too few vectors in flight to hide the multiplier latency: long
//   rows, and short ones that are whole vectors of Philox blocks or whole
//   hardware vectors that a vector of blocks holds whole, or, on targets
//   that place pieces of the elements' vectors, at least a hardware vector
//   long (InPlaceRows, RowsFromRegisters), and elsewhere rows long enough
//   that their crossing vectors spill through L1 (spill_elements: a group
//   of vectors on NEON, and for AVX2's bytes). Other short rows would pay
//   a partial vector per row,
//   so a chunk spanning many rows is generated into an L1 staging buffer and
//   copied out row by row (streamed where the output is).
// - Transposed (innermost stride not 1, but another dimension M has stride
//   +-1: NHWC, column-major; the innermost dimension is a run of the stream). Work goes in 2-D tiles: for Tm indices along M,
//   a segment of Tl logical elements along the innermost dimension L each
//   (contiguous in the stream, so the kernel runs at full speed) goes into
//   L1; the tile is then written out along M, so memory is written in runs
//   instead of one element per cache line. Where the kernel can, it skips
//   the staging: on AVX-512 a tile whose extent along M is a multiple of 16
//   (NHWC with 16, 32, 64 ... channels; column-major) is generated one run
//   per lane, straight into whole cache lines (GenerateColumnsFn).
// - Scattered (no unit stride at all): staged chunks, scattered element by
//   element. Correct for every layout, fast for none; no common layout lands
//   here.
//
// Work is cut into tasks that own disjoint sets of elements: ranges of the
// local logical order for rows and scattered, ranges of tiles for transposed.
// Every run handed to a generate kernel starts at its stream position from
// the plan's stream map. A Philox block that straddles two tasks is computed
// by both; each writes only its own elements, so values never depend on the
// cut. When local order is stream order (every whole tensor), range tasks
// start on Philox block boundaries of the stream so that none is shared.

#include "src/writer.h"

#include <algorithm>
#include <atomic>
#include <chrono>

#include <unistd.h>

#include "src/store_choice.h"
#include "src/thread_pool.h"

namespace randtensor {
namespace detail {
namespace {

// Task sizes (benchmarks/RESULTS.md, "Thread scaling behind the task
// sizes", has the measurements). Up to kInlineElements, or with one thread,
// one task on the caller: waking sleeping workers costs the caller more than
// such a fill, and a program that fills now and then finds them asleep.
// Above it, about kTasksPerThread tasks per thread, so that a helper that
// wakes late still finds work and the caller never waits long for a
// straggler, but none below kMinTaskElements (a task's hand-off costs well
// under a microsecond).
constexpr uint64_t kInlineElements = uint64_t{1} << 16;   // 256 KiB of UINT32
constexpr uint64_t kMinTaskElements = uint64_t{1} << 14;  // 64 KiB of UINT32
constexpr uint64_t kTasksPerThread = 4;
// Bytes of L1 staging per task (16 KiB: leaves room in a 32 KiB L1D).
constexpr uint64_t kStageBytes = 16384;
// Rows at least this long are generated in place even a call per row
// (they lose more to a staging copy than to a partial vector per row);
// shorter ones only where the kernel's `rows` takes many at once
// (InPlaceRows), staged otherwise.
constexpr uint64_t kDirectRow = 128;
// Indices along M per transposed tile: each written run is 16 words, one
// whole cache line. Tiles grow along M when the rows along L are short.
constexpr int64_t kTileRows = 16;

enum class Strategy { kRows, kStagedRows, kTransposed, kScattered };

const char* StrategyName(Strategy s, bool all_columns) {
  switch (s) {
    case Strategy::kRows: return "rows";
    case Strategy::kStagedRows: return "staged rows";
    case Strategy::kTransposed: return all_columns ? "columns" : "transposed";
    case Strategy::kScattered: return "scattered";
  }
  return "";
}

struct Job {
  Job(const Plan& p, const PhiloxState& state)
      : plan(&p),
        layout(p.layout),
        generate(&p.kernels->Generate(p.kind)),
        move(&p.kernels->Move(ElementBytes(p.kind))),
        // The constants copied now, before any task (see Plan::params).
        args{state.counter(), RoundKeys(state.key()), *p.params},
        nontemporal(p.nontemporal),
        element_size(ElementBytes(p.kind)) {}

  const Plan* plan;
  const Layout* layout;
  const GenerateKernels* generate;
  const MoveKernels* move;
  KernelArgs args;
  bool nontemporal;
  Strategy strategy = Strategy::kRows;
  int element_size;
  // Elements that fit in the L1 stage (a division: only where a stage is used).
  uint64_t StageElements() const { return kStageBytes / static_cast<uint64_t>(element_size); }
  // Elements of a staged generate call from stream element `at`: as many as
  // the stage holds, up to a multiple of the kernel's group of vectors
  // (GenerateKernels::group_elements) in the stream, so that the calls after
  // a range's first make whole groups and none but its last ends in vectors
  // made one at a time.
  uint64_t StageRun(uint64_t at) const {
    const uint64_t stage = StageElements(), group = generate->group_elements;
    return group <= stage ? stage - stage % group - at % group : stage;
  }

  // Range tasks (rows, staged rows, scattered): task k covers local elements
  // [k * task_elements - lead, (k + 1) * task_elements - lead), clamped, so
  // that task boundaries fall on Philox block boundaries of the stream.
  uint64_t task_elements = 0;
  uint64_t lead = 0;

  // Transposed tiles: tile_m indices along dimension dim_m (stride +-1) by
  // tile_l along the innermost dimension; tiles_m x tiles_l tiles per 2-D
  // slice, `tiles` in all, tiles_per_task per task.
  int dim_m = -1;
  int64_t tile_m = 0, tile_l = 0;
  uint64_t tiles_m = 0, tiles_l = 0, tiles = 0, tiles_per_task = 0;
  std::atomic<bool> staged_tile{false};  // some tile went through L1
  std::atomic<bool> staged_rows{false};  // kRows: the kernel declined short rows

  char* At(int64_t offset) const { return plan->origin + offset * element_size; }
  // Generates stream elements [first, first + count) into dst.
  void Generate(uint64_t first, uint64_t count, void* dst, bool nontemporal) const {
    generate->contiguous(args, first, count, dst, nontemporal);
  }
};

// Walks the canonical layout in local logical order, a row (run along the
// innermost dimension) at a time, keeping both the memory offset and the
// stream position (relative to the plan's base) of the current element.
class RowCursor {
 public:
  RowCursor(const Layout& L, uint64_t begin) : L_(L), inner_(L.rank - 1) {
    if (begin == 0) return;  // element (0, ..., 0): no divisions needed
    uint64_t rest = begin;
    for (int d = inner_; d >= 0; --d) {  // divisions once per task only
      idx_[d] = static_cast<int64_t>(rest % static_cast<uint64_t>(L.sizes[d]));
      rest /= static_cast<uint64_t>(L.sizes[d]);
      pos_ += idx_[d] * L.strides[d];
      stream_ += static_cast<uint64_t>(idx_[d]) * L.stream_strides[d];
    }
  }

  int64_t offset() const { return pos_; }
  uint64_t stream() const { return stream_; }
  uint64_t row_left() const { return static_cast<uint64_t>(L_.sizes[inner_] - idx_[inner_]); }
  // At a row's start: the rows from this one to the end of the dimension
  // just outside the rows (a run of rows one memory step apart).
  uint64_t rows_left() const {
    return inner_ == 0 ? 1 : static_cast<uint64_t>(L_.sizes[inner_ - 1] - idx_[inner_ - 1]);
  }

  // At a row's start: moves k whole rows on (0 < k <= rows_left()).
  void AdvanceRows(uint64_t k) {
    if (k > 1) {
      const int64_t step = static_cast<int64_t>(k - 1);
      idx_[inner_ - 1] += step;
      pos_ += step * L_.strides[inner_ - 1];
      stream_ += (k - 1) * L_.stream_strides[inner_ - 1];
    }
    Advance(row_left());
  }

  // Moves n elements on (n <= row_left()), to the next row's start when the
  // row ends.
  void Advance(uint64_t n) {
    const int64_t step = static_cast<int64_t>(n);
    if (step < L_.sizes[inner_] - idx_[inner_]) {
      idx_[inner_] += step;
      pos_ += step * L_.strides[inner_];
      stream_ += n * L_.stream_strides[inner_];
      return;
    }
    pos_ -= idx_[inner_] * L_.strides[inner_];
    stream_ -= static_cast<uint64_t>(idx_[inner_]) * L_.stream_strides[inner_];
    idx_[inner_] = 0;
    for (int d = inner_ - 1; d >= 0; --d) {  // odometer carry
      pos_ += L_.strides[d];
      stream_ += L_.stream_strides[d];
      if (++idx_[d] < L_.sizes[d]) return;
      pos_ -= L_.sizes[d] * L_.strides[d];
      stream_ -= static_cast<uint64_t>(L_.sizes[d]) * L_.stream_strides[d];
      idx_[d] = 0;
    }
  }

 private:
  const Layout& L_;
  int inner_;
  int64_t idx_[kMaxRank] = {};
  int64_t pos_ = 0;
  uint64_t stream_ = 0;
};

// Rows generated in place (the innermost dimension has stride 1 in memory
// and in the stream). Whole rows that follow each other in the stream and
// lie one memory step apart go to the kernel's `rows` in one call, whether
// or not they are whole vectors of Philox blocks, so that short rows keep a
// whole group of vectors in flight; the kernel declines only non-temporal
// rows it cannot stream straight from registers (GenerateRowsFn), which
// then take one `contiguous` call each where they are long (kDirectRow) and
// the staged way where short; partial rows at a task's ends take one
// `contiguous` call each.
void WriteStaged(const Job& job, uint64_t begin, uint64_t end);
void WriteRows(Job& job, uint64_t begin, uint64_t end) {
  const Layout& L = *job.layout;
  RowCursor cur(L, begin);
  const uint64_t base = job.plan->stream_base;
  const uint64_t row = static_cast<uint64_t>(L.sizes[L.rank - 1]);
  // Rows one stream row apart (a whole tensor's padded rows), with the
  // kernel's placement, until it declines.
  bool try_rows = job.generate->rows != nullptr && L.rank >= 2 &&
                  L.stream_strides[L.rank - 2] == row;
  for (uint64_t e = begin; e < end;) {
    if (try_rows && cur.row_left() == row) {
      const uint64_t k = std::min(cur.rows_left(), (end - e) / row);
      if (k > 1) {
        if (job.generate->rows(job.args, base + cur.stream(), row, k, job.At(cur.offset()),
                               L.strides[L.rank - 2], job.nontemporal)) {
          e += k * row;
          if (e < end) cur.AdvanceRows(k);
          continue;
        }
        if (row < kDirectRow) {
          job.staged_rows.store(true, std::memory_order_relaxed);
          return WriteStaged(job, e, end);
        }
        try_rows = false;
      }
    }
    const uint64_t len = std::min(cur.row_left(), end - e);
    job.Generate(base + cur.stream(), len, job.At(cur.offset()), job.nontemporal);
    e += len;
    if (e < end) cur.Advance(len);
  }
}

// Places `len` staged elements from the cursor's position on: copied where
// the innermost stride is 1, scattered otherwise.
void PlaceRowPiece(const Job& job, const char* staged, uint64_t len, const RowCursor& cur) {
  const int64_t stride = job.layout->strides[job.layout->rank - 1];
  if (stride == 1) {
    job.move->copy(staged, len, job.At(cur.offset()), job.nontemporal);
  } else {
    job.move->scatter(staged, len, job.At(cur.offset()), stride);
  }
}

// Short rows or no unit stride: elements go to L1 first, then each row piece
// is copied (stride 1) or scattered. When local order is stream order a whole
// chunk spanning many rows is one generate call; otherwise (a window of a
// larger tensor) each row piece is its own stream run, or, when even the
// innermost dimension skips through the stream, each element.
void WriteStaged(const Job& job, uint64_t begin, uint64_t end) {
  alignas(64) char stage[kStageBytes];
  const Layout& L = *job.layout;
  const uint64_t base = job.plan->stream_base;
  const uint64_t cap = job.StageElements();
  const int size = job.element_size;
  RowCursor cur(L, begin);
  if (L.stream_contiguous) {
    // Whole rows one memory step apart (padded rows): all of a chunk's rows
    // in one move-kernel call (copy_rows) and one cursor step, as a call and
    // a cursor step per row cost short rows as much as making them.
    // Non-temporal stores take the row pieces' way.
    const uint64_t row = static_cast<uint64_t>(L.sizes[L.rank - 1]);
    const bool row_loop = L.rank >= 2 && L.strides[L.rank - 1] == 1 && !job.nontemporal;
    const int64_t row_step = row_loop ? L.strides[L.rank - 2] : 0;  // elements
    for (uint64_t chunk = begin; chunk < end;) {
      const uint64_t n = std::min(end - chunk, job.StageRun(base + chunk));
      job.Generate(base + chunk, n, stage, false);
      for (uint64_t i = 0; i < n;) {
        const uint64_t rows = row_loop && cur.row_left() == row
                                  ? std::min(cur.rows_left(), (n - i) / row) : 0;
        if (rows > 1) {
          job.move->copy_rows(stage + i * size, row, rows, job.At(cur.offset()), row_step);
          i += rows * row;
          if (chunk + i < end) cur.AdvanceRows(rows);
          continue;
        }
        const uint64_t len = std::min(cur.row_left(), n - i);
        PlaceRowPiece(job, stage + i * size, len, cur);
        i += len;
        if (chunk + i < end) cur.Advance(len);
      }
      chunk += n;
    }
    return;
  }
  const uint64_t inner_step = L.stream_strides[L.rank - 1];
  for (uint64_t e = begin; e < end;) {
    const uint64_t len = std::min({cur.row_left(), end - e, cap});
    if (inner_step == 1) {
      job.Generate(base + cur.stream(), len, stage, false);
    } else {
      for (uint64_t k = 0; k < len; ++k) {
        job.Generate(base + cur.stream() + k * inner_step, 1, stage + k * size, false);
      }
    }
    PlaceRowPiece(job, stage, len, cur);
    e += len;
    if (e < end) cur.Advance(len);
  }
}

// Transposed tiles [tile_begin, tile_end) (see the top of this file). Tiles
// are numbered with the tile along M fastest, then along L, then the other
// dimensions in logical order, so consecutive tiles write neighbouring memory.
void WriteTransposed(Job& job, uint64_t tile_begin, uint64_t tile_end) {
  alignas(64) char stage[kStageBytes];
  const Layout& L = *job.layout;
  const int dl = L.rank - 1, dm = job.dim_m;
  const int64_t stride_l = L.strides[dl], stride_m = L.strides[dm];
  const uint64_t step_m = L.stream_strides[dm];  // stream distance of one step along M
  const uint64_t base = job.plan->stream_base;
  // M just outside L, whole rows per tile, and rows that follow each other in
  // the stream: the tile is one stream run.
  const bool whole_rows =
      dm == dl - 1 && job.tile_l == L.sizes[dl] && step_m == static_cast<uint64_t>(L.sizes[dl]);
  const size_t pitch = static_cast<size_t>(job.tile_l);

  for (uint64_t u = tile_begin; u < tile_end; ++u) {
    uint64_t rest = u;
    const int64_t m0 = static_cast<int64_t>(rest % job.tiles_m) * job.tile_m;
    rest /= job.tiles_m;
    const int64_t l0 = static_cast<int64_t>(rest % job.tiles_l) * job.tile_l;
    rest /= job.tiles_l;
    // The other dimensions: stream position and memory offset of this tile.
    uint64_t s0 = 0;
    int64_t p0 = 0;
    for (int d = dl - 1; d >= 0; --d) {
      if (d == dm) continue;
      const int64_t i = static_cast<int64_t>(rest % static_cast<uint64_t>(L.sizes[d]));
      rest /= static_cast<uint64_t>(L.sizes[d]);
      s0 += static_cast<uint64_t>(i) * L.stream_strides[d];
      p0 += i * L.strides[d];
    }
    const int64_t rows = std::min(job.tile_m, L.sizes[dm] - m0);
    const int64_t cols = std::min(job.tile_l, L.sizes[dl] - l0);
    // The innermost dimension is a stream run (stride 1 in the stream).
    const uint64_t first = base + s0 + static_cast<uint64_t>(m0) * step_m + static_cast<uint64_t>(l0);
    char* out = job.At(p0 + m0 * stride_m + l0 * stride_l);
    if (stride_m == 1 && ColumnsFit(*job.generate, first, step_m, static_cast<size_t>(rows))) {
      // Straight into place: one run per lane (see GenerateColumnsFn).
      job.generate->columns(job.args, first, step_m, static_cast<size_t>(rows),
                            static_cast<size_t>(cols), out, stride_l, job.nontemporal);
      continue;
    }
    job.staged_tile.store(true, std::memory_order_relaxed);
    if (whole_rows) {
      job.Generate(first, static_cast<uint64_t>(rows * cols), stage, false);
    } else {
      for (int64_t m = 0; m < rows; ++m) {
        job.Generate(first + static_cast<uint64_t>(m) * step_m, static_cast<uint64_t>(cols),
                     stage + static_cast<size_t>(m) * pitch * job.element_size, false);
      }
    }
    // Write along M: for each column l, `rows` neighbouring addresses.
    if (stride_m == 1) {
      job.move->write_tile(stage, pitch, static_cast<size_t>(rows), static_cast<size_t>(cols),
                           out, stride_l, job.nontemporal);
    } else {
      job.move->write_tile_reversed(stage, pitch, static_cast<size_t>(rows),
                                    static_cast<size_t>(cols), out, stride_l);
    }
  }
}

void RunTask(void* context, uint32_t index) {
  Job& job = *static_cast<Job*>(context);
  if (job.strategy == Strategy::kTransposed) {
    const uint64_t begin = std::min(job.tiles, uint64_t{index} * job.tiles_per_task);
    const uint64_t end = std::min(job.tiles, begin + job.tiles_per_task);
    WriteTransposed(job, begin, end);
  } else {
    const uint64_t n = job.layout->count;
    const uint64_t start = uint64_t{index} * job.task_elements;
    const uint64_t begin = start < job.lead ? 0 : std::min(n, start - job.lead);
    const uint64_t end = std::min(n, start + job.task_elements - job.lead);
    if (job.strategy == Strategy::kRows) {
      WriteRows(job, begin, end);
    } else {
      WriteStaged(job, begin, end);
    }
  }
  if (job.nontemporal) NonTemporalFence();
}

// Whether rows of stride 1 are generated in place (Strategy::kRows): long
// rows; and shorter ones that the kernel stores straight from registers
// (RowsFromRegisters: whole vectors of Philox blocks, whole hardware
// vectors that a vector of blocks holds whole, or, where the target places
// pieces of the elements' vectors, rows at least a hardware vector long:
// cross_elements) from a block boundary (`first`, the stream element of
// the first), follow each other in the stream, and give each call of the
// kernel's `rows` at least a long row's elements; so do rows long enough
// that the kind's crossing vectors, spilled through L1, cost less than
// staging (spill_elements: a group of vectors on NEON, and for AVX2's
// bytes), where rows are not crossed. Shorter rows that vectors cross are
// then staged: a spill every vector or two, its pieces copied out of L1,
// cost more than the staging copy (docs/kernel-speed.md).
bool InPlaceRows(const Layout& L, const GenerateKernels& generate, uint64_t first,
                 uint64_t per_block) {
  const uint64_t row = static_cast<uint64_t>(L.sizes[L.rank - 1]);
  if (L.rank == 1 || row >= kDirectRow) return true;
  const uint64_t rows = static_cast<uint64_t>(L.sizes[L.rank - 2]);
  const bool spilled = generate.spill_elements != 0 && row >= generate.spill_elements;
  return generate.rows != nullptr && (RowsFromRegisters(generate, row) || spilled) &&
         first % per_block == 0 && static_cast<uint64_t>(L.stream_strides[L.rank - 2]) == row &&
         rows * row >= kDirectRow;
}

// The dimension with stride +-1 other than the innermost, or -1.
int UnitStrideDim(const Layout& L) {
  for (int d = L.rank - 2; d >= 0; --d) {
    if (L.strides[d] == 1 || L.strides[d] == -1) return d;
  }
  return -1;
}

// How many tasks a fill of `count` elements wants: 1 (inline on the caller)
// up to kInlineElements or with one thread, else kTasksPerThread per thread
// (each still at least kMinTaskElements: the callers' sizes see to it).
uint64_t WantedTasks(uint64_t count, uint32_t threads) {
  if (count <= kInlineElements || threads <= 1) return 1;
  return uint64_t{threads} * kTasksPerThread;
}

// Range tasks; returns the task count.
uint64_t PlanRanges(Job& job, uint64_t n, uint32_t threads, uint64_t task_option) {
  const uint64_t wanted = WantedTasks(n + job.lead, threads);
  if (task_option == 0 && wanted == 1) {  // one task, inline
    job.task_elements = (n + job.lead + 3) / 4 * 4;
    return 1;
  }
  // One task never needs more than all elements; clamping first keeps the
  // rounding below from overflowing for absurd requests.
  uint64_t size = std::min(task_option, n + job.lead);
  if (size == 0) {
    size = std::max((n + job.lead + wanted - 1) / wanted, kMinTaskElements);
  }
  // A multiple of 4 (whole Philox blocks), and few enough tasks for 32 bits.
  size = std::max(size, (n + job.lead) / UINT32_MAX + 1);
  job.task_elements = (size + 3) / 4 * 4;
  return (n + job.lead + job.task_elements - 1) / job.task_elements;
}

// Transposed tiles and the tasks that take them; returns the task count.
uint64_t PlanTiles(Job& job, uint32_t threads, uint64_t task_option) {
  const Layout& L = *job.layout;
  const int64_t size_m = L.sizes[job.dim_m], size_l = L.sizes[L.rank - 1];
  const int64_t stage = static_cast<int64_t>(job.StageElements());
  job.tile_m = std::min(size_m, kTileRows);
  job.tile_l = std::min(size_l, stage / job.tile_m);
  // Tiles that cut L start on a multiple of 16 columns, so that a dense
  // streamed tile (NHWC with 2-4 channels) begins on a cache line.
  if (job.tile_l < size_l && job.tile_l > 16) job.tile_l = job.tile_l / 16 * 16;
  if (job.tile_l == size_l) job.tile_m = std::min(size_m, std::max(job.tile_m, stage / size_l));
  job.tiles_m = static_cast<uint64_t>((size_m + job.tile_m - 1) / job.tile_m);
  job.tiles_l = static_cast<uint64_t>((size_l + job.tile_l - 1) / job.tile_l);
  job.tiles = job.tiles_m * job.tiles_l * (L.count / static_cast<uint64_t>(size_m * size_l));
  const uint64_t task_elements = static_cast<uint64_t>(job.tile_m * job.tile_l);
  uint64_t per_task;
  if (task_option != 0) {
    per_task = std::max<uint64_t>(
        1, (std::min(task_option, L.count) + task_elements - 1) / task_elements);
  } else {
    const uint64_t wanted = WantedTasks(L.count, threads);  // 1: all tiles, inline
    per_task = (job.tiles + wanted - 1) / wanted;
    if (wanted > 1) {
      per_task = std::max(per_task, (kMinTaskElements + task_elements - 1) / task_elements);
    }
  }
  per_task = std::max(per_task, job.tiles / UINT32_MAX + 1);
  job.tiles_per_task = per_task;
  return (job.tiles + per_task - 1) / per_task;
}

}  // namespace

// Streaming stores skip the caches: wrong for outputs the consumer reads
// soon, and a candidate only for outputs larger than the last level cache
// (evicted before use anyway; regular stores first read every line). Which
// mode writes those faster, the host decides (store_choice.h). The L3 size
// the system reports, but at most 32 MiB: on chiplet CPUs and in VMs it is
// the whole socket's (320 MiB on both hosts we measure), while one core
// writes into its own slice.
bool LargerThanCaches(uint64_t bytes) noexcept {
  static const uint64_t threshold = [] {
    constexpr uint64_t kCap = uint64_t{32} << 20;
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return l3 > 0 ? std::min(static_cast<uint64_t>(l3), kCap) : kCap;
  }();
  return bytes >= threshold;
}

void WriteTensor(const Plan& plan, const PhiloxState& state, FillInfo* info) noexcept {
  const Layout& layout = *plan.layout;
  const int inner = layout.rank - 1;
  const bool inner_stream_run = layout.stream_strides[inner] == 1;

  Job job(plan, state);
  // Range tasks start on Philox block boundaries where local order is
  // stream order (4 / w elements per block).
  // (Masks, not divisions: a 64-bit divide takes tens of cycles, and this is
  // every call's path.)
  const uint64_t per_block = WordsPerElement(plan.kind) == 2 ? 2 : 4;
  job.lead = layout.stream_contiguous ? plan.stream_base & (per_block - 1) : 0;

  if (layout.strides[inner] == 1 && inner_stream_run) {
    job.strategy = InPlaceRows(layout, *job.generate, plan.stream_base, per_block)
                       ? Strategy::kRows
                       : Strategy::kStagedRows;
  } else if (layout.strides[inner] == 1) {
    job.strategy = Strategy::kStagedRows;  // a row skips through the stream
  } else {
    job.dim_m = inner_stream_run ? UnitStrideDim(layout) : -1;
    job.strategy = job.dim_m >= 0 ? Strategy::kTransposed : Strategy::kScattered;
  }
  // Scattered elements are stored one at a time: never streamed.
  if (job.strategy == Strategy::kScattered) job.nontemporal = false;
  // One packed run in one task (every packed fill up to kInlineElements):
  // the kernel directly, without the task machinery, which a 16-element
  // fill would otherwise spend most of its time in.
  const bool one_run = layout.rank == 1 && job.strategy == Strategy::kRows &&
                       plan.task_elements == 0 && WantedTasks(layout.count, plan.threads) == 1;
  uint64_t tasks = 1;
  if (!one_run) {
    tasks = job.strategy == Strategy::kTransposed
                ? PlanTiles(job, plan.threads, plan.task_elements)
                : PlanRanges(job, layout.count, plan.threads, plan.task_elements);
  }
  // kAuto on an output larger than the caches: the mode this host wrote
  // fastest, and this fill's rate recorded for the next (store_choice.h).
  const bool choose = plan.choose_stores && job.strategy != Strategy::kScattered;
  StoreKey key;
  std::chrono::steady_clock::time_point start;
  if (choose) {
    key.threads = static_cast<uint32_t>(std::min<uint64_t>(plan.threads, tasks));
    key.fresh = PageIsFresh(plan.origin);
    key.tiles = job.strategy == Strategy::kTransposed;
    key.size_class = StoreSizeClass(layout.count * job.element_size);
    job.nontemporal = HostStores().Streaming(key);
    start = std::chrono::steady_clock::now();
  }
  if (one_run) {
    job.Generate(plan.stream_base, layout.count, plan.origin, job.nontemporal);
    if (job.nontemporal) NonTemporalFence();
  } else {
    RunTasks(plan.parallel_for, static_cast<uint32_t>(tasks), plan.threads, RunTask, &job);
  }
  if (choose) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds > 0) {
      HostStores().Record(key, job.nontemporal,
                          static_cast<double>(layout.count) * job.element_size / seconds);
    }
  }

  info->target = plan.kernels->name;
  info->lanes = plan.kernels->lanes;
  info->tasks = static_cast<uint32_t>(tasks);
  info->streaming = job.nontemporal;
  // What the tasks did: rows the kernel declined were staged.
  const Strategy done = job.staged_rows.load(std::memory_order_relaxed) ? Strategy::kStagedRows
                                                                         : job.strategy;
  info->strategy = StrategyName(done, !job.staged_tile.load(std::memory_order_relaxed));
}

}  // namespace detail
}  // namespace randtensor
