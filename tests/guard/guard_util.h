// Helpers for the guard-page and determinism tests.
//
// GuardPageBuffer: memory whose neighbouring pages are PROT_NONE, so any read
// or write just outside it faults. A tensor's span is placed flush against
// the leading or the trailing guard page (or a few bytes from it, to vary the
// alignment streaming stores see); whatever is accessible but not an element
// is painted with test_util.h's guard pattern and must come back untouched.
//
// RunInChild: runs a group of cases in a forked child, so that a fault on a
// guard page becomes a test failure naming the case that was running instead
// of killing the whole test binary. One fork per group keeps it fast.
#ifndef RANDTENSOR_TESTS_GUARD_GUARD_UTIL_H_
#define RANDTENSOR_TESTS_GUARD_GUARD_UTIL_H_

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "test_util.h"

namespace rt_guard {

using rt_test::FillCase;
using rt_test::Shape;

// ------------------------------------------------------------- guard pages

enum class Edge { kTrailing, kLeading };

inline const char* EdgeName(Edge edge) { return edge == Edge::kTrailing ? "trailing" : "leading"; }

inline uint64_t PageBytes() {
  static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return page;
}

class GuardPageBuffer {
 public:
  // `span_bytes` placed `gap_bytes` (a multiple of 4) away from the guard
  // page on `edge`: gap 0 makes the span's last byte (trailing) or first byte
  // (leading) the last or first accessible one.
  GuardPageBuffer(uint64_t span_bytes, Edge edge, uint64_t gap_bytes) {
    const uint64_t page = PageBytes();
    accessible_ = (span_bytes + gap_bytes + page - 1) / page * page;
    mapped_ = accessible_ + 2 * page;
    // Map everything inaccessible, then open the middle: the guard pages are
    // part of our own mapping, so nothing else can ever be mapped there.
    void* p = mmap(nullptr, mapped_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    base_ = static_cast<char*>(p);
    if (mprotect(base_ + page, accessible_, PROT_READ | PROT_WRITE) != 0) return;
    words_ = reinterpret_cast<uint32_t*>(base_ + page);
    span_index_ = (edge == Edge::kLeading ? gap_bytes : accessible_ - gap_bytes - span_bytes) / 4;
  }
  ~GuardPageBuffer() {
    if (base_ != nullptr) munmap(base_, mapped_);
  }
  GuardPageBuffer(const GuardPageBuffer&) = delete;
  GuardPageBuffer& operator=(const GuardPageBuffer&) = delete;

  bool ok() const { return words_ != nullptr; }
  uint32_t* words() { return words_; }
  size_t size_words() const { return static_cast<size_t>(accessible_ / 4); }
  // Word index of the span's first word within the accessible region.
  int64_t span_index() const { return static_cast<int64_t>(span_index_); }
  uint32_t* span() { return words_ + span_index_; }

  // The guard pattern over the whole accessible region: what Paint() writes.
  std::vector<uint32_t> Pristine() const {
    std::vector<uint32_t> out(size_words());
    for (size_t i = 0; i < out.size(); ++i) out[i] = rt_test::GuardWord(i);
    return out;
  }
  void Load(const std::vector<uint32_t>& image) {
    std::memcpy(words_, image.data(), image.size() * 4);
  }
  void Paint() { Load(Pristine()); }
  std::vector<uint32_t> Contents() const { return {words_, words_ + size_words()}; }

  // Byte-for-byte comparison of the accessible region with `expected`; names
  // the first difference relative to `origin` (the word of element 0).
  ::testing::AssertionResult Holds(const std::vector<uint32_t>& expected, int64_t origin) const {
    if (expected.size() == size_words() && std::memcmp(words_, expected.data(), accessible_) == 0) {
      return ::testing::AssertionSuccess();
    }
    return rt_test::BuffersEqual(Contents(), expected, origin);
  }

 private:
  char* base_ = nullptr;
  uint32_t* words_ = nullptr;
  uint64_t mapped_ = 0, accessible_ = 0, span_index_ = 0;
};

// A tensor's span in a GuardPageBuffer, painted, with the image the fill
// must leave: the paint wherever no element lives, the oracle's value where
// one does. Built once and reused, so the oracle runs once per placement.
struct GuardedTensor {
  GuardedTensor(const Shape& s, Edge edge, uint64_t gap_bytes)
      : shape(s),
        span(rt_test::ComputeSpan(s)),
        bytes(rt_test::DmlMinBytes(s)),
        declared(bytes + (edge == Edge::kTrailing ? gap_bytes : 0)),
        buffer(bytes, edge, gap_bytes) {
    if (buffer.ok()) buffer.Paint();
  }

