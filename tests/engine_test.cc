// Philox4x32Engine (randtensor/engine.h) against C++26's known value and the
// oracle (oracle.h: Random123 and 128-bit integers, no library code).
//
// Built twice (tests/CMakeLists.txt): as C++17, and as C++20, where it also
// checks std::uniform_random_bit_generator.
#include "randtensor/engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <random>
#include <type_traits>
#include <vector>

#include "test_util.h"

#if __cplusplus >= 202002L
#include <concepts>
#endif

namespace {

using randtensor::Philox4x32Engine;
using randtensor::PhiloxState;
using rt_test::u128;

// ------------------------------------------- uniform random bit generator
// The requirements by hand (C++17) ...
static_assert(std::is_unsigned<Philox4x32Engine::result_type>::value, "result_type");
static_assert(Philox4x32Engine::min() == 0, "min() is constexpr");
static_assert(Philox4x32Engine::max() == 0xFFFFFFFFu, "max() is constexpr");
static_assert(Philox4x32Engine::min() < Philox4x32Engine::max(), "min < max");
static_assert(std::is_same<decltype(std::declval<Philox4x32Engine&>()()),
                           Philox4x32Engine::result_type>::value,
              "operator() returns result_type");
static_assert(std::is_same<decltype(Philox4x32Engine::min()), Philox4x32Engine::result_type>::value &&
                  std::is_same<decltype(Philox4x32Engine::max()), Philox4x32Engine::result_type>::value,
              "min() and max() return result_type");
// ... and the concept itself where the language has it.
#if __cplusplus >= 202002L
static_assert(std::uniform_random_bit_generator<Philox4x32Engine>);
#endif

// States that reach the corners: counter 0, a counter whose low words carry,
// one a few blocks below 2^128 (wraps), keys of all ones.
std::vector<PhiloxState> States() {
  return {
      PhiloxState::FromSeed(0),
      PhiloxState::FromSeed(20111115),
      PhiloxState::FromSeed(0xDEADBEEFCAFEF00Dull),
      PhiloxState{{0xFFFFFFF0u, 0xFFFFFFFFu, 0, 0, 1, 2}},
      PhiloxState{{0xFFFFFFFEu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu}},
      PhiloxState{{0x74746c65u, 0x6d536561u, 0x6f46726fu, 0x48656c6cu, 0x243F6A88u, 0x85A308D3u}},
  };
}

// The state an engine started at `start` should be in after `e` calls:
// counter C + floor(e / 4) (mod 2^128), position e mod 4.
void ExpectAt(const Philox4x32Engine& engine, const PhiloxState& start, u128 e) {
  const PhiloxState expected = rt_test::StatePlusBlocks(start, e / 4);
  const PhiloxState got = engine.state();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(got.words[i], expected.words[i]) << "word " << i;
  EXPECT_EQ(engine.position(), static_cast<unsigned>(e % 4));
}

// ------------------------------------------------------- C++26 known value
TEST(Engine, Cxx26TenThousandthValue) {
  // [rand.eng.philox]: the 10000th consecutive invocation of a default-
  // constructed std::philox4x32 produces 1955073260.
  Philox4x32Engine engine;
  for (int i = 1; i < 10000; ++i) engine();
  EXPECT_EQ(engine(), 1955073260u);

  Philox4x32Engine seeded(20111115);
  seeded.discard(9999);
  EXPECT_EQ(seeded(), 1955073260u);
}

TEST(Engine, Cxx26SeedMapping) {
  // philox4x32(v): counter 0, key (v mod 2^32, 0): SPEC.md section 7.
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{20111115}, uint64_t{0xFFFFFFFFu},
                     uint64_t{0x123456789ABCDEFull}}) {
    const PhiloxState expected{{0, 0, 0, 0, static_cast<uint32_t>(v), 0}};
    const Philox4x32Engine engine(v);
    ExpectAt(engine, expected, 0);
    EXPECT_TRUE(engine == Philox4x32Engine(expected));
    Philox4x32Engine reseeded(7);
    reseeded();
    reseeded.seed(v);
    EXPECT_TRUE(reseeded == engine);
  }
  // Below 2^32 that is also the CLI's --seed (PhiloxState::FromSeed).
  EXPECT_TRUE(Philox4x32Engine(12345) == Philox4x32Engine(PhiloxState::FromSeed(12345)));
  // At 2^32 and above C++26 keeps the low half only; FromSeed does not.
  EXPECT_TRUE(Philox4x32Engine(0x100000005ull) == Philox4x32Engine(5));
  EXPECT_TRUE(Philox4x32Engine(0x100000005ull) !=
              Philox4x32Engine(PhiloxState::FromSeed(0x100000005ull)));
}

