// The native fill and the plan every entry point executes (see plan.h).

#include "randtensor/fill.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "src/dispatch.h"
#include "src/half.h"
#include "src/layout.h"
#include "src/plan.h"
#include "src/replay.h"
#include "src/writer.h"

namespace randtensor {
namespace {

constexpr detail::FieldNames kNativeNames = {"rank", "sizes", "strides"};

bool RangesOverlap(uintptr_t a, uint64_t a_bytes, uintptr_t b, uint64_t b_bytes) {
  if (a_bytes == 0 || b_bytes == 0) return false;
  // a and b overlap iff each starts before the other ends; compare distances
  // so that no end address is formed (it could wrap).
  return a <= b ? b - a < a_bytes : a - b < b_bytes;
}

const char* TypeName(DataType type) {
  switch (type) {
    case DataType::kUint32: return "uint32";
    case DataType::kFloat32: return "float32";
    case DataType::kFloat64: return "float64";
    case DataType::kFloat16: return "float16";
    case DataType::kBfloat16: return "bfloat16";
    case DataType::kUint8: return "uint8";
    case DataType::kBool: return "bool";
    case DataType::kInt32: return "int32";
    case DataType::kInt64: return "int64";
  }
  return nullptr;
}

const char* DistributionName(DistributionKind kind) {
  switch (kind) {
    case DistributionKind::kBits: return "bits";
    case DistributionKind::kUniform: return "uniform";
    case DistributionKind::kNormal: return "normal";
    case DistributionKind::kBernoulli: return "bernoulli";
    case DistributionKind::kIntegers: return "integers";
    case DistributionKind::kExponential: return "exponential";
    case DistributionKind::kCauchy: return "cauchy";
    case DistributionKind::kLogNormal: return "log_normal";
    case DistributionKind::kGeometric: return "geometric";
  }
  return nullptr;
}

// The descriptor's own rules: data type and layout.
Status Analyze(const TensorDesc& desc, detail::Layout* layout) {
  const int size = ElementSize(desc.dtype);
  if (size == 0) {
    return Status::Error(StatusCode::kUnsupported, "dtype = %d is not a supported data type",
                         static_cast<int>(desc.dtype));
  }
  return detail::AnalyzeLayout(desc.rank, desc.sizes, desc.strides, size, kNativeNames, layout);
}

Status CannotHold(DataType type, DistributionKind kind, const char* why) {
  return Status::Error(StatusCode::kUnsupported, "dtype = %s cannot hold distribution %s%s",
                       TypeName(type), DistributionName(kind), why);
}

// uniform's flip (an element equal to H becomes L) as an interval of words
// for the kernels (UniformParams::flip_first, flip_count): the element of word
// x, fma(u32(x), R, L) rounded to the output type, never decreases as x grows
// (u32 does not, R > 0, and rounding keeps order), so the words whose element
// is H are consecutive, and two binary searches find them, as BernoulliWords
// finds its threshold. key(t) is the element's value as a float: compared
// as PyTorch's `value == to` compares, so -0 equals +0 (a float16 t that
// rounds to -0 flips where H is 0). std::fma is correctly rounded, the same
// everywhere.
template <class KeyFn>
void UniformFlipWords(float low, float range, float high, const KeyFn& key,
                      detail::UniformParams* p) {
  const auto h = key(high);
  const auto first_word = [&](auto past) {  // the smallest x with past(key), or 2^32
    uint64_t lo = 0, hi = uint64_t{1} << 32;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (past(key(std::fma(detail::UnitFloatOfWord(mid), range, low)))) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  };
  const uint64_t first = first_word([&](decltype(h) k) { return k >= h; });
  const uint64_t end = first_word([&](decltype(h) k) { return k > h; });
  p->flip_first = static_cast<uint32_t>(first);  // 2^32 (no such word): count 0
  p->flip_count = static_cast<uint32_t>(end - first);  // < 2^32: word 0 gives about L < H
}

// uniform(low, high) for float32, float16, bfloat16 (SPEC.md section 8, with
// PyTorch's bounds in the output type for the 16-bit ones).
Status ResolveUniform(DataType type, const Distribution& d, detail::GenerateKind* kind,
                      detail::UniformParams* p) {
  if (!std::isfinite(d.low) || !std::isfinite(d.high) || !(d.low < d.high)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "distribution.low = %g and distribution.high = %g: uniform needs "
                         "finite low < high",
                         d.low, d.high);
  }
  float low = static_cast<float>(d.low), high = static_cast<float>(d.high);
  switch (type) {
    case DataType::kFloat32: *kind = detail::GenerateKind::kUniformFloat32; break;
    case DataType::kFloat16:
      *kind = detail::GenerateKind::kUniformFloat16;
      low = detail::Float16Value(detail::Float16Bits(low));
      high = detail::Float16Value(detail::Float16Bits(high));
      break;
    case DataType::kBfloat16:
      *kind = detail::GenerateKind::kUniformBfloat16;
      low = detail::Bfloat16Value(detail::Bfloat16Bits(low));
      high = detail::Bfloat16Value(detail::Bfloat16Bits(high));
      break;
    case DataType::kFloat64: {
      // In double throughout (two words per element, u53).
      *kind = detail::GenerateKind::kUniformFloat64;
      const double range_d = d.high - d.low;
      if (!std::isfinite(range_d)) {
        return Status::Error(StatusCode::kInvalidArgument,
                             "distribution.low = %g and distribution.high = %g: range %g "
                             "overflows float64",
                             d.low, d.high, range_d);
      }
      p->low_d = d.low;
      p->high_d = d.high;
      p->range_d = range_d;
      // uniform(0, 2^k) as for float32 below, with u53 (k in [-968, 1023]:
      // every value a normal double).
      int k = 0;
      if (d.low == 0 && range_d == d.high && std::frexp(range_d, &k) == 0.5 && k - 1 >= -968 &&
          k - 1 <= 1023) {
        p->unit_scale = true;
        p->scale_mul_d = std::ldexp(1.0, k - 1 - 53);
        p->scale_add_d = std::ldexp(1.0, k - 1 - 54);
      }
      return Status();
    }
    default: return CannotHold(type, d.kind, " (a floating-point type is needed)");
  }
  float range = high - low;
  if (type == DataType::kFloat16) range = detail::Float16Value(detail::Float16Bits(range));
  if (type == DataType::kBfloat16) range = detail::Bfloat16Value(detail::Bfloat16Bits(range));
  if (!(low < high) || !std::isfinite(low) || !std::isfinite(high) || !std::isfinite(range)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "distribution.low = %g and distribution.high = %g become %g and %g in "
                         "%s, range %g: not a finite low < high there",
                         d.low, d.high, static_cast<double>(low), static_cast<double>(high),
                         TypeName(type), static_cast<double>(range));
  }
  p->low_f = low;
  p->range_f = range;
  switch (type) {
    case DataType::kFloat16:
      UniformFlipWords(low, range, high,
                       [](float t) { return detail::Float16Value(detail::Float16Bits(t)); }, p);
      break;
    case DataType::kBfloat16:
      UniformFlipWords(low, range, high,
                       [](float t) { return detail::Bfloat16Value(detail::Bfloat16Bits(t)); }, p);
      break;
    default: UniformFlipWords(low, range, high, [](float t) { return t; }, p); break;
  }
  // uniform(0, 2^k), rand() above all: fma(u, R, 0) = u R exactly and u R =
  // round(float(x) 2^(k-32) + 2^(k-33)) (scaling by a power of two commutes
  // with rounding while every value stays a normal float: k in [-93, 127]),
  // so the kernels make t with one multiply-add, and L = 0 is the flip.
  int k = 0;
  const bool power_of_two = std::frexp(range, &k) == 0.5f;  // range = 2^(k-1)
  if (low == 0 && range == high && power_of_two && k - 1 >= -93 && k - 1 <= 127 &&
      uint64_t{p->flip_first} + p->flip_count == (uint64_t{1} << 32)) {
    p->unit_scale = true;
    p->scale_mul = std::ldexp(1.0f, k - 1 - 32);
    p->scale_add = std::ldexp(1.0f, k - 1 - 33);
  }
  // bfloat16 through AVX512_BF16's pack (UniformParams::bf16_pack), which reads
  // a subnormal float as zero: u is a multiple of 2^-33, R of 2^(ilogb R -
  // 23) and L of 2^(ilogb L - 23), so every exact u R + L is a multiple of
  // the smaller of 2^(ilogb R - 56) and 2^(ilogb L - 23). Where both are at
  // least 2^-126, every t (rounded from such a multiple) and L are 0 or
  // normal, and the pack rounds them as Bfloat16Bits does
  // (tests/pack_bfloat16_test.cc: every normal float).
  if (type == DataType::kBfloat16) {
    p->bf16_pack = detail::CpuHasBfloat16Pack() && std::ilogb(range) - 56 >= -126 &&
                   (low == 0 || std::ilogb(low) - 23 >= -126);
  }
  return Status();
}

