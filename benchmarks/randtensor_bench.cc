// randtensor benchmarks: every compiled target x size x layout x threads, and
// in the same binary the ceilings they are judged against (ceilings.h).
//
// Names are slash-separated fields the report script (benchmarks/report.py)
// parses:   fill/<TARGET>/<layout>/<bytes>/threads:<T>
//           ceiling/<kind>/<bytes>/threads:<T>, kind one of stream, regular, memset,
//             reference (AVX-512), reference-stream, reference-avx2, reference-sse4,
//             random123
//           paired/<TARGET>/<layout>/<bytes>/threads:<T>   (64 MiB and up; see BM_Paired)
//           overhead/<TARGET>/16-elements
//           region/<slab|columns>/1GiB-sixteenth/threads:<T>   (see BM_Region)
//           dist/<TARGET>/<distribution>-<dtype>/<elements>/threads:<T>   (see BM_Dist)
//           replay/<TARGET>/torch_cuda-<distribution>-<dtype>/<elements>/threads:<T>   (BM_Replay)
//           misaligned/<TARGET>/<distribution>-<dtype>/<byte offset>/threads:<T>   (BM_Misaligned)
//           scaling/<hot|cold>/<bytes>/tasks:<auto|E>/threads:<T>   (BM_Scaling)
//           stores/<TARGET>/<auto|regular|streaming>/<bytes>/threads:<T>   (BM_Fill)
//           stores/<TARGET>/auto-vs-best[-fresh]/<bytes>/threads:<T>   (BM_StoresPaired)
//           rows/<TARGET>/<distribution>-<dtype>/<rows>x<cols>-stride<S>/threads:<T>   (BM_Rows)
// Rates are bytes of elements written per second (padding excluded), the same
// measure `randtensor generate --repeat` prints.
//
//   randtensor_bench --benchmark_filter='fill/AVX3/packed'   (any Google Benchmark flag)
//   RANDTENSOR_BENCH_THREADS=1,2,4,8,16 randtensor_bench ...  (thread counts to register)

#include <benchmark/benchmark.h>
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ceilings.h"
#include "randtensor/fill.h"
#include "randtensor/targets.h"

