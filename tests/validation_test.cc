// Bad input for the native API (randtensor/fill.h, randtensor/targets.h):
// Fill, MinBufferBytes, SetTarget, GetTarget, GetActiveTarget.
//
// Every rejection is checked by validation::Rejects: the expected StatusCode,
// a message naming the field and its value, the buffer, the output state and
// the FillInfo (with guard bytes around them) byte-for-byte unchanged, and
// nothing printed. Every acceptance is checked against the Random123 oracle
// placed element by element, padding and guards untouched.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "randtensor/fill.h"
#include "randtensor/targets.h"
#include "validation_util.h"

namespace validation_test {
namespace {

using randtensor::DataType;
using randtensor::FillInfo;
using randtensor::FillOptions;
using randtensor::PhiloxState;
using randtensor::Status;
using randtensor::StatusCode;
using randtensor::StoreMode;
using randtensor::TargetInfo;
using randtensor::TensorDesc;
using validation::Case;
using validation::CaseName;
using validation::Expect;
using validation::GuardedMemory;
using validation::PointerText;

__extension__ typedef __int128 i128;  // GCC and Clang, as the library itself

constexpr int64_t kMax = INT64_MAX;
constexpr int64_t kMin = INT64_MIN;
constexpr uint64_t kU64Max = UINT64_MAX;

// A state whose counter carries across words when advanced.
constexpr PhiloxState kState = {{0xFFFFFFFDu, 0xFFFFFFFFu, 0x00000007u, 0, 0x12345678u,
                                 0x9ABCDEF0u}};

uint8_t* Bytes(void* p) { return static_cast<uint8_t*>(p); }

// One Fill call, valid by default: a packed {2,3,4} tensor in a guarded
// buffer, output state in its own guarded block, FillInfo requested. Tests
// break one thing and check the rejection.
class NativeCall {
 public:
  NativeCall() {
    options.info = &info;
    out_state = reinterpret_cast<PhiloxState*>(state_mem.data());
    SetLayout({2, 3, 4});
  }
  NativeCall(const NativeCall&) = delete;
  NativeCall& operator=(const NativeCall&) = delete;

  // Sizes and strides (empty strides: packed). `data` is the buffer's start;
  // when the span fits the buffer, byte_offset puts element (0, ..., 0) where
  // the lowest element lands on that start, and buffer_bytes is the exact
  // minimum.
  void SetLayout(std::vector<int64_t> new_sizes, std::vector<int64_t> new_strides = {}) {
    sizes = std::move(new_sizes);
    strides = std::move(new_strides);
    desc.dtype = DataType::kUint32;
    desc.rank = static_cast<int32_t>(sizes.size());
    desc.sizes = sizes.data();
    desc.strides = strides.empty() ? nullptr : strides.data();
    i128 low = 0, high = 0, packed = 1;
    bool empty = false;
    for (size_t d = sizes.size(); d-- > 0 && !empty;) {  // innermost first, for `packed`
      empty = sizes[d] <= 0;
      const i128 stride = strides.empty() ? packed : strides[d];
      const i128 extent = (static_cast<i128>(sizes[d]) - 1) * stride;
      (extent < 0 ? low : high) += extent;
      if (packed < (i128{1} << 64)) packed *= sizes[d];  // bounded: never used past 2^64
    }
    // Elements spanned; times 4 only once known to fit the buffer (the
    // span of a huge layout times 4 overflows even 128 bits).
    const i128 span = high - low + 1;
    data = buffer.data();
    desc.byte_offset = 0;
    buffer_bytes = empty ? 0 : buffer.size();
    if (!empty && span <= static_cast<i128>(buffer.size() / 4)) {
      desc.byte_offset = static_cast<uint64_t>(-low) * 4;
      buffer_bytes = static_cast<uint64_t>(span * 4);
    }
  }

  // Element (0, ..., 0).
  uint8_t* Origin() const { return Bytes(data) + desc.byte_offset; }

  Status Run() const { return Fill(desc, data, buffer_bytes, *in_state, out_state, options); }

  std::vector<validation::Region> Guarded() const {
    return {buffer.whole(), state_mem.whole(), {&info, sizeof(info)}};
  }

  testing::AssertionResult Rejects(const Expect& expect) const {
    return validation::Rejects([this] { return Run(); }, expect.code, expect.fragments,
                               Guarded());
  }

