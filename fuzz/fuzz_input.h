// The fuzz input format: how a byte string becomes one call to randtensor.
//
// The input is read front to back as a fixed sequence of fields. Every field
// starts with a tag byte; most tags select a value biased toward the small
// and interesting ones, and tag 255 (where a field has it) is followed by the
// raw value, little-endian, so that any value can be written down exactly
// (make_corpus.cc does that). A short input reads zeros for the missing
// bytes, and tag 0 is always the plain, valid choice: the empty input is a
// valid packed native fill of one element.
//
// Decode() is shared by the fuzzer and by the corpus generator, so the two
// cannot drift apart.
#ifndef RANDTENSOR_FUZZ_FUZZ_INPUT_H_
#define RANDTENSOR_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace rt_fuzz {

constexpr int kMaxDims = 9;  // ranks 0..9 are generated; 9 is invalid

enum Api : int {
  kNativeFill = 0,
  kMinBufferBytes = 1,
  kDmlExecute = 2,
  kDmlCalcSize = 3,
  kApiCount = 4,
};

// Target names handed to SetTarget() before the call ("auto" is restored after).
inline const char* const kTargetNames[] = {
    "auto", "AVX3", "AVX2", "SSE4",  "SSSE3", "SCALAR", "avx2", "sse4",       "Scalar",
    "",     "EMU128", "NEON", "avx", "AUTO",  "AVX3 ",  nullptr, "AVX3_ZEN4", "SSE2",
};
constexpr int kTargetCount = sizeof(kTargetNames) / sizeof(kTargetNames[0]);

// How the output buffer's size field relates to the layout's minimum.
enum SizeClass : int {
  kSizeExact = 0,   // the minimum
  kSizeBelow = 1,   // minimum - (1 + param % 8)
  kSizeAbove = 2,   // minimum + param % 64
  kSizeAbsurd = 3,  // UINT64_MAX, 2^63, 2^32 ... (param picks)
  kSizeZero = 4,
  kSizeRaw = 5,     // param itself
  kSizeClassCount = 6,
};

// Where the output pointer points.
enum PointerClass : int {
  kPtrReal = 0,      // into a guarded mapping
  kPtrNull = 1,
  kPtrWrapLow = 2,   // so low offsets wrap below address 0 (needs a negative stride)
  kPtrWrapHigh = 3,  // so high offsets run past 2^64
  kPtrClassCount = 4,
};

// Where a state lives.
enum StatePlace : int {
  kStateOwn = 0,        // its own guarded page (flush with the guard)
  kStateNull = 1,       // output state only: none
  kStateSame = 2,       // output state only: the input state's memory (in place)
  kStateInOutput = 3,   // inside the output tensor's mapping (offset param)
  kStatePlaceCount = 4,
};

struct Case {
  int api = kNativeFill;
  int target = 0;  // index into kTargetNames
  uint32_t threads = 1;
  uint64_t task_elements = 0;
  int32_t stores = 0;
  int hook = 0;  // 0: library pool, 1: reverse-order serial hook, 2: even-then-odd hook
  bool want_info = false;
  uint64_t element_offset = 0;
  uint32_t state[6] = {0, 0, 0, 0, 0, 0};

  // The tensor (native: TensorDesc; DirectML: the OutputTensor).
  int32_t dtype = 0;  // native DataType, or DML_TENSOR_DATA_TYPE (default 3)
  int64_t rank = 1;
  bool sizes_null = false;
  int64_t sizes[kMaxDims] = {};
  bool has_strides = false;
  int64_t strides[kMaxDims] = {};

  // The buffer.
  int size_class = kSizeExact;  // native buffer_bytes / DML TotalTensorSizeInBytes
  uint64_t size_param = 0;
  uint32_t pre = 0, post = 0;  // slack bytes before / after the span in its mapping
  bool flush_end = false;      // span ends at the trailing guard page (else starts after the leading one)
  int pointer = kPtrReal;