Status ResolveBernoulli(DataType type, const Distribution& d, detail::GenerateKind* kind,
                        detail::BernoulliParams* p) {
  if (!(d.p >= 0 && d.p <= 1)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "distribution.p = %g is outside [0, 1]", d.p);
  }
  switch (type) {
    case DataType::kUint8:
    case DataType::kBool: *kind = detail::GenerateKind::kBernoulliUint8; break;
    case DataType::kInt32: *kind = detail::GenerateKind::kBernoulliInt32; break;
    case DataType::kFloat32: *kind = detail::GenerateKind::kBernoulliFloat32; break;
    case DataType::kFloat16: *kind = detail::GenerateKind::kBernoulliFloat16; break;
    case DataType::kBfloat16: *kind = detail::GenerateKind::kBernoulliBfloat16; break;
    case DataType::kFloat64: *kind = detail::GenerateKind::kBernoulliFloat64; break;
    default: return CannotHold(type, d.kind, " yet");
  }
  p->p_words = detail::BernoulliWords(static_cast<float>(d.p));
  p->p_d = d.p;
  p->one = type == DataType::kFloat32   ? detail::FloatBits(1.0f)
           : type == DataType::kFloat16  ? detail::Float16Bits(1.0f)
           : type == DataType::kBfloat16 ? detail::Bfloat16Bits(1.0f)
                                         : 1u;
  return Status();
}

