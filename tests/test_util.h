// Test helpers: the oracle's C++ face, the known answers, and the plumbing
// to compare fills with them.
//
// Expected values come from oracle.h (Random123's Philox and the compiler's
// 128-bit integers, no randtensor code) and from the known-answer file
// (known_answers.h); the oracle places values one element at a time with the
// plainest loop there is: for every logical element e (row-major, last
// dimension fastest), offset = sum_d idx[d] * stride[d], value = word
// (off + e) % 4 of Philox(C + (off + e) / 4, key).
#ifndef RANDTENSOR_TESTS_TEST_UTIL_H_
#define RANDTENSOR_TESTS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "known_answers.h"
#include "oracle.h"
#include "target_sweep.h"
#include "randtensor/fill.h"
#include "randtensor/philox.h"
#include "randtensor/status.h"
#include "randtensor/targets.h"

namespace rt_test {

using randtensor::FillInfo;
using randtensor::FillOptions;
using randtensor::PhiloxState;
using randtensor::StoreMode;

using u128 = rt_oracle_u128;

// ------------------------------------------------------------- the oracle
// Thin adaptors from oracle.h's word arrays to the library's state type.

inline u128 ToU128(const uint32_t w[4]) { return rt_oracle_counter(w); }

inline std::array<uint32_t, 4> FromU128(u128 v) {
  std::array<uint32_t, 4> w;
  rt_oracle_counter_words(v, w.data());
  return w;
}

// The state whose counter is `state`'s plus `blocks` (mod 2^128), key copied.
inline PhiloxState StatePlusBlocks(const PhiloxState& state, u128 blocks) {
  PhiloxState out;
  rt_oracle_plus_blocks(state.words, blocks, out.words);
  return out;
}

// The output state after consuming `elements` elements: C + ceil(elements / 4).
inline PhiloxState ExpectedOutState(const PhiloxState& state, u128 elements) {
  PhiloxState out;
  rt_oracle_advance(state.words, elements, out.words);
  return out;
}

inline std::string Hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%08x", v);
  return buf;
}

inline std::string StateString(const PhiloxState& s) {
  std::string out = "{";
  for (int i = 0; i < 6; ++i) out += (i ? " " : "") + Hex(s.words[i]);
  return out + "}";
}

inline ::testing::AssertionResult StatesEqual(const PhiloxState& actual,
                                              const PhiloxState& expected) {
  if (std::memcmp(actual.words, expected.words, sizeof(actual.words)) == 0) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "state " << StateString(actual) << ", expected "
                                       << StateString(expected);
}

// philox4x32_R(10, ctr, key) from Random123.
inline std::array<uint32_t, 4> R123Block(const uint32_t ctr[4], uint32_t k0, uint32_t k1) {
  std::array<uint32_t, 4> out;
  rt_oracle_block(ctr, k0, k1, out.data());
  return out;
}

// Element `e` of the stream that starts at `state`.
inline uint32_t OracleValue(const PhiloxState& state, u128 e) {
  return rt_oracle_element(state.words, e);
}

// ------------------------------------------------------------- known answers
// tests/data/known_answers.txt, whose path the build passes in
// RANDTENSOR_TEST_KNOWN_ANSWERS. Known() throws std::runtime_error (a failure
// of the test that asked) when the file cannot be read or parsed, or lacks a
// record a test asks for.

struct KnownBlock {
  std::string name;
  std::array<uint32_t, 4> counter;
  uint32_t k0 = 0, k1 = 0;
  std::array<uint32_t, 4> block;
};

struct KnownFill {
  std::string name;
  PhiloxState in;
  std::vector<int64_t> sizes;
  uint64_t count = 0;            // product of sizes
  std::vector<uint32_t> values;  // all `count` values, or none
  PhiloxState out;
};

struct KnownElement {
  std::string name;
  PhiloxState state;
  uint64_t index = 0;
  uint32_t value = 0;
};

struct KnownAnswers {
  std::vector<KnownBlock> blocks;
  std::vector<KnownFill> fills;  // in file order
  std::vector<KnownElement> elements;

  template <class T>
  static const T& Named(const std::vector<T>& all, const std::string& name, const char* kind) {
    for (const T& r : all) {
      if (r.name == name) return r;
    }
    throw std::runtime_error(std::string("the known-answer file has no ") + kind + " record \"" +
                             name + "\"");
  }
  const KnownBlock& Block(const std::string& name) const { return Named(blocks, name, "block"); }
  const KnownFill& Fill(const std::string& name) const { return Named(fills, name, "fill"); }
  const KnownElement& Element(const std::string& name) const {
    return Named(elements, name, "element");
  }
  // The fills that list their values (SPEC.md section 6's whole-operator cases).
  std::vector<KnownFill> FillsWithValues() const {
    std::vector<KnownFill> out;
    for (const KnownFill& f : fills) {
      if (!f.values.empty()) out.push_back(f);
    }
    return out;
  }
};