TEST(Engine, SeedSequenceSetsBothKeyWords) {
  std::seed_seq q{1u, 2u, 3u};
  const Philox4x32Engine engine(q);
  std::seed_seq same{1u, 2u, 3u};
  uint32_t a[2];
  same.generate(a, a + 2);
  ExpectAt(engine, PhiloxState{{0, 0, 0, 0, a[0], a[1]}}, 0);
}

// ------------------------------------------------------ against the oracle
TEST(Engine, OperatorCallIsTheStream) {
  for (const PhiloxState& s : States()) {
    Philox4x32Engine engine(s);
    for (u128 e = 0; e < 5003; ++e) {
      ASSERT_EQ(engine(), rt_oracle_element(s.words, e)) << "element " << static_cast<uint64_t>(e);
    }
    ExpectAt(engine, s, 5003);
  }
}

TEST(Engine, SetCounterIsCxx26Order) {
  // c[0] is the most significant word, c[3] the least.
  const PhiloxState s = PhiloxState::FromSeed(0xDEADBEEFCAFEF00Dull);
  Philox4x32Engine engine(s);
  engine();  // mid-block: set_counter starts a new block regardless
  engine.set_counter(std::array<uint32_t, 4>{0x48656c6cu, 0x6f46726fu, 0x6d536561u, 0x74746c65u});
  const PhiloxState expected{{0x74746c65u, 0x6d536561u, 0x6f46726fu, 0x48656c6cu, s.words[4],
                              s.words[5]}};
  ExpectAt(engine, expected, 0);
  for (u128 e = 0; e < 9; ++e) EXPECT_EQ(engine(), rt_oracle_element(expected.words, e));
  // C++26's result_type is uint_fast32_t: wider words are taken mod 2^32.
  engine.set_counter(std::array<uint64_t, 4>{0x100000001ull, 2, 3, 0xFFFFFFFF00000004ull});
  ExpectAt(engine, PhiloxState{{4, 3, 2, 1, s.words[4], s.words[5]}}, 0);
}

// ----------------------------------------------------------------- discard
TEST(Engine, DiscardEqualsCalls) {
  for (const PhiloxState& s : States()) {
    for (unsigned start = 0; start < 4; ++start) {
      for (unsigned long long z = 0; z < 21; ++z) {
        Philox4x32Engine by_discard(s), by_calls(s);
        by_discard.discard(start);
        for (unsigned i = 0; i < start; ++i) by_calls();
        by_discard.discard(z);
        for (unsigned long long i = 0; i < z; ++i) by_calls();
        ASSERT_TRUE(by_discard == by_calls) << "start " << start << " z " << z;
        ExpectAt(by_discard, s, start + z);
        ASSERT_EQ(by_discard(), by_calls());
        ASSERT_EQ(by_discard(), by_calls());
      }
    }
  }
}

TEST(Engine, DiscardHugeAndWraps) {
  const unsigned long long zs[] = {1ull << 40, (1ull << 40) + 3, ~0ull, ~0ull - 1, ~0ull - 2,
                                   ~0ull - 3};
  for (const PhiloxState& s : States()) {
    for (unsigned start = 0; start < 4; ++start) {
      for (unsigned long long z : zs) {
        Philox4x32Engine engine(s);
        engine.discard(start);
        engine.discard(z);
        const u128 e = u128{start} + z;
        ExpectAt(engine, s, e);
        for (u128 i = 0; i < 6; ++i) ASSERT_EQ(engine(), rt_oracle_element(s.words, e + i));
      }
    }
  }
  // Through 2^128: counter 2^128 - 1, skip 2^64 - 1 words (16 times over).
  const PhiloxState top{{0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 3, 4}};
  Philox4x32Engine engine(top);
  u128 e = 0;
  for (int i = 0; i < 16; ++i) {
    engine.discard(~0ull);
    e += ~0ull;
  }
  ExpectAt(engine, top, e);
  EXPECT_EQ(engine(), rt_oracle_element(top.words, e));
}