// normal(mean, std) for float32, float16, bfloat16: Box-Muller in float
// (SPEC.md section 8), then fma(z, std, mean) in float, rounded once to the
// output type.
Status ResolveNormal(DataType type, const Distribution& d, detail::GenerateKind* kind,
                     detail::NormalParams* p) {
  if (!std::isfinite(d.mean) || !std::isfinite(d.std) || !(d.std >= 0)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "distribution.mean = %g and distribution.std = %g: normal needs a "
                         "finite mean and a finite std >= 0",
                         d.mean, d.std);
  }
  switch (type) {
    case DataType::kFloat32: *kind = detail::GenerateKind::kNormalFloat32; break;
    case DataType::kFloat16: *kind = detail::GenerateKind::kNormalFloat16; break;
    case DataType::kBfloat16: *kind = detail::GenerateKind::kNormalBfloat16; break;
    case DataType::kFloat64:
      *kind = detail::GenerateKind::kNormalFloat64;  // double Box-Muller, four words a pair
      p->mean_d = d.mean;
      p->std_d = d.std;
      return Status();
    default: return CannotHold(type, d.kind, " (a floating-point type is needed)");
  }
  p->mean_f = static_cast<float>(d.mean);
  p->std_f = static_cast<float>(d.std);
  if (!std::isfinite(p->mean_f) || !std::isfinite(p->std_f)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "distribution.mean = %g and distribution.std = %g overflow float32",
                         d.mean, d.std);
  }
  return Status();
}

// exponential, cauchy, log_normal, geometric (docs/SPEC.md section 8.1):
// PyTorch casts each parameter to the accumulation type, float for every
// output type but float64.
double InAccumulationType(DataType type, double x) {
  return type == DataType::kFloat64 ? x : static_cast<double>(static_cast<float>(x));
}

// The floating output types' kinds of a transform, in the list's order
// float32, float16, bfloat16, float64.
Status FloatKind(DataType type, DistributionKind dist, const detail::GenerateKind (&kinds)[4],
                 detail::GenerateKind* kind) {
  switch (type) {
    case DataType::kFloat32: *kind = kinds[0]; return Status();
    case DataType::kFloat16: *kind = kinds[1]; return Status();
    case DataType::kBfloat16: *kind = kinds[2]; return Status();
    case DataType::kFloat64: *kind = kinds[3]; return Status();
    default: return CannotHold(type, dist, " (a floating-point type is needed)");
  }
}

Status ResolveExponential(DataType type, const Distribution& d, detail::GenerateKind* kind,
                          detail::ExponentialParams* p) {
  using K = detail::GenerateKind;
  const double lambda = InAccumulationType(type, d.lambda);
  if (!(d.lambda > 0) || lambda == 0) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "distribution.lambda = %g: exponential needs lambda > 0%s", d.lambda,
                         d.lambda > 0 ? " (it rounds to 0 in float32)" : "");
  }
  p->lambda = lambda;  // +inf allowed: every value +0
  return FloatKind(type, d.kind,
                   {K::kExponentialFloat32, K::kExponentialFloat16, K::kExponentialBfloat16,
                    K::kExponentialFloat64},
                   kind);
}

Status ResolveCauchy(DataType type, const Distribution& d, detail::GenerateKind* kind,
                     detail::CauchyParams* p) {
  using K = detail::GenerateKind;
  if (std::isnan(d.median)) {
    return Status::Error(StatusCode::kInvalidArgument, "distribution.median = %g is not a number",
                         d.median);
  }
  p->median = InAccumulationType(type, d.median);
  p->sigma = InAccumulationType(type, d.sigma);
  if (!(d.sigma > 0) || p->sigma == 0) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "distribution.sigma = %g: cauchy needs sigma > 0%s", d.sigma,
                         d.sigma > 0 ? " (it rounds to 0 in float32)" : "");
  }
  return FloatKind(type, d.kind,
                   {K::kCauchyFloat32, K::kCauchyFloat16, K::kCauchyBfloat16, K::kCauchyFloat64},
                   kind);
}