namespace {

using randtensor::DataType;
using randtensor::FillOptions;
using randtensor::PhiloxState;
using randtensor::Status;
using randtensor::TensorDesc;

// A 64-byte aligned buffer, pre-faulted with non-zero bytes so no benchmark
// pays for page faults or for the zero page.
class Buffer {
 public:
  explicit Buffer(uint64_t words) : bytes_((words * 4 + 63) / 64 * 64) {
    data_ = static_cast<uint32_t*>(std::aligned_alloc(64, bytes_));
    if (data_ != nullptr) std::memset(data_, 0x5A, bytes_);
  }
  ~Buffer() { std::free(data_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  uint32_t* data() const { return data_; }
  uint64_t bytes() const { return bytes_; }

 private:
  uint64_t bytes_;
  uint32_t* data_;
};

// The layouts of the issue, each built for about `elements` elements.
struct Shape {
  std::vector<int64_t> sizes, strides;
  int64_t elements = 1;
  int64_t span = 1;  // buffer length in elements
};

Shape Finish(std::vector<int64_t> sizes, std::vector<int64_t> strides) {
  Shape s{std::move(sizes), std::move(strides), 1, 1};
  for (size_t d = 0; d < s.sizes.size(); ++d) {
    s.elements *= s.sizes[d];
    s.span += (s.sizes[d] - 1) * s.strides[d];
  }
  return s;
}

// Strides of a row-major layout whose dimensions are padded to `padded`.
std::vector<int64_t> RowMajor(const std::vector<int64_t>& padded) {
  std::vector<int64_t> strides(padded.size());
  int64_t step = 1;
  for (size_t d = padded.size(); d-- > 0;) {
    strides[d] = step;
    step *= padded[d];
  }
  return strides;
}

Shape MakeShape(const std::string& layout, int64_t n) {
  if (layout == "packed") return Finish({n}, {1});
  if (layout == "padded") {  // rows of 1000 elements, pitch 1024 (>= 256 per row)
    const int64_t pitch = n >= 1024 ? 1024 : n, row = n >= 1024 ? 1000 : n * 7 / 8;
    return Finish({n / pitch, row}, {pitch, 1});
  }
  if (layout.rfind("nhwc", 0) == 0) {  // logical NCHW stored NHWC; "nhwcC" channels
    const int64_t c = std::atoll(layout.c_str() + 4);
    const int64_t hw = n / c >= 4096 ? 64 : 1;
    const int64_t w = hw == 64 ? 64 : n / c;
    const int64_t batch = n / (c * hw * w);
    return Finish({batch, c, hw, w}, {hw * w * c, 1, w * c, c});
  }
  if (layout == "colmajor") {  // 2-D, inner stride = rows
    const int64_t rows = n >= 4 * 4096 ? 4096 : 16;
    return Finish({rows, n / rows}, {1, rows});
  }
  if (layout == "odd8d") {  // 8 odd dimensions, each padded by one element
    std::vector<int64_t> sizes = {1, 3, 5, 7, 3, 5, 3, 33};
    int64_t inner = 1;
    for (size_t d = 1; d < sizes.size(); ++d) inner *= sizes[d];
    for (size_t d = 1; inner > n && d < sizes.size(); ++d) {  // small outputs: drop dims
      inner /= sizes[d];
      sizes[d] = 1;
    }
    sizes[0] = std::max<int64_t>(1, n / inner);
    std::vector<int64_t> padded(sizes);
    for (size_t d = 1; d < padded.size(); ++d) padded[d] += 1;
    return Finish(sizes, RowMajor(padded));
  }
  return Finish({n}, {1});
}

TensorDesc DescOf(const Shape& shape) {
  TensorDesc desc;
  desc.rank = static_cast<int32_t>(shape.sizes.size());
  desc.sizes = shape.sizes.data();
  desc.strides = shape.strides.data();
  return desc;
}

uint32_t HardwareThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

// Thread counts to run: RANDTENSOR_BENCH_THREADS="1,2,4,8,16" (for scaling
// curves), else 1 and all hardware threads.
std::vector<uint32_t> ThreadCounts() {
  std::vector<uint32_t> counts;
  if (const char* env = std::getenv("RANDTENSOR_BENCH_THREADS")) {
    for (const char* p = env; *p != '\0';) {
      char* end = nullptr;
      const unsigned long n = std::strtoul(p, &end, 10);
      if (end == p) break;
      if (n > 0) counts.push_back(static_cast<uint32_t>(n));
      p = *end == ',' ? end + 1 : end;
    }
  }
  if (counts.empty()) {
    counts.push_back(1);
    if (HardwareThreads() > 1) counts.push_back(HardwareThreads());
  }
  return counts;
}

std::string SizeName(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30)) return std::to_string(bytes >> 30) + "GiB";
  if (bytes >= (uint64_t{1} << 20)) return std::to_string(bytes >> 20) + "MiB";
  return std::to_string(bytes >> 10) + "KiB";
}

// stores: FillOptions::stores (stores/... registers the packed fill with each
// mode: whether the automatic choice is the faster one on this host).
void BM_Fill(benchmark::State& state, std::string target, std::string layout, uint64_t bytes,
             uint32_t threads, randtensor::StoreMode stores) {
  const Shape shape = MakeShape(layout, static_cast<int64_t>(bytes / 4));
  Buffer buffer(static_cast<uint64_t>(shape.span));
  if (buffer.data() == nullptr) return state.SkipWithError("out of memory");
  if (!randtensor::SetTarget(target.c_str()).ok()) return state.SkipWithError("target");
  const TensorDesc desc = DescOf(shape);
  FillOptions options;
  options.threads = threads;
  options.stores = stores;
  PhiloxState s = PhiloxState::FromSeed(0x5eed);
  for (auto _ : state) {
    const Status status = randtensor::Fill(desc, buffer.data(), buffer.bytes(), s, &s, options);
    if (!status.ok()) return state.SkipWithError(status.message());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * shape.elements * 4);
  if (!randtensor::SetTarget("auto").ok()) state.SkipWithError("SetTarget(\"auto\")");
}

// A layout and the packed tensor of the same size, filled alternately: each
// iteration times the packed fill and then the layout's, and keeps the ratio
// of the two rates. On a shared, noisy host two fills a few milliseconds
// apart see the same load, so the median of these ratios ("vs_packed") is
// steadier than the ratio of two benchmarks run seconds apart. The reported
// time and rate are the layout's.
// Runs fill(0) (the packed tensor) and fill(1) alternately in each
// iteration; the iteration's time is fill(1)'s and "vs_packed" the median of
// the per-iteration ratios of their rates (elements per second).
template <class Fill2>
void TimePaired(benchmark::State& state, double elements0, double elements1, const Fill2& fill,
                const char* counter = "vs_packed") {
  std::vector<double> ratios;
  for (auto _ : state) {
    double seconds[2];
    for (int i = 0; i < 2; ++i) {
      const auto start = std::chrono::steady_clock::now();
      const Status status = fill(i);
      benchmark::ClobberMemory();
      seconds[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!status.ok()) return state.SkipWithError(status.message());
    }
    state.SetIterationTime(seconds[1]);
    ratios.push_back(elements1 / seconds[1] / (elements0 / seconds[0]));
  }
  std::sort(ratios.begin(), ratios.end());
  if (!ratios.empty()) state.counters[counter] = ratios[ratios.size() / 2];
}

void BM_Paired(benchmark::State& state, std::string target, std::string layout, uint64_t bytes,
               uint32_t threads) {
  const int64_t n = static_cast<int64_t>(bytes / 4);
  const Shape shapes[2] = {MakeShape("packed", n), MakeShape(layout, n)};
  Buffer packed(static_cast<uint64_t>(shapes[0].span)), other(static_cast<uint64_t>(shapes[1].span));
  Buffer* buffers[2] = {&packed, &other};
  if (packed.data() == nullptr || other.data() == nullptr) return state.SkipWithError("out of memory");
  if (!randtensor::SetTarget(target.c_str()).ok()) return state.SkipWithError("target");
  const TensorDesc descs[2] = {DescOf(shapes[0]), DescOf(shapes[1])};
  FillOptions options;
  options.threads = threads;
  PhiloxState s = PhiloxState::FromSeed(0x5eed);
  TimePaired(state, static_cast<double>(shapes[0].elements),
             static_cast<double>(shapes[1].elements), [&](int i) {
               return randtensor::Fill(descs[i], buffers[i]->data(), buffers[i]->bytes(), s, &s,
                                       options);
             });
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * shapes[1].elements * 4);
  if (!randtensor::SetTarget("auto").ok()) state.SkipWithError("SetTarget(\"auto\")");
}