inline KnownAnswers LoadKnownAnswers(const char* path) {
  static rt_known_answers raw;  // large: not on the stack
  if (!rt_ka_load(path, &raw)) throw std::runtime_error(raw.error);
  KnownAnswers out;
  for (int i = 0; i < raw.count; ++i) {
    const rt_ka_record& r = raw.records[i];
    PhiloxState state;
    std::memcpy(state.words, r.in, sizeof(state.words));
    switch (r.kind) {
      case RT_KA_BLOCK:
        out.blocks.push_back({r.name, {{r.in[0], r.in[1], r.in[2], r.in[3]}}, r.in[4], r.in[5],
                              {{r.values[0], r.values[1], r.values[2], r.values[3]}}});
        break;
      case RT_KA_FILL: {
        KnownFill f;
        f.name = r.name;
        f.in = state;
        f.sizes.assign(r.sizes, r.sizes + r.rank);
        f.count = r.count;
        f.values.assign(r.values, r.values + r.value_count);
        std::memcpy(f.out.words, r.out, sizeof(f.out.words));
        out.fills.push_back(f);
        break;
      }
      case RT_KA_ELEMENT:
        out.elements.push_back({r.name, state, r.index, r.values[0]});
        break;
    }
  }
  return out;
}

#ifndef RANDTENSOR_TEST_KNOWN_ANSWERS
#error "the build must define RANDTENSOR_TEST_KNOWN_ANSWERS (the known-answer file's path)"
#endif

// The file, read once.
inline const KnownAnswers& Known() {
  static const KnownAnswers known = LoadKnownAnswers(RANDTENSOR_TEST_KNOWN_ANSWERS);
  return known;
}

// SPEC.md section 6's first whole-operator case: the zero state's first ten values.
inline const std::vector<uint32_t>& ZeroStateValues() { return Known().Fill("zero").values; }

// ------------------------------------------------------------- layouts

// A strided tensor layout as the tests describe it: sizes, and strides in
// elements (empty: packed, passed to randtensor as nullptr).
struct Shape {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;  // empty or sizes.size() entries

  int rank() const { return static_cast<int>(sizes.size()); }
};

inline uint64_t ElementCount(const std::vector<int64_t>& sizes) {
  uint64_t n = 1;
  for (int64_t s : sizes) n *= static_cast<uint64_t>(s);
  return n;
}

inline std::vector<int64_t> PackedStrides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t step = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    strides[d] = step;
    step *= sizes[d];
  }
  return strides;
}

inline std::vector<int64_t> EffectiveStrides(const Shape& shape) {
  return shape.strides.empty() ? PackedStrides(shape.sizes) : shape.strides;
}

// Lowest and highest element offset (relative to element (0, ..., 0)).
struct Span {
  int64_t low = 0;
  int64_t high = 0;
  uint64_t elements() const { return static_cast<uint64_t>(high - low + 1); }
};

inline Span ComputeSpan(const Shape& shape) {
  const std::vector<int64_t> strides = EffectiveStrides(shape);
  Span span;
  for (int d = 0; d < shape.rank(); ++d) {
    const int64_t extent = (shape.sizes[d] - 1) * strides[d];
    (extent < 0 ? span.low : span.high) += extent;
  }
  return span;
}

// DMLCalcBufferTensorSize as SPEC.md section 4 writes it, for 4-byte elements:
// packed: N * 4; strided: (sum_d (s[d] - 1) * |stride[d]| + 1) * 4; rounded up
// to a multiple of 4; an empty tensor needs no bytes.
inline uint64_t DmlMinBytes(const Shape& shape) {
  const uint64_t n = ElementCount(shape.sizes);
  if (n == 0) return 0;
  uint64_t bytes = 0;
  if (shape.strides.empty()) {
    bytes = n * 4;
  } else {
    uint64_t last = 0;
    for (int d = 0; d < shape.rank(); ++d) {
      const uint64_t s = static_cast<uint64_t>(shape.strides[d]);
      const uint64_t magnitude = shape.strides[d] < 0 ? 0 - s : s;  // |INT64_MIN| too
      last += static_cast<uint64_t>(shape.sizes[d] - 1) * magnitude;
    }
    bytes = (last + 1) * 4;
  }
  return (bytes + 3) / 4 * 4;
}

