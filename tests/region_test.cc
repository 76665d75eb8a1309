// Regions of a global tensor (SPEC.md section 10, randtensor/region.h): the
// same global tensor, bit for bit, however it is cut, whatever each piece's
// local layout, target and thread count; the output state the global fill's;
// regions anywhere in a tensor of 2^50 and more elements against the
// oracle; bad regions refused by name with nothing written.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "randtensor/fill.h"
#include "randtensor/targets.h"
#include "test_util.h"

namespace randtensor {
namespace region_test {
namespace {

const PhiloxState kState = {{0xFFFFFFF0u, 0xFFFFFFFFu, 0x12345678u, 7u, 0xDEADBEEFu, 0xCAFEF00Du}};

struct Case {
  const char* what;
  DataType type;
  Distribution dist;
};

const Case kCases[] = {
    {"bits", DataType::kUint32, Distribution::Bits()},
    {"uniform float32", DataType::kFloat32, Distribution::Uniform(-1, 1)},
    {"normal float32 (pairs)", DataType::kFloat32, Distribution::Normal(0, 1)},
    {"uniform float64 (two words)", DataType::kFloat64, Distribution::Uniform(0, 1)},
    {"normal float64 (four words a pair)", DataType::kFloat64, Distribution::Normal(0, 1)},
    {"bernoulli uint8", DataType::kUint8, Distribution::Bernoulli(0.5)},
    {"integers int64, two words", DataType::kInt64, Distribution::Integers(0, int64_t{1} << 40)},
};

// The whole global tensor, packed row-major, and its output state.
std::vector<uint8_t> GlobalFill(const Case& c, const std::vector<int64_t>& global, uint64_t offset,
                                PhiloxState* out) {
  int64_t n = 1;
  for (int64_t g : global) n *= g;
  std::vector<uint8_t> data(static_cast<size_t>(n) * ElementSize(c.type));
  TensorDesc desc;
  desc.dtype = c.type;
  desc.rank = static_cast<int32_t>(global.size());
  desc.sizes = global.data();
  FillOptions options;
  options.element_offset = offset;
  options.distribution = c.dist;
  EXPECT_TRUE(Fill(desc, data.data(), data.size(), kState, out, options).ok());
  return data;
}

// Fills the region [start, start + sizes) of `global` into a local buffer
// laid out by `order` (a permutation of the dimensions, innermost last) and
// `reverse_first` (dimension 0 stored backwards), and copies it into `image`
// (packed global layout). Returns the output state.
PhiloxState FillRegion(const Case& c, const std::vector<int64_t>& global,
                       const std::vector<int64_t>& start, const std::vector<int64_t>& sizes,
                       const std::vector<int>& order, bool reverse_first, uint64_t offset,
                       uint32_t threads, std::vector<uint8_t>* image) {
  const int rank = static_cast<int>(global.size());
  const int size = ElementSize(c.type);
  // Local strides: packed in the order given, with one element of padding
  // after each innermost run (so padding exists and must stay untouched).
  std::vector<int64_t> strides(rank);
  int64_t step = 1;
  for (int k = rank - 1; k >= 0; --k) {
    const int d = order[k];
    strides[d] = step;
    step *= sizes[d] + (k == rank - 1 ? 1 : 0);
  }
  int64_t span = step;
  uint64_t byte_offset = 0;
  if (reverse_first && sizes[0] > 1) {
    byte_offset = static_cast<uint64_t>((sizes[0] - 1) * strides[0]) * size;
    strides[0] = -strides[0];
  }
  std::vector<uint8_t> local(static_cast<size_t>(span) * size, 0xA5);
  TensorDesc desc;
  desc.dtype = c.type;
  desc.rank = rank;
  desc.sizes = sizes.data();
  desc.strides = strides.data();
  desc.byte_offset = byte_offset;
  Region region;
  region.rank = rank;
  region.global_sizes = global.data();
  region.start = start.data();
  FillOptions options;
  options.element_offset = offset;
  options.distribution = c.dist;
  options.region = &region;
  options.threads = threads;
  options.task_elements = threads > 1 ? 12 : 0;
  PhiloxState out;
  const Status s = Fill(desc, local.data(), local.size(), kState, &out, options);
  EXPECT_TRUE(s.ok()) << c.what << ": " << s.message();
  // Copy the region into the global image, marking what was written.
  std::vector<bool> owned(static_cast<size_t>(span), false);
  std::vector<int64_t> idx(rank, 0);
  int64_t count = 1;
  for (int64_t n : sizes) count *= n;
  for (int64_t e = 0; e < count; ++e) {
    int64_t at = static_cast<int64_t>(byte_offset / size), g = 0, gstep = 1;
    for (int d = rank - 1; d >= 0; --d) {
      at += idx[d] * strides[d];
      g += (start[d] + idx[d]) * gstep;
      gstep *= global[d];
    }
    owned[static_cast<size_t>(at)] = true;
    std::memcpy(image->data() + g * size, local.data() + at * size, static_cast<size_t>(size));
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
  for (size_t i = 0; i < owned.size(); ++i) {
    if (owned[i]) continue;
    for (int b = 0; b < size; ++b) EXPECT_EQ(local[i * size + b], 0xA5) << c.what << ": padding";
  }
  return out;
}

TEST(Regions, AnyCuttingMakesTheGlobalTensorOnEveryTarget) {
  const std::vector<int64_t> global = {5, 7, 9};
  const uint64_t offset = 3;
  for (const Case& c : kCases) {
    PhiloxState want_state;
    const std::vector<uint8_t> want = GlobalFill(c, global, offset, &want_state);
    rt_test::ForEachSupportedTarget([&](const TargetInfo& target) {
      // Cuttings: whole, slabs along 0, blocks of 2 x 3 x 4 (uneven edges).
      for (const std::vector<int64_t>& block :
           {std::vector<int64_t>{5, 7, 9}, {2, 7, 9}, {2, 3, 4}, {1, 1, 9}, {5, 7, 1}}) {
        for (const bool transposed : {false, true}) {
          std::vector<uint8_t> image(want.size(), 0);
          for (int64_t a = 0; a < global[0]; a += block[0]) {
            for (int64_t b = 0; b < global[1]; b += block[1]) {
              for (int64_t k = 0; k < global[2]; k += block[2]) {
                const std::vector<int64_t> start = {a, b, k};
                const std::vector<int64_t> sizes = {std::min(block[0], global[0] - a),
                                                    std::min(block[1], global[1] - b),
                                                    std::min(block[2], global[2] - k)};
                const std::vector<int> order =
                    transposed ? std::vector<int>{2, 0, 1} : std::vector<int>{0, 1, 2};
                const PhiloxState out = FillRegion(c, global, start, sizes, order, transposed,
                                                   offset, (a + b + k) % 2 ? 3 : 1, &image);
                EXPECT_EQ(std::memcmp(&out, &want_state, sizeof(out)), 0)
                    << c.what << ": a region's state is the global fill's";
              }
            }
          }
          EXPECT_EQ(image, want) << c.what << " target " << target.name << " blocks "
                                 << block[0] << "x" << block[1] << "x" << block[2]
                                 << (transposed ? " transposed" : "");
        }
      }
    });
  }
}

// A tensor of 2^50 and 2^62 elements, never allocated: regions at random
// places (so counters carry across 32-bit words, and the last elements before
// the 2^128 wrap with the state below) equal the oracle element by element.
TEST(Regions, RegionsOfHugeTensorsEqualTheOracle) {
  std::mt19937_64 rng(20261123);
  const PhiloxState near_wrap = {{0xFFFFFFF0u, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 1u, 2u}};
  for (const std::vector<int64_t>& global :
       {std::vector<int64_t>{int64_t{1} << 25, int64_t{1} << 25},
        std::vector<int64_t>{int64_t{1} << 20, int64_t{1} << 21, int64_t{1} << 21}}) {
    for (const PhiloxState& state : {kState, near_wrap}) {
      for (int trial = 0; trial < 20; ++trial) {
        const int rank = static_cast<int>(global.size());
        std::vector<int64_t> start(rank), sizes(rank, 1);
        sizes[rank - 1] = 1 + static_cast<int64_t>(rng() % 40);
        if (rank > 1) sizes[0] = 1 + static_cast<int64_t>(rng() % 3);
        for (int d = 0; d < rank; ++d) {
          start[d] = static_cast<int64_t>(rng() % static_cast<uint64_t>(global[d] - sizes[d] + 1));
        }
        if (trial == 0) {  // the very end of the tensor
          for (int d = 0; d < rank; ++d) start[d] = global[d] - sizes[d];
        }
        int64_t n = 1;
        for (int64_t s : sizes) n *= s;
        std::vector<uint32_t> local(static_cast<size_t>(n));
        TensorDesc desc;
        desc.rank = rank;
        desc.sizes = sizes.data();
        Region region;
        region.rank = rank;
        region.global_sizes = global.data();
        region.start = start.data();
        FillOptions options;
        options.region = &region;
        PhiloxState out;
        ASSERT_TRUE(Fill(desc, local.data(), local.size() * 4, state, &out, options).ok());
        std::vector<int64_t> idx(rank, 0);
        for (int64_t e = 0; e < n; ++e) {
          uint64_t g = 0, step = 1;
          for (int d = rank - 1; d >= 0; --d) {
            g += static_cast<uint64_t>(start[d] + idx[d]) * step;
            step *= static_cast<uint64_t>(global[d]);
          }
          ASSERT_EQ(local[static_cast<size_t>(e)], rt_test::OracleValue(state, g))
              << "global element " << g;
          for (int d = rank - 1; d >= 0; --d) {
            if (++idx[d] < sizes[d]) break;
            idx[d] = 0;
          }
        }
        uint64_t total = 1;
        for (int64_t gsz : global) total *= static_cast<uint64_t>(gsz);
        EXPECT_TRUE(rt_test::StatesEqual(out, rt_test::ExpectedOutState(state, total)));
      }
    }
  }
}

TEST(Regions, BadRegionsAreRefusedByNameWithNothingWritten) {
  const std::vector<int64_t> global = {4, 6}, sizes = {2, 3};
  struct Bad {
    std::vector<int64_t> start;
    int32_t rank;
    const char* fragment;
  };
  const Bad cases[] = {
      {{3, 0}, 2, "region.start[0] = 3 with sizes[0] = 2 is outside region.global_sizes[0] = 4"},
      {{0, 4}, 2, "region.start[1] = 4"},
      {{-1, 0}, 2, "region.start[0] = -1"},
      {{0, 0}, 1, "region.rank = 1 differs from rank = 2"},
  };
  for (const Bad& c : cases) {
    std::vector<uint32_t> out(6, 0x5A5A5A5Au);
    TensorDesc desc;
    desc.rank = 2;
    desc.sizes = sizes.data();
    Region region;
    region.rank = c.rank;
    region.global_sizes = global.data();
    region.start = c.start.data();
    FillOptions options;
    options.region = &region;
    PhiloxState state = kState;
    const Status s = Fill(desc, out.data(), out.size() * 4, state, &state, options);
    EXPECT_FALSE(s.ok()) << c.fragment;
    EXPECT_NE(std::string(s.message()).find(c.fragment), std::string::npos) << s.message();
    EXPECT_EQ(out, std::vector<uint32_t>(6, 0x5A5A5A5Au));
    EXPECT_EQ(std::memcmp(&state, &kState, sizeof(state)), 0);
  }
}

}  // namespace
}  // namespace region_test
}  // namespace randtensor