// The automatic store mode against both fixed ones on the same host, fill
// by fill: each iteration fills a packed uint32 tensor with kAuto, kRegular
// and kStreaming (in an order that rotates with the iteration), so that a
// host whose speed drifts between runs still compares like with like.
// "vs_best": auto's time over all iterations against the better fixed
// mode's (the faster mode's total time over auto's), what a program that
// fills many times sees; "vs_best_each": the median over iterations of
// auto's rate over the better of that iteration's two fixed rates, which
// is biased low where the modes are close (the better of two noisy rates
// is the luckier one); "vs_regular", "vs_streaming": medians of auto's
// rate over each mode's, iteration by iteration. `fresh`: every
// fill gets a newly mapped buffer (first touch included, as a program that
// allocates its output sees it); else one pre-faulted buffer per mode. The
// reported time is auto's. Auto's own first fills (its timing of each mode)
// are part of what it costs, so they count.
void BM_StoresPaired(benchmark::State& state, std::string target, uint64_t bytes,
                     uint32_t threads, bool fresh) {
  const int64_t n = static_cast<int64_t>(bytes / 4);
  const randtensor::StoreMode modes[3] = {randtensor::StoreMode::kAuto,
                                          randtensor::StoreMode::kRegular,
                                          randtensor::StoreMode::kStreaming};
  std::vector<std::unique_ptr<Buffer>> kept;
  for (int m = 0; m < 3 && !fresh; ++m) {
    kept.emplace_back(new Buffer(static_cast<uint64_t>(n)));
    if (kept.back()->data() == nullptr) return state.SkipWithError("out of memory");
  }
  if (!randtensor::SetTarget(target.c_str()).ok()) return state.SkipWithError("target");
  TensorDesc desc;
  desc.dtype = DataType::kUint32;
  desc.rank = 1;
  desc.sizes = &n;
  PhiloxState s = PhiloxState::FromSeed(0x5eed);
  std::vector<double> ratios[3];  // auto over best, regular, streaming
  double total_seconds[3] = {0, 0, 0};
  uint64_t iteration = 0;
  for (auto _ : state) {
    double rate[3];
    for (int k = 0; k < 3; ++k) {
      const int m = static_cast<int>((iteration + k) % 3);
      void* out = fresh ? mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                        : kept[m]->data();
      if (out == MAP_FAILED) return state.SkipWithError("mmap");
      FillOptions options;
      options.threads = threads;
      options.stores = modes[m];
      const auto start = std::chrono::steady_clock::now();
      const Status status = randtensor::Fill(desc, out, bytes, s, &s, options);
      benchmark::ClobberMemory();
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (fresh) munmap(out, bytes);
      if (!status.ok()) return state.SkipWithError(status.message());
      rate[m] = static_cast<double>(bytes) / seconds;
      total_seconds[m] += seconds;
      if (m == 0) state.SetIterationTime(seconds);
    }
    ratios[0].push_back(rate[0] / std::max(rate[1], rate[2]));
    ratios[1].push_back(rate[0] / rate[1]);
    ratios[2].push_back(rate[0] / rate[2]);
    ++iteration;
  }
  const char* names[3] = {"vs_best_each", "vs_regular", "vs_streaming"};
  for (int i = 0; i < 3; ++i) {
    std::sort(ratios[i].begin(), ratios[i].end());
    if (!ratios[i].empty()) state.counters[names[i]] = ratios[i][ratios[i].size() / 2];
  }
  if (total_seconds[0] > 0) {
    state.counters["vs_best"] = std::min(total_seconds[1], total_seconds[2]) / total_seconds[0];
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * n * 4);
  if (!randtensor::SetTarget("auto").ok()) state.SkipWithError("SetTarget(\"auto\")");
}