  // Must succeed with element e at its offset holding oracle(offset + e), the
  // state advanced by offset + N, and no other byte of either block changed.
  // `quiet`: also check that nothing is printed.
  testing::AssertionResult AcceptsAndFills(bool quiet = true) {
    const PhiloxState state = *in_state;  // read before the call: may be in place
    validation::ExpectedImage expected({&buffer, &state_mem});
    const std::vector<int64_t> st = strides.empty() ? rt_test::PackedStrides(sizes) : strides;
    const validation::Span span = validation::BruteForceSpan(
        std::vector<int64_t>(sizes.begin(), sizes.begin() + desc.rank), st);
    for (size_t e = 0; e < span.offsets.size(); ++e) {
      const uint32_t v = rt_test::OracleValue(state, options.element_offset + e);
      expected.Put(Origin() + span.offsets[e] * 4, &v, 4);
    }
    if (out_state != nullptr) {
      const PhiloxState next =
          rt_test::ExpectedOutState(state, options.element_offset + span.offsets.size());
      expected.Put(out_state, &next, sizeof(next));
    }
    const testing::AssertionResult ok = validation::Accepts([this] { return Run(); }, quiet);
    if (!ok) return ok;
    if (!span.offsets.empty() && std::string(info.target).empty()) {
      return testing::AssertionFailure() << "FillInfo::target not reported";
    }
    return expected.Matches();
  }

