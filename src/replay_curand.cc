// cuRAND's host generator replayed (randtensor/replay.h,
// tests/reference/curand_host/ORDERING.md). Outputs come in rounds of
// 65,536 subsequences (GPU threads), each taking one Philox block per round
// (two for the double functions): a chunk of consecutive threads of one
// round is a contiguous run of outputs, so the thread-lane ThreadBlocks
// kernel makes their words in output order and the kind's own conversion
// (the stream-order one, with cuRAND's parameters) turns them into values.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "randtensor/fill.h"
#include "randtensor/replay.h"
#include "src/dispatch.h"
#include "src/kernels.h"
#include "src/thread_pool.h"

namespace randtensor {
namespace {

using detail::GenerateKind;
using detail::KindParams;
using detail::KernelArgs;

constexpr uint64_t kThreads = 65536;       // subsequences of cuRAND's host kernel (measured)
constexpr uint64_t kTaskThreads = 16384;   // threads per task: 64 Ki outputs
constexpr uint64_t kChunk = 512;           // threads per L1 chunk

struct Task {
  uint64_t round, t_begin, t_end;
};

struct CurandJob {
  const detail::KernelTable* kernels;
  GenerateKind kind;
  KindParams params;
  PhiloxKey key;
  uint64_t p, n, skew, words;  // position, count, skew, words per output (1 or 2)
  uint64_t r0, tp;             // round and thread of position P's block
  int size;                    // bytes per output
  char* out;
  std::vector<Task> tasks;
};

// Philox blocks `start` of threads [t0, t0 + m) (counter start + t * 2^64).
void Blocks(const CurandJob& j, uint64_t start, uint64_t t0, uint64_t m, uint32_t* words) {
  const KernelArgs s{Counter128{}.Plus(start), detail::RoundKeys(j.key), {}};
  j.kernels->thread_blocks(s, t0, m, words);
}

// The words of threads [t0, t0 + m) of round r, in output order.
void RoundWords(const CurandJob& j, uint64_t r, uint64_t t0, uint64_t m, uint32_t* words) {
  if (j.words == 1) return Blocks(j, j.skew + r, t0, m, words);
  // Two blocks per thread and round from base = S + r_first + 2 (r - r_first),
  // r_first one round later for the threads before P's (they started after it).
  alignas(64) uint32_t second[4 * kChunk];
  uint64_t done = 0;
  while (done < m) {
    const uint64_t t = t0 + done;
    const bool late = t < j.tp;
    const uint64_t run = late ? (j.tp - t < m - done ? j.tp - t : m - done) : m - done;
    const uint64_t r_first = j.r0 + (late ? 1 : 0);
    const uint64_t base = j.skew + r_first + 2 * (r - r_first);
    uint32_t* w = words + 8 * done;
    Blocks(j, base, t, run, w);            // first blocks, packed at the front
    Blocks(j, base + 1, t, run, second);
    for (uint64_t i = run; i-- > 0;) {     // spread to 8 words a thread, from the back
      std::memmove(w + 8 * i, w + 4 * i, 16);
      std::memcpy(w + 8 * i + 4, second + 4 * i, 16);
    }
    done += run;
  }
}

void RunCurandTask(void* context, uint32_t index) {
  const CurandJob& j = *static_cast<const CurandJob*>(context);
  const Task& task = j.tasks[index];
  alignas(64) uint32_t words[8 * kChunk];
  alignas(64) uint64_t stage[4 * kChunk];  // 4 outputs a thread, at most 8 bytes each
  for (uint64_t t0 = task.t_begin; t0 < task.t_end; t0 += kChunk) {
    const uint64_t m = task.t_end - t0 < kChunk ? task.t_end - t0 : kChunk;
    RoundWords(j, task.round, t0, m, words);
    j.kernels->Generate(j.kind).convert(j.params, words, 4 * m, stage);
    // Outputs 4q .. 4q + 4m of the stream of positions, q the first thread's block.
    const uint64_t first = 4 * (task.round * kThreads + t0);
    const uint64_t lo = j.p > first ? j.p - first : 0;
    const uint64_t end = j.p + j.n - first < 4 * m ? j.p + j.n - first : 4 * m;
    std::memcpy(j.out + (first + lo - j.p) * j.size,
                reinterpret_cast<const char*>(stage) + lo * j.size, (end - lo) * j.size);
  }
}

Status Resolve(CurandHostFunction f, double mean, double stddev, CurandJob* j) {
  KindParams& p = j->params;
  const bool normal = f == CurandHostFunction::kNormal || f == CurandHostFunction::kNormalDouble;
  if (normal && !(std::isfinite(mean) && std::isfinite(stddev) && stddev >= 0)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "mean = %g and stddev = %g: normals need a finite mean and a finite "
                         "stddev >= 0",
                         mean, stddev);
  }
  switch (f) {
    case CurandHostFunction::kGenerate:
      j->kind = GenerateKind::kBitsUint32, j->words = 1, j->size = 4;
      return Status();
    case CurandHostFunction::kUniform:
      // u32 itself: range 1 from 0, and no word flips (flip_count 0), so
      // 1.0 stays 1.0 (cuRAND's (0, 1]; PyTorch's flip is not cuRAND's).
      j->kind = GenerateKind::kUniformFloat32, j->words = 1, j->size = 4;
      {
        detail::UniformParams& u = p.emplace<detail::UniformParams>();
        u.low_f = 0, u.range_f = 1, u.flip_count = 0;
      }
      return Status();
    case CurandHostFunction::kUniformDouble:
      j->kind = GenerateKind::kUniformFloat64, j->words = 2, j->size = 8;
      {
        detail::UniformParams& u = p.emplace<detail::UniformParams>();
        u.low_d = 0, u.range_d = 1, u.high_d = 2;
      }
      return Status();
    case CurandHostFunction::kNormal:
      j->kind = GenerateKind::kNormalFloat32, j->words = 1, j->size = 4;
      {
        detail::NormalParams& n = p.emplace<detail::NormalParams>();
        n.mean_f = static_cast<float>(mean), n.std_f = static_cast<float>(stddev);
        if (!std::isfinite(n.mean_f) || !std::isfinite(n.std_f)) {
          return Status::Error(StatusCode::kInvalidArgument,
                               "mean = %g and stddev = %g overflow float", mean, stddev);
        }
      }
      return Status();
    case CurandHostFunction::kNormalDouble:
      j->kind = GenerateKind::kNormalFloat64, j->words = 2, j->size = 8;
      {
        detail::NormalParams& n = p.emplace<detail::NormalParams>();
        n.mean_d = mean, n.std_d = stddev;
      }
      return Status();
  }
  return Status::Error(StatusCode::kInvalidArgument, "function = %d is not a CurandHostFunction",
                       static_cast<int>(f));
}

}  // namespace

