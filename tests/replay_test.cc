// PyTorch CUDA order (randtensor/replay.h) on every supported target, thread
// count and task cut.
//
// Expected values: bits from the oracle (Random123, oracle.h): element e is
// word (e mod G U) / G of the Philox block at counter C + e / (G U) +
// (e mod G) * 2^64 (tests/reference/torch_cuda/ORDER.md section 4). Other
// kinds: element e is element e / G of the stream-order fill of thread
// e mod G's state (C + t * 2^64), the mapping ORDER.md states; stream-order
// fills are checked against the reference model by distributions_test. The
// GPU's own recordings are checked by python/tests/test_replay.py.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "randtensor/fill.h"
#include "randtensor/replay.h"
#include "randtensor/targets.h"
#include "test_util.h"

namespace randtensor {
namespace {

// The supported targets' names (those the sweep includes: rt_test::Swept).
std::vector<std::string> SupportedTargets() {
  std::vector<std::string> names;
  for (const TargetInfo& info : rt_test::SweptTargets()) names.push_back(info.name);
  return names;
}

struct TargetGuard {
  ~TargetGuard() { (void)SetTarget(nullptr); }  // back to the default: cannot fail
};

// thread t's state: counter C + t * 2^64.
PhiloxState ThreadState(const PhiloxState& base, uint64_t t) {
  return rt_test::StatePlusBlocks(base, static_cast<rt_test::u128>(t) << 64);
}

uint64_t Grid(uint64_t n, GpuGeometry gpu) {
  uint64_t blocks = (n + 255) / 256;
  if (gpu.sm_count != 0) {
    const uint64_t most = static_cast<uint64_t>(gpu.sm_count) * (gpu.threads_per_sm / 256);
    if (blocks > most) blocks = most;
  }
  return blocks * 256;
}

Status ReplayFill(DataType type, const Distribution& d, uint64_t n, void* out,
                  const PhiloxState& in, PhiloxState* out_state, GpuGeometry gpu,
                  uint32_t threads, uint64_t task_elements, FillInfo* info = nullptr) {
  const int64_t size = static_cast<int64_t>(n);
  TensorDesc desc;
  desc.dtype = type;
  desc.rank = 1;
  desc.sizes = &size;
  FillOptions o;
  o.order = ElementOrder::kTorchCuda;
  o.gpu = gpu;
  o.distribution = d;
  o.threads = threads;
  o.task_elements = task_elements;
  o.info = info;
  return Fill(desc, out, n * static_cast<uint64_t>(ElementSize(type)), in, out_state, o);
}

const GpuGeometry kTiny = {2, 512};   // Gmax = 1024: several calls per thread soon
const GpuGeometry kOdd = {3, 1536};   // Gmax = 4608
const uint64_t kSizes[] = {1, 3, 4, 5, 255, 256, 257, 1000, 1024, 1025, 4095, 4096, 4097, 9001};

TEST(TorchCudaReplay, BitsEqualTheOracleOnEveryTarget) {
  TargetGuard guard;
  const PhiloxState base{{0x10u, 0, 0, 0, 0x12345678u, 0x9ABCDEF0u}};
  ASSERT_GE(SupportedTargets().size(), 2u) << "at least two targets to compare";
  for (const std::string& target : SupportedTargets()) {
    ASSERT_TRUE(SetTarget(target.c_str()).ok());
    for (GpuGeometry gpu : {GpuGeometry{}, kTiny, kOdd}) {
      for (uint64_t n : kSizes) {
        const uint64_t g = Grid(n, gpu);
        const uint64_t calls = (n - 1) / (4 * g) + 1;
        for (uint32_t threads : {1u, 2u}) {
          std::vector<uint32_t> out(n + 1, 0xDEADBEEFu);
          PhiloxState next;
          FillInfo info;
          ASSERT_TRUE(ReplayFill(DataType::kUint32, Distribution::Bits(), n, out.data(), base,
                                 &next, gpu, threads, threads == 2 ? 300 : 0, &info)
                          .ok());
          EXPECT_STREQ(info.strategy, "torch_cuda rows");
          for (uint64_t e = 0; e < n; ++e) {
            const PhiloxState s = ThreadState(base, e % g);
            const uint32_t want = rt_test::OracleValue(s, 4 * (e / (4 * g)) + (e % (4 * g)) / g);
            ASSERT_EQ(out[e], want) << target << " n=" << n << " e=" << e << " g=" << g;
          }
          EXPECT_EQ(out[n], 0xDEADBEEFu) << "wrote past the tensor";
          EXPECT_TRUE(rt_test::StatesEqual(next, rt_test::StatePlusBlocks(base, calls)));
        }
      }
    }
  }
}

// Every kind, against the stream-order fill of each thread's state.
struct KindCase {
  DataType type;
  Distribution d;
};

std::vector<KindCase> KindCases() {
  return {
      {DataType::kFloat32, Distribution::Uniform(-2, 3)},
      {DataType::kFloat16, Distribution::Uniform(0, 1)},
      {DataType::kBfloat16, Distribution::Uniform(-1, 1)},
      {DataType::kFloat64, Distribution::Uniform(0, 1)},
      {DataType::kFloat32, Distribution::Normal(0.5, 2)},
      {DataType::kFloat16, Distribution::Normal(0, 1)},
      {DataType::kBfloat16, Distribution::Normal(0, 1)},
      {DataType::kFloat64, Distribution::Normal(-1, 3)},
      {DataType::kUint8, Distribution::Bernoulli(0.3)},
      {DataType::kBool, Distribution::Bernoulli(0.7)},
      {DataType::kFloat32, Distribution::Bernoulli(0.5)},
      {DataType::kFloat64, Distribution::Bernoulli(0.25)},
      {DataType::kInt32, Distribution::Integers(-5, 1000)},
      {DataType::kInt64, Distribution::Integers(-7, (int64_t{1} << 28) + 3)},
      {DataType::kInt64, Distribution::Integers(0, 100)},
      {DataType::kFloat32, Distribution::Integers(-10, 10)},
      {DataType::kFloat64, Distribution::Integers(0, int64_t{1} << 40)},
      // The kinds with long math, whose replay converts from L1.
      {DataType::kFloat32, Distribution::Exponential(1.5)},
      {DataType::kFloat16, Distribution::Exponential(1)},
      {DataType::kFloat32, Distribution::Cauchy(0, 2)},
      {DataType::kBfloat16, Distribution::Cauchy(1, 1)},
      {DataType::kFloat32, Distribution::Geometric(0.2)},
      {DataType::kInt32, Distribution::Geometric(0.05)},
      {DataType::kUint8, Distribution::Geometric(0.5)},
      {DataType::kInt64, Distribution::Geometric(0.001)},
      {DataType::kFloat32, Distribution::LogNormal(0, 1)},
  };
}

// n elements of kind k from state s with options o (its distribution k's).
std::vector<uint8_t> FillKind(const KindCase& k, const PhiloxState& s, uint64_t n,
                              FillOptions o) {
  const int size = ElementSize(k.type);
  std::vector<uint8_t> out(n * static_cast<uint64_t>(size));
  const int64_t sz = static_cast<int64_t>(n);
  TensorDesc desc;
  desc.dtype = k.type;
  desc.rank = 1;
  desc.sizes = &sz;
  o.distribution = k.d;
  EXPECT_TRUE(Fill(desc, out.data(), out.size(), s, nullptr, o).ok());
  return out;
}

std::vector<uint8_t> StreamFill(const KindCase& k, const PhiloxState& s, uint64_t n) {
  FillOptions o;
  o.threads = 1;
  return FillKind(k, s, n, o);
}

void CheckKinds(const PhiloxState& base, const std::vector<uint64_t>& sizes) {
  TargetGuard guard;
  for (const std::string& target : SupportedTargets()) {
    ASSERT_TRUE(SetTarget(target.c_str()).ok());
    for (const KindCase& k : KindCases()) {
      const uint64_t size = static_cast<uint64_t>(ElementSize(k.type));
      for (GpuGeometry gpu : {GpuGeometry{}, kTiny}) {
        for (uint64_t n : sizes) {
          const uint64_t g = Grid(n, gpu);
          const uint64_t per_thread = (n - 1) / g + 1;
          std::vector<std::vector<uint8_t>> streams(g < n ? g : n);
          for (uint64_t t = 0; t < streams.size(); ++t) {
            streams[t] = StreamFill(k, ThreadState(base, t), per_thread);
          }
          for (uint32_t threads : {1u, 2u}) {
            std::vector<uint8_t> out((n + 1) * size, 0xA5);
            PhiloxState next;
            ASSERT_TRUE(ReplayFill(k.type, k.d, n, out.data(), base, &next, gpu, threads,
                                   threads == 2 ? 256 : 0)
                            .ok());
            for (uint64_t e = 0; e < n; ++e) {
              ASSERT_EQ(std::memcmp(out.data() + e * size,
                                    streams[e % g].data() + (e / g) * size, size),
                        0)
                  << target << " type " << static_cast<int>(k.type) << " dist "
                  << static_cast<int>(k.d.kind) << " n=" << n << " e=" << e;
            }
            for (uint64_t b = 0; b < size; ++b) ASSERT_EQ(out[n * size + b], 0xA5);
          }
        }
      }
    }
  }
}

TEST(TorchCudaReplay, EveryKindIsElementFloorEOverGOfItsThreadsStream) {
  CheckKinds(PhiloxState{{8, 0, 0, 0, 20240601u, 0}}, {1, 5, 256, 700, 1025, 5000});
}

// Counter word 2 carries into word 3 for some threads: the kernels' scalar
// paths (the vector rounds assume a uniform word 3).
TEST(TorchCudaReplay, ThreadsWhoseCounterCarriesIntoWordThree) {
  CheckKinds(PhiloxState{{0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFF80u, 7, 1, 2}}, {300, 2100});
}

TEST(TorchCudaReplay, OutputStateIsTheGeneratorsNextOffset) {
  PhiloxState s;
  ASSERT_TRUE(TorchCudaState(20240601, 312, &s).ok());
  std::vector<float> out(270336 * 4 + 1);
  PhiloxState next;
  const GpuGeometry h100 = FindGpuPreset("H100-SXM")->geometry;
  // n = 4 Gmax + 1 on an H100: two calls per thread, offset + 8
  // (recorded on the GPU: tests/reference/torch_cuda/recorded).
  ASSERT_TRUE(ReplayFill(DataType::kFloat32, Distribution::Uniform(0, 1), out.size(),
                         out.data(), s, &next, h100, 2, 0)
                  .ok());
  uint64_t offset = 0;
  ASSERT_TRUE(TorchCudaOffset(next, &offset).ok());
  EXPECT_EQ(offset, 312u + 8u);
  // Float64: two elements per call.
  std::vector<double> d(270336 * 2);
  ASSERT_TRUE(ReplayFill(DataType::kFloat64, Distribution::Uniform(0, 1), d.size(), d.data(), s,
                         &next, h100, 2, 0)
                  .ok());
  ASSERT_TRUE(TorchCudaOffset(next, &offset).ok());
  EXPECT_EQ(offset, 316u);
  // Empty: PyTorch launches nothing and reserves nothing.
  ASSERT_TRUE(ReplayFill(DataType::kFloat32, Distribution::Uniform(0, 1), 0, out.data(), s,
                         &next, h100, 1, 0)
                  .ok());
  EXPECT_TRUE(rt_test::StatesEqual(next, s));
}

TEST(TorchCudaReplay, StateAndPresets) {
  PhiloxState s;
  ASSERT_TRUE(TorchCudaState(0x0123456789ABCDEFull, 4 * ((uint64_t{1} << 32) + 5), &s).ok());
  EXPECT_TRUE(rt_test::StatesEqual(
      s, PhiloxState{{5, 1, 0, 0, 0x89ABCDEFu, 0x01234567u}}));
  const Status bad = TorchCudaState(1, 6, &s);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.message()).find("offset = 6"), std::string::npos) << bad.message();
  uint64_t offset = 0;
  EXPECT_FALSE(TorchCudaOffset(PhiloxState{{0, 0, 1, 0, 0, 0}}, &offset).ok());
  const GpuPreset* p = FindGpuPreset("h100-SXM");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->geometry.sm_count, 132);
  EXPECT_EQ(p->geometry.threads_per_sm, 2048);
  EXPECT_EQ(FindGpuPreset("no-such-gpu"), nullptr);
  int count = 0;
  GpuPresets(&count);
  EXPECT_GE(count, 5);
  uint64_t g = 0;
  ASSERT_TRUE(TorchCudaThreads(300000, p->geometry, &g).ok());
  EXPECT_EQ(g, 270336u);
  ASSERT_TRUE(TorchCudaThreads(1000, p->geometry, &g).ok());
  EXPECT_EQ(g, 1024u);
  EXPECT_FALSE(TorchCudaThreads(1000, GpuGeometry{132, 100}, &g).ok());
  EXPECT_FALSE(TorchCudaThreads(1000, GpuGeometry{0, 2048}, &g).ok());
}