  std::vector<int64_t> sizes, strides;
  TensorDesc desc;
  GuardedMemory buffer{1024};
  GuardedMemory state_mem{64};
  PhiloxState in_state_value = kState;
  const PhiloxState* in_state = &in_state_value;
  void* data = nullptr;
  uint64_t buffer_bytes = 0;
  PhiloxState* out_state = nullptr;
  FillInfo info;
  FillOptions options;
};

// The tests' own oracle against SPEC.md section 6 (whole-operator cases, from
// the known-answer file).
TEST(NativeValidationOracle, MatchesTheSpecKnownAnswers) {
  const std::vector<rt_test::KnownFill> rows = rt_test::Known().FillsWithValues();
  ASSERT_EQ(rows.size(), 3u) << "SPEC.md section 6 has three whole-operator cases";
  for (const rt_test::KnownFill& row : rows) {
    for (size_t e = 0; e < row.values.size(); ++e) {
      EXPECT_EQ(rt_test::OracleValue(row.in, e), row.values[e]) << e;
    }
    const PhiloxState next = rt_test::ExpectedOutState(row.in, row.values.size());
    EXPECT_EQ(std::memcmp(&next, &row.out, sizeof(next)), 0);
  }
}

TEST(NativeValidationDefaultCall, IsValid) {
  NativeCall call;
  EXPECT_TRUE(call.AcceptsAndFills());
}

// ---------------------------------------------------------------------------
// Descriptor rules: Fill and MinBufferBytes reject them alike.

Expect Layout(NativeCall& c, std::vector<int64_t> sizes, std::vector<int64_t> strides,
              Expect e) {
  c.SetLayout(std::move(sizes), std::move(strides));
  return e;
}

Expect Overlap(NativeCall& c, std::vector<int64_t> sizes, std::vector<int64_t> strides,
               const char* text) {
  return Layout(c, std::move(sizes), std::move(strides),
                {StatusCode::kOverlap, {std::string("strides = ") + text, "share an address"}});
}

const Case<NativeCall> kDescriptorCases[] = {
    {"DtypeUnknown",
     [](NativeCall& c) {
       c.desc.dtype = static_cast<DataType>(99);
       return Expect{StatusCode::kUnsupported, {"dtype = 99"}};
     }},
    {"DtypeNegative",
     [](NativeCall& c) {
       c.desc.dtype = static_cast<DataType>(-1);
       return Expect{StatusCode::kUnsupported, {"dtype = -1"}};
     }},
    {"RankNegative",
     [](NativeCall& c) {
       c.desc.rank = -1;
       return Expect{StatusCode::kUnsupported, {"rank = -1"}};
     }},
    {"RankNine",
     [](NativeCall& c) {
       return Layout(c, std::vector<int64_t>(9, 1), {}, {StatusCode::kUnsupported, {"rank = 9"}});
     }},
    {"RankInt32Max",
     [](NativeCall& c) {
       c.desc.rank = INT32_MAX;
       return Expect{StatusCode::kUnsupported, {"rank = 2147483647"}};
     }},
    {"SizesNull",
     [](NativeCall& c) {
       c.desc.sizes = nullptr;
       return Expect{StatusCode::kInvalidArgument, {"sizes is null", "rank = 3"}};
     }},
    {"NegativeSize",
     [](NativeCall& c) {
       return Layout(c, {2, -3, 4}, {}, {StatusCode::kInvalidArgument, {"sizes[1] = -3"}});
     }},
    {"NegativeSizeAfterAZeroSize",
     [](NativeCall& c) {
       return Layout(c, {0, -1}, {}, {StatusCode::kInvalidArgument, {"sizes[1] = -1"}});
     }},
    {"Int64MinSize",
     [](NativeCall& c) {
       return Layout(c, {kMin}, {},
                     {StatusCode::kInvalidArgument, {"sizes[0] = -9223372036854775808"}});
     }},
    {"ElementCount2To64",
     [](NativeCall& c) {
       return Layout(c, {int64_t{1} << 32, int64_t{1} << 32}, {},
                     {StatusCode::kOverflow, {"sizes[1] = 4294967296"}});
     }},
    {"ElementCount2To63",
     [](NativeCall& c) {
       return Layout(c, {int64_t{1} << 31, int64_t{1} << 32}, {},
                     {StatusCode::kOverflow, {"sizes[1] = 4294967296"}});
     }},
    {"ElementCount2To63OverThreeDims",
     [](NativeCall& c) {
       const int64_t s = int64_t{1} << 21;
       return Layout(c, {s, s, s}, {}, {StatusCode::kOverflow, {"sizes[2] = 2097152"}});
     }},
    {"ElementCountInt64MaxTimesTwo",
     [](NativeCall& c) {
       return Layout(c, {kMax, 2}, {}, {StatusCode::kOverflow, {"sizes[1] = 2"}});
     }},
    {"SpanOverflowOneStride",
     [](NativeCall& c) {
       return Layout(c, {3}, {int64_t{1} << 62},
                     {StatusCode::kOverflow, {"strides[0] = 4611686018427387904", "sizes[0] = 3"}});
     }},
    {"SpanOverflowSumOfStrides",
     [](NativeCall& c) {
       return Layout(c, {2, 2}, {kMax, 1}, {StatusCode::kOverflow, {"strides[1] = 1"}});
     }},
    {"SpanOverflowNegative",
     [](NativeCall& c) {
       return Layout(c, {2, 2}, {-kMax, -kMax},
                     {StatusCode::kOverflow, {"strides[1] = -9223372036854775807"}});
     }},
    {"Int64MinStride",
     [](NativeCall& c) {
       return Layout(c, {2}, {kMin},
                     {StatusCode::kOverflow, {"strides[0] = -9223372036854775808"}});
     }},
    // The offsets fit 64 bits but the bytes do not.
    {"ByteCountOverflowStride",
     [](NativeCall& c) {
       return Layout(c, {2}, {kMax}, {StatusCode::kOverflow, {"strides", "9223372036854775807"}});
     }},
    {"ByteCountOverflowPacked",
     [](NativeCall& c) {
       return Layout(c, {int64_t{1} << 62}, {},
                     {StatusCode::kOverflow, {"sizes", "4611686018427387903"}});
     }},
    {"ByteCountOverflowInt64MaxSize",
     [](NativeCall& c) {
       return Layout(c, {kMax}, {}, {StatusCode::kOverflow, {"sizes", "9223372036854775806"}});
     }},
    {"ByteCountOverflowBothSigns",
     [](NativeCall& c) {
       const int64_t s = int64_t{1} << 62;
       return Layout(c, {2, 2}, {s, -s},
                     {StatusCode::kOverflow, {"-4611686018427387904", "4611686018427387904"}});
     }},
    {"StrideZeroInner",
     [](NativeCall& c) {
       return Layout(c, {3, 4}, {4, 0}, {StatusCode::kOverlap, {"strides[1] = 0", "size 4"}});
     }},
    {"StrideZeroOuterWithNegativeInner",
     [](NativeCall& c) {
       return Layout(c, {3, 4}, {0, -1}, {StatusCode::kOverlap, {"strides[0] = 0", "size 3"}});
     }},
    {"OverlapPositive", [](NativeCall& c) { return Overlap(c, {3, 3}, {2, 1}, "{2,1}"); }},
    {"OverlapNegative2x2", [](NativeCall& c) { return Overlap(c, {2, 2}, {-1, 1}, "{-1,1}"); }},
    {"OverlapNegative3x3", [](NativeCall& c) { return Overlap(c, {3, 3}, {-2, 1}, "{-2,1}"); }},
    {"OverlapAllNegative", [](NativeCall& c) { return Overlap(c, {2, 2}, {-1, -1}, "{-1,-1}"); }},
    {"Overlap3dMixedSigns",
     [](NativeCall& c) { return Overlap(c, {2, 2, 2}, {-3, 2, 1}, "{-3,2,1}"); }},
    {"OverlapHugeEqualStrides",
     [](NativeCall& c) {
       const int64_t s = int64_t{1} << 40;
       return Overlap(c, {2, 2}, {s, s}, "{1099511627776,1099511627776}");
     }},
    // 10^10 elements: decided without enumerating them.
    {"OverlapLargeDimensions",
     [](NativeCall& c) { return Overlap(c, {100000, 100000}, {99999, 1}, "{99999,1}"); }},
    {"OverlapLargeNegative",
     [](NativeCall& c) { return Overlap(c, {100000, 100000}, {-99999, -1}, "{-99999,-1}"); }},
    // The whole value fits the message (under Status::kMaxMessage): it must
    // not be cut short.
    {"OverlapEightDimsLongStrides",
     [](NativeCall& c) {
       const int64_t s = int64_t{1} << 40;
       return Overlap(c, {2, 2, 1, 1, 1, 1, 1, 1}, std::vector<int64_t>(8, s),
                      "{1099511627776,1099511627776,1099511627776,1099511627776,"
                      "1099511627776,1099511627776,1099511627776,1099511627776}");
     }},
};

class NativeValidationFillRejects : public testing::TestWithParam<Case<NativeCall>> {};
class NativeValidationMinBufferBytesRejects : public testing::TestWithParam<Case<NativeCall>> {};

TEST_P(NativeValidationFillRejects, Case) {
  NativeCall call;
  const Expect expect = GetParam().mutate(call);
  EXPECT_TRUE(call.Rejects(expect));
}

TEST_P(NativeValidationMinBufferBytesRejects, Case) {
  NativeCall call;
  const Expect expect = GetParam().mutate(call);
  uint64_t bytes = 0x5EED5EED5EED5EEDu;
  EXPECT_TRUE(validation::Rejects([&] { return MinBufferBytes(call.desc, &bytes); }, expect.code,
                                  expect.fragments, {{&bytes, sizeof(bytes)}}));
}

INSTANTIATE_TEST_SUITE_P(Descriptor, NativeValidationFillRejects,
                         testing::ValuesIn(kDescriptorCases), CaseName());
INSTANTIATE_TEST_SUITE_P(Descriptor, NativeValidationMinBufferBytesRejects,
                         testing::ValuesIn(kDescriptorCases), CaseName());

// ---------------------------------------------------------------------------
// Binding and option rules (Fill only).

Expect Misalign(NativeCall& c, size_t by) {
  c.data = Bytes(c.data) + by;
  return {StatusCode::kMisaligned, {"data = " + PointerText(c.data)}};
}

Expect BufferBytes(NativeCall& c, uint64_t bytes, const char* minimum) {
  c.buffer_bytes = bytes;
  return {StatusCode::kBufferTooSmall, {"buffer_bytes = " + std::to_string(bytes), minimum}};
}

// Output state at data + `at` bytes (may be negative; stays inside the block).
Expect StateAt(NativeCall& c, std::ptrdiff_t at) {
  c.data = Bytes(c.data) + 128;  // room below the buffer
  c.out_state = reinterpret_cast<PhiloxState*>(Bytes(c.data) + at);
  return {StatusCode::kOverlap, {"out_state = " + PointerText(c.out_state)}};
}

// A fake address for data: the call must fail without dereferencing it.
Expect FakeData(NativeCall& c, uintptr_t address, std::vector<int64_t> sizes,
                std::vector<int64_t> strides, uint64_t byte_offset, StatusCode code,
                std::vector<std::string> fragments) {
  c.SetLayout(std::move(sizes), std::move(strides));
  c.data = reinterpret_cast<void*>(address);
  c.desc.byte_offset = byte_offset;
  c.buffer_bytes = kU64Max;
  return {code, std::move(fragments)};
}

// With negative strides byte_offset must leave room for the elements before
// element (0, ..., 0): one element short is one element below the buffer.
Expect ElementsBeforeData(NativeCall& c, uintptr_t address, std::vector<int64_t> sizes,
                          std::vector<int64_t> strides, uint64_t byte_offset,
                          const std::string& reach) {
  const std::string offset = "byte_offset = " + std::to_string(byte_offset);
  return FakeData(c, address, std::move(sizes), std::move(strides), byte_offset,
                  StatusCode::kBufferTooSmall, {offset, reach + " elements before element"});
}

const Case<NativeCall> kBindingCases[] = {
    {"DataNull",
     [](NativeCall& c) {
       c.data = nullptr;
       return Expect{StatusCode::kInvalidArgument, {"data is null", "24 elements"}};
     }},
    {"DataOffBy1", [](NativeCall& c) { return Misalign(c, 1); }},
    {"DataOffBy2", [](NativeCall& c) { return Misalign(c, 2); }},
    {"DataOffBy3", [](NativeCall& c) { return Misalign(c, 3); }},
    {"DataOffBy2NegativeStrides",
     [](NativeCall& c) {
       c.SetLayout({3, 2}, {-2, -3});
       return Misalign(c, 2);
     }},
    {"BufferBytesBelowPackedMinimum", [](NativeCall& c) { return BufferBytes(c, 92, "96"); }},
    {"BufferBytesZero", [](NativeCall& c) { return BufferBytes(c, 0, "96"); }},
    {"BufferBytesBelowStridedMinimum",
     [](NativeCall& c) {
       c.SetLayout({2, 3}, {4, 1});
       return BufferBytes(c, 27, "28");
     }},
    {"BufferBytesBelowNegativeStrideMinimum",
     [](NativeCall& c) {
       c.SetLayout({4}, {-1});
       return BufferBytes(c, 12, "16");
     }},
    {"ElementOffsetPlusCountOverflows",
     [](NativeCall& c) {
       c.options.element_offset = kU64Max - 23;  // + 24 elements = 2^64
       return Expect{StatusCode::kOverflow, {"element_offset = 18446744073709551592", "24"}};
     }},
    {"ElementOffsetMax",
     [](NativeCall& c) {
       c.options.element_offset = kU64Max;
       return Expect{StatusCode::kOverflow, {"element_offset = 18446744073709551615"}};
     }},
    {"StoreModeThree",
     [](NativeCall& c) {
       c.options.stores = static_cast<StoreMode>(3);
       return Expect{StatusCode::kInvalidArgument, {"stores = 3"}};
     }},
    {"StoreModeNegative",
     [](NativeCall& c) {
       c.options.stores = static_cast<StoreMode>(-1);
       return Expect{StatusCode::kInvalidArgument, {"stores = -1"}};
     }},
    {"OutStateInsideBuffer", [](NativeCall& c) { return StateAt(c, 8); }},
    {"OutStateOnBufferStart", [](NativeCall& c) { return StateAt(c, 0); }},
    {"OutStateStraddlesBufferStart", [](NativeCall& c) { return StateAt(c, -20); }},
    {"OutStateOnLastWord", [](NativeCall& c) { return StateAt(c, 92); }},
    {"OutStateInPaddingOnly",
     [](NativeCall& c) {
       c.buffer_bytes = 256;  // more than the 96 the layout needs: all of it is the buffer
       return StateAt(c, 200);
     }},
    // Negative strides: element (0, ..., 0) lies byte_offset into the buffer.
    {"OutStateBelowDataNegativeStrides",
     [](NativeCall& c) {
       c.SetLayout({4}, {-1});  // element (0) at data + 12
       c.out_state = reinterpret_cast<PhiloxState*>(c.buffer.data());
       return Expect{StatusCode::kOverlap, {"out_state = " + PointerText(c.out_state)}};
     }},
    {"OutStateBelowDataMixedStrides",
     [](NativeCall& c) {
       c.SetLayout({3, 4}, {-8, 1});  // element (0, 0) at data + 64
       c.out_state = reinterpret_cast<PhiloxState*>(c.buffer.data() + 16);  // from a padding hole
       return Expect{StatusCode::kOverlap, {"out_state = " + PointerText(c.out_state)}};
     }},
    // The C caller: the buffer's start and strides {-4, 1}, no offset.
    {"NegativeRowsWithoutByteOffset",
     [](NativeCall& c) { return ElementsBeforeData(c, 4096, {3, 4}, {-4, 1}, 0, "8"); }},
    {"NegativeStrideOneElementShort",
     [](NativeCall& c) { return ElementsBeforeData(c, 64, {100}, {-1}, 392, "99"); }},
    {"HugeNegativeStrideFromALowAddress",
     [](NativeCall& c) {
       return ElementsBeforeData(c, 4096, {3}, {-(int64_t{1} << 40)}, 0, "2199023255552");
     }},
    {"NegativeInnerStrideWithoutByteOffset",
     [](NativeCall& c) { return ElementsBeforeData(c, 16, {2, 8}, {8, -1}, 0, "7"); }},
    {"ByteOffsetMisaligned",
     [](NativeCall& c) {
       return FakeData(c, 4096, {4}, {-1}, 14, StatusCode::kMisaligned,
                       {"byte_offset = 14", "element size"});
     }},
    {"ByteOffsetPastTheBufferEnd",
     [](NativeCall& c) {
       c.desc.byte_offset = 8;  // the packed 2x3x4 tensor from 8 bytes in: 8 bytes too few
       return Expect{StatusCode::kBufferTooSmall, {"buffer_bytes = 96", "104 bytes"}};
     }},
    {"BufferPastTheAddressSpace",
     [](NativeCall& c) {
       return FakeData(c, ~uintptr_t{0} - 63, {4}, {-1}, 12, StatusCode::kOverflow,
                       {"buffer_bytes = 18446744073709551615", "address space"});
     }},
};

INSTANTIATE_TEST_SUITE_P(Binding, NativeValidationFillRejects, testing::ValuesIn(kBindingCases),
                         CaseName());

TEST(NativeValidationMinBufferBytes, NullBytes) {
  const int64_t sizes[] = {2, 3};
  TensorDesc desc;
  desc.rank = 2;
  desc.sizes = sizes;
  EXPECT_TRUE(validation::Rejects([&] { return MinBufferBytes(desc, nullptr); },
                                  StatusCode::kInvalidArgument, {"bytes is null"}, {}));
}

// ---------------------------------------------------------------------------
// Valid edge cases: accepted, and exactly the right bytes written.

TEST(NativeValidationValid, RankZeroHoldsOneElement) {
  NativeCall call;
  call.SetLayout({});
  call.desc.sizes = nullptr;  // rank 0 needs no sizes
  EXPECT_EQ(call.buffer_bytes, 4u);
  EXPECT_TRUE(call.AcceptsAndFills());
  uint64_t bytes = 0;
  EXPECT_TRUE(MinBufferBytes(call.desc, &bytes).ok());
  EXPECT_EQ(bytes, 4u);
}

// A tensor with a zero size has no element and no address: any strides, any
// data pointer, any buffer size; it only advances the state by the offset.
TEST(NativeValidationValid, EmptyTensorsAreNoOps) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> layouts = {
      {{0}, {}},
      {{3, 0, 2}, {}},
      {{3, 0, 2}, {0, kMin, 7}},
      {{kMax, 0}, {}},
      {{0, kMax, kMax}, {kMax, kMax, kMin}},
      {{1, 1, 1, 1, 1, 1, 1, 0}, {}},
  };
  for (const auto& layout : layouts) {
    SCOPED_TRACE(testing::PrintToString(layout));
    for (void* data : {static_cast<void*>(nullptr), reinterpret_cast<void*>(3)}) {
      NativeCall call;
      call.SetLayout(layout.first, layout.second);
      call.data = data;
      call.options.element_offset = 5;
      EXPECT_TRUE(call.AcceptsAndFills());  // state advanced by ceil(5 / 4) = 2
      uint64_t bytes = 1;
      EXPECT_TRUE(MinBufferBytes(call.desc, &bytes).ok());
      EXPECT_EQ(bytes, 0u);
    }
  }
}

TEST(NativeValidationValid, LargeButRepresentableLayoutsMeasure) {
  struct Row {
    std::vector<int64_t> sizes, strides;
    uint64_t bytes;
  };
  const Row rows[] = {
      {{int64_t{1} << 61}, {}, uint64_t{1} << 63},
      {{2}, {int64_t{1} << 60}, (uint64_t{1} << 62) + 4},
      {{2, 2}, {-(int64_t{1} << 60), int64_t{1} << 59}, (uint64_t{3} << 61) + 4},
      {{1, 5}, {kMin, 1}, 20},  // a size-1 dimension's stride is never used
      {{kMax, 0}, {}, 0},
  };
  for (const Row& row : rows) {
    TensorDesc desc;
    desc.rank = static_cast<int32_t>(row.sizes.size());
    desc.sizes = row.sizes.data();
    desc.strides = row.strides.empty() ? nullptr : row.strides.data();
    uint64_t bytes = 0;
    const Status s = MinBufferBytes(desc, &bytes);
    EXPECT_TRUE(s.ok()) << validation::Describe(s);
    EXPECT_EQ(bytes, row.bytes) << testing::PrintToString(row.sizes);
  }
}

TEST(NativeValidationValid, IgnoredStrideOnSizeOneDimension) {
  NativeCall call;
  call.SetLayout({1, 3, 1}, {kMin, 1, kMax});
  EXPECT_TRUE(call.AcceptsAndFills());
}

TEST(NativeValidationValid, NegativeAndInterleavedStrides) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> layouts = {
      {{3, 2}, {-2, -3}}, {{4}, {-1}}, {{2, 3}, {-1, 2}}, {{2, 3, 4}, {-1, 8, -2}},
      {{3, 2}, {2, 3}}};
  for (const auto& layout : layouts) {
    SCOPED_TRACE(testing::PrintToString(layout));
    NativeCall call;
    call.SetLayout(layout.first, layout.second);
    EXPECT_TRUE(call.AcceptsAndFills());
  }
}