// A region of 1/16 of a 1 GiB global tensor (16384 x 16384 uint32) and a
// packed fill of the same element count, alternately, as BM_Paired: a slab
// (1024 whole rows: one run of the stream) or a column block (all rows,
// 1024 columns: 16384 runs of 1024). "vs_packed" is the median ratio.
void BM_Region(benchmark::State& state, std::string kind, uint32_t threads) {
  constexpr int64_t kSide = 16384, kPart = 1024;
  const int64_t global[2] = {kSide, kSide};
  const int64_t start[2] = {kind == "slab" ? 5 * kPart : 0, kind == "slab" ? 0 : 5 * kPart};
  const int64_t sizes[2] = {kind == "slab" ? kPart : kSide, kind == "slab" ? kSide : kPart};
  const int64_t n = kSide * kPart;
  Buffer packed(static_cast<uint64_t>(n)), local(static_cast<uint64_t>(n));
  if (packed.data() == nullptr || local.data() == nullptr) return state.SkipWithError("out of memory");
  TensorDesc packed_desc, region_desc;
  packed_desc.rank = 1;
  packed_desc.sizes = &n;
  region_desc.rank = 2;
  region_desc.sizes = sizes;
  randtensor::Region region;
  region.rank = 2;
  region.global_sizes = global;
  region.start = start;
  FillOptions options;
  options.threads = threads;
  FillOptions region_options = options;
  region_options.region = &region;
  PhiloxState s = PhiloxState::FromSeed(0x5eed);
  PhiloxState out;
  TimePaired(state, static_cast<double>(n), static_cast<double>(n), [&](int i) {
    return i == 0 ? randtensor::Fill(packed_desc, packed.data(), packed.bytes(), s, &out, options)
                  : randtensor::Fill(region_desc, local.data(), local.bytes(), s, &out,
                                     region_options);
  });
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * n * 4);
}

// The distributions of SPEC.md section 8 the speed goals name.
struct DistCase {
  const char* name;
  DataType dtype;
  randtensor::Distribution dist;
};
std::vector<DistCase> DistCases() {
  using randtensor::Distribution;
  return {{"uniform-float32", DataType::kFloat32, Distribution::Uniform(0, 1)},
          {"uniform-float16", DataType::kFloat16, Distribution::Uniform(0, 1)},
          {"uniform-bfloat16", DataType::kBfloat16, Distribution::Uniform(0, 1)},
          {"uniform-float64", DataType::kFloat64, Distribution::Uniform(0, 1)},
          {"normal-float32", DataType::kFloat32, Distribution::Normal(0, 1)},
          {"normal-float16", DataType::kFloat16, Distribution::Normal(0, 1)},
          {"normal-float64", DataType::kFloat64, Distribution::Normal(0, 1)},
          {"bernoulli-uint8", DataType::kUint8, Distribution::Bernoulli(0.5)},
          {"bernoulli-float32", DataType::kFloat32, Distribution::Bernoulli(0.5)},
          {"integers-int32", DataType::kInt32, Distribution::Integers(0, 1000)},
          {"integers-int64", DataType::kInt64, Distribution::Integers(0, 1000)},
          {"integers-int64-wide", DataType::kInt64, Distribution::Integers(0, int64_t{1} << 40)},
          // Converters with long math (a logarithm), converted from L1.
          {"exponential-float32", DataType::kFloat32, Distribution::Exponential(1)},
          {"geometric-int32", DataType::kInt32, Distribution::Geometric(0.2)}};
}

// A distribution's fill and the uint32 bits fill of the same element count
// (both packed, 1-D), alternately, as BM_Paired: "vs_bits" is the median
// ratio of their elements per second, the measure of the distributions
// issue's speed goals; the reported rate is bytes of the distribution's
// elements.
void BM_Dist(benchmark::State& state, std::string target, DistCase c, int64_t n,
             uint32_t threads) {
  const int size = randtensor::ElementSize(c.dtype);
  Buffer bits(static_cast<uint64_t>(n)), out((static_cast<uint64_t>(n) * size + 3) / 4);
  if (bits.data() == nullptr || out.data() == nullptr) return state.SkipWithError("out of memory");
  if (!randtensor::SetTarget(target.c_str()).ok()) return state.SkipWithError("target");
  TensorDesc descs[2];
  for (TensorDesc& d : descs) d.rank = 1, d.sizes = &n;
  descs[1].dtype = c.dtype;
  FillOptions options[2];
  for (FillOptions& o : options) o.threads = threads;
  options[1].distribution = c.dist;
  Buffer* buffers[2] = {&bits, &out};
  PhiloxState s = PhiloxState::FromSeed(0x5eed);
  TimePaired(
      state, static_cast<double>(n), static_cast<double>(n),
      [&](int i) {
        return randtensor::Fill(descs[i], buffers[i]->data(), buffers[i]->bytes(), s, &s,
                                options[i]);
      },
      "vs_bits");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * n * size);
  state.counters["elements_per_second"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
  if (!randtensor::SetTarget("auto").ok()) state.SkipWithError("SetTarget(\"auto\")");
}