// ---------------------------------------------------------------- generate
TEST(Engine, GenerateEqualsCallsFromEveryPosition) {
  const size_t ns[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4099, 100003};
  for (const PhiloxState& s : States()) {
    for (unsigned start = 0; start < 4; ++start) {
      for (size_t n : ns) {
        Philox4x32Engine bulk(s);
        for (unsigned i = 0; i < start; ++i) bulk();
        Philox4x32Engine calls = bulk;
        std::vector<uint32_t> got(n + 1, 0xA5A5A5A5u);
        bulk.generate(got.data(), n);
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(got[i], calls()) << "start " << start << " n " << n << " i " << i;
        }
        EXPECT_EQ(got[n], 0xA5A5A5A5u) << "wrote past the end";
        ASSERT_TRUE(bulk == calls) << "start " << start << " n " << n;
        ExpectAt(bulk, s, u128{start} + n);
        ASSERT_EQ(bulk(), calls());
        ASSERT_EQ(bulk(), calls());
      }
    }
  }
}

TEST(Engine, GenerateLargeMatchesOracle) {
  // Large enough for several threads and streaming stores; starts mid-block.
  const PhiloxState s = PhiloxState::FromSeed(42);
  Philox4x32Engine engine(s);
  engine();
  const size_t n = (size_t{1} << 22) + 3;
  std::vector<uint32_t> got(n);
  engine.generate(got.data(), n);
  for (size_t i = 0; i < n; i += 997) {
    ASSERT_EQ(got[i], rt_oracle_element(s.words, u128{i} + 1)) << i;
  }
  EXPECT_EQ(got[n - 1], rt_oracle_element(s.words, u128{n}));
  ExpectAt(engine, s, u128{n} + 1);
}

// ------------------------------------------------------- with <random> code
TEST(Engine, WorksWithDistributionsAndShuffle) {
  Philox4x32Engine a(7), b(7);
  std::uniform_int_distribution<int> die(1, 6);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < 1000; ++i) {
    const int x = die(a);
    ASSERT_GE(x, 1);
    ASSERT_LE(x, 6);
    ASSERT_EQ(x, die(b));
    const double u = unit(a);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    ASSERT_EQ(u, unit(b));
  }
  std::vector<int> v(100), w;
  std::iota(v.begin(), v.end(), 0);
  w = v;
  std::shuffle(v.begin(), v.end(), a);
  std::shuffle(w.begin(), w.end(), b);
  EXPECT_EQ(v, w);
  std::vector<int> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> identity(100);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(sorted, identity);
  EXPECT_NE(v, identity);
  EXPECT_TRUE(a == b);
}

// ---------------------------------------------------------------- equality
TEST(Engine, Equality) {
  Philox4x32Engine a, b(Philox4x32Engine::default_seed);
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a != b);
  a();
  EXPECT_TRUE(a != b);
  b.discard(1);
  EXPECT_TRUE(a == b);
  // Same counter, different position.
  Philox4x32Engine c = a;
  c();
  EXPECT_TRUE(a != c);
  EXPECT_EQ(a.state().words[0], c.state().words[0]);
  // Different keys.
  EXPECT_TRUE(Philox4x32Engine(PhiloxState{{0, 0, 0, 0, 1, 0}}) !=
              Philox4x32Engine(PhiloxState{{0, 0, 0, 0, 1, 1}}));
  // Different counters.
  EXPECT_TRUE(Philox4x32Engine(PhiloxState{{0, 0, 0, 1, 1, 0}}) !=
              Philox4x32Engine(PhiloxState{{0, 0, 0, 0, 1, 0}}));
  // At a block boundary, state() rebuilds the engine.
  a.discard(3);
  EXPECT_EQ(a.position(), 0u);
  EXPECT_TRUE(Philox4x32Engine(a.state()) == a);
  // Copies stay equal as they advance.
  Philox4x32Engine d = a;
  for (int i = 0; i < 10; ++i) EXPECT_EQ(d(), a());
  EXPECT_TRUE(d == a);
}

}  // namespace