TEST(NativeValidationValid, ElementOffsetAtTheLimit) {
  NativeCall call;
  call.options.element_offset = kU64Max - 24;  // offset + N = 2^64 - 1
  EXPECT_TRUE(call.AcceptsAndFills());
}

TEST(NativeValidationValid, BufferLargerThanNeeded) {
  NativeCall call;
  call.buffer_bytes = 512;
  EXPECT_TRUE(call.AcceptsAndFills());  // the 416 bytes of padding stay untouched
}

TEST(NativeValidationValid, OutStateRightNextToTheBuffer) {
  NativeCall call;
  call.out_state = reinterpret_cast<PhiloxState*>(Bytes(call.data) + call.buffer_bytes);
  EXPECT_TRUE(call.AcceptsAndFills());
  call.buffer.Refill();
  call.data = Bytes(call.data) + 64;
  call.out_state = reinterpret_cast<PhiloxState*>(Bytes(call.data) - 24);
  EXPECT_TRUE(call.AcceptsAndFills());
}

TEST(NativeValidationValid, NoOutState) {
  NativeCall call;
  call.out_state = nullptr;
  EXPECT_TRUE(call.AcceptsAndFills());
}

// SPEC.md section 6, first case, with the state updated in place.
TEST(NativeValidationValid, InPlaceStateGivesTheKnownAnswer) {
  NativeCall call;
  call.SetLayout({10});
  *call.out_state = PhiloxState{};
  call.in_state = call.out_state;
  ASSERT_TRUE(validation::Accepts([&] { return call.Run(); }));
  const uint32_t* out = static_cast<const uint32_t*>(call.data);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(out[i], rt_test::ZeroStateValues().at(i)) << i;
  EXPECT_TRUE(rt_test::StatesEqual(*call.out_state, rt_test::Known().Fill("zero").out));
}

