// PyTorch's CPU random operators on randtensor: the kernels, and the
// registration that install() adds to PyTorch's dispatcher and uninstall()
// removes.
//
// Each operator goes through ATen's own argument checks (the templates of
// ATen/native/DistributionTemplates.h, which PyTorch's CPU and CUDA kernels
// share), so PyTorch's errors, bounds and edge cases stay PyTorch's; only the
// values change: PyTorch CUDA's formulas (SPEC.md section 8 and
// docs/torch.md) on randtensor's Philox stream.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/EmptyTensor.h>
#include <ATen/Parallel.h>
#include <ATen/native/DistributionTemplates.h>
#include <ATen/ops/_sample_dirichlet_native.h>
#include <ATen/ops/_standard_gamma_native.h>
#include <ATen/ops/cauchy_native.h>
#include <ATen/ops/exponential_native.h>
#include <ATen/ops/log_normal_native.h>
#include <ATen/ops/normal_native.h>
#include <ATen/ops/uniform_native.h>
#include <ATen/ops/dropout_native.h>
#include <ATen/ops/native_dropout_native.h>
#include <torch/library.h>
#include <torch/version.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>

#include "draw.h"
#include "first_touch.h"
#include "randtensor/philox.h"
#include "stream_position.h"

namespace randtensor_torch {
namespace {

using randtensor::Distribution;
using randtensor::ElementOrder;
using Gen = c10::optional<at::Generator>;

bool TorchCudaOrder() { return CurrentSettings().order == ElementOrder::kTorchCuda; }

// The type PyTorch CUDA computes a transform in: float for float, half,
// bfloat16 and the integer types; double for double (at::acc_type, and
// DiscreteDistributionType for geometric_).
template <typename scalar_t>
using AccT = std::conditional_t<std::is_same<scalar_t, double>::value, double, float>;

at::ScalarType AccType(at::ScalarType type) {
  return type == at::kDouble ? at::kDouble : at::kFloat;
}

// cuRAND's uniform u in (0, 1] of every element, in `type` (float: u32 of
// one word; double: u53 of two): the library's uniform(0, 1) is exactly u
// except that PyTorch's flip turned u == 1 into 0, which is undone here.
at::Tensor CurandUniform(const char* op, const at::Tensor& like, at::ScalarType type,
                         at::CPUGeneratorImpl* gen) {
  at::Tensor u = at::empty_like(like, like.options().dtype(type));
  Draw(op, u, Distribution::Uniform(0.0, 1.0), gen);
  return u.masked_fill_(u == 0, 1.0);
}

// ---------------------------------------------------------------- uniform

void DrawUniform(const at::Tensor& self, double from, double to, const Gen& generator) {
  auto* gen = CpuGenerator(generator);
  if (from == to) {  // PyTorch still draws (range 0): same words, one value
    Draw("uniform_", self, Distribution::Uniform(0.0, 1.0), gen);
    self.fill_(from);
    return;
  }
  Draw("uniform_", self, Distribution::Uniform(from, to), gen);
}

template <typename RNG>
struct UniformKernel {
  void operator()(at::TensorIteratorBase& iter, double from, double to, Gen generator) {
    DrawUniform(iter.tensor(0), from, to, generator);
  }
};

// uniform_impl_'s bounds checks, word for word, for the fast path below.
template <typename scalar_t>
void CheckUniformBounds(const at::Tensor& self, double& from, double& to) {
  const auto dtype = self.dtype();
  const auto min = static_cast<double>(std::numeric_limits<scalar_t>::lowest());
  const auto max = static_cast<double>(std::numeric_limits<scalar_t>::max());
  TORCH_CHECK(from >= min && from <= max, "from", " is out of bounds for ", dtype);
  TORCH_CHECK(to >= min && to <= max, "to", " is out of bounds for ", dtype);
  TORCH_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from,
              " > to=", to);
  TORCH_CHECK((to - from) <= std::numeric_limits<scalar_t>::max(),
              "uniform_ expects to-from <= std::numeric_limits<", toString(self.scalar_type()),
              ">::max(), but found to=", to, " and from=", from,
              " which result in to-from to exceed the limit");
  from = std::min(std::max(from, min), max);
  to = std::max(std::min(to, max), min);
}

at::Tensor& Uniform_(at::Tensor& self, double from, double to, Gen gen) {
  if (!self.is_floating_point() && !self.is_complex()) {
    return at::native::uniform_(self, from, to, gen);
  }
  // A contiguous real tensor needs none of the TensorIterator that
  // uniform_impl_ builds (no overlap is possible): it costs more than
  // drawing a small tensor (nn.init and torch.rand of small shapes).
  // (A switch, not the dispatch macro, which records a profiler event per
  // call; other floating types take uniform_impl_ and its error.)
  if (self.is_contiguous()) {
    switch (self.scalar_type()) {
      case at::kFloat: CheckUniformBounds<float>(self, from, to); break;
      case at::kDouble: CheckUniformBounds<double>(self, from, to); break;
      case at::kHalf: CheckUniformBounds<at::Half>(self, from, to); break;
      case at::kBFloat16: CheckUniformBounds<at::BFloat16>(self, from, to); break;
      default:
        return at::native::templates::uniform_impl_<UniformKernel, at::CPUGeneratorImpl>(
            self, from, to, gen);
    }
    DrawUniform(self, from, to, gen);
    return self;
  }
  return at::native::templates::uniform_impl_<UniformKernel, at::CPUGeneratorImpl>(self, from, to,
                                                                                    gen);
}

// ----------------------------------------------------------------- normal

template <typename RNG>
struct NormalKernel {
  void operator()(const at::Tensor& self, double mean, double std, Gen generator) {
    // PyTorch's error for a type it has no normal kernel for (normal(mean,
    // std) with integer tensors); the dispatch macro also records a profiler
    // event, which a small draw should not pay for.
    if (!at::isFloatingType(self.scalar_type())) {
      AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, self.scalar_type(),
                                      "normal_kernel_cpu", [&] {});
    }
    Draw("normal_", self, Distribution::Normal(mean, std), CpuGenerator(generator));
  }
};