// exp of normal(mean, std): the normal's parameters and checks (and std > 0,
// PyTorch's), its kind's counterpart.
Status ResolveLogNormal(DataType type, const Distribution& d, detail::GenerateKind* kind,
                        detail::NormalParams* p) {
  using K = detail::GenerateKind;
  if (!(d.std > 0)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "distribution.std = %g: log_normal needs std > 0", d.std);
  }
  detail::GenerateKind normal;
  const Status status = ResolveNormal(type, d, &normal, p);
  if (!status.ok()) return status;
  return FloatKind(type, d.kind,
                   {K::kLogNormalFloat32, K::kLogNormalFloat16, K::kLogNormalBfloat16,
                    K::kLogNormalFloat64},
                   kind);
}

Status ResolveGeometric(DataType type, const Distribution& d, detail::GenerateKind* kind,
                        detail::GeometricParams* p) {
  using K = detail::GenerateKind;
  if (!(d.p > 0 && d.p < 1)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "distribution.p = %g: geometric needs 0 < p < 1", d.p);
  }
  // q = 1 - p in the accumulation type (float for the integer types too).
  const DataType acc = type == DataType::kFloat64 ? type : DataType::kFloat32;
  // q = 0 (p rounds to 1) is allowed: log q = -inf, every value a zero.
  p->q = InAccumulationType(acc, 1 - InAccumulationType(acc, d.p));
  if (p->q == 1) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "distribution.p = %g: 1 - p rounds to 1 in %s (log(1 - p) = 0)", d.p,
                         TypeName(acc));
  }
  double top = 0;
  switch (type) {
    case DataType::kUint8: *kind = K::kGeometricUint8, top = 255; break;
    case DataType::kInt32: *kind = K::kGeometricInt32, top = 2147483647.0; break;
    case DataType::kInt64: *kind = K::kGeometricInt64, top = 9223372036854775807.0; break;
    default:
      return FloatKind(type, d.kind,
                       {K::kGeometricFloat32, K::kGeometricFloat16, K::kGeometricBfloat16,
                        K::kGeometricFloat64},
                       kind);
  }
  // Every value must fit: the largest is that of u = u32(0) = 2^-33,
  // ceil(33 log 2 / -log q) rounded to float; the margin covers the
  // kernels' rounding (SPEC.md 8.1: within 2^-50 of the ratio) and this
  // log's.
  const double largest =
      p->q == 0 ? 0
                : static_cast<float>(std::ceil(33 * std::log(2.0) / -std::log(p->q) *
                                               (1 + 0x1p-40)));
  if (!(largest <= top)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "distribution.p = %g: geometric values reach %.0f, more than %s holds",
                         d.p, largest, TypeName(type));
  }
  return Status();
}

// integers(low, high): one word per element while high - low < 2^28, the
// path public PyTorch takes for every type (SPEC.md section 8 said 2^32;
// the GPU follows PyTorch: tests/reference/README.md).
Status ResolveIntegers(DataType type, const Distribution& d, detail::GenerateKind* kind,
                       detail::IntegersParams* p) {
  if (!(d.int_low < d.int_high)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "distribution.int_low = %lld is not below distribution.int_high = %lld",
                         static_cast<long long>(d.int_low), static_cast<long long>(d.int_high));
  }
  __extension__ typedef __int128 i128;
  i128 min = 0, max = 0;  // the values the type holds exactly
  switch (type) {
    case DataType::kInt32: *kind = detail::GenerateKind::kIntegersInt32; min = INT32_MIN, max = INT32_MAX; break;
    case DataType::kUint32: *kind = detail::GenerateKind::kIntegersInt32; min = 0, max = UINT32_MAX; break;
    case DataType::kInt64: *kind = detail::GenerateKind::kIntegersInt64; min = INT64_MIN, max = INT64_MAX; break;
    case DataType::kFloat32: *kind = detail::GenerateKind::kIntegersFloat32; min = -(i128{1} << 24), max = i128{1} << 24; break;
    case DataType::kFloat64: *kind = detail::GenerateKind::kIntegersFloat64; min = -(i128{1} << 53), max = i128{1} << 53; break;
    default: return CannotHold(type, d.kind, " yet");
  }
  if (d.int_low < min || static_cast<i128>(d.int_high) - 1 > max) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "distribution.int_low = %lld, int_high = %lld: values outside what %s "
                         "holds exactly",
                         static_cast<long long>(d.int_low), static_cast<long long>(d.int_high),
                         TypeName(type));
  }
  const i128 range = static_cast<i128>(d.int_high) - d.int_low;
  p->low = d.int_low;
  if (range >= (i128{1} << 28)) {
    // Two words per element: (W[2i] << 32 | W[2i + 1]) mod range.
    switch (*kind) {
      case detail::GenerateKind::kIntegersInt32: *kind = detail::GenerateKind::kIntegersWideInt32; break;
      case detail::GenerateKind::kIntegersInt64: *kind = detail::GenerateKind::kIntegersWideInt64; break;
      case detail::GenerateKind::kIntegersFloat64: *kind = detail::GenerateKind::kIntegersWideFloat64; break;
      default: return CannotHold(type, d.kind, " with a range of 2^28 or more");  // float32: < 2^25
    }
    p->range64 = static_cast<uint64_t>(range);
    return Status();
  }
  detail::SetIntegerRange(p, static_cast<uint32_t>(range));
  return Status();
}

}  // namespace