inline std::string VecString(const std::vector<int64_t>& v) {
  std::ostringstream out;
  out << "{";
  for (size_t i = 0; i < v.size(); ++i) out << (i ? "," : "") << v[i];
  out << "}";
  return out.str();
}

// The coordinates of logical element `e` (row-major, last dimension fastest).
inline std::vector<int64_t> IndexOf(const std::vector<int64_t>& sizes, uint64_t e) {
  std::vector<int64_t> idx(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    idx[d] = static_cast<int64_t>(e % static_cast<uint64_t>(sizes[d]));
    e /= static_cast<uint64_t>(sizes[d]);
  }
  return idx;
}

// sum_d idx[d] * stride[d] of logical element `e`.
inline int64_t OffsetOf(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                        uint64_t e) {
  const std::vector<int64_t> idx = IndexOf(sizes, e);
  int64_t offset = 0;
  for (size_t d = 0; d < sizes.size(); ++d) offset += idx[d] * strides[d];
  return offset;
}

// THE ORACLE. Writes every element of `shape` into `buffer`, whose word
// `origin` holds element (0, ..., 0). Returns false if an element would land
// outside the buffer (a broken test, not a broken library). Walks the
// elements in logical order with an odometer of indices (the last dimension
// fastest, as OffsetOf numbers them) with the oracle's cursor (a Philox
// block per four words): the suite's tests spend most of their time here.
inline bool OracleFill(const Shape& shape, const PhiloxState& state, uint64_t element_offset,
                       std::vector<uint32_t>& buffer, int64_t origin) {
  const uint64_t n = ElementCount(shape.sizes);
  const std::vector<int64_t> strides = EffectiveStrides(shape);
  const size_t rank = shape.sizes.size();
  std::vector<int64_t> index(rank, 0);
  int64_t at = origin;  // the word of element e, e's indices in `index`
  rt_oracle_cursor oracle = rt_oracle_cursor_start(state.words);
  for (uint64_t e = 0; e < n; ++e) {
    if (at < 0 || at >= static_cast<int64_t>(buffer.size())) return false;
    buffer[static_cast<size_t>(at)] = rt_oracle_cursor_element(&oracle, u128{element_offset} + e);
    // The next element's indices and word, stepping back a dimension only
    // from its last index: a unit dimension may have any stride (INT64_MAX
    // included), which must never be added.
    for (size_t d = rank; d-- > 0;) {
      if (index[d] + 1 < shape.sizes[d]) {
        ++index[d];
        at += strides[d];
        break;
      }
      at -= strides[d] * (shape.sizes[d] - 1);
      index[d] = 0;
    }
  }
  return true;
}

// Strides of a tensor stored in another dimension order, possibly padded:
// `order` lists the dimensions from outermost to innermost in memory, the
// innermost has stride `inner_step`, and each dimension's stride is the next
// inner one's stride times its size plus `pads[k]` (k: position in `order`,
// the pad added after walking dimension order[k]). Every such layout is
// free of overlap: each stride exceeds the reach of all inner ones.
inline std::vector<int64_t> StoredStrides(const std::vector<int64_t>& sizes,
                                          const std::vector<int>& order, int64_t inner_step,
                                          const std::vector<int64_t>& pads) {
  std::vector<int64_t> strides(sizes.size());
  int64_t step = inner_step;
  for (size_t k = order.size(); k-- > 0;) {
    strides[static_cast<size_t>(order[k])] = step;
    step = step * sizes[static_cast<size_t>(order[k])] + (pads.empty() ? 0 : pads[k]);
  }
  return strides;
}

inline std::vector<int> IdentityOrder(size_t rank) {
  std::vector<int> order(rank);
  for (size_t d = 0; d < rank; ++d) order[d] = static_cast<int>(d);
  return order;
}

inline std::vector<int> ReversedOrder(size_t rank) {
  std::vector<int> order = IdentityOrder(rank);
  return std::vector<int>(order.rbegin(), order.rend());
}

// Negates the strides of the dimensions whose bit is set in `mask` (a
// relabelling of each such dimension: still no overlap).
inline std::vector<int64_t> FlipSigns(std::vector<int64_t> strides, uint32_t mask) {
  for (size_t d = 0; d < strides.size(); ++d) {
    if ((mask >> d) & 1) strides[d] = -strides[d];
  }
  return strides;
}

// ------------------------------------------------------------- guarded buffers

// A position-dependent guard word: a shifted or skipped write cannot restore it.
inline uint32_t GuardWord(size_t i) {
  return 0xA5C3E1F7u ^ static_cast<uint32_t>(i * 0x9E3779B1u);
}