using at::native::templates::normal_impl;
using at::native::templates::normal_impl_;
using at::native::templates::normal_out_impl;
using Cpu = at::CPUGeneratorImpl;

at::Tensor& Normal_(at::Tensor& self, double mean, double std, Gen gen) {
  // Types PyTorch CUDA has no normal_ for: PyTorch's CPU kernel, its errors.
  if (!self.is_floating_point() && !self.is_complex()) {
    return at::native::normal_(self, mean, std, gen);
  }
  return normal_impl_<NormalKernel, Cpu>(self, mean, std, gen);
}
at::Tensor NormalTF(const at::Tensor& mean, double std, Gen gen) {
  return normal_impl<NormalKernel, Cpu>(mean, std, gen);
}
at::Tensor& NormalTFOut(const at::Tensor& mean, double std, Gen gen, at::Tensor& out) {
  return normal_out_impl<NormalKernel, Cpu>(out, mean, std, gen);
}
at::Tensor NormalFT(double mean, const at::Tensor& std, Gen gen) {
  return normal_impl<NormalKernel, Cpu>(mean, std, gen);
}
at::Tensor& NormalFTOut(double mean, const at::Tensor& std, Gen gen, at::Tensor& out) {
  return normal_out_impl<NormalKernel, Cpu>(out, mean, std, gen);
}
at::Tensor NormalTT(const at::Tensor& mean, const at::Tensor& std, Gen gen) {
  return normal_impl<NormalKernel, Cpu>(mean, std, gen);
}
at::Tensor& NormalTTOut(const at::Tensor& mean, const at::Tensor& std, Gen gen, at::Tensor& out) {
  return normal_out_impl<NormalKernel, Cpu>(out, mean, std, gen);
}

// -------------------------------------------------------------- factories
// torch.rand and torch.randn of CPU tensors: PyTorch's composite kernels
// (at::empty, then uniform_(0, 1) or normal_(0, 1)), with the draw made here
// rather than through a second trip into the dispatcher, which costs more
// than drawing 16 elements. Types and layouts the draw does not serve go
// through the dispatcher as in PyTorch, with its errors.

#if TORCH_VERSION_MAJOR >= 2
using Sizes = c10::SymIntArrayRef;
at::Tensor EmptyOf(Sizes size, const at::TensorOptions& options) {
  return at::empty_symint(size, options);
}
at::IntArrayRef IntsOf(Sizes size) { return C10_AS_INTARRAYREF_SLOW(size); }
#else
using Sizes = at::IntArrayRef;
at::Tensor EmptyOf(Sizes size, const at::TensorOptions& options) {
  return at::empty(size, options);
}
at::IntArrayRef IntsOf(Sizes size) { return size; }
#endif

// A floating type the library writes.
bool DrawnType(at::ScalarType type) {
  randtensor::DataType library_type;
  return at::isFloatingType(type) && LibraryType(type, &library_type);
}

// A strided tensor of such a type.
bool DrawnHere(const at::Tensor& t) {
  return t.layout() == at::kStrided && DrawnType(t.scalar_type());
}

// The factory's output. A plain strided CPU tensor of a type drawn here
// comes from empty's CPU kernel itself (at::detail::empty_cpu, with its size
// checks and errors), without a trip through the dispatcher, which costs a
// 16-element call more than its draw; the draw overwrites every element, so
// deterministic mode's fill of new memory has nothing to add. Only
// profiles differ: they show no aten::empty under aten::rand/randn. Pinned
// memory and other layouts take at::empty, as PyTorch's composite does.
at::Tensor EmptyFactory(Sizes size, c10::optional<at::ScalarType> dtype,
                        c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                        c10::optional<bool> pin_memory) {
  const at::ScalarType type = dtype.value_or(c10::typeMetaToScalarType(at::get_default_dtype()));
  if (layout.value_or(at::kStrided) == at::kStrided && !pin_memory.value_or(false) &&
      DrawnType(type)) {
    return at::detail::empty_cpu(IntsOf(size), type);
  }
  return EmptyOf(size, at::TensorOptions().dtype(dtype).layout(layout).device(device).pinned_memory(
                           pin_memory));
}

at::Tensor RandGenerator(Sizes size, Gen gen, c10::optional<at::ScalarType> dtype,
                         c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                         c10::optional<bool> pin_memory) {
  at::Tensor out = EmptyFactory(size, dtype, layout, device, pin_memory);
  if (!DrawnHere(out)) return out.uniform_(0, 1, gen);
  DrawUniform(out, 0.0, 1.0, gen);
  return out;
}
at::Tensor Rand(Sizes size, c10::optional<at::ScalarType> dtype, c10::optional<at::Layout> layout,
                c10::optional<at::Device> device, c10::optional<bool> pin_memory) {
  return RandGenerator(size, c10::nullopt, dtype, layout, device, pin_memory);
}

