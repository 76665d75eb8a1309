// Padded rows: whatever the row length, padding, element offset, thread
// count, store mode and target, every element is its stream element and the
// padding is untouched. Row lengths that are whole vectors of Philox blocks
// on every target (which the writer may generate several rows per kernel
// call, vectors placed across row boundaries) and lengths that are not;
// row strides that keep rows vector-aligned and strides that do not; tasks
// that cut rows. Checked against the oracle, and for other element types
// against the packed fill of the same tensor.

#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "randtensor/fill.h"
#include "test_util.h"

namespace {

using randtensor::PhiloxState;
using rt_test::FillCase;
using rt_test::Shape;
using rt_test::StoreMode;

const PhiloxState kState{{0xfffffffb, 0x01234567, 0x89abcdef, 0xfedcba98, 0x600df00d, 0xc0ffee}};

// Row lengths: whole vectors of blocks on every target (64, 128, 256, 1024
// uint32 elements), a block but not a vector (132, 260), neither (129, 257,
// 1000); pads that keep the row stride a vector multiple (64) or not.
const int64_t kRows[] = {64, 128, 129, 132, 256, 257, 260, 1000, 1024};
const int64_t kPads[] = {3, 16, 64};

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
          for (uint64_t offset : {0, 3, 4}) {
            FillCase c;
            c.shape = shape;
            c.state = kState;
            c.element_offset = offset;
            ASSERT_TRUE(rt_test::CheckFill(c));
            // Tasks that cut rows at block boundaries, on several threads.
            c.threads = 3;
            c.task_elements = static_cast<uint64_t>(2 * row + 4);
            ASSERT_TRUE(rt_test::CheckFill(c));
          }
        }
      }
    }
  });
}

// Non-temporal rows: aligned and misaligned buffers, row strides that keep
// rows vector-aligned or not; neighbouring bytes stay untouched.
TEST(Rows, StreamedPaddedRowsEqualTheOracle) {
  rt_test::ForEachSupportedTarget([](const randtensor::TargetInfo&) {
    for (int64_t row : {64, 256, 257}) {
      for (int64_t pad : {16, 17}) {
        for (size_t misalign : {0, 4, 16}) {
          FillCase c;
          c.shape = Shape{{13, row}, {row + pad, 1}};
          c.state = kState;
          c.stores = StoreMode::kStreaming;
          c.misalign_bytes = misalign;
          for (uint32_t threads : {1, 2}) {
            c.threads = threads;
            c.task_elements = threads == 1 ? 0 : static_cast<uint64_t>(3 * row);
            ASSERT_TRUE(rt_test::CheckFill(c));
          }
        }
      }
    }
  });
}

// Other element types and distributions (one and two words per element,
// 1- to 8-byte elements): the padded fill holds the packed fill's values
// row for row and leaves the padding alone.
TEST(Rows, PaddedRowsOfEveryElementSizeEqualThePackedFill) {
  using randtensor::DataType;
  using randtensor::Distribution;
  struct Kind {
    DataType type;
    Distribution dist;
  };
  const Kind kinds[] = {{DataType::kFloat32, Distribution::Uniform(0, 1)},
                        {DataType::kFloat64, Distribution::Normal(0, 1)},
                        {DataType::kFloat16, Distribution::Uniform(-1, 1)},
                        {DataType::kUint8, Distribution::Bernoulli(0.5)},
                        {DataType::kInt64, Distribution::Integers(0, 1000)}};
  rt_test::ForEachSupportedTarget([&](const randtensor::TargetInfo&) {
    for (const Kind& kind : kinds) {
      const size_t size = static_cast<size_t>(randtensor::ElementSize(kind.type));
      for (int64_t row : {128, 256, 260}) {
        for (int64_t pad : {5, 64}) {
          const int64_t rows = 13, stride = row + pad;
          for (uint32_t threads : {1, 3}) {
            randtensor::FillOptions options;
            options.distribution = kind.dist;
            options.element_offset = 8;
            options.threads = threads;
            options.task_elements = threads == 1 ? 0 : static_cast<uint64_t>(2 * row + 8);
            const int64_t sizes[2] = {rows, row}, strides[2] = {stride, 1};
            randtensor::TensorDesc packed, padded;
            packed.rank = padded.rank = 2;
            packed.sizes = padded.sizes = sizes;
            packed.dtype = padded.dtype = kind.type;
            padded.strides = strides;
            std::vector<uint8_t> want(static_cast<size_t>(rows * row) * size + 64);
            std::vector<uint8_t> got(static_cast<size_t>((rows - 1) * stride + row) * size + 64,
                                     0xA5);
            // 64-byte aligned data in both (vectors.data() may not be).
            uint8_t* w = want.data() + (64 - reinterpret_cast<uintptr_t>(want.data()) % 64) % 64;
            uint8_t* g = got.data() + (64 - reinterpret_cast<uintptr_t>(got.data()) % 64) % 64;
            PhiloxState out;
            ASSERT_TRUE(randtensor::Fill(packed, w, static_cast<uint64_t>(rows * row) * size,
                                         kState, &out, options)
                            .ok());
            ASSERT_TRUE(randtensor::Fill(padded, g,
                                         static_cast<uint64_t>((rows - 1) * stride + row) * size,
                                         kState, &out, options)
                            .ok());
            for (int64_t r = 0; r < rows; ++r) {
              const uint8_t* at = g + static_cast<size_t>(r * stride) * size;
              ASSERT_EQ(std::memcmp(at, w + static_cast<size_t>(r * row) * size,
                                    static_cast<size_t>(row) * size),
                        0)
                  << "type " << static_cast<int>(kind.type) << " row " << row << " pad " << pad
                  << " threads " << threads << ": row " << r;
              if (r + 1 == rows) break;
              for (size_t b = static_cast<size_t>(row) * size;
                   b < static_cast<size_t>(stride) * size; ++b) {
                ASSERT_EQ(at[b], 0xA5) << "padding written after row " << r;
              }
            }
          }
        }
      }
    }
  });
}

}  // namespace
