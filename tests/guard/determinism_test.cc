// Determinism: the bytes of a fill depend on the state, the offset and the
// logical index only (SPEC.md section 3). Every supported target, thread
// count, tile size and store mode, a host pool that runs tasks in a shuffled
// order, absurd thread counts, and every layout of one logical tensor must
// all give the oracle's bytes, padding untouched.
//
// The oracle runs once per tensor: each fill is compared with a precomputed
// image of the whole guarded region (guard_util.h), or, for the one output
// too large to copy around, with a digest of the oracle's stream.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "guard_util.h"
#include "randtensor/fill.h"
#include "randtensor/parallel.h"
#include "randtensor/targets.h"
#include "test_util.h"

namespace {

using randtensor::FillInfo;
using randtensor::PhiloxState;
using randtensor::StoreMode;
using rt_guard::Edge;
using rt_guard::GuardedTensor;
using rt_guard::Padded;
using rt_test::FillCase;
using rt_test::Shape;

const PhiloxState kState{{0xfffffffd, 0xffffffff, 0x5eed0001, 0x0badcafe, 0x1234abcd, 0x9876fedc}};

const uint32_t kThreads[] = {1, 2, 3, 7, 16};
// Automatic, whole blocks, three blocks, a medium tile, and one that is not
// a multiple of 4 (rounded up to 4096: exactly the writer's staging buffer).
const uint64_t kTiles[] = {0, 4, 12, 1000, 4093};
const StoreMode kStores[] = {StoreMode::kAuto, StoreMode::kRegular, StoreMode::kStreaming};

// One tensor per writer strategy (writer.cc picks it from the canonical
// layout: size-1 dimensions dropped, evenly strided runs merged).
struct Subject {
  const char* name;
  Shape shape;
  uint64_t offset;  // element_offset: nonzero ones start tiles mid-block
};

std::vector<Subject> Subjects() {
  const std::vector<int64_t> nchw5 = {3, 5, 19, 23}, nchw16 = {2, 16, 9, 11};
  const std::vector<int64_t> nchw32 = {2, 32, 5, 12}, nchw16w10 = {3, 16, 6, 10};
  const std::vector<int64_t> nchw3 = {4, 3, 4, 36};
  const std::vector<int64_t> cube = {37, 41, 7}, odd = {7, 11, 13};
  return {
      {"one packed row", Shape{{12347}, {}}, 1},
      {"long padded rows, generated in place", Padded({6, 37, 131}, {0, 2, 5}), 1},
      {"short padded rows, staged", Padded({40, 9, 13}, {0, 1, 3}), 2},
      {"NHWC with 5 channels, transposed tiles",
       Shape{nchw5, rt_test::StoredStrides(nchw5, {0, 2, 3, 1}, 1, {})}, 3},
      {"NHWC with 16 channels, transposed tiles",
       Shape{nchw16, rt_test::StoredStrides(nchw16, {0, 2, 3, 1}, 1, {0, 0, 1, 0})}, 0},
      // Runs of whole blocks and whole vectors of channels: the AVX-512 column
      // kernel generates these in place, streaming whole lines when aligned.
      {"NHWC with 32 channels, columns generated in place",
       Shape{nchw32, rt_test::StoredStrides(nchw32, {0, 2, 3, 1}, 1, {})}, 4},
      // Width 10: a partial last block per run, whose missing columns would
      // land in the row padding (38 words) if written.
      {"NHWC with 16 channels padded to 19, width 10, columns generated in place",
       Shape{nchw16w10, rt_test::StoredStrides(nchw16w10, {0, 2, 3, 1}, 1, {0, 0, 38, 3})}, 0},
      // 3 channels, 144 pixels (27 cache lines) per image: dense tiles, streamed 16 pixels
      // at a time from registers where the image starts on a cache line.
      {"NHWC with 3 channels, dense tiles",
       Shape{nchw3, rt_test::StoredStrides(nchw3, {0, 2, 3, 1}, 1, {})}, 0},
      {"column-major, transposed along the outermost dimension",
       Shape{cube, rt_test::StoredStrides(cube, rt_test::ReversedOrder(3), 1, {})}, 0},
      {"odd strides with no unit stride, scattered",
       Shape{odd, rt_test::StoredStrides(odd, {1, 0, 2}, 3, {0, 5, 1})}, 2},
  };
}

FillCase CaseOf(const Subject& subject, uint32_t threads, uint64_t tile, StoreMode stores) {
  FillCase c;
  c.shape = subject.shape;
  c.state = kState;
  c.element_offset = subject.offset;
  c.threads = threads;
  c.task_elements = tile;
  c.stores = stores;
  return c;
}

// Names the fill about to run, should it fault (see LabelFaults).
void LabelFill(const FillCase& c) {
  randtensor::TargetInfo target;
  const bool known = randtensor::GetActiveTarget(&target).ok();
  rt_guard::LabelFaults(std::string("target ") + (known ? target.name : "?") + " " + c.Describe());
}

// A subject in a guarded buffer, with the image every fill of it must leave
// there: the oracle runs once, however many fills are compared with it.
class Prepared {
 public:
  explicit Prepared(const Subject& subject)
      : subject_(subject),
        tensor_(subject.shape, Edge::kTrailing, 0),
        pristine_(tensor_.buffer.Pristine()),
        expected_(tensor_.Expected(kState, subject.offset)) {}

