// TestU01 harness: the library's output, read back through the strided,
// tiled, multi-threaded writer, fed to TestU01's batteries as 32-bit words.
//
//   randtensor_testu01 [--battery smallcrush|crush|bigcrush]
//                      [--mode nhwc|calls|control-repeat|control-overlap] [--seed N]
//                      [--tests LIST]
//
// --tests runs only the listed tests of the battery (TestU01's numbering, 1-based,
// as in its user guide: SmallCrush 1-10, Crush 1-96, BigCrush 1-106; "3,7-9"), each
// once, in order, on one stream, through bbattery_Repeat*. stats/run_batteries.sh
// (SPLIT=1) uses it to spread one battery over many cores, one test per process:
// each test then reads the stream from the seed's state, so its p-values do not
// depend on which other tests ran or in what order.
//
// Modes (how the stream is assembled; both are "what a framework sees"):
//
//   nhwc   Repeated fills of a logical NCHW tensor {1, 16, 64, 64} stored NHWC
//          (strides {65536, 1, 1024, 16}), threads = 2, task_elements = 256 so
//          that every fill is cut into many tiles of the transposed writer. The
//          values are read back in LOGICAL order (n, c, h, w) and the next fill
//          starts from this fill's output state.
//   calls  Many separate small packed fills of 1 to 37 elements (sizes from a
//          fixed splitmix64 sequence of the seed), the state chained from each
//          call's output state. A fill of N elements advances the counter by
//          ceil(N / 4) and discards the unused words of its last block, so the
//          stream is "every element of every fill, in order".
//
// Negative controls (the harness must FAIL them; they prove it can see a
// broken stream): the calls mode with a framework's two classic bugs.
//   control-repeat   every call starts from the same state (not chained);
//   control-overlap  the state is advanced by floor(N / 4) instead of
//                    ceil(N / 4), so each call re-reads up to three words of
//                    the previous call's last block.
//
// The starting state is key = (seed mod 2^32, seed >> 32) and counter
// {0xfffff000, 0xffffffff, 0, 0}: the counter carries from word 0 through
// word 1 into word 2 after the first 4096 blocks, so the batteries also run
// over the 128-bit carry path.
//
// Self-check: the first fills are compared word for word with randtensor's
// scalar reference (philox.h), so a harness that fed the batteries something
// else than the library's documented stream fails loudly rather than testing
// the wrong thing.
//
// Exit status: 0 when no p-value is a clear failure (p < 1e-10 or
// p > 1 - 1e-10, TestU01's "eps" territory), 1 when one is, 2 on a usage
// error or a library error. p-values outside [0.001, 0.999] are reported as
// "suspicious" and counted but do not fail the run: with 15 to 160 statistics
// per battery, some are expected by chance.

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

extern "C" {
#include <testu01/bbattery.h>
#include <testu01/swrite.h>
#include <testu01/unif01.h>
}

#include "randtensor/fill.h"
#include "randtensor/philox.h"
#include "randtensor/status.h"
#include "randtensor/targets.h"

namespace {

using randtensor::FillOptions;
using randtensor::PhiloxState;
using randtensor::Status;
using randtensor::TensorDesc;

enum class Mode { kNhwc, kCalls, kControlRepeat, kControlOverlap };

// NCHW {1, 16, 64, 64} stored NHWC.
constexpr int64_t kN = 1, kC = 16, kH = 64, kW = 64;
constexpr int64_t kElements = kN * kC * kH * kW;
constexpr int64_t kSizes[4] = {kN, kC, kH, kW};
constexpr int64_t kStrides[4] = {kH * kW * kC, 1, kW * kC, kC};

constexpr int kMaxCall = 37;      // calls mode: 1..kMaxCall elements per fill
constexpr int kCheckedFills = 4;  // fills compared with the scalar reference

[[noreturn]] void Die(const char* what, const Status& s) {
  std::fprintf(stderr, "randtensor_testu01: %s failed: %s: %s\n", what,
               randtensor::StatusCodeName(s.code()), s.message());
  std::exit(2);
}

struct Source {
  Mode mode = Mode::kNhwc;
  PhiloxState state;
  uint64_t size_rng = 0;  // calls mode: splitmix64 state for the fill sizes

  std::vector<uint32_t> tensor = std::vector<uint32_t>(kElements);  // fill target
  std::vector<uint32_t> out = std::vector<uint32_t>(kElements);     // logical order
  size_t avail = 0, next = 0;

  uint64_t fills = 0;
  uint64_t words = 0;  // stream elements consumed by fills so far (self-check)

  // Reference stream position for the self-check.
  PhiloxState start;

