// Distributions (SPEC.md section 8) against the independent reference model:
// tests/data/distributions.txt is written by
// tests/reference/make_distribution_cases.py (exact rationals, the PyTorch
// variant the H100 confirmed), tests/data/transforms.txt by the same with
// --transforms (docs/SPEC.md section 8.1: exponential, Cauchy, log-normal,
// geometric; the exact values rounded once, which randtensor's own log, tan
// and exp must meet within the bounds stated there). Every case runs on every supported target,
// through several layouts (packed, reversed, padded rows, transposed), thread
// counts and task sizes: the values must be the reference's bit for bit, the
// output state the rule's, and no padding byte may change. Edge words (0,
// 2^32 - 1, the words that round to 1.0f, float16/bfloat16 ties, float16
// subnormals) go through each kernel's convert function directly.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "randtensor/fill.h"
#include "randtensor/targets.h"
#include "src/dispatch.h"
#include "src/kernels.h"
#include "src/plan.h"
#include "test_util.h"

#ifndef RANDTENSOR_TEST_DISTRIBUTIONS
#error "RANDTENSOR_TEST_DISTRIBUTIONS must name tests/data/distributions.txt"
#endif
#ifndef RANDTENSOR_TEST_TRANSFORMS
#error "RANDTENSOR_TEST_TRANSFORMS must name tests/data/transforms.txt"
#endif

namespace randtensor {
namespace {

struct Record {
  std::string kind;  // fill or convert
  std::string name, dtype, dist;
  std::string a, b;  // parameters as written (repr of a double, or integers)
  uint32_t state[6] = {};
  uint64_t offset = 0, n = 0;
  std::vector<uint64_t> values;  // fill: output bits
  uint32_t out_state[6] = {};
  std::vector<std::pair<uint32_t, uint64_t>> pairs;  // convert: word -> bits
};

std::vector<Record> ReadRecords() {
  std::stringstream text;
  for (const char* file : {RANDTENSOR_TEST_DISTRIBUTIONS, RANDTENSOR_TEST_TRANSFORMS}) {
    std::ifstream in(file);
    EXPECT_TRUE(in.good()) << "cannot open " << file;
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line[0] == '#') continue;
      text << line << '\n';
    }
  }
  std::vector<Record> records;
  std::string word;
  while (text >> word) {
    Record r;
    r.kind = word;
    text >> r.name >> r.dtype >> r.dist >> r.a >> r.b;
    if (r.kind == "fill") {
      for (uint32_t& s : r.state) text >> std::hex >> s;
      text >> std::dec >> r.offset >> r.n >> word;  // "->"
      for (uint64_t i = 0; i < r.n; ++i) {
        uint64_t v;
        text >> std::hex >> v;
        r.values.push_back(v);
      }
      text >> word;  // ";"
      for (uint32_t& s : r.out_state) text >> std::hex >> s;
      text >> std::dec;
    } else {
      text >> word;  // "->"
      while (text.peek() != EOF) {
        std::streampos at = text.tellg();
        std::string pair;
        if (!(text >> pair) || pair == "fill" || pair == "convert") {
          text.clear();
          text.seekg(at);
          break;
        }
        const size_t colon = pair.find(':');
        r.pairs.emplace_back(static_cast<uint32_t>(std::stoul(pair.substr(0, colon), nullptr, 16)),
                             std::stoull(pair.substr(colon + 1), nullptr, 16));
      }
    }
    EXPECT_TRUE(r.kind == "fill" || r.kind == "convert") << r.kind;
    records.push_back(r);
  }
  EXPECT_GT(records.size(), 20u) << "the case file is empty or unreadable";
  return records;
}

const std::vector<Record>& Records() {
  static const std::vector<Record> records = ReadRecords();
  return records;
}

DataType TypeOf(const std::string& name) {
  static const std::pair<const char*, DataType> kTypes[] = {
      {"uint32", DataType::kUint32},   {"float32", DataType::kFloat32},
      {"float64", DataType::kFloat64}, {"float16", DataType::kFloat16},
      {"bfloat16", DataType::kBfloat16}, {"uint8", DataType::kUint8},
      {"bool", DataType::kBool},       {"int32", DataType::kInt32},
      {"int64", DataType::kInt64}};
  for (const auto& t : kTypes) {
    if (name == t.first) return t.second;
  }
  ADD_FAILURE() << "unknown dtype " << name;
  return DataType::kUint32;
}

Distribution DistributionOf(const Record& r) {
  if (r.dist == "uniform") return Distribution::Uniform(std::stod(r.a), std::stod(r.b));
  if (r.dist == "bernoulli") return Distribution::Bernoulli(std::stod(r.a));
  if (r.dist == "normal") return Distribution::Normal(std::stod(r.a), std::stod(r.b));
  if (r.dist == "integers") return Distribution::Integers(std::stoll(r.a), std::stoll(r.b));
  if (r.dist == "exponential") return Distribution::Exponential(std::stod(r.a));
  if (r.dist == "cauchy") return Distribution::Cauchy(std::stod(r.a), std::stod(r.b));
  if (r.dist == "log_normal") return Distribution::LogNormal(std::stod(r.a), std::stod(r.b));
  if (r.dist == "geometric") return Distribution::Geometric(std::stod(r.a));
  ADD_FAILURE() << "unknown distribution " << r.dist;
  return Distribution();
}

