// GPU element orders (replay.h): presets, PyTorch's generator state, and the
// execution of a planned replay. The per-target parts are the kernels
// ThreadBlocks and ReplayRows (replay-inl.h); this file cuts the work into
// tasks and places elements, like writer.cc does for stream order.

#include "randtensor/replay.h"

#include <cstdint>
#include <cstring>
#include <strings.h>

#include "src/kernels.h"
#include "src/plan.h"
#include "src/replay.h"
#include "src/thread_pool.h"

namespace randtensor {

namespace {

// Launch limits as PyTorch reads them (cudaDeviceProp). Only h100-sxm was
// measured here (tests/reference/torch_cuda/recorded); the others are the
// vendors' published SM counts and per-SM thread limits of their compute
// capability (2048 on sm_70/80/90, 1536 on sm_86/89, 1024 on sm_75).
constexpr GpuPreset kPresets[] = {
    {"h100-sxm", {132, 2048}}, {"h100-pcie", {114, 2048}}, {"h200", {132, 2048}},
    {"a100", {108, 2048}},     {"v100", {80, 2048}},       {"a10", {72, 1536}},
    {"a10g", {80, 1536}},      {"l4", {58, 1536}},         {"l40s", {142, 1536}},
    {"rtx-3090", {82, 1536}},  {"rtx-4090", {128, 1536}},  {"t4", {40, 1024}},
};

constexpr uint64_t kBlockThreads = 256;  // PyTorch's block_size_bound

}  // namespace

const GpuPreset* GpuPresets(int* count) noexcept {
  if (count != nullptr) *count = static_cast<int>(sizeof(kPresets) / sizeof(kPresets[0]));
  return kPresets;
}

const GpuPreset* FindGpuPreset(const char* name) noexcept {
  if (name == nullptr) return nullptr;
  for (const GpuPreset& p : kPresets) {
    if (strcasecmp(p.name, name) == 0) return &p;
  }
  return nullptr;
}

Status TorchCudaState(uint64_t seed, uint64_t offset, PhiloxState* state) noexcept {
  if (state == nullptr) return Status::Error(StatusCode::kInvalidArgument, "state is null");
  if (offset % 4 != 0) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "offset = %llu is not a multiple of 4 (PyTorch's CUDA generator keeps "
                         "offsets at multiples of 4)",
                         static_cast<unsigned long long>(offset));
  }
  const uint64_t c = offset / 4;
  *state = PhiloxState{{static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32), 0, 0,
                        static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)}};
  return Status();
}

Status TorchCudaOffset(const PhiloxState& state, uint64_t* offset) noexcept {
  if (offset == nullptr) return Status::Error(StatusCode::kInvalidArgument, "offset is null");
  if (state.words[2] != 0 || state.words[3] != 0 || state.words[1] >= (1u << 30)) {
    return Status::Error(StatusCode::kOverflow,
                         "state counter (%u, %u, %u, %u) is no PyTorch offset: words 2-3 must be "
                         "0 and offset / 4 below 2^62",
                         state.words[0], state.words[1], state.words[2], state.words[3]);
  }
  *offset = 4 * (uint64_t{state.words[0]} | uint64_t{state.words[1]} << 32);
  return Status();
}

Status TorchCudaThreads(uint64_t count, const GpuGeometry& gpu, uint64_t* threads) noexcept {
  if (threads == nullptr) return Status::Error(StatusCode::kInvalidArgument, "threads is null");
  const bool unlimited = gpu.sm_count == 0 && gpu.threads_per_sm == 0;
  if (!unlimited && (gpu.sm_count <= 0 || gpu.threads_per_sm < static_cast<int32_t>(kBlockThreads))) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "gpu.sm_count = %d and gpu.threads_per_sm = %d: need both zero (no "
                         "limit) or sm_count >= 1 and threads_per_sm >= 256",
                         gpu.sm_count, gpu.threads_per_sm);
  }
  uint64_t blocks = count / kBlockThreads + (count % kBlockThreads != 0);
  if (!unlimited) {
    const uint64_t most = static_cast<uint64_t>(gpu.sm_count) *
                          (static_cast<uint64_t>(gpu.threads_per_sm) / kBlockThreads);
    if (blocks > most) blocks = most;
  }
  *threads = blocks * kBlockThreads;
  return Status();
}

