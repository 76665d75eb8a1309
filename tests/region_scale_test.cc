// Regions of internet-scale tensors (issue 13; SPEC.md sections 3, 8 and 10):
// global tensors of 2^50 elements up to the API's limit of 2^63 - 1, rank 1
// to 4, never allocated. Small regions at random places (a few thousand
// elements, packed, padded, transposed, negatively strided or scattered
// local buffers), with the state and element offset chosen so that the
// region's Philox counters carry out of word 0, 1 and 2, run into the 2^128
// wrap and through it, and reach the last stream index the API allows, on
// every SIMD target, one thread or several tasks.
//
// Every expected value is computed here from the oracle's words (oracle.h:
// Random123's Philox and the compiler's 128-bit integers) with SPEC.md
// section 8's formulas written out below: bits, uniform, bernoulli and
// integers exactly (IEEE float and double with std::fma: one rounding, as
// the spec says); normals within the spec's bound (2 ulp or 2^-22 for
// float32, 4 ulp or 2^-50 for float64) of the exact Box-Muller formula,
// evaluated in long double on the same u and v. Padding and the bytes
// around the buffer must stay untouched, and the output state must be the
// global fill's: C + ceil((offset + global N) * w / 4) mod 2^128.
//
// The limits (include/randtensor/region.h, src/fill.cc): the global element
// count at most 2^63 - 1 (as for whole tensors), and offset + global count at
// most 2^64 - 1 stream elements (one word each) or 2^63 - 1 (two words each).
// One past either is kOverflow, naming the field, with nothing written.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "randtensor/fill.h"
#include "randtensor/region.h"
#include "randtensor/targets.h"
#include "test_util.h"

namespace randtensor {
namespace {

using rt_test::u128;

constexpr int64_t P2(int n) { return int64_t{1} << n; }

// ------------------------------------------------------------- the oracle

// Word j of the stream `state` starts (SPEC.md section 8's W[j]): word j mod 4
// of Philox(C + floor(j / 4), key), from oracle.h. Remembers the last block.
class Words {
 public:
  explicit Words(const PhiloxState& state) : state_(state) {}
  uint32_t operator()(u128 j) {
    if (!valid_ || j / 4 != block_) {
      rt_oracle_block_of(state_.words, j, words_);
      block_ = j / 4;
      valid_ = true;
    }
    return words_[static_cast<int>(j % 4)];
  }

