// Padded rows: whatever the row length, padding, element offset, thread
// count, store mode and target, every element is its stream element and the
// padding is untouched. Row lengths that are whole vectors of Philox blocks
// on every target (which the writer generates several rows per kernel call,
// vectors placed across row boundaries) and lengths that are not (also one
// run of rows per call: the vectors that cross a row end go through L1);
// rows shorter than a vector; row strides that keep rows vector-aligned and
// strides that do not, odd ones included; element offsets that start rows
// off a block boundary; tasks that cut rows. Bits against the oracle; every
// other kind (one and two words per element, pairs, 1- to 8-byte elements)
// against the packed fill on the scalar target, whose values the
// distributions test checks against the reference model.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "randtensor/fill.h"
#include "randtensor/targets.h"
#include "test_util.h"

namespace rows_test {
namespace {

using randtensor::PhiloxState;
using rt_test::FillCase;
using rt_test::Shape;
using rt_test::StoreMode;

const PhiloxState kState{{0xfffffffb, 0x01234567, 0x89abcdef, 0xfedcba98, 0x600df00d, 0xc0ffee}};

// Row lengths: whole vectors of blocks on every x86 target (64, 128, 256,
// 1024 uint32 elements), a block but not a vector (132, 260), neither (129,
// 250, 257, 1000); short rows, in place where they are whole vectors of
// blocks (8 uint32 elements on SSE4, 16 on AVX2, 64 on AVX-512) or whole
// hardware vectors that a vector of blocks holds whole (16 and 32 on
// AVX-512) from a block boundary, or, on targets that place pieces of
// vectors (AVX-512, SVE, AVX2, SSE4), rows at least a hardware vector long
// that vectors cross (17, 20, 36, 48), staged otherwise: whole vectors on
// some targets, shorter than one on others (16, 32, 48), vectors crossing
// row ends (17, 20, 36), shorter than any vector (1, 3, 5); pads that keep
// the row stride a vector multiple (64) or not, odd ones among them.
const int64_t kRows[] = {1,   3,   5,   16,  17,  20,  32,   36,  48,
                         64,  128, 129, 132, 250, 256, 257, 260, 1000, 1024};
const int64_t kPads[] = {1, 3, 7, 16, 64};

std::vector<Shape> ShapesOf(int64_t row, int64_t pad) {
  const int64_t stride = row + pad;
  return {Shape{{13, row}, {stride, 1}},                      // 13 rows: groups span rows
          Shape{{3, 5, row}, {5 * stride + 7, stride, 1}},    // runs of 5 rows, 3 times
          Shape{{9, row}, {-stride, 1}}};                     // bottom row first
}

TEST(Rows, PaddedRowsEqualTheOracle) {
  rt_test::ForEachSupportedTarget([](const randtensor::TargetInfo&) {
    for (int64_t row : kRows) {
      for (int64_t pad : kPads) {
        for (const Shape& shape : ShapesOf(row, pad)) {
          for (uint64_t offset : {0, 1, 2, 3, 4}) {
            FillCase c;
            c.shape = shape;
            c.state = kState;
            c.element_offset = offset;
            ASSERT_TRUE(rt_test::CheckFill(c));
            // Tasks that cut rows, on several threads: tasks with one whole
            // row and tasks with several, starting mid-row.
            c.threads = 3;
            for (int64_t task : {2 * row + 4, 5 * row + 4}) {
              c.task_elements = static_cast<uint64_t>(task);
              ASSERT_TRUE(rt_test::CheckFill(c));
            }
          }
        }
      }
    }
  });
}

// Non-temporal rows: aligned and misaligned buffers, row strides that keep
// rows vector-aligned or not, rows that are whole vectors and rows that are
// not, element offsets on and off a block boundary; neighbouring bytes stay
// untouched.
TEST(Rows, StreamedPaddedRowsEqualTheOracle) {
  rt_test::ForEachSupportedTarget([](const randtensor::TargetInfo&) {
    for (int64_t row : {16, 20, 64, 250, 256, 257, 1000}) {
      for (int64_t pad : {1, 16, 17}) {
        for (size_t misalign : {0, 4, 16}) {
          for (uint64_t offset : {0, 2}) {
            FillCase c;
            c.shape = Shape{{13, row}, {row + pad, 1}};
            c.state = kState;
            c.element_offset = offset;
            c.stores = StoreMode::kStreaming;
            c.misalign_bytes = misalign;
            for (uint32_t threads : {1, 2}) {
              c.threads = threads;
              c.task_elements = threads == 1 ? 0 : static_cast<uint64_t>(3 * row + 4);
              ASSERT_TRUE(rt_test::CheckFill(c));
            }
          }
        }
      }
    }
  });
}

// Whether target `name` stores a vector in two pieces across a row end
// (src/capabilities-inl.h): with masked stores (AVX-512, SVE), or by
// copying the pieces through L1 (AVX2, SSE4). NEON and SCALAR do neither.
bool HasMaskedStores(const std::string& name) {
  return name.rfind("AVX3", 0) == 0 || name.rfind("SVE", 0) == 0;
}
bool CopiesPieces(const std::string& name) { return name == "AVX2" || name == "SSE4"; }

// Where short padded rows go: many rows of whole vectors of Philox blocks
// from a block boundary (64 uint32 elements: one vector of blocks on
// AVX-512, four on AVX2) are generated in place, with the vectors in flight
// across row ends, not staged through L1 and copied; so are rows of whole
// hardware vectors that a vector of blocks holds whole (16 and 32 elements:
// a quarter and a half of one on AVX-512, whole vectors of blocks on the
// narrower targets), and, on targets that place pieces of 4-byte elements'
// vectors (AVX-512 and SVE with masked stores, AVX2 and SSE4 copying them
// through L1), rows that vectors cross but at least a hardware vector long
// (20 and 36 elements), each hardware vector stored into its row or rows.
// Elsewhere short rows that vectors would cross (20 and 36 elements) are
// staged, as are rows from an element offset of 1 (64, 36 and 32
// elements), rows shorter than a hardware vector (3), and rows shorter
// than any vector of blocks on targets that place no pieces (the scalar target,
// which has no vectors, takes short rows of any length in place from a
// block boundary), and streamed rows that do not start on a vector
// boundary (the kernel streams only aligned vectors: it declines them). The
// streamed rows are 512 bytes apart, a multiple of the widest vector any
// target may have (SVE's 256 bytes: the kernel's test of alignment).
TEST(Rows, ShortRowsOfWholeVectorsAreGeneratedInPlace) {
  rt_test::ForEachSupportedTarget([](const randtensor::TargetInfo& target) {
    // Vectors of blocks longer than the row (SVE at 1024 bits and more):
    // those rows are staged.
    if (target.lanes > 16) return;
    const std::string name = target.name;
    const bool scalar = name == "SCALAR";
    const char* staged = scalar ? "rows" : "staged rows";
    const bool places_pieces = HasMaskedStores(name) || CopiesPieces(name);
    // Rows that vectors cross, at least a hardware vector (lanes) long.
    const auto crossed = [&](int64_t row) {
      return places_pieces && row >= target.lanes ? "rows" : staged;
    };
    struct Case {
      int64_t row, stride;
      uint64_t offset;
      const char* strategy;
      randtensor::StoreMode stores = randtensor::StoreMode::kRegular;
      uint64_t byte_offset = 0;
    };
    const auto streamed = randtensor::StoreMode::kStreaming;
    for (const Case& c :
         {Case{64, 80, 0, "rows"}, Case{64, 80, 1, "staged rows"}, Case{32, 40, 0, "rows"},
          Case{16, 20, 0, "rows"}, Case{32, 40, 1, "staged rows"}, Case{36, 40, 0, crossed(36)},
          Case{20, 24, 0, crossed(20)}, Case{36, 40, 1, "staged rows"},
          Case{3, 5, 0, staged}, Case{64, 128, 0, "rows", streamed},
          Case{64, 128, 0, staged, streamed, sizeof(uint32_t)}}) {
      const Shape shape{{256, c.row}, {c.stride, 1}};
      randtensor::TensorDesc desc = rt_test::DescOf(shape);
      desc.dtype = randtensor::DataType::kUint32;
      desc.byte_offset = c.byte_offset;
      // Storage from a 256-byte boundary, so that only byte_offset
      // misaligns the rows.
      std::vector<uint32_t> storage(static_cast<size_t>(256 * c.stride + 1 + 64));
      uint32_t* const out = reinterpret_cast<uint32_t*>(
          (reinterpret_cast<uintptr_t>(storage.data()) + 255) & ~uintptr_t{255});
      const size_t out_bytes = static_cast<size_t>(256 * c.stride + 1) * sizeof(uint32_t);
      randtensor::FillInfo info;
      randtensor::FillOptions options;
      options.threads = 1;
      options.element_offset = c.offset;
      options.stores = c.stores;
      options.info = &info;
      PhiloxState next;
      ASSERT_TRUE(randtensor::Fill(desc, out, out_bytes, kState, &next, options).ok());
      EXPECT_STREQ(info.strategy, c.strategy)
          << target.name << ": " << c.row << "-element rows, stride " << c.stride
          << ", element offset " << c.offset << ", byte offset " << c.byte_offset
          << (c.stores == streamed ? ", streamed" : "");
    }
  });
}

// The writer's strategy for 256 rows of `row` elements of `type`, `pad`
// elements apart, filled with `dist` on one thread; "" if the fill fails.
std::string StrategyOf(randtensor::DataType type, randtensor::Distribution dist, int64_t row,
                       int64_t pad) {
  const Shape shape{{256, row}, {row + pad, 1}};
  randtensor::TensorDesc desc = rt_test::DescOf(shape);
  desc.dtype = type;
  const size_t bytes = static_cast<size_t>(256 * (row + pad) * randtensor::ElementSize(type));
  std::vector<uint8_t> out(bytes);
  randtensor::FillInfo info;
  randtensor::FillOptions options;
  options.distribution = dist;
  options.threads = 1;
  options.info = &info;
  PhiloxState next;
  if (!randtensor::Fill(desc, out.data(), bytes, kState, &next, options).ok()) return "";
  return info.strategy;
}

// Crossing a row end from registers needs the elements' vectors placed in
// pieces: masked stores of every size (AVX-512, SVE), or copies through L1
// (AVX2, SSE4) of elements of 2 bytes and more, and of bytes on SSE4. So
// float16 rows that vectors cross go in place where they are at least a
// hardware vector long on all four, and so do bfloat16 rows (whose uniform
// values AVX-512 converts two word vectors at a time, each result vector
// then stored from the rows' cursor); byte rows of 36 on AVX-512 and SVE;
// SSE4 crosses byte rows at least a group of vectors long (5 vectors of 8
// bytes), so rows of 100 bytes go in place there and rows of 36 are staged
// (AVX2 and NEON take rows of 100 bytes in place too, spilling their
// crossing vectors; AVX-512 and SVE cross them). NEON stages the rows of
// 36.
TEST(Rows, ShortRowsCrossFromRegistersWhereTheTargetPlacesTheirPieces) {
  rt_test::ForEachSupportedTarget([](const randtensor::TargetInfo& target) {
    const std::string name = target.name;
    const bool masked_stores = HasMaskedStores(name);
    const bool copies = CopiesPieces(name);
    const int64_t row = 36;
    const bool long_enough = row >= int64_t{target.lanes};
    const auto expected = [&](bool pieces) {
      return name == "SCALAR" || (pieces && long_enough) ? "rows" : "staged rows";
    };
    EXPECT_EQ(StrategyOf(randtensor::DataType::kFloat16, randtensor::Distribution::Uniform(0, 1),
                         row, 4),
              expected(masked_stores || copies))
        << name << ": float16 rows of " << row;
    EXPECT_EQ(StrategyOf(randtensor::DataType::kBfloat16, randtensor::Distribution::Uniform(0, 1),
                         row, 4),
              expected(masked_stores || copies))
        << name << ": bfloat16 rows of " << row;
    EXPECT_EQ(StrategyOf(randtensor::DataType::kUint8, randtensor::Distribution::Bernoulli(0.5),
                         row, 4),
              expected(masked_stores))
        << name << ": uint8 rows of " << row;
    EXPECT_EQ(StrategyOf(randtensor::DataType::kUint8, randtensor::Distribution::Bernoulli(0.5),
                         100, 4),
              "rows")
        << name << ": uint8 rows of 100";
  });
}

// Normals, made in pairs from two word vectors, are not converted word
// vector by word vector, but store each result vector once, in stream
// order (from a whole vector of blocks on AVX-512, from words in L1
// elsewhere), as the long-math kinds do (an exponential here, from words
// in L1 everywhere), so their short rows go in place as the other kinds'
// do where the target places pieces of vectors (AVX-512, SVE: masked
// stores; AVX2, SSE4: copies through L1) and they are at least a hardware
// vector long,
// each store taking its place from the rows' cursor. On NEON the vectors
// that cross a row end spill through L1, and short rows go in place from a
// group of vectors long (a block per 64-bit lane: 6 vectors of 8 floats),
// where the spills cost less than staging; shorter ones are staged. The
// scalar target takes short rows in place. The rows, 4 elements past a
// multiple of 8, are whole vectors of blocks on no target (8 to 128
// elements).
TEST(Rows, ShortNormalAndLongMathRowsGoInPlaceWhereLongEnough) {
  rt_test::ForEachSupportedTarget([](const randtensor::TargetInfo& target) {
    const std::string name = target.name;
    const int64_t lanes = target.lanes;
    const bool places_pieces = HasMaskedStores(name) || CopiesPieces(name);
    const int64_t shortest = places_pieces ? lanes : 6 * 2 * lanes;
    const auto expected = [&](int64_t row) {
      return name == "SCALAR" || row >= shortest ? "rows" : "staged rows";
    };
    for (const int64_t row : {100, 76, 36, 12}) {
      EXPECT_EQ(StrategyOf(randtensor::DataType::kFloat32, randtensor::Distribution::Normal(0, 1),
                           row, 12),
                expected(row))
          << name << ": normal float32 rows of " << row << ", stride " << row + 12;
      EXPECT_EQ(StrategyOf(randtensor::DataType::kFloat32, randtensor::Distribution::Exponential(1),
                           row, 12),
                expected(row))
          << name << ": exponential float32 rows of " << row << ", stride " << row + 12;
    }
  });
}

// The target whose packed fills are the other kinds' expected values: the
// scalar one (no vector of blocks, no run driver), else the narrowest.
std::string ReferenceTarget() {
  std::string name;
  for (const randtensor::TargetInfo& t : rt_test::CompiledTargets()) {
    if (!t.supported) continue;
    name = t.name;
    if (name == "SCALAR") break;
  }
  return name;
}

// A kind of element: its type and distribution.
struct Kind {
  randtensor::DataType type;
  randtensor::Distribution dist;
};

// Stream elements [offset, offset + n) of `kind`, packed, on the reference
// target.
::testing::AssertionResult ReferenceFill(const Kind& kind, uint64_t offset, int64_t n,
                                         std::vector<uint8_t>* want) {
  const std::string reference = ReferenceTarget();
  if (reference.empty()) return ::testing::AssertionFailure() << "no supported target";
  want->assign(static_cast<size_t>(n) * static_cast<size_t>(randtensor::ElementSize(kind.type)),
               0);
  if (!randtensor::SetTarget(reference.c_str()).ok()) {
    return ::testing::AssertionFailure() << "cannot force " << reference;
  }
  randtensor::FillOptions options;
  options.distribution = kind.dist;
  options.element_offset = offset;
  options.threads = 1;
  const Shape shape{{n}, {1}};
  randtensor::TensorDesc packed = rt_test::DescOf(shape);
  packed.dtype = kind.type;
  PhiloxState out;
  const bool ok = randtensor::Fill(packed, want->data(), want->size(), kState, &out, options).ok();
  const bool reset = randtensor::SetTarget("auto").ok();
  if (!ok) return ::testing::AssertionFailure() << "the reference fill failed";
  if (!reset) return ::testing::AssertionFailure() << "cannot return to the automatic target";
  return ::testing::AssertionSuccess();
}

// `rows` padded rows of `row` elements, stride row + pad, filled from
// stream element options.element_offset on the current target: row r holds
// want's elements [r row, (r + 1) row), the padding and the bytes around
// the tensor keep their 0xA5.
::testing::AssertionResult PaddedRowsHold(const Kind& kind, const std::vector<uint8_t>& want,
                                          int64_t rows, int64_t row, int64_t pad,
                                          randtensor::FillOptions options) {
  const size_t size = static_cast<size_t>(randtensor::ElementSize(kind.type));
  const int64_t stride = row + pad;
  const size_t bytes = static_cast<size_t>((rows - 1) * stride + row) * size;
  options.distribution = kind.dist;
  const Shape shape{{rows, row}, {stride, 1}};
  randtensor::TensorDesc padded = rt_test::DescOf(shape);
  padded.dtype = kind.type;
  std::vector<uint8_t> got(bytes + 64 + 8, 0xA5);
  // 64-byte aligned data (vector.data() may not be), guard bytes after it.
  uint8_t* g = got.data() + (64 - reinterpret_cast<uintptr_t>(got.data()) % 64) % 64;
  PhiloxState out;
  if (!randtensor::Fill(padded, g, bytes, kState, &out, options).ok()) {
    return ::testing::AssertionFailure() << "the fill failed";
  }
  const auto where = [&](int64_t r) {
    return "row " + std::to_string(row) + " pad " + std::to_string(pad) + " offset " +
           std::to_string(options.element_offset) + " stores " +
           std::to_string(static_cast<int>(options.stores)) + " threads " +
           std::to_string(options.threads) + ": row " + std::to_string(r);
  };
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* at = g + static_cast<size_t>(r * stride) * size;
    if (std::memcmp(at, want.data() + static_cast<size_t>(r * row) * size,
                    static_cast<size_t>(row) * size) != 0) {
      return ::testing::AssertionFailure() << where(r) << " differs";
    }
    const size_t end = r + 1 == rows ? static_cast<size_t>(row) * size + 8
                                     : static_cast<size_t>(stride) * size;
    for (size_t b = static_cast<size_t>(row) * size; b < end; ++b) {
      if (at[b] != 0xA5) return ::testing::AssertionFailure() << where(r) << ": padding written";
    }
  }
  for (const uint8_t* b = got.data(); b < g; ++b) {
    if (*b != 0xA5) return ::testing::AssertionFailure() << "written before the tensor";
  }
  return ::testing::AssertionSuccess();
}

std::string KindName(const Kind& kind) {
  return "type " + std::to_string(static_cast<int>(kind.type)) + " distribution " +
         std::to_string(static_cast<int>(kind.dist.kind));
}

// Other element types and distributions (one and two words per element,
// pairs, conversions from L1 and straight from the blocks, 1- to 8-byte
// elements): every padded row holds the reference target's packed fill of
// the same stream elements, whatever the row length, pad, offset, threads,
// stores and target, and the padding stays untouched.
TEST(Rows, PaddedRowsOfEveryElementSizeEqualThePackedFill) {
  using randtensor::DataType;
  using randtensor::Distribution;
  const Kind kinds[] = {{DataType::kFloat32, Distribution::Uniform(0, 1)},
                        {DataType::kFloat32, Distribution::Normal(0, 1)},
                        {DataType::kFloat32, Distribution::Exponential(1.5)},
                        {DataType::kFloat64, Distribution::Uniform(-1, 1)},
                        {DataType::kFloat64, Distribution::Normal(0, 1)},
                        {DataType::kFloat16, Distribution::Uniform(-1, 1)},
                        {DataType::kFloat16, Distribution::Normal(0, 1)},
                        {DataType::kBfloat16, Distribution::Uniform(0, 1)},
                        {DataType::kBfloat16, Distribution::Normal(1, 2)},
                        {DataType::kUint8, Distribution::Bernoulli(0.5)},
                        {DataType::kFloat32, Distribution::Bernoulli(0.25)},
                        {DataType::kFloat64, Distribution::Bernoulli(0.75)},
                        {DataType::kInt32, Distribution::Integers(-5, 1000)},
                        {DataType::kInt64, Distribution::Integers(0, 1000)},
                        {DataType::kFloat64, Distribution::Integers(-3, 1000)},
                        {DataType::kInt32, Distribution::Integers(-(int64_t{1} << 30), int64_t{1} << 30)},
                        {DataType::kInt64, Distribution::Integers(0, int64_t{1} << 40)},
                        {DataType::kFloat64, Distribution::Integers(0, int64_t{1} << 40)},
                        // Long math, each result vector stored in stream
                        // order (geometric int64: two per word vector).
                        {DataType::kFloat64, Distribution::Exponential(0.5)},
                        {DataType::kBfloat16, Distribution::Exponential(1)},
                        {DataType::kFloat16, Distribution::Cauchy(0, 2)},
                        {DataType::kFloat32, Distribution::LogNormal(0, 0.5)},
                        {DataType::kFloat64, Distribution::LogNormal(0.5, 0.25)},
                        {DataType::kInt64, Distribution::Geometric(0.3)},
                        {DataType::kInt32, Distribution::Geometric(0.05)},
                        {DataType::kUint8, Distribution::Geometric(0.5)}};
  const int64_t row_lengths[] = {1, 3, 5, 9, 16, 17, 20, 32, 36, 48, 100, 129, 250, 256, 257, 1000};
  const int64_t pads[] = {1, 7, 64};
  const uint64_t offsets[] = {0, 1, 3};
  const int64_t rows = 13;
  for (const Kind& kind : kinds) {
    SCOPED_TRACE(KindName(kind));
    for (uint64_t offset : offsets) {
      // Stream elements [offset, offset + 13 * 1000): padded element (r, c)
      // of rows of any length is element r * row + c of this run.
      std::vector<uint8_t> want;
      ASSERT_TRUE(ReferenceFill(kind, offset, rows * 1000, &want));
      rt_test::ForEachSupportedTarget([&](const randtensor::TargetInfo&) {
        for (int64_t row : row_lengths) {
          for (int64_t pad : pads) {
            for (StoreMode stores : {StoreMode::kRegular, StoreMode::kStreaming}) {
              for (uint32_t threads : {1, 3}) {
                randtensor::FillOptions options;
                options.element_offset = offset;
                options.threads = threads;
                options.stores = stores;
                // Tasks of a few rows that start mid-row.
                options.task_elements = threads == 1 ? 0 : static_cast<uint64_t>(3 * row + 4);
                ASSERT_TRUE(PaddedRowsHold(kind, want, rows, row, pad, options));
              }
            }
          }
        }
      });
    }
  }
}

// Staged rows many stage runs long (the writer generates them a stage at a
// time, each run cut to end on a whole group of the kernel's vectors in
// the stream): from element offsets on and off a group (groups of 6 or 5
// vectors of blocks: 384 float32 elements on AVX-512, 80 on AVX2, 40 on
// SSE4), one thread and tasks that start off a group and mid-row. Bits
// against the oracle; every element size, two words per element and pairs
// against the packed fill, as above.
TEST(Rows, StagedRowsOfManyStageRunsEqualTheOracleAndThePackedFill) {
  using randtensor::DataType;
  using randtensor::Distribution;
  const Kind kinds[] = {{DataType::kFloat32, Distribution::Normal(0, 1)},
                        {DataType::kFloat16, Distribution::Uniform(-1, 1)},
                        {DataType::kUint8, Distribution::Bernoulli(0.5)},
                        {DataType::kFloat64, Distribution::Normal(0, 1)}};
  const int64_t n = 40000;  // more than two stages of 1-byte elements
  const int64_t pad = 5;
  const uint64_t offsets[] = {0, 1, 40, 383, 1001};
  const int64_t row_lengths[] = {3, 20, 36};
  const uint32_t thread_counts[] = {1, 3};
  const auto options_of = [](uint64_t offset, uint32_t threads) {
    randtensor::FillOptions options;
    options.element_offset = offset;
    options.threads = threads;
    options.stores = StoreMode::kRegular;
    options.task_elements = threads == 1 ? 0 : 9996;
    return options;
  };
  rt_test::ForEachSupportedTarget([&](const randtensor::TargetInfo&) {
    for (uint64_t offset : offsets) {
      for (int64_t row : row_lengths) {
        for (uint32_t threads : thread_counts) {
          const randtensor::FillOptions options = options_of(offset, threads);
          FillCase c;
          c.shape = Shape{{n / row, row}, {row + pad, 1}};
          c.state = kState;
          c.element_offset = offset;
          c.threads = threads;
          c.stores = options.stores;
          c.task_elements = options.task_elements;
          ASSERT_TRUE(rt_test::CheckFill(c));
        }
      }
    }
  });
  for (const Kind& kind : kinds) {
    SCOPED_TRACE(KindName(kind));
    for (uint64_t offset : offsets) {
      std::vector<uint8_t> want;
      ASSERT_TRUE(ReferenceFill(kind, offset, n, &want));
      rt_test::ForEachSupportedTarget([&](const randtensor::TargetInfo&) {
        for (int64_t row : row_lengths) {
          for (uint32_t threads : thread_counts) {
            ASSERT_TRUE(
                PaddedRowsHold(kind, want, n / row, row, pad, options_of(offset, threads)));
          }
        }
      });
    }
  }
}

}  // namespace
}  // namespace rows_test