namespace detail {
namespace {

// One kernel launch of PyTorch's distribution_nullary_kernel: elements
// [first, first + count) of the tensor, on a grid of `threads` threads that
// each draw `calls` Philox blocks, starting `calls_before` blocks past the
// generator's offset.
struct Launch {
  uint64_t first, count, threads, calls, calls_before;
};

bool FitsIn31Bits(GenerateKind kind, uint64_t count) {
  return (count - 1) * static_cast<uint64_t>(ElementBytes(kind)) + 1 <= 0x7FFFFFFFu;
}

Launch LaunchOf(GenerateKind kind, const GpuGeometry& gpu, uint64_t first, uint64_t count) {
  Launch launch{first, count, 0, 0, 0};
  // PlanReplay checked the geometry: this cannot fail.
  (void)TorchCudaThreads(count, gpu, &launch.threads);
  const uint64_t per_call = launch.threads * (4 / static_cast<uint64_t>(WordsPerElement(kind)));
  launch.calls = (count - 1) / per_call + 1;
  return launch;
}

// The launches of elements [first, first + count), in order (see below).
template <typename F>
void ForEachPart(GenerateKind kind, const GpuGeometry& gpu, uint64_t first, uint64_t count,
                 uint64_t* calls_before, F& f) {
  if (!FitsIn31Bits(kind, count)) {
    const uint64_t half = count / 2;
    ForEachPart(kind, gpu, first, half, calls_before, f);
    ForEachPart(kind, gpu, first + half, count - half, calls_before, f);
    return;
  }
  Launch launch = LaunchOf(kind, gpu, first, count);
  launch.calls_before = *calls_before;
  *calls_before += launch.calls;
  f(launch);
}

// PyTorch launches a tensor whose byte offsets need more than 31 bits as
// parts that fit (TensorIterator::with_32bit_indexing: split in half, the
// first half before the second, each split again until it fits), one launch
// each, each starting at the generator offset the previous one left. Before
// it splits, it has already taken the offset of the whole tensor as one
// launch, which draws nothing: the first part starts that far in (as the
// recorded offsets of record_split_launches.py show).
template <typename F>
void ForEachLaunch(GenerateKind kind, const GpuGeometry& gpu, uint64_t count, F&& f) {
  if (count == 0) return;
  uint64_t calls_before = FitsIn31Bits(kind, count) ? 0 : LaunchOf(kind, gpu, 0, count).calls;
  ForEachPart(kind, gpu, 0, count, &calls_before, f);
}

}  // namespace

Status PlanReplay(const Layout& layout, GenerateKind kind, const FillOptions& options,
                  Plan* plan) noexcept {
  plan->order = options.order;
  if (options.order == ElementOrder::kStream) return Status();
  if (options.order != ElementOrder::kTorchCuda) {
    return Status::Error(StatusCode::kInvalidArgument, "order = %d is not an ElementOrder",
                         static_cast<int>(options.order));
  }
  if (options.element_offset != 0) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "element_offset = %llu: order torch_cuda starts at the generator's "
                         "offset (the state), element_offset must be 0",
                         static_cast<unsigned long long>(options.element_offset));
  }
  if (options.region != nullptr) {
    return Status::Error(StatusCode::kUnsupported,
                         "region: order torch_cuda replays whole tensors only");
  }
  const uint64_t n = layout.count;
  if (n > 1 && !(layout.rank == 1 && layout.strides[0] == 1 && layout.stream_contiguous)) {
    return Status::Error(StatusCode::kUnsupported,
                         "strides: order torch_cuda replays packed row-major tensors only "
                         "(PyTorch's CUDA order of other layouts is not modelled)");
  }
  uint64_t g = 0;
  Status status = TorchCudaThreads(n, options.gpu, &g);  // checks the geometry
  if (!status.ok()) return status;
  plan->gpu = options.gpu;
  plan->grid_threads = g;
  plan->calls = 0;
  ForEachLaunch(kind, options.gpu, n, [&](const Launch& launch) {
    plan->calls = launch.calls_before + launch.calls;
  });
  return Status();
}

