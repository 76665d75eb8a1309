// Helpers shared by the bad-input tests (validation_test.cc, directml_test.cc).
//
// The rule under test (SPEC.md section 5): every invalid descriptor or binding
// is rejected before anything is written, with a StatusCode and a message that
// names the offending field and its value; the output buffer and the output
// state are byte-for-byte unchanged; nothing aborts, throws or prints.
// `Rejects` checks all of that in one place so that each case is a few lines.
//
// Expected values never come from the code under test: they come from the
// tests' one oracle (oracle.h, through test_util.h's rt_test::OracleValue and
// rt_test::ExpectedOutState) placed element by element at the offsets that
// BruteForceSpan lists, and from the known-answer file (rt_test::Known()).
#ifndef RANDTENSOR_TESTS_VALIDATION_UTIL_H_
#define RANDTENSOR_TESTS_VALIDATION_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "randtensor/philox.h"
#include "randtensor/status.h"
#include "test_util.h"

namespace randtensor {
// Readable gtest output for codes ("overflow" rather than a byte dump).
inline void PrintTo(StatusCode code, std::ostream* os) { *os << StatusCodeName(code); }
}  // namespace randtensor

namespace validation {

using randtensor::Status;
using randtensor::StatusCode;

// ---------------------------------------------------------------------------
// Brute-force layout facts (sizes and strides in elements).

struct Span {
  int64_t low = 0, high = 0;  // lowest and highest element offset
  bool overlap = false;       // two elements share an offset
  std::vector<int64_t> offsets;  // offset of element e, logical row-major order
};

inline Span BruteForceSpan(const std::vector<int64_t>& sizes,
                           const std::vector<int64_t>& strides) {
  Span span;
  int64_t count = 1;
  for (int64_t s : sizes) {
    if (s <= 0) return span;  // empty: no offsets
  }
  for (int64_t s : sizes) count *= s;
  std::vector<int64_t> idx(sizes.size(), 0);
  for (int64_t e = 0; e < count; ++e) {
    int64_t off = 0;
    for (size_t d = 0; d < sizes.size(); ++d) off += idx[d] * strides[d];
    span.offsets.push_back(off);
    for (size_t d = sizes.size(); d-- > 0;) {  // odometer, last dimension fastest
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
  if (!span.offsets.empty()) {
    span.low = *std::min_element(span.offsets.begin(), span.offsets.end());
    span.high = *std::max_element(span.offsets.begin(), span.offsets.end());
  }
  std::vector<int64_t> sorted = span.offsets;
  std::sort(sorted.begin(), sorted.end());
  span.overlap = std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
  return span;
}

// Parses the two index tuples of an overlap message ("... elements (1,0) and
// (0,2) would share an address"). Returns false when the message has no such
// witness.
inline bool ParseWitness(const std::string& message, std::vector<int64_t>* a,
                         std::vector<int64_t>* b) {
  size_t pos = message.find("elements (");
  if (pos == std::string::npos) return false;
  auto tuple = [&](std::vector<int64_t>* out) {
    pos = message.find('(', pos);
    if (pos == std::string::npos) return false;
    const size_t end = message.find(')', pos);
    if (end == std::string::npos) return false;
    std::string body = message.substr(pos + 1, end - pos - 1);
    out->clear();
    size_t start = 0;
    while (start <= body.size() && !body.empty()) {
      const size_t comma = std::min(body.find(',', start), body.size());
      out->push_back(std::stoll(body.substr(start, comma - start)));
      start = comma + 1;
    }
    pos = end + 1;
    return true;
  };
  return tuple(a) && tuple(b);
}

// Checks an overlap witness: two distinct in-range indices with one offset.
inline testing::AssertionResult IsWitness(const std::string& message,
                                          const std::vector<int64_t>& sizes,
                                          const std::vector<int64_t>& strides) {
  std::vector<int64_t> a, b;
  if (!ParseWitness(message, &a, &b)) return testing::AssertionSuccess();  // no witness given
  if (a.size() != sizes.size() || b.size() != sizes.size()) {
    return testing::AssertionFailure() << "witness rank is wrong in: " << message;
  }
  int64_t off_a = 0, off_b = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (a[d] < 0 || a[d] >= sizes[d] || b[d] < 0 || b[d] >= sizes[d]) {
      return testing::AssertionFailure() << "witness index out of range in: " << message;
    }
    off_a += a[d] * strides[d];
    off_b += b[d] * strides[d];
  }
  if (a == b || off_a != off_b) {
    return testing::AssertionFailure() << "not a real overlap witness: " << message;
  }
  return testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------
// Guarded memory: a block filled with a non-repeating pattern, with kSlack
// guard bytes before and after the usable part, so that a stray write just
// outside it shows up as well.

struct Region {
  const void* data;
  size_t bytes;
};

class GuardedMemory {
 public:
  static constexpr size_t kAlign = 256;  // data() is a multiple of this
  static constexpr size_t kSlack = 256;  // guard bytes on each side

  explicit GuardedMemory(size_t bytes)
      : bytes_(bytes), storage_(new uint8_t[bytes + 2 * kSlack + kAlign]) {
    const uintptr_t raw = reinterpret_cast<uintptr_t>(storage_.get()) + kSlack;
    data_ = storage_.get() + ((raw + kAlign - 1) / kAlign * kAlign - raw) + kSlack;
    Refill();
  }
  GuardedMemory(const GuardedMemory&) = delete;
  GuardedMemory& operator=(const GuardedMemory&) = delete;

  // Rewrites the guard pattern over everything, slack included.
  void Refill() {
    uint8_t* p = data_ - kSlack;
    for (size_t i = 0; i < bytes_ + 2 * kSlack; ++i) {
      p[i] = static_cast<uint8_t>(0xA5u + 37u * i + (i >> 8));
    }
  }

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return bytes_; }
  // The usable part and both guards.
  Region whole() const { return Region{data_ - kSlack, bytes_ + 2 * kSlack}; }
  std::vector<uint8_t> Copy() const {
    return std::vector<uint8_t>(data_ - kSlack, data_ + bytes_ + kSlack);
  }
  // Byte offset of `p` within whole(), to index a Copy().
  size_t IndexOf(const void* p) const {
    return static_cast<size_t>(static_cast<const uint8_t*>(p) - (data_ - kSlack));
  }

 private:
  size_t bytes_;
  std::unique_ptr<uint8_t[]> storage_;
  uint8_t* data_;
};

// What a set of guarded blocks must hold after a successful call: their
// current bytes plus what the call is expected to write.
class ExpectedImage {
 public:
  explicit ExpectedImage(std::vector<GuardedMemory*> blocks) : blocks_(std::move(blocks)) {
    for (GuardedMemory* b : blocks_) bytes_.push_back(b->Copy());
  }

  // Expects `n` bytes at `p`, in whichever block holds it.
  void Put(const void* p, const void* bytes, size_t n) {
    for (size_t i = 0; i < blocks_.size(); ++i) {
      const Region r = blocks_[i]->whole();
      const uint8_t* lo = static_cast<const uint8_t*>(r.data);
      if (p >= lo && p < lo + r.bytes) {
        std::memcpy(bytes_[i].data() + blocks_[i]->IndexOf(p), bytes, n);
      }
    }
  }

  testing::AssertionResult Matches() const {
    for (size_t i = 0; i < blocks_.size(); ++i) {
      const Region r = blocks_[i]->whole();
      if (std::memcmp(bytes_[i].data(), r.data, r.bytes) != 0) {
        const uint8_t* p = static_cast<const uint8_t*>(r.data);
        size_t at = 0;
        while (p[at] == bytes_[i][at]) ++at;
        return testing::AssertionFailure()
               << "block " << i << " differs from the oracle at byte " << at
               << " (the first " << GuardedMemory::kSlack << " bytes are the guard)";
      }
    }
    return testing::AssertionSuccess();
  }

 private:
  std::vector<GuardedMemory*> blocks_;
  std::vector<std::vector<uint8_t>> bytes_;
};

// ---------------------------------------------------------------------------
// The rule checks.

inline std::string PointerText(const void* p) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%p", p);
  return buf;
}

inline std::string Describe(const Status& s) {
  return std::string(randtensor::StatusCodeName(s.code())) + ": \"" + s.message() + "\"";
}

// Runs `call` with stdout and stderr captured; returns what it printed.
inline Status CallQuietly(const std::function<Status()>& call, std::string* printed) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const Status status = call();
  *printed = testing::internal::GetCapturedStderr();
  *printed += testing::internal::GetCapturedStdout();
  return status;
}

