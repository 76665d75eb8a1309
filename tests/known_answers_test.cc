// Known answers: SPEC.md section 6, the corrected seed example of section 3
// and C++26's philox4x32 check value of section 7 (all read from
// data/known_answers.txt), counter carries and wraps, state arithmetic,
// element offsets, empty and rank-0 tensors. Expected values come from the
// known-answer file, hand-computed counters, or the oracle (oracle.h).

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "randtensor/fill.h"
#include "randtensor/philox.h"
#include "randtensor/targets.h"
#include "test_util.h"

namespace known_answers_test {
namespace {

using randtensor::Counter128;
using randtensor::PhiloxBlock;
using randtensor::PhiloxKey;
using randtensor::PhiloxState;
using rt_test::FillCase;
using rt_test::Shape;

// ------------------------------------------------------------- Philox blocks

using rt_test::KnownBlock;
using rt_test::KnownFill;

// The inputs of SPEC.md section 6's Random123 vectors, run through the
// library's Philox at compile time: a constexpr initializer that fails to be a
// constant expression does not compile. The results are checked against the
// known-answer file at run time, below.
struct CompileTimeBlock {
  Counter128 ctr;
  PhiloxKey key;
  PhiloxBlock out;
};

constexpr CompileTimeBlock AtCompileTime(Counter128 ctr, PhiloxKey key) {
  return {ctr, key, randtensor::philox::Block(ctr, key)};
}

constexpr uint32_t kOnes = 0xffffffffu;
constexpr CompileTimeBlock kCompileTimeBlocks[] = {
    AtCompileTime({{0, 0, 0, 0}}, {{0, 0}}),
    AtCompileTime({{kOnes, kOnes, kOnes, kOnes}}, {{kOnes, kOnes}}),
    AtCompileTime({{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}}, {{0xa4093822, 0x299f31d0}}),
};

TEST(KnownAnswers, PhiloxBlockMatchesRandom123Vectors) {
  const std::vector<KnownBlock>& vectors = rt_test::Known().blocks;
  ASSERT_EQ(vectors.size(), 3u) << "SPEC.md section 6 has three Random123 vectors";
  for (const KnownBlock& v : vectors) {
    const PhiloxBlock b = randtensor::philox::Block(
        Counter128{{v.counter[0], v.counter[1], v.counter[2], v.counter[3]}},
        PhiloxKey{{v.k0, v.k1}});
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(b.v[i], v.block[i]) << "word " << i << " of vector " << v.name;
    }
  }
  // The same at compile time: each compile-time input is one of the file's.
  for (const CompileTimeBlock& c : kCompileTimeBlocks) {
    const KnownBlock* match = nullptr;
    for (const KnownBlock& v : vectors) {
      if (std::equal(v.counter.begin(), v.counter.end(), c.ctr.w) && v.k0 == c.key.k[0] &&
          v.k1 == c.key.k[1]) {
        match = &v;
      }
    }
    ASSERT_NE(match, nullptr) << "no vector for counter " << rt_test::Hex(c.ctr.w[0]);
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(c.out.v[i], match->block[i]) << "compile time, word " << i << " of vector "
                                             << match->name;
    }
  }
}

// The oracle's source agrees with SPEC.md too (otherwise every oracle test is moot).
TEST(KnownAnswers, Random123ItselfMatchesSpecVectors) {
  const std::vector<KnownBlock>& vectors = rt_test::Known().blocks;
  ASSERT_EQ(vectors.size(), 3u);
  for (const KnownBlock& v : vectors) {
    const std::array<uint32_t, 4> b = rt_test::R123Block(v.counter.data(), v.k0, v.k1);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(b[i], v.block[i]) << "word " << i << " of " << v.name;
  }
}

// ------------------------------------------------------------- whole operator

// SPEC.md section 6's whole-operator cases (zero, carry, wrap128), from the file.
const std::vector<KnownFill>& OperatorCases() {
  static const std::vector<KnownFill> cases = [] {
    std::vector<KnownFill> all = rt_test::Known().FillsWithValues();
    if (all.size() != 3) throw std::runtime_error("expected SPEC.md's three whole-operator cases");
    return all;
  }();
  return cases;
}