// A replay of PyTorch's CUDA order (H100 geometry) and the stream-order fill
// of the same distribution and element count, alternately, as BM_Paired:
// "vs_stream" is the median ratio of their elements per second, the measure
// of the replay issue's goal (>= 0.25 where every element takes its own
// Philox block, n <= 270336 on an H100; stream speed above).
void BM_Replay(benchmark::State& state, std::string target, DistCase c, int64_t n,
               uint32_t threads) {
  const int size = randtensor::ElementSize(c.dtype);
  Buffer stream((static_cast<uint64_t>(n) * size + 3) / 4), replay(stream.bytes() / 4);
  if (stream.data() == nullptr || replay.data() == nullptr) return state.SkipWithError("out of memory");
  if (!randtensor::SetTarget(target.c_str()).ok()) return state.SkipWithError("target");
  TensorDesc desc;
  desc.rank = 1;
  desc.sizes = &n;
  desc.dtype = c.dtype;
  FillOptions options[2];
  for (FillOptions& o : options) o.threads = threads, o.distribution = c.dist;
  options[1].order = randtensor::ElementOrder::kTorchCuda;
  options[1].gpu = randtensor::FindGpuPreset("h100-sxm")->geometry;
  Buffer* buffers[2] = {&stream, &replay};
  PhiloxState s = PhiloxState::FromSeed(0x5eed), out;
  TimePaired(
      state, static_cast<double>(n), static_cast<double>(n),
      [&](int i) {
        return randtensor::Fill(desc, buffers[i]->data(), buffers[i]->bytes(), s, &out,
                                options[i]);
      },
      "vs_stream");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * n * size);
  state.counters["elements_per_second"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
  if (!randtensor::SetTarget("auto").ok()) state.SkipWithError("SetTarget(\"auto\")");
}

// Short padded rows (issue 32): `rows` rows of `cols` elements, `stride`
// elements apart, and the packed tensor of the same sizes, alternately, as
// BM_Paired: "vs_packed" is the median ratio of their rates. Rows this short
// are where per-row costs show (a run restarted per row, a partial vector
// per row); the reported rate is the padded fill's, padding excluded.
void BM_Rows(benchmark::State& state, std::string target, DistCase c, int64_t rows, int64_t cols,
             int64_t stride, uint32_t threads) {
  const int size = randtensor::ElementSize(c.dtype);
  const int64_t sizes[2] = {rows, cols}, strides[2] = {stride, 1};
  Buffer packed((static_cast<uint64_t>(rows * cols) * size + 3) / 4),
      padded((static_cast<uint64_t>((rows - 1) * stride + cols) * size + 3) / 4);
  if (packed.data() == nullptr || padded.data() == nullptr) {
    return state.SkipWithError("out of memory");
  }
  if (!randtensor::SetTarget(target.c_str()).ok()) return state.SkipWithError("target");
  TensorDesc descs[2];
  for (TensorDesc& d : descs) d.rank = 2, d.sizes = sizes, d.dtype = c.dtype;
  descs[1].strides = strides;
  FillOptions options;
  options.threads = threads;
  options.distribution = c.dist;
  Buffer* buffers[2] = {&packed, &padded};
  PhiloxState s = PhiloxState::FromSeed(0x5eed);
  TimePaired(state, static_cast<double>(rows * cols), static_cast<double>(rows * cols),
             [&](int i) {
               return randtensor::Fill(descs[i], buffers[i]->data(), buffers[i]->bytes(), s, &s,
                                       options);
             });
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * rows * cols * size);
  if (!randtensor::SetTarget("auto").ok()) state.SkipWithError("SetTarget(\"auto\")");
}

// A distribution's fill into a buffer `offset` bytes past a 64-byte boundary
// (NumPy's np.empty of a large array: glibc's mmap + 16) and the same fill
// into a 64-byte aligned buffer, alternately, as BM_Paired: "vs_aligned" is
// the median ratio of their rates; the reported rate is the misaligned
// fill's. Stores as FillOptions' default (kAuto: streamed at this size).
void BM_Misaligned(benchmark::State& state, std::string target, DistCase c, uint64_t offset,
                   int64_t n, uint32_t threads) {
  const int size = randtensor::ElementSize(c.dtype);
  const uint64_t bytes = static_cast<uint64_t>(n) * size;
  Buffer aligned((bytes + 3) / 4), shifted((bytes + offset + 3) / 4);
  if (aligned.data() == nullptr || shifted.data() == nullptr) {
    return state.SkipWithError("out of memory");
  }
  if (!randtensor::SetTarget(target.c_str()).ok()) return state.SkipWithError("target");
  TensorDesc desc;
  desc.rank = 1;
  desc.sizes = &n;
  desc.dtype = c.dtype;
  FillOptions options;
  options.threads = threads;
  options.distribution = c.dist;
  void* data[2] = {aligned.data(), reinterpret_cast<char*>(shifted.data()) + offset};
  PhiloxState s = PhiloxState::FromSeed(0x5eed);
  TimePaired(
      state, static_cast<double>(n), static_cast<double>(n),
      [&](int i) { return randtensor::Fill(desc, data[i], bytes, s, &s, options); },
      "vs_aligned");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
  if (!randtensor::SetTarget("auto").ok()) state.SkipWithError("SetTarget(\"auto\")");
}

// Runs fn(begin, end) over [0, n) split evenly across `threads` OpenMP threads.
template <class Fn>
void Split(uint64_t n, uint32_t threads, const Fn& fn) {
#pragma omp parallel num_threads(static_cast<int>(threads))
  {
    const uint64_t t = static_cast<uint64_t>(omp_get_thread_num());
    const uint64_t k = static_cast<uint64_t>(omp_get_num_threads());
    // Chunks of 512 words keep the reference kernel's blocks whole.
    const uint64_t chunks = n / 512;
    fn(chunks * t / k * 512, chunks * (t + 1) / k * 512);
  }
}