  // States.
  int in_place = kStateOwn;   // kStateOwn or kStateInOutput
  int out_place = kStateOwn;  // any StatePlace
  uint32_t in_offset = 0;     // byte offset of an in-output state (rounded to 4 for native)
  uint32_t out_offset = 0;
  uint32_t in_misalign = 0;   // DML: byte shift of the state bindings (0..3)
  uint32_t out_misalign = 0;

  // DirectML only.
  int32_t op_type = 0;          // DML_RANDOM_GENERATOR_TYPE
  int32_t out_tensor_type = 1;  // DML_TENSOR_TYPE of the OutputTensor
  bool out_desc_null = false;   // OutputTensor->Desc null
  uint32_t out_flags = 0;
  uint32_t out_align = 0;       // GuaranteedBaseOffsetAlignment
  int binding_class = 0;        // output.SizeInBytes vs Total: 0 equal, 1 less, 2 more, 3 absurd
  uint64_t binding_param = 0;
  int in_desc_mutation = 0;     // 0: a valid {1,1,1,6} state tensor; else one thing broken
  int out_desc_mutation = 0;
  uint32_t mutation_param = 0;
  bool out_state_desc = true;   // OutputStateTensor set
  bool out_state_bound = true;  // outputState binding passed (native: ignored)
  int in_bind_class = 0;        // state bindings' SizeInBytes: 0 = 24, 1 = 23, 2 = 24 + param, 3 = 0
  int out_bind_class = 0;
  bool calc_bytes_null = false;  // CalcBufferTensorSizeChecked / MinBufferBytes with bytes = nullptr
};

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t U8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t U16() { return static_cast<uint16_t>(U8() | (U8() << 8)); }
  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{U8()} << (8 * i);
    return v;
  }
  uint64_t U64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t{U8()} << (8 * i);
    return v;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Sizes: mostly 1..8, sometimes 0, larger, or an edge of the integer range.
inline int64_t ReadSize(Reader& r) {
  const uint8_t t = r.U8();
  if (t < 160) return 1 + t % 8;
  if (t < 176) return 0;
  if (t < 208) return 9 + t % 56;
  if (t < 224) return r.U16();
  static const int64_t kSpecial[] = {
      -1, INT64_MIN, INT64_MAX, int64_t{1} << 31, (int64_t{1} << 32) - 1, int64_t{1} << 32,
      (int64_t{1} << 32) + 1, int64_t{1} << 62, int64_t{1} << 20, 65536, 3, -2,
      int64_t{3} << 30, int64_t{1} << 40, INT64_MAX / 2, INT64_MAX / 3, 1000003,
      (int64_t{1} << 31) - 1, 4096, 257, 1 << 18, 100000, 4294967295 / 3, -65536,
      int64_t{1} << 61, int64_t{1} << 63 >> 1, 7, 12, 16, 31};
  if (t < 255) return kSpecial[(t - 224) % (sizeof(kSpecial) / sizeof(kSpecial[0]))];
  return static_cast<int64_t>(r.U64());
}

// Strides: mostly -8..8, sometimes larger, or an edge of the integer range.
inline int64_t ReadStride(Reader& r) {
  const uint8_t t = r.U8();
  if (t < 144) return static_cast<int64_t>(t % 17) - 8;
  if (t < 192) return (t & 1 ? -1 : 1) * static_cast<int64_t>(r.U16());
  if (t < 224) return (t & 1 ? -1 : 1) * (int64_t{1} << (t % 40));
  static const int64_t kSpecial[] = {
      INT64_MIN, INT64_MAX, INT64_MIN + 1, -INT64_MAX / 2, INT64_MAX / 2, int64_t{1} << 32,
      -(int64_t{1} << 32), (int64_t{1} << 32) - 1, (int64_t{1} << 31), -(int64_t{1} << 31),
      int64_t{1} << 62, -(int64_t{1} << 62), 4294967295, 65537, -65537, 1000003, 12, -12,
      24, 48, 64, 96, 256, -256, 4096, 16, -16, 3, -3, 0};
  if (t < 255) return kSpecial[(t - 224) % (sizeof(kSpecial) / sizeof(kSpecial[0]))];
  return static_cast<int64_t>(r.U64());
}