  // Word index of element (0, ..., 0) in the accessible region.
  int64_t origin() const { return buffer.span_index() - span.low; }
  uint32_t* data() { return buffer.words() + origin(); }
  // The buffer's start: the lowest element (rt_test::DescOf's byte_offset
  // puts element (0, ..., 0) at data()).
  uint32_t* span_begin() { return buffer.words() + buffer.span_index(); }

  std::vector<uint32_t> Expected(const randtensor::PhiloxState& state, uint64_t offset) const {
    std::vector<uint32_t> image = buffer.Pristine();
    rt_test::OracleFill(shape, state, offset, image, origin());
    return image;
  }

  Shape shape;
  rt_test::Span span;
  uint64_t bytes;  // DirectML's minimum: exactly the span here (4-byte elements)
  // The buffer size to declare: it ends flush against the guard page too, so
  // a trailing gap is declared but unmapped by any element, and must stay
  // unwritten all the same.
  uint64_t declared;
  GuardPageBuffer buffer;
};

// `sizes` stored row-major with `pads` extra elements after walking each
// dimension (test_util.h's StoredStrides in the identity order).
inline Shape Padded(const std::vector<int64_t>& sizes, const std::vector<int64_t>& pads) {
  return Shape{sizes, rt_test::StoredStrides(sizes, rt_test::IdentityOrder(sizes.size()), 1, pads)};
}

// Elements of the stream a FillCase consumes: its offset plus its count.
inline rt_test::u128 Consumed(const FillCase& c) {
  return rt_test::u128{c.element_offset} + rt_test::ElementCount(c.shape.sizes);
}

// The native options a FillCase asks for.
inline randtensor::FillOptions OptionsOf(const FillCase& c, randtensor::FillInfo* info = nullptr) {
  randtensor::FillOptions options;
  options.element_offset = c.element_offset;
  options.threads = c.threads;
  options.task_elements = c.task_elements;
  options.stores = c.stores;
  options.parallel_for = c.parallel_for;
  options.info = info;
  return options;
}

// ------------------------------------------------------------- forked groups

// What a child leaves in shared memory; it survives the child's death.
struct ChildReport {
  uint64_t cases = 0;       // cases begun
  uint64_t failures = 0;    // failed checks
  char current[1536] = {};  // the case begun last: the one a fault interrupted
  char messages[48 * 1024] = {};
  size_t used = 0;
};

// The child's side: a case log that records into the shared report.
class CaseLog {
 public:
  explicit CaseLog(ChildReport* report) : r_(report) {}

  void Begin(const std::string& what) {
    ++r_->cases;
    std::snprintf(r_->current, sizeof(r_->current), "%s", what.c_str());
  }
  // Records a failed check of the current case; returns whether it passed.
  bool Check(const ::testing::AssertionResult& result) {
    if (result) return true;
    ++r_->failures;
    const size_t room = sizeof(r_->messages) - r_->used;
    if (room > 1) {
      const int n = std::snprintf(r_->messages + r_->used, room, "%s\n  case %s\n",
                                  result.message(), r_->current);
      r_->used += std::min(room - 1, static_cast<size_t>(n < 0 ? 0 : n));
    }
    return false;
  }