  bool ok() const { return tensor_.buffer.ok(); }
  FillCase Case(uint32_t threads, uint64_t tile, StoreMode stores) const {
    return CaseOf(subject_, threads, tile, stores);
  }

  // Fills `c` into the repainted buffer; compares the whole guarded region
  // with the image, and the output state with the rule.
  ::testing::AssertionResult Fills(const FillCase& c, FillInfo* info = nullptr) {
    LabelFill(c);
    tensor_.buffer.Load(pristine_);
    PhiloxState out;
    const randtensor::Status status =
        randtensor::Fill(rt_test::DescOf(c.shape), tensor_.span_begin(), tensor_.bytes, c.state, &out,
                         rt_guard::OptionsOf(c, info));
    if (!status.ok()) return ::testing::AssertionFailure() << status.message();
    ::testing::AssertionResult same = tensor_.buffer.Holds(expected_, tensor_.origin());
    if (!same) return same;
    return rt_test::StatesEqual(out, rt_test::ExpectedOutState(c.state, rt_guard::Consumed(c)));
  }

 private:
  const Subject& subject_;
  GuardedTensor tensor_;
  const std::vector<uint32_t> pristine_, expected_;
};

// Runs body(prepared) for each subject on every target.
template <class Body>
void ForEachSubjectAndTarget(const Body& body) {
  for (const Subject& subject : Subjects()) {
    SCOPED_TRACE(subject.name);
    Prepared prepared(subject);
    ASSERT_TRUE(prepared.ok());
    rt_test::ForEachSupportedTarget([&](const randtensor::TargetInfo&) { body(prepared); });
  }
}

TEST(Determinism, EveryTargetThreadTileAndStoreModeGivesTheOracleBytes) {
  ForEachSubjectAndTarget([](Prepared& prepared) {
    for (uint32_t threads : kThreads) {
      for (uint64_t tile : kTiles) {
        for (StoreMode stores : kStores) {
          const FillCase c = prepared.Case(threads, tile, stores);
          // The first difference stops this target: one message, not hundreds.
          ASSERT_TRUE(prepared.Fills(c)) << c.Describe();
        }
      }
    }
  });
}

// ------------------------------------------------------------- host pools

// A host ParallelFor that runs the tasks on 16 fresh std::threads, taking
// them in an order shuffled anew on every call: no task may rely on running
// in order, on the caller's thread, or after its neighbour.
struct ShuffledPool {
  static constexpr int kThreadCount = 16;
  uint64_t seed = 0x5eed;
  std::atomic<uint32_t> calls{0};
  std::atomic<uint32_t> last_count{0};

  static void Run(void* context, uint32_t count, uint32_t, randtensor::TaskFn task,
                  void* task_context) {
    ShuffledPool& pool = *static_cast<ShuffledPool*>(context);
    std::vector<uint32_t> order(count);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(pool.seed + pool.calls++));
    pool.last_count = count;
    std::atomic<uint32_t> next{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreadCount; ++i) {
      threads.emplace_back([&] {
        for (uint32_t k; (k = next.fetch_add(1)) < count;) task(task_context, order[k]);
      });
    }
    for (std::thread& thread : threads) thread.join();
  }
};

