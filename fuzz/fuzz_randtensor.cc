// libFuzzer target over randtensor's whole descriptor and binding surface.
//
// One input (fuzz_input.h) becomes one call of randtensor::Fill,
// randtensor::MinBufferBytes, a DirectML execution (after
// dml::ValidateRandomGenerator: ExecuteRandomGenerator, or for about half
// of them RandomGeneratorOperator::Create + Execute, RunDmlExecute says
// which) or dml::CalcBufferTensorSizeChecked, with a
// SIMD target forced by name first ("auto" restored after). Buffers and states
// live in mmap'ed blocks with PROT_NONE guard pages on both sides, prefilled
// with a pattern; the span sits flush against one guard page, so any stray
// access faults at once.
//
// After the call (abort() on any failure, which libFuzzer reports):
//   accepted: the model (model.h) must not call it invalid; every byte of
//     every block equals the oracle's element values where elements land, the
//     expected output state where it lands, and the prefilled pattern
//     everywhere else; the output state is C + ceil((offset + N) / 4).
//   rejected: the model must not call it valid (the one allowance: a layout
//     that is not nested may be refused as "cannot prove" with kUnsupported,
//     as fill.h documents), the message is non-empty and shorter than
//     Status::kMaxMessage, and no byte of any block changed.
//
// Inputs never take more than a few milliseconds: spans above kMaxSpanBytes
// get no real memory. The call is still made, with a one-page buffer and a
// size field below the layout's minimum, so validation of huge layouts is
// fuzzed and must reject them without touching memory.
//
// Set RT_FUZZ_VERBOSE=1 to print each decoded case (useful with a single
// reproducer: ./randtensor_fuzz crash-file).

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "fuzz/model.h"
#include "randtensor/directml.h"
#include "randtensor/fill.h"
#include "randtensor/parallel.h"
#include "randtensor/status.h"
#include "randtensor/targets.h"

namespace rt_fuzz {
namespace {

using randtensor::FillInfo;
using randtensor::FillOptions;
using randtensor::PhiloxState;
using randtensor::Status;
using randtensor::StatusCode;
namespace dml = randtensor::dml;

constexpr uint64_t kMaxSpanBytes = uint64_t{1} << 20;  // real memory per input, at most

const Case* g_case = nullptr;  // for failure reports
bool g_verbose = false;

[[noreturn]] __attribute__((format(printf, 1, 2))) void Fail(const char* format, ...) {
  std::fprintf(stderr, "\n==== randtensor fuzz: CHECK FAILED: ");
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fprintf(stderr, "\n---- case:\n%s----\n", g_case ? Describe(*g_case).c_str() : "?");
  std::fflush(stderr);
  std::abort();
}

std::string Text(const Status& s) {
  return std::string(randtensor::StatusCodeName(s.code())) + ": " + s.message();
}

// ------------------------------------------------------------ guarded memory

size_t PageSize() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

// A block of whole pages between two PROT_NONE guard pages, prefilled with a
// pattern that differs from block to block and from call to call.
class Block {
 public:
  Block() = default;
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;
  ~Block() { Release(); }

  void Allocate(size_t bytes, uint32_t salt) {
    Release();
    const size_t page = PageSize();
    size_ = (std::max<size_t>(bytes, 1) + page - 1) / page * page;
    void* p = mmap(nullptr, size_ + 2 * page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) Fail("mmap of %zu bytes failed", size_ + 2 * page);
    raw_ = static_cast<uint8_t*>(p);
    if (mprotect(raw_, page, PROT_NONE) != 0 || mprotect(raw_ + page + size_, page, PROT_NONE) != 0) {
      Fail("mprotect failed");
    }
    data_ = raw_ + page;
    uint32_t x = salt * 0x9E3779B9u + 0x7F4A7C15u;
    for (size_t i = 0; i < size_; i += 4) {  // xorshift32: no short period in the pattern
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      std::memcpy(data_ + i, &x, 4);
    }
    expected_.assign(data_, data_ + size_);
  }

  void Release() {
    if (raw_ != nullptr) munmap(raw_, size_ + 2 * PageSize());
    raw_ = data_ = nullptr;
    size_ = 0;
  }

  bool live() const { return data_ != nullptr; }
  uint8_t* data() const { return data_; }
  uint8_t* end() const { return data_ + size_; }
  size_t size() const { return size_; }
  bool Contains(uintptr_t p, uint64_t n) const {
    const uintptr_t lo = reinterpret_cast<uintptr_t>(data_);
    return live() && p >= lo && p - lo <= size_ && n <= size_ - (p - lo);
  }
  // Records that `n` bytes at `p` are expected to change to `bytes`.
  void Expect(uintptr_t p, const void* bytes, size_t n) {
    std::memcpy(expected_.data() + (p - reinterpret_cast<uintptr_t>(data_)), bytes, n);
  }
  // The first differing byte, or -1.
  long Mismatch() const {
    if (!live() || std::memcmp(data_, expected_.data(), size_) == 0) return -1;
    size_t i = 0;
    while (data_[i] == expected_[i]) ++i;
    return static_cast<long>(i);
  }
  uint8_t expected(size_t i) const { return expected_[i]; }

 private:
  uint8_t* raw_ = nullptr;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::vector<uint8_t> expected_;
};

// The blocks of one call: the output tensor's, and one for each state.
struct Blocks {
  Block out, in_state, out_state;

  // Records an expected write of `n` bytes at `p` in whichever block holds it.
  void Expect(uintptr_t p, const void* bytes, size_t n, const char* what) {
    for (Block* b : {&out, &in_state, &out_state}) {
      if (b->Contains(p, n)) {
        b->Expect(p, bytes, n);
        return;
      }
    }
    Fail("accepted, but %s at %p (%zu bytes) lies outside every allocation", what,
         reinterpret_cast<void*>(p), n);
  }