// Storage for a tensor's span with guard words before and after it. `data()`
// addresses element (0, ..., 0), `span_begin()` the lowest element. The
// buffer's first span word sits `misalign_bytes` (a multiple of 4, < 64) past a
// 64-byte boundary.
class GuardedBuffer {
 public:
  static constexpr size_t kGuardWords = 32;

  GuardedBuffer(const Span& span, size_t misalign_bytes = 0) : low_(span.low) {
    words_.resize(span.elements() + 2 * kGuardWords + 16);
    const uintptr_t base = reinterpret_cast<uintptr_t>(words_.data());
    const size_t to64 = ((64 - base % 64) % 64) / 4;  // words to a 64-byte boundary
    begin_ = to64 + kGuardWords + misalign_bytes / 4;
    for (size_t i = 0; i < words_.size(); ++i) words_[i] = GuardWord(i);
  }

  uint32_t* data() { return words_.data() + origin(); }
  uint32_t* span_begin() { return words_.data() + begin_; }
  // Index of element (0, ..., 0) in words().
  int64_t origin() const { return static_cast<int64_t>(begin_) - low_; }
  // A fresh copy of the guard pattern: the start of every expected buffer.
  std::vector<uint32_t> Pristine() const {
    std::vector<uint32_t> out(words_.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = GuardWord(i);
    return out;
  }
  const std::vector<uint32_t>& words() const { return words_; }

 private:
  int64_t low_;
  size_t begin_ = 0;
  std::vector<uint32_t> words_;
};

// Compares two word buffers byte for byte and names the first difference.
inline ::testing::AssertionResult BuffersEqual(const std::vector<uint32_t>& actual,
                                               const std::vector<uint32_t>& expected,
                                               int64_t origin) {
  if (actual.size() == expected.size() &&
      std::memcmp(actual.data(), expected.data(), actual.size() * 4) == 0) {
    return ::testing::AssertionSuccess();
  }
  size_t diffs = 0, first = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (actual[i] != expected[i] && diffs++ == 0) first = i;
  }
  return ::testing::AssertionFailure()
         << diffs << " words differ; first at word " << first << " (element offset "
         << static_cast<int64_t>(first) - origin << "): got " << Hex(actual[first])
         << ", expected " << Hex(expected[first])
         << (expected[first] == GuardWord(first) ? " (a guard/padding word: must be untouched)"
                                                  : "");
}

// ------------------------------------------------------------- one fill case

struct FillCase {
  Shape shape;
  PhiloxState state;
  uint64_t element_offset = 0;
  uint32_t threads = 1;
  uint64_t task_elements = 0;
  StoreMode stores = StoreMode::kAuto;
  size_t misalign_bytes = 0;  // of the buffer's first word from a 64-byte boundary
  uint64_t extra_bytes = 0;   // declared buffer_bytes beyond the minimum (<= 64)
  randtensor::ParallelFor parallel_for = {};

  std::string Describe() const {
    std::ostringstream out;
    out << "sizes " << VecString(shape.sizes) << " strides "
        << (shape.strides.empty() ? std::string("packed") : VecString(shape.strides))
        << " state " << StateString(state) << " offset " << element_offset << " threads "
        << threads << " tile " << task_elements << " stores " << static_cast<int>(stores)
        << " misalign " << misalign_bytes << " extra bytes " << extra_bytes;
    return out.str();
  }
};

// The descriptor of `shape` in a buffer that starts at its lowest element:
// byte_offset is how far negative strides put element (0, ..., 0) in.
inline randtensor::TensorDesc DescOf(const Shape& shape) {
  randtensor::TensorDesc desc;
  desc.rank = shape.rank();
  desc.sizes = shape.sizes.empty() ? nullptr : shape.sizes.data();
  desc.strides = shape.strides.empty() ? nullptr : shape.strides.data();
  bool empty = false;
  for (const int64_t size : shape.sizes) empty |= size == 0;
  desc.byte_offset = empty ? 0 : static_cast<uint64_t>(-ComputeSpan(shape).low) * 4;
  return desc;
}

// What a fill left behind, for further checks.
struct FillResult {
  std::vector<uint32_t> words;  // the whole guarded storage
  int64_t origin = 0;           // index of element (0, ..., 0) in words
  PhiloxState out_state;
  FillInfo info;
};