// The input state may live in the buffer: it is read before anything is written.
TEST(NativeValidationValid, InputStateInsideTheBuffer) {
  NativeCall call;
  call.SetLayout({10});
  PhiloxState* inside = reinterpret_cast<PhiloxState*>(Bytes(call.data) + 8);
  *inside = PhiloxState{};
  call.in_state = inside;
  ASSERT_TRUE(validation::Accepts([&] { return call.Run(); }));
  const uint32_t* out = static_cast<const uint32_t*>(call.data);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(out[i], rt_test::ZeroStateValues().at(i)) << i;
  EXPECT_EQ(call.out_state->words[0], 3u);
}

// ---------------------------------------------------------------------------
// The overlap proof against brute force, with signed strides.

void SweepLayouts(const std::vector<validation::Layout>& layouts) {
  NativeCall call;
  call.options.threads = 1;
  validation::CheckLayouts(layouts, [&](const std::vector<int64_t>& sizes,
                                        const std::vector<int64_t>& strides,
                                        const validation::Span& span) -> std::string {
    call.SetLayout(sizes, strides);
    uint64_t bytes = 0;
    const Status measured = MinBufferBytes(call.desc, &bytes);
    if (span.overlap) {
      const std::string mistake = validation::OverlapMistake(measured, "strides", sizes, strides);
      return mistake.empty() ? validation::OverlapMistake(call.Run(), "strides", sizes, strides)
                             : "MinBufferBytes: " + mistake;
    }
    if (!measured.ok() || bytes != static_cast<uint64_t>(span.high - span.low + 1) * 4) {
      return "MinBufferBytes: " + validation::Describe(measured) + ", " + std::to_string(bytes);
    }
    const testing::AssertionResult ok = call.AcceptsAndFills(/*quiet=*/false);
    call.buffer.Refill();
    call.state_mem.Refill();
    return ok ? "" : ok.message();
  });
}