at::Tensor RandnGenerator(Sizes size, Gen gen, c10::optional<at::ScalarType> dtype,
                          c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                          c10::optional<bool> pin_memory) {
  at::Tensor out = EmptyFactory(size, dtype, layout, device, pin_memory);
  if (!DrawnHere(out)) return out.normal_(0, 1, gen);
  Draw("normal_", out, Distribution::Normal(0.0, 1.0), CpuGenerator(gen));
  return out;
}
at::Tensor Randn(Sizes size, c10::optional<at::ScalarType> dtype, c10::optional<at::Layout> layout,
                 c10::optional<at::Device> device, c10::optional<bool> pin_memory) {
  return RandnGenerator(size, c10::nullopt, dtype, layout, device, pin_memory);
}

// -------------------------------------------------------------- bernoulli

// Types the library's bernoulli writes; the others take its uint8 0/1.
bool BernoulliHolds(at::ScalarType type) {
  switch (type) {
    case at::kByte: case at::kBool: case at::kInt: case at::kFloat: case at::kDouble:
    case at::kHalf: case at::kBFloat16: return true;
    default: return false;
  }
}

template <typename RNG>
struct BernoulliScalarKernel {
  void operator()(const at::Tensor& self, double p, Gen generator) {
    auto* gen = CpuGenerator(generator);
    if (BernoulliHolds(self.scalar_type())) {
      Draw("bernoulli_", self, Distribution::Bernoulli(p), gen);
    } else {
      // PyTorch's error for the types it has no kernel for.
      AT_DISPATCH_ALL_TYPES_AND3(at::kBool, at::kBFloat16, at::kHalf, self.scalar_type(),
                                 "bernoulli_scalar_cpu_", [&] {});
      at::Tensor bits = at::empty_like(self, self.options().dtype(at::kByte));
      Draw("bernoulli_", bits, Distribution::Bernoulli(p), gen);
      self.copy_(bits);
    }
  }
};

// bernoulli_(p tensor): PyTorch CUDA's `u <= p` with u = curand_uniform,
// compared in p's type. On the GPU (CUDA_tensor_apply2, four elements a
// thread, a grid large enough for one chunk each) logical element e reads
// word e mod 4 of the first block of curand_init(seed, e / 4, offset): the
// Philox block at counter (offset / 4, e / 4); the offset then moves by 12
// (philox_cuda_state(10), rounded up to whole blocks), whatever the size.
at::Tensor CudaApplyUniform(const at::Tensor& like, at::CPUGeneratorImpl* gen) {
  at::Tensor u = at::empty(like.sizes(), like.options().dtype(at::kFloat));
  float* out = u.data_ptr<float>();
  const int64_t n = u.numel();
  std::lock_guard<std::mutex> lock(gen->mutex_);
  const uint64_t offset = ReadOffset(gen);
  const randtensor::PhiloxState state = StateAt("bernoulli_", gen, offset);
  at::parallel_for(0, (n + 3) / 4, 4096, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      randtensor::Counter128 counter = state.counter();  // subsequence t: words 2-3
      counter.w[2] = static_cast<uint32_t>(t);
      counter.w[3] = static_cast<uint32_t>(static_cast<uint64_t>(t) >> 32);
      const randtensor::PhiloxBlock block = randtensor::philox::Block(counter, state.key());
      for (int64_t lane = 0; lane < 4 && 4 * t + lane < n; ++lane) {
        // u32: float(x) * 2^-32 is exact, so this add rounds once, as the fma
        out[4 * t + lane] = static_cast<float>(block.v[lane]) * 0x1p-32f + 0x1p-33f;
      }
    }
  });
  WriteOffset(gen, offset + 12);
  return u;
}

template <typename RNG>
struct BernoulliTensorKernel {
  void operator()(const at::Tensor& self, const at::Tensor& p_, Gen generator) {
    AT_DISPATCH_ALL_TYPES_AND3(at::kBool, at::kBFloat16, at::kHalf, self.scalar_type(),
                               "bernoulli_tensor_cpu_self_", [&] {});
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, p_.scalar_type(),
                                    "bernoulli_tensor_cpu_p_", [&] {});
    if (self.numel() == 0) return;  // nothing to draw (and no min/max of p)
    const at::Tensor p = p_.to(at::kCPU).expand(self.sizes());
    // PyTorch's own check, its message included.
    const at::Tensor range = at::stack({p.min(), p.max()}).to(at::kDouble);
    for (const double p_in : {range[0].item<double>(), range[1].item<double>()}) {
      TORCH_CHECK(p_in >= 0 && p_in <= 1);
    }
    auto* gen = CpuGenerator(generator);
    at::Tensor u = TorchCudaOrder() ? CudaApplyUniform(self, gen)
                                    : CurandUniform("bernoulli_", self, at::kFloat, gen);
    self.copy_(u.le(p));
  }
};

using at::native::templates::bernoulli_impl_;

at::Tensor& BernoulliFloat_(at::Tensor& self, double p, Gen gen) {
  return bernoulli_impl_<BernoulliScalarKernel, Cpu>(self, p, gen);
}
at::Tensor& BernoulliTensor_(at::Tensor& self, const at::Tensor& p, Gen gen) {
  return bernoulli_impl_<BernoulliTensorKernel, Cpu>(self, p, gen);
}
at::Tensor& BernoulliOut(const at::Tensor& self, Gen gen, at::Tensor& out) {
  return at::native::templates::bernoulli_out_impl<BernoulliTensorKernel, Cpu>(out, self, gen);
}