// Runs `c` through randtensor::Fill into a guarded buffer of exactly the
// DirectML minimum size, and checks every byte of storage (span, padding and
// guards) and the output state against the oracle.
inline ::testing::AssertionResult CheckFill(const FillCase& c, FillResult* result = nullptr) {
  const Span span = ComputeSpan(c.shape);
  GuardedBuffer buffer(span, c.misalign_bytes);
  FillOptions options;
  options.element_offset = c.element_offset;
  options.threads = c.threads;
  options.task_elements = c.task_elements;
  options.stores = c.stores;
  options.parallel_for = c.parallel_for;
  FillResult local;
  FillResult& r = result != nullptr ? *result : local;
  options.info = &r.info;
  r.out_state = PhiloxState{{0x0BADF00Du, 1, 2, 3, 4, 5}};
  const randtensor::Status status =
      randtensor::Fill(DescOf(c.shape), buffer.span_begin(), DmlMinBytes(c.shape) + c.extra_bytes,
                       c.state, &r.out_state, options);
  if (!status.ok()) {
    return ::testing::AssertionFailure() << "Fill failed: " << status.message() << "\n  case "
                                         << c.Describe();
  }
  std::vector<uint32_t> expected = buffer.Pristine();
  if (!OracleFill(c.shape, c.state, c.element_offset, expected, buffer.origin())) {
    return ::testing::AssertionFailure() << "test bug: oracle left the buffer\n  case "
                                         << c.Describe();
  }
  r.words = buffer.words();
  r.origin = buffer.origin();
  ::testing::AssertionResult same = BuffersEqual(r.words, expected, r.origin);
  if (!same) return same << "\n  case " << c.Describe();
  const PhiloxState want =
      ExpectedOutState(c.state, u128{c.element_offset} + ElementCount(c.shape.sizes));
  ::testing::AssertionResult state_ok = StatesEqual(r.out_state, want);
  if (!state_ok) return state_ok << "\n  case " << c.Describe();
  return ::testing::AssertionSuccess();
}

// The logical values a fill left in `r`, read back through `shape`'s strides.
inline std::vector<uint32_t> ReadLogical(const FillResult& r, const Shape& shape) {
  const uint64_t n = ElementCount(shape.sizes);
  const std::vector<int64_t> strides = EffectiveStrides(shape);
  std::vector<uint32_t> out(n);
  for (uint64_t e = 0; e < n; ++e) {
    out[e] = r.words[static_cast<size_t>(r.origin + OffsetOf(shape.sizes, strides, e))];
  }
  return out;
}

// ------------------------------------------------------------- targets

inline std::vector<randtensor::TargetInfo> CompiledTargets() {
  std::vector<randtensor::TargetInfo> out;
  for (int i = 0; i < randtensor::TargetCount(); ++i) {
    randtensor::TargetInfo info;
    if (randtensor::GetTarget(i, &info).ok()) out.push_back(info);
  }
  return out;
}

// The compiled targets this CPU runs that the sweeps include (Swept).
inline std::vector<randtensor::TargetInfo> SweptTargets() {
  std::vector<randtensor::TargetInfo> out;
  for (const randtensor::TargetInfo& t : CompiledTargets()) {
    if (t.supported && Swept(t.name)) out.push_back(t);
  }
  return out;
}

// Forces each supported target in turn (Swept) and runs `body(info)`;
// restores "auto".
template <class Body>
void ForEachSupportedTarget(const Body& body) {
  int swept = 0;
  for (const randtensor::TargetInfo& t : SweptTargets()) {
    SCOPED_TRACE(std::string("target ") + t.name);
    const randtensor::Status status = randtensor::SetTarget(t.name);
    ASSERT_TRUE(status.ok()) << status.message();
    body(t);
    ++swept;
  }
  ASSERT_GT(swept, 0) << "RANDTENSOR_TEST_SKIP_TARGETS left no supported target";
  ASSERT_TRUE(randtensor::SetTarget("auto").ok());
}

// ------------------------------------------------------------- random inputs

inline PhiloxState RandomState(std::mt19937_64& rng) {
  PhiloxState s;
  for (uint32_t& w : s.words) w = static_cast<uint32_t>(rng());
  return s;
}

// Counters that exercise the carries: anywhere, just below a 32-bit carry out
// of word 0, below a 64-bit carry, below the 128-bit wrap.
inline PhiloxState EdgeState(std::mt19937_64& rng, int kind, uint32_t below) {
  PhiloxState s = RandomState(rng);
  const uint32_t top = 0xFFFFFFFFu - below;
  switch (kind % 4) {
    case 0: break;
    case 1: s.words[0] = top; break;
    case 2: s.words[0] = top; s.words[1] = 0xFFFFFFFFu; break;
    default: s.words[0] = top; s.words[1] = s.words[2] = s.words[3] = 0xFFFFFFFFu; break;
  }
  return s;
}

}  // namespace rt_test

#endif  // RANDTENSOR_TESTS_TEST_UTIL_H_
