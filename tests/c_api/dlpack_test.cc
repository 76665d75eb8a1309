// DLPack: FillDLTensor (C++) and randtensor_fill_dltensor (C), both run on
// every case.
//
// Fills are compared word for word with the oracle of tests/test_util.h
// (Random123, element-by-element placement), guard words around the span and
// padding inside it included. Rejections are checked by validation::Rejects:
// the status, a message naming the DLTensor field and its value, the buffer
// and the output state untouched, nothing printed.

#include "randtensor/dlpack.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "test_util.h"
#include "validation_util.h"

namespace {

using randtensor::FillOptions;
using randtensor::PhiloxState;
using randtensor::Status;
using randtensor::StatusCode;
using validation::Expect;
using validation::GuardedMemory;

// The two entry points under test.
enum class Entry { kCpp, kC };

const char* EntryName(Entry entry) { return entry == Entry::kCpp ? "FillDLTensor" : "C"; }

// One fill through `entry`; a C failure comes back as a Status carrying
// randtensor_last_error(), so both entries are checked alike.
Status FillThrough(Entry entry, const DLTensor& tensor, const PhiloxState& in, PhiloxState* out,
                   const FillOptions& options = FillOptions()) {
  if (entry == Entry::kCpp) return randtensor::FillDLTensor(tensor, in, out, options);
  randtensor_fill_options c_options = {};
  c_options.element_offset = options.element_offset;
  c_options.threads = options.threads;
  c_options.task_elements = options.task_elements;
  if (options.region != nullptr) {
    c_options.region_global_sizes = options.region->global_sizes;
    c_options.region_start = options.region->start;
  }
  const randtensor_status code =
      randtensor_fill_dltensor(&tensor, in.words, out != nullptr ? out->words : nullptr, &c_options);
  if (code == RANDTENSOR_OK) return Status();
  return Status::Error(static_cast<StatusCode>(code), "%s", randtensor_last_error());
}

// Test names for (case, entry) parameters: "VectorReversed_C".
struct CaseAndEntryName {
  template <typename Param>
  std::string operator()(const testing::TestParamInfo<Param>& info) const {
    return std::string(std::get<0>(info.param).name) + "_" + EntryName(std::get<1>(info.param));
  }
};

DLTensor Uint32Tensor(void* data, std::vector<int64_t>& shape, std::vector<int64_t>& strides) {
  DLTensor t = {};
  t.data = data;
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = static_cast<int>(shape.size());
  t.dtype = DLDataType{kDLUInt, 32, 1};
  t.shape = shape.empty() ? nullptr : shape.data();
  t.strides = strides.empty() ? nullptr : strides.data();
  return t;
}

// ---------------------------------------------------------------------------
// Accepted tensors.

// SPEC.md section 6, first whole-operator case, through both entries.
TEST(DLPackKnownAnswer, ZeroStateTenElements) {
  for (Entry entry : {Entry::kCpp, Entry::kC}) {
    SCOPED_TRACE(EntryName(entry));
    std::vector<int64_t> shape = {10}, strides;
    uint32_t values[10] = {};
    PhiloxState state;  // all zero; updated in place
    const DLTensor t = Uint32Tensor(values, shape, strides);
    ASSERT_TRUE(FillThrough(entry, t, state, &state).ok());
    for (int e = 0; e < 10; ++e) EXPECT_EQ(values[e], rt_test::ZeroStateValues().at(e)) << e;
    EXPECT_TRUE(rt_test::StatesEqual(state, rt_test::Known().Fill("zero").out));
  }
}

struct FillCase {
  const char* name;
  rt_test::Shape shape;  // strides empty: DLTensor::strides is NULL
  int64_t back_words = 0;  // data sits this many words before element (0, ..., 0)
  DLDeviceType device = kDLCPU;
  uint64_t element_offset = 0;
  uint32_t threads = 1;
  uint64_t task_elements = 0;
};

void PrintTo(const FillCase& c, std::ostream* os) { *os << c.name; }

std::vector<int64_t> NhwcFlipped() {
  return rt_test::FlipSigns(rt_test::StoredStrides({2, 3, 4, 5}, {0, 2, 3, 1}, 1, {}), 0b0101);
}

const FillCase kFillCases[] = {
    {"Rank0", {{}, {}}},
    {"Rank0ByteOffset", {{}, {}}, 5},
    {"VectorPacked", {{10}, {}}},
    {"VectorReversed", {{10}, {-1}}, 3},
    {"Packed3DNullStrides", {{3, 4, 5}, {}}, 32},
    {"Packed3DExplicitStrides", {{3, 4, 5}, {20, 5, 1}}, 1},
    {"PaddedRows", {{6, 7}, {9, 1}}},
    {"PaddedRowsReversed", {{6, 7}, {-9, 1}}, 2},
    {"AllNegative", {{2, 3, 4}, {-12, -4, -1}}, 7},
    {"Transposed", {{5, 8}, {1, 5}}},
    {"NhwcWithFlippedDims", {{2, 3, 4, 5}, NhwcFlipped()}, 4},
    {"Rank8", {{2, 1, 2, 1, 2, 1, 2, 3}, {}}, 1},
    {"CudaHostMemory", {{4, 4}, {}}, 0, kDLCUDAHost},
    {"CudaManagedMemory", {{4, 4}, {-4, 1}}, 0, kDLCUDAManaged},
    {"ElementOffset", {{7, 9}, {}}, 0, kDLCPU, 6},
    {"ManyTasksNegativeRows", {{300, 257}, {-260, 1}}, 9, kDLCPU, 3, 4, 4096},
    {"ManyTasksTransposed", {{129, 131}, {1, -129}}, 0, kDLCPU, 1, 4, 2048},
};

// A state whose counter carries through every word and wraps at 2^128.
constexpr PhiloxState kWrapState = {
    {0xFFFFFFF0u, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0x01234567u, 0x89ABCDEFu}};

class DLPackFills : public testing::TestWithParam<std::tuple<FillCase, Entry>> {};

TEST_P(DLPackFills, MatchTheOracleAndTouchNothingElse) {
  const FillCase& c = std::get<0>(GetParam());
  const Entry entry = std::get<1>(GetParam());
  rt_test::Shape shape = c.shape;
  rt_test::GuardedBuffer buffer(rt_test::ComputeSpan(shape));
  ASSERT_LE(c.back_words, buffer.origin());  // data stays inside the allocation
  DLTensor t = Uint32Tensor(buffer.data() - c.back_words, shape.sizes, shape.strides);
  t.device.device_type = c.device;
  t.byte_offset = static_cast<uint64_t>(c.back_words) * 4;
  FillOptions options;
  options.element_offset = c.element_offset;
  options.threads = c.threads;
  options.task_elements = c.task_elements;
  PhiloxState out{{1, 2, 3, 4, 5, 6}};

  const Status status = FillThrough(entry, t, kWrapState, &out, options);
  ASSERT_TRUE(status.ok()) << status.message();
  std::vector<uint32_t> expected = buffer.Pristine();
  ASSERT_TRUE(rt_test::OracleFill(shape, kWrapState, c.element_offset, expected, buffer.origin()));
  EXPECT_TRUE(rt_test::BuffersEqual(buffer.words(), expected, buffer.origin()));
  EXPECT_TRUE(rt_test::StatesEqual(
      out, rt_test::ExpectedOutState(kWrapState, rt_test::u128{c.element_offset} +
                                                     rt_test::ElementCount(shape.sizes))));
}

INSTANTIATE_TEST_SUITE_P(Layouts, DLPackFills,
                         testing::Combine(testing::ValuesIn(kFillCases),
                                          testing::Values(Entry::kCpp, Entry::kC)),
                         CaseAndEntryName());

// ---------------------------------------------------------------------------
// One call, valid as constructed: a packed {4, 5} CPU tensor in guarded
// memory, the output state in its own guarded block. Each rejection case
// breaks one thing.

class DLCall {
 public:
  DLCall() : tensor(Uint32Tensor(buffer.data(), shape, strides)) {
    out_state = reinterpret_cast<PhiloxState*>(state_mem.data());
  }
  DLCall(const DLCall&) = delete;
  DLCall& operator=(const DLCall&) = delete;

