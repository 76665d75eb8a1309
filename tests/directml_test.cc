// Bad input for the DirectML-shaped entry point (randtensor/directml.h):
// ExecuteRandomGenerator and CalcBufferTensorSize(Checked).
//
// Run twice (tests/CMakeLists.txt): as is, every call goes through
// ExecuteRandomGenerator; with RANDTENSOR_DML_VIA_OPERATOR=1 in the
// environment (ctest names "operator.*"), through
// RandomGeneratorOperator::Create and then Execute, so every rule, message
// and value below holds for both ways in.
//
// Every rejection is checked by validation::Rejects: the expected StatusCode,
// a message naming the field and its value, the input state, the output
// buffer and the output state (with guard bytes around each) byte-for-byte
// unchanged, and nothing printed. Every acceptance is checked against the
// Random123 oracle placed element by element, padding and guards untouched.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "randtensor/directml.h"
#include "validation_util.h"

namespace directml_test {
namespace {

using randtensor::FillOptions;
using randtensor::PhiloxState;
using randtensor::Status;
using randtensor::StatusCode;
using namespace randtensor::dml;  // NOLINT: the DML_* names read best unqualified
using validation::Case;
using validation::CaseName;
using validation::Expect;
using validation::GuardedMemory;
using validation::PointerText;

std::vector<int64_t> Widen(const std::vector<UINT>& v) { return {v.begin(), v.end()}; }

// The way in under test: RandomGeneratorOperator where the environment says
// RANDTENSOR_DML_VIA_OPERATOR=1, else ExecuteRandomGenerator.
bool ViaOperator() {
  static const bool via = [] {
    const char* value = std::getenv("RANDTENSOR_DML_VIA_OPERATOR");
    return value != nullptr && std::string(value) == "1";
  }();
  return via;
}

// DirectML's formula (SPEC.md section 4), by hand: the last element's offset
// + 1, times 4 bytes, rounded up to 4.
uint64_t MinTotalBytes(const std::vector<UINT>& sizes, const std::vector<UINT>& strides) {
  uint64_t elements = 1;
  if (strides.empty()) {
    for (UINT s : sizes) elements *= s;
  } else {
    for (size_t d = 0; d < sizes.size(); ++d) elements += uint64_t{sizes[d] - 1} * strides[d];
  }
  return elements * 4;
}

// One ExecuteRandomGenerator call, valid by default: output {2,3,4} packed
// UINT32, input and output state {1,1,1,6}, every memory block guarded.
// Tests break one thing and check the rejection.
class DmlCall {
 public:
  explicit DmlCall(size_t out_bytes = 1024) : out_mem(out_bytes) {
    InitStateDesc(&in_desc, in_sizes);
    InitStateDesc(&os_desc, os_sizes);
    out_desc = DML_BUFFER_TENSOR_DESC{DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 0,
                                      nullptr, nullptr, 0, 0};
    in_tensor = {DML_TENSOR_TYPE_BUFFER, &in_desc};
    out_tensor = {DML_TENSOR_TYPE_BUFFER, &out_desc};
    os_tensor = {DML_TENSOR_TYPE_BUFFER, &os_desc};
    op = {&in_tensor, &out_tensor, &os_tensor, DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10};
    in_bind = {in_mem.data(), sizeof(PhiloxState)};
    os_bind = {os_mem.data(), sizeof(PhiloxState)};
    out_bind = {out_mem.data(), 0};
    SetOutput({2, 3, 4});
  }
  DmlCall(const DmlCall&) = delete;
  DmlCall& operator=(const DmlCall&) = delete;

  // Output sizes and strides (empty: packed); TotalTensorSizeInBytes and the
  // binding size become the minimum.
  void SetOutput(std::vector<UINT> new_sizes, std::vector<UINT> new_strides = {}) {
    sizes = std::move(new_sizes);
    strides = std::move(new_strides);
    out_desc.DimensionCount = static_cast<UINT>(sizes.size());
    out_desc.Sizes = sizes.data();
    out_desc.Strides = strides.empty() ? nullptr : strides.data();
    out_desc.TotalTensorSizeInBytes = MinTotalBytes(sizes, strides);
    out_bind.SizeInBytes = out_desc.TotalTensorSizeInBytes;
  }

  // Writes `state` into the memory the input state is bound to.
  void SetInputState(const PhiloxState& state) {
    std::memcpy(in_bind.Data, &state, sizeof(state));
  }

  Status Run() const {
    if (ViaOperator()) {
      RandomGeneratorOperator created;
      const Status status = RandomGeneratorOperator::Create(op, &created);
      if (!status.ok()) return status;
      return created.Execute(in_bind, out_bind, os_binding, options);
    }
    return ExecuteRandomGenerator(op, in_bind, out_bind, os_binding, options);
  }

  testing::AssertionResult Rejects(const Expect& expect) const {
    return validation::Rejects([this] { return Run(); }, expect.code, expect.fragments,
                               {in_mem.whole(), out_mem.whole(), os_mem.whole()});
  }

  // Must succeed with every element at its offset holding the oracle's value,
  // the output state advanced, and no other byte of any block changed.
  // `quiet`: also check that nothing is printed (off inside a sweep that
  // captures the output itself).
  testing::AssertionResult AcceptsAndFills(bool quiet = true) {
    return AcceptsAndFillsWith([this] { return Run(); }, quiet);
  }
  // The same for another call that fills this tensor (a created operator).
  testing::AssertionResult AcceptsAndFillsWith(const std::function<Status()>& run,
                                               bool quiet = true) {
    PhiloxState state;
    std::memcpy(&state, in_bind.Data, sizeof(state));  // read before the call
    validation::ExpectedImage expected({&in_mem, &out_mem, &os_mem});
    const std::vector<int64_t> wide = Widen(sizes);
    const validation::Span span = validation::BruteForceSpan(
        wide, strides.empty() ? rt_test::PackedStrides(wide) : Widen(strides));
    for (size_t e = 0; e < span.offsets.size(); ++e) {
      const uint32_t v = rt_test::OracleValue(state, e);
      expected.Put(static_cast<uint8_t*>(out_bind.Data) + span.offsets[e] * 4, &v, 4);
    }
    if (os_binding != nullptr) {
      const PhiloxState next = rt_test::ExpectedOutState(state, span.offsets.size());
      expected.Put(os_bind.Data, &next, sizeof(next));
    }
    const testing::AssertionResult ok = validation::Accepts(run, quiet);
    return ok ? expected.Matches() : ok;
  }

