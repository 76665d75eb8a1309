// Layouts, threads and tiles never change values: the same logical tensor
// through packed, padded, permuted, column-major and reversed layouts; every
// thread count and tile size; custom parallel-for hooks; streaming stores at
// misaligned addresses; rows that start and end inside a Philox block; the
// buffer-size rule; size-1 dimensions with any stride.

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "randtensor/fill.h"
#include "randtensor/parallel.h"
#include "test_util.h"

namespace layout_test {
namespace {

using randtensor::PhiloxState;
using rt_test::FillCase;
using rt_test::Shape;
using rt_test::StoreMode;

const PhiloxState kState{{0xfffffff3, 0x01234567, 0x89abcdef, 0xfedcba98, 0x600df00d, 0xc0ffee}};

FillCase MakeCase(const Shape& shape, uint64_t offset) {
  FillCase c;
  c.shape = shape;
  c.state = kState;
  c.element_offset = offset;
  return c;
}

// The stream's logical values for `shape`, straight from the oracle.
std::vector<uint32_t> OracleLogical(const Shape& shape, const PhiloxState& state,
                                    uint64_t offset) {
  std::vector<uint32_t> out(rt_test::ElementCount(shape.sizes));
  for (uint64_t e = 0; e < out.size(); ++e) out[e] = rt_test::OracleValue(state, offset + e);
  return out;
}

// The layouts one logical tensor can take.
std::vector<Shape> LayoutsOf(const std::vector<int64_t>& sizes) {
  const size_t r = sizes.size();
  std::vector<int> channels_last = rt_test::IdentityOrder(r);  // NCHW -> NHWC
  if (r >= 3) std::rotate(channels_last.begin() + 1, channels_last.begin() + 2, channels_last.end());
  const std::vector<int64_t> pads(r, 3);
  const uint32_t all = (1u << r) - 1;
  return {
      Shape{sizes, {}},
      Shape{sizes, rt_test::PackedStrides(sizes)},
      Shape{sizes, rt_test::StoredStrides(sizes, rt_test::IdentityOrder(r), 1, pads)},
      Shape{sizes, rt_test::StoredStrides(sizes, channels_last, 1, {})},
      Shape{sizes, rt_test::StoredStrides(sizes, rt_test::ReversedOrder(r), 1, {})},
      Shape{sizes, rt_test::FlipSigns(rt_test::PackedStrides(sizes), all)},
      Shape{sizes, rt_test::FlipSigns(rt_test::StoredStrides(sizes, channels_last, 2, pads), 5)},
  };
}

TEST(Layouts, SameLogicalTensorThroughEveryLayout) {
  const std::vector<std::vector<int64_t>> tensors = {
      {2, 3, 5, 7}, {3, 4, 17}, {1, 6, 1, 9}, {4, 4, 4, 4, 2}, {257}, {9, 2, 3, 2, 3, 2, 1, 2}};
  for (const std::vector<int64_t>& sizes : tensors) {
    for (uint64_t offset : {0, 3}) {
      const std::vector<uint32_t> want = OracleLogical(Shape{sizes, {}}, kState, offset);
      for (const Shape& shape : LayoutsOf(sizes)) {
        const FillCase c = MakeCase(shape, offset);
        rt_test::FillResult r;
        EXPECT_TRUE(rt_test::CheckFill(c, &r));
        EXPECT_EQ(rt_test::ReadLogical(r, shape), want) << c.Describe();
      }
    }
  }
}

// Thread counts 1-8 and tile sizes that split Philox blocks (rounded up to 4),
// with offsets that start tiles mid-block: all give the oracle's bytes.
TEST(Layouts, ThreadsAndTilesNeverChangeBytes) {
  const Shape padded{{5, 37, 41}, {37 * 43 + 1, 43, 1}};
  const uint64_t tiles[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 31, 64, 100, 1000, 4096};
  for (uint64_t offset : {0, 1, 3, 5}) {
    rt_test::FillResult first;
    ASSERT_TRUE(rt_test::CheckFill(MakeCase(padded, offset), &first));
    for (uint32_t threads = 0; threads <= 8; ++threads) {  // 0: the library's default
      for (uint64_t tile : tiles) {
        FillCase c = MakeCase(padded, offset);
        c.threads = threads;
        c.task_elements = tile;
        rt_test::FillResult r;
        ASSERT_TRUE(rt_test::CheckFill(c, &r));
        // Both already matched the oracle byte for byte (padding and guards
        // included); buffers from different allocations may sit at different
        // offsets, so compare what the layout holds.
        ASSERT_EQ(rt_test::ReadLogical(r, padded), rt_test::ReadLogical(first, padded))
            << c.Describe();
      }
    }
  }
}

// task_elements is rounded up to whole blocks: the task count says so.
TEST(Layouts, TaskElementsRoundUpToWholeBlocks) {
  for (uint64_t tile : {1, 2, 3, 4, 5, 8, 9}) {
    FillCase c = MakeCase(Shape{{40}, {}}, 0);
    c.threads = 2;
    c.task_elements = tile;
    rt_test::FillResult r;
    ASSERT_TRUE(rt_test::CheckFill(c, &r));
    const uint64_t rounded = (tile + 3) / 4 * 4;
    EXPECT_EQ(r.info.tasks, (40 + rounded - 1) / rounded) << "tile " << tile;
  }
}

// A huge tile means one task: never a crash, never a skipped element.
TEST(Layouts, HugeTaskElementsMeanOneTask) {
  const uint64_t huge[] = {uint64_t{1} << 62, UINT64_MAX - 8, UINT64_MAX - 3, UINT64_MAX};
  for (uint64_t tile : huge) {
    FillCase c = MakeCase(Shape{{3, 33}, {}}, 1);
    c.threads = 2;
    c.task_elements = tile;
    // Run in a child process: a library that divides by a wrapped tile of 0
    // must fail this test, not abort the whole binary.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(std::exit(rt_test::CheckFill(c) ? 0 : 1), ::testing::ExitedWithCode(0), "")
        << c.Describe();
  }
}

// FillOptions::stores decides the stores, and FillInfo says which were used.
TEST(Layouts, StoreModeIsHonouredAndReported) {
  for (StoreMode mode : {StoreMode::kRegular, StoreMode::kStreaming, StoreMode::kAuto}) {
    FillCase c = MakeCase(Shape{{1000}, {}}, 0);
    c.stores = mode;
    rt_test::FillResult r;
    EXPECT_TRUE(rt_test::CheckFill(c, &r));
    // kAuto streams only outputs larger than the caches: 4000 bytes are not.
    EXPECT_EQ(r.info.streaming, mode == StoreMode::kStreaming) << c.Describe();
  }
}

// kAuto on an output larger than the caches: the host's choice
// (src/store_choice.h), streaming on the first fill of a key, regular on the
// second; the same values either way. 37 threads: a key no other test uses
// (the choice is per process).
TEST(Layouts, AutoStoresTryBothModesOnLargeOutputs) {
  const int64_t n = int64_t{40} << 18;  // 40 MiB of uint32
  std::vector<uint32_t> out[2] = {std::vector<uint32_t>(n, 1), std::vector<uint32_t>(n, 2)};
  randtensor::TensorDesc desc;
  desc.dtype = randtensor::DataType::kUint32;
  desc.rank = 1;
  desc.sizes = &n;
  for (int i = 0; i < 2; ++i) {
    randtensor::FillInfo info;
    randtensor::FillOptions options;
    options.threads = 37;
    options.info = &info;
    const randtensor::Status status =
        randtensor::Fill(desc, out[i].data(), n * 4, kState, nullptr, options);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(info.streaming, i == 0) << "fill " << i;
  }
  EXPECT_TRUE(out[0] == out[1]);
  EXPECT_EQ(out[0][12345], rt_test::OracleValue(kState, 12345));
}

// ------------------------------------------------------------- ParallelFor hooks

struct HookLog {
  std::atomic<int> calls{0};
  std::mutex mutex;
  std::vector<uint32_t> indices;  // every index a task ran with
  uint32_t last_count = 0;