namespace detail {
namespace {

Status Resolve(DataType type, const Distribution& d, GenerateKind* kind, KindParams* p) {
  if (TypeName(type) == nullptr) {
    return Status::Error(StatusCode::kUnsupported, "dtype = %d is not a supported data type",
                         static_cast<int>(type));
  }
  switch (d.kind) {
    case DistributionKind::kBits:
      if (type != DataType::kUint32) return CannotHold(type, d.kind, " (bits are uint32)");
      *kind = detail::GenerateKind::kBitsUint32;
      return Status();
    case DistributionKind::kUniform:
      return ResolveUniform(type, d, kind, &p->emplace<UniformParams>());
    case DistributionKind::kBernoulli:
      return ResolveBernoulli(type, d, kind, &p->emplace<BernoulliParams>());
    case DistributionKind::kIntegers:
      return ResolveIntegers(type, d, kind, &p->emplace<IntegersParams>());
    case DistributionKind::kNormal:
      return ResolveNormal(type, d, kind, &p->emplace<NormalParams>());
    case DistributionKind::kExponential:
      return ResolveExponential(type, d, kind, &p->emplace<ExponentialParams>());
    case DistributionKind::kCauchy:
      return ResolveCauchy(type, d, kind, &p->emplace<CauchyParams>());
    case DistributionKind::kLogNormal:
      return ResolveLogNormal(type, d, kind, &p->emplace<NormalParams>());
    case DistributionKind::kGeometric:
      return ResolveGeometric(type, d, kind, &p->emplace<GeometricParams>());
  }
  return Status::Error(StatusCode::kInvalidArgument, "distribution.kind = %d is not a distribution",
                       static_cast<int>(d.kind));
}

// Whether a and b are the same request, bit for bit (NaN and -0 included).
bool SameRequest(const Distribution& a, const Distribution& b) {
  const auto same = [](double x, double y) { return std::memcmp(&x, &y, sizeof(x)) == 0; };
  return a.kind == b.kind && same(a.low, b.low) && same(a.high, b.high) &&
         same(a.mean, b.mean) && same(a.std, b.std) && same(a.p, b.p) &&
         a.int_low == b.int_low && a.int_high == b.int_high && same(a.lambda, b.lambda) &&
         same(a.median, b.median) && same(a.sigma, b.sigma);
}

}  // namespace

Status ResolveDistribution(DataType type, const Distribution& d, GenerateKind* kind,
                           const KindParams** params) noexcept {
  if (d.kind == DistributionKind::kBits) {
    *params = &kNoParams;
    KindParams unused;
    return Resolve(type, d, kind, &unused);
  }
  // Resolving costs more than a small fill (uniform's flip and bernoulli's
  // threshold are binary searches of 32 correctly rounded steps), and callers
  // repeat their requests: each thread keeps its last valid answer, a pure
  // function of (type, d), and hands out a pointer to it (valid until this
  // thread's next call: a fill resolves, then executes, then returns).
  struct Last {
    bool valid = false;
    DataType type = DataType::kUint32;
    Distribution d;
    GenerateKind kind = GenerateKind::kBitsUint32;
    KindParams params;
  };
  thread_local Last last_of_thread;
  Last& last = last_of_thread;  // one TLS lookup (__tls_get_addr in a shared library)
  if (last.valid && last.type == type && SameRequest(last.d, d)) {
    *kind = last.kind;
    *params = &last.params;
    return Status();
  }
  KindParams fresh;
  Status status = Resolve(type, d, kind, &fresh);
  if (!status.ok()) return status;
  last = {true, type, d, *kind, fresh};
  *params = &last.params;
  return status;
}
}  // namespace detail