// Each refusal names its field, and writes nothing.
TEST(TorchCudaReplay, RefusalsNameTheFieldAndWriteNothing) {
  std::vector<float> out(64, 7.0f);
  const int64_t sizes[2] = {8, 8};
  const int64_t transposed[2] = {1, 8};
  TensorDesc desc;
  desc.dtype = DataType::kFloat32;
  desc.rank = 2;
  desc.sizes = sizes;
  FillOptions o;
  o.order = ElementOrder::kTorchCuda;
  o.distribution = Distribution::Uniform(0, 1);
  const PhiloxState s{};
  const auto expect_error = [&](const TensorDesc& dd, const FillOptions& oo, const char* field) {
    const Status st = Fill(dd, out.data(), out.size() * 4, s, nullptr, oo);
    EXPECT_FALSE(st.ok()) << field;
    EXPECT_NE(std::string(st.message()).find(field), std::string::npos) << st.message();
    for (float v : out) ASSERT_EQ(v, 7.0f);
  };
  TensorDesc strided = desc;
  strided.strides = transposed;
  expect_error(strided, o, "strides");
  FillOptions offset = o;
  offset.element_offset = 4;
  expect_error(desc, offset, "element_offset = 4");
  FillOptions gpu = o;
  gpu.gpu = GpuGeometry{-1, 2048};
  expect_error(desc, gpu, "gpu.sm_count = -1");
  FillOptions order = o;
  order.order = static_cast<ElementOrder>(9);
  expect_error(desc, order, "order = 9");
  const int64_t global[2] = {8, 8}, start[2] = {0, 0};
  Region region;
  region.rank = 2;
  region.global_sizes = global;
  region.start = start;
  FillOptions with_region = o;
  with_region.region = &region;
  expect_error(desc, with_region, "region");
}