  uint64_t SplitMix() {
    uint64_t z = (size_rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
  }

  void Check(const PhiloxState& before, const uint32_t* logical, uint64_t n) {
    for (uint64_t e = 0; e < n; ++e) {
      const uint32_t want = randtensor::philox::Element(before, e);
      if (logical[e] != want) {
        std::fprintf(stderr,
                     "randtensor_testu01: self-check failed: fill %" PRIu64 " element %" PRIu64
                     " = %08x, the reference says %08x\n",
                     fills, e, logical[e], want);
        std::exit(2);
      }
    }
    const PhiloxState after = randtensor::philox::Advance(before, n);
    if (std::memcmp(after.words, state.words, sizeof(after.words)) != 0) {
      std::fprintf(stderr, "randtensor_testu01: self-check failed: output state of fill %" PRIu64
                           "\n", fills);
      std::exit(2);
    }
  }

  void Refill() {
    const PhiloxState before = state;
    FillOptions options;
    uint64_t n = 0;
    if (mode == Mode::kNhwc) {
      TensorDesc desc;
      desc.rank = 4;
      desc.sizes = kSizes;
      desc.strides = kStrides;
      options.threads = 2;
      options.task_elements = 256;
      const Status s = randtensor::Fill(desc, tensor.data(), tensor.size() * 4, state, &state,
                                        options);
      if (!s.ok()) Die("Fill (nhwc)", s);
      // Back to logical order: e = ((n * C + c) * H + h) * W + w.
      size_t e = 0;
      for (int64_t c = 0; c < kC; ++c) {
        for (int64_t h = 0; h < kH; ++h) {
          const uint32_t* row = tensor.data() + c * kStrides[1] + h * kStrides[2];
          for (int64_t w = 0; w < kW; ++w) out[e++] = row[w * kStrides[3]];
        }
      }
      n = kElements;
    } else {
      n = 1 + SplitMix() % kMaxCall;
      if (mode == Mode::kControlRepeat) state = start;  // the bug: state not chained
      const int64_t size = static_cast<int64_t>(n);
      TensorDesc desc;
      desc.rank = 1;
      desc.sizes = &size;
      options.threads = 0;  // the process default, as a framework would call it
      const Status s = randtensor::Fill(desc, out.data(), n * 4, state, &state, options);
      if (!s.ok()) Die("Fill (calls)", s);
      if (mode == Mode::kControlOverlap) {
        // The bug: advancing by floor(N / 4), so the next call re-reads the
        // words of this call's last, partial block.
        const randtensor::Counter128 c = before.counter().Plus(n / 4);
        for (int i = 0; i < 4; ++i) state.words[i] = c.w[i];
      }
    }
    if (fills < kCheckedFills && mode != Mode::kControlRepeat && mode != Mode::kControlOverlap) {
      Check(before, out.data(), n);
    }
    ++fills;
    words += n;
    avail = n;
    next = 0;
  }

  uint32_t Next() {
    if (next == avail) Refill();
    return out[next++];
  }
};

Source g_source;

unsigned int NextBits() { return g_source.Next(); }

void Usage() {
  std::fprintf(stderr,
               "usage: randtensor_testu01 [--battery smallcrush|crush|bigcrush] "
               "[--mode nhwc|calls|control-repeat|control-overlap] [--seed N] "
               "[--tests LIST]\n");
}

// Parses "3,7-9" into rep[i] = 1 for the listed tests, 1 <= i <= max_test.
bool ParseTests(const std::string& list, int max_test, std::vector<int>* rep) {
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t end = std::min(list.find(',', pos), list.size());
    const std::string item = list.substr(pos, end - pos);
    const size_t dash = item.find('-');
    char* stop = nullptr;
    const long first = std::strtol(item.c_str(), &stop, 10);
    long last = first;
    if (dash == std::string::npos) {
      if (item.empty() || *stop != '\0') return false;
    } else {
      if (dash == 0 || stop != item.c_str() + dash) return false;
      const std::string tail = item.substr(dash + 1);
      last = std::strtol(tail.c_str(), &stop, 10);
      if (tail.empty() || *stop != '\0') return false;
    }
    if (first < 1 || last > max_test || first > last) return false;
    for (long t = first; t <= last; ++t) (*rep)[t] = 1;
    pos = end + 1;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // Line-buffered: a long battery's log shows progress, and a run that is
  // stopped early keeps everything it printed.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::string battery = "smallcrush";
  std::string mode = "nhwc";
  uint64_t seed = 20240601;
  std::string tests_list;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        Usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--battery") {
      battery = value();
    } else if (arg == "--mode") {
      mode = value();
    } else if (arg == "--seed") {
      const std::string v = value();
      char* end = nullptr;
      errno = 0;
      seed = std::strtoull(v.c_str(), &end, 0);
      if (errno != 0 || end == v.c_str() || *end != '\0') {
        Usage();
        return 2;
      }
    } else if (arg == "--tests") {
      tests_list = value();
    } else if (arg == "-h" || arg == "--help") {
      Usage();
      return 0;
    } else {
      Usage();
      return 2;
    }
  }
  void (*run)(unif01_Gen*) = nullptr;
  void (*run_some)(unif01_Gen*, int[]) = nullptr;
  const char* battery_name = nullptr;
  int max_test = 0;
  if (battery == "smallcrush") {
    run = bbattery_SmallCrush, run_some = bbattery_RepeatSmallCrush;
    battery_name = "SmallCrush", max_test = 10;
  } else if (battery == "crush") {
    run = bbattery_Crush, run_some = bbattery_RepeatCrush;
    battery_name = "Crush", max_test = 96;
  } else if (battery == "bigcrush") {
    run = bbattery_BigCrush, run_some = bbattery_RepeatBigCrush;
    battery_name = "BigCrush", max_test = 106;
  } else {
    Usage();
    return 2;
  }
  // TestU01 reads rep[1..max_test]; its own arrays hold 200 entries.
  std::vector<int> rep(201, 0);
  if (!tests_list.empty() && !ParseTests(tests_list, max_test, &rep)) {
    std::fprintf(stderr, "randtensor_testu01: --tests %s: want numbers 1 to %d, e.g. 3,7-9\n",
                 tests_list.c_str(), max_test);
    return 2;
  }
  if (mode == "nhwc") {
    g_source.mode = Mode::kNhwc;
  } else if (mode == "calls") {
    g_source.mode = Mode::kCalls;
  } else if (mode == "control-repeat") {
    g_source.mode = Mode::kControlRepeat;
  } else if (mode == "control-overlap") {
    g_source.mode = Mode::kControlOverlap;
  } else {
    Usage();
    return 2;
  }