TEST(NativeValidationOverlapSweep, TwoDimensions) {
  SweepLayouts(validation::AllLayouts(2, 4, -6, 6));
}
TEST(NativeValidationOverlapSweep, ThreeDimensions) {
  SweepLayouts(validation::AllLayouts(3, 3, -4, 4));
}
TEST(NativeValidationOverlapSweep, RandomUpToFourDimensions) {
  SweepLayouts(validation::RandomLayouts(20000, 20240601));
}

// ---------------------------------------------------------------------------
// Inputs that crash the library when accepted: each runs in a child process
// so the rest of the suite still runs.

// A buffer that runs past the top of the address space is no real buffer: the
// mirror image of the "below address 0" rule above.
TEST(NativeValidationCrash, SpanPastTheTopOfTheAddressSpaceIsRejected) {
  validation::ExpectSurvives([]() -> std::string {
    NativeCall call;
    call.SetLayout({100});
    call.data = reinterpret_cast<void*>(~uintptr_t{0} - 63);  // 4-byte aligned
    call.buffer_bytes = 400;
    const Status s = call.Run();
    return s.ok() ? "accepted a buffer that wraps past address 2^64" : "";
  });
}

// FillOptions::task_elements is "rounded up to a multiple of 4": a huge value
// must mean one tile (or be rejected by name), never a crash or a silent
// no-op that still reports success.
TEST(NativeValidationCrash, HugeTaskElements) {
  for (uint64_t tile : {kU64Max, kU64Max - 1, kU64Max - 2, kU64Max - 3, kU64Max - 7,
                        uint64_t{1} << 63}) {
    SCOPED_TRACE(tile);
    validation::ExpectSurvives([tile]() -> std::string {
      NativeCall call;
      call.options.task_elements = tile;
      const std::vector<uint8_t> before = call.buffer.Copy();
      const Status s = call.Run();
      if (s.code() == StatusCode::kInvalidArgument &&
          std::string(s.message()).find("task_elements") != std::string::npos) {
        return call.buffer.Copy() == before ? "" : "rejected but wrote";
      }
      if (!s.ok()) return "rejected with " + validation::Describe(s);
      call.buffer.Refill();
      call.state_mem.Refill();
      const testing::AssertionResult ok = call.AcceptsAndFills(/*quiet=*/false);
      return ok ? "" : "reported success but: " + std::string(ok.message());
    });
  }
}