// ----------------------------------------------------------------- random

// Adds `shift` to every element of an int64 tensor with 2^64 wrap-around
// (PyTorch's uint64 arithmetic), in place.
at::Tensor& AddWrapping(at::Tensor& values, uint64_t shift) {
  int64_t* data = values.data_ptr<int64_t>();
  at::parallel_for(0, values.numel(), 65536, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      data[i] = static_cast<int64_t>(static_cast<uint64_t>(data[i]) + shift);
    }
  });
  return values;
}

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// base + (x mod range) for every element into `self` (PyTorch CUDA's
// random_from_to; the library's integers, which take the same words for a
// range whatever the type). An int64 tensor whose [base, base + range) fits
// is drawn directly; anything else (other types, ranges up to 2^64 - 1) as
// int64 min + (x mod range) in an int64 block, shifted to base and
// converted as PyTorch converts the int64 value.
void IntegersInto(const char* op, const at::Tensor& self, uint64_t range, int64_t base,
                  at::CPUGeneratorImpl* gen) {
  if (self.scalar_type() == at::kLong && range <= static_cast<uint64_t>(kInt64Max) &&
      static_cast<int64_t>(range) <= kInt64Max - base) {
    Draw(op, self, Distribution::Integers(base, base + static_cast<int64_t>(range)), gen);
    return;
  }
  at::Tensor wide = at::empty_like(self, self.options().dtype(at::kLong));
  Draw(op, wide,
       Distribution::Integers(kInt64Min, static_cast<int64_t>(static_cast<uint64_t>(kInt64Min) + range)),
       gen);
  self.copy_(AddWrapping(wide, static_cast<uint64_t>(base) - static_cast<uint64_t>(kInt64Min)));
}

// All 64 bits of two words, v = (first << 32) | second, as int64 (PyTorch
// CUDA's 64-bit random_ without a range), in either order. The library's
// widest integers, int64 min + (v mod (2^64 - 1)), give v except that
// v = 2^64 - 1 and v = 0 both give 0; where that happens, v mod 2^30 of the
// same words (a second fill from the same position) tells them apart.
at::Tensor Words64(const char* op, const at::Tensor& like, at::CPUGeneratorImpl* gen) {
  constexpr int64_t kLowBits = int64_t{1} << 30;
  at::Tensor out = at::empty_like(like, like.options().dtype(at::kLong));
  std::lock_guard<std::mutex> lock(gen->mutex_);
  const uint64_t offset = ReadOffset(gen);
  uint64_t next = offset, again = offset;
  DrawLocked(op, out, Distribution::Integers(kInt64Min, kInt64Max), gen, offset, &next);
  at::Tensor zero = out.eq(kInt64Min);  // v mod (2^64 - 1) == 0
  if (zero.any().item<bool>()) {
    at::Tensor low_bits = at::empty_like(out);
    DrawLocked(op, low_bits, Distribution::Integers(0, kLowBits), gen, offset, &again);
    // v = 2^64 - 1: int64 max - int64 min wraps to -1, its 64 bits
    out.masked_fill_(zero.logical_and_(low_bits.eq(kLowBits - 1)), kInt64Max);
  }
  WriteOffset(gen, next);
  return AddWrapping(out, uint64_t{1} << 63);  // - int64 min
}

template <typename RNG>
struct RandomFromToKernel {
  void operator()(at::TensorIteratorBase& iter, uint64_t range, int64_t base, Gen generator) {
    IntegersInto("random_", iter.tensor(0), range, base, CpuGenerator(generator));
  }
  // [int64 min, int64 max]: every 64-bit value (int64, double, float, bfloat16).
  void operator()(at::TensorIteratorBase& iter, Gen generator) {
    const at::Tensor& self = iter.tensor(0);
    const at::ScalarType type = self.scalar_type();
    AT_DISPATCH_ALL_TYPES_AND(at::kBFloat16, type, "random_full_64_bits_range_kernel_cpu", [&] {});
    TORCH_CHECK(type == at::kLong || type == at::kDouble || type == at::kFloat ||
                    type == at::kBFloat16,
                "random_full_64_bits_range_kernel_cpu handles only int64, double, float and "
                "bfloat16");
    self.copy_(Words64("random_", self, CpuGenerator(generator)));
  }
};

// random_() without bounds: x mod (max + 1) for integers, x mod (2^digits +
// 1) for floating types, x & 1 for bool; 64-bit x for int64 and double.
template <typename RNG>
struct RandomKernel {
  void operator()(at::TensorIteratorBase& iter, Gen generator) {
    const at::Tensor& self = iter.tensor(0);
    auto* gen = CpuGenerator(generator);
    const at::ScalarType type = self.scalar_type();
    AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, type, "random_kernel_cpu",
                               [&] {});
    uint64_t range = 0;
    switch (type) {
      case at::kLong: {
        at::Tensor words = Words64("random_", self, gen);
        self.copy_(words.bitwise_and_(kInt64Max));
        return;
      }
      case at::kInt: {  // x mod 2^31 of one word: the word, high bit cleared
        at::Tensor words = at::empty_like(self, self.options().dtype(at::kInt));
        Draw("random_", words, Distribution::Bits(), gen);
        self.copy_(words.bitwise_and_(std::numeric_limits<int32_t>::max()));
        return;
      }
      case at::kDouble: range = (uint64_t{1} << 53) + 1; break;
      case at::kFloat: range = (uint64_t{1} << 24) + 1; break;
      case at::kHalf: range = (uint64_t{1} << 11) + 1; break;
      case at::kBFloat16: range = (uint64_t{1} << 8) + 1; break;
      case at::kShort: range = 32768; break;
      case at::kChar: range = 128; break;
      case at::kByte: range = 256; break;
      case at::kBool: range = 2; break;
      default: TORCH_CHECK(false, "random_: unexpected dtype ", type);
    }
    IntegersInto("random_", self, range, 0, gen);
  }
};