  void SetShape(std::vector<int64_t> new_shape, std::vector<int64_t> new_strides = {}) {
    shape = std::move(new_shape);
    strides = std::move(new_strides);
    tensor.ndim = static_cast<int>(shape.size());
    tensor.shape = shape.data();
    tensor.strides = strides.empty() ? nullptr : strides.data();
  }

  testing::AssertionResult Rejects(Entry entry, const Expect& expect) const {
    return validation::Rejects(
        [&] { return FillThrough(entry, tensor, in_state, out_state, options); },
                               expect.code, expect.fragments,
                               {buffer.whole(), state_mem.whole()});
  }

  GuardedMemory buffer{1024};
  GuardedMemory state_mem{64};
  std::vector<int64_t> shape = {4, 5}, strides;
  DLTensor tensor;
  FillOptions options;
  PhiloxState in_state = kWrapState;
  PhiloxState* out_state = nullptr;
};

using RejectCase = validation::Case<DLCall>;

Expect Device(DLCall& c, int32_t type, const char* text) {
  // memcpy: a type the enum does not list is no valid C++ DLDeviceType value.
  std::memcpy(&c.tensor.device.device_type, &type, sizeof(type));
  return {StatusCode::kUnsupported, {std::string("device.device_type = ") + text}};
}

Expect Dtype(DLCall& c, uint8_t code, uint8_t bits, uint16_t lanes, const char* text) {
  c.tensor.dtype = DLDataType{code, bits, lanes};
  return {StatusCode::kUnsupported, {std::string("dtype = ") + text, "not a type randtensor fills"}};
}

// A type randtensor fills, but not with the default distribution (bits).
Expect NotBits(DLCall& c, uint8_t code, uint8_t bits, const char* name) {
  c.tensor.dtype = DLDataType{code, bits, 1};
  return {StatusCode::kUnsupported,
          {std::string("dtype = ") + name + " cannot hold distribution bits"}};
}

Expect Pointers(DLCall& c, void* data, uint64_t byte_offset, Expect e) {
  c.tensor.data = data;
  c.tensor.byte_offset = byte_offset;
  return e;
}

const RejectCase kRejectCases[] = {
    {"DeviceCuda", [](DLCall& c) { return Device(c, kDLCUDA, "2 (kDLCUDA)"); }},
    {"DeviceOpenCL", [](DLCall& c) { return Device(c, kDLOpenCL, "4 (kDLOpenCL)"); }},
    {"DeviceVulkan", [](DLCall& c) { return Device(c, kDLVulkan, "7 (kDLVulkan)"); }},
    {"DeviceRocm", [](DLCall& c) { return Device(c, kDLROCM, "10 (kDLROCM)"); }},
    {"DeviceRocmHost", [](DLCall& c) { return Device(c, kDLROCMHost, "11 (kDLROCMHost)"); }},
    {"DeviceFromNewerDLPack",  // kDLHexagon in DLPack 1.0, beyond this header's enum
     [](DLCall& c) { return Device(c, 16, "16 (an unknown device type)"); }},
    {"DeviceUnknown", [](DLCall& c) { return Device(c, 99, "99"); }},
    {"DtypeFloat32WithBits", [](DLCall& c) { return NotBits(c, kDLFloat, 32, "float32"); }},
    {"DtypeInt32WithBits", [](DLCall& c) { return NotBits(c, kDLInt, 32, "int32"); }},
    {"DtypeFloat8",
     [](DLCall& c) { return Dtype(c, kDLFloat, 8, 1, "float8 (code 2, bits 8, lanes 1)"); }},
    {"DtypeUint16",
     [](DLCall& c) { return Dtype(c, kDLUInt, 16, 1, "uint16 (code 1, bits 16, lanes 1)"); }},
    {"DtypeUint64",
     [](DLCall& c) { return Dtype(c, kDLUInt, 64, 1, "uint64 (code 1, bits 64, lanes 1)"); }},
    {"DtypeUint32Lanes2",
     [](DLCall& c) { return Dtype(c, kDLUInt, 32, 2, "uint32x2 (code 1, bits 32, lanes 2)"); }},
    {"DtypeUint32Lanes0",
     [](DLCall& c) { return Dtype(c, kDLUInt, 32, 0, "uint32x0 (code 1, bits 32, lanes 0)"); }},
    {"DtypeUnknownCode", [](DLCall& c) { return Dtype(c, 77, 32, 1, "an unknown type code"); }},
    {"DtypeCheckedEvenWhenEmpty",
     [](DLCall& c) {
       c.SetShape({0, 5});
       return Dtype(c, kDLFloat, 8, 1, "float8");
     }},
    // A region would be silently ignored: refused instead (Fill takes them).
    {"OptionsRegion",
     [](DLCall& c) {
       static const int64_t global[2] = {8, 5}, start[2] = {4, 0};
       static const randtensor::Region region = {2, global, start};
       c.options.region = &region;
       return Expect{StatusCode::kUnsupported, {"region", "DLPack"}};
     }},
    {"Ndim9",
     [](DLCall& c) {
       c.SetShape(std::vector<int64_t>(9, 1));
       return Expect{StatusCode::kUnsupported, {"ndim = 9"}};
     }},
    {"NdimNegative",
     [](DLCall& c) {
       c.tensor.ndim = -1;
       return Expect{StatusCode::kUnsupported, {"ndim = -1"}};
     }},
    {"NullShape",
     [](DLCall& c) {
       c.tensor.shape = nullptr;
       return Expect{StatusCode::kInvalidArgument, {"shape is null", "ndim = 2"}};
     }},
    {"NegativeShape",
     [](DLCall& c) {
       c.SetShape({4, -5});
       return Expect{StatusCode::kInvalidArgument, {"shape[1] = -5"}};
     }},
    {"ZeroStride",
     [](DLCall& c) {
       c.SetShape({4, 5}, {0, 1});
       return Expect{StatusCode::kOverlap, {"strides[0] = 0"}};
     }},
    {"OverlappingStrides",
     [](DLCall& c) {
       c.SetShape({4, 5}, {1, 1});
       return Expect{StatusCode::kOverlap, {"strides = {1,1}", "share an address"}};
     }},
    {"ByteOffsetMisaligned2",
     [](DLCall& c) {
       return Pointers(c, c.buffer.data(), 2, {StatusCode::kMisaligned, {"byte_offset = 2"}});
     }},
    {"ByteOffsetMisaligned7",
     [](DLCall& c) {
       return Pointers(c, c.buffer.data(), 7, {StatusCode::kMisaligned, {"byte_offset = 7"}});
     }},
    {"DataMisaligned",
     [](DLCall& c) {
       void* data = c.buffer.data() + 1;
       return Pointers(c, data, 4,
                       {StatusCode::kMisaligned, {"data = " + validation::PointerText(data)}});
     }},
    {"NullDataWithElements",
     [](DLCall& c) {
       return Pointers(c, nullptr, 0,
                       {StatusCode::kInvalidArgument, {"data is null for 20 elements"}});
     }},
    {"NullDataWithByteOffset",
     [](DLCall& c) {
       return Pointers(c, nullptr, 256, {StatusCode::kInvalidArgument, {"data is null"}});
     }},
    {"ByteOffsetWrapsTheAddressSpace",
     [](DLCall& c) {
       return Pointers(c, c.buffer.data(), UINT64_MAX - 3,
                       {StatusCode::kOverflow, {"byte_offset = 18446744073709551612"}});
     }},
    {"StridesReachBelowAddressZero",
     [](DLCall& c) {
       c.SetShape({2, 5}, {-(int64_t{1} << 60), 1});
       return Expect{StatusCode::kOverflow, {"strides reach"}};
     }},
    {"StateOutInsideTheTensor",
     [](DLCall& c) {
       c.out_state = reinterpret_cast<PhiloxState*>(c.buffer.data() + 8);
       return Expect{StatusCode::kOverlap, {"overlaps the output buffer"}};
     }},
};

class DLPackRejects : public testing::TestWithParam<std::tuple<RejectCase, Entry>> {};

TEST_P(DLPackRejects, NameTheFieldAndWriteNothing) {
  DLCall call;
  const Expect expect = std::get<0>(GetParam()).mutate(call);
  EXPECT_TRUE(call.Rejects(std::get<1>(GetParam()), expect));
}

INSTANTIATE_TEST_SUITE_P(Fields, DLPackRejects,
                         testing::Combine(testing::ValuesIn(kRejectCases),
                                          testing::Values(Entry::kCpp, Entry::kC)),
                         CaseAndEntryName());

// The valid baseline of the rejection cases really is valid: each case fails
// for the one thing it broke.
TEST(DLPackRejectBaseline, Fills) {
  for (Entry entry : {Entry::kCpp, Entry::kC}) {
    DLCall call;
    EXPECT_TRUE(validation::Accepts(
        [&] { return FillThrough(entry, call.tensor, call.in_state, call.out_state); }))
        << EntryName(entry);
    EXPECT_EQ(reinterpret_cast<uint32_t*>(call.buffer.data())[0],
              rt_test::OracleValue(kWrapState, 0));
  }
}

// An empty tensor is never written, so its pointers are not checked: DLPack
// producers leave them null or arbitrary. The state still advances past the
// element offset.
TEST(DLPackEmpty, AcceptsAnyPointersAndWritesOnlyTheState) {
  for (Entry entry : {Entry::kCpp, Entry::kC}) {
    SCOPED_TRACE(EntryName(entry));
    for (void* data : {static_cast<void*>(nullptr), static_cast<void*>(&entry)}) {
      DLCall call;
      call.SetShape({3, 0, 2});
      call.tensor.data = data;
      call.tensor.byte_offset = 6;
      FillOptions options;
      options.element_offset = 9;
      PhiloxState out;
      const std::vector<uint8_t> before = call.buffer.Copy();
      ASSERT_TRUE(FillThrough(entry, call.tensor, kWrapState, &out, options).ok());
      EXPECT_TRUE(rt_test::StatesEqual(out, rt_test::ExpectedOutState(kWrapState, 9)));
      EXPECT_EQ(call.buffer.Copy(), before);
    }
  }
}

// What only the C entry point can get wrong: null pointers where C++ takes
// references, and out_state == in_state.
TEST(DLPackCEntry, RejectsNullTensorAndNullStateIn) {
  uint32_t state[6] = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(randtensor_fill_dltensor(nullptr, state, state, nullptr), RANDTENSOR_INVALID_ARGUMENT);
  EXPECT_STREQ(randtensor_last_error(), "tensor is null");
  DLCall call;
  const std::vector<uint8_t> before = call.buffer.Copy();
  EXPECT_EQ(randtensor_fill_dltensor(&call.tensor, nullptr, state, nullptr),
            RANDTENSOR_INVALID_ARGUMENT);
  EXPECT_STREQ(randtensor_last_error(), "in_state is null");
  EXPECT_EQ(call.buffer.Copy(), before);
  EXPECT_EQ(state[0], 1u);
}

TEST(DLPackCEntry, UpdatesTheStateInPlace) {
  DLCall call;
  PhiloxState state = kWrapState;
  ASSERT_EQ(randtensor_fill_dltensor(&call.tensor, state.words, state.words, nullptr),
            RANDTENSOR_OK)
      << randtensor_last_error();
  EXPECT_TRUE(rt_test::StatesEqual(state, rt_test::ExpectedOutState(kWrapState, 20)));
}

}  // namespace