TEST(Determinism, ShuffledHostPoolOnSixteenThreadsGivesTheSameBytes) {
  ForEachSubjectAndTarget([](Prepared& prepared) {
    for (uint64_t tile : {4, 12, 1000}) {  // several tasks for every subject
      for (StoreMode stores : {StoreMode::kRegular, StoreMode::kStreaming}) {
        ShuffledPool pool;
        FillCase c = prepared.Case(ShuffledPool::kThreadCount, tile, stores);
        c.parallel_for = randtensor::ParallelFor{ShuffledPool::Run, &pool};
        FillInfo info;
        ASSERT_TRUE(prepared.Fills(c, &info)) << c.Describe();
        // The hook really ran the fill, as many tasks as the fill reports.
        ASSERT_EQ(pool.calls.load(), 1u) << c.Describe();
        ASSERT_EQ(pool.last_count.load(), info.tasks) << c.Describe();
        ASSERT_GT(info.tasks, 1u) << "a single task would bypass the hook: " << c.Describe();
      }
    }
  });
}

// More threads than tasks, up to 1000: the extra threads must find nothing
// to do, not repeat or skip a task.
TEST(Determinism, MoreThreadsThanTasks) {
  ForEachSubjectAndTarget([](Prepared& prepared) {
    for (uint64_t tile : {0, 4093}) {  // automatic: one task for these sizes
      const FillCase c = prepared.Case(1000, tile, StoreMode::kAuto);
      FillInfo info;
      ASSERT_TRUE(prepared.Fills(c, &info)) << c.Describe();
      ASSERT_LT(info.tasks, c.threads) << c.Describe();
    }
  });
  // A few elements, a few tasks, a thousand threads.
  for (int64_t n : {1, 5, 10, 40}) {
    FillCase c = CaseOf(Subject{"tiny", Shape{{n}, {}}, 3}, 1000, 4, StoreMode::kAuto);
    EXPECT_TRUE(rt_test::CheckFill(c));
  }
}

// ------------------------------------------------------------- layouts

// One logical tensor through every layout family: the values read back
// through the strides are the same, on every target.
enum class MemoryOrder { kRowMajor, kChannelsLast, kColumnMajor };

struct LayoutSpec {
  MemoryOrder order;
  int64_t step;   // stride of the innermost dimension in memory
  int64_t pad;    // elements added after walking each dimension
  bool reversed;  // every stride negated
};

// Packed, padded, NHWC (dimension 1 innermost), padded NHWC, column-major,
// padded and reversed, and NHWC with no unit stride (the scattered writer).
const LayoutSpec kLayouts[] = {
    {MemoryOrder::kRowMajor, 1, 0, false},     {MemoryOrder::kRowMajor, 1, 2, false},
    {MemoryOrder::kChannelsLast, 1, 0, false}, {MemoryOrder::kChannelsLast, 1, 2, false},
    {MemoryOrder::kColumnMajor, 1, 0, false},  {MemoryOrder::kRowMajor, 1, 2, true},
    {MemoryOrder::kChannelsLast, 3, 1, false},
};

Shape LayoutOf(const std::vector<int64_t>& sizes, const LayoutSpec& spec) {
  std::vector<int> order = rt_test::IdentityOrder(sizes.size());
  if (spec.order == MemoryOrder::kChannelsLast) {
    std::rotate(order.begin() + 1, order.begin() + 2, order.end());
  } else if (spec.order == MemoryOrder::kColumnMajor) {
    std::reverse(order.begin(), order.end());
  }
  const std::vector<int64_t> pads(sizes.size(), spec.pad);
  const std::vector<int64_t> strides = rt_test::StoredStrides(sizes, order, spec.step, pads);
  return Shape{sizes, spec.reversed ? rt_test::FlipSigns(strides, ~0u) : strides};
}