uint64_t ReadBits(const uint8_t* p, int size) {
  uint64_t v = 0;
  std::memcpy(&v, p, static_cast<size_t>(size));  // little-endian
  return v;
}

// A layout of n elements and its strides (elements), with room and pad.
struct Layout {
  const char* what;
  std::vector<int64_t> sizes, strides;
  bool pass_strides = true;  // false: TensorDesc::strides = nullptr (packed)
};

// "packed, no strides" with one thread and element offset 0 is the small
// packed fill that runs its kernel without a plan (fill.cc, DirectFill).
std::vector<Layout> LayoutsFor(uint64_t n) {
  const int64_t m = static_cast<int64_t>(n);
  std::vector<Layout> out = {
      {"packed", {m}, {1}}, {"packed, no strides", {m}, {1}, false}, {"reversed", {m}, {-1}}};
  if (n % 2 == 0) {
    out.push_back({"padded rows", {2, m / 2}, {m / 2 + 3, 1}});
    out.push_back({"transposed", {2, m / 2}, {1, 2}});
  }
  if (n % 5 == 0) out.push_back({"nhwc-like", {m / 5, 5}, {1, m / 5}});
  return out;
}

// Distance in ulps between two finite floats of `size` bytes (4 or 2), as
// sign-magnitude integers mapped onto one ordered line.
int64_t UlpDistance(uint64_t a, uint64_t b, int size) {
  const int bits = 8 * size;
  const auto ordered = [&](uint64_t v) {
    const uint64_t sign = uint64_t{1} << (bits - 1);
    const int64_t magnitude = static_cast<int64_t>(v & (sign - 1));
    return (v & sign) != 0 ? -magnitude : magnitude;
  };
  const int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

// The value of a float16, bfloat16, float32 or float64 bit pattern.
double ValueOf(uint64_t bits, const std::string& dtype) {
  if (dtype == "float64") {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  if (dtype == "float16") {
    const int e = static_cast<int>((bits >> 10) & 31);
    const double m = static_cast<double>(bits & 1023);
    const double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
    return (bits & 0x8000) != 0 ? -v : v;
  }
  const uint32_t b = dtype == "bfloat16" ? static_cast<uint32_t>(bits << 16)
                                         : static_cast<uint32_t>(bits);
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// How many ulps (of the reference's value `want`, its exact value rounded
// once) a transform of docs/SPEC.md section 8.1 may be from it: the stated
// bound against the exact value plus the half ulp of that rounding, and
// for Cauchy the cancellation term 2^-50 |sigma tan a| = 2^-50 |value -
// median|. Log-normal: exp(x), x randtensor's normal, which may differ from
// the reference's (the exact Box-Muller rounded, then fma with std and
// mean) by the normal's bound (2 ulp or 2^-22 of z for float, 4 ulp or
// 2^-50 for double, plus the reference's half ulp) times std, plus an ulp
// of x for the two fmas; exp turns dx into a relative error dx.
double AllowedUlps(const Record& r, uint64_t want, int size) {
  const double v = ValueOf(want, r.dtype);
  const double ulp = std::fabs(ValueOf(want + 1, r.dtype) - v);  // |v| not the largest
  const bool wide = size == 8;
  if (r.dist == "exponential") return wide ? 2 : 1;
  if (r.dist == "cauchy") return 1 + std::ldexp(std::fabs(v - std::stod(r.a)), -50) / ulp;
  if (r.dist == "log_normal") {
    const double mean = std::stod(r.a), std_dev = std::stod(r.b);
    const double x = std::log(v), z = (x - mean) / std_dev;
    const int digits = wide ? 53 : 24;
    const auto ulp_of = [&](double t) {
      return std::ldexp(1.0, std::max(std::ilogb(t == 0 ? 1e-300 : t), wide ? -1022 : -126) -
                                 digits + 1);
    };
    const double dz = std::max((wide ? 4.5 : 2.5) * ulp_of(z), std::ldexp(1.0, wide ? -50 : -22));
    const double dx = std_dev * dz + ulp_of(x);
    return 1 + std::fabs(v) * std::expm1(dx) / ulp;
  }
  return 0;  // geometric and the distributions of section 8: exact
}

// Every target computes the same normal bits (the same operations, each
// rounded once), so the values must also agree across targets exactly, not
// only within an ulp: every normal type, for randn's (0, 1), for a mean and
// std that are not (the float kernels fold the quadrant's sign into std on
// AVX2), and for mean -0 (the sign of a zero sum).
TEST(Distributions, NormalsAreTheSameBitsOnEveryTarget) {
  constexpr int64_t kCount = 1001;
  const int64_t sizes[1] = {kCount};
  for (const DataType type :
       {DataType::kFloat32, DataType::kFloat16, DataType::kBfloat16, DataType::kFloat64}) {
    const size_t bytes = static_cast<size_t>(ElementSize(type)) * kCount;
    for (const std::pair<double, double> parameters :
         {std::pair<double, double>{0.0, 1.0}, {0.5, 2.0}, {-0.0, 0.75}, {-3.0, 1e-3}}) {
      // Named copies: C++17 lambdas cannot capture structured bindings.
      const double mean = parameters.first, std_dev = parameters.second;
      std::vector<std::vector<uint8_t>> per_target;
      std::vector<std::string> names;
      rt_test::ForEachSupportedTarget([&](const TargetInfo& target) {
        std::vector<uint8_t> out(bytes);
        TensorDesc desc;
        desc.dtype = type;
        desc.rank = 1;
        desc.sizes = sizes;
        FillOptions options;
        options.element_offset = 3;
        options.distribution = Distribution::Normal(mean, std_dev);
        ASSERT_TRUE(
            Fill(desc, out.data(), out.size(), PhiloxState::FromSeed(5), nullptr, options).ok());
        per_target.push_back(out);
        names.push_back(target.name);
      });
      ASSERT_GE(per_target.size(), 2u);
      for (size_t t = 1; t < per_target.size(); ++t) {
        EXPECT_EQ(std::memcmp(per_target[t].data(), per_target[0].data(), bytes), 0)
            << names[t] << " against " << names[0] << ", element size " << ElementSize(type)
            << ", mean " << mean << ", std " << std_dev;
      }
    }
  }
}

TEST(Distributions, FillsEqualTheReferenceOnEveryTargetLayoutAndThreadCount) {
  int checked = 0;
  int64_t normal_max_ulp = 0, normal_max_ulp64 = 0;
  std::map<std::string, int64_t> transform_max_ulp;
  for (const Record& r : Records()) {
    if (r.kind != "fill") continue;
    const DataType type = TypeOf(r.dtype);
    const int size = ElementSize(type);
    ASSERT_GT(size, 0);
    PhiloxState in;
    std::memcpy(in.words, r.state, sizeof(in.words));
    rt_test::ForEachSupportedTarget([&](const TargetInfo& target) {
      for (const Layout& layout : LayoutsFor(r.n)) {
        // Span and offsets of the layout.
        int64_t low = 0, high = 0;
        for (size_t d = 0; d < layout.sizes.size(); ++d) {
          const int64_t extent = (layout.sizes[d] - 1) * layout.strides[d];
          (extent < 0 ? low : high) += extent;
        }
        const size_t span = static_cast<size_t>(high - low + 1);
        for (const uint32_t threads : {1u, 3u}) {
          const uint64_t task = threads == 1 ? 0 : 8;
          std::vector<uint8_t> buffer(span * static_cast<size_t>(size) + 16, 0xA5);
          TensorDesc desc;
          desc.dtype = type;
          desc.rank = static_cast<int32_t>(layout.sizes.size());
          desc.sizes = layout.sizes.data();
          desc.strides = layout.pass_strides ? layout.strides.data() : nullptr;
          desc.byte_offset = static_cast<uint64_t>(-low) * static_cast<uint64_t>(size);
          FillOptions options;
          options.element_offset = r.offset;
          options.threads = threads;
          options.task_elements = task;
          options.distribution = DistributionOf(r);
          PhiloxState out;
          const Status s = Fill(desc, buffer.data(), span * static_cast<size_t>(size), in, &out,
                                options);
          ASSERT_TRUE(s.ok()) << r.name << ": " << s.message();
          // Each element at its offset; everything else untouched.
          std::vector<bool> owned(span, false);
          uint64_t e = 0;
          std::vector<int64_t> idx(layout.sizes.size(), 0);
          for (; e < r.n; ++e) {
            int64_t at = -low;
            for (size_t d = 0; d < idx.size(); ++d) at += idx[d] * layout.strides[d];
            owned[static_cast<size_t>(at)] = true;
            const uint64_t got = ReadBits(buffer.data() + at * size, size);
            if (r.dist == "normal") {
              // The reference is the exact formula rounded once; randtensor's
              // own log/sin/cos may land a few ulp away: SPEC.md section 8
              // promises 2 ulp (float types) and 4 ulp (float64).
              ASSERT_LE(UlpDistance(got, r.values[e], size), size == 8 ? 4 : 2)
                  << r.name << " target " << target.name << " layout " << layout.what
                  << " element " << e << std::hex << " got " << got << " want " << r.values[e];
              int64_t& worst = size == 8 ? normal_max_ulp64 : normal_max_ulp;
              worst = std::max(worst, UlpDistance(got, r.values[e], size));
            } else if (AllowedUlps(r, r.values[e], size) > 0) {
              ASSERT_LE(UlpDistance(got, r.values[e], size), AllowedUlps(r, r.values[e], size))
                  << r.name << " target " << target.name << " layout " << layout.what
                  << " element " << e << std::hex << " got " << got << " want " << r.values[e];
              int64_t& worst = transform_max_ulp[r.dist];
              worst = std::max(worst, UlpDistance(got, r.values[e], size));
            } else {
              ASSERT_EQ(got, r.values[e])
                  << r.name << " target " << target.name << " layout " << layout.what
                  << " threads " << threads << " element " << e;
            }
            for (size_t d = idx.size(); d-- > 0;) {
              if (++idx[d] < layout.sizes[d]) break;
              idx[d] = 0;
            }
          }
          for (size_t i = 0; i < span; ++i) {
            if (owned[i]) continue;
            for (int b = 0; b < size; ++b) {
              ASSERT_EQ(buffer[i * static_cast<size_t>(size) + b], 0xA5)
                  << r.name << " " << layout.what << ": padding written";
            }
          }
          for (size_t i = span * static_cast<size_t>(size); i < buffer.size(); ++i) {
            ASSERT_EQ(buffer[i], 0xA5) << r.name << ": wrote past the buffer";
          }
          EXPECT_EQ(std::memcmp(out.words, r.out_state, sizeof(out.words)), 0) << r.name;
          ++checked;
        }
      }
    });
  }
  EXPECT_GT(checked, 100);
  std::printf("normals: largest difference from the exact formula rounded once: %lld ulp "
              "(float32 %lld, float64 %lld)\n",
              static_cast<long long>(std::max(normal_max_ulp, normal_max_ulp64)),
              static_cast<long long>(normal_max_ulp), static_cast<long long>(normal_max_ulp64));
  for (const auto& t : transform_max_ulp) {
    std::printf("%s: largest difference from the exact value rounded once: %lld ulp\n",
                t.first.c_str(), static_cast<long long>(t.second));
  }
}

TEST(Distributions, EdgeWordsEqualTheReferenceInEveryKernel) {
  int count = 0;
  const detail::KernelTable* tables = detail::CompiledKernels(&count);
  int checked = 0;
  for (const Record& r : Records()) {
    if (r.kind != "convert") continue;
    const DataType type = TypeOf(r.dtype);
    const int size = ElementSize(type);
    detail::GenerateKind kind;
    const detail::KindParams* params = nullptr;
    const Status s = detail::ResolveDistribution(type, DistributionOf(r), &kind, &params);
    ASSERT_TRUE(s.ok()) << r.name << ": " << s.message();
    std::vector<uint32_t> words;
    for (const auto& p : r.pairs) words.push_back(p.first);
    for (int t = 0; t < count; ++t) {
      if (!rt_test::SweepsTable(tables[t])) continue;
      std::vector<uint8_t> out(words.size() * static_cast<size_t>(size) + 8, 0xA5);
      tables[t].Generate(kind).convert(*params, words.data(), words.size(), out.data());
      for (size_t i = 0; i < words.size(); ++i) {
        const uint64_t got = ReadBits(out.data() + i * static_cast<size_t>(size), size);
        ASSERT_LE(UlpDistance(got, r.pairs[i].second, size),
                  AllowedUlps(r, r.pairs[i].second, size))
            << r.name << " target " << tables[t].name << " word " << std::hex << words[i]
            << " got " << got << " want " << r.pairs[i].second;
      }
      for (size_t i = words.size() * static_cast<size_t>(size); i < out.size(); ++i) {
        ASSERT_EQ(out[i], 0xA5) << r.name << ": wrote past the end";
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 20);
}

// The AVX-512 kernels round uniform bfloat16 with AVX512_BF16's pack, which
// reads a subnormal float as zero, only where fill.cc proves that no t is
// subnormal (UniformParams::bf16_pack: lsb(R) 2^-33 and lsb(L) at least
// 2^-126). Here (L, R) on both sides of that proof's limits, and the words
// that give the smallest |t| (the lowest words, those where u R + L crosses
// zero, and the largest, which flip to L), convert in every kernel as on
// SCALAR, whose integer rounding keeps bfloat16 subnormals. (With the limit
// moved to R >= 2^-110, R = 2^-100 fails: its t of word 0 is a bfloat16
// subnormal the pack reads as zero; with L >= 2^-136 allowed, L = -2^-130
// fails at the flipped words.)
TEST(Distributions, Bfloat16UniformNearZeroIsTheSameInEveryKernel) {
  int count = 0;
  const detail::KernelTable* tables = detail::CompiledKernels(&count);
  const detail::KernelTable* scalar = nullptr;
  for (int t = 0; t < count; ++t) {
    if (std::strcmp(tables[t].name, "SCALAR") == 0) scalar = &tables[t];
  }
  ASSERT_NE(scalar, nullptr);
  struct Case {
    double low, range;
  };
  const Case cases[] = {
      {0, 1},          {0, 0x1p-69},      {0, 0x1p-70},     {0, 0x1p-71},       {0, 0x1p-93},
      {0, 0x1p-100},   {0, 0x1p-120},     {-0.5, 1},        {-0x1p-103, 0x1p-70},
      {-0x1p-104, 0x1p-70}, {-0x1p-100, 0x1p-99}, {-0x1p-127, 0x1p-125}, {0x1p-103, 0x1p-70},
      {-0x1p-130, 1}};
  int packed = 0;
  for (const Case& c : cases) {
    Distribution d;
    d.kind = DistributionKind::kUniform;
    d.low = c.low;
    d.high = c.low + c.range;
    detail::GenerateKind kind;
    const detail::KindParams* params = nullptr;
    ASSERT_TRUE(detail::ResolveDistribution(DataType::kBfloat16, d, &kind, &params).ok());
    const detail::KindParams p = *params;  // the resolver's answer lasts until its next call
    const detail::UniformParams& u = detail::ParamsOf<detail::UniformParams>(p);
    packed += u.bf16_pack ? 1 : 0;
    std::vector<uint32_t> words;
    for (uint32_t w = 0; w < 64; ++w) words.push_back(w);
    // The largest words, which flip to L (a subnormal L is the pack's too).
    for (uint32_t w = 0; w < 256; ++w) words.push_back(UINT32_MAX - w);
    // x where u R + L = 0: u = -L / R, x about u 2^32.
    const double cross = -u.low_f / static_cast<double>(u.range_f) * 0x1p32;
    if (cross > 0 && cross < 0x1p32) {
      const int64_t x0 = static_cast<int64_t>(cross);
      for (int64_t x = x0 - 64; x <= x0 + 64; ++x) {
        if (x >= 0 && x < (int64_t{1} << 32)) words.push_back(static_cast<uint32_t>(x));
      }
    }
    std::vector<uint16_t> want(words.size()), got(words.size());
    scalar->Generate(kind).convert(p, words.data(), words.size(), want.data());
    for (int t = 0; t < count; ++t) {
      if (!rt_test::SweepsTable(tables[t])) continue;
      tables[t].Generate(kind).convert(p, words.data(), words.size(), got.data());
      for (size_t i = 0; i < words.size(); ++i) {
        ASSERT_EQ(got[i], want[i]) << "uniform(" << c.low << ", " << d.high << ") target "
                                   << tables[t].name << " word " << words[i]
                                   << (u.bf16_pack ? " (packed)" : "");
      }
    }
  }
  // The pack's side of the limits runs where the CPU has it.
  if (detail::CpuHasBfloat16Pack()) {
    EXPECT_GE(packed, 5);
  } else {
    EXPECT_EQ(packed, 0);
  }
}

// float32 normals of edge word pairs (u at 2^-33, at the f = sqrt(1/2) split
// and at 1; v next to multiples of pi/2, where sin or cos is smallest), and
// of a sweep of u with v next to 0 and pi/2 (cos or sin about 1, so z is
// about the radius s and shows its error alone), in every kernel, against the
// formula in long double: within 1.41 ulp, the bound
// tests/reference/normal_float_check.cc proves (SPEC.md: 2 ulp). (With the
// radius's Newton correction doubled, or left out, the sweep reaches 1.74 or
// 1.71 ulp on every target: 515 and 390 failures.)
TEST(Distributions, FloatNormalsOfEdgeWordsAreWithinTheProvenBound) {
  int count = 0;
  const detail::KernelTable* tables = detail::CompiledKernels(&count);
  detail::GenerateKind kind;
  const detail::KindParams* params = nullptr;
  ASSERT_TRUE(detail::ResolveDistribution(DataType::kFloat32, Distribution::Normal(0, 1), &kind,
                                          &params)
                  .ok());
  const uint32_t xs[] = {0u, 1u, 2u, 0x7FFFFFFFu, 0x80000000u, 0xB504F333u, 0xB504F334u,
                         0xFFFFFF7Eu, 0xFFFFFF7Fu, 0xFFFFFFFFu};
  const uint32_t ys[] = {0u,          1u,          0x1FFFFFFFu, 0x20000000u, 0x3FFFFFFFu,
                         0x40000000u, 0x7FFFFFFFu, 0x80000000u, 0xBFFFFFFFu, 0xC0000000u,
                         0xFFFFFF7Fu, 0xFFFFFFFFu};
  std::vector<uint32_t> words;
  for (const uint32_t x : xs) {
    for (const uint32_t y : ys) words.push_back(x), words.push_back(y);
  }
  for (uint32_t k = 0; k < (1u << 15); ++k) {
    const uint32_t x = k * 0x9E3779B1u;  // u spread over (0, 1]
    for (const uint32_t y : {0u, 0x40000000u}) words.push_back(x), words.push_back(y);
  }
  constexpr float kP32_2Pi = 0x1p-32f * 6.2831855f;
  int checked = 0;
  for (int t = 0; t < count; ++t) {
    if (!rt_test::SweepsTable(tables[t])) continue;
    std::vector<float> z(words.size());
    tables[t].Generate(kind).convert(*params, words.data(), words.size(), z.data());
    for (size_t i = 0; i < words.size(); ++i) {
      const float u = static_cast<float>(words[i & ~size_t{1}]) * 0x1p-32f + 0x1p-33f;
      const float v = std::fma(static_cast<float>(words[i | 1]), kP32_2Pi, kP32_2Pi * 0.5f);
      const long double s = std::sqrt(-2 * std::log(static_cast<long double>(u)));
      const long double exact = s * ((i & 1) == 0 ? std::sin(static_cast<long double>(v))
                                                  : std::cos(static_cast<long double>(v)));
      if (exact == 0) {
        EXPECT_EQ(z[i], 0.0f) << tables[t].name << " element " << i;
        continue;
      }
      int e;
      std::frexp(exact, &e);
      const long double ulp = std::ldexp(1.0L, e - 1 - 23);
      EXPECT_LE(std::fabs(z[i] - exact), 1.41L * ulp)
          << tables[t].name << " words " << std::hex << words[i & ~size_t{1}] << " "
          << words[i | 1] << (i & 1 ? " cos" : " sin");
    }
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

// Converts n elements (of type T) of `kind` from `words` with every
// supported target's kernel: element i must have want(i)'s bits, and nothing
// past the end may be written. Returns the targets checked.
template <typename T, class WantFn>
int ExpectOnEveryTarget(detail::GenerateKind kind, const detail::KindParams& params,
                        const uint32_t* words, size_t n, const WantFn& want,
                        const std::string& what) {
  int count = 0, checked = 0;
  const detail::KernelTable* tables = detail::CompiledKernels(&count);
  for (int t = 0; t < count; ++t) {
    if (!rt_test::SweepsTable(tables[t])) continue;
    std::vector<T> out(n + 1, T(0x5A5A));
    tables[t].Generate(kind).convert(params, words, n, out.data());
    for (size_t i = 0; i < n; ++i) {
      const T w = want(i);
      if (std::memcmp(&out[i], &w, sizeof(T)) != 0) {
        ADD_FAILURE() << tables[t].name << " " << what << " element " << i << ": " << out[i]
                      << ", want " << w;
        return checked;
      }
    }
    EXPECT_EQ(out[n], T(0x5A5A)) << tables[t].name << " " << what << ": wrote past the end";
    ++checked;
  }
  return checked;
}

// Two-word integers take a vectorized 64-bit remainder (a double estimate of
// the quotient, then exact fix-ups): words chosen where such estimates break
// (x a multiple of r, one below, one above, 0, 2^64 - 1, near 2^63) for
// ranges from 2^28 to 2^64 - 1, on every target, against __int128 here.
TEST(Distributions, WideIntegerRemaindersAreExactOnEveryTarget) {
  __extension__ typedef unsigned __int128 u128;
  const uint64_t ranges[] = {uint64_t{1} << 28,         (uint64_t{1} << 28) + 1,
                             (uint64_t{1} << 32) - 1,   (uint64_t{1} << 32) + 1,
                             (uint64_t{3} << 40) + 7,   uint64_t{1} << 53,
                             (uint64_t{1} << 63) - 25,  uint64_t{1} << 63,
                             (uint64_t{1} << 63) + 999, ~uint64_t{0}};
  int checked = 0;
  for (const uint64_t r : ranges) {
    std::vector<uint64_t> xs = {0, 1, r - 1, r, r + 1, ~uint64_t{0}, ~uint64_t{0} - 1,
                                uint64_t{1} << 63, (uint64_t{1} << 63) - 1};
    for (uint64_t k : {uint64_t{2}, uint64_t{3}, uint64_t{1000}, uint64_t{123456789}}) {
      const u128 kr = static_cast<u128>(k) * r;
      if (kr >> 64 != 0) continue;
      for (int d = -1; d <= 1; ++d) xs.push_back(static_cast<uint64_t>(kr) + static_cast<uint64_t>(d));
    }
    for (uint64_t x = 0x9E3779B97F4A7C15ull, i = 0; i < 64; ++i) xs.push_back(x *= 0xD1B54A32D192ED03ull);
    std::vector<uint32_t> words;
    for (const uint64_t x : xs) {
      words.push_back(static_cast<uint32_t>(x >> 32));  // W[2i] is the high word
      words.push_back(static_cast<uint32_t>(x));
    }
    detail::IntegersParams params;
    params.range64 = r;
    params.low = -7;
    checked += ExpectOnEveryTarget<int64_t>(
        detail::GenerateKind::kIntegersWideInt64, params, words.data(), xs.size(),
        [&](size_t i) { return static_cast<int64_t>(static_cast<uint64_t>(-7) + xs[i] % r); },
        "r " + std::to_string(r));
    if (HasFailure()) return;
  }
  EXPECT_GT(checked, 10);
}

// One-word integers take x mod r by a multiply (SetIntegerRange): every r
// below 2^12, each side of every power of two up to 2^28, and scattered
// ones, at the words where floor(x / r) changes (0, multiples of r and their
// neighbours, the largest words) and random ones, against C++'s own %.
TEST(Distributions, IntegerRemaindersAreExactOnEveryTarget) {
  std::vector<uint32_t> ranges;
  for (uint32_t r = 1; r < 4096; ++r) ranges.push_back(r);
  for (int k = 12; k <= 28; ++k) {
    for (int d = -1; d <= 1; ++d) {
      const uint32_t r = (uint32_t{1} << k) + static_cast<uint32_t>(d);
      if (r < (uint32_t{1} << 28)) ranges.push_back(r);
    }
  }
  std::mt19937 rng(0x1d2);
  for (int i = 0; i < 200; ++i) ranges.push_back(1 + rng() % ((uint32_t{1} << 28) - 1));
  int checked = 0;
  for (const uint32_t r : ranges) {
    std::vector<uint32_t> xs = {0, 1, 0xFFFFFFFFu, 0xFFFFFFFEu, 0x80000000u, 0x7FFFFFFFu};
    const uint64_t top = 0xFFFFFFFFull / r * r;  // the largest multiple of r
    for (const uint64_t m : {uint64_t{r}, uint64_t{2} * r, uint64_t{1000} * r, top - r, top}) {
      for (int d = -1; d <= 1; ++d) {
        const uint64_t x = m + static_cast<uint64_t>(d);
        if (x <= 0xFFFFFFFFull) xs.push_back(static_cast<uint32_t>(x));
      }
    }
    for (int i = 0; i < 8; ++i) xs.push_back(static_cast<uint32_t>(rng()));
    detail::IntegersParams params;
    detail::SetIntegerRange(&params, r);
    params.low = -3;
    checked += ExpectOnEveryTarget<int64_t>(
        detail::GenerateKind::kIntegersInt64, params, xs.data(), xs.size(),
        [&](size_t i) { return -3 + static_cast<int64_t>(xs[i] % r); }, "r " + std::to_string(r));
    if (HasFailure()) return;
  }
  EXPECT_GT(checked, 1000);
}

// uniform float64 (SPEC.md section 8): z = a ^ (b << 21) of the word pair,
// u53 = z 2^-53 + 2^-54, t = fma(u53, R, L), t == H flips to L. uniform(0,
// 2^k) is made in one multiply-add (kernels.h unit_scale), with its flip at
// z = 2^53 - 1 derived, not searched: both ends of k's range, just outside
// it, and general bounds, at the z where u53 reaches 1, its neighbours, 0
// and random z, on every target, against the formula in plain C++.
TEST(Distributions, Float64UniformEdgesOnEveryTarget) {
  const double bounds[][2] = {{0, 1},      {0, 8},         {0, 0x1p-968}, {0, 0x1p1023},
                              {0, 0x1p-969}, {-1, 1},      {0, 3},        {2, 6}};
  std::vector<uint64_t> zs = {0, 1, 2, uint64_t{1} << 52};
  for (uint64_t d = 1; d <= 4; ++d) zs.push_back((uint64_t{1} << 53) - d);
  std::mt19937_64 rng(0xf64);
  for (int i = 0; i < 32; ++i) zs.push_back(rng() >> 11);
  std::vector<uint32_t> words;
  for (const uint64_t z : zs) {
    const uint32_t b = static_cast<uint32_t>(z >> 21);
    words.push_back(static_cast<uint32_t>(z ^ (uint64_t{b} << 21)));  // a: z's low 21 bits
    words.push_back(b);
  }
  int checked = 0;
  for (const auto& lh : bounds) {
    detail::GenerateKind kind;
    const detail::KindParams* params = nullptr;
    ASSERT_TRUE(detail::ResolveDistribution(DataType::kFloat64,
                                            Distribution::Uniform(lh[0], lh[1]), &kind, &params)
                    .ok());
    const double range = lh[1] - lh[0];
    checked += ExpectOnEveryTarget<double>(
        kind, *params, words.data(), zs.size(),
        [&](size_t i) {
          const double u = static_cast<double>(zs[i]) * 0x1p-53 + 0x1p-54;  // exact product
          const double t = std::fma(u, range, lh[0]);
          return t == lh[1] ? lh[0] : t;
        },
        "uniform(" + std::to_string(lh[0]) + ", " + std::to_string(lh[1]) + ")");
    if (HasFailure()) return;
  }
  EXPECT_GT(checked, 8);
}

// bernoulli compares the word with a threshold X found once per fill
// (BernoulliWords): X must be exactly where u32 = fma(float(x), 2^-32, 2^-33)
// first reaches p, computed here in double (exact: float(x) has 24 bits).
TEST(Distributions, BernoulliThresholdIsWhereTheFloatCompareFlips) {
  const auto u32 = [](uint64_t x) {
    const float fx = static_cast<float>(static_cast<uint32_t>(x));  // correctly rounded
    return static_cast<float>(static_cast<double>(fx) * 0x1p-32 + 0x1p-33);  // one rounding
  };
  std::vector<float> ps = {0.0f, 1.0f, 0.5f, 0.1f, 0.3f, 0.999f, 1e-10f, 0x1p-33f, 0x1p-32f,
                           std::nextafter(1.0f, 0.0f), std::nextafter(0.5f, 1.0f)};
  for (uint32_t x = 12345, i = 0; i < 200; ++i) ps.push_back(u32(x *= 2654435761u));
  for (const float p : ps) {
    const uint64_t X = detail::BernoulliWords(p);
    if (X > 0) EXPECT_LT(u32(X - 1), p) << p;
    if (X < (uint64_t{1} << 32)) EXPECT_GE(u32(X), p) << p;
    EXPECT_LE(X, (uint64_t{1} << 32) - 128) << p;
  }
  EXPECT_EQ(detail::BernoulliWords(0.0f), 0u);
  EXPECT_EQ(detail::BernoulliWords(1.0f), 0xFFFFFF80u);  // the 128 words that give 1.0f fail
}

// The 128 largest words give 1.0f before the flip (SPEC.md said 129: the GPU
// and the reference count 128), so uniform(0, 1) maps them to 0.
TEST(Distributions, ExactlyThe128LargestWordsFlipToLow) {
  detail::GenerateKind kind;
  const detail::KindParams* params = nullptr;
  ASSERT_TRUE(detail::ResolveDistribution(DataType::kFloat32, Distribution::Uniform(0, 1), &kind,
                                          &params)
                  .ok());
  int count = 0;
  const detail::KernelTable* tables = detail::CompiledKernels(&count);
  std::vector<uint32_t> words;
  for (uint32_t k = 1; k <= 200; ++k) words.push_back(0u - k);
  for (int t = 0; t < count; ++t) {
    if (!rt_test::SweepsTable(tables[t])) continue;
    std::vector<float> out(words.size());
    tables[t].Generate(kind).convert(*params, words.data(), words.size(), out.data());
    int zeros = 0;
    for (float f : out) zeros += f == 0.0f ? 1 : 0;
    EXPECT_EQ(zeros, 128) << tables[t].name;
    EXPECT_EQ(out[127], 0.0f) << tables[t].name;          // word 2^32 - 128
    EXPECT_EQ(out[128], 1.0f - 0x1p-24f) << tables[t].name;  // word 2^32 - 129
  }
}

// Bad parameters and types: an error naming the parameter and value, and
// nothing written.
TEST(Distributions, BadParametersAreRefusedByNameWithNothingWritten) {
  struct Bad {
    DataType type;
    Distribution d;
    StatusCode code;
    const char* fragment;
  };
  const Bad cases[] = {
      {DataType::kFloat32, Distribution::Uniform(1, 1), StatusCode::kInvalidArgument,
       "distribution.low = 1"},
      {DataType::kFloat32, Distribution::Uniform(2, 1), StatusCode::kInvalidArgument,
       "distribution.high = 1"},
      {DataType::kFloat32, Distribution::Uniform(0, 1.0 / 0.0), StatusCode::kInvalidArgument,
       "distribution.high = inf"},
      {DataType::kFloat32, Distribution::Uniform(-3e38, 3e38), StatusCode::kInvalidArgument,
       "range inf"},
      {DataType::kFloat16, Distribution::Uniform(1.0, 1.0001), StatusCode::kInvalidArgument,
       "float16"},
      {DataType::kInt32, Distribution::Uniform(0, 1), StatusCode::kUnsupported,
       "dtype = int32 cannot hold distribution uniform"},
      {DataType::kFloat32, Distribution::Bernoulli(1.5), StatusCode::kInvalidArgument,
       "distribution.p = 1.5"},
      {DataType::kFloat32, Distribution::Bernoulli(-0.0 / 0.0), StatusCode::kInvalidArgument,
       "distribution.p = "},
      {DataType::kInt32, Distribution::Integers(5, 5), StatusCode::kInvalidArgument,
       "distribution.int_low = 5"},
      {DataType::kBool, Distribution::Integers(0, 2), StatusCode::kUnsupported,
       "dtype = bool cannot hold distribution integers"},
      {DataType::kFloat64, Distribution::Uniform(-1.7e308, 1.7e308),
       StatusCode::kInvalidArgument, "overflows float64"},
      {DataType::kInt32, Distribution::Integers(int64_t{1} << 31, (int64_t{1} << 31) + 2),
       StatusCode::kInvalidArgument, "int32 holds"},
      {DataType::kUint32, Distribution::Integers(-1, 5), StatusCode::kInvalidArgument,
       "uint32 holds"},
      {DataType::kFloat32, Distribution::Integers(0, (int64_t{1} << 24) + 2),
       StatusCode::kInvalidArgument, "float32 holds"},
      {DataType::kFloat32, Distribution::Bits(), StatusCode::kUnsupported, "bits are uint32"},
      {DataType::kFloat32, Distribution::Normal(0, -1), StatusCode::kInvalidArgument,
       "distribution.std = -1"},
      {DataType::kInt32, Distribution::Normal(0, 1), StatusCode::kUnsupported,
       "dtype = int32 cannot hold distribution normal"},
      // docs/SPEC.md section 8.1's domain
      {DataType::kFloat32, Distribution::Exponential(0), StatusCode::kInvalidArgument,
       "distribution.lambda = 0"},
      {DataType::kFloat32, Distribution::Exponential(1e-50), StatusCode::kInvalidArgument,
       "distribution.lambda = 1e-50: exponential needs lambda > 0 (it rounds to 0"},
      {DataType::kFloat64, Distribution::Exponential(-0.0 / 0.0), StatusCode::kInvalidArgument,
       "distribution.lambda = "},
      {DataType::kInt32, Distribution::Exponential(1), StatusCode::kUnsupported,
       "dtype = int32 cannot hold distribution exponential"},
      {DataType::kFloat32, Distribution::Cauchy(0, 0), StatusCode::kInvalidArgument,
       "distribution.sigma = 0"},
      {DataType::kFloat16, Distribution::Cauchy(-0.0 / 0.0, 1), StatusCode::kInvalidArgument,
       "distribution.median = "},
      {DataType::kFloat32, Distribution::LogNormal(0, 0), StatusCode::kInvalidArgument,
       "distribution.std = 0"},
      {DataType::kFloat32, Distribution::LogNormal(1.0 / 0.0, 1), StatusCode::kInvalidArgument,
       "distribution.mean = inf"},
      {DataType::kUint8, Distribution::LogNormal(0, 1), StatusCode::kUnsupported,
       "dtype = uint8 cannot hold distribution log_normal"},
      {DataType::kFloat32, Distribution::Geometric(1), StatusCode::kInvalidArgument,
       "distribution.p = 1"},
      {DataType::kInt64, Distribution::Geometric(0), StatusCode::kInvalidArgument,
       "distribution.p = 0"},
      {DataType::kFloat32, Distribution::Geometric(1e-12), StatusCode::kInvalidArgument,
       "distribution.p = 1e-12: 1 - p rounds to 1 in float32"},
      {DataType::kUint8, Distribution::Geometric(0.08), StatusCode::kInvalidArgument,
       "distribution.p = 0.08: geometric values reach 275, more than uint8 holds"},
      {DataType::kInt32, Distribution::Geometric(1e-8), StatusCode::kInvalidArgument,
       "distribution.p = 1e-08: 1 - p rounds to 1 in float32"},
      {DataType::kBool, Distribution::Geometric(0.5), StatusCode::kUnsupported,
       "dtype = bool cannot hold distribution geometric"},
  };
  for (const Bad& c : cases) {
    std::vector<uint8_t> buffer(64, 0x5A);
    const std::vector<uint8_t> before = buffer;
    const int64_t sizes[1] = {4};
    TensorDesc desc;
    desc.dtype = c.type;
    desc.rank = 1;
    desc.sizes = sizes;
    FillOptions options;
    options.distribution = c.d;
    PhiloxState in = PhiloxState::FromSeed(1), out = PhiloxState::FromSeed(99);
    const PhiloxState out_before = out;
    const Status s = Fill(desc, buffer.data(), buffer.size(), in, &out, options);
    EXPECT_EQ(s.code(), c.code) << c.fragment << ": " << s.message();
    EXPECT_NE(std::string(s.message()).find(c.fragment), std::string::npos) << s.message();
    EXPECT_EQ(buffer, before) << c.fragment;
    EXPECT_EQ(std::memcmp(&out, &out_before, sizeof(out)), 0) << c.fragment;
  }
}

}  // namespace
}  // namespace randtensor