// `call` must fail with `code`, a message containing every fragment (the
// field name and its value), all `untouched` regions byte-for-byte unchanged,
// and nothing printed.
inline testing::AssertionResult Rejects(const std::function<Status()>& call, StatusCode code,
                                        const std::vector<std::string>& fragments,
                                        const std::vector<Region>& untouched) {
  std::vector<std::vector<uint8_t>> before;
  for (const Region& r : untouched) {
    const uint8_t* p = static_cast<const uint8_t*>(r.data);
    before.emplace_back(p, p + r.bytes);
  }
  std::string printed;
  const Status status = CallQuietly(call, &printed);
  testing::AssertionResult result = testing::AssertionSuccess();
  bool failed = false;
  auto fail = [&]() -> testing::AssertionResult& {
    if (!failed) result = testing::AssertionFailure() << "got " << Describe(status);
    failed = true;
    return result;
  };
  if (status.code() != code) {
    fail() << "; expected code " << randtensor::StatusCodeName(code);
  }
  const std::string message = status.message();
  if (message.size() >= static_cast<size_t>(Status::kMaxMessage)) fail() << "; message too long";
  for (const std::string& f : fragments) {
    if (message.find(f) == std::string::npos) fail() << "; message lacks \"" << f << "\"";
  }
  for (size_t i = 0; i < untouched.size(); ++i) {
    if (std::memcmp(before[i].data(), untouched[i].data, untouched[i].bytes) != 0) {
      const uint8_t* p = static_cast<const uint8_t*>(untouched[i].data);
      size_t at = 0;
      while (p[at] == before[i][at]) ++at;
      fail() << "; region " << i << " (" << untouched[i].bytes << " bytes) was written at byte "
             << at;
    }
  }
  if (!printed.empty()) fail() << "; the library printed: " << printed;
  return result;
}