namespace {

constexpr uint64_t kMinTaskThreads = 65536;  // threads per task at least (a multiple of 256)
constexpr uint64_t kBlockChunk = 512;    // threads per L1 chunk of the blocks path

struct ReplayJob {
  const Plan* plan;
  // The distribution's constants, copied before any task runs: the plan's
  // point into the calling thread's cache, which a host pool's hook may
  // replace by filling something else on that thread first.
  KindParams params;
  PhiloxState state;  // the launch's
  char* origin;       // the launch's first element
  uint64_t n, g, u, task_threads, tasks_per_call;
  bool nontemporal;
};

// Element k of stage (thread-major, u per thread) for the threads in
// [0, counts[j]) of row j goes to row j of dst (rows `stride` apart).
template <typename T>
void PlaceRows(const void* stage, uint64_t u, const uint64_t* counts, void* dst,
               uint64_t stride) {
  const T* from = static_cast<const T*>(stage);
  T* to = static_cast<T*>(dst);
  for (uint64_t j = 0; j < u; ++j) {
    for (uint64_t i = 0; i < counts[j]; ++i) to[j * stride + i] = from[i * u + j];
  }
}

void PlaceRowsOfSize(int size, const void* stage, uint64_t u, const uint64_t* counts, void* dst,
                     uint64_t stride) {
  switch (size) {
    case 1: return PlaceRows<uint8_t>(stage, u, counts, dst, stride);
    case 2: return PlaceRows<uint16_t>(stage, u, counts, dst, stride);
    case 4: return PlaceRows<uint32_t>(stage, u, counts, dst, stride);
    default: return PlaceRows<uint64_t>(stage, u, counts, dst, stride);
  }
}

void RunReplayTask(void* context, uint32_t index) {
  const ReplayJob& job = *static_cast<const ReplayJob*>(context);
  const Plan& plan = *job.plan;
  const uint64_t call = index / job.tasks_per_call;
  const uint64_t t0 = (index % job.tasks_per_call) * job.task_threads;
  const uint64_t threads = job.g - t0 < job.task_threads ? job.g - t0 : job.task_threads;
  KernelArgs s{job.state.counter().Plus(call), RoundKeys(job.state.key()), job.params};
  // Valid threads of each row of this call: element (call u + j) g + t < n.
  uint64_t counts[4] = {0, 0, 0, 0};
  for (uint64_t j = 0; j < job.u; ++j) {
    const uint64_t row = (call * job.u + j) * job.g + t0;  // its first element here
    counts[j] = row >= job.n ? 0 : job.n - row < threads ? job.n - row : threads;
  }
  const int size = ElementBytes(plan.kind);
  char* dst = job.origin + (call * job.u * job.g + t0) * static_cast<uint64_t>(size);
  const GenerateKernels& k = plan.kernels->Generate(plan.kind);
  if (k.replay_rows != nullptr) {
    k.replay_rows(s, t0, counts, dst, job.g, job.nontemporal);
  } else {
    alignas(64) uint32_t words[4 * kBlockChunk];
    alignas(64) uint64_t stage[4 * kBlockChunk];  // u elements per thread, at most 8 bytes each
    for (uint64_t sub = 0; sub < counts[0]; sub += kBlockChunk) {
      const uint64_t m = counts[0] - sub < kBlockChunk ? counts[0] - sub : kBlockChunk;
      plan.kernels->thread_blocks(s, t0 + sub, m, words);
      k.convert(job.params, words, m * job.u, stage);
      uint64_t part[4];
      for (uint64_t j = 0; j < job.u; ++j) {
        part[j] = counts[j] <= sub ? 0 : counts[j] - sub < m ? counts[j] - sub : m;
      }
      PlaceRowsOfSize(size, stage, job.u, part, dst + sub * static_cast<uint64_t>(size), job.g);
    }
  }
  if (job.nontemporal) NonTemporalFence();
}

}  // namespace

void ReplayTensor(const Plan& plan, const PhiloxState& state, FillInfo* info) noexcept {
  ReplayJob job;
  job.plan = &plan;
  job.params = *plan.params;
  job.u = 4 / static_cast<uint64_t>(WordsPerElement(plan.kind));
  const int size = ElementBytes(plan.kind);
  const bool rows = plan.kernels->Generate(plan.kind).replay_rows != nullptr;
  uint64_t tasks = 0;
  bool nontemporal = false;
  ForEachLaunch(plan.kind, plan.gpu, plan.layout->count, [&](const Launch& launch) {
    job.state = philox::AdvanceBlocks(state, launch.calls_before);
    job.origin = plan.origin + launch.first * static_cast<uint64_t>(size);
    job.n = launch.count;
    job.g = launch.threads;
    // Tasks own whole 256-thread blocks of one call: one per thread of the
    // fill, but at least kMinTaskThreads, 4x the Philox blocks of the stream
    // writer's smallest task: a replay of up to 64 Ki elements (one block
    // each) runs inline like a stream fill of that size, where waking the
    // pool would cost more than the work. task_elements: tests prove that
    // the cut never changes values.
    uint64_t per_task = plan.task_elements / job.u;
    if (plan.task_elements == 0) {
      per_task = (job.g + plan.threads - 1) / plan.threads;
      if (per_task < kMinTaskThreads) per_task = kMinTaskThreads;
    }
    per_task = (per_task + 255) / 256 * 256;
    if (per_task == 0) per_task = 256;
    job.task_threads = per_task < job.g ? per_task : job.g;
    job.tasks_per_call = (job.g - 1) / job.task_threads + 1;
    // Rows of a call are g elements apart, g a multiple of 256: with the
    // origin on a vector boundary, every whole vector store is aligned.
    job.nontemporal = rows && plan.nontemporal && reinterpret_cast<uintptr_t>(job.origin) % 64 == 0;
    nontemporal = nontemporal || job.nontemporal;
    const uint64_t launch_tasks = launch.calls * job.tasks_per_call;
    tasks += launch_tasks;
    RunTasks(plan.parallel_for, static_cast<uint32_t>(launch_tasks), plan.threads, RunReplayTask,
             &job);
  });
  info->target = plan.kernels->name;
  info->lanes = plan.kernels->lanes;
  info->tasks = static_cast<uint32_t>(tasks);
  info->streaming = nontemporal;
  info->strategy = rows ? "torch_cuda rows" : "torch_cuda blocks";
}

}  // namespace detail
}  // namespace randtensor