inline uint64_t ReadTile(Reader& r) {
  const uint8_t t = r.U8();
  if (t < 128) return 0;
  if (t < 192) return 1 + t % 64;
  if (t < 224) return uint64_t{1} << (t % 24);
  static const uint64_t kSpecial[] = {UINT64_MAX, UINT64_MAX - 2, UINT64_MAX - 3,
                                      uint64_t{1} << 32, (uint64_t{1} << 32) - 1,
                                      uint64_t{1} << 63, 3, 5, 7, 4095, 65535, 65537};
  if (t < 255) return kSpecial[(t - 224) % (sizeof(kSpecial) / sizeof(kSpecial[0]))];
  return r.U64();
}

inline uint64_t ReadOffset(Reader& r) {
  const uint8_t t = r.U8();
  if (t < 128) return 0;
  if (t < 192) return t % 64;
  if (t < 224) return (uint64_t{1} << (t % 64)) + (t & 3);
  static const uint64_t kSpecial[] = {UINT64_MAX,          UINT64_MAX - 1, UINT64_MAX - 2,
                                      UINT64_MAX - 3,      UINT64_MAX - 4, UINT64_MAX - 37,
                                      uint64_t{1} << 63,   (uint64_t{1} << 63) - 1,
                                      uint64_t{1} << 32,   (uint64_t{1} << 34) - 1,
                                      UINT64_MAX - 1000};
  if (t < 255) return kSpecial[(t - 224) % (sizeof(kSpecial) / sizeof(kSpecial[0]))];
  return r.U64();
}

// State words: zeros, all-ones (counter carries), small, or raw.
inline uint32_t ReadWord(Reader& r) {
  const uint8_t t = r.U8();
  if (t < 64) return 0;
  if (t < 128) return 0xFFFFFFFFu;
  if (t < 192) return 0xFFFFFFFFu - (t % 8);
  if (t < 255) return t;
  return r.U32();
}

// A 32-bit enum-like field: tag < 224 the default, else a table, 255 raw.
inline int32_t ReadChoice(Reader& r, int32_t default_value, const int32_t* table, int n) {
  const uint8_t t = r.U8();
  if (t < 224) return default_value;
  if (t < 255) return table[(t - 224) % n];
  return static_cast<int32_t>(r.U32());
}

// Fills `strides` for `n` dimensions from the layout class that follows.
inline void ReadStrides(Reader& r, Case& c, int n) {
  const uint8_t cls = r.U8() % 4;
  c.has_strides = cls != 0;
  if (cls == 0) return;
  if (cls == 1) {  // every stride raw
    for (int d = 0; d < n; ++d) c.strides[d] = ReadStride(r);
    return;
  }
  // Derived: the dimensions stored in a permuted order, each padded, the
  // innermost with step `inner`, then some signs flipped (native views).
  int order[kMaxDims];
  for (int d = 0; d < n; ++d) order[d] = d;
  for (int d = n - 1; d > 0; --d) {  // Fisher-Yates from the input
    const int j = r.U8() % (d + 1);
    const int t = order[d];
    order[d] = order[j];
    order[j] = t;
  }
  uint64_t pads[kMaxDims];
  for (int d = 0; d < n; ++d) {
    const uint8_t t = r.U8();
    pads[d] = t < 192 ? 0 : t < 255 ? t % 7 : r.U32();
  }
  const uint8_t inner_tag = r.U8();
  const uint64_t inner = inner_tag < 192 ? 1 : inner_tag < 255 ? 2 + inner_tag % 5 : r.U32();
  const uint8_t signs = r.U8();
  // Unsigned arithmetic: overflow wraps into garbage, which is a test too.
  uint64_t step = inner;
  for (int k = n - 1; k >= 0; --k) {
    const int d = order[k];
    c.strides[d] = static_cast<int64_t>(step);
    step = step * static_cast<uint64_t>(c.sizes[d]) + pads[k];
  }
  for (int d = 0; d < n && d < 8; ++d) {
    if (signs & (1u << d)) c.strides[d] = static_cast<int64_t>(0 - static_cast<uint64_t>(c.strides[d]));
  }
  if (cls == 3) {  // one stride overridden: near-miss overlaps
    const int d = n > 0 ? r.U8() % n : 0;
    const int64_t v = ReadStride(r);
    if (n > 0) c.strides[d] = v;
  }
}

