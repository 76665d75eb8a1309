// randtensor's Philox and counter arithmetic against Random123 and the
// compiler's 128-bit integers, on thousands of pseudo-random inputs (fixed
// seeds), and whole fills of random lengths against the oracle.

#include <array>
#include <cstdint>
#include <random>

#include <gtest/gtest.h>

#include "randtensor/philox.h"
#include "test_util.h"

namespace random123_test {
namespace {

using randtensor::Counter128;
using randtensor::PhiloxKey;
using randtensor::PhiloxState;

// Random states: a quarter each uniform, below a 32-bit carry, below a 64-bit
// carry, below the 128-bit wrap (EdgeState's kinds).
PhiloxState MixedState(std::mt19937_64& rng, int i) {
  return rt_test::EdgeState(rng, i, static_cast<uint32_t>(rng() % 64));
}

TEST(Random123, BlockMatchesOnRandomCountersAndKeys) {
  std::mt19937_64 rng(0x5eed0001);
  for (int i = 0; i < 20000; ++i) {
    const PhiloxState s = MixedState(rng, i);
    const PhiloxKey key = s.key();
    const Counter128 ctr = s.counter();
    const randtensor::PhiloxBlock got = randtensor::philox::Block(ctr, key);
    const std::array<uint32_t, 4> want = rt_test::R123Block(ctr.w, key.k[0], key.k[1]);
    for (int w = 0; w < 4; ++w) {
      ASSERT_EQ(got.v[w], want[w]) << "word " << w << " of case " << i << ", state "
                                   << rt_test::StateString(s);
    }
  }
}

TEST(Random123, ElementMatchesOracle) {
  std::mt19937_64 rng(0x5eed0002);
  for (int i = 0; i < 5000; ++i) {
    const PhiloxState s = MixedState(rng, i);
    const uint64_t e = (i % 2 == 0) ? rng() % 4096 : rng();
    ASSERT_EQ(randtensor::philox::Element(s, e), rt_test::OracleValue(s, e))
        << "element " << e << ", state " << rt_test::StateString(s);
  }
}

TEST(Random123, CounterPlusMatches128BitIntegers) {
  std::mt19937_64 rng(0x5eed0003);
  for (int i = 0; i < 20000; ++i) {
    const PhiloxState s = MixedState(rng, i);
    const uint64_t n = (i % 3 == 0) ? rng() : (i % 3 == 1) ? rng() % 1000 : rng() >> (rng() % 64);
    const Counter128 got = s.counter().Plus(n);
    const std::array<uint32_t, 4> want = rt_test::FromU128(rt_test::ToU128(s.words) + n);
    for (int w = 0; w < 4; ++w) {
      ASSERT_EQ(got.w[w], want[w]) << "word " << w << ", state " << rt_test::StateString(s)
                                   << " + " << n;
    }
  }
}

TEST(Random123, AdvanceMatches128BitIntegers) {
  std::mt19937_64 rng(0x5eed0004);
  for (int i = 0; i < 20000; ++i) {
    const PhiloxState s = MixedState(rng, i);
    const uint64_t n = (i % 2 == 0) ? rng() : rng() % 100;
    ASSERT_TRUE(rt_test::StatesEqual(randtensor::philox::Advance(s, n),
                                     rt_test::ExpectedOutState(s, n)))
        << n << " elements from " << rt_test::StateString(s);
  }
}

// Whole packed fills on the default target: random lengths at random counters,
// many starting just below a carry so that the fill straddles it.
TEST(Random123, PackedFillsOfRandomLengthsMatchOracle) {
  std::mt19937_64 rng(0x5eed0005);
  for (int i = 0; i < 400; ++i) {
    rt_test::FillCase c;
    const int64_t n = (i % 10 == 0) ? 1 + static_cast<int64_t>(rng() % 60000)
                                    : 1 + static_cast<int64_t>(rng() % 3000);
    c.shape = rt_test::Shape{{n}, {}};
    c.state = rt_test::EdgeState(rng, i, static_cast<uint32_t>(rng() % (n / 4 + 2)));
    c.element_offset = (i % 7 == 6) ? rng() >> 2 : rng() % 8;
    c.threads = 1 + static_cast<uint32_t>(rng() % 3);
    c.misalign_bytes = 4 * static_cast<size_t>(rng() % 16);
    ASSERT_TRUE(rt_test::CheckFill(c)) << "case " << i;
  }
}

}  // namespace
}  // namespace random123_test