// ------------------------------------- exponential, Cauchy, geometric, log-normal
// The library's distributions (docs/SPEC.md section 8.1): PyTorch CUDA's
// formulas (ATen/core/TransformationHelper.h) on the same words, in the
// installed element order, with randtensor's own log, tan and exp (within
// an ulp of the exact values, where the GPU's fast __logf, __tanf and
// __expf are further off; geometric equals the GPU's). ATen's templates have
// checked the arguments, so what remains here is what PyTorch accepts and
// the library does not: a parameter whose result is one value for every
// element (drawn anyway, so the generator moves as PyTorch's does).

// Whether the type is one of the four floating types PyTorch's kernels
// cover (the others, float8 included, get PyTorch's own error from its
// dispatch macro).
bool KernelFloating(at::ScalarType type) {
  return type == at::kFloat || type == at::kDouble || type == at::kHalf || type == at::kBFloat16;
}

// The elements' draw with a stand-in parameter, then every element `value`.
void DrawThenFill(const char* op, const at::Tensor& self, const Distribution& stand_in,
                  at::CPUGeneratorImpl* gen, double value) {
  Draw(op, self, stand_in, gen);
  self.fill_(value);
}

template <typename RNG>
struct ExponentialKernel {
  void operator()(at::TensorIteratorBase& iter, double lambda, Gen generator) {
    const at::ScalarType type = iter.tensor(0).scalar_type();
    if (!KernelFloating(type)) {
      AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, type, "exponential_cpu", [&] {});
    }
    auto* gen = CpuGenerator(generator);
    if (lambda == 0) {  // torch 1.x allows it: -1 / 0 * log(u) = +inf
      return DrawThenFill("exponential_", iter.tensor(0), Distribution::Exponential(1), gen,
                          std::numeric_limits<double>::infinity());
    }
    Draw("exponential_", iter.tensor(0), Distribution::Exponential(lambda), gen);
  }
};

template <typename RNG>
struct CauchyKernel {
  void operator()(at::TensorIteratorBase& iter, double median, double sigma, Gen generator) {
    const at::ScalarType type = iter.tensor(0).scalar_type();
    if (!KernelFloating(type)) {
      AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, type, "cauchy_cpu", [&] {});
    }
    auto* gen = CpuGenerator(generator);
    if (sigma == 0) {  // torch 1.x allows it: median + 0 * tan(a) = median
      return DrawThenFill("cauchy_", iter.tensor(0), Distribution::Cauchy(median, 1), gen,
                          median);
    }
    Draw("cauchy_", iter.tensor(0), Distribution::Cauchy(median, sigma), gen);
  }
};

template <typename RNG>
struct LogNormalKernel {
  void operator()(at::TensorIteratorBase& iter, double mean, double std, Gen generator) {
    const at::ScalarType type = iter.tensor(0).scalar_type();
    if (!KernelFloating(type)) {
      AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, type, "log_normal_cpu", [&] {});
    }
    Draw("log_normal_", iter.tensor(0), Distribution::LogNormal(mean, std),
         CpuGenerator(generator));
  }
};

// geometric_: PyTorch's transform computes in float for every type but
// double, and returns its float integer, which the tensor's type takes as
// static_cast does: the floating types and the integer types whose values
// all fit come from the library; other integer types (int8, int16, or a p
// whose values overflow the type) take the float32 draw through PyTorch's
// own conversion. Where 1 - p rounds to 1 (p below about 3e-8 for float),
// log(1 - p) = 0 and PyTorch's values are -inf, NaN where u = 1: the
// library refuses that p, so it is made here from cuRAND's u.
template <typename RNG>
struct GeometricKernel {
  void operator()(at::TensorIteratorBase& iter, double p, Gen generator) {
    const at::Tensor& self = iter.tensor(0);
    auto* gen = CpuGenerator(generator);
    const at::ScalarType type = self.scalar_type();
    const bool integer = type == at::kByte || type == at::kChar || type == at::kShort ||
                         type == at::kInt || type == at::kLong;  // AT_DISPATCH_ALL_TYPES'
    if (!KernelFloating(type) && !integer) {
      AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, type, "geometric_cpu", [&] {});
    }
    const bool wide = type == at::kDouble;
    const bool q_is_one =
        wide ? 1.0 - p == 1.0 : 1.0f - static_cast<float>(p) == 1.0f;
    if (q_is_one) {
      const at::Tensor u = CurandUniform("geometric_", self, AccType(type), gen);
      self.copy_(at::full_like(u, -std::numeric_limits<double>::infinity())
                     .masked_fill_(u == 1, std::numeric_limits<double>::quiet_NaN()));
      return;
    }
    if (self.is_floating_point() || GeometricFits(type, p)) {
      Draw("geometric_", self, Distribution::Geometric(p), gen);
      return;
    }
    at::Tensor values = at::empty_like(self, self.options().dtype(at::kFloat));
    Draw("geometric_", values, Distribution::Geometric(p), gen);
    self.copy_(values);
  }

  // Whether the library's integer kind takes p for `type` (docs/SPEC.md 8.1:
  // every value, up to that of u = 2^-33, fits), with a margin of an ulp.
  static bool GeometricFits(at::ScalarType type, double p) {
    double top = 0;
    switch (type) {
      case at::kByte: top = 255; break;
      case at::kInt: top = 2147483647.0; break;
      case at::kLong: top = 9223372036854775807.0; break;
      default: return false;  // int8, int16: not library types
    }
    const double q = 1.0f - static_cast<float>(p);
    if (q == 0) return true;
    const double largest = 33 * std::log(2.0) / -std::log(q);
    return static_cast<float>(std::ceil(largest * (1 + 0x1p-30))) <= top;
  }
};