// Option sets every known answer must survive: inline, tiny tiles on threads,
// streaming stores.
std::vector<FillCase> OptionVariants(const Shape& shape, const PhiloxState& state) {
  std::vector<FillCase> out;
  const uint32_t threads[] = {1, 2, 4};
  const uint64_t tiles[] = {0, 4, 8};
  const rt_test::StoreMode stores[] = {rt_test::StoreMode::kRegular,
                                       rt_test::StoreMode::kStreaming,
                                       rt_test::StoreMode::kAuto};
  for (int i = 0; i < 3; ++i) {
    FillCase c;
    c.shape = shape;
    c.state = state;
    c.threads = threads[i];
    c.task_elements = tiles[i];
    c.stores = stores[i];
    c.misalign_bytes = 4 * static_cast<size_t>(i);
    out.push_back(c);
  }
  return out;
}

TEST(KnownAnswers, WholeOperatorCasesOnEveryTarget) {
  rt_test::ForEachSupportedTarget([](const randtensor::TargetInfo&) {
    for (const KnownFill& k : OperatorCases()) {
      const Shape shape{{static_cast<int64_t>(k.values.size())}, {}};
      for (const FillCase& c : OptionVariants(shape, k.in)) {
        rt_test::FillResult r;
        EXPECT_TRUE(rt_test::CheckFill(c, &r));
        const std::vector<uint32_t> got = rt_test::ReadLogical(r, shape);
        EXPECT_EQ(got, k.values) << c.Describe();
        EXPECT_TRUE(rt_test::StatesEqual(r.out_state, k.out)) << c.Describe();
      }
    }
  });
}

// SPEC.md section 3: the seed page's example, with the erratum corrected.
TEST(KnownAnswers, SeedExampleAdvancesByCeilNOver4) {
  const KnownFill& k = rt_test::Known().Fill("directml_example");
  FillCase c;
  c.shape = Shape{k.sizes, {}};
  c.state = k.in;
  c.state.words[4] = 0x5eed5eed;  // a key of its own: carried through unchanged
  c.threads = 2;
  ASSERT_EQ(rt_test::ElementCount(c.shape.sizes), 1299420u);
  rt_test::FillResult r;
  EXPECT_TRUE(rt_test::CheckFill(c, &r));
  PhiloxState want = k.out;
  want.words[4] = c.state.words[4];
  EXPECT_TRUE(rt_test::StatesEqual(r.out_state, want));
  // The seed page's erroneous value is the counter minus ceil(N / 4).
  EXPECT_NE(r.out_state.words[0], c.state.words[0] - 324855u) << "the seed page's erroneous value";
  EXPECT_EQ(r.out_state.words[0] - c.state.words[0], 324855u);
}

// SPEC.md section 7: C++26's std::philox4x32 is state {0, 0, 0, 0, seed, 0},
// and its 10000th call with the default seed (the standard's check value) is
// element 9999.
TEST(KnownAnswers, Cpp26Philox4x32CheckValue) {
  const rt_test::KnownElement& k = rt_test::Known().Element("cpp26_philox4x32_10000th");
  EXPECT_EQ(rt_test::OracleValue(k.state, k.index), k.value) << "the oracle";
  EXPECT_EQ(randtensor::philox::Element(k.state, k.index), k.value) << "philox::Element";
  FillCase c;
  c.shape = Shape{{static_cast<int64_t>(k.index) + 1}, {}};
  c.state = k.state;
  rt_test::FillResult r;
  EXPECT_TRUE(rt_test::CheckFill(c, &r));
  EXPECT_EQ(rt_test::ReadLogical(r, c.shape).back(), k.value) << "Fill";
}

// ------------------------------------------------------------- carries

struct CarryCase {
  PhiloxState in;
  int64_t n;
  PhiloxState out;  // hand-computed
};