void BM_Ceiling(benchmark::State& state, std::string kind, uint64_t bytes, uint32_t threads) {
  const uint64_t n = bytes / 4;
  Buffer buffer(n);
  if (buffer.data() == nullptr) return state.SkipWithError("out of memory");
  uint32_t* p = buffer.data();
  uint32_t round = 0;
  for (auto _ : state) {
    const uint32_t value = 0x9E3779B9u * ++round;  // never zero for long
    Split(n, threads, [&](uint64_t begin, uint64_t end) {
      if (kind == "stream") randtensor_bench::FillStreaming(p + begin, end - begin, value);
      if (kind == "regular") randtensor_bench::FillRegular(p + begin, end - begin, value);
      if (kind == "memset") std::memset(p + begin, 0x5B, (end - begin) * 4);
      if (kind == "reference")
        randtensor_bench::ReferencePhilox(p + begin, end - begin, begin / 4, round, 7);
      if (kind == "reference-avx2")
        randtensor_bench::ReferencePhiloxAvx2(p + begin, end - begin, begin / 4, round, 7);
      if (kind == "reference-sse4")
        randtensor_bench::ReferencePhiloxSse4(p + begin, end - begin, begin / 4, round, 7);
      if (kind == "reference-stream")
        randtensor_bench::ReferencePhiloxStreaming(p + begin, end - begin, begin / 4, round, 7);
      if (kind == "random123")
        randtensor_bench::Random123Loop(p + begin, end - begin, begin / 4, round, 7);
    });
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * (n / 512 * 512) * 4));
}

// Thread scaling of mid-size packed fills: `tasks` is FillOptions::task_elements
// (0: the library's choice). "hot" fills back to back, so the pool's workers
// are still spinning from the last call; "cold" sleeps 2 ms (untimed) before
// each call, longer than the workers spin, so every call pays their wake-up,
// as a program that fills now and then does. The per-call time is the
// median ("median_us"), the rate is elements per second of that median.
void BM_Scaling(benchmark::State& state, uint64_t bytes, uint64_t tasks, uint32_t threads,
                bool cold) {
  const int64_t n = static_cast<int64_t>(bytes / 4);
  Buffer buffer(static_cast<uint64_t>(n));
  if (buffer.data() == nullptr) return state.SkipWithError("out of memory");
  const int64_t sizes[1] = {n};
  TensorDesc desc;
  desc.rank = 1;
  desc.sizes = sizes;
  FillOptions options;
  options.threads = threads;
  options.task_elements = tasks;
  PhiloxState s = PhiloxState::FromSeed(0x5eed);
  std::vector<double> seconds;
  for (auto _ : state) {
    if (cold) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const auto start = std::chrono::steady_clock::now();
    const Status status = randtensor::Fill(desc, buffer.data(), buffer.bytes(), s, &s, options);
    benchmark::ClobberMemory();
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!status.ok()) return state.SkipWithError(status.message());
    state.SetIterationTime(t);
    seconds.push_back(t);
  }
  std::sort(seconds.begin(), seconds.end());
  if (seconds.empty()) return;
  const double median = seconds[seconds.size() / 2];
  state.counters["median_us"] = median * 1e6;
  state.counters["elements_per_second"] = static_cast<double>(n) / median;
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * n * 4);
}