int ElementSize(DataType type) noexcept {
  switch (type) {
    case DataType::kUint8:
    case DataType::kBool: return 1;
    case DataType::kFloat16:
    case DataType::kBfloat16: return 2;
    case DataType::kUint32:
    case DataType::kFloat32:
    case DataType::kInt32: return 4;
    case DataType::kFloat64:
    case DataType::kInt64: return 8;
  }
  return 0;
}

namespace detail {

__extension__ typedef __int128 i128;  // GCC and Clang: bounds without overflow

Status PlanFill(const Layout& layout, GenerateKind kind, const KindParams& params, void* data,
                uint64_t buffer_bytes, uint64_t byte_offset, const PhiloxState* out_state,
                const FillOptions& options, Plan* plan) noexcept {
  const int element_size = ElementBytes(kind);
  const uintptr_t addr = reinterpret_cast<uintptr_t>(data);
  if (layout.count != 0) {
    if (data == nullptr) {
      return Status::Error(StatusCode::kInvalidArgument, "data is null for %llu elements",
                           static_cast<unsigned long long>(layout.count));
    }
    // Element sizes are powers of two: masks, not divisions (this is every
    // call's path).
    if ((addr & static_cast<uintptr_t>(element_size - 1)) != 0) {
      return Status::Error(StatusCode::kMisaligned,
                           "data = %p is not aligned to the element size (%d bytes)", data,
                           element_size);
    }
    if ((byte_offset & static_cast<uint64_t>(element_size - 1)) != 0) {
      return Status::Error(StatusCode::kMisaligned,
                           "byte_offset = %llu is not a multiple of the element size (%d bytes)",
                           static_cast<unsigned long long>(byte_offset), element_size);
    }
    // Every element inside [data, data + buffer_bytes): the lowest at or
    // after the start, the highest before the end. 128-bit: no wrap.
    const i128 first = static_cast<i128>(byte_offset) + static_cast<i128>(layout.low) * element_size;
    const i128 end =
        static_cast<i128>(byte_offset) + (static_cast<i128>(layout.high) + 1) * element_size;
    if (first < 0) {
      return Status::Error(StatusCode::kBufferTooSmall,
                           "byte_offset = %llu: the strides reach %lld elements before element "
                           "(0, ..., 0), %lld bytes before data = %p, the buffer's start (with "
                           "negative strides, byte_offset is where element (0, ..., 0) lies)",
                           static_cast<unsigned long long>(byte_offset),
                           static_cast<long long>(-layout.low), static_cast<long long>(-first),
                           data);
    }
    if (end > static_cast<i128>(buffer_bytes)) {
      return Status::Error(StatusCode::kBufferTooSmall,
                           "buffer_bytes = %llu is less than the %llu bytes the layout spans%s",
                           static_cast<unsigned long long>(buffer_bytes),
                           static_cast<unsigned long long>(end),
                           byte_offset != 0 ? " from data (byte_offset included)" : "");
    }
    if (buffer_bytes - 1 > UINTPTR_MAX - addr) {
      return Status::Error(StatusCode::kOverflow,
                           "buffer_bytes = %llu from data = %p runs past the end of the address "
                           "space",
                           static_cast<unsigned long long>(buffer_bytes), data);
    }
  }
  if (options.element_offset > UINT64_MAX - layout.count) {
    return Status::Error(StatusCode::kOverflow,
                         "element_offset = %llu plus %llu elements overflows 64 bits",
                         static_cast<unsigned long long>(options.element_offset),
                         static_cast<unsigned long long>(layout.count));
  }
  if (WordsPerElement(kind) == 2 && options.element_offset + layout.count > UINT64_MAX / 2) {
    return Status::Error(StatusCode::kOverflow,
                         "element_offset = %llu plus %llu elements of two stream words each "
                         "overflows 64-bit word indices",
                         static_cast<unsigned long long>(options.element_offset),
                         static_cast<unsigned long long>(layout.count));
  }
  bool nontemporal = false;
  switch (options.stores) {
    case StoreMode::kAuto:
      // The writer chooses where the output outgrows the caches; the
      // threshold rule stands for the GPU-order replay.
      nontemporal = LargerThanCaches(layout.count * element_size);
      plan->choose_stores = nontemporal;
      break;
    case StoreMode::kRegular: nontemporal = false; break;
    case StoreMode::kStreaming: nontemporal = true; break;
    default:
      return Status::Error(StatusCode::kInvalidArgument, "stores = %d is not a StoreMode",
                           static_cast<int>(options.stores));
  }
  if (out_state != nullptr && data != nullptr &&
      RangesOverlap(addr, buffer_bytes, reinterpret_cast<uintptr_t>(out_state),
                    sizeof(PhiloxState))) {
    return Status::Error(StatusCode::kOverlap,
                         "out_state = %p overlaps the output buffer (%p, %llu bytes)",
                         static_cast<const void*>(out_state), data,
                         static_cast<unsigned long long>(buffer_bytes));
  }
  const KernelTable* kernels = nullptr;
  // Words of the fill (PlanFill checked they fit 64 bits).
  Status status = ActiveKernels(&kernels, layout.count * WordsPerElement(kind));
  if (!status.ok()) return status;

  plan->kind = kind;
  plan->params = &params;
  plan->layout = &layout;
  plan->stream_base = options.element_offset;
  plan->stream_end = options.element_offset + layout.count;
  plan->origin = static_cast<char*>(data) + byte_offset;
  plan->kernels = kernels;
  plan->nontemporal = nontemporal;
  plan->threads = options.threads != 0 ? options.threads : DefaultThreads();
  plan->parallel_for = options.parallel_for;
  plan->task_elements = options.task_elements;
  return PlanReplay(layout, kind, options, plan);
}

void ExecutePlan(const Plan& plan, const PhiloxState& in_state, PhiloxState* out_state,
                 FillInfo* info) noexcept {
  const PhiloxState state = in_state;  // out_state may be the same memory
  FillInfo done;
  if (plan.order != ElementOrder::kStream) {
    if (plan.layout->count != 0) ReplayTensor(plan, state, &done);
    if (info != nullptr) *info = done;
    // Every thread drew `calls` blocks: the generator's offset / 4 moves so.
    if (out_state != nullptr) *out_state = philox::AdvanceBlocks(state, plan.calls);
    return;
  }
  if (plan.layout->count != 0) WriteTensor(plan, state, &done);
  if (info != nullptr) *info = done;
  if (out_state != nullptr) {
    // Words per element w: the fill owns stream words up to w * stream_end
    // (which fits: PlanFill checked), so the counter moves ceil(w * end / 4).
    *out_state = philox::Advance(state, plan.stream_end * WordsPerElement(plan.kind));
  }
}

}  // namespace detail