at::Tensor& Exponential_(at::Tensor& self, double lambda, Gen gen) {
  if (!self.is_floating_point()) return at::native::exponential_(self, lambda, gen);  // its error
  return at::native::templates::exponential_impl_<ExponentialKernel, Cpu>(self, lambda, gen);
}
at::Tensor& Cauchy_(at::Tensor& self, double median, double sigma, Gen gen) {
  if (!self.is_floating_point()) return at::native::cauchy_(self, median, sigma, gen);
  return at::native::templates::cauchy_impl_<CauchyKernel, Cpu>(self, median, sigma, gen);
}
at::Tensor& Geometric_(at::Tensor& self, double p, Gen gen) {
  return at::native::templates::geometric_impl_<GeometricKernel, Cpu>(self, p, gen);
}
at::Tensor& LogNormal_(at::Tensor& self, double mean, double std, Gen gen) {
  if (!self.is_floating_point()) return at::native::log_normal_(self, mean, std, gen);
  return at::native::templates::log_normal_impl_<LogNormalKernel, Cpu>(self, mean, std, gen);
}

at::Tensor& RandomFrom_(at::Tensor& self, int64_t from, c10::optional<int64_t> to, Gen gen) {
  return at::native::templates::random_from_to_impl<RandomFromToKernel, Cpu>(self, from, to, gen);
}
at::Tensor& RandomTo_(at::Tensor& self, int64_t to, Gen gen) {
  return RandomFrom_(self, 0, to, gen);
}
at::Tensor& Random_(at::Tensor& self, Gen gen) {
  return at::native::templates::random_impl<RandomKernel, Cpu>(self, gen);
}

// ---------------------------------------------------------------- dropout

// The smallest float >= value: CUDA's float64 dropout compares u < p1m in
// double, which keeps u == float(p1m) when float(p1m) < p1m; the library's
// u < float(p) keeps the same u with this p.
double Float32Ceil(double value) {
  float rounded = static_cast<float>(value);
  if (static_cast<double>(rounded) < value) {
    rounded = std::nextafter(rounded, std::numeric_limits<float>::infinity());
  }
  return rounded;
}

// PyTorch CUDA's fused dropout (Dropout.cu), replayed. A dense input (any
// strides without gaps or overlaps) is worked on as its memory, in memory
// order, vectorized by the alignment of its address within the allocation
// (GPU allocations are aligned to more than a vector), and the output and
// mask get its strides (empty_like); any other input is read one element at
// a time in logical order into packed results.
std::tuple<at::Tensor, at::Tensor> ReplayCudaDropout(const at::Tensor& input, double p,
                                                     randtensor::DataType type,
                                                     at::CPUGeneratorImpl* gen) {
  const auto bool_options = input.options().dtype(at::kBool);
  const bool dense = input.is_non_overlapping_and_dense();
  at::Tensor x = dense ? input : input.contiguous();
  at::Tensor output = at::empty_like(x), mask = at::empty_like(x, bool_options);
  int32_t max_vector = 1;
  if (dense) {
    const int64_t bytes = input.storage_offset() * input.element_size();
    max_vector = 8;
    while (max_vector > 1 && bytes % (max_vector * input.element_size()) != 0) max_vector /= 2;
  }
  std::lock_guard<std::mutex> lock(gen->mutex_);
  const randtensor::PhiloxState state = StateAt("native_dropout", gen, ReadOffset(gen));
  randtensor::PhiloxState next;
  // Dense tensors (PyTorch's strides are never negative) start at their data pointer.
  const randtensor::Status status = randtensor::TorchCudaDropout(
      type, static_cast<uint64_t>(x.numel()), x.data_ptr(), output.data_ptr(), mask.data_ptr(), p,
      state, &next, CurrentSettings().gpu, max_vector, FillThreads(x.numel()));
  TORCH_CHECK(status.ok(), "native_dropout: ", status.message());
  WriteOffset(gen, OffsetOf("native_dropout", next));
  if (dense) return std::make_tuple(output, mask);
  // In the layout PyTorch gives a result of this input (empty_like): the
  // packed results themselves where that layout is packed (an expanded or
  // sliced input), else copies.
  at::Tensor shaped = at::empty_like(input);
  if (shaped.strides() == output.strides()) return std::make_tuple(output, mask);
  return std::make_tuple(shaped.copy_(output), at::empty_like(input, bool_options).copy_(mask));
}

// Elements of dropout's output per thread at least.
constexpr int64_t kDropoutGrain = int64_t{1} << 15;

