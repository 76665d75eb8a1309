// randtensor._core: the compiled half of the Python module `randtensor`.
//
// The pure-Python package (python/randtensor/__init__.py) validates and
// normalizes the arguments (state words, seed, element offset, threads,
// distribution) and picks the path; this file turns a NumPy array or a
// DLPack capsule into the library's descriptors, fills with the GIL
// released, and turns every failed Status into a Python exception carrying
// the library's message:
//
//   ValueError    invalid_argument, overlap, misaligned, buffer_too_small,
//                 overflow, unsupported (rank > 8, an undecidable layout, a
//                 non-CPU DLPack device), a read-only array, a stride that is
//                 not a multiple of 4 bytes, a bad name passed to set_target
//   TypeError     a dtype other than native-order uint32 (checked here, before
//                 the library, so that the type of the exception says "dtype"),
//                 an object that is not an ndarray / not a "dltensor" capsule
//   RuntimeError  unknown_target / unsupported_target during a fill or
//                 active_target(): the process's target choice (RANDTENSOR_TARGET)
//                 is broken, not the call's arguments
//
// Nothing is written when an exception is raised: every check here runs before
// the library is called, and the library itself writes nothing on error.

#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <optional>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "arrays.h"
#include "randtensor/dlpack.h"
#include "randtensor/fill.h"
#include "randtensor/parallel.h"
#include "randtensor/philox.h"
#include "randtensor/status.h"
#include "randtensor/targets.h"

#ifndef RANDTENSOR_VERSION
#error "RANDTENSOR_VERSION must be defined (python/CMakeLists.txt passes PROJECT_VERSION)"
#endif

namespace py = pybind11;
using namespace pybind11::literals;