Status MinBufferBytes(const TensorDesc& desc, uint64_t* bytes) noexcept {
  if (bytes == nullptr) return Status::Error(StatusCode::kInvalidArgument, "bytes is null");
  detail::Layout layout;
  Status status = Analyze(desc, &layout);
  if (status.ok()) *bytes = layout.min_bytes;
  return status;
}

namespace {

// A region of a global tensor (region.h): the global tensor's row-major
// strides become the stream strides, the region's first element its stream
// base, and the global element count the fill's extent (the output state).
struct RegionMap {
  uint64_t stream_strides[kMaxRank];
  uint64_t base = 0;          // stream index of the region's element (0, ..., 0)
  uint64_t global_count = 0;  // elements of the global tensor
};

Status ResolveRegion(const TensorDesc& desc, const Region& r, RegionMap* map) {
  __extension__ typedef unsigned __int128 u128;
  if (r.rank != desc.rank) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "region.rank = %d differs from rank = %d (the region's sizes are "
                         "TensorDesc::sizes)",
                         r.rank, desc.rank);
  }
  if (r.rank > 0 && (r.global_sizes == nullptr || r.start == nullptr || desc.sizes == nullptr)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "region.global_sizes, region.start and sizes must be given for rank %d",
                         r.rank);
  }
  if (r.rank < 0 || r.rank > kMaxRank) return Status();  // AnalyzeLayout names the rank
  u128 count = 1;
  // An empty global tensor (a zero size anywhere) has no elements to count,
  // however large its other sizes: decided before the overflow check.
  bool empty = false;
  for (int d = 0; d < r.rank; ++d) empty |= r.global_sizes[d] == 0;
  for (int d = r.rank - 1; d >= 0; --d) {
    const int64_t g = r.global_sizes[d], s = r.start[d], n = desc.sizes[d];
    if (g < 0 || s < 0 || n < 0 || s > g || n > g - s) {
      return Status::Error(StatusCode::kInvalidArgument,
                           "region.start[%d] = %lld with sizes[%d] = %lld is outside "
                           "region.global_sizes[%d] = %lld",
                           d, static_cast<long long>(s), d, static_cast<long long>(n), d,
                           static_cast<long long>(g));
    }
    map->stream_strides[d] = static_cast<uint64_t>(count);
    if (!empty) count *= static_cast<u128>(g);
    if (count > static_cast<u128>(INT64_MAX) && !empty) {
      return Status::Error(StatusCode::kOverflow,
                           "region.global_sizes[%d] = %lld makes the global element count "
                           "overflow 63 bits",
                           d, static_cast<long long>(g));
    }
  }
  map->global_count = empty ? 0 : static_cast<uint64_t>(count);
  for (int d = 0; d < r.rank && !empty; ++d) {
    map->base += static_cast<uint64_t>(r.start[d]) * map->stream_strides[d];  // < global count
  }
  return Status();
}