inline Case Decode(const uint8_t* data, size_t size) {
  Reader r(data, size);
  Case c;
  c.api = r.U8() % kApiCount;
  c.target = r.U8() % kTargetCount;
  {
    const uint8_t t = r.U8();
    c.threads = t < 128 ? 1 + t % 4 : t % 5;  // 1..4, sometimes 0 (the default)
  }
  c.task_elements = ReadTile(r);
  {
    static const int32_t kStores[] = {3, -1, INT32_MIN, INT32_MAX, 99, 1, 2};
    const uint8_t t = r.U8();
    c.stores = t < 240 ? t % 3 : t < 255 ? kStores[(t - 240) % 7] : static_cast<int32_t>(r.U32());
  }
  {
    const uint8_t t = r.U8();
    c.hook = t % 3;
    c.want_info = (t & 4) != 0;
  }
  c.element_offset = ReadOffset(r);
  for (int i = 0; i < 6; ++i) c.state[i] = ReadWord(r);

  const bool dml = c.api == kDmlExecute || c.api == kDmlCalcSize;
  {
    static const int32_t kNativeTypes[] = {1, -1, 3, 1000};
    static const int32_t kDmlTypes[] = {0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, -1, 3};
    c.dtype = dml ? ReadChoice(r, 3, kDmlTypes, 14) : ReadChoice(r, 0, kNativeTypes, 4);
  }
  {
    const uint8_t t = r.U8();
    static const int64_t kRanks[] = {-1, INT32_MIN, 100, 10, 11};
    c.rank = t < 250 ? (t % 10 == 0 && t >= 10 ? 1 + t % 8 : t % 10)  // 0 rarely
           : t < 255 ? kRanks[t - 250]
                     : static_cast<int32_t>(r.U32());
    c.sizes_null = t == 248;  // rank 8, sizes null
  }
  const int n = c.rank < 0 ? 0 : c.rank > kMaxDims ? kMaxDims : static_cast<int>(c.rank);
  for (int d = 0; d < n; ++d) c.sizes[d] = ReadSize(r);
  ReadStrides(r, c, n);

  {
    const uint8_t t = r.U8();
    c.size_class = t < 128 ? kSizeExact : (t % (kSizeClassCount - 1)) + 1;
    c.size_param = c.size_class == kSizeRaw ? r.U64() : r.U8();
  }
  c.pre = r.U8();
  c.post = r.U8();
  {
    const uint8_t t = r.U8();
    c.flush_end = (t & 1) != 0;
    c.pointer = t < 224 ? kPtrReal : 1 + (t % (kPtrClassCount - 1));
  }
  {
    const uint8_t t = r.U8();
    c.in_place = t < 224 ? kStateOwn : kStateInOutput;
    c.in_offset = r.U16();
    c.in_misalign = t >= 192 && t < 224 ? 1 + t % 3 : 0;
  }
  {
    const uint8_t t = r.U8();
    c.out_place = t < 128 ? kStateOwn : t % kStatePlaceCount;
    c.out_offset = r.U16();
    c.out_misalign = t >= 240 ? 1 + t % 3 : 0;
  }

  if (c.api == kDmlExecute) {
    static const int32_t kOpTypes[] = {1, -1, 2, 1000};
    c.op_type = ReadChoice(r, 0, kOpTypes, 4);
    static const int32_t kTensorTypes[] = {0, 2, -1, 7};
    c.out_tensor_type = ReadChoice(r, 1, kTensorTypes, 4);
    {
      const uint8_t t = r.U8();
      c.out_desc_null = t == 255;
      static const uint32_t kFlags[] = {1, 2, 3, 0x80000000u, 0xFFFFFFFFu};
      c.out_flags = t < 200 ? 0 : kFlags[t % 5];
    }
    {
      const uint8_t t = r.U8();
      static const uint32_t kAlign[] = {4,     8,  16,          64,         256,
                                        4096,  1,  2,           3,          6,
                                        12,    32, 0x80000000u, 0xFFFFFFFFu, 128};
      c.out_align = t < 128 ? 0 : t < 255 ? kAlign[t % 15] : r.U32();
    }
    {
      const uint8_t t = r.U8();
      c.binding_class = t < 160 ? 0 : t % 4;
      c.binding_param = r.U8();
    }
    {
      const uint8_t t = r.U8();
      c.in_desc_mutation = t < 200 ? 0 : 1 + t % 15;
      const uint8_t u = r.U8();
      c.out_desc_mutation = u < 200 ? 0 : 1 + u % 15;
      c.mutation_param = r.U8();
    }
    {
      const uint8_t t = r.U8();
      c.out_state_desc = t < 224 || (t & 1);
      c.out_state_bound = t < 224 || (t & 2);
      const uint8_t u = r.U8();
      c.in_bind_class = u < 200 ? 0 : u % 4;
      c.out_bind_class = u < 200 ? 0 : (u >> 2) % 4;
    }
  }
  if (c.api == kMinBufferBytes || c.api == kDmlCalcSize) c.calc_bytes_null = r.U8() == 255;
  return c;
}