// Per-call cost of a tiny fill, validation and dispatch included.
void BM_Overhead(benchmark::State& state, std::string target) {
  if (!randtensor::SetTarget(target.c_str()).ok()) return state.SkipWithError("target");
  uint32_t out[16];
  const int64_t sizes[1] = {16};
  TensorDesc desc;
  desc.rank = 1;
  desc.sizes = sizes;
  FillOptions options;
  options.threads = 1;
  PhiloxState s = PhiloxState::FromSeed(1);
  for (auto _ : state) {
    const Status status = randtensor::Fill(desc, out, sizeof(out), s, &s, options);
    if (!status.ok()) return state.SkipWithError(status.message());
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  if (!randtensor::SetTarget("auto").ok()) state.SkipWithError("SetTarget(\"auto\")");
}

void RegisterAll() {
  const std::vector<uint64_t> sizes = {uint64_t{1} << 10, uint64_t{256} << 10,
                                       uint64_t{64} << 20, uint64_t{1} << 30};
  const std::vector<std::string> layouts = {"packed", "padded",   "nhwc3", "nhwc16",
                                            "nhwc64", "colmajor", "odd8d"};
  const std::vector<uint32_t> thread_counts = ThreadCounts();

  for (const char* kind : {"slab", "columns"}) {
    for (uint32_t threads : thread_counts) {
      benchmark::RegisterBenchmark(
          (std::string("region/") + kind + "/1GiB-sixteenth/threads:" + std::to_string(threads))
              .c_str(),
          BM_Region, std::string(kind), threads)
          ->UseManualTime();
    }
  }
  // Mid-size thread scaling (packed bits, the best target): the library's task
  // size and fixed ones, workers hot and cold.
  for (uint64_t bytes : {uint64_t{64} << 10, uint64_t{256} << 10, uint64_t{1} << 20,
                         uint64_t{4} << 20, uint64_t{16} << 20}) {
    for (uint64_t tasks : {uint64_t{0}, uint64_t{4096}, uint64_t{16384}, uint64_t{65536}}) {
      for (uint32_t threads : thread_counts) {
        for (bool cold : {false, true}) {
          const std::string name = std::string("scaling/") + (cold ? "cold/" : "hot/") +
                                   SizeName(bytes) + "/tasks:" +
                                   (tasks == 0 ? std::string("auto") : std::to_string(tasks)) +
                                   "/threads:" + std::to_string(threads);
          auto* b = benchmark::RegisterBenchmark(name.c_str(), BM_Scaling, bytes, tasks, threads,
                                                 cold);
          b->UseManualTime();
          if (cold) b->Iterations(300);  // the untimed sleeps would run for minutes
        }
      }
    }
  }
  for (int i = 0; i < randtensor::TargetCount(); ++i) {
    randtensor::TargetInfo info;
    if (!randtensor::GetTarget(i, &info).ok() || !info.supported) continue;
    const std::string target = info.name;
    benchmark::RegisterBenchmark(("overhead/" + target + "/16-elements").c_str(), BM_Overhead,
                                 target);
    // 64 Ki elements (in L2) and 64 Mi (memory-bound).
    for (const DistCase& c : DistCases()) {
      for (int64_t n : {int64_t{1} << 16, int64_t{1} << 26}) {
        for (uint32_t threads : thread_counts) {
          const std::string name = "dist/" + target + "/" + c.name + "/" +
                                   std::to_string(n >> 10) + "Ki/threads:" +
                                   std::to_string(threads);
          benchmark::RegisterBenchmark(name.c_str(), BM_Dist, target, c, n, threads)
              ->UseManualTime();
        }
      }
    }
    // Replay: one element per GPU thread (64 Ki) and 62 blocks per thread (64 Mi).
    for (const DistCase& c : DistCases()) {
      const std::string name = c.name;
      if (name != "uniform-float32" && name != "normal-float32" && name != "uniform-bfloat16" &&
          name != "exponential-float32") {
        continue;
      }
      for (int64_t n : {int64_t{1} << 16, int64_t{1} << 26}) {
        for (uint32_t threads : thread_counts) {
          benchmark::RegisterBenchmark(("replay/" + target + "/torch_cuda-" + name + "/" +
                                        std::to_string(n >> 10) + "Ki/threads:" +
                                        std::to_string(threads))
                                           .c_str(),
                                       BM_Replay, target, c, n, threads)
              ->UseManualTime();
        }
      }
    }
    // Short padded rows: 1024 x 256 with row stride 272 (rows of whole
    // vectors of Philox blocks), and 1024 x 250 at the same stride (vectors
    // that cross row ends); and by row length: 32 and 64 elements (a few
    // vectors of blocks on AVX2, a vector or less on AVX-512), 240 (on
    // AVX2 15 vectors: three whole groups, so every row ends on the same
    // slot of a group), 36 and 100 (vectors that cross row ends).
    struct RowShape {
      int64_t rows, cols, stride;
    };
    const DistCase bits = {"bits-uint32", DataType::kUint32, randtensor::Distribution::Bits()};
    const DistCase uniform = {"uniform-float32", DataType::kFloat32,
                              randtensor::Distribution::Uniform(0, 1)};
    // Normals are made in pairs, so their word vectors are not placed one
    // by one: rows that vectors cross spill through L1, or are staged where
    // short (src/writer.cc, InPlaceRows).
    const DistCase normal = {"normal-float32", DataType::kFloat32,
                             randtensor::Distribution::Normal(0, 1)};
    std::vector<std::pair<DistCase, RowShape>> row_cases;
    for (const DistCase& c : {bits, uniform, normal}) {
      for (const RowShape& shape : {RowShape{1024, 256, 272}, RowShape{1024, 250, 272},
                                    RowShape{4096, 32, 40}, RowShape{4096, 64, 80},
                                    RowShape{1024, 240, 272}, RowShape{4096, 36, 40},
                                    RowShape{2048, 68, 76}, RowShape{2048, 84, 92},
                                    RowShape{1024, 100, 112}}) {
        row_cases.push_back({c, shape});
      }
    }
    // 2- and 1-byte elements, whose crossing vectors' pieces are not whole
    // 4-byte words.
    const DistCase half = {"uniform-float16", DataType::kFloat16,
                           randtensor::Distribution::Uniform(0, 1)};
    const DistCase bytes = {"bernoulli-uint8", DataType::kUint8,
                            randtensor::Distribution::Bernoulli(0.5)};
    // bfloat16, whose uniform values AVX-512 converts two word vectors at a
    // time.
    const DistCase bf16 = {"uniform-bfloat16", DataType::kBfloat16,
                           randtensor::Distribution::Uniform(0, 1)};
    // Long math (an exponential; float64 normals), whose rows that vectors
    // cross spill through L1 or are staged, the copies small beside the
    // math.
    const DistCase exponential = {"exponential-float32", DataType::kFloat32,
                                  randtensor::Distribution::Exponential(1)};
    const DistCase normal64 = {"normal-float64", DataType::kFloat64,
                               randtensor::Distribution::Normal(0, 1)};
    for (const DistCase& c : {half, bytes, bf16, exponential, normal64}) {
      for (const RowShape& shape :
           {RowShape{4096, 36, 40}, RowShape{1024, 100, 112}, RowShape{1024, 250, 272}}) {
        row_cases.push_back({c, shape});
      }
    }
    for (const auto& [c, shape] : row_cases) {
      for (uint32_t threads : thread_counts) {
        benchmark::RegisterBenchmark(("rows/" + target + "/" + c.name + "/" +
                                      std::to_string(shape.rows) + "x" +
                                      std::to_string(shape.cols) + "-stride" +
                                      std::to_string(shape.stride) + "/threads:" +
                                      std::to_string(threads))
                                         .c_str(),
                                     BM_Rows, target, c, shape.rows, shape.cols, shape.stride,
                                     threads)
            ->UseManualTime();
      }
    }
    // Misaligned outputs (64 Mi elements): 16 bytes past a 64-byte boundary
    // (NumPy's large arrays), one element past one, and for bytes two.
    for (const DistCase& c : DistCases()) {
      const uint64_t size = static_cast<uint64_t>(randtensor::ElementSize(c.dtype));
      std::vector<uint64_t> offsets = {16, size};
      if (size == 1) offsets.push_back(2);
      for (const uint64_t offset : offsets) {
        for (uint32_t threads : thread_counts) {
          benchmark::RegisterBenchmark(("misaligned/" + target + "/" + c.name + "/" +
                                        std::to_string(offset) + "/threads:" +
                                        std::to_string(threads))
                                           .c_str(),
                                       BM_Misaligned, target, c, offset, int64_t{1} << 26, threads)
              ->UseManualTime();
        }
      }
    }
    const std::pair<const char*, randtensor::StoreMode> modes[] = {
        {"auto", randtensor::StoreMode::kAuto},
        {"regular", randtensor::StoreMode::kRegular},
        {"streaming", randtensor::StoreMode::kStreaming}};
    for (uint64_t bytes : sizes) {
      if (bytes < (uint64_t{64} << 20)) continue;  // kAuto's choice is for larger outputs
      for (const bool fresh : {false, true}) {
        for (uint32_t threads : thread_counts) {
          benchmark::RegisterBenchmark(("stores/" + target + "/auto-vs-best" +
                                        (fresh ? "-fresh/" : "/") + SizeName(bytes) +
                                        "/threads:" + std::to_string(threads))
                                           .c_str(),
                                       BM_StoresPaired, target, bytes, threads, fresh)
              ->UseManualTime();
        }
      }
    }
    for (const auto& mode : modes) {
      for (uint64_t bytes : sizes) {
        if (bytes < (uint64_t{1} << 20)) continue;  // no streaming below the caches anyway
        for (uint32_t threads : thread_counts) {
          benchmark::RegisterBenchmark(("stores/" + target + "/" + mode.first + "/" +
                                        SizeName(bytes) + "/threads:" + std::to_string(threads))
                                           .c_str(),
                                       BM_Fill, target, std::string("packed"), bytes, threads,
                                       mode.second)
              ->UseRealTime();
        }
      }
    }
    for (const std::string& layout : layouts) {
      for (uint64_t bytes : sizes) {
        for (uint32_t threads : thread_counts) {
          const std::string name = "fill/" + target + "/" + layout + "/" + SizeName(bytes) +
                                   "/threads:" + std::to_string(threads);
          benchmark::RegisterBenchmark(name.c_str(), BM_Fill, target, layout, bytes, threads,
                                       randtensor::StoreMode::kAuto)
              ->UseRealTime();
          if (layout == "packed" || bytes < (uint64_t{64} << 20)) continue;
          benchmark::RegisterBenchmark(("paired" + name.substr(4)).c_str(), BM_Paired, target,
                                       layout, bytes, threads)
              ->UseManualTime();
        }
      }
    }
  }
  for (const char* kind :
       {"stream", "regular", "memset", "reference", "reference-stream", "reference-avx2",
        "reference-sse4", "random123"}) {
    const std::string k = kind;
    if ((k == "reference" || k == "reference-stream") && !randtensor_bench::HasAvx512()) continue;
    if (k == "reference-avx2" && !__builtin_cpu_supports("avx2")) continue;
    for (uint64_t bytes : sizes) {
      if (bytes < 2048) continue;  // the reference kernel works in 2 KiB steps
      for (uint32_t threads : thread_counts) {
        const std::string name = std::string("ceiling/") + kind + "/" + SizeName(bytes) +
                                 "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(name.c_str(), BM_Ceiling, std::string(kind), bytes,
                                     threads)
            ->UseRealTime();
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  RegisterAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