  std::vector<UINT> sizes, strides;
  UINT in_sizes[4] = {1, 1, 1, 6};
  UINT os_sizes[4] = {1, 1, 1, 6};
  DML_BUFFER_TENSOR_DESC in_desc, out_desc, os_desc;
  DML_TENSOR_DESC in_tensor, out_tensor, os_tensor;
  DML_RANDOM_GENERATOR_OPERATOR_DESC op;
  GuardedMemory in_mem{64};
  GuardedMemory out_mem;
  GuardedMemory os_mem{64};
  DML_BUFFER_BINDING in_bind, out_bind, os_bind;
  const DML_BUFFER_BINDING* os_binding = &os_bind;
  FillOptions options;

  // The memory blocks no rejection may write.
  std::vector<validation::Region> Blocks() const {
    return {in_mem.whole(), out_mem.whole(), os_mem.whole()};
  }

 private:
  static void InitStateDesc(DML_BUFFER_TENSOR_DESC* d, const UINT* state_sizes) {
    *d = DML_BUFFER_TENSOR_DESC{DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 4,
                                state_sizes, nullptr, sizeof(PhiloxState), 0};
  }
};

uint8_t* Bytes(void* p) { return static_cast<uint8_t*>(p); }

TEST(DirectMlDefaultCall, IsValid) {
  DmlCall call;
  EXPECT_TRUE(call.AcceptsAndFills());
}

// ---------------------------------------------------------------------------
// The operator, the output tensor and the bindings: one row per rule.

class DirectMlRejects : public testing::TestWithParam<Case<DmlCall>> {};

TEST_P(DirectMlRejects, Case) {
  DmlCall call;
  const Expect expect = GetParam().mutate(call);
  EXPECT_TRUE(call.Rejects(expect));
}

// Output sizes; the rest of the call valid.
Expect Output(DmlCall& c, std::vector<UINT> sizes, std::vector<UINT> strides, Expect e) {
  c.SetOutput(std::move(sizes), std::move(strides));
  return e;
}

Expect Alignment(DmlCall& c, UINT alignment) {
  c.out_desc.GuaranteedBaseOffsetAlignment = alignment;
  return {StatusCode::kMisaligned,
          {"OutputTensor.GuaranteedBaseOffsetAlignment = " + std::to_string(alignment)}};
}

// output.Data moved by `shift` bytes (the range stays inside the guarded block).
Expect ShiftOutput(DmlCall& c, size_t shift, UINT alignment, std::vector<std::string> more) {
  c.out_desc.GuaranteedBaseOffsetAlignment = alignment;
  c.out_bind.Data = Bytes(c.out_bind.Data) + shift;
  more.push_back("output.Data = " + PointerText(c.out_bind.Data));
  return {StatusCode::kMisaligned, more};
}

// Output state bound at output.Data + `at` bytes (may be negative).
Expect StateAt(DmlCall& c, std::ptrdiff_t at) {
  c.out_bind.Data = Bytes(c.out_bind.Data) + 64;  // room below the output
  c.os_bind.Data = Bytes(c.out_bind.Data) + at;
  return {StatusCode::kOverlap, {"outputState.Data = " + PointerText(c.os_bind.Data)}};
}

const UINT kNineSizes[9] = {1, 1, 1, 1, 1, 1, 1, 1, 2};

const Case<DmlCall> kDmlCases[] = {
    {"GeneratorTypeNotPhilox",
     [](DmlCall& c) {
       c.op.Type = static_cast<DML_RANDOM_GENERATOR_TYPE>(1);
       return Expect{StatusCode::kUnsupported, {"Type = 1"}};
     }},
    {"GeneratorTypeNegative",
     [](DmlCall& c) {
       c.op.Type = static_cast<DML_RANDOM_GENERATOR_TYPE>(-1);
       return Expect{StatusCode::kUnsupported, {"Type = -1"}};
     }},
    {"InputStateTensorNull",
     [](DmlCall& c) {
       c.op.InputStateTensor = nullptr;
       return Expect{StatusCode::kInvalidArgument, {"InputStateTensor is null"}};
     }},
    {"OutputTensorNull",
     [](DmlCall& c) {
       c.op.OutputTensor = nullptr;
       return Expect{StatusCode::kInvalidArgument, {"OutputTensor is null"}};
     }},
    {"OutputTensorTypeInvalid",
     [](DmlCall& c) {
       c.out_tensor.Type = DML_TENSOR_TYPE_INVALID;
       return Expect{StatusCode::kUnsupported, {"OutputTensor.Type = 0"}};
     }},
    {"OutputTensorTypeUnknown",
     [](DmlCall& c) {
       c.out_tensor.Type = static_cast<DML_TENSOR_TYPE>(2);
       return Expect{StatusCode::kUnsupported, {"OutputTensor.Type = 2"}};
     }},
    {"OutputTensorDescNull",
     [](DmlCall& c) {
       c.out_tensor.Desc = nullptr;
       return Expect{StatusCode::kInvalidArgument, {"OutputTensor.Desc is null"}};
     }},
    {"OutputDataTypeFloat32",
     [](DmlCall& c) {
       c.out_desc.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
       return Expect{StatusCode::kUnsupported, {"OutputTensor.DataType = 1"}};
     }},
    {"OutputDataTypeInt32",
     [](DmlCall& c) {
       c.out_desc.DataType = DML_TENSOR_DATA_TYPE_INT32;
       return Expect{StatusCode::kUnsupported, {"OutputTensor.DataType = 6"}};
     }},
    {"OutputDataTypeUnknown",
     [](DmlCall& c) {
       c.out_desc.DataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
       return Expect{StatusCode::kUnsupported, {"OutputTensor.DataType = 0"}};
     }},
    {"OutputDataTypeOutOfEnum",
     [](DmlCall& c) {
       c.out_desc.DataType = static_cast<DML_TENSOR_DATA_TYPE>(99);
       return Expect{StatusCode::kUnsupported, {"OutputTensor.DataType = 99"}};
     }},
    {"OutputFlagsUnknownBit",
     [](DmlCall& c) {
       c.out_desc.Flags = static_cast<DML_TENSOR_FLAGS>(0x2);
       return Expect{StatusCode::kInvalidArgument, {"OutputTensor.Flags = 0x2"}};
     }},
    {"OutputFlagsHighBit",
     [](DmlCall& c) {
       c.out_desc.Flags = static_cast<DML_TENSOR_FLAGS>(0x80000001u);
       return Expect{StatusCode::kInvalidArgument, {"OutputTensor.Flags = 0x80000001"}};
     }},
    {"OutputDimensionCountZero",
     [](DmlCall& c) {
       c.out_desc.DimensionCount = 0;
       return Expect{StatusCode::kUnsupported, {"OutputTensor.DimensionCount = 0"}};
     }},
    {"OutputDimensionCountNine",
     [](DmlCall& c) {
       c.out_desc.DimensionCount = 9;
       c.out_desc.Sizes = kNineSizes;
       return Expect{StatusCode::kUnsupported, {"OutputTensor.DimensionCount = 9"}};
     }},
    {"OutputDimensionCountHuge",
     [](DmlCall& c) {
       c.out_desc.DimensionCount = 0xFFFFFFFFu;
       return Expect{StatusCode::kUnsupported, {"OutputTensor.DimensionCount = 4294967295"}};
     }},
    {"OutputSizesNull",
     [](DmlCall& c) {
       c.out_desc.Sizes = nullptr;
       return Expect{StatusCode::kInvalidArgument, {"OutputTensor.Sizes is null"}};
     }},
    {"OutputZeroSize",
     [](DmlCall& c) {
       return Output(c, {2, 0, 3}, {},
                     {StatusCode::kInvalidArgument, {"OutputTensor.Sizes[1] = 0"}});
     }},
    {"OutputZeroSizeOnly",
     [](DmlCall& c) {
       return Output(c, {0}, {}, {StatusCode::kInvalidArgument, {"OutputTensor.Sizes[0] = 0"}});
     }},
    // 65536 * 65537 = 2^32 + 2^16 elements: past DirectML's limit. The binding
    // is only 1 KiB and nothing may be allocated or written.
    {"OutputMoreThan2To32Elements",
     [](DmlCall& c) {
       Output(c, {65536, 65537}, {}, {});
       c.out_bind.SizeInBytes = c.out_mem.size();
       return Expect{StatusCode::kUnsupported, {"OutputTensor.Sizes = {65536,65537}"}};
     }},
    {"OutputMoreThan2To32ElementsOverEightDims",
     [](DmlCall& c) {
       Output(c, {16, 16, 16, 16, 16, 16, 16, 17}, {}, {});
       c.out_bind.SizeInBytes = c.out_mem.size();
       return Expect{StatusCode::kUnsupported, {"OutputTensor.Sizes = {16,16,16,16,16,16,16,17}"}};
     }},
    // Exactly 2^32 - 1 elements passes the limit: the call then fails on the
    // (deliberately small) binding, still before writing.
    {"Output2To32Minus1ElementsReachesTheBindingCheck",
     [](DmlCall& c) {
       Output(c, {65535, 65537}, {}, {});
       c.out_bind.SizeInBytes = c.out_mem.size();
       return Expect{StatusCode::kBufferTooSmall, {"output.SizeInBytes = 1024", "17179869180"}};
     }},
    {"OutputStrideZeroOnInnerDimension",
     [](DmlCall& c) {
       return Output(c, {3, 4}, {4, 0},
                     {StatusCode::kOverlap, {"OutputTensor.Strides[1] = 0", "size 4"}});
     }},
    {"OutputStrideZeroOnOuterDimension",
     [](DmlCall& c) {
       return Output(c, {3, 4}, {0, 1},
                     {StatusCode::kOverlap, {"OutputTensor.Strides[0] = 0", "size 3"}});
     }},
    {"OutputOverlap3x3Strides2And1",
     [](DmlCall& c) {
       return Output(c, {3, 3}, {2, 1}, {StatusCode::kOverlap, {"OutputTensor.Strides = {2,1}"}});
     }},
    {"OutputOverlap2x2Strides1And1",
     [](DmlCall& c) {
       return Output(c, {2, 2}, {1, 1}, {StatusCode::kOverlap, {"OutputTensor.Strides = {1,1}"}});
     }},
    {"OutputOverlap3dInterleaved",
     [](DmlCall& c) {
       return Output(c, {2, 2, 2}, {3, 2, 1},
                     {StatusCode::kOverlap, {"OutputTensor.Strides = {3,2,1}"}});
     }},
    {"OutputOverlapBroadcastInTheMiddle",
     [](DmlCall& c) {
       return Output(c, {2, 1, 5}, {4, 7, 2},
                     {StatusCode::kOverlap, {"OutputTensor.Strides = {4,7,2}"}});
     }},
    {"OutputTotalBelowPackedMinimum",
     [](DmlCall& c) {
       c.out_desc.TotalTensorSizeInBytes = 92;
       return Expect{StatusCode::kBufferTooSmall,
                     {"OutputTensor.TotalTensorSizeInBytes = 92", "96"}};
     }},
    {"OutputTotalBelowStridedMinimum",
     [](DmlCall& c) {
       Output(c, {2, 3}, {4, 1}, {});
       c.out_desc.TotalTensorSizeInBytes = 24;
       return Expect{StatusCode::kBufferTooSmall,
                     {"OutputTensor.TotalTensorSizeInBytes = 24", "28"}};
     }},
    {"OutputTotalZero",
     [](DmlCall& c) {
       c.out_desc.TotalTensorSizeInBytes = 0;
       return Expect{StatusCode::kBufferTooSmall, {"OutputTensor.TotalTensorSizeInBytes = 0"}};
     }},
    {"OutputAlignment2", [](DmlCall& c) { return Alignment(c, 2); }},
    {"OutputAlignment3", [](DmlCall& c) { return Alignment(c, 3); }},
    {"OutputAlignment6", [](DmlCall& c) { return Alignment(c, 6); }},
    {"OutputAlignment12", [](DmlCall& c) { return Alignment(c, 12); }},
    {"OutputAlignment1", [](DmlCall& c) { return Alignment(c, 1); }},
    {"OutputAlignmentTopBitPlusOne", [](DmlCall& c) { return Alignment(c, 0x80000001u); }},
    {"OutputDataNotAMultipleOf16",
     [](DmlCall& c) {
       return ShiftOutput(c, 4, 16, {"OutputTensor.GuaranteedBaseOffsetAlignment = 16"});
     }},
    {"OutputDataNotAMultipleOf256",
     [](DmlCall& c) {
       return ShiftOutput(c, 128, 256, {"OutputTensor.GuaranteedBaseOffsetAlignment = 256"});
     }},
    {"OutputDataOffBy1", [](DmlCall& c) { return ShiftOutput(c, 1, 0, {"4 bytes"}); }},
    {"OutputDataOffBy2", [](DmlCall& c) { return ShiftOutput(c, 2, 0, {"4 bytes"}); }},
    {"OutputDataNull",
     [](DmlCall& c) {
       c.out_bind.Data = nullptr;
       return Expect{StatusCode::kInvalidArgument, {"output.Data is null"}};
     }},
    {"OutputBindingSmallerThanTotal",
     [](DmlCall& c) {
       c.out_bind.SizeInBytes = 92;
       return Expect{StatusCode::kBufferTooSmall,
                     {"output.SizeInBytes = 92", "OutputTensor.TotalTensorSizeInBytes = 96"}};
     }},
    {"OutputStateBoundButTensorNull",
     [](DmlCall& c) {
       c.op.OutputStateTensor = nullptr;
       return Expect{StatusCode::kInvalidArgument, {"outputState", "OutputStateTensor is null"}};
     }},
    {"OutputStateTensorSetButNotBound",
     [](DmlCall& c) {
       c.os_binding = nullptr;
       return Expect{StatusCode::kInvalidArgument, {"outputState is null", "OutputStateTensor"}};
     }},
    {"OutputStateInsideOutput", [](DmlCall& c) { return StateAt(c, 8); }},
    {"OutputStateOnOutputStart", [](DmlCall& c) { return StateAt(c, 0); }},
    {"OutputStateStraddlesOutputStart", [](DmlCall& c) { return StateAt(c, -20); }},
    {"OutputStateOnLastOutputWord", [](DmlCall& c) { return StateAt(c, 92); }},
    // Sizes {2,3} strides {4,1} need 28 bytes; TotalTensorSizeInBytes says 64,
    // and DirectML may write all 64: a state in the padding is an overlap too.
    {"OutputStateInPaddingOnly",
     [](DmlCall& c) {
       Output(c, {2, 3}, {4, 1}, {});
       c.out_desc.TotalTensorSizeInBytes = c.out_bind.SizeInBytes = 64;
       return StateAt(c, 40);
     }},
    {"OptionsElementOffset",
     [](DmlCall& c) {
       c.options.element_offset = 5;
       return Expect{StatusCode::kInvalidArgument, {"options.element_offset = 5"}};
     }},
    // DirectML's operator writes UINT32 bits of a whole tensor: a distribution
    // or a region would be silently ignored, so they are refused.
    {"OptionsDistribution",
     [](DmlCall& c) {
       c.options.distribution = randtensor::Distribution::Uniform(0, 1);
       return Expect{StatusCode::kUnsupported, {"options.distribution.kind = 1", "UINT32"}};
     }},
    {"OptionsRegion",
     [](DmlCall& c) {
       static const int64_t global[4] = {1, 1, 2, 8}, start[4] = {0, 0, 1, 0};
       static const randtensor::Region region = {4, global, start};
       c.options.region = &region;
       return Expect{StatusCode::kUnsupported, {"options.region"}};
     }},
};

INSTANTIATE_TEST_SUITE_P(Rules, DirectMlRejects, testing::ValuesIn(kDmlCases), CaseName());

// ---------------------------------------------------------------------------
// The two state tensors share every rule: one table, run for each.

enum class Side { kInput, kOutput };

// The parts of a DmlCall that belong to one state tensor.
struct StateSide {
  StateSide(DmlCall& c, Side side)
      : desc(side == Side::kInput ? c.in_desc : c.os_desc),
        tensor(side == Side::kInput ? c.in_tensor : c.os_tensor),
        binding(side == Side::kInput ? c.in_bind : c.os_bind),
        sizes(side == Side::kInput ? c.in_sizes : c.os_sizes),
        tensor_name(side == Side::kInput ? "InputStateTensor" : "OutputStateTensor"),
        binding_name(side == Side::kInput ? "inputState" : "outputState") {}
  DML_BUFFER_TENSOR_DESC& desc;
  DML_TENSOR_DESC& tensor;
  DML_BUFFER_BINDING& binding;
  UINT* sizes;
  std::string tensor_name, binding_name;
};

using StateCase = Case<StateSide>;

class DirectMlStateTensorRejects
    : public testing::TestWithParam<std::tuple<Side, StateCase>> {};

TEST_P(DirectMlStateTensorRejects, Case) {
  DmlCall call;
  StateSide side(call, std::get<0>(GetParam()));
  const Expect expect = std::get<1>(GetParam()).mutate(side);
  EXPECT_TRUE(call.Rejects(expect));
}

std::string StateCaseName(const testing::TestParamInfo<std::tuple<Side, StateCase>>& info) {
  return std::string(std::get<0>(info.param) == Side::kInput ? "Input" : "Output") +
         std::get<1>(info.param).name;
}

Expect StateSizes(StateSide& s, std::vector<UINT> sizes, const char* text) {
  std::copy(sizes.begin(), sizes.end(), s.sizes);
  return {StatusCode::kInvalidArgument, {s.tensor_name + ".Sizes = " + text}};
}

const UINT kStrides3Is2[4] = {6, 6, 6, 2};
const UINT kStrides3Is0[4] = {6, 6, 6, 0};

Expect StateStrides(StateSide& s, const UINT* strides, const char* value) {
  s.desc.Strides = strides;
  return {StatusCode::kUnsupported, {s.tensor_name + ".Strides[3] = " + value}};
}

Expect ShiftState(StateSide& s, size_t shift, UINT alignment) {
  s.desc.GuaranteedBaseOffsetAlignment = alignment;
  s.binding.Data = Bytes(s.binding.Data) + shift;
  return {StatusCode::kMisaligned, {s.binding_name + ".Data = " + PointerText(s.binding.Data)}};
}

const StateCase kStateCases[] = {
    {"TensorTypeInvalid",
     [](StateSide& s) {
       s.tensor.Type = DML_TENSOR_TYPE_INVALID;
       return Expect{StatusCode::kUnsupported, {s.tensor_name + ".Type = 0"}};
     }},
    {"TensorTypeUnknown",
     [](StateSide& s) {
       s.tensor.Type = static_cast<DML_TENSOR_TYPE>(5);
       return Expect{StatusCode::kUnsupported, {s.tensor_name + ".Type = 5"}};
     }},
    {"DescNull",
     [](StateSide& s) {
       s.tensor.Desc = nullptr;
       return Expect{StatusCode::kInvalidArgument, {s.tensor_name + ".Desc is null"}};
     }},
    {"DataTypeFloat32",
     [](StateSide& s) {
       s.desc.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
       return Expect{StatusCode::kUnsupported, {s.tensor_name + ".DataType = 1"}};
     }},
    {"DataTypeUint64",
     [](StateSide& s) {
       s.desc.DataType = DML_TENSOR_DATA_TYPE_UINT64;
       return Expect{StatusCode::kUnsupported, {s.tensor_name + ".DataType = 10"}};
     }},
    {"FlagsUnknownBit",
     [](StateSide& s) {
       s.desc.Flags = static_cast<DML_TENSOR_FLAGS>(0x4);
       return Expect{StatusCode::kInvalidArgument, {s.tensor_name + ".Flags = 0x4"}};
     }},
    {"DimensionCount3",
     [](StateSide& s) {
       s.desc.DimensionCount = 3;
       return Expect{StatusCode::kInvalidArgument, {s.tensor_name + ".DimensionCount = 3"}};
     }},
    {"DimensionCount5",
     [](StateSide& s) {
       s.desc.DimensionCount = 5;
       return Expect{StatusCode::kInvalidArgument, {s.tensor_name + ".DimensionCount = 5"}};
     }},
    {"DimensionCount0",
     [](StateSide& s) {
       s.desc.DimensionCount = 0;
       return Expect{StatusCode::kInvalidArgument, {s.tensor_name + ".DimensionCount = 0"}};
     }},
    {"SizesNull",
     [](StateSide& s) {
       s.desc.Sizes = nullptr;
       return Expect{StatusCode::kInvalidArgument, {s.tensor_name + ".Sizes is null"}};
     }},
    {"Sizes1115", [](StateSide& s) { return StateSizes(s, {1, 1, 1, 5}, "{1,1,1,5}"); }},
    {"Sizes1117", [](StateSide& s) { return StateSizes(s, {1, 1, 1, 7}, "{1,1,1,7}"); }},
    {"Sizes1161", [](StateSide& s) { return StateSizes(s, {1, 1, 6, 1}, "{1,1,6,1}"); }},
    {"Sizes6111", [](StateSide& s) { return StateSizes(s, {6, 1, 1, 1}, "{6,1,1,1}"); }},
    {"Sizes2116", [](StateSide& s) { return StateSizes(s, {2, 1, 1, 6}, "{2,1,1,6}"); }},
    {"Strides3Is2", [](StateSide& s) { return StateStrides(s, kStrides3Is2, "2"); }},
    {"Strides3Is0", [](StateSide& s) { return StateStrides(s, kStrides3Is0, "0"); }},
    {"TotalBelow24",
     [](StateSide& s) {
       s.desc.TotalTensorSizeInBytes = 20;
       return Expect{StatusCode::kBufferTooSmall, {s.tensor_name + ".TotalTensorSizeInBytes = 20"}};
     }},
    {"TotalZero",
     [](StateSide& s) {
       s.desc.TotalTensorSizeInBytes = 0;
       return Expect{StatusCode::kBufferTooSmall, {s.tensor_name + ".TotalTensorSizeInBytes = 0"}};
     }},
    {"Alignment2",
     [](StateSide& s) {
       s.desc.GuaranteedBaseOffsetAlignment = 2;
       return Expect{StatusCode::kMisaligned,
                     {s.tensor_name + ".GuaranteedBaseOffsetAlignment = 2"}};
     }},
    {"Alignment12",
     [](StateSide& s) {
       s.desc.GuaranteedBaseOffsetAlignment = 12;
       return Expect{StatusCode::kMisaligned,
                     {s.tensor_name + ".GuaranteedBaseOffsetAlignment = 12"}};
     }},
    {"BindingDataNull",
     [](StateSide& s) {
       s.binding.Data = nullptr;
       return Expect{StatusCode::kInvalidArgument, {s.binding_name + ".Data is null"}};
     }},
    {"BindingSmallerThanTotal",
     [](StateSide& s) {
       s.binding.SizeInBytes = 20;
       return Expect{StatusCode::kBufferTooSmall,
                     {s.binding_name + ".SizeInBytes = 20",
                      s.tensor_name + ".TotalTensorSizeInBytes = 24"}};
     }},
    {"BindingSmallerThanALargerTotal",
     [](StateSide& s) {
       s.desc.TotalTensorSizeInBytes = 32;
       return Expect{StatusCode::kBufferTooSmall,
                     {s.binding_name + ".SizeInBytes = 24",
                      s.tensor_name + ".TotalTensorSizeInBytes = 32"}};
     }},
    {"BindingOffBy2", [](StateSide& s) { return ShiftState(s, 2, 0); }},
    {"BindingOffBy1", [](StateSide& s) { return ShiftState(s, 1, 0); }},
    {"BindingNotAMultipleOf16", [](StateSide& s) { return ShiftState(s, 8, 16); }},
};

INSTANTIATE_TEST_SUITE_P(Rules, DirectMlStateTensorRejects,
                         testing::Combine(testing::Values(Side::kInput, Side::kOutput),
                                          testing::ValuesIn(kStateCases)),
                         StateCaseName);

// ---------------------------------------------------------------------------
// Valid edge cases: accepted, and exactly the right bytes written.

TEST(DirectMlValid, OneDimension) {
  DmlCall call;
  call.SetOutput({10});
  EXPECT_TRUE(call.AcceptsAndFills());
}

TEST(DirectMlValid, EightDimensions) {
  DmlCall call;
  call.SetOutput({1, 2, 1, 3, 1, 2, 1, 2});
  EXPECT_TRUE(call.AcceptsAndFills());
}

TEST(DirectMlValid, EightDimensionsStrided) {
  DmlCall call;
  call.SetOutput({2, 1, 2, 1, 2, 1, 2, 3}, {100, 7, 50, 0, 24, 9, 6, 2});
  EXPECT_TRUE(call.AcceptsAndFills());
}

TEST(DirectMlValid, StrideZeroOnSizeOneDimensions) {
  DmlCall call;
  call.SetOutput({1, 4}, {0, 1});
  EXPECT_TRUE(call.AcceptsAndFills());
  call.SetOutput({4, 1}, {1, 0});
  EXPECT_TRUE(call.AcceptsAndFills());
}

TEST(DirectMlValid, InterleavedButDisjoint) {
  DmlCall call;
  call.SetOutput({3, 2}, {2, 3});  // offsets 0 3 2 5 4 7
  EXPECT_TRUE(call.AcceptsAndFills());
  call.SetOutput({2, 3}, {3, 2});  // offsets 0 2 4 3 5 7
  EXPECT_TRUE(call.AcceptsAndFills());
}

TEST(DirectMlValid, PaddedAndPermuted) {
  DmlCall call;
  call.SetOutput({2, 3}, {4, 1});
  EXPECT_TRUE(call.AcceptsAndFills());
  call.SetOutput({2, 3, 4}, {1, 8, 2});  // NHWC-like permutation
  EXPECT_TRUE(call.AcceptsAndFills());
}

TEST(DirectMlValid, ValidAlignments) {
  for (UINT alignment : {0u, 4u, 8u, 16u, 256u}) {
    SCOPED_TRACE(alignment);
    DmlCall call;
    call.out_desc.GuaranteedBaseOffsetAlignment = alignment;
    call.in_desc.GuaranteedBaseOffsetAlignment = alignment;
    call.os_desc.GuaranteedBaseOffsetAlignment = alignment;
    EXPECT_TRUE(call.AcceptsAndFills());
  }
}

TEST(DirectMlValid, TotalAndBindingLargerThanNeeded) {
  DmlCall call;
  call.out_desc.TotalTensorSizeInBytes = 200;
  call.out_bind.SizeInBytes = 512;
  call.in_desc.TotalTensorSizeInBytes = 32;
  call.in_bind.SizeInBytes = 40;
  EXPECT_TRUE(call.AcceptsAndFills());  // padding up to 200 bytes stays untouched
}

TEST(DirectMlValid, StateTensorsWithStrides) {
  static const UINT kPacked[4] = {6, 6, 6, 1}, kBroadcast[4] = {0, 0, 0, 1};
  DmlCall call;
  call.in_desc.Strides = kPacked;
  call.os_desc.Strides = kBroadcast;
  EXPECT_TRUE(call.AcceptsAndFills());
}

TEST(DirectMlValid, NoOutputState) {
  DmlCall call;
  call.op.OutputStateTensor = nullptr;
  call.os_binding = nullptr;
  EXPECT_TRUE(call.AcceptsAndFills());
}

TEST(DirectMlValid, OutputStateRightAfterTheOutput) {
  DmlCall call;
  call.os_bind.Data = Bytes(call.out_bind.Data) + call.out_desc.TotalTensorSizeInBytes;
  EXPECT_TRUE(call.AcceptsAndFills());
  call.out_mem.Refill();
  call.out_bind.Data = Bytes(call.out_bind.Data) + 64;
  call.os_bind.Data = Bytes(call.out_bind.Data) - 24;  // right before it
  EXPECT_TRUE(call.AcceptsAndFills());
}

// SPEC.md section 6, first case: zero state, N = 10, the state updated in place.
TEST(DirectMlValid, InPlaceStateGivesTheKnownAnswer) {
  DmlCall call;
  call.SetOutput({2, 5});
  call.SetInputState(PhiloxState{});
  call.os_bind.Data = call.in_bind.Data;
  ASSERT_TRUE(validation::Accepts([&] { return call.Run(); }));
  const uint32_t* out = static_cast<const uint32_t*>(call.out_bind.Data);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(out[i], rt_test::ZeroStateValues().at(i)) << i;
  const uint32_t* state = static_cast<const uint32_t*>(call.in_bind.Data);
  const PhiloxState& expected_state = rt_test::Known().Fill("zero").out;
  for (int i = 0; i < 6; ++i) EXPECT_EQ(state[i], expected_state.words[i]) << i;
}

// Input and output state partly overlapping: all six input words are read first.
TEST(DirectMlValid, OutputStateShiftedOverInputState) {
  for (int shift : {-8, -4, 4, 12}) {
    SCOPED_TRACE(shift);
    DmlCall call;
    call.in_bind.Data = Bytes(call.in_bind.Data) + 16;
    call.os_bind.Data = Bytes(call.in_bind.Data) + shift;
    EXPECT_TRUE(call.AcceptsAndFills());
  }
}

// The input state may live inside the output buffer: it is read first.
TEST(DirectMlValid, InputStateInsideTheOutput) {
  DmlCall call;
  call.SetOutput({10});
  call.in_bind.Data = Bytes(call.out_bind.Data) + 8;
  call.SetInputState(PhiloxState{});
  ASSERT_TRUE(validation::Accepts([&] { return call.Run(); }));
  const uint32_t* out = static_cast<const uint32_t*>(call.out_bind.Data);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(out[i], rt_test::ZeroStateValues().at(i)) << i;
  const uint32_t* state = reinterpret_cast<const uint32_t*>(call.os_mem.data());
  EXPECT_EQ(state[0], 3u);
  for (int i = 1; i < 6; ++i) EXPECT_EQ(state[i], 0u) << i;
}

// ---------------------------------------------------------------------------
// RandomGeneratorOperator: what Create keeps, and the operator's own states.

// Create copies what it checked: scribbling over the description and the
// arrays it points to afterwards changes nothing (DirectML's operators keep
// no pointer into their description either).
TEST(DirectMlOperator, KeepsWhatItCheckedNotTheDescription) {
  DmlCall call;
  call.SetOutput({2, 3, 4}, {1, 8, 2});  // permuted, padded
  RandomGeneratorOperator op;
  ASSERT_TRUE(RandomGeneratorOperator::Create(call.op, &op).ok());
  const std::vector<UINT> sizes = call.sizes, strides = call.strides;
  std::fill(call.sizes.begin(), call.sizes.end(), 0u);  // now invalid
  std::fill(call.strides.begin(), call.strides.end(), 0u);
  call.out_desc.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
  call.out_desc.TotalTensorSizeInBytes = 4;
  call.in_desc.TotalTensorSizeInBytes = 1;
  call.op.OutputStateTensor = nullptr;
  ASSERT_FALSE(ValidateRandomGenerator(call.op).ok());
  call.sizes = sizes;  // the expected image is of the tensor Create saw
  call.strides = strides;
  EXPECT_TRUE(call.AcceptsAndFillsWith(
      [&] { return op.Execute(call.in_bind, call.out_bind, call.os_binding, call.options); }));
}

// A rejected description: ValidateRandomGenerator's status, word for word,
// and the operator keeps what it held (empty, or the earlier operator).
TEST(DirectMlOperator, FailedCreateLeavesTheOperatorAsItWas) {
  DmlCall call;
  RandomGeneratorOperator op;
  ASSERT_TRUE(RandomGeneratorOperator::Create(call.op, &op).ok());
  DmlCall bad;
  bad.SetOutput({2, 2}, {1, 1});  // elements share offsets
  const Status validated = ValidateRandomGenerator(bad.op);
  ASSERT_EQ(validated.code(), StatusCode::kOverlap);
  const Status created = RandomGeneratorOperator::Create(bad.op, &op);
  EXPECT_EQ(created.code(), validated.code());
  EXPECT_STREQ(created.message(), validated.message());
  EXPECT_FALSE(op.empty());
  EXPECT_TRUE(call.AcceptsAndFillsWith(
      [&] { return op.Execute(call.in_bind, call.out_bind, call.os_binding, call.options); }));
  RandomGeneratorOperator empty;
  EXPECT_FALSE(RandomGeneratorOperator::Create(bad.op, &empty).ok());
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(RandomGeneratorOperator::Create(call.op, nullptr).code(),
            StatusCode::kInvalidArgument);
}

// An empty operator (never created, or moved from) refuses and writes nothing.
TEST(DirectMlOperator, EmptyOperatorRefusesAndWritesNothing) {
  DmlCall call;
  RandomGeneratorOperator never;
  EXPECT_TRUE(never.empty());
  EXPECT_TRUE(validation::Rejects(
      [&] { return never.Execute(call.in_bind, call.out_bind, call.os_binding); },
      StatusCode::kInvalidArgument, {"empty"}, call.Blocks()));
  RandomGeneratorOperator created;
  ASSERT_TRUE(RandomGeneratorOperator::Create(call.op, &created).ok());
  RandomGeneratorOperator moved(std::move(created));
  EXPECT_TRUE(created.empty());  // NOLINT(bugprone-use-after-move): the documented state
  EXPECT_TRUE(validation::Rejects(
      [&] { return created.Execute(call.in_bind, call.out_bind, call.os_binding); },
      StatusCode::kInvalidArgument, {"empty"}, call.Blocks()));
  RandomGeneratorOperator assigned;
  assigned = std::move(moved);
  EXPECT_TRUE(moved.empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(call.AcceptsAndFillsWith(
      [&] { return assigned.Execute(call.in_bind, call.out_bind, call.os_binding); }));
}

// One operator, executed again and again with the state updated in place
// (a training loop's dropout masks): each call continues the stream where the
// last one stopped, as the oracle says; the first call is SPEC.md section 6's
// known answer.
TEST(DirectMlOperator, RepeatedExecutionsContinueTheStream) {
  DmlCall call;
  call.SetOutput({2, 5});
  call.SetInputState(PhiloxState{});
  call.os_bind.Data = call.in_bind.Data;
  RandomGeneratorOperator op;
  ASSERT_TRUE(RandomGeneratorOperator::Create(call.op, &op).ok());
  const auto run = [&] { return op.Execute(call.in_bind, call.out_bind, &call.os_bind); };
  ASSERT_TRUE(validation::Accepts(run));
  const uint32_t* out = static_cast<const uint32_t*>(call.out_bind.Data);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(out[i], rt_test::ZeroStateValues().at(i)) << i;
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE(round);
    call.out_mem.Refill();
    EXPECT_TRUE(call.AcceptsAndFillsWith(run));
  }
}

// ---------------------------------------------------------------------------
// The overlap proof against brute force: every layout of sizes {1..4}^2 and
// {1..3}^3 with strides 0..6 is accepted exactly when no two elements share an
// offset; rejections carry a real witness and leave every byte alone.

void SweepLayouts(const std::vector<validation::Layout>& layouts) {
  DmlCall call(256);
  validation::CheckLayouts(layouts, [&](const std::vector<int64_t>& sizes64,
                                        const std::vector<int64_t>& strides64,
                                        const validation::Span& span) -> std::string {
    const std::vector<UINT> sizes(sizes64.begin(), sizes64.end());
    const std::vector<UINT> strides(strides64.begin(), strides64.end());
    call.SetOutput(sizes, strides);
    if (call.out_desc.TotalTensorSizeInBytes !=
        CalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT32, static_cast<UINT>(sizes.size()),
                             sizes.data(), strides.data())) {
      return "CalcBufferTensorSize disagrees with the formula";
    }
    if (span.overlap) {
      return validation::OverlapMistake(call.Run(), "OutputTensor.Strides", sizes64, strides64);
    }
    const testing::AssertionResult ok = call.AcceptsAndFills(/*quiet=*/false);
    call.out_mem.Refill();
    call.os_mem.Refill();
    return ok ? "" : ok.message();
  });
}

TEST(DirectMlOverlapSweep, TwoDimensions) { SweepLayouts(validation::AllLayouts(2, 4, 0, 6)); }
TEST(DirectMlOverlapSweep, ThreeDimensions) { SweepLayouts(validation::AllLayouts(3, 3, 0, 6)); }

// Explicit witnesses for the classic overlaps.
TEST(DirectMlOverlapSweep, WitnessesAreReal) {
  const std::vector<std::vector<UINT>> cases[] = {
      {{3, 3}, {2, 1}}, {{2, 2}, {1, 1}}, {{2, 2, 2}, {3, 2, 1}}, {{4, 4}, {3, 2}}};
  for (const auto& c : cases) {
    DmlCall call;
    call.SetOutput(c[0], c[1]);
    const Status s = call.Run();
    EXPECT_EQ(s.code(), StatusCode::kOverlap) << validation::Describe(s);
    EXPECT_TRUE(validation::IsWitness(s.message(), Widen(c[0]), Widen(c[1])));
    EXPECT_NE(std::string(s.message()).find("elements ("), std::string::npos) << s.message();
  }
}

// ---------------------------------------------------------------------------
// A binding that runs past the top of the address space is no real buffer:
// like the native API's "below address 0" rule it must be rejected, never
// dereferenced. Run in a child process because accepting it crashes.

TEST(DirectMlBinding, OutputRangePastTheTopOfTheAddressSpaceIsRejected) {
  validation::ExpectSurvives([]() -> std::string {
    DmlCall call;
    call.SetOutput({100});
    call.out_bind.Data = reinterpret_cast<void*>(~uintptr_t{0} - 63);  // 4-byte aligned
    const Status s = call.Run();
    return s.ok() ? "accepted a binding that wraps past address 2^64" : "";
  });
}

// ---------------------------------------------------------------------------
// CalcBufferTensorSize: SPEC.md section 4's formula, worked by hand.

TEST(DirectMlCalcBufferTensorSize, PackedAndStrided) {
  const UINT s234[] = {2, 3, 4}, s23[] = {2, 3}, st41[] = {4, 1}, s3[] = {3}, s5[] = {5};
  const UINT s1[] = {1}, s34[] = {3, 4}, st01[] = {0, 1};
  EXPECT_EQ(CalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT32, 3, s234, nullptr), 96u);
  // (1*4 + 2*1 + 1) * 4 = 28
  EXPECT_EQ(CalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT32, 2, s23, st41), 28u);
  // (1*4 + 2*1 + 1) * 2 = 14, rounded up to 16
  EXPECT_EQ(CalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT16, 2, s23, st41), 16u);
  EXPECT_EQ(CalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT64, 2, s23, st41), 56u);
  EXPECT_EQ(CalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 1, s3, nullptr), 4u);  // 3 -> 4
  EXPECT_EQ(CalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT8, 1, s5, nullptr), 8u);   // 5 -> 8
  EXPECT_EQ(CalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT16, 1, s3, nullptr), 8u); // 6 -> 8
  EXPECT_EQ(CalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT64, 1, s3, nullptr), 24u);
  EXPECT_EQ(CalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 1, s1, nullptr), 4u);
  // The formula measures the span only; broadcasting strides are allowed here.
  EXPECT_EQ(CalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT32, 2, s34, st01), 16u);
}