// A packed 1-D fill of at most this many stream words runs as one kernel
// call on the caller (writer.cc runs such a fill inline anyway); planning it
// would cost more than generating it.
constexpr uint64_t kDirectFillWords = 4096;

// Such a fill with every argument plainly valid: the kernel directly,
// without a layout or a plan. Returns false, having written nothing, for
// anything else, errors included: the planned path then reports them.
bool DirectFill(const TensorDesc& desc, void* data, uint64_t buffer_bytes,
                const PhiloxState& state, PhiloxState* out_state,
                const FillOptions& options) noexcept {
  if (desc.rank != 1 || desc.strides != nullptr || desc.byte_offset != 0 ||
      desc.sizes == nullptr || desc.sizes[0] <= 0 || data == nullptr ||
      options.region != nullptr || options.order != ElementOrder::kStream ||
      options.stores != StoreMode::kAuto || options.info != nullptr ||
      options.element_offset != 0 || options.task_elements != 0) {
    return false;
  }
  const uint64_t count = static_cast<uint64_t>(desc.sizes[0]);
  if (count > kDirectFillWords) return false;
  detail::GenerateKind kind;
  const detail::KindParams* params = nullptr;
  if (!detail::ResolveDistribution(desc.dtype, options.distribution, &kind, &params).ok()) {
    return false;
  }
  const uint64_t size = static_cast<uint64_t>(detail::ElementBytes(kind));
  const uint64_t words = count * static_cast<uint64_t>(detail::WordsPerElement(kind));
  const uintptr_t addr = reinterpret_cast<uintptr_t>(data);
  if (words > kDirectFillWords || (addr & (size - 1)) != 0 || buffer_bytes < count * size ||
      buffer_bytes - 1 > UINTPTR_MAX - addr ||
      (out_state != nullptr &&
       RangesOverlap(addr, buffer_bytes, reinterpret_cast<uintptr_t>(out_state),
                     sizeof(PhiloxState)))) {
    return false;
  }
  const detail::KernelTable* kernels = nullptr;
  if (!detail::ActiveKernels(&kernels, words).ok()) return false;
  const detail::KernelArgs args{state.counter(), detail::RoundKeys(state.key()), *params};
  kernels->Generate(kind).contiguous(args, 0, count, data, /*nontemporal=*/false);
  if (out_state != nullptr) *out_state = philox::Advance(state, words);
  return true;
}

}  // namespace

Status Fill(const TensorDesc& desc, void* data, uint64_t buffer_bytes,
            const PhiloxState& in_state, PhiloxState* out_state,
            const FillOptions& options) noexcept {
  const PhiloxState state = in_state;  // read first: out_state may be the same memory
  if (DirectFill(desc, data, buffer_bytes, state, out_state, options)) return Status();
  detail::GenerateKind kind;
  const detail::KindParams* params = nullptr;
  detail::Layout layout;
  RegionMap region;
  Status status;
  if (options.region != nullptr) status = ResolveRegion(desc, *options.region, &region);
  if (status.ok()) {
    const int size = ElementSize(desc.dtype);
    status = size == 0 ? Analyze(desc, &layout)  // names the bad dtype
                       : detail::AnalyzeLayout(desc.rank, desc.sizes, desc.strides, size,
                                               kNativeNames, &layout,
                                               options.region != nullptr ? region.stream_strides
                                                                         : nullptr);
  }
  if (status.ok()) {
    status = detail::ResolveDistribution(desc.dtype, options.distribution, &kind, &params);
  }
  if (!status.ok()) return status;
  detail::Plan plan;
  status = detail::PlanFill(layout, kind, *params, data, buffer_bytes, desc.byte_offset,
                            out_state, options, &plan);
  if (!status.ok()) return status;
  if (options.region != nullptr) {
    // The stream from the region's first element; the state the global fill's.
    const uint64_t offset = options.element_offset;
    const uint64_t limit = detail::WordsPerElement(kind) == 2 ? UINT64_MAX / 2 : UINT64_MAX;
    if (region.global_count > limit - offset) {
      return Status::Error(StatusCode::kOverflow,
                           "element_offset = %llu plus the global tensor's %llu elements "
                           "overflows 64-bit stream indices",
                           static_cast<unsigned long long>(offset),
                           static_cast<unsigned long long>(region.global_count));
    }
    plan.stream_base = offset + region.base;
    plan.stream_end = offset + region.global_count;
  }
  detail::ExecutePlan(plan, state, out_state, options.info);
  return Status();
}

}  // namespace randtensor