// torch.native_dropout as PyTorch CUDA computes it (Dropout.cu): mask =
// u < 1 - p, output = x * mask * scale in float (double for float64),
// scale = 1 / (1 - p) rounded to that type.
std::tuple<at::Tensor, at::Tensor> NativeDropout(const at::Tensor& input, double p,
                                                 c10::optional<bool> train) {
  const auto bool_options = input.options().dtype(at::kBool);
  if (train.has_value() && !*train) {
    return std::make_tuple(input.clone(), at::ones_like(input, bool_options));
  }
  randtensor::DataType type;
  if (!(p >= 0 && p <= 1) || !input.is_floating_point() ||
      !LibraryType(input.scalar_type(), &type)) {
    // What PyTorch CUDA refuses or never sees (complex, integer inputs, p
    // outside [0, 1]): PyTorch's CPU kernel, its errors and values.
    return at::native::native_dropout_cpu(input, p, train);
  }
  if (p == 1) {
    return std::make_tuple(at::zeros_like(input), at::zeros_like(input, bool_options));
  }
  if (input.numel() == 0) {
    return std::make_tuple(input.clone(), at::empty_like(input, bool_options));
  }
  auto* gen = CpuGenerator(c10::nullopt);  // CUDA's dropout takes no generator either
  const double p1m = 1.0 - p;
  if (TorchCudaOrder()) return ReplayCudaDropout(input, p, type, gen);
  // Stream order: mask element e is bernoulli(1 - p) of stream element e;
  // output = x * mask * scale in the accumulation type, in one pass.
  // A dense input keeps its layout (channels_last stays so): mask and
  // output share its strides, so one pass over memory pairs their elements.
  const bool wide = input.scalar_type() == at::kDouble;
  // (A strided input becomes dense in its own dimension order: empty_like.)
  const at::Tensor x =
      input.is_non_overlapping_and_dense() ? input : at::empty_like(input).copy_(input);
  at::Tensor mask = at::empty_like(x, bool_options);
  Draw("native_dropout", mask, Distribution::Bernoulli(wide ? Float32Ceil(p1m) : p1m), gen);
  const double scale = wide ? 1.0 / p1m : static_cast<float>(1.0 / static_cast<float>(p1m));
  // x * keep * scale in one pass: (x * keep) * scale is x * (keep ? scale : 0),
  // signed zeros and NaNs included, and vectorizes.
  at::Tensor output = at::empty_like(x);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "native_dropout",
                                  [&] {
    using acc_t = AccT<scalar_t>;
    const acc_t s = static_cast<acc_t>(scale);
    const scalar_t* in = x.data_ptr<scalar_t>();
    const bool* keep = mask.data_ptr<bool>();
    scalar_t* out = output.data_ptr<scalar_t>();
    at::parallel_for(0, x.numel(), kDropoutGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        out[i] = static_cast<scalar_t>(static_cast<acc_t>(in[i]) * (keep[i] ? s : acc_t(0)));
      }
    });
  });
  return std::make_tuple(output, mask);
}

// F.dropout and nn.Dropout (aten::dropout): where PyTorch CUDA runs its
// fused kernel (training, 0 < p < 1, a non-empty input), the same here, so
// that a CPU draws a GPU's masks; otherwise PyTorch's own composite.
at::Tensor Dropout(const at::Tensor& input, double p, bool train) {
  if (train && p > 0 && p < 1 && input.numel() > 0) {
    return std::get<0>(at::native_dropout(input, p, train));
  }
  return at::native::dropout(input, p, train);
}

// ------------------------------------------ PyTorch's own, with the offset kept
// _standard_gamma and _sample_dirichlet read the generator's cached normal,
// where stream_position.h keeps the offset: they run with the slot empty,
// and the offset is put back afterwards.
template <typename F>
at::Tensor WithoutOffset(const Gen& generator, F run) {
  auto* gen = CpuGenerator(generator);
  bool held = false;
  uint64_t offset = 0;
  {
    std::lock_guard<std::mutex> lock(gen->mutex_);
    held = HoldsOffset(gen);
    offset = ReadOffset(gen);
    if (held) gen->set_next_double_normal_sample(c10::optional<double>());
  }
  at::Tensor result = run();
  if (held) {
    std::lock_guard<std::mutex> lock(gen->mutex_);
    WriteOffset(gen, offset);
  }
  return result;
}

at::Tensor StandardGamma(const at::Tensor& self, Gen gen) {
  return WithoutOffset(gen, [&] { return at::native::_s_gamma_cpu(self, gen); });
}
at::Tensor SampleDirichlet(const at::Tensor& self, Gen gen) {
  return WithoutOffset(gen, [&] { return at::native::_s_dirichlet_cpu(self, gen); });
}

// ----------------------------------------------------------- registration

// Swallows the dispatcher's "Overriding a previously registered kernel"
// warnings while install() replaces kernels, which is its purpose: the
// library prints nothing.
class SilentWarnings : public c10::WarningHandler {
 public:
#if TORCH_VERSION_MAJOR >= 2
  void process(const c10::Warning&) override {}
#else
  void process(const c10::SourceLocation&, const std::string&, const bool) override {}
#endif
};
#if TORCH_VERSION_MAJOR >= 2
using WarningHandlerGuard = c10::WarningUtils::WarningHandlerGuard;
#else
using WarningHandlerGuard = c10::Warning::WarningHandlerGuard;
#endif

std::mutex install_mutex;
std::unique_ptr<torch::Library> cpu_library, autograd_library;