  void CheckAll(const char* when) const {
    const char* names[] = {"output block", "input-state block", "output-state block"};
    const Block* blocks[] = {&out, &in_state, &out_state};
    for (int i = 0; i < 3; ++i) {
      const long at = blocks[i]->Mismatch();
      if (at >= 0) {
        Fail("%s: %s differs at byte %ld (of %zu): 0x%02x, expected 0x%02x", when, names[i], at,
             blocks[i]->size(), blocks[i]->data()[at], blocks[i]->expected(static_cast<size_t>(at)));
      }
    }
  }
};

// --------------------------------------------------------------- targets

struct CompiledTarget {
  std::string name;
  bool supported;
};
std::vector<CompiledTarget> g_targets;

bool NameEquals(const char* a, const char* b) {
  for (; *a && *b; ++a, ++b) {
    const char x = (*a >= 'a' && *a <= 'z') ? *a - 32 : *a;
    const char y = (*b >= 'a' && *b <= 'z') ? *b - 32 : *b;
    if (x != y) return false;
  }
  return *a == *b;
}

// targets.h: "auto" or nullptr picks the default; otherwise a compiled target
// name (case-insensitive) that this CPU supports.
bool TargetNameValid(const char* name) {
  if (name == nullptr || NameEquals(name, "auto")) return true;
  for (const CompiledTarget& t : g_targets) {
    if (NameEquals(name, t.name.c_str())) return t.supported;
  }
  return false;
}

// ----------------------------------------------------------- thread hooks

uint32_t g_expected_max_threads = 0;

void ReverseHook(void*, uint32_t count, uint32_t max_threads, randtensor::TaskFn task, void* ctx) {
  if (max_threads != g_expected_max_threads) {
    Fail("ParallelFor hook got max_threads %u, expected %u", max_threads, g_expected_max_threads);
  }
  for (uint32_t i = count; i-- > 0;) task(ctx, i);
}

void EvenOddHook(void*, uint32_t count, uint32_t max_threads, randtensor::TaskFn task, void* ctx) {
  if (max_threads != g_expected_max_threads) {
    Fail("ParallelFor hook got max_threads %u, expected %u", max_threads, g_expected_max_threads);
  }
  for (uint32_t i = 0; i < count; i += 2) task(ctx, i);
  for (uint32_t i = 1; i < count; i += 2) task(ctx, i);
}

FillOptions MakeOptions(const Case& c, FillInfo* info) {
  FillOptions o;
  o.element_offset = c.element_offset;
  o.threads = c.threads;
  o.stores = static_cast<randtensor::StoreMode>(c.stores);
  o.task_elements = c.task_elements;
  o.info = c.want_info ? info : nullptr;
  if (c.hook == 1) o.parallel_for = randtensor::ParallelFor{ReverseHook, nullptr};
  if (c.hook == 2) o.parallel_for = randtensor::ParallelFor{EvenOddHook, nullptr};
  g_expected_max_threads = c.threads != 0 ? c.threads : randtensor::DefaultThreads();
  return o;
}

bool StoresValid(int32_t stores) { return stores >= 0 && stores <= 2; }

// ------------------------------------------------------------- shared bits

// The arrays handed to the library hold exactly as many entries as the rank
// claims (up to 128), so ASan catches a read past them.
int ArrayEntries(int64_t rank) { return rank < 0 ? 0 : rank > 128 ? 128 : static_cast<int>(rank); }

// The native descriptor of a case, with its size and stride arrays on the
// heap, exactly ArrayEntries(rank) int64s each (new[0] is a valid, empty
// block). Dimensions past kMaxDims are 1.
struct NativeDesc {
  explicit NativeDesc(const Case& c)
      : entries(ArrayEntries(c.rank)),
        sizes(new int64_t[entries]),
        strides(new int64_t[entries]) {
    for (int d = 0; d < entries; ++d) {
      sizes[d] = d < kMaxDims ? c.sizes[d] : 1;
      strides[d] = d < kMaxDims ? c.strides[d] : 1;
    }
    desc.dtype = static_cast<randtensor::DataType>(c.dtype);
    desc.rank = static_cast<int32_t>(c.rank);  // the native rank is an int32 field
    desc.sizes = c.sizes_null ? nullptr : sizes.get();
    desc.strides = c.has_strides ? strides.get() : nullptr;
  }
  int entries;
  std::unique_ptr<int64_t[]> sizes, strides;
  randtensor::TensorDesc desc;
};

// The DirectML dimension arrays of a case: DimensionCount = rank as uint32,
// at most 128 uint32s each on the heap, dimensions past kMaxDims 1; the
// arguments are null where the case asks for a missing array.
struct DmlDims {
  explicit DmlDims(const Case& c)
      : dims(static_cast<uint32_t>(c.rank)),
        entries(dims > 128 ? 128 : static_cast<int>(dims)),
        sizes(new uint32_t[entries]),
        strides(new uint32_t[entries]) {
    for (int d = 0; d < entries; ++d) {
      sizes[d] = d < kMaxDims ? static_cast<uint32_t>(c.sizes[d]) : 1;
      strides[d] = d < kMaxDims ? static_cast<uint32_t>(c.strides[d]) : 1;
    }
    sizes_arg = c.sizes_null ? nullptr : sizes.get();
    strides_arg = c.has_strides ? strides.get() : nullptr;
  }
  uint32_t dims;
  int entries;
  std::unique_ptr<uint32_t[]> sizes, strides;
  const uint32_t* sizes_arg;
  const uint32_t* strides_arg;
};

// The size field a case asks for, relative to the layout's minimum.
uint64_t SizeField(int size_class, uint64_t param, uint64_t min) {
  switch (size_class) {
    case kSizeExact: return min;
    case kSizeBelow: {
      const uint64_t d = 1 + param % 8;
      return min > d ? min - d : 0;
    }
    case kSizeAbove: return min + param % 64;
    case kSizeAbsurd: {
      static const uint64_t kAbsurd[] = {UINT64_MAX, uint64_t{1} << 63, uint64_t{1} << 32,
                                         UINT64_MAX - 3, (uint64_t{1} << 62) + 4};
      return kAbsurd[param % 5];
    }
    case kSizeZero: return 0;
    default: return param;
  }
}

// Places a span of `need` bytes in `block` per the case: just after the
// leading guard (plus `pre` bytes) or ending just before the trailing guard
// (minus `post` bytes).
uint8_t* PlaceSpan(Block& block, const Case& c, uint64_t need, uint32_t salt) {
  block.Allocate(c.pre + need + c.post, salt);
  return c.flush_end ? block.end() - c.post - need : block.data() + c.pre;
}

// Where a state goes when it lives inside the output block: a 4-aligned
// offset (plus `misalign`) that keeps its 24 bytes in the block.
uintptr_t StateInOutput(const Block& out, uint32_t offset, uint32_t misalign) {
  const size_t room = out.size() >= 24 + 4 ? out.size() - 24 - 3 : 0;
  const size_t at = room == 0 ? 0 : (offset % (room + 1)) / 4 * 4;
  return reinterpret_cast<uintptr_t>(out.data()) + at + misalign;
}

// A state in its own block, ending flush with the trailing guard page.
uintptr_t StateOwn(Block& block, uint32_t misalign, uint32_t salt) {
  block.Allocate(64, salt);
  return reinterpret_cast<uintptr_t>(block.end()) - (misalign ? 28 - misalign : 24);
}

bool RangesOverlap(u128 a, u128 a_bytes, u128 b, u128 b_bytes) {
  return a_bytes != 0 && b_bytes != 0 && a < b + b_bytes && b < a + a_bytes;
}

void CheckRejection(const Status& s, const Judgement& j, const LayoutModel& layout,
                    const Blocks& blocks) {
  if (j.verdict == kValid) {
    const bool cannot_prove = s.code() == StatusCode::kUnsupported && !layout.nested &&
                              std::strstr(s.message(), "cannot prove") != nullptr;
    if (!cannot_prove) Fail("a valid call was rejected: %s", Text(s).c_str());
  }
  const size_t len = strnlen(s.message(), Status::kMaxMessage);
  if (len == 0) Fail("rejected (%s) with an empty message", randtensor::StatusCodeName(s.code()));
  if (len >= static_cast<size_t>(Status::kMaxMessage)) Fail("rejection message not terminated");
  blocks.CheckAll("rejected call wrote memory");
}

// Expected element writes: every element of the layout, its oracle value at
// base + offset * 4.
void ExpectElements(Blocks& blocks, const LayoutModel& m, uintptr_t base, const uint32_t state[6],
                    uint64_t element_offset) {
  if (!m.span_ok || m.count == 0) return;
  Oracle oracle(state);
  int64_t idx[8] = {};
  int64_t offset = 0;
  for (u128 e = 0; e < m.count; ++e) {
    const uint32_t v = oracle.Value(u128{element_offset} + e);
    blocks.Expect(base + static_cast<uintptr_t>(offset) * 4, &v, 4, "an element");
    for (int d = m.rank - 1; d >= 0; --d) {
      if (++idx[d] < m.sizes[d]) {
        offset += m.strides[d];
        break;
      }
      offset -= (m.sizes[d] - 1) * m.strides[d];
      idx[d] = 0;
    }
  }
}

void CheckInfo(const Case& c, const FillInfo& info, const LayoutModel& m) {
  if (!c.want_info || m.count == 0) return;
  if (info.target == nullptr || info.target[0] == '\0' || info.lanes < 1 || info.tasks < 1) {
    Fail("FillInfo incomplete: target '%s', lanes %d, tasks %u", info.target ? info.target : "(null)",
         info.lanes, info.tasks);
  }
  const char* forced = kTargetNames[c.target];
  if (forced != nullptr && TargetNameValid(forced) && !NameEquals(forced, "auto") &&
      !NameEquals(forced, info.target)) {
    Fail("target %s was set, but %s ran", forced, info.target);
  }
}

// ------------------------------------------------------------- native Fill

void RunNativeFill(const Case& c, uint32_t salt) {
  NativeDesc native(c);
  const randtensor::TensorDesc& desc = native.desc;

  Judgement j;
  if (c.dtype != 0) j.Note(kInvalid, "dtype not kUint32");
  const LayoutModel m = ModelLayout(static_cast<int32_t>(c.rank), 0, desc.sizes, desc.strides);
  j.Note(m.j.verdict, m.j.why);

  Blocks blocks;
  const bool fits = m.span_ok && m.min_bytes <= kMaxSpanBytes;
  const uint64_t need = fits ? m.min_bytes : 0;
  uint8_t* span = PlaceSpan(blocks.out, c, need, salt);
  uint64_t buffer_bytes = SizeField(c.size_class, c.size_param, m.span_ok ? m.min_bytes : 0);
  if (!fits && m.span_ok && m.count > 0 && buffer_bytes >= m.min_bytes) {
    buffer_bytes = m.min_bytes - 1 - c.size_param % 4;  // no memory behind it: must be refused
  }

  // The buffer's start and where element (0, ..., 0) lies in it (fill.h:
  // TensorDesc::byte_offset): after the elements that negative strides put
  // before it.
  uintptr_t data = reinterpret_cast<uintptr_t>(span);
  uint64_t byte_offset = fits ? static_cast<uint64_t>(-m.low) * 4 : 0;
  bool real = true;
  if (c.pointer == kPtrNull) {
    data = 0;
    real = false;
  } else if (c.pointer == kPtrWrapLow && m.span_ok && m.count > 0 && m.low < 0) {
    byte_offset = static_cast<uint64_t>(-m.low) * 4 - 4;  // element at `low` 4 bytes before data
  } else if (c.pointer == kPtrWrapHigh && m.span_ok && m.count > 0 && m.high >= 1) {
    // Element `high` at 2^64: the buffer runs past the address space.
    data = uintptr_t{0} - static_cast<uintptr_t>(m.high) * 4 - static_cast<uintptr_t>(byte_offset);
    real = false;
  }
  native.desc.byte_offset = byte_offset;
  if (!fits && m.span_ok && m.count > 0 && real) real = false;  // nothing behind the span
  if (m.count > 0 && m.span_ok) {
    if (data == 0) j.Note(kInvalid, "data null");
    if (data % 4 != 0) j.Note(kInvalid, "data misaligned");
    const i128 first = static_cast<i128>(byte_offset) + m.low * 4;
    const i128 end = static_cast<i128>(byte_offset) + (m.high + 1) * 4;
    if (first < 0) j.Note(kInvalid, "elements before the buffer's start");
    if (end > static_cast<i128>(buffer_bytes)) j.Note(kInvalid, "buffer_bytes below the span");
    if (data != 0 && static_cast<i128>(data) + buffer_bytes > static_cast<i128>(u128{1} << 64)) {
      j.Note(kInvalid, "buffer wraps the address space");
    }
  }
  if (!StoresValid(c.stores)) j.Note(kInvalid, "stores not a StoreMode");
  if (m.counted && u128{c.element_offset} + m.count > UINT64_MAX) {
    j.Note(kEither, "element_offset + N past 2^64");
  }

  // States (native: aligned PhiloxState objects).
  uintptr_t in_at = c.in_place == kStateInOutput && real
                        ? StateInOutput(blocks.out, c.in_offset, 0)
                        : StateOwn(blocks.in_state, 0, salt + 1);
  std::memcpy(reinterpret_cast<void*>(in_at), c.state, 24);
  if (blocks.in_state.live()) blocks.in_state.Expect(in_at, c.state, 24);
  if (blocks.out.Contains(in_at, 24)) blocks.out.Expect(in_at, c.state, 24);
  uintptr_t out_at = 0;
  switch (c.out_place) {
    case kStateNull: out_at = 0; break;
    case kStateSame: out_at = in_at; break;
    case kStateInOutput:
      out_at = real ? StateInOutput(blocks.out, c.out_offset, 0) : StateOwn(blocks.out_state, 0, salt + 2);
      break;
    default: out_at = StateOwn(blocks.out_state, 0, salt + 2); break;
  }
  // fill.h: out_state may not overlap the buffer (data, buffer_bytes long).
  // An empty tensor has no element addresses.
  if (out_at != 0 && m.span_ok && m.count > 0 && data != 0 &&
      RangesOverlap(data, buffer_bytes, out_at, 24)) {
    j.Note(kInvalid, "out_state overlaps the buffer");
  }
  if (out_at != 0 && m.count == 0 && data != 0 &&
      RangesOverlap(data, buffer_bytes, out_at, 24)) {
    j.Note(kEither, "empty tensor, out_state inside buffer_bytes");
  }

  FillInfo info;
  FillOptions options = MakeOptions(c, &info);
  PhiloxState* in_state = reinterpret_cast<PhiloxState*>(in_at);
  PhiloxState* out_state = reinterpret_cast<PhiloxState*>(out_at);
  if (g_verbose) {
    std::fprintf(stderr, "native: data %p buffer_bytes %llu in %p out %p; model %d (%s)\n",
                 reinterpret_cast<void*>(data), static_cast<unsigned long long>(buffer_bytes),
                 static_cast<void*>(in_state), static_cast<void*>(out_state), j.verdict, j.why);
  }
  const Status s = randtensor::Fill(desc, reinterpret_cast<void*>(data), buffer_bytes, *in_state,
                                    out_state, options);
  if (g_verbose) std::fprintf(stderr, "-> %s\n", Text(s).c_str());
  if (!s.ok()) {
    CheckRejection(s, j, m, blocks);
    return;
  }
  if (j.verdict == kInvalid) Fail("accepted an invalid call (%s)", j.why);
  if (m.count > 0 && !real) Fail("accepted a call whose pointer has no memory behind it");
  ExpectElements(blocks, m, data + byte_offset, c.state, c.element_offset);
  if (out_at != 0) {
    uint32_t expect[6];
    Oracle(c.state).OutState(u128{c.element_offset} + m.count, expect);
    blocks.Expect(out_at, expect, 24, "the output state");
  }
  blocks.CheckAll("accepted call");
  CheckInfo(c, info, m);
}

// ----------------------------------------------------------- MinBufferBytes

void RunMinBufferBytes(const Case& c) {
  NativeDesc native(c);
  const randtensor::TensorDesc& desc = native.desc;
  Judgement j;
  // Element sizes of DataType 0..8 (fill.h); MinBufferBytes takes any type.
  static constexpr int kElementSize[9] = {4, 4, 8, 2, 2, 1, 1, 4, 8};
  const int elem = c.dtype >= 0 && c.dtype < 9 ? kElementSize[c.dtype] : 0;
  if (elem == 0) j.Note(kInvalid, "dtype not a DataType");
  if (c.calc_bytes_null) j.Note(kInvalid, "bytes null");
  LayoutModel m = ModelLayout(static_cast<int32_t>(c.rank), 0, desc.sizes, desc.strides);
  // The model sizes 4-byte elements; 1- and 2-byte ones fit where N * 4 bytes
  // does not but N * elem does (a count near 2^63, for example).
  const bool narrow_may_fit =
      elem != 0 && elem < 4 && m.j.verdict == kInvalid &&
      (std::strcmp(m.j.why, "byte span does not fit in 64 bits") == 0 ||
       (std::strcmp(m.j.why, "element count too large for a 64-bit byte span") == 0 &&
        m.count * static_cast<u128>(elem) <= static_cast<u128>(UINT64_MAX)));
  if (narrow_may_fit) {
    // Too many bytes for 4-byte elements may fit for 1- or 2-byte ones; the
    // model does not size those, so either answer is accepted (bytes unchecked).
    j.Note(kEither, "byte span of a narrow type near 2^64");
  } else {
    j.Note(m.j.verdict, m.j.why);
  }
  if (elem != 0 && elem != 4 && m.span_ok && m.count > 0) {
    // The model sizes 4-byte elements: the span in this type's bytes, rounded
    // up to 4, or an overflow past 64 bits.
    const u128 raw = static_cast<u128>(m.high - m.low + 1) * static_cast<u128>(elem);
    if (raw > static_cast<u128>(UINT64_MAX - 3)) {
      j.Note(kInvalid, "span overflows 64-bit bytes");
    } else {
      m.min_bytes = static_cast<uint64_t>((raw + 3) / 4 * 4);
    }
  }

  const uint64_t sentinel = 0xDEADBEEFCAFEF00Dull;
  uint64_t bytes = sentinel;
  const Status s = randtensor::MinBufferBytes(desc, c.calc_bytes_null ? nullptr : &bytes);
  if (g_verbose) std::fprintf(stderr, "MinBufferBytes -> %s, %llu; model %d (%s) %llu\n", Text(s).c_str(),
                              static_cast<unsigned long long>(bytes), j.verdict, j.why,
                              static_cast<unsigned long long>(m.min_bytes));
  if (!s.ok()) {
    Blocks none;
    CheckRejection(s, j, m, none);
    if (bytes != sentinel) Fail("rejected, but *bytes was written");
    return;
  }
  if (j.verdict == kInvalid) Fail("MinBufferBytes accepted an invalid descriptor (%s)", j.why);
  if (!narrow_may_fit && bytes != m.min_bytes) {
    Fail("MinBufferBytes = %llu, expected %llu", static_cast<unsigned long long>(bytes),
         static_cast<unsigned long long>(m.min_bytes));
  }
}

// --------------------------------------------------------------- DirectML

constexpr uint32_t kStateSizes[4] = {1, 1, 1, 6};

// A state tensor description with one thing broken per `mutation` (0: none).
struct StateDesc {
  uint32_t sizes[8] = {1, 1, 1, 6, 1, 1, 1, 1};
  uint32_t strides[8] = {6, 6, 6, 1, 1, 1, 1, 1};
  std::unique_ptr<uint32_t[]> sizes_heap, strides_heap;
  dml::DML_BUFFER_TENSOR_DESC buffer{};
  dml::DML_TENSOR_DESC tensor{};
  bool tensor_null = false;