// A host pool whose hook fills another tensor itself, on the calling thread,
// before it runs the tasks (a framework that draws something else first):
// the resolved constants of the caller's own fill are a per-thread cache
// entry that the nested fill replaces, so the fill must have taken them
// before it hands out tasks. Values equal the same fill without the hook, for
// the stream writer and the replayed GPU order alike.
void NestedFillThenSerialHook(void* /*pool_context*/, uint32_t count, uint32_t /*max_threads*/,
                              TaskFn task, void* task_context) {
  // Different constants, the same thread.
  StreamFill({DataType::kFloat32, Distribution::Normal(7, 3)}, PhiloxState::FromSeed(5), 1000);
  for (uint32_t i = 0; i < count; ++i) task(task_context, i);
}

TEST(TorchCudaReplay, AHookThatFillsFirstChangesNothing) {
  const uint64_t n = 9001;
  const PhiloxState base = PhiloxState::FromSeed(77);
  for (const ElementOrder order : {ElementOrder::kTorchCuda, ElementOrder::kStream}) {
    for (const KindCase& c : KindCases()) {
      SCOPED_TRACE(static_cast<int>(order));
      FillOptions o;
      o.order = order;
      o.gpu = kTiny;
      o.threads = 2;
      o.task_elements = 300;  // several tasks, so the hook runs
      const std::vector<uint8_t> plain = FillKind(c, base, n, o);
      o.parallel_for = ParallelFor{NestedFillThenSerialHook, nullptr};
      ASSERT_EQ(plain, FillKind(c, base, n, o)) << "dtype " << static_cast<int>(c.type);
    }
  }
}