TEST(DirectMlCalcBufferTensorSize, LargestThatFits) {
  const UINT big[] = {0xFFFFFFFFu, 0xFFFFFFFFu}, st[] = {0xFFFFFFFFu, 1};
  // (2^32 - 1)^2 = 0xFFFFFFFE00000001 bytes, rounded up to a multiple of 4.
  EXPECT_EQ(CalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 2, big, nullptr),
            0xFFFFFFFE00000004u);
  // Span (2^32-2)(2^32-1) + (2^32-2) + 1 = 2^64 - 2^33 + 1 elements.
  EXPECT_EQ(CalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 2, big, st), 0xFFFFFFFE00000004u);
}

class DirectMlCalcBufferTensorSizeRejects
    : public testing::TestWithParam<Case<UINT64>> {};

// `bytes` receives nothing on failure, and the unchecked form returns 0.
Expect Calc(UINT64& bytes, DML_TENSOR_DATA_TYPE type, UINT count, const UINT* sizes,
            const UINT* strides, Expect e) {
  EXPECT_EQ(CalcBufferTensorSize(type, count, sizes, strides), 0u);
  const Status s = CalcBufferTensorSizeChecked(type, count, sizes, strides, &bytes);
  EXPECT_EQ(s.code(), e.code) << validation::Describe(s);
  for (const std::string& f : e.fragments) {
    EXPECT_NE(std::string(s.message()).find(f), std::string::npos) << s.message();
  }
  return e;
}