const CarryCase kCarryCases[] = {
    // word 0 -> 1: 0xfffffffe + 4 = 0x1'00000002.
    {{{0xfffffffe, 0, 0, 0, 7, 9}}, 16, {{0x00000002, 1, 0, 0, 7, 9}}},
    // word 0 -> 1 -> 2.
    {{{0xffffffff, 0xffffffff, 5, 7, 7, 9}}, 4, {{0, 0, 6, 7, 7, 9}}},
    // word 0 -> 1 -> 2 -> 3.
    {{{0xffffffff, 0xffffffff, 0xffffffff, 0x10, 1, 1}}, 1, {{0, 0, 0, 0x11, 1, 1}}},
    // 0xffffffda + 250 = 0x1'000000d4, carrying into word 3; the fill straddles it.
    {{{0xffffffda, 0xffffffff, 0xffffffff, 7, 0x01234567, 0x89abcdef}},
     1000,
     {{0x000000d4, 0, 0, 8, 0x01234567, 0x89abcdef}}},
    // 128-bit wrap in the middle of the fill: 0xfffffff5 + 1000 = 0x1'000003dd.
    {{{0xfffffff5, 0xffffffff, 0xffffffff, 0xffffffff, 0xdeadbeef, 0xcafef00d}},
     4000,
     {{0x000003dd, 0, 0, 0, 0xdeadbeef, 0xcafef00d}}},
    // Partial last block: ceil(4001 / 4) = 1001 blocks.
    {{{0xfffffff5, 0xffffffff, 0xffffffff, 0xffffffff, 3, 4}},
     4001,
     {{0x000003de, 0, 0, 0, 3, 4}}},
};

TEST(KnownAnswers, CounterCarriesThroughAllWordsOnEveryTarget) {
  rt_test::ForEachSupportedTarget([](const randtensor::TargetInfo&) {
    for (const CarryCase& k : kCarryCases) {
      for (const FillCase& c : OptionVariants(Shape{{k.n}, {}}, k.in)) {
        rt_test::FillResult r;
        EXPECT_TRUE(rt_test::CheckFill(c, &r));
        EXPECT_TRUE(rt_test::StatesEqual(r.out_state, k.out)) << c.Describe();
      }
    }
  });
}

// ------------------------------------------------------------- Counter128

struct PlusCase {
  Counter128 in;
  uint64_t n;
  Counter128 out;
};

constexpr uint32_t kF = 0xffffffffu;
constexpr PlusCase kPlusCases[] = {
    {{{1, 2, 3, 4}}, 0, {{1, 2, 3, 4}}},
    {{{kF, kF, kF, kF}}, 0, {{kF, kF, kF, kF}}},
    {{{kF, kF, kF, kF}}, 1, {{0, 0, 0, 0}}},
    {{{kF, kF, kF, kF}}, 2, {{1, 0, 0, 0}}},
    {{{0, 0, 0, 0}}, UINT64_MAX, {{kF, kF, 0, 0}}},
    {{{1, 0, 0, 0}}, UINT64_MAX, {{0, 0, 1, 0}}},
    {{{kF, kF, kF, kF}}, UINT64_MAX, {{0xfffffffe, kF, 0, 0}}},
    {{{0, kF, kF, kF}}, uint64_t{1} << 32, {{0, 0, 0, 0}}},
    {{{0, kF, 0, 0}}, uint64_t{1} << 32, {{0, 0, 1, 0}}},
    {{{kF, kF, 0, 0}}, 0x100000001ull, {{0, 1, 1, 0}}},
    {{{kF, 0xfffffffe, 0, 0}}, 0x100000001ull, {{0, 0, 1, 0}}},
    {{{0x80000000, 0x80000000, 0, 0}}, 0x8000000080000000ull, {{0, 1, 1, 0}}},
    {{{5, 0, kF, 9}}, 0xfffffffbull, {{0, 1, kF, 9}}},
    {{{5, 0, kF, 9}}, 0xfffffffaull, {{kF, 0, kF, 9}}},
};

constexpr bool PlusMatches(const PlusCase& c) { return c.in.Plus(c.n) == c.out; }
static_assert(PlusMatches(kPlusCases[2]), "wrap at compile time");
static_assert(PlusMatches(kPlusCases[6]), "wrap plus 2^64 - 1 at compile time");
static_assert(PlusMatches(kPlusCases[11]), "two carries at compile time");

TEST(KnownAnswers, Counter128PlusEdgeCases) {
  for (const PlusCase& c : kPlusCases) {
    const Counter128 got = c.in.Plus(c.n);
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(got.w[i], c.out.w[i]) << "word " << i << " of {" << rt_test::Hex(c.in.w[0])
                                      << " " << rt_test::Hex(c.in.w[1]) << " "
                                      << rt_test::Hex(c.in.w[2]) << " "
                                      << rt_test::Hex(c.in.w[3]) << "} + " << c.n;
    }
    EXPECT_TRUE(got == c.out);
    EXPECT_FALSE(got != c.out);
  }
  EXPECT_TRUE((Counter128{{1, 2, 3, 4}} != Counter128{{1, 2, 3, 5}}));
}