 private:
  ChildReport* r_;
};

// How a child ended.
struct ChildOutcome {
  int signal = 0;      // the signal that killed it, or 0
  int exit_code = -1;  // when it exited
  uint64_t cases = 0;
  uint64_t failures = 0;
  std::string current;  // the case running when it ended
  std::string messages;

  bool ran_to_end() const { return signal == 0 && exit_code == 0; }
};

// A child stuck this long (a deadlocked pool, say) is killed by SIGALRM.
constexpr unsigned kChildSeconds = 120;

// Runs body(CaseLog&) in a forked child and reports how it went. The
// parent must not hold threads or locks the child needs: these tests do all
// their fills in children (the library makes a fresh pool in a forked child).
template <class Body>
ChildOutcome RunInChild(const Body& body) {
  ChildOutcome out;
  void* shared =
      mmap(nullptr, sizeof(ChildReport), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) {
    out.messages = "mmap of the shared report failed";
    return out;
  }
  ChildReport* report = new (shared) ChildReport();
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(kChildSeconds);
    CaseLog log(report);
    body(log);
    _exit(0);  // no gtest or static teardown in the child
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) {
    out.messages = "fork or waitpid failed";
  } else if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
  } else {
    out.exit_code = WEXITSTATUS(status);
  }
  out.cases = report->cases;
  out.failures = report->failures;
  out.current = report->current;
  out.messages += report->messages;
  munmap(shared, sizeof(ChildReport));
  return out;
}

// Turns a child's outcome into gtest failures.
inline void ExpectCleanChild(const ChildOutcome& out) {
  if (out.signal != 0) {
    const bool fault = out.signal == SIGSEGV || out.signal == SIGBUS;
    ADD_FAILURE() << "the child died of signal " << out.signal << " (" << strsignal(out.signal)
                  << ")" << (fault ? ": an access outside the span hit a guard page" : "")
                  << "\n  during case " << out.current << "\n  after " << out.cases << " cases";
  } else if (out.exit_code != 0) {
    ADD_FAILURE() << "the child exited with " << out.exit_code << " (" << out.messages
                  << ") during case " << out.current;
  }
  if (out.failures != 0) {
    ADD_FAILURE() << out.failures << " of " << out.cases << " cases failed:\n" << out.messages;
  }
}

// RunInChild, with its failures reported; the outcome is returned for
// coverage checks (meaningful when it ran to the end).
template <class Body>
ChildOutcome RunIsolated(const Body& body) {
  ChildOutcome out = RunInChild(body);
  ExpectCleanChild(out);
  return out;
}

// ------------------------------------------------------------- in-process faults

// Names `what` as the case running now. Fills made in the test process
// itself (the determinism tests) die on a fault; the handler installed here
// first prints this name, then lets the fault kill the process as before.
inline void LabelFaults(const std::string& what) {
  static char label[1536];
  static const bool installed = [] {
    struct sigaction action {};
    action.sa_handler = [](int) {
      static const char kPrefix[] = "\n*** fault (a stray access hit a guard page?) during case ";
      ssize_t ignored = write(STDERR_FILENO, kPrefix, sizeof(kPrefix) - 1);
      ignored = write(STDERR_FILENO, label, std::strlen(label));
      ignored = write(STDERR_FILENO, "\n", 1);
      (void)ignored;
    };
    // Reset to the default on entry: returning re-runs the faulting access,
    // which now ends the process with the original signal.
    action.sa_flags = SA_RESETHAND;
    sigaction(SIGSEGV, &action, nullptr);
    sigaction(SIGBUS, &action, nullptr);
    return true;
  }();
  (void)installed;
  std::snprintf(label, sizeof(label), "%s", what.c_str());
}

}  // namespace rt_guard

#endif  // RANDTENSOR_TESTS_GUARD_GUARD_UTIL_H_