namespace {

using randtensor::PhiloxState;
using randtensor::Status;
using randtensor::StatusCode;

using StateWords = std::array<uint32_t, 6>;

// The distribution crosses from Python as randtensor::Distribution itself
// (bound below as _core.Distribution, its parameters by name), so the C++
// and Python sides share one spelling for each parameter.
using randtensor::Distribution;

// ---------------------------------------------------------------------------
// Status -> exception

void ThrowIfError(const Status& status) {
  if (status.ok()) return;
  switch (status.code()) {
    case StatusCode::kUnknownTarget:
    case StatusCode::kUnsupportedTarget:
      throw std::runtime_error(status.message());  // pybind11: RuntimeError
    default:
      throw py::value_error(status.message());
  }
}

// ---------------------------------------------------------------------------
// The fill itself, shared by the NumPy and DLPack paths

PhiloxState ToState(const StateWords& words) {
  PhiloxState state;
  std::copy(words.begin(), words.end(), state.words);
  return state;
}

py::array_t<uint32_t> StateArray(const PhiloxState& state) {
  py::array_t<uint32_t> array = randtensor_python::NewArray<uint32_t>(6);
  std::copy(std::begin(state.words), std::end(state.words), array.mutable_data());
  return array;
}

// Runs fill(in_state, &out_state, options) without the GIL, so other Python
// threads (a data loader, say) run while a large tensor is filled. `fill` may
// not touch Python objects.
// (ElementOrder, sm_count, threads_per_sm): the element order (replay.h).
using OrderArg = std::tuple<int, int32_t, int32_t>;

template <typename FillFn>
py::array_t<uint32_t> FillWithoutGil(const StateWords& words, uint64_t element_offset,
                                     uint32_t threads, const Distribution& dist,
                                     const OrderArg& order, const FillFn& fill) {
  randtensor::FillOptions options;
  options.element_offset = element_offset;
  options.threads = threads;
  options.distribution = dist;
  options.order = static_cast<randtensor::ElementOrder>(std::get<0>(order));
  options.gpu = randtensor::GpuGeometry{std::get<1>(order), std::get<2>(order)};
  const PhiloxState in_state = ToState(words);
  PhiloxState out_state;
  Status status;
  {
    py::gil_scoped_release release;
    status = fill(in_state, &out_state, options);
  }
  ThrowIfError(status);
  return StateArray(out_state);
}

// ---------------------------------------------------------------------------
// NumPy path

// The library's type of a NumPy array (native byte order only: '>u4' on a
// little-endian host holds uint32 values too, but they would be stored
// swapped). bfloat16 has no NumPy dtype: its bit patterns live in uint16
// arrays, and the caller says so.
randtensor::DataType ArrayType(const py::array& array, bool bfloat16) {
  using randtensor::DataType;
  const py::dtype dt = array.dtype();
  const std::string dt_name = py::str(static_cast<py::handle>(dt));
  if (bfloat16) {
    if (dt.equal(py::dtype::of<uint16_t>())) return DataType::kBfloat16;
    throw py::type_error("array dtype is " + dt_name +
                         "; bfloat16 fills need a uint16 array (the bit patterns)");
  }
  const std::pair<py::dtype, DataType> kTypes[] = {
      {py::dtype::of<uint32_t>(), DataType::kUint32}, {py::dtype::of<float>(), DataType::kFloat32},
      {py::dtype::of<double>(), DataType::kFloat64},  {py::dtype("float16"), DataType::kFloat16},
      {py::dtype::of<uint8_t>(), DataType::kUint8},   {py::dtype::of<bool>(), DataType::kBool},
      {py::dtype::of<int32_t>(), DataType::kInt32},   {py::dtype::of<int64_t>(), DataType::kInt64}};
  for (const auto& t : kTypes) {
    if (dt.equal(t.first)) return t.second;
  }
  throw py::type_error("array dtype is " + dt_name +
                       "; randtensor fills uint32, float32, float64, float16, uint8, bool, int32, "
                       "int64 (native byte order) and bfloat16 bit patterns in uint16");
}

// NumPy strides are in bytes; the library's are in elements. A dimension
// that never moves (size <= 1, or an empty array) may carry any stride.
std::vector<int64_t> ElementStrides(const py::array& array, int kElementBytes) {
  std::vector<int64_t> strides(static_cast<size_t>(array.ndim()));
  for (py::ssize_t d = 0; d < array.ndim(); ++d) {
    const py::ssize_t bytes = array.strides(d);
    if (bytes % kElementBytes == 0) {
      strides[d] = bytes / kElementBytes;
    } else if (array.shape(d) <= 1 || array.size() == 0) {
      strides[d] = 0;  // never used to address an element
    } else {
      throw py::value_error("strides[" + std::to_string(d) + "] = " + std::to_string(bytes) +
                            " bytes is not a multiple of the element size (" +
                            std::to_string(kElementBytes) + " bytes): the "
                            "elements are unaligned");
    }
  }
  return strides;
}

// (global shape, start) of a region of a global tensor, or nothing.
using RegionArg = std::optional<std::pair<std::vector<int64_t>, std::vector<int64_t>>>;

py::array_t<uint32_t> FillNdarray(py::handle object, const StateWords& words,
                                  uint64_t element_offset, uint32_t threads,
                                  const Distribution& dist, bool bfloat16,
                                  const RegionArg& region_arg, const OrderArg& order) {
  if (!py::isinstance<py::array>(object)) {
    throw py::type_error("fill_ndarray needs a numpy.ndarray, not " +
                         std::string(py::str(py::type::handle_of(object).attr("__name__"))));
  }
  const auto array = py::reinterpret_borrow<py::array>(object);
  const randtensor::DataType type = ArrayType(array, bfloat16);
  if (!array.writeable()) throw py::value_error("array is read-only");
  const int size = randtensor::ElementSize(type);
  const std::vector<int64_t> sizes(array.shape(), array.shape() + array.ndim());
  const std::vector<int64_t> strides = ElementStrides(array, size);

  randtensor::TensorDesc desc;
  desc.dtype = type;
  desc.rank = static_cast<int32_t>(array.ndim());
  desc.sizes = sizes.data();
  desc.strides = strides.data();
  // The buffer is exactly the span of the elements: NumPy says nothing about
  // the memory around a view, so nothing else may be assumed writable. It
  // starts at the lowest element, which negative strides put before
  // array.data() (element (0, ..., 0)). NumPy guarantees that the span is
  // addressable, so these sums cannot overflow; Fill validates the rest.
  uint64_t below = 0, above = 0;  // bytes below and above element (0, ..., 0)
  bool empty = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    empty |= sizes[d] == 0;
    if (sizes[d] < 2) continue;
    const uint64_t reach = static_cast<uint64_t>(strides[d] < 0 ? -strides[d] : strides[d]) *
                           static_cast<uint64_t>(sizes[d] - 1) * static_cast<uint64_t>(size);
    (strides[d] < 0 ? below : above) += reach;
  }
  const uint64_t buffer_bytes = empty ? 0 : below + above + static_cast<uint64_t>(size);
  desc.byte_offset = empty ? 0 : below;
  // Writability checked above; the lowest element is inside the array's memory.
  char* data = static_cast<char*>(const_cast<void*>(array.data())) - below;
  randtensor::Region region;
  if (region_arg.has_value()) {
    const auto& [global, start] = *region_arg;
    if (global.size() != sizes.size() || start.size() != sizes.size()) {
      throw py::value_error("region: global shape and start need " +
                            std::to_string(sizes.size()) + " entries (the array's ndim)");
    }
    region.rank = static_cast<int32_t>(sizes.size());
    region.global_sizes = global.data();
    region.start = start.data();
  }
  return FillWithoutGil(
      words, element_offset, threads, dist, order,
      [&](const PhiloxState& in, PhiloxState* out, const randtensor::FillOptions& options) {
        randtensor::FillOptions with_region = options;
        if (region_arg.has_value()) with_region.region = &region;
        return randtensor::Fill(desc, data, buffer_bytes, in, out, with_region);
      });
}