// ------------------------------------------------------------- Advance

struct AdvanceCase {
  uint64_t elements;
  PhiloxState out;  // from kAdvanceBase
};

constexpr PhiloxState kAdvanceBase{{0xfffffffe, kF, 0, kF, 0xabcdef01, 0x23456789}};
const AdvanceCase kAdvanceCases[] = {
    {0, {{0xfffffffe, kF, 0, kF, 0xabcdef01, 0x23456789}}},
    {1, {{kF, kF, 0, kF, 0xabcdef01, 0x23456789}}},
    {4, {{kF, kF, 0, kF, 0xabcdef01, 0x23456789}}},
    {5, {{0, 0, 1, kF, 0xabcdef01, 0x23456789}}},
    {8, {{0, 0, 1, kF, 0xabcdef01, 0x23456789}}},
    {9, {{1, 0, 1, kF, 0xabcdef01, 0x23456789}}},
    // ceil((2^64 - 1) / 4) = 2^62: word 1 gains 0x40000000.
    {UINT64_MAX, {{0xfffffffe, 0x3fffffff, 1, kF, 0xabcdef01, 0x23456789}}},
};

TEST(KnownAnswers, AdvanceIsCeilOfElementsOverFour) {
  for (const AdvanceCase& c : kAdvanceCases) {
    EXPECT_TRUE(rt_test::StatesEqual(randtensor::philox::Advance(kAdvanceBase, c.elements),
                                     c.out))
        << c.elements << " elements";
  }
  constexpr PhiloxState kWrapped =
      randtensor::philox::Advance(PhiloxState{{kF, kF, kF, kF, 1, 2}}, 5);
  static_assert(kWrapped.words[0] == 1 && kWrapped.words[3] == 0 && kWrapped.words[5] == 2,
                "Advance wraps at 2^128 and keeps the key");
}

// ------------------------------------------------------------- in-place state

TEST(KnownAnswers, InPlaceStateUpdate) {
  rt_test::ForEachSupportedTarget([](const randtensor::TargetInfo&) {
    const KnownFill& k = rt_test::Known().Fill("carry");
    PhiloxState state = k.in;
    std::vector<uint32_t> out(k.values.size(), 0);
    const Shape shape{{static_cast<int64_t>(out.size())}, {}};
    const randtensor::Status status =
        randtensor::Fill(rt_test::DescOf(shape), out.data(), out.size() * 4, state, &state);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(out, k.values);
    EXPECT_TRUE(rt_test::StatesEqual(state, k.out));
  });
}

TEST(KnownAnswers, NullOutStateIsAllowed) {
  const KnownFill& k = rt_test::Known().Fill("zero");
  std::vector<uint32_t> out(k.values.size(), 0);
  const Shape shape{{static_cast<int64_t>(out.size())}, {}};
  ASSERT_TRUE(
      randtensor::Fill(rt_test::DescOf(shape), out.data(), out.size() * 4, k.in, nullptr).ok());
  EXPECT_EQ(out, k.values);
}

// ------------------------------------------------------------- element_offset

// The stream's elements [k, k + n) taken from a longer packed fill of k + n.
std::vector<uint32_t> SliceOfLongerFill(const PhiloxState& state, uint64_t k, int64_t n) {
  FillCase longer;
  longer.shape = Shape{{static_cast<int64_t>(k) + n}, {}};
  longer.state = state;
  rt_test::FillResult r;
  EXPECT_TRUE(rt_test::CheckFill(longer, &r));
  const std::vector<uint32_t> all = rt_test::ReadLogical(r, longer.shape);
  return std::vector<uint32_t>(all.begin() + static_cast<std::ptrdiff_t>(k), all.end());
}

TEST(KnownAnswers, ElementOffsetIsASliceOfTheStream) {
  const PhiloxState state{{0xfffffff0, 0xffffffff, 3, 4, 0x11111111, 0x22222222}};
  for (uint64_t k : {0, 1, 2, 3, 4, 5, 6, 7, 13, 64, 1001}) {
    for (int64_t n : {1, 2, 3, 4, 5, 7, 17, 100, 333}) {
      FillCase c;
      c.shape = Shape{{n}, {}};
      c.state = state;
      c.element_offset = k;
      c.threads = 2;
      c.task_elements = 8;
      rt_test::FillResult r;
      EXPECT_TRUE(rt_test::CheckFill(c, &r));  // values and C + ceil((k + n) / 4)
      EXPECT_EQ(rt_test::ReadLogical(r, c.shape), SliceOfLongerFill(state, k, n))
          << "offset " << k << ", " << n << " elements";
    }
  }
}