// Dropout: every target and thread count gives the same bytes (the GPU's
// own outputs: python/tests/test_replay.py), and the mask agrees with the
// zeros of the output for nonzero inputs.
TEST(TorchCudaDropout, SameOnEveryTargetAndThreadCount) {
  TargetGuard guard;
  const uint64_t n = 10007;  // odd: the non-vectorized kernel
  std::vector<float> x(n);
  for (uint64_t e = 0; e < n; ++e) x[e] = static_cast<float>(e % 251) - 125.5f;
  std::vector<float> first_out;
  std::vector<uint8_t> first_mask;
  for (uint64_t count : {n, n - 7}) {  // n - 7 = 10000: vector width 4
    first_out.clear();
    for (const std::string& target : SupportedTargets()) {
      ASSERT_TRUE(SetTarget(target.c_str()).ok());
      for (uint32_t threads : {1u, 3u}) {
        std::vector<float> out(count);
        std::vector<uint8_t> mask(count);
        PhiloxState next;
        ASSERT_TRUE(TorchCudaDropout(DataType::kFloat32, count, x.data(), out.data(),
                                     mask.data(), 0.25, PhiloxState{{4, 0, 0, 0, 9, 9}}, &next,
                                     GpuGeometry{1, 1024}, 0, threads)
                        .ok());
        for (uint64_t e = 0; e < count; ++e) ASSERT_EQ(mask[e] != 0, out[e] != 0.0f) << e;
        if (first_out.empty()) {
          first_out = out, first_mask = mask;
          // 1024 threads, 4 words a call: ceil(count / 4096) = 3 calls reserved.
          EXPECT_TRUE(rt_test::StatesEqual(next, PhiloxState{{7, 0, 0, 0, 9, 9}}));
        } else {
          ASSERT_EQ(out, first_out) << target << " threads " << threads;
          ASSERT_EQ(mask, first_mask) << target << " threads " << threads;
        }
      }
    }
  }
}