// ---------------------------------------------------------------------------
// DLPack path (the Python protocol: a PyCapsule named "dltensor")

constexpr char kCapsuleName[] = "dltensor";
constexpr char kUsedCapsuleName[] = "used_dltensor";

// A DLManagedTensor taken over from a "dltensor" capsule. As the DLPack Python
// specification says, the consumer renames the capsule to "used_dltensor" (so
// the producer's capsule destructor leaves the tensor alone) and calls the
// deleter itself when done. The deleter runs with the GIL held: NumPy's and
// PyTorch's deleters drop Python references.
class ConsumedDLTensor {
 public:
  explicit ConsumedDLTensor(py::handle capsule) {
    if (!PyCapsule_IsValid(capsule.ptr(), kCapsuleName)) {
      if (PyCapsule_IsValid(capsule.ptr(), kUsedCapsuleName)) {
        throw py::value_error("the DLPack capsule was already consumed (named 'used_dltensor')");
      }
      throw py::type_error("__dlpack__() returned a " +
                           std::string(py::str(py::type::handle_of(capsule).attr("__name__"))) +
                           ", not a PyCapsule named 'dltensor'");
    }
    // Valid means non-null. Until the rename succeeds the capsule still owns it.
    managed_ = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kCapsuleName));
    if (PyCapsule_SetName(capsule.ptr(), kUsedCapsuleName) != 0) throw py::error_already_set();
  }
  ~ConsumedDLTensor() {
    if (managed_->deleter != nullptr) managed_->deleter(managed_);
  }
  ConsumedDLTensor(const ConsumedDLTensor&) = delete;
  ConsumedDLTensor& operator=(const ConsumedDLTensor&) = delete;

  const DLTensor& tensor() const { return managed_->dl_tensor; }

 private:
  DLManagedTensor* managed_ = nullptr;
};

py::array_t<uint32_t> FillDLPack(py::handle capsule, const StateWords& words,
                                 uint64_t element_offset, uint32_t threads,
                                 const Distribution& dist, const OrderArg& order) {
  const ConsumedDLTensor consumed(capsule);  // outlives the GIL release below
  return FillWithoutGil(
      words, element_offset, threads, dist, order,
      [&](const PhiloxState& in, PhiloxState* out, const randtensor::FillOptions& options) {
        return randtensor::FillDLTensor(consumed.tensor(), in, out, options);
      });
}

// ---------------------------------------------------------------------------
// Targets, threads, the reference block

py::dict TargetDict(const randtensor::TargetInfo& target) {
  return py::dict("name"_a = target.name, "lanes"_a = target.lanes,
                  "supported"_a = target.supported, "active"_a = target.active);
}