Status CurandHostGenerate(CurandHostGenerator* generator, CurandHostFunction function, void* out,
                          uint64_t count, double mean, double stddev, uint32_t threads) noexcept {
  if (generator == nullptr) return Status::Error(StatusCode::kInvalidArgument, "generator is null");
  CurandJob j;
  Status status = Resolve(function, mean, stddev, &j);
  if (!status.ok()) return status;
  if (count != 0 && out == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "out is null for %llu outputs",
                         static_cast<unsigned long long>(count));
  }
  if (reinterpret_cast<uintptr_t>(out) % static_cast<uintptr_t>(j.size) != 0) {
    return Status::Error(StatusCode::kMisaligned, "out = %p is not aligned to %d bytes", out,
                         j.size);
  }
  const uint64_t p = generator->offset;
  if (count > (uint64_t{1} << 40) || p > UINT64_MAX - count - 4) {
    return Status::Error(StatusCode::kOverflow,
                         "offset = %llu and count = %llu: more than 2^40 outputs or a position "
                         "past 2^64",
                         static_cast<unsigned long long>(p), static_cast<unsigned long long>(count));
  }
  status = detail::ActiveKernels(&j.kernels);
  if (!status.ok()) return status;
  j.key = PhiloxKey{{static_cast<uint32_t>(generator->seed),
                     static_cast<uint32_t>(generator->seed >> 32)}};
  j.p = p, j.n = count, j.skew = generator->skew;
  j.r0 = p / 4 / kThreads, j.tp = (p / 4) % kThreads;
  j.out = static_cast<char*>(out);
  if (count != 0) {
    const uint64_t q0 = p / 4, q1 = (p + count - 1) / 4;  // blocks' positions, inclusive
    try {
      for (uint64_t r = q0 / kThreads; r <= q1 / kThreads; ++r) {
        const uint64_t begin = r == q0 / kThreads ? q0 % kThreads : 0;
        const uint64_t end = r == q1 / kThreads ? q1 % kThreads + 1 : kThreads;
        for (uint64_t t = begin; t < end; t += kTaskThreads) {
          j.tasks.push_back(Task{r, t, end - t < kTaskThreads ? end : t + kTaskThreads});
        }
      }
    } catch (...) {
      return Status::Error(StatusCode::kOverflow, "count = %llu: no memory for the task list",
                           static_cast<unsigned long long>(count));
    }
    detail::RunTasks(ParallelFor{}, static_cast<uint32_t>(j.tasks.size()),
                     threads != 0 ? threads : DefaultThreads(), RunCurandTask, &j);
  }
  generator->skew += (j.words - 1) * ((p + count) / 4 / kThreads - p / 4 / kThreads);
  generator->offset = p + count;
  return Status();
}

}  // namespace randtensor