// ---------------------------------------------------------------------------
// Targets: unknown names, bad indices, null pointers. Each test leaves the
// default ("auto") behind.

class TargetValidation : public testing::Test {
 protected:
  void TearDown() override { EXPECT_TRUE(randtensor::SetTarget("auto").ok()); }

  static std::string ActiveName() {
    TargetInfo info;
    const Status s = randtensor::GetActiveTarget(&info);
    return s.ok() ? info.name : "(error) " + validation::Describe(s);
  }

  static std::string WidestSupported() {
    for (int i = 0; i < randtensor::TargetCount(); ++i) {
      TargetInfo info;
      if (randtensor::GetTarget(i, &info).ok() && info.supported) return info.name;
    }
    return "(none)";
  }
};

TEST_F(TargetValidation, UnknownNameIsRejectedAndListsTheCompiledTargets) {
  ASSERT_TRUE(randtensor::SetTarget("scalar").ok());  // a non-default previous choice
  const std::string before = ActiveName();
  std::vector<std::string> fragments = {"NEON9000"};
  for (int i = 0; i < randtensor::TargetCount(); ++i) {
    TargetInfo info;
    ASSERT_TRUE(randtensor::GetTarget(i, &info).ok());
    fragments.push_back(info.name);
  }
  EXPECT_TRUE(validation::Rejects([] { return randtensor::SetTarget("NEON9000"); },
                                  StatusCode::kUnknownTarget, fragments, {}));
  EXPECT_EQ(ActiveName(), before);
  EXPECT_EQ(before, "SCALAR");
  // A fill still works and runs the previous choice.
  NativeCall call;
  EXPECT_TRUE(call.AcceptsAndFills());
  EXPECT_STREQ(call.info.target, "SCALAR");
}