TEST(Determinism, SameLogicalTensorThroughEveryLayoutOnEveryTarget) {
  const std::vector<std::vector<int64_t>> tensors = {
      {3, 5, 7, 131}, {2, 16, 9, 9}, {4, 3, 33, 17}, {2, 3, 1, 5, 1, 3, 2, 7}};
  for (const std::vector<int64_t>& sizes : tensors) {
    const Shape packed{sizes, {}};
    std::vector<uint32_t> logical(rt_test::ElementCount(sizes));
    ASSERT_TRUE(rt_test::OracleFill(packed, kState, 3, logical, 0));
    rt_test::ForEachSupportedTarget([&](const randtensor::TargetInfo&) {
      std::vector<Shape> shapes = {packed};  // strides nullptr
      for (const LayoutSpec& spec : kLayouts) shapes.push_back(LayoutOf(sizes, spec));
      for (const Shape& shape : shapes) {
        for (uint32_t threads : {1, 3}) {
          FillCase c =
              CaseOf(Subject{"", shape, 3}, threads, threads == 1 ? 0 : 12, StoreMode::kAuto);
          rt_test::FillResult r;
          EXPECT_TRUE(rt_test::CheckFill(c, &r));
          EXPECT_EQ(rt_test::ReadLogical(r, shape), logical) << c.Describe();
        }
      }
    });
  }
}

// ------------------------------------------------------------- a cache-sized output

// A 256-bit digest of a word sequence fed in pieces: four lanes by word
// position, each lane (h ^ w) * odd. Both steps are bijections, so a
// sequence that differs in one word always gets a different digest.
class Digest {
 public:
  void Update(const uint32_t* words, size_t n) {
    size_t i = 0;
    for (; i < n && position_ % 4 != 0; ++i) Mix(words[i]);
    // Whole groups of four with the lanes in registers: their multiplies
    // overlap, and hashing 300 MiB takes a fraction of the fill's time.
    uint64_t a = lanes_[0], b = lanes_[1], c = lanes_[2], d = lanes_[3];
    for (; i + 4 <= n; i += 4) {
      a = (a ^ words[i]) * kOdd;
      b = (b ^ words[i + 1]) * kOdd;
      c = (c ^ words[i + 2]) * kOdd;
      d = (d ^ words[i + 3]) * kOdd;
      position_ += 4;
    }
    lanes_ = {a, b, c, d};
    for (; i < n; ++i) Mix(words[i]);
  }
  const std::array<uint64_t, 4>& lanes() const { return lanes_; }

 private:
  static constexpr uint64_t kOdd = 0x9E3779B97F4A7C15u;
  void Mix(uint32_t w) {
    uint64_t& h = lanes_[position_++ % 4];
    h = (h ^ w) * kOdd;
  }

  uint64_t position_ = 0;
  std::array<uint64_t, 4> lanes_ = {1, 2, 3, 4};
};

// The digest of elements [offset, offset + n) of the oracle's stream, a
// Random123 block at a time (test_util.h's OracleValue reads one word of a
// block per call; 80 million calls would take seconds).
std::array<uint64_t, 4> OracleStreamDigest(const PhiloxState& state, uint64_t offset, uint64_t n) {
  Digest digest;
  for (uint64_t e = offset; e < offset + n;) {
    const PhiloxState at = rt_test::StatePlusBlocks(state, e / 4);
    const std::array<uint32_t, 4> block = rt_test::R123Block(at.words, at.words[4], at.words[5]);
    const uint64_t take = std::min<uint64_t>(4 - e % 4, offset + n - e);
    digest.Update(block.data() + e % 4, take);
    e += take;
  }
  return digest.lanes();
}

// The output size from which kAuto streams: the library's rule (writer.cc),
// the L3 size capped at 32 MiB, or 32 MiB where the system does not say.
uint64_t StreamingThresholdBytes() {
  const uint64_t cap = uint64_t{32} << 20;
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return l3 > 0 ? std::min(static_cast<uint64_t>(l3), cap) : cap;
}

// The first element of `words` that differs from the oracle, for the
// failure message of a digest mismatch.
std::string FirstOracleDifference(const uint32_t* words, uint64_t n, uint64_t offset) {
  for (uint64_t e = 0; e < n; ++e) {
    const uint32_t want = rt_test::OracleValue(kState, offset + e);
    if (words[e] != want) {
      return "element " + std::to_string(e) + " is " + rt_test::Hex(words[e]) + ", expected " +
             rt_test::Hex(want);
    }
  }
  return "no element differs";
}