// `call` must succeed and print nothing. `quiet` false: skip the printing
// check (inside a sweep that captures the output itself).
inline testing::AssertionResult Accepts(const std::function<Status()>& call,
                                        bool quiet = true) {
  std::string printed;
  const Status status = quiet ? CallQuietly(call, &printed) : call();
  if (!status.ok()) return testing::AssertionFailure() << "rejected: " << Describe(status);
  if (!printed.empty()) return testing::AssertionFailure() << "the library printed: " << printed;
  return testing::AssertionSuccess();
}

// What a rejection must look like.
struct Expect {
  StatusCode code;
  std::vector<std::string> fragments;  // the field name and its value, at least
};

// A named table row for parameterized tests: `mutate` breaks one thing in a
// valid setup `T` and says what the rejection must look like.
template <typename T>
struct Case {
  const char* name;
  std::function<Expect(T&)> mutate;
};

template <typename T>
void PrintTo(const Case<T>& c, std::ostream* os) {
  *os << c.name;
}

struct CaseName {
  template <typename P>
  std::string operator()(const testing::TestParamInfo<P>& info) const {
    return info.param.name;
  }
};

// ---------------------------------------------------------------------------
// Layout sweeps: the overlap proof against brute force.

using Layout = std::pair<std::vector<int64_t>, std::vector<int64_t>>;  // sizes, strides

// Every layout with sizes in [1, max_size] and strides in [lo, hi], `rank`
// dimensions.
inline std::vector<Layout> AllLayouts(int rank, int64_t max_size, int64_t lo, int64_t hi) {
  std::vector<Layout> all;
  std::vector<int64_t> v(2 * rank);  // strides, then sizes
  for (int d = 0; d < 2 * rank; ++d) v[d] = d < rank ? lo : 1;
  for (;;) {
    all.emplace_back(std::vector<int64_t>(v.begin() + rank, v.end()),
                     std::vector<int64_t>(v.begin(), v.begin() + rank));
    int d = 0;
    for (; d < 2 * rank; ++d) {  // odometer
      if (++v[d] <= (d < rank ? hi : max_size)) break;
      v[d] = d < rank ? lo : 1;
    }
    if (d == 2 * rank) return all;
  }
}