  PhiloxState state = PhiloxState::FromSeed(seed);
  state.words[0] = 0xFFFFF000u;
  state.words[1] = 0xFFFFFFFFu;
  g_source.state = state;
  g_source.start = state;
  g_source.size_rng = seed ^ 0x5DEECE66Du;

  randtensor::TargetInfo target;
  const Status ts = randtensor::GetActiveTarget(&target);
  if (!ts.ok()) Die("GetActiveTarget", ts);
  std::printf("randtensor_testu01: battery %s%s%s, mode %s, seed %" PRIu64
              ", state {%08x %08x %08x %08x %08x %08x}, target %s (%d lanes)\n",
              battery_name, tests_list.empty() ? "" : " tests ", tests_list.c_str(), mode.c_str(),
              seed, state.words[0], state.words[1], state.words[2],
              state.words[3], state.words[4], state.words[5], target.name, target.lanes);
  std::fflush(stdout);

  std::string gen_name = "randtensor Philox4x32-10 (" + mode + ", seed " +
                         std::to_string(seed) + ")";
  unif01_Gen* gen = unif01_CreateExternGenBits(&gen_name[0], NextBits);
  const std::time_t t0 = std::time(nullptr);
  if (tests_list.empty()) {
    run(gen);
  } else {
    run_some(gen, rep.data());
  }
  const std::time_t t1 = std::time(nullptr);
  unif01_DeleteExternGenBits(gen);

  int tests = 0, suspicious = 0, failed = 0;
  double min_p = 1.0, max_p = 0.0;
  for (int j = 0; j < bbattery_NTests; ++j) {
    const double p = bbattery_pVal[j];
    if (p < 0.0) continue;  // a test TestU01 did not run
    ++tests;
    if (p < min_p) min_p = p;
    if (p > max_p) max_p = p;
    const bool clear_fail = p < 1e-10 || p > 1.0 - 1e-10;
    if (p < 0.001 || p > 0.999) {
      ++suspicious;
      std::printf("%s %s: test %d \"%s\": p = %.6g%s\n", battery_name, mode.c_str(), j,
                  bbattery_TestNames[j], p, clear_fail ? "  CLEAR FAILURE" : "  (suspicious)");
    }
    if (clear_fail) ++failed;
  }
  std::printf("%s %s: %d tests, min p = %.6g, max p = %.6g, suspicious (outside [0.001, 0.999]) "
              "= %d, clear failures (outside [1e-10, 1 - 1e-10]) = %d; %" PRIu64 " fills, %" PRIu64
              " words, %lld s\n",
              battery_name, mode.c_str(), tests, min_p, max_p, suspicious, failed,
              g_source.fills, g_source.words, static_cast<long long>(t1 - t0));
  return failed == 0 && tests > 0 ? 0 : 1;
}
