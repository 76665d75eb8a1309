// The tiled writer (see writer.h).

#include "src/writer.h"

#include <algorithm>
#include <atomic>

#include <unistd.h>

#include "src/thread_pool.h"

namespace randtensor {
namespace detail {
namespace {

// Below this many elements per task, threads cost more than they save.
constexpr uint64_t kMinTaskElements = uint64_t{1} << 16;  // 256 KiB of UINT32

struct Job {
  const Layout* layout;
  uint32_t* origin;
  const KernelTable* kernels;
  Stream stream;
  uint64_t offset;      // FillOptions::element_offset
  uint64_t tile;        // elements per tile, a multiple of 4
  uint64_t lead;        // offset % 4: tile k starts at k * tile - lead (clamped)
  bool streaming;
  std::atomic<int64_t> target_ran{0};
};

// Elements [begin, end) of the tensor, walked row by row.
void WriteRange(Job& job, uint64_t begin, uint64_t end) {
  const Layout& L = *job.layout;
  const int inner = L.rank - 1;
  const int64_t row_size = L.sizes[inner];
  const int64_t row_stride = L.strides[inner];

  // Multi-index and offset of `begin` (divisions only once per task).
  int64_t idx[kMaxRank];
  int64_t pos = 0;
  uint64_t rest = begin;
  for (int d = inner; d >= 0; --d) {
    idx[d] = static_cast<int64_t>(rest % static_cast<uint64_t>(L.sizes[d]));
    rest /= static_cast<uint64_t>(L.sizes[d]);
    pos += idx[d] * L.strides[d];
  }

  int64_t ran = 0;
  for (uint64_t e = begin; e < end;) {
    const int64_t col = idx[inner];
    const uint64_t len = std::min<uint64_t>(static_cast<uint64_t>(row_size - col), end - e);
    uint32_t* dst = job.origin + pos;
    if (row_stride == 1) {
      ran = job.kernels->fill_contiguous(job.stream, job.offset + e, len, dst, job.streaming);
    } else {
      ran = job.kernels->fill_strided(job.stream, job.offset + e, len, dst, row_stride);
    }
    e += len;
    if (e == end) break;
    // Next row: back to column 0, then odometer carry through outer dims.
    pos -= col * row_stride;
    idx[inner] = 0;
    for (int d = inner - 1; d >= 0; --d) {
      pos += L.strides[d];
      if (++idx[d] < L.sizes[d]) break;
      pos -= L.sizes[d] * L.strides[d];
      idx[d] = 0;
    }
  }
  job.target_ran.store(ran, std::memory_order_relaxed);
}

// Streaming stores skip the caches: right for outputs larger than the last
// level cache (the data would be evicted before use anyway, and regular
// stores first read every line), wrong for outputs the consumer reads soon.
uint64_t StreamingThresholdBytes() {
  static const uint64_t bytes = [] {
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return l3 > 0 ? static_cast<uint64_t>(l3) : uint64_t{32} << 20;
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

void RunTile(void* context, uint32_t index) {
  Job& job = *static_cast<Job*>(context);
  const uint64_t n = job.layout->count;
  const uint64_t start = uint64_t{index} * job.tile;
  const uint64_t begin = start < job.lead ? 0 : std::min(n, start - job.lead);
  const uint64_t end = std::min(n, start + job.tile - job.lead);
  WriteRange(job, begin, end);
  if (job.streaming) StreamFence();
}

}  // namespace

void WriteTensor(const Layout& layout, uint32_t* origin, const KernelTable& kernels,
                 const PhiloxState& state, const FillOptions& options, FillInfo* info) noexcept {
  const uint64_t n = layout.count;
  const uint32_t threads = options.threads != 0 ? options.threads : DefaultThreadCount();
  const uint64_t lead = options.element_offset % 4;

  uint64_t tile = options.tile_elements;
  if (tile == 0) {
    // One tile per thread, but never tiles so small that threads cost more.
    const uint64_t by_threads = (n + lead + threads - 1) / threads;
    tile = std::max(by_threads, kMinTaskElements);
  }
  // A multiple of 4 (whole Philox blocks), and few enough tiles to count in 32 bits.
  tile = std::max(tile, (n + lead) / UINT32_MAX + 1);
  tile = (tile + 3) / 4 * 4;
  const uint64_t tiles = (n + lead + tile - 1) / tile;

  Job job{&layout, origin, &kernels, Stream{state.counter(), RoundKeys(state.key())},
          options.element_offset, tile, lead, ResolveStreaming(options.stores, n)};
  RunTasks(options.parallel_for, static_cast<uint32_t>(std::min<uint64_t>(tiles, UINT32_MAX)),
           threads, RunTile, &job);
  if (info != nullptr) {
    info->tasks = static_cast<uint32_t>(tiles);
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
