// Every compiled SIMD target, forced by name, against the oracle: hundreds of
// random shapes and layouts per target (fixed seeds), with guard words around
// and inside every buffer, plus targeted sweeps of counter carries and short
// rows at every alignment. A target the CPU cannot run is skipped.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "randtensor/fill.h"
#include "randtensor/targets.h"
#include "test_util.h"

namespace targets_test {
namespace {

using randtensor::TargetInfo;
using rt_test::FillCase;
using rt_test::Shape;
using rt_test::StoreMode;

constexpr int64_t kSizes[] = {1,  2,  3,  4,  5,   7,   8,   9,   15,  16,  17, 31,
                              32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257};
constexpr uint64_t kMaxElements = 150000;

template <class T, size_t N>
const T& Pick(std::mt19937_64& rng, const T (&items)[N]) {
  return items[rng() % N];
}

// Sizes of a random rank 1-8 tensor with at most `budget` elements; outer
// dimensions of high ranks stay small.
std::vector<int64_t> RandomSizes(std::mt19937_64& rng, int rank, uint64_t budget) {
  std::vector<int64_t> sizes(static_cast<size_t>(rank));
  uint64_t product = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const bool outer = d < rank - 3;
    int64_t s = outer ? 1 + static_cast<int64_t>(rng() % 5) : Pick(rng, kSizes);
    while (s > 1 && product * static_cast<uint64_t>(s) > budget) s = s / 2;
    sizes[static_cast<size_t>(d)] = s;
    product *= static_cast<uint64_t>(s);
  }
  return sizes;
}

std::vector<int> RandomOrder(std::mt19937_64& rng, size_t rank) {
  std::vector<int> order = rt_test::IdentityOrder(rank);
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

std::vector<int64_t> RandomPads(std::mt19937_64& rng, size_t rank, int64_t max_pad) {
  std::vector<int64_t> pads(rank);
  for (int64_t& p : pads) p = static_cast<int64_t>(rng() % static_cast<uint64_t>(max_pad + 1));
  return pads;
}

// Size-1 dimensions may carry any stride at all: give some of them junk.
void JunkStridesOnUnitDims(std::mt19937_64& rng, Shape& shape) {
  const int64_t junk[] = {0, 1, -1, 12345, -99999, int64_t{1} << 40, INT64_MAX, INT64_MIN};
  for (size_t d = 0; d < shape.sizes.size(); ++d) {
    if (shape.sizes[d] == 1 && rng() % 2 == 0) shape.strides[d] = Pick(rng, junk);
  }
}

enum LayoutKind {
  kPacked,          // strides nullptr
  kPackedExplicit,  // the same strides, spelled out
  kPadded,          // inner stride 1, outer strides larger than needed
  kPermuted,        // e.g. logical NCHW stored NHWC
  kColumnMajor,
  kOddStrides,      // inner stride 3, 5 or 7
  kNegative,        // some strides negated
  kMixture,         // all of the above at once, junk strides on size-1 dims
  kLayoutKinds
};

Shape RandomShape(std::mt19937_64& rng, int kind, int rank, uint64_t budget) {
  Shape shape;
  shape.sizes = RandomSizes(rng, rank, budget);
  const size_t r = shape.sizes.size();
  const uint32_t all_dims = (1u << r) - 1;
  const int64_t odd[] = {3, 5, 7};
  switch (kind) {
    case kPacked: break;
    case kPackedExplicit: shape.strides = rt_test::PackedStrides(shape.sizes); break;
    case kPadded:
      shape.strides = rt_test::StoredStrides(shape.sizes, rt_test::IdentityOrder(r), 1,
                                             RandomPads(rng, r, 9));
      break;
    case kPermuted:
      shape.strides = rt_test::StoredStrides(shape.sizes, RandomOrder(rng, r), 1, {});
      break;
    case kColumnMajor:
      shape.strides = rt_test::StoredStrides(shape.sizes, rt_test::ReversedOrder(r), 1, {});
      break;
    case kOddStrides:
      shape.strides = rt_test::StoredStrides(shape.sizes, rt_test::IdentityOrder(r),
                                             Pick(rng, odd), RandomPads(rng, r, 2));
      break;
    case kNegative:
      shape.strides = rt_test::FlipSigns(
          rt_test::StoredStrides(shape.sizes, rt_test::IdentityOrder(r), 1,
                                 RandomPads(rng, r, 1)),
          static_cast<uint32_t>(rng()) & all_dims);
      break;
    default:
      shape.strides = rt_test::FlipSigns(
          rt_test::StoredStrides(shape.sizes, RandomOrder(rng, r),
                                 rng() % 2 ? 1 : Pick(rng, odd), RandomPads(rng, r, 5)),
          static_cast<uint32_t>(rng()) & all_dims);
      JunkStridesOnUnitDims(rng, shape);
      break;
  }
  return shape;
}

FillCase RandomCase(std::mt19937_64& rng, int i) {
  FillCase c;
  const int rank = 1 + static_cast<int>(rng() % 8);
  const uint64_t budget = std::min<uint64_t>(kMaxElements, uint64_t{1} << (rng() % 18));
  c.shape = RandomShape(rng, i % kLayoutKinds, rank, budget);
  const uint64_t n = rt_test::ElementCount(c.shape.sizes);
  // A quarter each: anywhere, below a 32-bit, 64-bit and the 128-bit carry,
  // close enough (in blocks) that the fill usually straddles it.
  c.state = rt_test::EdgeState(rng, static_cast<int>(rng() % 4),
                               static_cast<uint32_t>(rng() % (n / 4 + 8)));
  c.element_offset = rng() % 8 == 0 ? rng() >> 1 : rng() % 8;
  const uint32_t threads[] = {1, 1, 2, 3, 4, 8};
  c.threads = Pick(rng, threads);
  const uint64_t tiles[] = {0, 0, 4, 8, 12, 4 * (1 + rng() % 64), 1 + rng() % 50,
                            1 + rng() % 5000};
  c.task_elements = Pick(rng, tiles);
  const StoreMode stores[] = {StoreMode::kAuto, StoreMode::kRegular, StoreMode::kStreaming};
  c.stores = Pick(rng, stores);
  c.misalign_bytes = 4 * static_cast<size_t>(rng() % 16);
  return c;
}

// The parameter: one compiled target (printed by name in failure messages).
struct TargetParam {
  TargetInfo info;
};
void PrintTo(const TargetParam& p, std::ostream* os) { *os << p.info.name; }

std::vector<TargetParam> AllTargets() {
  std::vector<TargetParam> out;
  for (const TargetInfo& t : rt_test::CompiledTargets()) out.push_back(TargetParam{t});
  return out;
}

class TargetTest : public ::testing::TestWithParam<TargetParam> {
 protected:
  void SetUp() override {
    if (!target().supported) GTEST_SKIP() << target().name << " not supported by this CPU";
    if (!rt_test::Swept(target().name)) {
      GTEST_SKIP() << target().name << " left out by RANDTENSOR_TEST_SKIP_TARGETS";
    }
    const randtensor::Status status = randtensor::SetTarget(target().name);
    ASSERT_TRUE(status.ok()) << status.message();
  }
  void TearDown() override { ASSERT_TRUE(randtensor::SetTarget("auto").ok()); }
  static void TearDownTestSuite() { EXPECT_TRUE(randtensor::SetTarget("auto").ok()); }

  static const TargetInfo& target() { return GetParam().info; }

  // Runs `c` against the oracle and checks that the forced target ran.
  void Check(const FillCase& c) {
    rt_test::FillResult r;
    EXPECT_TRUE(rt_test::CheckFill(c, &r));
    EXPECT_STREQ(r.info.target, target().name) << c.Describe();
    EXPECT_EQ(r.info.lanes, target().lanes) << c.Describe();
  }
};

TEST_P(TargetTest, ForcingMakesItActive) {
  TargetInfo active;
  ASSERT_TRUE(randtensor::GetActiveTarget(&active).ok());
  EXPECT_STREQ(active.name, target().name);
  EXPECT_EQ(active.lanes, target().lanes);
  EXPECT_TRUE(active.active);
}

TEST_P(TargetTest, RandomShapesAndLayoutsMatchOracle) {
  std::mt19937_64 rng(0x7a26e7u);  // same cases for every target
  for (int i = 0; i < 500 && !HasFailure(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    Check(RandomCase(rng, i));
  }
}

// The SIMD cores switch to a slower per-lane path when word 0 of the counter
// carries inside a batch: put the carry at every block position of the first
// batches, for contiguous and strided rows and every start within a block.
TEST_P(TargetTest, CarryAtEveryBlockPosition) {
  std::mt19937_64 rng(0xca221);
  for (uint32_t below = 0; below < 200 && !HasFailure(); ++below) {
    FillCase c;
    const int64_t stride = below % 3 == 2 ? 3 : 1;
    c.shape = Shape{{4 * 210 + 3}, {stride}};
    c.state = rt_test::EdgeState(rng, 1 + below % 3, below);
    c.element_offset = below % 4;
    c.stores = below % 2 ? StoreMode::kStreaming : StoreMode::kRegular;
    Check(c);
  }
}

// A carry of word 0 inside runs shorter than a vector of blocks (and just
// longer): the one vector that crosses it then ends the run, partially.
TEST_P(TargetTest, CarryInsideAShortRun) {
  std::mt19937_64 rng(0xca225);
  for (uint32_t below = 0; below < 20 && !HasFailure(); ++below) {
    for (const int64_t n : {1, 5, 17, 33, 63, 64, 65, 70}) {
      FillCase c;
      c.shape = Shape{{n}, {}};
      c.state = rt_test::EdgeState(rng, 1 + below % 3, below);
      c.element_offset = below % 4;
      c.stores = (below + static_cast<uint32_t>(n)) % 2 ? StoreMode::kStreaming
                                                         : StoreMode::kRegular;
      Check(c);
    }
  }
}

// Short rows at every length, start within a block and address alignment.
TEST_P(TargetTest, ShortRowsAtEveryAlignment) {
  std::mt19937_64 rng(0x5407);
  const size_t misaligns[] = {0, 4, 8, 12, 16, 28, 32, 60};
  for (int64_t n = 1; n <= 70 && !HasFailure(); ++n) {
    for (uint64_t offset = 0; offset < 8; ++offset) {
      for (size_t m : misaligns) {
        FillCase c;
        c.shape = Shape{{n}, {}};
        c.state = rt_test::RandomState(rng);
        c.element_offset = offset;
        c.misalign_bytes = m;
        c.stores = (n + static_cast<int64_t>(offset)) % 2 ? StoreMode::kStreaming
                                                          : StoreMode::kRegular;
        Check(c);
      }
    }
  }
}

std::string TargetName(const ::testing::TestParamInfo<TargetParam>& info) {
  std::string name = info.param.info.name;
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllCompiled, TargetTest, ::testing::ValuesIn(AllTargets()),
                         TargetName);

// RANDTENSOR_TEST_SKIP_TARGETS names whole targets, separated by commas.
TEST(TargetSweep, SkipListNamesWholeTargets) {
  const char* before = std::getenv("RANDTENSOR_TEST_SKIP_TARGETS");
  const std::string saved = before == nullptr ? "" : before;
  ASSERT_EQ(setenv("RANDTENSOR_TEST_SKIP_TARGETS", "NEON,SCALAR", 1), 0);
  EXPECT_FALSE(rt_test::Swept("NEON"));
  EXPECT_FALSE(rt_test::Swept("SCALAR"));
  EXPECT_TRUE(rt_test::Swept("NEO"));
  EXPECT_TRUE(rt_test::Swept("SVE"));
  EXPECT_TRUE(rt_test::Swept("AVX2"));
  ASSERT_EQ(setenv("RANDTENSOR_TEST_SKIP_TARGETS", "", 1), 0);
  EXPECT_TRUE(rt_test::Swept("NEON"));
  ASSERT_EQ(unsetenv("RANDTENSOR_TEST_SKIP_TARGETS"), 0);
  EXPECT_TRUE(rt_test::Swept("SCALAR"));
  if (before != nullptr) setenv("RANDTENSOR_TEST_SKIP_TARGETS", saved.c_str(), 1);
}

TEST(Targets, AtLeastScalarIsCompiledAndSupported) {
  bool scalar = false;
  for (const TargetInfo& t : rt_test::CompiledTargets()) {
    if (std::strcmp(t.name, "SCALAR") == 0) scalar = t.supported;
  }
  EXPECT_TRUE(scalar);
}

// Under the automatic choice, a fill of at most 32 stream words runs on the
// widest 8-lane target when the best has 16 (targets.cc: one AVX-512 vector
// computes twice the blocks needed); a forced target runs every fill itself.
// Uint32 bits go through CheckFill (the oracle, guard words, padding, output
// state), packed and strided, on one and two threads; float64 (two words an
// element) is compared with the same fill on the forced best target.
TEST(Targets, SmallFillsTakeTheEightLaneTargetOnlyUnderAuto) {
  const std::vector<TargetInfo> all = rt_test::CompiledTargets();
  const TargetInfo* best = nullptr;
  const TargetInfo* eight = nullptr;
  for (const TargetInfo& t : all) {
    if (!t.supported) continue;
    if (best == nullptr) {
      best = &t;
    } else if (eight == nullptr && t.lanes == 8) {
      eight = &t;
    }
  }
  ASSERT_NE(best, nullptr);
  const std::string small = best->lanes == 16 && eight != nullptr ? eight->name : best->name;
  SCOPED_TRACE("best " + std::string(best->name) + ", small fills " + small);

  struct BitsCase {
    Shape shape;
    uint32_t threads;
    bool is_small;
  };
  const BitsCase bits_cases[] = {{{{1}, {}}, 1, true},
                                 {{{16}, {}}, 1, true},
                                 {{{32}, {}}, 2, true},
                                 {{{4, 8}, {24, 2}}, 1, true},  // strided, 32 elements
                                 {{{33}, {}}, 1, false},
                                 {{{64}, {}}, 2, false},
                                 {{{3, 11}, {-16, 1}}, 1, false}};  // 33, negative stride
  for (const BitsCase& b : bits_cases) {
    FillCase c;
    c.shape = b.shape;
    c.threads = b.threads;
    for (const bool forced : {false, true}) {
      ASSERT_TRUE(randtensor::SetTarget(forced ? best->name : "auto").ok());
      rt_test::FillResult r;
      EXPECT_TRUE(rt_test::CheckFill(c, &r)) << c.Describe();
      EXPECT_EQ(std::string(r.info.target), forced || !b.is_small ? best->name : small)
          << (forced ? "forced" : "auto") << ": " << c.Describe();
    }
  }

  // n float64 uniforms from state 0 on the active choice; the target that ran.
  const auto fill_f64 = [](int64_t n, std::vector<double>* out) {
    out->assign(static_cast<size_t>(n), -1.0);
    randtensor::TensorDesc desc;
    desc.dtype = randtensor::DataType::kFloat64;
    desc.rank = 1;
    desc.sizes = &n;
    randtensor::FillOptions options;
    options.distribution = randtensor::Distribution::Uniform(0, 1);
    randtensor::FillInfo info;
    options.info = &info;
    const randtensor::Status status = randtensor::Fill(
        desc, out->data(), out->size() * sizeof(double), randtensor::PhiloxState{}, nullptr,
        options);
    EXPECT_TRUE(status.ok()) << status.message();
    return std::string(info.target);
  };
  for (const int64_t n : {16, 17}) {  // 32 and 34 stream words
    SCOPED_TRACE(std::to_string(n) + " float64 elements");
    std::vector<double> automatic, forced;
    ASSERT_TRUE(randtensor::SetTarget("auto").ok());
    EXPECT_EQ(fill_f64(n, &automatic), n == 16 ? small : best->name);
    ASSERT_TRUE(randtensor::SetTarget(best->name).ok());
    EXPECT_EQ(fill_f64(n, &forced), best->name);
    EXPECT_EQ(automatic, forced);
  }
  EXPECT_TRUE(randtensor::SetTarget("auto").ok());
}

}  // namespace
}  // namespace targets_test