TEST(TorchCudaDropout, RefusalsNameTheParameter) {
  float x[4] = {1, 2, 3, 4}, out[4] = {7, 7, 7, 7};
  uint8_t mask[4] = {9, 9, 9, 9};
  const auto message = [&](DataType type, double p, int32_t vec) {
    return std::string(TorchCudaDropout(type, 4, x, out, mask, p, PhiloxState{}, nullptr,
                                        GpuGeometry{}, vec)
                           .message());
  };
  EXPECT_NE(message(DataType::kFloat32, 1.0, 0).find("p = 1"), std::string::npos);
  EXPECT_NE(message(DataType::kFloat32, 0.5, 3).find("max_vector = 3"), std::string::npos);
  EXPECT_NE(message(DataType::kInt32, 0.5, 0).find("dtype"), std::string::npos);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(out[i] == 7 && mask[i] == 9);
}

// cuRAND's host generator: output i (e = offset + i) is word e mod 4 of
// block (e / 4) / 65536 of subsequence (e / 4) mod 65536 (ORDERING.md),
// against the oracle, across a round boundary, from an offset inside a
// block; the first three words are the ones the H100 recorded.
TEST(CurandHost, BitsFollowTheRoundsOfSubsequences) {
  TargetGuard guard;
  const uint64_t seed = 0xDEADBEEFCAFEF00Dull;
  for (const std::string& target : SupportedTargets()) {
    ASSERT_TRUE(SetTarget(target.c_str()).ok());
    for (uint64_t offset : {uint64_t{0}, uint64_t{5}, uint64_t{4 * 65536 - 7}}) {
      CurandHostGenerator g{seed, offset, 0};
      const uint64_t n = 4 * 65536 + 301;
      std::vector<uint32_t> out(n);
      ASSERT_TRUE(CurandHostGenerate(&g, CurandHostFunction::kGenerate, out.data(), n).ok());
      for (uint64_t i = 0; i < n; i += (i < 4096 ? 1 : 97)) {
        const uint64_t e = offset + i, q = e / 4;
        PhiloxState s{{0, 0, 0, 0, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)}};
        s = rt_test::StatePlusBlocks(
            s, (static_cast<rt_test::u128>(q % 65536) << 64) + q / 65536);
        ASSERT_EQ(out[i], rt_test::OracleValue(s, e % 4)) << target << " offset " << offset
                                                          << " i " << i;
      }
      EXPECT_EQ(g.offset, offset + n);
      EXPECT_EQ(g.skew, 0u);
      if (offset == 0) {
        EXPECT_EQ(out[0], 0x1166cd2eu);  // recorded: tests/reference/curand_host
        EXPECT_EQ(out[1], 0xa515d74eu);
        EXPECT_EQ(out[2], 0x4ddb17c2u);
      }
    }
  }
}