const UINT kMax[8] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu,
                      0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
const UINT k2To16[4] = {65536, 65536, 65536, 65536};
const UINT kSizes2x3[2] = {2, 3};
const UINT kSizes2x0[2] = {2, 0};

const Case<UINT64> kCalcCases[] = {
    {"UnknownType",
     [](UINT64& b) {
       return Calc(b, DML_TENSOR_DATA_TYPE_UNKNOWN, 2, kSizes2x3, nullptr,
                   {StatusCode::kUnsupported, {"dataType = 0"}});
     }},
    {"TypeOutOfEnum",
     [](UINT64& b) {
       return Calc(b, static_cast<DML_TENSOR_DATA_TYPE>(12), 2, kSizes2x3, nullptr,
                   {StatusCode::kUnsupported, {"dataType = 12"}});
     }},
    {"DimensionCountZero",
     [](UINT64& b) {
       return Calc(b, DML_TENSOR_DATA_TYPE_UINT32, 0, kSizes2x3, nullptr,
                   {StatusCode::kUnsupported, {"dimensionCount = 0"}});
     }},
    {"DimensionCountNine",
     [](UINT64& b) {
       return Calc(b, DML_TENSOR_DATA_TYPE_UINT32, 9, kNineSizes, nullptr,
                   {StatusCode::kUnsupported, {"dimensionCount = 9"}});
     }},
    {"SizesNull",
     [](UINT64& b) {
       return Calc(b, DML_TENSOR_DATA_TYPE_UINT32, 2, nullptr, nullptr,
                   {StatusCode::kInvalidArgument, {"sizes is null"}});
     }},
    {"ZeroSize",
     [](UINT64& b) {
       return Calc(b, DML_TENSOR_DATA_TYPE_UINT32, 2, kSizes2x0, nullptr,
                   {StatusCode::kInvalidArgument, {"sizes[1] = 0"}});
     }},
    {"StridedOverflowFloat64",
     [](UINT64& b) {
       return Calc(b, DML_TENSOR_DATA_TYPE_FLOAT64, 8, kMax, kMax, {StatusCode::kOverflow, {}});
     }},
    {"StridedOverflowUint32",
     [](UINT64& b) {
       return Calc(b, DML_TENSOR_DATA_TYPE_UINT32, 2, kMax, kMax, {StatusCode::kOverflow, {}});
     }},
    {"PackedOverflow2To64Float64",
     [](UINT64& b) {
       return Calc(b, DML_TENSOR_DATA_TYPE_FLOAT64, 4, k2To16, nullptr,
                   {StatusCode::kOverflow, {}});
     }},
    {"PackedOverflowTwoMaxDims",
     [](UINT64& b) {
       return Calc(b, DML_TENSOR_DATA_TYPE_UINT32, 2, kMax, nullptr, {StatusCode::kOverflow, {}});
     }},
    // (2^32 - 1)^4 is about 2^128: past what any 128-bit intermediate holds.
    {"PackedOverflowFourMaxDims",
     [](UINT64& b) {
       return Calc(b, DML_TENSOR_DATA_TYPE_FLOAT64, 4, kMax, nullptr, {StatusCode::kOverflow, {}});
     }},
    {"PackedOverflowSixMaxDims",
     [](UINT64& b) {
       return Calc(b, DML_TENSOR_DATA_TYPE_UINT8, 6, kMax, nullptr, {StatusCode::kOverflow, {}});
     }},
    {"PackedOverflowEightMaxDims",
     [](UINT64& b) {
       return Calc(b, DML_TENSOR_DATA_TYPE_UINT32, 8, kMax, nullptr, {StatusCode::kOverflow, {}});
     }},
};

TEST_P(DirectMlCalcBufferTensorSizeRejects, Case) {
  UINT64 bytes = 0x5EED5EED5EED5EEDu;
  GetParam().mutate(bytes);
  EXPECT_EQ(bytes, 0x5EED5EED5EED5EEDu) << "written on failure";
}

INSTANTIATE_TEST_SUITE_P(Rules, DirectMlCalcBufferTensorSizeRejects, testing::ValuesIn(kCalcCases),
                         CaseName());

TEST(DirectMlCalcBufferTensorSize, NullBytes) {
  const Status s = CalcBufferTensorSizeChecked(DML_TENSOR_DATA_TYPE_UINT32, 2, kSizes2x3,
                                               nullptr, nullptr);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("bytes is null"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace directml_test