  void Record(uint32_t i) {
    std::lock_guard<std::mutex> lock(mutex);
    indices.push_back(i);
  }
};

struct HookContext {
  HookLog* log;
  randtensor::TaskFn task;
  void* task_context;
};

void RunRecorded(const HookContext& h, uint32_t i) {
  h.log->Record(i);
  h.task(h.task_context, i);
}

void ReverseOrderHook(void* pool, uint32_t count, uint32_t, randtensor::TaskFn task,
                      void* task_context) {
  HookLog* log = static_cast<HookLog*>(pool);
  ++log->calls;
  log->last_count = count;
  const HookContext h{log, task, task_context};
  for (uint32_t i = count; i-- > 0;) RunRecorded(h, i);
}

void StdThreadHook(void* pool, uint32_t count, uint32_t max_threads, randtensor::TaskFn task,
                   void* task_context) {
  HookLog* log = static_cast<HookLog*>(pool);
  ++log->calls;
  log->last_count = count;
  const HookContext h{log, task, task_context};
  const uint32_t n = std::max(1u, std::min(max_threads, 4u));
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < n; ++t) {
    threads.emplace_back([&h, t, n, count] {
      for (uint32_t i = t; i < count; i += n) RunRecorded(h, i);
    });
  }
  for (std::thread& th : threads) th.join();
}

void CheckHook(randtensor::ParallelForFn fn) {
  for (const Shape& shape : LayoutsOf({3, 7, 61})) {
    HookLog log;
    FillCase c = MakeCase(shape, 3);
    c.threads = 4;
    c.task_elements = 64;
    c.parallel_for = randtensor::ParallelFor{fn, &log};
    rt_test::FillResult r;
    EXPECT_TRUE(rt_test::CheckFill(c, &r));
    EXPECT_EQ(log.calls.load(), 1) << "the hook must be used: " << c.Describe();
    // Every task index exactly once, as many as the fill reports.
    std::sort(log.indices.begin(), log.indices.end());
    std::vector<uint32_t> each(log.last_count);
    for (uint32_t i = 0; i < log.last_count; ++i) each[i] = i;
    EXPECT_EQ(log.indices, each);
    EXPECT_EQ(r.info.tasks, log.last_count);
    EXPECT_GT(log.last_count, 1u);
  }
}

TEST(Layouts, ParallelForHookInReverseOrder) { CheckHook(ReverseOrderHook); }
TEST(Layouts, ParallelForHookOnStdThreads) { CheckHook(StdThreadHook); }

// A hook installed process-wide (SetDefaultParallelFor) runs fills that name
// none; one named in FillOptions still wins; an empty one restores the pool.
TEST(Layouts, DefaultParallelForHook) {
  HookLog global, local;
  randtensor::SetDefaultParallelFor(randtensor::ParallelFor{ReverseOrderHook, &global});
  FillCase c = MakeCase(Shape{{3, 7, 61}, {}}, 1);
  c.threads = 4;
  c.task_elements = 64;
  EXPECT_TRUE(rt_test::CheckFill(c));
  EXPECT_EQ(global.calls.load(), 1);
  c.parallel_for = randtensor::ParallelFor{StdThreadHook, &local};
  EXPECT_TRUE(rt_test::CheckFill(c));
  EXPECT_EQ(global.calls.load(), 1);
  EXPECT_EQ(local.calls.load(), 1);
  randtensor::SetDefaultParallelFor(randtensor::ParallelFor());
  c.parallel_for = randtensor::ParallelFor();
  EXPECT_TRUE(rt_test::CheckFill(c));
  EXPECT_EQ(global.calls.load(), 1);
  EXPECT_EQ(randtensor::DefaultParallelFor().fn, nullptr);
}

// SetDefaultThreads caps fills that say threads = 0; 0 restores all hardware
// threads. Values never change with it.
TEST(Layouts, DefaultThreads) {
  const uint32_t hardware = randtensor::DefaultThreads();
  EXPECT_EQ(hardware, std::max(1u, std::thread::hardware_concurrency()));
  FillCase c = MakeCase(Shape{{3, 1 << 17}, {}}, 0);  // large enough to split
  c.threads = 0;
  for (uint32_t threads : {1u, 2u, 3u}) {
    randtensor::SetDefaultThreads(threads);
    EXPECT_EQ(randtensor::DefaultThreads(), threads);
    rt_test::FillResult r;
    EXPECT_TRUE(rt_test::CheckFill(c, &r));
    // 3 x 2^17 elements: kTasksPerThread (4) tasks per thread when threaded.
    EXPECT_EQ(r.info.tasks, threads == 1 ? 1u : 4 * threads) << "threads " << threads;
  }
  randtensor::SetDefaultThreads(0);
  EXPECT_EQ(randtensor::DefaultThreads(), hardware);
}

// ------------------------------------------------------------- alignment, rows

// Streaming stores at data pointers 4, 8, 12, 60 bytes past a 64-byte boundary
// (and aligned ones for contrast) leave every neighbouring byte alone.
TEST(Layouts, StreamingStoresOnMisalignedPointers) {
  rt_test::ForEachSupportedTarget([](const randtensor::TargetInfo&) {
    for (int64_t n : {1, 2, 3, 5, 15, 16, 17, 63, 64, 65, 257, 1029, 5003}) {
      const std::vector<Shape> shapes = {Shape{{n}, {}}, Shape{{3, n}, {n + 5, 1}},
                                         Shape{{n}, {-1}}, Shape{{n}, {3}}};
      for (const Shape& shape : shapes) {
        for (size_t misalign : {0, 4, 8, 12, 32, 60}) {
          for (uint64_t offset : {0, 1, 3}) {
            FillCase c = MakeCase(shape, offset);
            c.stores = StoreMode::kStreaming;
            c.misalign_bytes = misalign;
            c.extra_bytes = 64;  // declared but unmapped: still never written
            EXPECT_TRUE(rt_test::CheckFill(c));
          }
        }
      }
    }
  });
}

// Rows of 1-9 elements starting at every position within a block, in padded
// layouts so that rows stay separate (no merging into one long run).
TEST(Layouts, RowsThatStartAndEndMidBlock) {
  rt_test::ForEachSupportedTarget([](const randtensor::TargetInfo&) {
    for (int64_t inner = 1; inner <= 9; ++inner) {
      const std::vector<Shape> shapes = {
          Shape{{4, inner}, {inner + 2, 1}},
          Shape{{2, 3, inner}, {3 * (inner + 1) + 1, inner + 1, 1}},
          Shape{{5, inner}, {-(inner + 3), 1}},
          Shape{{3, inner}, {}}};
      for (const Shape& shape : shapes) {
        for (uint64_t offset = 0; offset < 4; ++offset) {
          for (uint32_t threads : {1, 3}) {
            FillCase c = MakeCase(shape, offset);
            c.threads = threads;
            c.task_elements = threads == 1 ? 0 : 4;
            EXPECT_TRUE(rt_test::CheckFill(c));
          }
        }
      }
    }
  });
}

// Layouts whose dimensions interleave (no stride exceeds the reach of the
// others, yet no two elements meet): the holes between elements stay untouched.
TEST(Layouts, InterleavedStrides) {
  const std::vector<Shape> shapes = {
      Shape{{3, 2}, {2, 3}},     // offsets 0 3 2 5 4 7
      Shape{{4, 3}, {3, 4}},     // 3i + 4j: distinct for i < 4, j < 3
      Shape{{4, 3}, {-3, 4}},
      Shape{{2, 5, 3}, {1, 3 * 5, 5}},
      Shape{{7, 5}, {5, 7}},
  };
  for (const Shape& shape : shapes) {
    for (uint64_t offset : {0, 2}) {
      FillCase c = MakeCase(shape, offset);
      c.threads = 2;
      c.task_elements = 4;
      EXPECT_TRUE(rt_test::CheckFill(c));
    }
  }
}

// Several host threads filling at once (the library's pool serves one job at
// a time; the others must still be right).
TEST(Layouts, ConcurrentFillsFromSeveralThreads) {
  constexpr int kThreads = 4, kFills = 25;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      for (int i = 0; i < kFills; ++i) {
        FillCase c = MakeCase(Shape{{7, 13, 129}, {13 * 131, 131, 1}}, static_cast<uint64_t>(i));
        c.state.words[4] += static_cast<uint32_t>(t);
        c.threads = 4;
        c.task_elements = 256;
        if (!rt_test::CheckFill(c)) ++failures[static_cast<size_t>(t)];
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures, std::vector<int>(kThreads, 0));
}

// ------------------------------------------------------------- buffer size

void ExpectMinBytes(const Shape& shape, uint64_t want) {
  uint64_t got = 0;
  const randtensor::Status status = randtensor::MinBufferBytes(rt_test::DescOf(shape), &got);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(got, want) << "sizes " << rt_test::VecString(shape.sizes) << " strides "
                       << rt_test::VecString(shape.strides);
}

TEST(Layouts, MinBufferBytesIsDirectMLsFormula) {
  // By hand.
  ExpectMinBytes(Shape{{2, 3}, {}}, 24);
  ExpectMinBytes(Shape{{2, 3}, {5, 1}}, (1 * 5 + 2 * 1 + 1) * 4);
  ExpectMinBytes(Shape{{2, 3}, {-5, -1}}, (1 * 5 + 2 * 1 + 1) * 4);
  ExpectMinBytes(Shape{{4}, {3}}, 40);
  ExpectMinBytes(Shape{{3, 3, 20, 7219}, {}}, 1299420u * 4);
  ExpectMinBytes(Shape{{3, 0, 5}, {}}, 0);
  ExpectMinBytes(Shape{}, 4);
  // Through the formula written in the test, on every layout family.
  for (const std::vector<int64_t>& sizes :
       std::vector<std::vector<int64_t>>{{2, 3, 5, 7}, {1, 6, 1, 9}, {17}, {4, 1, 4, 1, 4}}) {
    for (const Shape& shape : LayoutsOf(sizes)) ExpectMinBytes(shape, rt_test::DmlMinBytes(shape));
  }
}

// ------------------------------------------------------------- size-1 dimensions

TEST(Layouts, UnitDimensionsAcceptAnyStride) {
  const Shape plain{{5, 3}, {}};
  const std::vector<Shape> shapes = {
      Shape{{1, 5, 1, 3, 1}, {0, 3, INT64_MAX, 1, INT64_MIN}},
      Shape{{1, 5, 1, 3}, {int64_t{1} << 62, 3, -(int64_t{1} << 62), 1}},
      Shape{{5, 1, 3}, {3, 0, 1}},
      Shape{{5, 1, 3}, {3, -7, 1}},
      Shape{{1, 1, 5, 3}, {-1, 123456789, 3, 1}},
  };
  const std::vector<uint32_t> want = OracleLogical(plain, kState, 2);
  for (const Shape& shape : shapes) {
    const FillCase c = MakeCase(shape, 2);
    rt_test::FillResult r;
    EXPECT_TRUE(rt_test::CheckFill(c, &r));
    EXPECT_EQ(rt_test::ReadLogical(r, shape), want) << c.Describe();
    ExpectMinBytes(shape, 15 * 4);
  }
  // A single element whatever its strides say.
  for (int64_t stride : {int64_t{0}, INT64_MAX, INT64_MIN, int64_t{-1}}) {
    EXPECT_TRUE(rt_test::CheckFill(MakeCase(Shape{{1, 1}, {stride, stride}}, 7)));
  }
}

}  // namespace
}  // namespace layout_test

