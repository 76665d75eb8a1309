// RANDTENSOR_TARGET, checked from a fresh process (the variable is read once,
// on first use). CTest runs this program with the variable set and one of:
//
//   --expect-active=NAME    NAME (any case) is forced. If this build compiled
//                           NAME and the CPU supports it, GetActiveTarget names
//                           it and real fills run it (FillInfo::target is what
//                           the kernel itself reports) with the right values.
//                           If the CPU cannot run it, every fill fails with
//                           kUnsupportedTarget naming RANDTENSOR_TARGET and
//                           writes nothing. If the build did not compile it,
//                           the name is unknown (as --expect-error below).
//   --expect-active=widest  the first supported entry of the target list.
//   --each-compiled         runs --expect-active=NAME, with RANDTENSOR_TARGET
//                           set, for every target the library compiled.
//   --expect-error=unknown_target
//                           GetActiveTarget and every fill fail with
//                           kUnknownTarget naming RANDTENSOR_TARGET and its
//                           value, writing nothing; SetTarget("auto") recovers.
//
// Exits 0 on success, 1 with the failures printed otherwise.

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "randtensor/directml.h"
#include "randtensor/fill.h"
#include "randtensor/targets.h"
#include "validation_util.h"

namespace {

using randtensor::FillInfo;
using randtensor::FillOptions;
using randtensor::PhiloxState;
using randtensor::Status;
using randtensor::StatusCode;
using randtensor::StoreMode;
using randtensor::TargetInfo;
using randtensor::TensorDesc;
using validation::GuardedMemory;

enum class Mode { kActive, kUnknownTarget };
Mode g_mode = Mode::kActive;
std::string g_name;  // --expect-active=NAME

std::string EnvValue() {
  const char* env = std::getenv("RANDTENSOR_TARGET");
  return env != nullptr ? env : "";
}

bool SameName(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

TargetInfo Target(int index) {
  TargetInfo info;
  const Status s = randtensor::GetTarget(index, &info);
  EXPECT_TRUE(s.ok()) << validation::Describe(s);
  return info;
}

// Index of the compiled target `name` (any case), or -1.
int FindCompiled(const std::string& name) {
  for (int i = 0; i < randtensor::TargetCount(); ++i) {
    if (SameName(Target(i).name, name)) return i;
  }
  return -1;
}

int WidestSupported() {
  for (int i = 0; i < randtensor::TargetCount(); ++i) {
    if (Target(i).supported) return i;
  }
  return -1;
}

// One fill through the native API or the DirectML entry point, from the zero
// state, into a guarded buffer; `state` receives the output state.
struct FillCase {
  const char* what;
  std::vector<int64_t> sizes, strides;  // empty strides: packed
  FillOptions options;
  bool directml = false;
};

struct Placed {
  validation::Span span;
  GuardedMemory buffer{8192};
  GuardedMemory state{64};
  uint8_t* data = nullptr;  // element (0, ..., 0)
  uint64_t bytes = 0;

  explicit Placed(const FillCase& c)
      : span(validation::BruteForceSpan(
            c.sizes, c.strides.empty() ? rt_test::PackedStrides(c.sizes) : c.strides)) {
    data = buffer.data() - span.low * 4;
    bytes = static_cast<uint64_t>(span.high - span.low + 1) * 4;
  }

  PhiloxState* out_state() { return reinterpret_cast<PhiloxState*>(state.data()); }

  Status Run(const FillCase& c) {
    const PhiloxState zero{};
    if (!c.directml) {
      TensorDesc desc;
      desc.rank = static_cast<int32_t>(c.sizes.size());
      desc.sizes = c.sizes.data();
      desc.strides = c.strides.empty() ? nullptr : c.strides.data();
      desc.byte_offset = static_cast<uint64_t>(-span.low) * 4;  // buffer from the lowest element
      return randtensor::Fill(desc, buffer.data(), bytes, zero, out_state(), c.options);
    }
    namespace dml = randtensor::dml;
    static const dml::UINT kStateSizes[4] = {1, 1, 1, 6};
    const std::vector<dml::UINT> sizes(c.sizes.begin(), c.sizes.end());
    const dml::DML_BUFFER_TENSOR_DESC state_desc = {
        dml::DML_TENSOR_DATA_TYPE_UINT32, dml::DML_TENSOR_FLAG_NONE, 4, kStateSizes, nullptr,
        sizeof(PhiloxState), 0};
    const dml::DML_BUFFER_TENSOR_DESC out_desc = {
        dml::DML_TENSOR_DATA_TYPE_UINT32, dml::DML_TENSOR_FLAG_NONE,
        static_cast<dml::UINT>(sizes.size()), sizes.data(), nullptr, bytes, 16};
    const dml::DML_TENSOR_DESC state_tensor = {dml::DML_TENSOR_TYPE_BUFFER, &state_desc};
    const dml::DML_TENSOR_DESC out_tensor = {dml::DML_TENSOR_TYPE_BUFFER, &out_desc};
    const dml::DML_RANDOM_GENERATOR_OPERATOR_DESC op = {
        &state_tensor, &out_tensor, &state_tensor, dml::DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10};
    PhiloxState in = zero;
    const dml::DML_BUFFER_BINDING in_bind = {&in, sizeof(in)};
    const dml::DML_BUFFER_BINDING out_bind = {data, bytes};
    const dml::DML_BUFFER_BINDING state_bind = {out_state(), sizeof(PhiloxState)};
    return dml::ExecuteRandomGenerator(op, in_bind, out_bind, &state_bind, c.options);
  }
};

const std::vector<FillCase>& FillCases() {
  static const std::vector<FillCase> cases = [] {
    std::vector<FillCase> all;
    FillOptions one_thread;
    one_thread.threads = 1;
    FillOptions streaming;
    streaming.stores = StoreMode::kStreaming;
    FillOptions regular_offset;
    regular_offset.stores = StoreMode::kRegular;
    regular_offset.element_offset = 3;
    FillOptions tiled;
    tiled.task_elements = 36;
    tiled.threads = 4;
    all.push_back({"packed 300", {300}, {}, FillOptions(), false});
    all.push_back({"packed 300, one thread", {300}, {}, one_thread, false});
    all.push_back({"packed 301, streaming", {301}, {}, streaming, false});
    all.push_back({"strided 300 (stride 3)", {300}, {3}, FillOptions(), false});
    all.push_back({"padded 20x15, negative rows", {20, 15}, {-16, 1}, FillOptions(), false});
    all.push_back({"NHWC-like 4x5x3, tiled", {4, 5, 3}, {3, 12, 1}, tiled, false});
    all.push_back({"offset 3, regular stores", {257}, {}, regular_offset, false});
    all.push_back({"DirectML 2x150", {2, 150}, {}, FillOptions(), true});
    return all;
  }();
  return cases;
}

// The fill must succeed on `target`, with the oracle's values at every
// element's offset, SPEC.md's known-answer prefix, the advanced state, and no
// other byte touched.
void ExpectFillRuns(const FillCase& c, const TargetInfo& target) {
  SCOPED_TRACE(c.what);
  Placed p(c);
  FillInfo info;
  FillCase with_info = c;
  with_info.options.info = &info;
  validation::ExpectedImage expected({&p.buffer, &p.state});
  const PhiloxState zero{};
  for (size_t e = 0; e < p.span.offsets.size(); ++e) {
    const uint32_t v = rt_test::OracleValue(zero, c.options.element_offset + e);
    expected.Put(p.data + p.span.offsets[e] * 4, &v, 4);
  }
  const PhiloxState next =
      rt_test::ExpectedOutState(zero, c.options.element_offset + p.span.offsets.size());
  expected.Put(p.out_state(), &next, sizeof(next));
  ASSERT_TRUE(validation::Accepts([&] { return p.Run(with_info); }));
  EXPECT_STREQ(info.target, target.name) << "FillInfo::target: the kernel that really ran";
  EXPECT_EQ(info.lanes, target.lanes);
  EXPECT_TRUE(expected.Matches()) << "values, placement, padding or state";
  if (c.options.element_offset == 0 && c.strides.empty()) {
    const uint32_t* values = reinterpret_cast<const uint32_t*>(p.data);
    for (int i = 0; i < 10; ++i) {
      EXPECT_EQ(values[i], rt_test::ZeroStateValues().at(i)) << "known answer, element " << i;
    }
  }
}

// Every fill, and GetActiveTarget, must fail with `code` naming
// RANDTENSOR_TARGET and its value, and write nothing.
void ExpectEverythingFails(StatusCode code) {
  const std::vector<std::string> fragments = {"RANDTENSOR_TARGET", EnvValue()};
  TargetInfo info;
  std::memset(static_cast<void*>(&info), 0xAB, sizeof(info));
  EXPECT_TRUE(validation::Rejects([&] { return randtensor::GetActiveTarget(&info); }, code,
                                  fragments, {{&info, sizeof(info)}}));
  for (const FillCase& c : FillCases()) {
    SCOPED_TRACE(c.what);
    Placed p(c);
    FillInfo fill_info;
    FillCase with_info = c;
    with_info.options.info = &fill_info;
    EXPECT_TRUE(validation::Rejects([&] { return p.Run(with_info); }, code, fragments,
                                    {p.buffer.whole(), p.state.whole(),
                                     {&fill_info, sizeof(fill_info)}}));
  }
  for (int i = 0; i < randtensor::TargetCount(); ++i) {
    EXPECT_FALSE(Target(i).active) << Target(i).name << " claims to be active";
  }
}

// The forced target `index` is active and every fill runs it.
void ExpectActive(int index) {
  const TargetInfo expected = Target(index);
  TargetInfo active;
  const Status s = randtensor::GetActiveTarget(&active);
  ASSERT_TRUE(s.ok()) << validation::Describe(s);
  EXPECT_STREQ(active.name, expected.name);
  EXPECT_TRUE(active.active);
  EXPECT_TRUE(active.supported);
  for (int i = 0; i < randtensor::TargetCount(); ++i) {
    EXPECT_EQ(Target(i).active, i == index) << Target(i).name;
  }
  for (const FillCase& c : FillCases()) ExpectFillRuns(c, expected);
}

TEST(EnvTarget, ForcedTargetRuns) {
  if (g_mode != Mode::kActive) GTEST_SKIP() << "not --expect-active";
  ASSERT_GT(randtensor::TargetCount(), 0);
  if (g_name == "widest") {
    const int widest = WidestSupported();
    ASSERT_GE(widest, 0) << "no supported target (the scalar one runs everywhere)";
    ExpectActive(widest);
    return;
  }
  ASSERT_TRUE(SameName(g_name, EnvValue()))
      << "--expect-active=" << g_name << " but RANDTENSOR_TARGET=" << EnvValue();
  const int index = FindCompiled(g_name);
  if (index < 0) {
    std::printf("note: %s is not compiled in this build: it must be an unknown target\n",
                g_name.c_str());
    ExpectEverythingFails(StatusCode::kUnknownTarget);
  } else if (!Target(index).supported) {
    std::printf("note: this CPU cannot run %s: every fill must fail\n", Target(index).name);
    ExpectEverythingFails(StatusCode::kUnsupportedTarget);
  } else {
    ExpectActive(index);
  }
}

TEST(EnvTarget, UnknownNameIsAnError) {
  if (g_mode != Mode::kUnknownTarget) GTEST_SKIP() << "not --expect-error=unknown_target";
  ASSERT_FALSE(EnvValue().empty()) << "RANDTENSOR_TARGET is not set";
  ASSERT_LT(FindCompiled(EnvValue()), 0) << EnvValue() << " is a compiled target";
  ExpectEverythingFails(StatusCode::kUnknownTarget);
  // A failed SetTarget keeps the previous choice: still the environment's error.
  EXPECT_EQ(randtensor::SetTarget("NEON9001").code(), StatusCode::kUnknownTarget);
  ExpectEverythingFails(StatusCode::kUnknownTarget);
  // SetTarget("auto") recovers: the widest supported target, and fills work.
  const Status s = randtensor::SetTarget("auto");
  ASSERT_TRUE(s.ok()) << validation::Describe(s);
  ExpectActive(WidestSupported());
}

}  // namespace

// --each-compiled: every target this build compiled, each in a fresh process
// of this program with RANDTENSOR_TARGET set to its name, so the list of
// targets lives in the library alone (no hand list in CMake).
int RunEachCompiled(const char* self) {
  int failures = 0;
  for (int i = 0; i < randtensor::TargetCount(); ++i) {
    const std::string name = Target(i).name;
    const std::string arg = "--expect-active=" + name;
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
      setenv("RANDTENSOR_TARGET", name.c_str(), 1);
      execl(self, self, arg.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    const bool ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                    WEXITSTATUS(status) == 0;
    std::printf("%s: RANDTENSOR_TARGET=%s\n", ok ? "ok" : "FAILED", name.c_str());
    failures += ok ? 0 : 1;
  }
  std::printf("%d passed, %d failed\n", randtensor::TargetCount() - failures, failures);
  return failures == 0 && randtensor::TargetCount() > 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);  // takes the --gtest_* flags out
  const std::string active = "--expect-active=";
  const std::string error = "--expect-error=unknown_target";
  if (argc == 2 && std::strcmp(argv[1], "--each-compiled") == 0) return RunEachCompiled(argv[0]);
  if (argc == 2 && std::strncmp(argv[1], active.c_str(), active.size()) == 0 &&
      argv[1][active.size()] != '\0') {
    g_mode = Mode::kActive;
    g_name = argv[1] + active.size();
  } else if (argc == 2 && argv[1] == error) {
    g_mode = Mode::kUnknownTarget;
  } else {
    std::fprintf(stderr, "usage: %s --expect-active=NAME|widest | %s\n", argv[0], error.c_str());
    return 1;
  }
  return RUN_ALL_TESTS() == 0 ? 0 : 1;
}