TEST_F(TargetValidation, NearMissNamesAreUnknown) {
  for (const char* name : {"AVX", "AVX512", "SCALAR ", " sse4", "autox", "SSE4\n"}) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(validation::Rejects([name] { return randtensor::SetTarget(name); },
                                    StatusCode::kUnknownTarget, {"target", "is not a compiled"},
                                    {}));
  }
}

// Highway's SSSE3 target is left out of every build (CMakeLists.txt says
// why): a CPU without SSE4.1 runs SCALAR, and the name is refused as any
// target that is not compiled.
TEST_F(TargetValidation, Ssse3IsNotCompiled) {
#if defined(__x86_64__)
  for (int i = 0; i < randtensor::TargetCount(); ++i) {
    TargetInfo info;
    ASSERT_TRUE(randtensor::GetTarget(i, &info).ok());
    EXPECT_STRNE(info.name, "SSSE3");
  }
  EXPECT_TRUE(validation::Rejects([] { return randtensor::SetTarget("SSSE3"); },
                                  StatusCode::kUnknownTarget, {"'SSSE3'", "is not a compiled"},
                                  {}));
#else
  GTEST_SKIP() << "x86-64 only";
#endif
}

TEST_F(TargetValidation, AutoAndNullMeanTheWidestSupported) {
  for (const char* name : {"auto", "AUTO", "Auto", static_cast<const char*>(nullptr)}) {
    ASSERT_TRUE(randtensor::SetTarget("scalar").ok());
    EXPECT_TRUE(validation::Accepts([name] { return randtensor::SetTarget(name); }));
    EXPECT_EQ(ActiveName(), WidestSupported());
  }
}

TEST_F(TargetValidation, CompiledButUnsupportedTargetIsRejected) {
  for (int i = 0; i < randtensor::TargetCount(); ++i) {
    TargetInfo info;
    ASSERT_TRUE(randtensor::GetTarget(i, &info).ok());
    if (info.supported) continue;
    const std::string before = ActiveName();
    const std::string name = info.name;
    EXPECT_TRUE(validation::Rejects([&] { return randtensor::SetTarget(name.c_str()); },
                                    StatusCode::kUnsupportedTarget, {name}, {}));
    EXPECT_EQ(ActiveName(), before);
    return;
  }
  GTEST_SKIP() << "this CPU supports every compiled target";
}

TEST_F(TargetValidation, GetTargetIndexOutOfRange) {
  const int count = randtensor::TargetCount();
  ASSERT_GT(count, 0);
  for (int index : {-1, count, count + 1, INT32_MIN, INT32_MAX}) {
    TargetInfo info;
    std::memset(static_cast<void*>(&info), 0xAB, sizeof(info));
    EXPECT_TRUE(validation::Rejects([&] { return randtensor::GetTarget(index, &info); },
                                    StatusCode::kInvalidArgument,
                                    {"index = " + std::to_string(index)},
                                    {{&info, sizeof(info)}}));
  }
}

TEST_F(TargetValidation, NullInfoPointers) {
  EXPECT_TRUE(validation::Rejects([] { return randtensor::GetTarget(0, nullptr); },
                                  StatusCode::kInvalidArgument, {"info is null"}, {}));
  EXPECT_TRUE(validation::Rejects([] { return randtensor::GetActiveTarget(nullptr); },
                                  StatusCode::kInvalidArgument, {"info is null"}, {}));
}

}  // namespace
}  // namespace validation_test