TEST(KnownAnswers, LargeElementOffsets) {
  const PhiloxState state{{0x9, 0xfffffffe, 0xffffffff, 0xffffffff, 0xabad1dea, 0x5ca1ab1e}};
  const uint64_t offsets[] = {uint64_t{1} << 34 | 3, (uint64_t{1} << 63) + 1,
                              UINT64_MAX - 1000, UINT64_MAX - 37};
  for (uint64_t k : offsets) {
    FillCase c;
    c.shape = Shape{{37}, {}};
    c.state = state;
    c.element_offset = k;
    EXPECT_TRUE(rt_test::CheckFill(c));
  }
  // The largest legal offset: offset + N = 2^64 - 1, state C + 2^62.
  FillCase c;
  c.shape = Shape{{37}, {}};
  c.state = state;
  c.element_offset = UINT64_MAX - 37;
  rt_test::FillResult r;
  EXPECT_TRUE(rt_test::CheckFill(c, &r));
  EXPECT_TRUE(rt_test::StatesEqual(
      r.out_state, PhiloxState{{0x9, 0x3ffffffe, 0, 0, 0xabad1dea, 0x5ca1ab1e}}));
}

// ------------------------------------------------------------- empty, rank 0

TEST(KnownAnswers, EmptyTensorWritesNothingAndAdvancesByTheOffset) {
  const std::vector<Shape> shapes = {
      Shape{{0}, {}}, Shape{{3, 0, 5}, {}}, Shape{{4, 0}, {}}, Shape{{0, 7}, {8, 1}},
      Shape{{2, 3, 0}, {-30, 10, 1}}};
  const PhiloxState state{{0xfffffffe, kF, kF, kF, 5, 6}};
  for (const Shape& shape : shapes) {
    for (uint64_t offset : {0, 1, 3, 4, 5, 8, 9}) {
      for (bool null_data : {false, true}) {
        std::vector<uint32_t> buffer(16, 0x5a5a5a5a);
        PhiloxState out{{1, 1, 1, 1, 1, 1}};
        randtensor::FillOptions options;
        options.element_offset = offset;
        const randtensor::Status status =
            randtensor::Fill(rt_test::DescOf(shape), null_data ? nullptr : buffer.data(),
                             null_data ? 0 : buffer.size() * 4, state, &out, options);
        const std::string what = "sizes " + rt_test::VecString(shape.sizes) + " offset " +
                                 std::to_string(offset) + (null_data ? " null data" : "");
        EXPECT_TRUE(status.ok()) << what << ": " << status.message();
        EXPECT_EQ(buffer, std::vector<uint32_t>(16, 0x5a5a5a5a)) << what;
        EXPECT_TRUE(rt_test::StatesEqual(out, rt_test::ExpectedOutState(state, offset)))
            << what;
      }
    }
  }
  // By hand: offset 5 -> ceil(5 / 4) = 2 blocks: 0xfffffffe + 2 wraps to 0.
  PhiloxState out;
  randtensor::FillOptions options;
  options.element_offset = 5;
  ASSERT_TRUE(
      randtensor::Fill(rt_test::DescOf(shapes[0]), nullptr, 0, state, &out, options).ok());
  EXPECT_TRUE(rt_test::StatesEqual(out, PhiloxState{{0, 0, 0, 0, 5, 6}}));
}

TEST(KnownAnswers, RankZeroHoldsOneElement) {
  rt_test::ForEachSupportedTarget([](const randtensor::TargetInfo&) {
    for (uint64_t offset : {0, 1, 3, 4, 6}) {
      FillCase c;
      c.shape = Shape{};  // rank 0
      c.state = rt_test::Known().Fill("zero").in;
      c.element_offset = offset;
      rt_test::FillResult r;
      EXPECT_TRUE(rt_test::CheckFill(c, &r));
      EXPECT_EQ(r.words[static_cast<size_t>(r.origin)],
                rt_test::Known().Fill("zero").values.at(static_cast<size_t>(offset)));
    }
  });
}

}  // namespace
}  // namespace known_answers_test