  void Build(int mutation, uint32_t param) {
    buffer.DataType = dml::DML_TENSOR_DATA_TYPE_UINT32;
    buffer.Flags = dml::DML_TENSOR_FLAG_NONE;
    buffer.DimensionCount = 4;
    buffer.TotalTensorSizeInBytes = 24;
    buffer.GuaranteedBaseOffsetAlignment = 0;
    bool use_strides = false;
    tensor.Type = dml::DML_TENSOR_TYPE_BUFFER;
    switch (mutation) {
      case 1: buffer.DataType = static_cast<dml::DML_TENSOR_DATA_TYPE>(param % 13); break;
      case 2: buffer.Flags = static_cast<dml::DML_TENSOR_FLAGS>(param); break;
      case 3: buffer.GuaranteedBaseOffsetAlignment = param; break;
      case 4: buffer.DimensionCount = param % 9; break;
      case 5: sizes[param % 4] = param / 4 % 8; break;
      case 6: use_strides = true; strides[3] = param % 3; break;
      case 7: use_strides = true; strides[param % 3] = param; break;  // irrelevant: size 1
      case 8: buffer.TotalTensorSizeInBytes = param % 32; break;
      case 9: buffer.TotalTensorSizeInBytes = UINT64_MAX - param; break;
      case 10: tensor.Type = static_cast<dml::DML_TENSOR_TYPE>(param % 3); break;
      case 11: tensor_null = true; break;
      case 12: buffer.TotalTensorSizeInBytes = 24 + param; break;
      case 13: buffer.GuaranteedBaseOffsetAlignment = uint32_t{1} << (param % 32); break;
      case 14: buffer.Flags = dml::DML_TENSOR_FLAG_OWNED_BY_DML; break;
      default: break;
    }
    const uint32_t dims = buffer.DimensionCount;
    sizes_heap.reset(new uint32_t[dims]);
    strides_heap.reset(new uint32_t[dims]);
    for (uint32_t d = 0; d < dims; ++d) {
      sizes_heap[d] = sizes[d];
      strides_heap[d] = strides[d];
    }
    buffer.Sizes = mutation == 15 ? nullptr : sizes_heap.get();
    buffer.Strides = use_strides ? strides_heap.get() : nullptr;
    tensor.Desc = mutation == 15 && (param & 1) ? nullptr : &buffer;
    if (mutation == 15 && (param & 1)) buffer.Sizes = sizes_heap.get();
  }
  const dml::DML_TENSOR_DESC* get() const { return tensor_null ? nullptr : &tensor; }
};

bool AlignmentFieldValid(uint32_t a) { return a == 0 || (a >= 4 && (a & (a - 1)) == 0); }

// The rules for a state tensor description (directml.h: UINT32, {1,1,1,6}).
void JudgeStateDesc(const dml::DML_TENSOR_DESC* t, Judgement& j) {
  if (t == nullptr) return j.Note(kInvalid, "state tensor null");
  if (t->Type != dml::DML_TENSOR_TYPE_BUFFER) return j.Note(kInvalid, "state tensor type");
  if (t->Desc == nullptr) return j.Note(kInvalid, "state Desc null");
  const auto& b = *static_cast<const dml::DML_BUFFER_TENSOR_DESC*>(t->Desc);
  if (b.DataType != dml::DML_TENSOR_DATA_TYPE_UINT32) j.Note(kInvalid, "state DataType");
  if ((b.Flags & ~1u) != 0) j.Note(kInvalid, "state Flags");
  if (!AlignmentFieldValid(b.GuaranteedBaseOffsetAlignment)) j.Note(kInvalid, "state alignment field");
  if (b.DimensionCount != 4) return j.Note(kInvalid, "state DimensionCount");
  if (b.Sizes == nullptr) return j.Note(kInvalid, "state Sizes null");
  for (int d = 0; d < 4; ++d) {
    if (b.Sizes[d] != kStateSizes[d]) return j.Note(kInvalid, "state Sizes not {1,1,1,6}");
  }
  if (b.Strides != nullptr && b.Strides[3] != 1) j.Note(kEither, "state words not contiguous");
  if (b.TotalTensorSizeInBytes < 24) j.Note(kInvalid, "state TotalTensorSizeInBytes < 24");
}

void JudgeBinding(const dml::DML_BUFFER_BINDING& b, const dml::DML_BUFFER_TENSOR_DESC& t,
                  Judgement& j) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(b.Data);
  if (b.Data == nullptr) j.Note(kInvalid, "binding Data null");
  if (b.SizeInBytes < t.TotalTensorSizeInBytes) j.Note(kInvalid, "binding smaller than the tensor");
  const uint32_t a = t.GuaranteedBaseOffsetAlignment;
  if (a != 0 && addr % a != 0) j.Note(kInvalid, "binding breaks GuaranteedBaseOffsetAlignment");
  if (addr % 4 != 0) j.Note(kInvalid, "binding misaligned");
  if (u128{addr} + t.TotalTensorSizeInBytes > (u128{1} << 64)) j.Note(kInvalid, "binding past 2^64");
}

uint64_t BindingSize(int cls, uint64_t total, uint64_t param) {
  switch (cls) {
    case 1: return total > 1 + param % 8 ? total - 1 - param % 8 : 0;
    case 2: return total + param;
    case 3: return UINT64_MAX;
    default: return total;
  }
}

void RunDmlExecute(const Case& c, uint32_t salt) {
  const DmlDims dd(c);
  const uint32_t dims = dd.dims;
  std::vector<int64_t> wide_sizes(dd.entries + 1), wide_strides(dd.entries + 1);
  for (int d = 0; d < dd.entries; ++d) {
    wide_sizes[d] = dd.sizes[d];
    wide_strides[d] = dd.strides[d];
  }
  dml::DML_BUFFER_TENSOR_DESC out_buffer{};
  out_buffer.DataType = static_cast<dml::DML_TENSOR_DATA_TYPE>(c.dtype);
  out_buffer.Flags = static_cast<dml::DML_TENSOR_FLAGS>(c.out_flags);
  out_buffer.DimensionCount = dims;
  out_buffer.Sizes = dd.sizes_arg;
  out_buffer.Strides = dd.strides_arg;
  out_buffer.GuaranteedBaseOffsetAlignment = c.out_align;
  dml::DML_TENSOR_DESC out_tensor{static_cast<dml::DML_TENSOR_TYPE>(c.out_tensor_type),
                                  c.out_desc_null ? nullptr : &out_buffer};
  StateDesc in_desc, out_desc;
  in_desc.Build(c.in_desc_mutation, c.mutation_param);
  out_desc.Build(c.out_desc_mutation, c.mutation_param ^ 0x5A);
  dml::DML_RANDOM_GENERATOR_OPERATOR_DESC op{};
  op.InputStateTensor = in_desc.get();
  op.OutputTensor = &out_tensor;
  op.OutputStateTensor = c.out_state_desc ? out_desc.get() : nullptr;
  op.Type = static_cast<dml::DML_RANDOM_GENERATOR_TYPE>(c.op_type);

  // The operator's own rules (CreateOperator's).
  Judgement desc_j;
  if (c.op_type != 0) desc_j.Note(kInvalid, "Type not PHILOX_4X32_10");
  JudgeStateDesc(op.InputStateTensor, desc_j);
  if (op.OutputStateTensor != nullptr) JudgeStateDesc(op.OutputStateTensor, desc_j);
  if (c.out_tensor_type != 1) desc_j.Note(kInvalid, "OutputTensor type");
  if (c.out_desc_null) desc_j.Note(kInvalid, "OutputTensor Desc null");
  if (c.dtype != 3) desc_j.Note(kInvalid, "OutputTensor DataType not UINT32");
  if ((c.out_flags & ~1u) != 0) desc_j.Note(kInvalid, "OutputTensor Flags");
  if (!AlignmentFieldValid(c.out_align)) desc_j.Note(kInvalid, "OutputTensor alignment field");
  // DirectML: 1 to 8 dimensions, sizes >= 1, at most 2^32 - 1 elements.
  LayoutModel m = ModelLayout(dims > 8 ? 9 : dims, 1, out_buffer.Sizes ? wide_sizes.data() : nullptr,
                              out_buffer.Strides ? wide_strides.data() : nullptr);
  desc_j.Note(m.j.verdict, m.j.why);
  if (m.empty) desc_j.Note(kInvalid, "DirectML size 0");
  if (m.counted && m.count > 0xFFFFFFFFu) desc_j.Note(kInvalid, "more than 2^32 - 1 elements");

  Blocks blocks;
  const bool fits = m.span_ok && m.min_bytes <= kMaxSpanBytes && !m.empty;
  const uint64_t need = fits ? m.min_bytes : 0;
  uint8_t* span = PlaceSpan(blocks.out, c, need, salt);
  out_buffer.TotalTensorSizeInBytes = SizeField(c.size_class, c.size_param, m.span_ok ? m.min_bytes : 0);
  if (m.span_ok && out_buffer.TotalTensorSizeInBytes < m.min_bytes) {
    desc_j.Note(kInvalid, "TotalTensorSizeInBytes below CalcBufferTensorSize");
  }
  dml::DML_BUFFER_BINDING output{span, BindingSize(c.binding_class, out_buffer.TotalTensorSizeInBytes,
                                                   c.binding_param)};
  bool real = fits;
  if (!fits && out_buffer.TotalTensorSizeInBytes >= m.min_bytes &&
      output.SizeInBytes >= out_buffer.TotalTensorSizeInBytes && out_buffer.TotalTensorSizeInBytes > 0) {
    output.SizeInBytes = out_buffer.TotalTensorSizeInBytes - 1;  // no memory behind it: must be refused
  }
  if (c.pointer == kPtrNull) {
    output.Data = nullptr;
    real = false;
  } else if (c.pointer == kPtrWrapHigh && out_buffer.TotalTensorSizeInBytes > 4) {
    output.Data = reinterpret_cast<void*>(uintptr_t{0} - 4);
    real = false;
  }

  // State bindings.
  const bool in_in_output = c.in_place == kStateInOutput && real;
  uintptr_t in_at = in_in_output ? StateInOutput(blocks.out, c.in_offset, c.in_misalign)
                                 : StateOwn(blocks.in_state, c.in_misalign, salt + 1);
  std::memcpy(reinterpret_cast<void*>(in_at), c.state, 24);
  for (Block* b : {&blocks.out, &blocks.in_state}) {
    if (b->Contains(in_at, 24)) b->Expect(in_at, c.state, 24);
  }
  dml::DML_BUFFER_BINDING input_state{reinterpret_cast<void*>(in_at),
                                      BindingSize(c.in_bind_class, in_desc.buffer.TotalTensorSizeInBytes,
                                                  c.mutation_param)};
  if (c.in_bind_class == 3) input_state.SizeInBytes = 0;
  dml::DML_BUFFER_BINDING out_state_binding{};
  dml::DML_BUFFER_BINDING* output_state = nullptr;
  if (c.out_state_bound) {
    output_state = &out_state_binding;
    uintptr_t at = 0;
    switch (c.out_place) {
      case kStateSame: at = in_at; break;
      case kStateInOutput:
        at = real ? StateInOutput(blocks.out, c.out_offset, c.out_misalign)
                  : StateOwn(blocks.out_state, c.out_misalign, salt + 2);
        break;
      case kStateNull: at = 0; break;  // a binding with Data null
      default: at = StateOwn(blocks.out_state, c.out_misalign, salt + 2); break;
    }
    const uint64_t total = op.OutputStateTensor ? out_desc.buffer.TotalTensorSizeInBytes : 24;
    out_state_binding = {reinterpret_cast<void*>(at), BindingSize(c.out_bind_class, total, c.mutation_param ^ 0x5A)};
    if (c.out_bind_class == 3) out_state_binding.SizeInBytes = 0;
  }

  // The bindings' rules.
  Judgement j = desc_j;
  if ((output_state != nullptr) != (op.OutputStateTensor != nullptr)) {
    j.Note(kInvalid, "outputState binding and OutputStateTensor disagree");
  }
  if (desc_j.verdict != kInvalid) {  // the descriptors are usable
    JudgeBinding(input_state, in_desc.buffer, j);
    JudgeBinding(output, out_buffer, j);
    if (output_state != nullptr && op.OutputStateTensor != nullptr) {
      JudgeBinding(*output_state, out_desc.buffer, j);
      // SPEC.md 4: output tensor and output state may not overlap (each as
      // large as its TotalTensorSizeInBytes).
      if (RangesOverlap(reinterpret_cast<uintptr_t>(output.Data), out_buffer.TotalTensorSizeInBytes,
                        reinterpret_cast<uintptr_t>(output_state->Data),
                        out_desc.buffer.TotalTensorSizeInBytes)) {
        j.Note(kInvalid, "output state overlaps the output tensor");
      }
    }
    if (in_in_output && RangesOverlap(reinterpret_cast<uintptr_t>(output.Data),
                                      out_buffer.TotalTensorSizeInBytes, in_at, 24)) {
      j.Note(kEither, "input state inside the output tensor");
    }
  }
  if (c.element_offset != 0) j.Note(kInvalid, "element_offset with DirectML");
  if (!StoresValid(c.stores)) j.Note(kInvalid, "stores not a StoreMode");

  FillInfo info;
  FillOptions options = MakeOptions(c, &info);
  const Status v = dml::ValidateRandomGenerator(op);
  if (g_verbose) {
    std::fprintf(stderr, "dml: output %p (%llu; Total %llu) in %p out %p; model %d (%s); validate -> %s\n",
                 output.Data, static_cast<unsigned long long>(output.SizeInBytes),
                 static_cast<unsigned long long>(out_buffer.TotalTensorSizeInBytes), input_state.Data,
                 output_state ? output_state->Data : nullptr, j.verdict, j.why, Text(v).c_str());
  }
  if (v.ok() && desc_j.verdict == kInvalid) {
    Fail("ValidateRandomGenerator accepted an invalid description (%s)", desc_j.why);
  }
  if (!v.ok() && desc_j.verdict == kValid) {
    const bool cannot_prove = v.code() == StatusCode::kUnsupported && !m.nested &&
                              std::strstr(v.message(), "cannot prove") != nullptr;
    if (!cannot_prove) Fail("ValidateRandomGenerator rejected a valid description: %s", Text(v).c_str());
  }
  // About half the calls (by a bit of the state, threads and flags: no input
  // byte of its own, so the corpus keeps its meaning) go through
  // RandomGeneratorOperator, which must do exactly what ExecuteRandomGenerator
  // does, its Create exactly what ValidateRandomGenerator does.
  const bool via_operator =
      ((c.state[0] ^ c.state[1] ^ c.state[4] ^ c.state[5] ^ c.threads ^ c.out_flags) & 1) != 0;
  Status s;
  if (via_operator) {
    dml::RandomGeneratorOperator created;
    s = dml::RandomGeneratorOperator::Create(op, &created);
    if (s.code() != v.code() || std::strcmp(s.message(), v.message()) != 0) {
      Fail("RandomGeneratorOperator::Create said %s but ValidateRandomGenerator said %s",
           Text(s).c_str(), Text(v).c_str());
    }
    if (s.ok()) s = created.Execute(input_state, output, output_state, options);
  } else {
    s = dml::ExecuteRandomGenerator(op, input_state, output, output_state, options);
  }
  if (g_verbose) std::fprintf(stderr, "-> %s%s\n", Text(s).c_str(), via_operator ? " (operator)" : "");
  if (!v.ok() && (s.ok() || s.code() != v.code())) {
    Fail("ValidateRandomGenerator said %s but the execution said %s", Text(v).c_str(),
         Text(s).c_str());
  }
  if (!s.ok()) {
    CheckRejection(s, j, m, blocks);
    return;
  }
  if (j.verdict == kInvalid) Fail("accepted an invalid call (%s)", j.why);
  if (!real) Fail("accepted a call whose output has no memory behind it");
  ExpectElements(blocks, m, reinterpret_cast<uintptr_t>(output.Data), c.state, 0);
  if (output_state != nullptr) {
    uint32_t expect[6];
    Oracle(c.state).OutState(m.count, expect);
    blocks.Expect(reinterpret_cast<uintptr_t>(output_state->Data), expect, 24, "the output state");
  }
  blocks.CheckAll("accepted call");
  CheckInfo(c, info, m);
}

void RunDmlCalcSize(const Case& c) {
  const DmlDims dd(c);
  const uint32_t dims = dd.dims;
  const uint32_t* sz = dd.sizes_arg;
  const uint32_t* st = dd.strides_arg;
  uint64_t want = 0;
  const bool valid = ModelCalcBufferTensorSize(c.dtype, dims, sz, st, &want) && !c.calc_bytes_null;
  const uint64_t sentinel = 0xDEADBEEFCAFEF00Dull;
  uint64_t bytes = sentinel;
  const auto type = static_cast<dml::DML_TENSOR_DATA_TYPE>(c.dtype);
  const Status s = dml::CalcBufferTensorSizeChecked(type, dims, sz, st, c.calc_bytes_null ? nullptr : &bytes);
  const uint64_t plain = dml::CalcBufferTensorSize(type, dims, sz, st);
  if (g_verbose) std::fprintf(stderr, "CalcBufferTensorSizeChecked -> %s, %llu (plain %llu); model %d %llu\n",
                              Text(s).c_str(), static_cast<unsigned long long>(bytes),
                              static_cast<unsigned long long>(plain), valid,
                              static_cast<unsigned long long>(want));
  if (s.ok() != valid) {
    Fail("CalcBufferTensorSizeChecked: %s, but the model says %s", Text(s).c_str(),
         valid ? "valid" : "invalid");
  }
  if (!s.ok()) {
    const size_t len = strnlen(s.message(), Status::kMaxMessage);
    if (len == 0 || len >= static_cast<size_t>(Status::kMaxMessage)) Fail("bad rejection message");
    if (bytes != sentinel) Fail("rejected, but *bytes was written");
    if (!c.calc_bytes_null && plain != 0) Fail("CalcBufferTensorSize = %llu for an invalid tensor",
                                               static_cast<unsigned long long>(plain));
    return;
  }
  if (bytes != want || plain != want) {
    Fail("CalcBufferTensorSize = %llu (checked) / %llu (plain), expected %llu",
         static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(plain),
         static_cast<unsigned long long>(want));
  }
}

}  // namespace
}  // namespace rt_fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  using namespace rt_fuzz;
  g_verbose = std::getenv("RT_FUZZ_VERBOSE") != nullptr;
  for (int i = 0; i < randtensor::TargetCount(); ++i) {
    randtensor::TargetInfo t;
    if (!randtensor::GetTarget(i, &t).ok()) Fail("GetTarget(%d) failed", i);
    g_targets.push_back({t.name, t.supported});
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rt_fuzz;
  static uint32_t calls = 0;
  const Case c = Decode(data, size);
  g_case = &c;
  if (g_verbose) std::fprintf(stderr, "%s", Describe(c).c_str());

  // Force the target by name; on error the previous choice ("auto") stays.
  const char* name = kTargetNames[c.target];
  const Status t = randtensor::SetTarget(name);
  if (t.ok() != TargetNameValid(name)) {
    Fail("SetTarget('%s') returned %s", name ? name : "(null)", Text(t).c_str());
  }
  if (!t.ok() && t.message()[0] == '\0') Fail("SetTarget rejected with an empty message");

  ++calls;
  switch (c.api) {
    case kNativeFill: RunNativeFill(c, calls); break;
    case kMinBufferBytes: RunMinBufferBytes(c); break;
    case kDmlExecute: RunDmlExecute(c, calls); break;
    default: RunDmlCalcSize(c); break;
  }

  const Status restore = randtensor::SetTarget("auto");
  if (!restore.ok()) Fail("SetTarget(\"auto\") failed: %s", Text(restore).c_str());
  randtensor::TargetInfo active;
  if (!randtensor::GetActiveTarget(&active).ok() || !active.active) Fail("no active target after restore");
  g_case = nullptr;
  return 0;
}