 private:
  PhiloxState state_;
  bool valid_ = false;
  u128 block_ = 0;
  uint32_t words_[4] = {0, 0, 0, 0};
};

// SPEC.md section 8, profile cuda, written out. float(x) of a uint32 and
// double(x) of a 53-bit value are correctly rounded (exact for the latter);
// std::fma rounds once.
constexpr float kP32 = 0x1p-32f;
constexpr float kTwoPiF = 6.2831855f;
constexpr float kP32TwoPi = kP32 * kTwoPiF;  // exact: P32 is a power of two
constexpr double kP53 = 0x1p-53;
constexpr long double kPi = 3.141592653589793238462643383279502884L;

float U32(uint32_t x) { return std::fma(static_cast<float>(x), kP32, kP32 / 2); }

double U53(uint32_t a, uint32_t b) {
  return std::fma(static_cast<double>(uint64_t{a} ^ (uint64_t{b} << 21)), kP53, kP53 / 2);
}

enum class Formula {
  kBits,
  kUniformFloat32,
  kUniformFloat64,
  kNormalFloat32,
  kNormalFloat64,
  kBernoulliUint8,
  kBernoulliFloat32,
  kIntegersInt32,
  kIntegersWideInt64,
};

struct Case {
  const char* what;
  Formula formula;
  DataType type;
  Distribution dist;
  int words;  // stream words per element (SPEC.md section 8's w)
};

const Case kCases[] = {
    {"bits uint32", Formula::kBits, DataType::kUint32, Distribution::Bits(), 1},
    {"uniform(-1.5, 2.25) float32", Formula::kUniformFloat32, DataType::kFloat32,
     Distribution::Uniform(-1.5, 2.25), 1},
    {"uniform(-3, 5) float64", Formula::kUniformFloat64, DataType::kFloat64,
     Distribution::Uniform(-3, 5), 2},
    {"normal(0, 1) float32", Formula::kNormalFloat32, DataType::kFloat32,
     Distribution::Normal(0, 1), 1},
    {"normal(0, 1) float64", Formula::kNormalFloat64, DataType::kFloat64,
     Distribution::Normal(0, 1), 2},
    {"bernoulli(0.3) uint8", Formula::kBernoulliUint8, DataType::kUint8,
     Distribution::Bernoulli(0.3), 1},
    {"bernoulli(0.7) float32", Formula::kBernoulliFloat32, DataType::kFloat32,
     Distribution::Bernoulli(0.7), 1},
    // Ranges below 2^28 (one word) and at or above 2^32 (two words): the
    // library and SPEC.md's table agree on both.
    {"integers(-1000, 12345) int32", Formula::kIntegersInt32, DataType::kInt32,
     Distribution::Integers(-1000, 12345), 1},
    {"integers(-2^40, 3 * 2^40) int64, two words", Formula::kIntegersWideInt64, DataType::kInt64,
     Distribution::Integers(-P2(40), 3 * P2(40)), 2},
};

// What element i of the stream must be: its exact bytes, or (normals) the
// exact Box-Muller value that the stored one must be within the bound of.
struct Expect {
  uint8_t bytes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  long double z = 0;
};

template <class T>
void Put(T value, Expect* e) {
  static_assert(sizeof(T) <= sizeof(e->bytes), "element too large");
  std::memcpy(e->bytes, &value, sizeof(T));
}

Expect ExpectedElement(const Case& c, Words& w, u128 i) {
  Expect e;
  const Distribution& d = c.dist;
  switch (c.formula) {
    case Formula::kBits:
      Put(w(i), &e);
      break;
    case Formula::kUniformFloat32: {
      const float lo = static_cast<float>(d.low), hi = static_cast<float>(d.high);
      const float t = std::fma(U32(w(i)), hi - lo, lo);
      Put(t == hi ? lo : t, &e);  // PyTorch's flip of (0, 1] to [0, 1)
      break;
    }
    case Formula::kUniformFloat64: {
      const double t = std::fma(U53(w(2 * i), w(2 * i + 1)), d.high - d.low, d.low);
      Put(t == d.high ? d.low : t, &e);
      break;
    }
    case Formula::kNormalFloat32: {
      // Pair p = floor(i / 2) from words (W[2p], W[2p + 1]); sine if i is even.
      const u128 p = i / 2;
      const float u = U32(w(2 * p));
      const float v = std::fma(static_cast<float>(w(2 * p + 1)), kP32TwoPi, kP32TwoPi / 2);
      const long double s = std::sqrt(-2.0L * std::log(static_cast<long double>(u)));
      e.z = s * (i % 2 == 0 ? std::sin(static_cast<long double>(v))
                            : std::cos(static_cast<long double>(v)));
      break;
    }
    case Formula::kNormalFloat64: {
      // Pair p = floor(i / 2) from words W[4p .. 4p + 3].
      const u128 p = i / 2;
      const double u = U53(w(4 * p), w(4 * p + 1));
      const double v = std::fma(
          static_cast<double>(uint64_t{w(4 * p + 2)} ^ (uint64_t{w(4 * p + 3)} << 21)),
          2 * kP53, kP53);
      const long double s = std::sqrt(-2.0L * std::log(static_cast<long double>(u)));
      const long double a = kPi * static_cast<long double>(v);
      e.z = s * (i % 2 == 0 ? std::sin(a) : std::cos(a));
      break;
    }
    case Formula::kBernoulliUint8:
      Put(static_cast<uint8_t>(U32(w(i)) < static_cast<float>(d.p) ? 1 : 0), &e);
      break;
    case Formula::kBernoulliFloat32:
      Put(U32(w(i)) < static_cast<float>(d.p) ? 1.0f : 0.0f, &e);
      break;
    case Formula::kIntegersInt32: {
      const uint32_t r = static_cast<uint32_t>(d.int_high - d.int_low);
      Put(static_cast<int32_t>(d.int_low + static_cast<int64_t>(w(i) % r)), &e);
      break;
    }
    case Formula::kIntegersWideInt64: {
      const uint64_t r = static_cast<uint64_t>(d.int_high - d.int_low);
      const uint64_t x = (uint64_t{w(2 * i)} << 32) | w(2 * i + 1);
      Put(static_cast<int64_t>(static_cast<uint64_t>(d.int_low) + x % r), &e);
      break;
    }
  }
  return e;
}

// Whether the stored element `got` is what `want` says (empty) or why not.
std::string Mismatch(const Case& c, const uint8_t* got, const Expect& want) {
  const int size = ElementSize(c.type);
  char buf[160];
  if (c.formula == Formula::kNormalFloat32) {
    float value;
    std::memcpy(&value, got, 4);
    const float rounded = std::fabs(static_cast<float>(want.z));
    const float ulp = std::nextafter(rounded, INFINITY) - rounded;
    const long double bound = std::fmax(2.0L * ulp, 0x1p-22L);
    if (std::fabs(static_cast<long double>(value) - want.z) <= bound) return "";
    std::snprintf(buf, sizeof(buf), "%.9g, exact Box-Muller %.12Lg (bound %.3Lg)", value, want.z,
                  bound);
    return buf;
  }
  if (c.formula == Formula::kNormalFloat64) {
    double value;
    std::memcpy(&value, got, 8);
    const double rounded = std::fabs(static_cast<double>(want.z));
    const double ulp = std::nextafter(rounded, INFINITY) - rounded;
    const long double bound = std::fmax(4.0L * ulp, 0x1p-50L);
    if (std::fabs(static_cast<long double>(value) - want.z) <= bound) return "";
    std::snprintf(buf, sizeof(buf), "%.17g, exact Box-Muller %.20Lg (bound %.3Lg)", value,
                  want.z, bound);
    return buf;
  }
  if (std::memcmp(got, want.bytes, static_cast<size_t>(size)) == 0) return "";
  uint64_t g = 0, x = 0;
  std::memcpy(&g, got, static_cast<size_t>(size));
  std::memcpy(&x, want.bytes, static_cast<size_t>(size));
  std::snprintf(buf, sizeof(buf), "bytes 0x%llx, expected 0x%llx", static_cast<unsigned long long>(g),
                static_cast<unsigned long long>(x));
  return buf;
}

// ------------------------------------------------------------- scenarios

// Global tensors, never allocated: 2^50 elements and up to the limit.
std::vector<std::vector<int64_t>> Shapes() {
  return {
      {P2(50)},                              // rank 1
      {INT64_MAX},                           // the largest: 2^63 - 1 elements
      {P2(25), P2(25)},                      // 2^50
      {7, INT64_MAX / 7},                    // 2^63 - 1 = 7 * 1317624576693539401
      {P2(31) + 11, P2(31) + 5},             // ~2^62, rows that end mid-block
      {P2(20), P2(20), P2(12)},              // 2^52
      {P2(46), 4, 4},                        // 2^50, short rows: whole-row regions
      {P2(58), 3, 5},                        // 15 * 2^58, rows of 5
      {P2(21), P2(21), P2(20)},              // 2^62
      {P2(13), P2(13), P2(13), P2(13)},      // 2^52
      {3577, 42799, 92737, 649657},          // 2^63 - 1 in four dimensions
      {P2(16), 3, P2(20), P2(25)},           // 3 * 2^61
  };
}

u128 Count(const std::vector<int64_t>& sizes) {
  u128 n = 1;
  for (int64_t s : sizes) n *= static_cast<u128>(s);
  return n;
}

// Local buffer layouts.
enum Layout {
  kPacked,        // strides nullptr
  kPadded,        // row-major, padding after each dimension
  kColumnMajor,   // dimension 0 innermost in memory (the transposed writer)
  kFlippedRows,   // row-major, padded, dimension 0 stored backwards
  kScattered,     // no unit stride: every other element, some dimensions backwards
  kReversedAll,   // column-major, every dimension backwards
  kLayouts
};

// Where the counter carries (see MakeScenario).
enum Carry {
  kAnywhere,  // a random counter
  kWord0,     // inside the region's first row: out of word 0 into word 1
  kWord1,     // out of words 0-1 into word 2
  kWord2,     // out of words 0-2 into word 3
  kWrap,      // the last counters before 2^128 and the wrap to 0
  kEnd,       // the global tensor's last elements at the last stream index
              // allowed, and the output counter exactly 2^128 = 0
  kCarries
};

const char* const kCarryNames[] = {"anywhere", "word 0 carry", "word 1 carry",
                                   "word 2 carry", "2^128 wrap", "end of stream"};

struct Scenario {
  std::string what;
  const Case* c = nullptr;
  std::vector<int64_t> global, start, sizes, strides;  // strides empty: packed
  uint64_t byte_offset = 0;
  size_t span_bytes = 0;
  PhiloxState state;
  uint64_t offset = 0;
  uint32_t threads = 1;
  uint64_t task_elements = 0;
  std::vector<size_t> at;     // byte position of each region element (row-major)
  std::vector<u128> stream;   // its stream index
  std::vector<Expect> want;
  PhiloxState want_state;
};

uint64_t Below(std::mt19937_64& rng, uint64_t n) { return n == 0 ? 0 : rng() % n; }

u128 RandomU128(std::mt19937_64& rng) { return (static_cast<u128>(rng()) << 64) | rng(); }

Scenario MakeScenario(std::mt19937_64& rng, const std::vector<int64_t>& global, const Case& c,
                      Carry carry, Layout layout, bool force_columns = false) {
  Scenario s;
  s.c = &c;
  s.global = global;
  const int rank = static_cast<int>(global.size());
  const int inner = rank - 1;
  const u128 n_global = Count(global);

  // Region sizes: a few thousand elements at most. Sometimes a column (one
  // element per row: each element its own place in the stream), sometimes
  // 16 or 32 rows of whole Philox blocks (the AVX-512 column kernel).
  s.sizes.assign(rank, 1);
  const bool column_kernel = layout == kColumnMajor && rank == 2 && global[1] % 4 == 0 &&
                             global[0] >= 32 && (force_columns || rng() % 2 == 0);
  if (column_kernel) {
    s.sizes[0] = 16 * static_cast<int64_t>(1 + Below(rng, 2));
    s.sizes[1] = 4 * static_cast<int64_t>(1 + Below(rng, 12));
  } else {
    s.sizes[inner] = rng() % 8 == 0 ? 1 : static_cast<int64_t>(1 + Below(rng, 300));
    s.sizes[inner] = std::min(s.sizes[inner], global[inner]);
    uint64_t budget = 2048 / static_cast<uint64_t>(s.sizes[inner]);
    for (int d = inner - 1; d >= 0; --d) {
      const uint64_t cap = d == 0 ? budget : std::min<uint64_t>(budget, 4);
      s.sizes[d] = std::min(global[d], static_cast<int64_t>(1 + Below(rng, cap)));
      budget = std::max<uint64_t>(1, budget / static_cast<uint64_t>(s.sizes[d]));
    }
  }
  s.start.assign(rank, 0);
  for (int d = 0; d < rank; ++d) {
    s.start[d] = carry == kEnd ? global[d] - s.sizes[d]
                               : static_cast<int64_t>(Below(
                                     rng, static_cast<uint64_t>(global[d] - s.sizes[d]) + 1));
  }
  if (column_kernel && carry != kEnd) s.start[1] &= ~int64_t{3};

  // The element offset: 0, small, anywhere, or the largest allowed
  // (offset + global count = the last stream index).
  const u128 limit = c.words == 1 ? u128{UINT64_MAX} : u128{UINT64_MAX / 2};
  const uint64_t max_offset = static_cast<uint64_t>(limit - n_global);
  switch (carry == kEnd ? 3 : rng() % 4) {
    case 0: s.offset = 0; break;
    case 1: s.offset = std::min<uint64_t>(max_offset, 1 + Below(rng, 7)); break;
    case 2: s.offset = max_offset == UINT64_MAX ? rng() : Below(rng, max_offset + 1); break;
    default: s.offset = max_offset; break;
  }
  if (column_kernel && carry != kEnd) s.offset &= ~uint64_t{3};

  // Stream index of the region's element (0, ..., 0) and the global strides.
  std::vector<u128> gstride(rank);
  u128 step = 1, base = s.offset;
  for (int d = inner; d >= 0; --d) {
    gstride[d] = step;
    base += static_cast<u128>(s.start[d]) * step;
    step *= static_cast<u128>(global[d]);
  }
  const u128 w = static_cast<u128>(c.words);
  const u128 end_blocks = (w * (s.offset + n_global) + 3) / 4;  // the fill's blocks

  // The counter: the block of one element of the region's first row (at row
  // position r) is made a multiple of 2^(32 m), upper words random, so the
  // counters before it end in m all-ones words and carry into word m there.
  const int64_t r = static_cast<int64_t>(Below(rng, static_cast<uint64_t>(s.sizes[inner])));
  const u128 block = w * (base + static_cast<u128>(r)) / 4;
  u128 counter = RandomU128(rng);
  switch (carry) {
    case kAnywhere: break;
    case kWord0:
    case kWord1:
    case kWord2: {
      const int bits = 32 * static_cast<int>(carry);  // 32, 64, 96
      counter = ((counter >> bits) + 1) << bits;      // a multiple of 2^bits, not 0
      counter -= block;
      break;
    }
    case kWrap: counter = u128{0} - block; break;
    case kEnd: counter = u128{0} - end_blocks; break;
    case kCarries: break;
  }
  rt_oracle_counter_words(counter, s.state.words);
  s.state.words[4] = static_cast<uint32_t>(rng());
  s.state.words[5] = static_cast<uint32_t>(rng());
  rt_oracle_plus_blocks(s.state.words, end_blocks, s.want_state.words);

  // The local layout.
  const int size = ElementSize(c.type);
  std::vector<int64_t> pads(rank);
  for (int64_t& p : pads) p = static_cast<int64_t>(Below(rng, 4));
  std::vector<int64_t> strides;
  switch (layout) {
    case kPacked: strides = rt_test::PackedStrides(s.sizes); break;
    case kPadded:
      strides = rt_test::StoredStrides(s.sizes, rt_test::IdentityOrder(rank), 1, pads);
      break;
    case kColumnMajor:
      strides = rt_test::StoredStrides(s.sizes, rt_test::ReversedOrder(rank), 1, pads);
      break;
    case kFlippedRows:
      strides = rt_test::FlipSigns(
          rt_test::StoredStrides(s.sizes, rt_test::IdentityOrder(rank), 1, pads), 1);
      break;
    case kScattered:
      strides = rt_test::FlipSigns(
          rt_test::StoredStrides(s.sizes, rt_test::IdentityOrder(rank), 2, pads),
          static_cast<uint32_t>(rng()));
      break;
    case kReversedAll:
      strides = rt_test::FlipSigns(
          rt_test::StoredStrides(s.sizes, rt_test::ReversedOrder(rank), 1, pads), ~0u);
      break;
    case kLayouts: break;
  }
  if (layout != kPacked) s.strides = strides;
  const rt_test::Span span = rt_test::ComputeSpan(rt_test::Shape{s.sizes, strides});
  s.byte_offset = static_cast<uint64_t>(-span.low) * static_cast<uint64_t>(size);
  s.span_bytes = static_cast<size_t>(span.elements()) * static_cast<size_t>(size);

  // One thread, or several tasks (forced small so that a small region is cut).
  s.threads = rng() % 2 == 0 ? 1 : 2;
  s.task_elements = s.threads == 1 ? 0 : (rng() % 2 == 0 ? 12 : 64);

  // Every element: where it goes, its stream index, its value.
  Words words(s.state);
  std::vector<int64_t> idx(rank, 0);
  const uint64_t n = rt_test::ElementCount(s.sizes);
  for (uint64_t e = 0; e < n; ++e) {
    int64_t offset = -span.low;
    u128 i = base;
    for (int d = 0; d < rank; ++d) {
      offset += idx[d] * strides[d];
      i += static_cast<u128>(idx[d]) * gstride[d];
    }
    s.at.push_back(static_cast<size_t>(offset) * static_cast<size_t>(size));
    s.stream.push_back(i);
    s.want.push_back(ExpectedElement(c, words, i));
    for (int d = inner; d >= 0; --d) {
      if (++idx[d] < s.sizes[d]) break;
      idx[d] = 0;
    }
  }

  static const char* const kLayoutNames[] = {"packed",    "padded",    "column-major",
                                             "flipped rows", "scattered", "reversed column-major"};
  s.what = std::string(c.what) + ", global " + rt_test::VecString(global) + ", region " +
           rt_test::VecString(s.sizes) + " at " + rt_test::VecString(s.start) + ", " +
           kLayoutNames[layout] + " " + rt_test::VecString(strides) + ", " + kCarryNames[carry] +
           ", offset " + std::to_string(s.offset) + ", state " + rt_test::StateString(s.state) +
           ", threads " + std::to_string(s.threads);
  return s;
}

uint8_t GuardByte(size_t i) { return static_cast<uint8_t>(0xA5u ^ (i * 131u)); }

// Fills the scenario's region into a fresh guarded buffer and checks every
// element, every byte no element owns, and the output state. Counts the
// writer's strategies in `seen`.
void RunScenario(const Scenario& s, std::map<std::string, int>* seen) {
  constexpr size_t kGuard = 64;  // bytes each side, a multiple of every element size
  std::vector<uint64_t> storage((s.span_bytes + 2 * kGuard + 7) / 8);
  uint8_t* bytes = reinterpret_cast<uint8_t*>(storage.data());
  const size_t total = s.span_bytes + 2 * kGuard;
  for (size_t i = 0; i < total; ++i) bytes[i] = GuardByte(i);
  uint8_t* data = bytes + kGuard;

  TensorDesc desc;
  desc.dtype = s.c->type;
  desc.rank = static_cast<int32_t>(s.global.size());
  desc.sizes = s.sizes.data();
  desc.strides = s.strides.empty() ? nullptr : s.strides.data();
  desc.byte_offset = s.byte_offset;
  Region region;
  region.rank = desc.rank;
  region.global_sizes = s.global.data();
  region.start = s.start.data();
  FillInfo info;
  FillOptions options;
  options.element_offset = s.offset;
  options.distribution = s.c->dist;
  options.region = &region;
  options.threads = s.threads;
  options.task_elements = s.task_elements;
  options.info = &info;
  PhiloxState out = {{0x5A5A5A5Au, 0x5A5A5A5Au, 0x5A5A5A5Au, 0x5A5A5A5Au, 0x5A5A5A5Au, 0x5A5A5A5Au}};
  const Status status = Fill(desc, data, s.span_bytes, s.state, &out, options);
  ASSERT_TRUE(status.ok()) << s.what << ": " << status.message();
  ++(*seen)[info.strategy];

  EXPECT_TRUE(rt_test::StatesEqual(out, s.want_state)) << s.what;
  const size_t size = static_cast<size_t>(ElementSize(s.c->type));
  std::vector<bool> owned(total, false);
  int failures = 0;
  for (size_t e = 0; e < s.at.size(); ++e) {
    const size_t at = kGuard + s.at[e];
    for (size_t b = 0; b < size; ++b) owned[at + b] = true;
    const std::string why = Mismatch(*s.c, bytes + at, s.want[e]);
    if (!why.empty() && failures++ < 5) {
      const u128 i = s.stream[e];
      ADD_FAILURE() << s.what << ": region element " << e << " (stream index 0x"
                    << rt_test::Hex(static_cast<uint32_t>(i >> 32))
                    << rt_test::Hex(static_cast<uint32_t>(i)) << "): " << why;
    }
  }
  EXPECT_EQ(failures, 0) << s.what << ": " << failures << " of " << s.at.size()
                         << " elements differ";
  size_t touched = 0;
  for (size_t i = 0; i < total; ++i) touched += !owned[i] && bytes[i] != GuardByte(i);
  EXPECT_EQ(touched, 0u) << s.what << ": bytes outside the elements were written";
}

// The tensor shapes reach the limit (2^63 - 1) in ranks 1, 2 and 4.
TEST(RegionScale, TheShapesReachTheLimit) {
  int at_limit = 0;
  for (const std::vector<int64_t>& g : Shapes()) {
    const u128 n = Count(g);
    EXPECT_GE(n, u128{1} << 50) << rt_test::VecString(g);
    EXPECT_LE(n, u128{INT64_MAX}) << rt_test::VecString(g);
    at_limit += n == u128{INT64_MAX};
  }
  EXPECT_EQ(at_limit, 3);
}

// Every case, shape, carry and layout, on every supported target, against
// the oracle.
TEST(RegionScale, RegionsOfHugeTensorsEqualTheOracleThroughEveryCarry) {
  std::mt19937_64 rng(0x13u);  // issue 13
  std::vector<Scenario> scenarios;
  int shift = 0;  // so that each carry meets each layout
  for (const std::vector<int64_t>& global : Shapes()) {
    for (const Case& c : kCases) {
      for (int carry = 0; carry < kCarries; ++carry) {
        scenarios.push_back(MakeScenario(rng, global, c, static_cast<Carry>(carry),
                                         static_cast<Layout>((carry + shift) % kLayouts)));
      }
      ++shift;
    }
  }
  // Bits in column-major regions of 16 or 32 rows of whole blocks: on AVX-512
  // one run per lane, straight into place (the column kernel), through every
  // carry; rows 2^25 and 2^28 stream elements apart.
  for (const std::vector<int64_t>& global :
       {std::vector<int64_t>{P2(25), P2(25)}, std::vector<int64_t>{P2(22), P2(28)}}) {
    for (int carry = 0; carry < kCarries; ++carry) {
      scenarios.push_back(
          MakeScenario(rng, global, kCases[0], static_cast<Carry>(carry), kColumnMajor, true));
    }
  }
  std::map<std::string, int> seen;
  rt_test::ForEachSupportedTarget([&](const TargetInfo&) {
    for (const Scenario& s : scenarios) {
      RunScenario(s, &seen);
      if (HasFatalFailure()) return;
    }
  });
  // The test reaches every way the writer walks a layout.
  std::string summary;
  for (const auto& kv : seen) summary += kv.first + ": " + std::to_string(kv.second) + "; ";
  std::printf("%zu regions per target; strategies: %s\n", scenarios.size(), summary.c_str());
  for (const char* strategy : {"rows", "staged rows", "transposed", "scattered"}) {
    EXPECT_GT(seen[strategy], 0) << strategy << " never ran: " << summary;
  }
  bool avx512 = false;
  // The column kernels are AVX-512's (SVE at 512 bits also has 16 lanes).
  for (const TargetInfo& t : rt_test::CompiledTargets()) {
    avx512 |= t.supported && std::string(t.name).rfind("AVX3", 0) == 0;
  }
  if (avx512) {
    EXPECT_GT(seen["columns"], 0) << "the column kernel never ran: " << summary;
  }
}

// A fill that checks one region of the given global tensor; returns its status.
Status FillOne(const std::vector<int64_t>& global, const std::vector<int64_t>& start,
               const std::vector<int64_t>& sizes, DataType type, const Distribution& dist,
               uint64_t offset, std::vector<uint64_t>* buffer, PhiloxState* state) {
  TensorDesc desc;
  desc.dtype = type;
  desc.rank = static_cast<int32_t>(global.size());
  desc.sizes = sizes.data();
  Region region;
  region.rank = desc.rank;
  region.global_sizes = global.data();
  region.start = start.data();
  FillOptions options;
  options.element_offset = offset;
  options.distribution = dist;
  options.region = &region;
  return Fill(desc, buffer->data(), buffer->size() * 8, *state, state, options);
}

// One past each limit is kOverflow, naming the field and its value, with
// nothing written and the state (the output state's memory too) unchanged;
// the limit itself works.
TEST(RegionScale, BeyondTheLimitsIsAClearErrorWithNothingWritten) {
  const PhiloxState kState = {{0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 3u, 4u}};
  struct Bad {
    std::vector<int64_t> global;
    DataType type;
    Distribution dist;
    uint64_t offset;
    std::vector<std::string> fragments;
  };
  const Distribution bits = Distribution::Bits(), u64 = Distribution::Uniform(0, 1),
                     wide = Distribution::Integers(0, P2(40));
  const Bad cases[] = {
      // Global element counts of 2^63 and more.
      {{P2(32), P2(31)}, DataType::kUint32, bits, 0,
       {"region.global_sizes[0] = 4294967296", "overflow 63 bits"}},
      {{2, P2(62)}, DataType::kUint32, bits, 0, {"region.global_sizes[0] = 2", "63 bits"}},
      {{3, 3074457345618258603}, DataType::kUint32, bits, 0,  // 2^63 + 1
       {"region.global_sizes[0] = 3", "63 bits"}},
      {{P2(21), P2(21), P2(21)}, DataType::kFloat32, Distribution::Normal(0, 1), 0,
       {"region.global_sizes[0] = 2097152", "63 bits"}},
      {{INT64_MAX, INT64_MAX}, DataType::kUint32, bits, 0,
       {"region.global_sizes[0] = 9223372036854775807", "63 bits"}},
      {{256, 256, 256, 256, 256, 256, 256, 256}, DataType::kUint32, bits, 0,  // 2^64
       {"region.global_sizes[0] = 256", "63 bits"}},
      // One stream word per element: offset + count = 2^64 (and far past it).
      {{INT64_MAX}, DataType::kUint32, bits, (uint64_t{1} << 63) + 1,
       {"element_offset = 9223372036854775809", "9223372036854775807 elements",
        "64-bit stream indices"}},
      {{P2(25), P2(25)}, DataType::kFloat32, Distribution::Uniform(0, 1),
       UINT64_MAX - (uint64_t{1} << 50) + 1,
       {"element_offset = " + std::to_string(UINT64_MAX - (uint64_t{1} << 50) + 1)}},
      {{P2(50)}, DataType::kUint8, Distribution::Bernoulli(0.5), UINT64_MAX,
       {"element_offset = 18446744073709551615"}},
      // Two stream words per element: offset + count = 2^63.
      {{INT64_MAX}, DataType::kFloat64, u64, 1,
       {"element_offset = 1", "9223372036854775807 elements"}},
      {{P2(31), P2(31)}, DataType::kInt64, wide, uint64_t{1} << 62,
       {"element_offset = 4611686018427387904", "4611686018427387904 elements"}},
      {{7, INT64_MAX / 7}, DataType::kFloat64, Distribution::Normal(0, 1), UINT64_MAX / 2,
       {"element_offset = 9223372036854775807"}},
  };
  for (const Bad& c : cases) {
    const std::vector<int64_t> start(c.global.size(), 0), sizes(c.global.size(), 1);
    std::vector<uint64_t> buffer(2, 0x5A5A5A5A5A5A5A5Au);
    PhiloxState state = kState;
    const Status s = FillOne(c.global, start, sizes, c.type, c.dist, c.offset, &buffer, &state);
    const std::string what = rt_test::VecString(c.global) + " offset " + std::to_string(c.offset);
    EXPECT_EQ(s.code(), StatusCode::kOverflow) << what << ": " << s.message();
    for (const std::string& fragment : c.fragments) {
      EXPECT_NE(std::string(s.message()).find(fragment), std::string::npos)
          << what << ": \"" << s.message() << "\" lacks \"" << fragment << "\"";
    }
    EXPECT_EQ(buffer, std::vector<uint64_t>(2, 0x5A5A5A5A5A5A5A5Au)) << what;
    EXPECT_TRUE(rt_test::StatesEqual(state, kState)) << what;
  }

  // The limits themselves: the last element of the largest global tensor at
  // the last stream index, against the oracle, and the output state.
  struct Good {
    std::vector<int64_t> global;
    const Case* c;
    uint64_t offset;
  };
  const Good limits[] = {
      {{INT64_MAX}, &kCases[0], uint64_t{1} << 63},                        // end 2^64 - 1
      {{P2(32), P2(31) - 1}, &kCases[0],
       UINT64_MAX - static_cast<uint64_t>(P2(32) * (P2(31) - 1))},         // end 2^64 - 1
      {{INT64_MAX}, &kCases[2], 0},                                        // w 2, end 2^63 - 1
      {{P2(31), P2(31)}, &kCases[8], (uint64_t{1} << 62) - 1},             // w 2, end 2^63 - 1
      {{7, INT64_MAX / 7}, &kCases[4], 0},                                 // normal float64
  };
  for (const Good& g : limits) {
    const std::vector<int64_t> start = [&] {
      std::vector<int64_t> v(g.global);
      for (int64_t& x : v) x -= 1;
      return v;
    }();
    const std::vector<int64_t> sizes(g.global.size(), 1);
    std::vector<uint64_t> buffer(1, 0);
    PhiloxState state = kState;
    const std::string what = rt_test::VecString(g.global) + " offset " + std::to_string(g.offset);
    const Status s =
        FillOne(g.global, start, sizes, g.c->type, g.c->dist, g.offset, &buffer, &state);
    ASSERT_TRUE(s.ok()) << what << ": " << s.message();
    const u128 end = static_cast<u128>(g.offset) + Count(g.global);
    Words words(kState);
    const Expect want = ExpectedElement(*g.c, words, end - 1);
    EXPECT_EQ(Mismatch(*g.c, reinterpret_cast<const uint8_t*>(buffer.data()), want), "")
        << what;
    PhiloxState want_state;
    rt_oracle_advance(kState.words, end * static_cast<u128>(g.c->words), want_state.words);
    EXPECT_TRUE(rt_test::StatesEqual(state, want_state)) << what;
  }
}

// A global tensor with a zero size holds no elements, whatever its other
// sizes: like the whole-tensor fill of the same sizes, a region of it is a
// no-op that writes the state C + ceil(offset * w / 4), wherever the zero
// is: {0, 2^40, 2^40} was once refused as an overflow (the sizes were
// multiplied from the last dimension down, past 2^63 before the zero).
TEST(RegionScale, EmptyGlobalTensorsOfAnySizesAreANoOp) {
  const PhiloxState kState = {{0xFFFFFFFEu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 5u, 6u}};
  for (const std::vector<int64_t>& global :
       {std::vector<int64_t>{0, P2(40), P2(40)}, std::vector<int64_t>{P2(40), 0, P2(40)},
        std::vector<int64_t>{P2(40), P2(40), 0}, std::vector<int64_t>{INT64_MAX, INT64_MAX, 0},
        std::vector<int64_t>{0, INT64_MAX, INT64_MAX}}) {
    const std::vector<int64_t> start(global.size(), 0), sizes(global.size(), 0);
    std::vector<uint64_t> buffer(1, 0x5A5A5A5A5A5A5A5Au);
    PhiloxState state = kState;
    const Status s =
        FillOne(global, start, sizes, DataType::kUint32, Distribution::Bits(), 9, &buffer, &state);
    EXPECT_TRUE(s.ok()) << rt_test::VecString(global) << ": " << s.message();
    EXPECT_EQ(buffer[0], 0x5A5A5A5A5A5A5A5Au);
    EXPECT_TRUE(rt_test::StatesEqual(state, rt_test::ExpectedOutState(kState, 9)))
        << rt_test::VecString(global);
  }
}

}  // namespace
}  // namespace randtensor