// The tasks (rounds x 16384-thread chunks) never change values: every
// function, 1 and 3 threads, from an offset inside a block across rounds.
TEST(CurandHost, ThreadCountsGiveTheSameOutputs) {
  for (int f = 0; f <= 4; ++f) {
    const auto function = static_cast<CurandHostFunction>(f);
    std::vector<double> first(300000), other(300000);  // room for 8-byte outputs
    CurandHostGenerator g1{42, 7, 0}, g3{42, 7, 0};
    ASSERT_TRUE(CurandHostGenerate(&g1, function, first.data(), 300000, 0.5, 2, 1).ok());
    ASSERT_TRUE(CurandHostGenerate(&g3, function, other.data(), 300000, 0.5, 2, 3).ok());
    EXPECT_EQ(std::memcmp(first.data(), other.data(), first.size() * 8), 0) << f;
    EXPECT_TRUE(g1.offset == g3.offset && g1.skew == g3.skew);
  }
}

TEST(CurandHost, DoublesCarryTheirSkewAndRefusalsWriteNothing) {
  CurandHostGenerator g{1, 0, 0};
  std::vector<double> d((1 << 20) + 5);
  ASSERT_TRUE(CurandHostGenerate(&g, CurandHostFunction::kUniformDouble, d.data(), d.size()).ok());
  // ORDERING.md's example: (2^20 + 5) doubles cross 4 rounds of 2^18
  // outputs: skew 4.
  EXPECT_EQ(g.offset, d.size());
  EXPECT_EQ(g.skew, 4u);
  for (double v : d) ASSERT_TRUE(v > 0 && v <= 1) << v;
  float f[4] = {7, 7, 7, 7};
  CurandHostGenerator h{1, 0, 0};
  const Status st = CurandHostGenerate(&h, CurandHostFunction::kNormal, f, 4, 0, -2);
  EXPECT_NE(std::string(st.message()).find("stddev = -2"), std::string::npos) << st.message();
  EXPECT_TRUE(f[0] == 7 && f[3] == 7 && h.offset == 0);
  EXPECT_FALSE(CurandHostGenerate(&h, static_cast<CurandHostFunction>(9), f, 4).ok());
}

}  // namespace
}  // namespace randtensor