void Register(torch::Library& m) {
  m.impl("uniform_", TORCH_FN(Uniform_));
  m.impl("normal_", TORCH_FN(Normal_));
  m.impl("rand", TORCH_FN(Rand));
  m.impl("rand.generator", TORCH_FN(RandGenerator));
  m.impl("randn", TORCH_FN(Randn));
  m.impl("randn.generator", TORCH_FN(RandnGenerator));
  m.impl("normal.Tensor_float", TORCH_FN(NormalTF));
  m.impl("normal.Tensor_float_out", TORCH_FN(NormalTFOut));
  m.impl("normal.float_Tensor", TORCH_FN(NormalFT));
  m.impl("normal.float_Tensor_out", TORCH_FN(NormalFTOut));
  m.impl("normal.Tensor_Tensor", TORCH_FN(NormalTT));
  m.impl("normal.Tensor_Tensor_out", TORCH_FN(NormalTTOut));
  m.impl("bernoulli_.float", TORCH_FN(BernoulliFloat_));
  m.impl("bernoulli_.Tensor", TORCH_FN(BernoulliTensor_));
  m.impl("bernoulli.out", TORCH_FN(BernoulliOut));
  m.impl("random_.from", TORCH_FN(RandomFrom_));
  m.impl("random_.to", TORCH_FN(RandomTo_));
  m.impl("random_", TORCH_FN(Random_));
  m.impl("exponential_", TORCH_FN(Exponential_));
  m.impl("cauchy_", TORCH_FN(Cauchy_));
  m.impl("geometric_", TORCH_FN(Geometric_));
  m.impl("log_normal_", TORCH_FN(LogNormal_));
  m.impl("native_dropout", TORCH_FN(NativeDropout));
  m.impl("dropout", TORCH_FN(Dropout));
  m.impl("_standard_gamma", TORCH_FN(StandardGamma));
  m.impl("_sample_dirichlet", TORCH_FN(SampleDirichlet));
}

// install(order, sm_count, threads_per_sm, huge_pages): order "stream" or
// "torch_cuda"; a geometry of zeros means one element per GPU thread.
void Install(std::string order, int64_t sm_count, int64_t threads_per_sm, bool huge_pages) {
  Settings settings;
  if (order == "torch_cuda") {
    settings.order = ElementOrder::kTorchCuda;
  } else {
    TORCH_CHECK(order == "stream", "randtensor.torch.install: order = '", order,
                "' is not 'stream' or 'torch_cuda'");
  }
  TORCH_CHECK(sm_count >= 0 && sm_count <= INT32_MAX && threads_per_sm >= 0 &&
                  threads_per_sm <= INT32_MAX,
              "randtensor.torch.install: gpu = (", sm_count, ", ", threads_per_sm,
              ") is not a GPU geometry");
  settings.gpu.sm_count = static_cast<int32_t>(sm_count);
  settings.gpu.threads_per_sm = static_cast<int32_t>(threads_per_sm);
  uint64_t threads = 0;  // the library's check of the geometry, before anything changes
  const randtensor::Status status = randtensor::TorchCudaThreads(1u << 30, settings.gpu, &threads);
  TORCH_CHECK(status.ok(), "randtensor.torch.install: ", status.message());
  std::lock_guard<std::mutex> lock(install_mutex);
  SetSettings(settings);
  SetHugePages(huge_pages);
  if (cpu_library) return;
  SilentWarnings silent;
  WarningHandlerGuard guard(&silent);
  cpu_library = std::make_unique<torch::Library>(torch::Library::IMPL, "aten",
                                                 c10::DispatchKey::CPU, __FILE__, __LINE__);
  Register(*cpu_library);
  // aten::dropout is a composite of autograd's: its CPU kernel alone would
  // not be reached while autograd is on.
  autograd_library = std::make_unique<torch::Library>(
      torch::Library::IMPL, "aten", c10::DispatchKey::AutogradCPU, __FILE__, __LINE__);
  autograd_library->impl("dropout", TORCH_FN(Dropout));
}

void Uninstall() {
  std::lock_guard<std::mutex> lock(install_mutex);
  autograd_library.reset();
  cpu_library.reset();
  SetSettings(Settings());
  ForgetOffsets();
}

int64_t GetOffset(Gen generator) {
  auto* gen = CpuGenerator(generator);
  std::lock_guard<std::mutex> lock(gen->mutex_);
  return static_cast<int64_t>(ReadOffset(gen));
}

void SetOffset(Gen generator, int64_t offset) {
  TORCH_CHECK(offset >= 0, "randtensor.torch.set_offset: offset = ", offset, " is negative");
  TORCH_CHECK(offset % 4 == 0, "randtensor.torch.set_offset: offset = ", offset,
              " is not a multiple of 4 (offsets count whole Philox blocks, as torch.cuda's do)");
  auto* gen = CpuGenerator(generator);
  std::lock_guard<std::mutex> lock(gen->mutex_);
  WriteOffset(gen, static_cast<uint64_t>(offset));
}

}  // namespace
}  // namespace randtensor_torch

TORCH_LIBRARY(randtensor, m) {
  using namespace randtensor_torch;
  m.def("install(str order, int sm_count, int threads_per_sm, bool huge_pages) -> ()", &Install);
  m.def("uninstall() -> ()", &Uninstall);
  m.def("get_offset(Generator? generator=None) -> int", &GetOffset);
  m.def("set_offset(Generator? generator, int offset) -> ()", &SetOffset);
}