namespace layout_test {
namespace {

// Fills `count` elements of `type` with `d` as a rank-1 tensor (with `info`:
// the planned path; without: the direct one for small fills) or as [1, count].
std::vector<uint8_t> FillAs(randtensor::DataType type, const randtensor::Distribution& d,
                            int64_t count, int how, PhiloxState* next) {
  const int size = randtensor::ElementSize(type);
  std::vector<uint8_t> out(static_cast<size_t>(count * size) + 64, 0xA5);
  const int64_t sizes2[2] = {1, count};
  randtensor::TensorDesc desc;
  desc.dtype = type;
  desc.rank = how == 2 ? 2 : 1;
  desc.sizes = how == 2 ? sizes2 : &count;
  randtensor::FillInfo info;
  randtensor::FillOptions options;
  options.distribution = d;
  options.info = how == 1 ? &info : nullptr;
  const randtensor::Status status =
      randtensor::Fill(desc, out.data(), out.size(), kState, next, options);
  EXPECT_TRUE(status.ok()) << status.message();
  return out;
}

// A small packed 1-D fill runs its kernel directly, without a plan: the
// same bytes (and nothing past the tensor) and the same output state as the
// planned path of the same tensor, for every kind of element; the bits
// against the oracle. (distributions_test checks the direct path's values
// against the reference model: its "packed, no strides" layout.)
TEST(Layouts, SmallPackedFillsEqualThePlannedPath) {
  using randtensor::DataType;
  using randtensor::Distribution;
  const struct {
    DataType type;
    Distribution d;
  } kinds[] = {
      {DataType::kUint32, Distribution::Bits()},
      {DataType::kFloat32, Distribution::Uniform(-2, 3)},
      {DataType::kFloat64, Distribution::Uniform(-2, 3)},
      {DataType::kFloat16, Distribution::Uniform(0, 1)},
      {DataType::kBfloat16, Distribution::Uniform(0, 1)},
      {DataType::kFloat32, Distribution::Normal(1, 2)},
      {DataType::kFloat64, Distribution::Normal(1, 2)},
      {DataType::kFloat16, Distribution::Normal(0, 1)},
      {DataType::kBool, Distribution::Bernoulli(0.3)},
      {DataType::kFloat32, Distribution::Bernoulli(0.7)},
      {DataType::kUint8, Distribution::Bernoulli(0.5)},
      {DataType::kInt32, Distribution::Integers(-5, 1000)},
      {DataType::kInt64, Distribution::Integers(-3, int64_t{1} << 40)},
  };
  for (const auto& k : kinds) {
    for (int64_t count : {1, 2, 3, 5, 16, 17, 63, 64, 1000, 2047, 2048, 4096, 4097}) {
      PhiloxState direct_next{}, planned_next{}, rows_next{};
      const std::vector<uint8_t> direct = FillAs(k.type, k.d, count, 0, &direct_next);
      if (k.type == DataType::kUint32) {  // bits: the oracle (Random123)
        std::vector<uint32_t> words(static_cast<size_t>(count));
        std::memcpy(words.data(), direct.data(), words.size() * 4);
        EXPECT_EQ(words, OracleLogical(Shape{{count}, {}}, kState, 0)) << count << " elements";
      }
      EXPECT_EQ(direct, FillAs(k.type, k.d, count, 1, &planned_next))
          << "type " << static_cast<int>(k.type) << ", " << count << " elements";
      EXPECT_EQ(direct, FillAs(k.type, k.d, count, 2, &rows_next));
      for (int w = 0; w < 6; ++w) {
        EXPECT_EQ(direct_next.words[w], planned_next.words[w]) << count << " elements";
        EXPECT_EQ(direct_next.words[w], rows_next.words[w]);
      }
    }
  }
}

}  // namespace
}  // namespace layout_test