inline std::string Describe(const Case& c) {
  static const char* const kApis[] = {"native Fill", "MinBufferBytes", "dml::ExecuteRandomGenerator",
                                      "dml::CalcBufferTensorSizeChecked"};
  std::string s;
  char buf[256];
  std::snprintf(buf, sizeof(buf), "api %s, target %s, threads %u, tile %llu, stores %d, hook %d, info %d\n",
                kApis[c.api], kTargetNames[c.target] ? kTargetNames[c.target] : "(null)",
                c.threads, static_cast<unsigned long long>(c.task_elements), c.stores, c.hook,
                c.want_info);
  s += buf;
  std::snprintf(buf, sizeof(buf), "element_offset %llu, state %08x %08x %08x %08x %08x %08x\n",
                static_cast<unsigned long long>(c.element_offset), c.state[0], c.state[1],
                c.state[2], c.state[3], c.state[4], c.state[5]);
  s += buf;
  std::snprintf(buf, sizeof(buf), "dtype %d, rank %lld%s, sizes {", c.dtype,
                static_cast<long long>(c.rank), c.sizes_null ? " (sizes null)" : "");
  s += buf;
  const int n = c.rank < 0 ? 0 : c.rank > kMaxDims ? kMaxDims : static_cast<int>(c.rank);
  for (int d = 0; d < n; ++d) s += (d ? "," : "") + std::to_string(c.sizes[d]);
  s += "}, strides ";
  if (!c.has_strides) {
    s += "packed";
  } else {
    s += "{";
    for (int d = 0; d < n; ++d) s += (d ? "," : "") + std::to_string(c.strides[d]);
    s += "}";
  }
  std::snprintf(buf, sizeof(buf),
                "\nsize class %d param %llu, pre %u post %u flush_end %d pointer %d, in_state %d@%u+%u, "
                "out_state %d@%u+%u\n",
                c.size_class, static_cast<unsigned long long>(c.size_param), c.pre, c.post,
                c.flush_end, c.pointer, c.in_place, c.in_offset, c.in_misalign, c.out_place,
                c.out_offset, c.out_misalign);
  s += buf;
  if (c.api == kDmlExecute) {
    std::snprintf(buf, sizeof(buf),
                  "dml: op type %d, tensor type %d%s, flags 0x%x, align %u, binding class %d param "
                  "%llu, state desc mutations in %d out %d param %u, out state desc %d bound %d, "
                  "state bindings %d %d\n",
                  c.op_type, c.out_tensor_type, c.out_desc_null ? " (Desc null)" : "", c.out_flags,
                  c.out_align, c.binding_class, static_cast<unsigned long long>(c.binding_param),
                  c.in_desc_mutation, c.out_desc_mutation, c.mutation_param, c.out_state_desc,
                  c.out_state_bound, c.in_bind_class, c.out_bind_class);
    s += buf;
  }
  if (c.calc_bytes_null) s += "bytes = nullptr\n";
  return s;
}

}  // namespace rt_fuzz

#endif  // RANDTENSOR_FUZZ_FUZZ_INPUT_H_