// One output just past the streaming threshold, its end flush against a
// guard page (or a few bytes from it), its first whole Philox block 16-byte
// aligned (the kernel streams straight from registers after a head up to
// the vector boundary) or not (it stages blocks in L1, then streams a copy).
TEST(Determinism, CacheSizedOutputStreamsAndMatchesTheOracleDigest) {
  const uint64_t n = StreamingThresholdBytes() / 4 + 5;  // ends mid-block
  const uint64_t offset = 2;                             // starts mid-block
  const Shape shape{{static_cast<int64_t>(n)}, {}};
  // The block-at-a-time walk agrees with the oracle's word-at-a-time values.
  std::vector<uint32_t> head(41);
  for (uint64_t i = 0; i < head.size(); ++i) head[i] = rt_test::OracleValue(kState, offset + i);
  Digest head_digest;
  head_digest.Update(head.data(), head.size());
  ASSERT_EQ(head_digest.lanes(), OracleStreamDigest(kState, offset, head.size()));
  const std::array<uint64_t, 4> want = OracleStreamDigest(kState, offset, n);

  // The span ends `gap` bytes before a page boundary and its first whole
  // block starts 8 bytes in (offset 2): this gap puts that block on a
  // 16-byte boundary, 4 more bytes take it off.
  const uint64_t aligned_gap = (16 + 8 - n * 4 % 16) % 16;
  struct Run {
    uint64_t gap;
    uint32_t threads;
    uint64_t tile;
    StoreMode stores;
  };
  const Run runs[] = {{aligned_gap, 16, 0, StoreMode::kAuto},
                      {aligned_gap, 3, 4093, StoreMode::kStreaming},
                      {aligned_gap + 4, 7, 0, StoreMode::kStreaming},
                      {aligned_gap + 4, 2, 0, StoreMode::kRegular}};
  std::unique_ptr<rt_guard::GuardPageBuffer> buffer;
  uint64_t mapped_gap = UINT64_MAX;
  for (const Run& run : runs) {
    if (run.gap != mapped_gap) {
      buffer.reset();  // one output-sized mapping at a time
      buffer.reset(new rt_guard::GuardPageBuffer(n * 4, Edge::kTrailing, run.gap));
      ASSERT_TRUE(buffer->ok());
      mapped_gap = run.gap;
    }
    uint32_t* span = buffer->span();
    rt_test::ForEachSupportedTarget([&](const randtensor::TargetInfo&) {
      FillCase c = CaseOf(Subject{"cache-sized", shape, offset}, run.threads, run.tile, run.stores);
      c.misalign_bytes = reinterpret_cast<uintptr_t>(span) % 64;
      // Zeroes, not the guard pattern: painting 32 MiB word by word would
      // cost more than the fill. A skipped element stays 0 and breaks the
      // digest; the gap must stay 0.
      std::memset(buffer->words(), 0, buffer->size_words() * 4);
      LabelFill(c);
      FillInfo info;
      PhiloxState out;
      const randtensor::Status status = randtensor::Fill(
          rt_test::DescOf(shape), span, n * 4, kState, &out, rt_guard::OptionsOf(c, &info));
      ASSERT_TRUE(status.ok()) << status.message();
      // kAuto: the host's choice (store_choice.h), either mode here.
      if (run.stores != StoreMode::kAuto) {
        EXPECT_EQ(info.streaming, run.stores == StoreMode::kStreaming) << c.Describe();
      }
      Digest got;
      got.Update(span, n);
      ASSERT_EQ(got.lanes(), want)
          << FirstOracleDifference(span, n, offset) << "\n  case " << c.Describe();
      EXPECT_TRUE(std::all_of(span + n, span + n + run.gap / 4, [](uint32_t w) { return w == 0; }))
          << "the gap after the span was written: " << c.Describe();
      EXPECT_TRUE(rt_test::StatesEqual(out, rt_test::ExpectedOutState(kState, offset + n)));
    });
  }
}

}  // namespace