py::list Targets() {
  py::list list;
  for (int i = 0; i < randtensor::TargetCount(); ++i) {
    randtensor::TargetInfo target;
    ThrowIfError(randtensor::GetTarget(i, &target));
    list.append(TargetDict(target));
  }
  return list;
}

std::string ActiveTarget() {
  randtensor::TargetInfo target;
  ThrowIfError(randtensor::GetActiveTarget(&target));
  return target.name;
}

// A bad name is a bad argument here (ValueError), unlike during a fill.
void SetTarget(const std::string& name) {
  const Status status = randtensor::SetTarget(name.c_str());
  if (!status.ok()) throw py::value_error(status.message());
}

py::tuple PhiloxBlock(const std::array<uint32_t, 4>& counter, const std::array<uint32_t, 2>& key) {
  const randtensor::PhiloxBlock block = randtensor::philox::Block(
      randtensor::Counter128{{counter[0], counter[1], counter[2], counter[3]}},
      randtensor::PhiloxKey{{key[0], key[1]}});
  return py::make_tuple(block.v[0], block.v[1], block.v[2], block.v[3]);
}

// PyTorch CUDA's fused dropout (replay.h): input and output C-contiguous
// arrays of one float type (uint16 with bfloat16=True), mask a bool array
// of the same size; returns the next state.
py::array_t<uint32_t> TorchCudaDropout(const py::array& input, const py::array& output,
                                       const py::array& mask, double p, const StateWords& words,
                                       int32_t sm_count, int32_t threads_per_sm,
                                       int32_t max_vector, uint32_t threads, bool bfloat16) {
  const randtensor::DataType type = ArrayType(input, bfloat16);
  if (!output.dtype().equal(input.dtype()) || output.size() != input.size() ||
      mask.size() != input.size() || !mask.dtype().equal(py::dtype::of<bool>())) {
    throw py::value_error("dropout: output must match the input's dtype and size, mask be bool");
  }
  const auto contiguous = py::array::c_style;
  if (!(input.flags() & contiguous) || !(output.flags() & contiguous) ||
      !(mask.flags() & contiguous)) {
    throw py::value_error("dropout replays C-contiguous arrays only");
  }
  if (!output.writeable() || !mask.writeable()) throw py::value_error("output or mask is read-only");
  const PhiloxState in = ToState(words);
  PhiloxState out;
  Status status;
  {
    py::gil_scoped_release release;
    status = randtensor::TorchCudaDropout(
        type, static_cast<uint64_t>(input.size()), input.data(),
        const_cast<void*>(output.data()), const_cast<void*>(mask.data()), p, in, &out,
        randtensor::GpuGeometry{sm_count, threads_per_sm}, max_vector, threads);
  }
  ThrowIfError(status);
  return StateArray(out);
}

// cuRAND's host generator (replay.h): `count` outputs of `function` from
// (seed, offset, skew); returns (array, offset, skew) after the call.
py::tuple CurandHostGenerate(int function, uint64_t count, uint64_t seed, uint64_t offset,
                             uint64_t skew, double mean, double stddev, uint32_t threads) {
  using F = randtensor::CurandHostFunction;
  const F f = static_cast<F>(function);
  py::array array;
  if (f == F::kGenerate) {
    array = randtensor_python::NewArray<uint32_t>(static_cast<py::ssize_t>(count));
  } else if (f == F::kUniform || f == F::kNormal) {
    array = randtensor_python::NewArray<float>(static_cast<py::ssize_t>(count));
  } else {
    array = randtensor_python::NewArray<double>(static_cast<py::ssize_t>(count));
  }
  randtensor::CurandHostGenerator g{seed, offset, skew};
  Status status;
  {
    py::gil_scoped_release release;
    status = randtensor::CurandHostGenerate(&g, f, array.mutable_data(), count, mean, stddev,
                                            threads);
  }
  ThrowIfError(status);
  return py::make_tuple(array, g.offset, g.skew);
}

// {name: (sm_count, threads_per_sm)} of replay.h's presets.
py::dict GpuPresets() {
  int count = 0;
  const randtensor::GpuPreset* presets = randtensor::GpuPresets(&count);
  py::dict d;
  for (int i = 0; i < count; ++i) {
    d[presets[i].name] = py::make_tuple(presets[i].geometry.sm_count,
                                        presets[i].geometry.threads_per_sm);
  }
  return d;
}