// `count` random layouts (fixed seed) of rank 2 to 4, sizes 1 to 5, strides
// -12 to 12: irregular interleavings that the exhaustive sweeps miss.
inline std::vector<Layout> RandomLayouts(int count, uint32_t seed) {
  uint64_t x = seed;
  auto next = [&](int64_t lo, int64_t hi) {  // splitmix64, uniform enough here
    x += 0x9E3779B97F4A7C15u;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    z ^= z >> 31;
    return lo + static_cast<int64_t>(z % static_cast<uint64_t>(hi - lo + 1));
  };
  std::vector<Layout> all;
  for (int i = 0; i < count; ++i) {
    const int rank = static_cast<int>(next(2, 4));
    Layout layout;
    for (int d = 0; d < rank; ++d) {
      layout.first.push_back(next(1, 5));
      layout.second.push_back(next(-12, 12));
    }
    all.push_back(layout);
  }
  return all;
}

// "" when `s` is a proper overlap rejection: kOverlap, the strides field
// named, and any witness it gives real.
inline std::string OverlapMistake(const Status& s, const std::string& field,
                                  const std::vector<int64_t>& sizes,
                                  const std::vector<int64_t>& strides) {
  const std::string message = s.message();
  if (s.code() != StatusCode::kOverlap || message.find(field) == std::string::npos) {
    return "overlap, got " + Describe(s);
  }
  const testing::AssertionResult witness = IsWitness(message, sizes, strides);
  return witness ? "" : witness.message();
}

// Runs `check` on every layout with stdout and stderr captured; `check`
// returns "" or what went wrong. Expects both accepted (no overlap) and
// rejected layouts, no mistakes and nothing printed.
inline void CheckLayouts(
    const std::vector<Layout>& layouts,
    const std::function<std::string(const std::vector<int64_t>& sizes,
                                    const std::vector<int64_t>& strides, const Span& span)>&
        check) {
  int disjoint = 0, overlapping = 0;
  std::vector<std::string> mistakes;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  for (const Layout& layout : layouts) {
    const Span span = BruteForceSpan(layout.first, layout.second);
    ++(span.overlap ? overlapping : disjoint);
    const std::string mistake = check(layout.first, layout.second, span);
    if (!mistake.empty()) {
      mistakes.push_back("sizes " + testing::PrintToString(layout.first) + " strides " +
                         testing::PrintToString(layout.second) + ": " + mistake);
    }
  }
  const std::string printed =
      testing::internal::GetCapturedStderr() + testing::internal::GetCapturedStdout();
  EXPECT_EQ(printed, "");
  EXPECT_EQ(mistakes.size(), 0u) << "of " << layouts.size() << " layouts";
  for (size_t i = 0; i < mistakes.size() && i < 10; ++i) ADD_FAILURE() << mistakes[i];
  EXPECT_GT(disjoint, 0);
  EXPECT_GT(overlapping, 0);
  testing::Test::RecordProperty("disjoint", disjoint);
  testing::Test::RecordProperty("overlapping", overlapping);
}

// Runs `check` in a child process (a thread-safe death test) so that a crash
// in the library fails this test instead of killing the whole test program.
// `check` returns "" when the library behaved, or what went wrong.
inline void ExpectSurvives(const std::function<std::string()>& check) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const std::string why = check();
        std::fprintf(stderr, "%s", why.empty() ? "survived and behaved" : why.c_str());
        std::fflush(stderr);
        std::_Exit(why.empty() ? 0 : 1);
      },
      testing::ExitedWithCode(0), "survived and behaved");
}

}  // namespace validation

#endif  // RANDTENSOR_TESTS_VALIDATION_UTIL_H_