// Threads PyTorch launches for `count` elements (replay.h).
uint64_t TorchCudaThreads(uint64_t count, int32_t sm_count, int32_t threads_per_sm) {
  uint64_t threads = 0;
  const Status status =
      randtensor::TorchCudaThreads(count, randtensor::GpuGeometry{sm_count, threads_per_sm}, &threads);
  if (!status.ok()) throw py::value_error(status.message());
  return threads;
}

StateWords SeedState(uint64_t seed) {
  const PhiloxState state = PhiloxState::FromSeed(seed);
  StateWords words;
  std::copy(std::begin(state.words), std::end(state.words), words.begin());
  return words;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "randtensor's compiled core; use the `randtensor` package instead.";
  m.attr("__version__") = RANDTENSOR_VERSION;
  // randtensor::Distribution, field for field; the kind as its int value.
  py::class_<Distribution>(m, "Distribution")
      .def(py::init([](int kind, double low, double high, double mean, double std, double p,
                       int64_t int_low, int64_t int_high, double lambda, double median,
                       double sigma) {
             Distribution d;
             d.kind = static_cast<randtensor::DistributionKind>(kind);  // Fill validates it
             d.low = low, d.high = high, d.mean = mean, d.std = std, d.p = p;
             d.int_low = int_low, d.int_high = int_high;
             d.lambda = lambda, d.median = median, d.sigma = sigma;
             return d;
           }),
           "kind"_a, "low"_a = 0.0, "high"_a = 1.0, "mean"_a = 0.0, "std"_a = 1.0, "p"_a = 0.5,
           "int_low"_a = 0, "int_high"_a = 1, "lambd"_a = 1.0, "median"_a = 0.0,
           "sigma"_a = 1.0)
      .def_property_readonly("kind", [](const Distribution& d) { return static_cast<int>(d.kind); })
      .def_readonly("low", &Distribution::low)
      .def_readonly("high", &Distribution::high)
      .def_readonly("mean", &Distribution::mean)
      .def_readonly("std", &Distribution::std)
      .def_readonly("p", &Distribution::p)
      .def_readonly("int_low", &Distribution::int_low)
      .def_readonly("int_high", &Distribution::int_high)
      .def_readonly("lambd", &Distribution::lambda)  // lambda is a Python keyword
      .def_readonly("median", &Distribution::median)
      .def_readonly("sigma", &Distribution::sigma);
  m.def("fill_ndarray", &FillNdarray, "array"_a, "state"_a, "element_offset"_a, "threads"_a,
        "dist"_a, "bfloat16"_a, "region"_a = py::none(), "order"_a = OrderArg{0, 0, 0});
  m.def("fill_dlpack", &FillDLPack, "capsule"_a, "state"_a, "element_offset"_a, "threads"_a,
        "dist"_a, "order"_a = OrderArg{0, 0, 0});
  m.def("gpu_presets", &GpuPresets);
  m.def("curand_host_generate", &CurandHostGenerate, "function"_a, "count"_a, "seed"_a,
        "offset"_a, "skew"_a, "mean"_a, "stddev"_a, "threads"_a);
  m.def("torch_cuda_dropout", &TorchCudaDropout, "input"_a, "output"_a, "mask"_a, "p"_a,
        "state"_a, "sm_count"_a, "threads_per_sm"_a, "max_vector"_a, "threads"_a, "bfloat16"_a);
  m.def("torch_cuda_threads", &TorchCudaThreads, "count"_a, "sm_count"_a, "threads_per_sm"_a);
  m.def("seed_state", &SeedState, "seed"_a);
  m.def("philox_block", &PhiloxBlock, "counter"_a, "key"_a);
  m.def("targets", &Targets);
  m.def("active_target", &ActiveTarget);
  m.def("set_target", &SetTarget, "name"_a);
  m.def("set_default_threads", &randtensor::SetDefaultThreads, "threads"_a);
  m.def("default_threads", &randtensor::DefaultThreads);
  void RegisterBitGenerator(py::module_&);  // bitgen.cc: randtensor.Philox4x32
  RegisterBitGenerator(m);
}
