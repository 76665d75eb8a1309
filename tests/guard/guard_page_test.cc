// Memory safety against guard pages: every fill runs with its span flush
// against a PROT_NONE page (or a few bytes from one, to vary alignment), so a
// stray read or write just outside the span faults, and the child process
// that ran it reports which case did it. Inside the span, every byte that is
// not an element must keep its guard pattern and every element must hold the
// oracle's value (test_util.h).
//
// The cross product (layout x size x target x threads x tile x offset x
// stores x placement) is far too big to enumerate, so each test walks one
// axis completely (a layout family through every interesting size, or every
// 4-byte position within a 64-byte line) and draws the other settings from
// a fixed-seed generator: every run checks the same cases.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "guard_util.h"
#include "randtensor/directml.h"
#include "randtensor/fill.h"
#include "test_util.h"

namespace {

using randtensor::PhiloxState;
using randtensor::StoreMode;
using rt_guard::CaseLog;
using rt_guard::Edge;
using rt_guard::GuardedTensor;
using rt_guard::GuardPageBuffer;
using rt_guard::Padded;
using rt_test::FillCase;
using rt_test::Shape;

// Around every vector width (4, 8, 16 lanes) and the writer's switches from
// staged to in-place rows (a vector of Philox blocks: 8, 16 or 64 uint32
// elements; 128 elements).
const std::vector<int64_t> kVectorSizes = {1,  3,  4,  5,  15, 16,  17,  31,
                                           32, 33, 63, 64, 65, 127, 128, 129};
// Past the writer's 4096-word staging buffer and the kernel's 1024-word
// streaming stage, ending at every residue mod 4.
const std::vector<int64_t> kLongSizes = {257, 1031, 4099, 4100, 8195};

std::vector<int64_t> AllSizes() {
  std::vector<int64_t> out = kVectorSizes;
  out.insert(out.end(), kLongSizes.begin(), kLongSizes.end());
  return out;
}

// ------------------------------------------------------------- sampling

// The fixed-seed draws for everything a test does not walk completely.
class Sampler {
 public:
  explicit Sampler(uint64_t seed) : rng_(seed) {}

  std::mt19937_64& rng() { return rng_; }
  int64_t Between(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo + 1));
  }
  template <class T>
  T Pick(const std::vector<T>& options) {
    return options[rng_() % options.size()];
  }
  bool Coin() { return (rng_() & 1) != 0; }

  // Threads: inline and several (more than this machine's cores); tiles:
  // automatic and tiny (a tiny tile with threads cuts the tensor into many
  // tasks whose edges fall mid-row and mid-block).
  uint32_t Threads() { return Pick<uint32_t>({1, 1, 2, 3, 8}); }
  uint64_t Tile() { return Pick<uint64_t>({0, 0, 4, 5, 12, 64}); }
  // Half flush against the guard, half at another 4-byte position in a line.
  uint64_t Gap() { return Coin() ? 0 : 4 * static_cast<uint64_t>(Between(1, 15)); }
  // Counters anywhere or just below a 32-, 64- or 128-bit carry.
  PhiloxState State() {
    return rt_test::EdgeState(rng_, static_cast<int>(Between(0, 3)),
                              static_cast<uint32_t>(Between(0, 40)));
  }
  // A permutation of 0 .. rank-1.
  std::vector<int> Order(size_t rank) {
    std::vector<int> order = rt_test::IdentityOrder(rank);
    std::shuffle(order.begin(), order.end(), rng_);
    return order;
  }
  std::vector<int64_t> Pads(size_t rank, int64_t most) {
    std::vector<int64_t> pads(rank);
    for (int64_t& p : pads) p = Between(0, most);
    return pads;
  }

 private:
  std::mt19937_64 rng_;
};

// A seed per test and target, stable across runs and machines.
uint64_t SeedOf(const std::string& test, const char* target) {
  uint64_t h = 0xcbf29ce484222325u;  // FNV-1a
  for (char ch : test + "/" + target) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001b3u;
  return h;
}

// ------------------------------------------------------------- one native case

struct GuardCase {
  FillCase fill;
  Edge edge = Edge::kTrailing;
  uint64_t gap_bytes = 0;
  bool in_place_state = false;  // out_state is the input state's memory

  std::string Describe() const {
    return fill.Describe() + " edge " + rt_guard::EdgeName(edge) + " gap " +
           std::to_string(gap_bytes) + (in_place_state ? " state in place" : "");
  }
};

GuardCase DrawCase(Sampler& s, const Shape& shape, StoreMode stores, Edge edge) {
  GuardCase c;
  c.fill.shape = shape;
  c.fill.state = s.State();
  c.fill.element_offset = static_cast<uint64_t>(s.Between(0, 3));
  c.fill.threads = s.Threads();
  c.fill.task_elements = s.Tile();
  c.fill.stores = stores;
  c.edge = edge;
  c.gap_bytes = s.Gap();
  c.in_place_state = s.Coin();
  return c;
}

::testing::AssertionResult Succeeded(const randtensor::Status& status) {
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "the call failed: " << status.message();
}

// The input and output state, each its 24 bytes flush against a guard page
// (or one buffer for both: the in-place update DirectML intends).
class GuardedStates {
 public:
  GuardedStates(const PhiloxState& input, Edge edge, bool in_place)
      : input_(sizeof(PhiloxState), edge, 0),
        output_(sizeof(PhiloxState), edge, 0),
        in_place_(in_place) {
    if (ok()) std::memcpy(input_.span(), input.words, sizeof(PhiloxState));
  }

  bool ok() const { return input_.ok() && output_.ok(); }
  void* input() { return input_.span(); }
  void* output() { return in_place_ ? input_.span() : output_.span(); }

  // The output state is the rule's; a separate input state is untouched.
  ::testing::AssertionResult Hold(const PhiloxState& input, rt_test::u128 consumed) {
    PhiloxState got;
    std::memcpy(got.words, output(), sizeof(PhiloxState));
    ::testing::AssertionResult result =
        rt_test::StatesEqual(got, rt_test::ExpectedOutState(input, consumed));
    if (!result || in_place_) return result << " (output state)";
    std::memcpy(got.words, input_.span(), sizeof(PhiloxState));
    return rt_test::StatesEqual(got, input) << " (input state)";
  }

 private:
  GuardPageBuffer input_, output_;
  bool in_place_;
};

// Logs the start of `c` with its placement as the call sees it (where the
// span starts within a 64-byte line, what is declared beyond its end);
// false if the mappings failed.
bool BeginCase(const std::string& api, GuardCase c, GuardedTensor& t, const GuardedStates& states,
               uint64_t declared_extra, CaseLog& log) {
  c.fill.misalign_bytes = reinterpret_cast<uintptr_t>(t.buffer.span()) % 64;
  c.fill.extra_bytes = declared_extra;
  log.Begin(api + " " + c.Describe());
  return log.Check(::testing::AssertionResult(t.buffer.ok() && states.ok()) << "mmap failed");
}

// Fills `c` with the span, the input state and the output state each flush
// against guard pages, and checks every accessible byte.
void RunCase(const GuardCase& c, CaseLog& log) {
  GuardedTensor t(c.fill.shape, c.edge, c.gap_bytes);
  GuardedStates states(c.fill.state, c.edge, c.in_place_state);
  if (!BeginCase("Fill", c, t, states, t.declared - t.bytes, log)) return;
  const randtensor::Status status =
      randtensor::Fill(rt_test::DescOf(c.fill.shape), t.span_begin(), t.declared,
                       *static_cast<const PhiloxState*>(states.input()),
                       static_cast<PhiloxState*>(states.output()), rt_guard::OptionsOf(c.fill));
  if (!log.Check(Succeeded(status))) return;
  log.Check(t.buffer.Holds(t.Expected(c.fill.state, c.fill.element_offset), t.origin()));
  log.Check(states.Hold(c.fill.state, rt_guard::Consumed(c.fill)));
}

// Tells the reader of the log how much a test checked.
void NoteCases(const rt_guard::ChildOutcome& out, const char* target) {
  std::printf("[  cases   ] %s: %llu guarded fills\n", target,
              static_cast<unsigned long long>(out.cases));
}

// Draws of threads, tile, offset, gap and state per shape, store mode and edge.
constexpr int kDraws = 3;

// The four store x placement combinations of every shape, each with its own
// draws for the rest; one child per target.
void CheckShapes(const std::vector<Shape>& shapes, uint64_t seed, const char* target) {
  const rt_guard::ChildOutcome out = rt_guard::RunIsolated([&](CaseLog& log) {
    Sampler s(seed);
    for (const Shape& shape : shapes) {
      for (StoreMode stores : {StoreMode::kRegular, StoreMode::kStreaming}) {
        for (Edge edge : {Edge::kTrailing, Edge::kLeading}) {
          for (int draw = 0; draw < kDraws; ++draw) RunCase(DrawCase(s, shape, stores, edge), log);
        }
      }
    }
  });
  NoteCases(out, target);
  if (out.ran_to_end()) {  // a child cut short has already said why
    EXPECT_EQ(out.cases, 4 * kDraws * shapes.size());
  }
}

// Runs the shapes `family` draws through CheckShapes on every target.
template <class Family>
void CheckFamilyOnEveryTarget(const Family& family) {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  rt_test::ForEachSupportedTarget([&](const randtensor::TargetInfo& target) {
    Sampler s(SeedOf(test + "/shapes", target.name));
    CheckShapes(family(s), SeedOf(test, target.name), target.name);
  });
}

// ------------------------------------------------------------- layout families

// Packed, 1-D and with size-1 dimensions (dropped, then merged into one row).
std::vector<Shape> PackedShapes(Sampler&) {
  std::vector<Shape> out;
  for (int64_t n : AllSizes()) {
    out.push_back(Shape{{n}, {}});
    out.push_back(Shape{{1, 2, 1, n}, {}});
  }
  return out;
}

// Rows padded apart: in place from 128 elements, and shorter rows that are
// whole vectors of Philox blocks (several rows per kernel call); the other
// short rows staged.
std::vector<Shape> PaddedRowShapes(Sampler& s) {
  std::vector<Shape> out;
  for (int64_t n : AllSizes()) {
    const int64_t rows = n > 1000 ? 2 : s.Between(2, 6);
    out.push_back(Padded({rows, n}, {0, s.Between(1, 17)}));
    out.push_back(Padded({2, s.Between(2, 3), n}, {0, s.Between(1, 9), s.Between(1, 9)}));
  }
  return out;
}

// NHWC: channels innermost in memory (stride 1) but not logically; every
// channel count from 1 to 5 and two wide ones, through every width.
std::vector<Shape> ChannelsLastShapes(Sampler& s) {
  std::vector<Shape> out;
  for (int64_t channels : {1, 2, 3, 4, 5, 16, 64}) {
    for (int64_t w : kVectorSizes) {
      const std::vector<int64_t> sizes = {s.Between(1, 2), channels, s.Between(1, 3), w};
      const int64_t pad = s.Coin() ? 0 : s.Between(1, 5);
      out.push_back(Shape{sizes, rt_test::StoredStrides(sizes, {0, 2, 3, 1}, 1, {0, 0, 0, pad})});
    }
  }
  return out;
}

// Column-major: the outermost logical dimension has stride 1. Short columns
// (below a vector) and long ones (several tiles of 16).
std::vector<Shape> ColumnMajorShapes(Sampler& s) {
  std::vector<Shape> out;
  std::vector<int64_t> lengths = kVectorSizes;
  lengths.push_back(1000);
  for (int64_t column : lengths) {
    const std::vector<int64_t> matrix = {column, s.Pick(kVectorSizes)};
    out.push_back(Shape{matrix, rt_test::StoredStrides(matrix, {1, 0}, 1, {0, s.Between(0, 5)})});
    const std::vector<int64_t> cube = {column, s.Between(2, 5), s.Between(1, 9)};
    out.push_back(Shape{cube, rt_test::StoredStrides(cube, rt_test::ReversedOrder(3), 1, {})});
  }
  return out;
}

// Eight dimensions of small odd sizes in a random memory order with random
// padding: lands in every writer strategy.
std::vector<Shape> EightDimShapes(Sampler& s) {
  std::vector<Shape> out;
  for (int i = 0; i < 48; ++i) {
    std::vector<int64_t> sizes(8);
    for (int64_t& size : sizes) size = s.Pick<int64_t>({1, 2, 3, 1, 3, 5});
    sizes[static_cast<size_t>(s.Between(0, 7))] = s.Pick(kVectorSizes);
    // At most ~16k elements: the element-at-a-time oracle sets the pace.
    while (rt_test::ElementCount(sizes) > 16384) *std::max_element(sizes.begin(), sizes.end()) = 1;
    const int64_t step = i % 4 == 3 ? 2 : 1;  // a quarter without any unit stride
    out.push_back(Shape{sizes, rt_test::StoredStrides(sizes, s.Order(8), step, s.Pads(8, 3))});
  }
  return out;
}

// No unit stride anywhere: the scattered writer, with odd steps and pads.
std::vector<Shape> ScatteredShapes(Sampler& s) {
  std::vector<Shape> out;
  for (int64_t n : kVectorSizes) {
    const std::vector<int64_t> sizes = {s.Between(1, 4), n};
    const int64_t step = s.Pick<int64_t>({2, 3, 5});
    out.push_back(Shape{sizes, rt_test::StoredStrides(sizes, {0, 1}, step, s.Pads(2, 7))});
    out.push_back(Shape{sizes, rt_test::StoredStrides(sizes, {1, 0}, step, s.Pads(2, 7))});
  }
  return out;
}

// The other families with random dimensions reversed: the span then lies
// partly or wholly below element (0, ..., 0).
std::vector<Shape> NegativeStrideShapes(Sampler& s) {
  std::vector<Shape> out;
  for (const auto& family : {PackedShapes, PaddedRowShapes, ChannelsLastShapes, ColumnMajorShapes,
                             EightDimShapes, ScatteredShapes}) {
    for (const Shape& base : family(s)) {
      if (s.Between(0, 3) != 0) continue;  // a quarter of each family
      const uint32_t mask = static_cast<uint32_t>(s.Between(1, (1 << base.rank()) - 1));
      out.push_back(Shape{base.sizes, rt_test::FlipSigns(rt_test::EffectiveStrides(base), mask)});
    }
  }
  return out;
}

TEST(GuardPages, Packed) { CheckFamilyOnEveryTarget(PackedShapes); }
TEST(GuardPages, PaddedRows) { CheckFamilyOnEveryTarget(PaddedRowShapes); }
TEST(GuardPages, ChannelsLast) { CheckFamilyOnEveryTarget(ChannelsLastShapes); }
TEST(GuardPages, ColumnMajor) { CheckFamilyOnEveryTarget(ColumnMajorShapes); }
TEST(GuardPages, EightDims) { CheckFamilyOnEveryTarget(EightDimShapes); }
TEST(GuardPages, Scattered) { CheckFamilyOnEveryTarget(ScatteredShapes); }
TEST(GuardPages, NegativeStrides) { CheckFamilyOnEveryTarget(NegativeStrideShapes); }

// Streaming stores write whole vectors (up to 64 bytes): the span's ends
// at every 4-byte position within a line, against both guards, for rows
// that take the in-place writer (where streaming happens), with every
// offset into the first Philox block (which moves the first whole block).
TEST(GuardPages, StreamingAtEveryLinePosition) {
  std::vector<Shape> shapes;
  for (int64_t n : AllSizes()) shapes.push_back(Shape{{n}, {}});
  for (int64_t n : {128, 129, 257, 1031}) shapes.push_back(Padded({3, n}, {0, 3}));
  for (int64_t n : {130, 4099}) shapes.push_back(Shape{{2, n}, {-(n + 1), 1}});
  rt_test::ForEachSupportedTarget([&](const randtensor::TargetInfo& target) {
    const rt_guard::ChildOutcome out = rt_guard::RunIsolated([&](CaseLog& log) {
      Sampler s(SeedOf("streaming", target.name));
      for (const Shape& shape : shapes) {
        for (uint64_t gap = 0; gap < 64; gap += 4) {
          for (Edge edge : {Edge::kTrailing, Edge::kLeading}) {
            for (uint64_t offset = 0; offset < 4; ++offset) {
              GuardCase c = DrawCase(s, shape, StoreMode::kStreaming, edge);
              c.gap_bytes = gap;
              c.fill.element_offset = offset;
              RunCase(c, log);
            }
          }
        }
      }
    });
    NoteCases(out, target.name);
    if (out.ran_to_end()) {
      EXPECT_EQ(out.cases, shapes.size() * 16 * 2 * 4);
    }
  });
}

// ------------------------------------------------------------- DirectML

namespace dml = randtensor::dml;

constexpr dml::UINT kStateSizes[4] = {1, 1, 1, 6};

dml::DML_BUFFER_TENSOR_DESC BufferDesc(const std::vector<dml::UINT>& sizes,
                                       const std::vector<dml::UINT>& strides, uint64_t total) {
  return {dml::DML_TENSOR_DATA_TYPE_UINT32,
          dml::DML_TENSOR_FLAG_NONE,
          static_cast<dml::UINT>(sizes.size()),
          sizes.data(),
          strides.empty() ? nullptr : strides.data(),
          total,
          0};
}

std::vector<dml::UINT> ToUint(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

// One ExecuteRandomGenerator whose TotalTensorSizeInBytes (the DirectML
// minimum plus `extra`) ends flush against the trailing guard page, or whose
// tensor starts flush against the leading one; both state tensors flush too.
void RunDmlCase(const GuardCase& c, uint64_t extra, CaseLog& log) {
  GuardedTensor t(c.fill.shape, c.edge, c.edge == Edge::kTrailing ? extra : 0);
  GuardedStates states(c.fill.state, c.edge, c.in_place_state);
  if (!BeginCase("DirectML", c, t, states, extra, log)) return;
  const std::vector<dml::UINT> sizes = ToUint(c.fill.shape.sizes);
  const std::vector<dml::UINT> strides = ToUint(c.fill.shape.strides);
  const dml::UINT64 total =
      dml::CalcBufferTensorSize(dml::DML_TENSOR_DATA_TYPE_UINT32,
                                static_cast<dml::UINT>(sizes.size()), sizes.data(),
                                strides.empty() ? nullptr : strides.data()) +
      extra;
  if (!log.Check(::testing::AssertionResult(total == t.bytes + extra)
                 << "CalcBufferTensorSize + " << extra << " = " << total)) {
    return;
  }
  const std::vector<dml::UINT> state_sizes(kStateSizes, kStateSizes + 4);
  const dml::DML_BUFFER_TENSOR_DESC out_desc = BufferDesc(sizes, strides, total);
  const dml::DML_BUFFER_TENSOR_DESC state_desc = BufferDesc(state_sizes, {}, sizeof(PhiloxState));
  const dml::DML_TENSOR_DESC out_tensor{dml::DML_TENSOR_TYPE_BUFFER, &out_desc};
  const dml::DML_TENSOR_DESC state_tensor{dml::DML_TENSOR_TYPE_BUFFER, &state_desc};
  const dml::DML_RANDOM_GENERATOR_OPERATOR_DESC op{&state_tensor, &out_tensor, &state_tensor,
                                                   dml::DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10};
  const dml::DML_BUFFER_BINDING in_binding{states.input(), sizeof(PhiloxState)};
  const dml::DML_BUFFER_BINDING out_binding{t.buffer.span(), total};
  const dml::DML_BUFFER_BINDING state_binding{states.output(), sizeof(PhiloxState)};
  if (!log.Check(Succeeded(dml::ExecuteRandomGenerator(op, in_binding, out_binding, &state_binding,
                                                       rt_guard::OptionsOf(c.fill))))) {
    return;
  }
  log.Check(t.buffer.Holds(t.Expected(c.fill.state, 0), t.origin()));
  log.Check(states.Hold(c.fill.state, rt_guard::Consumed(c.fill)));  // offset 0
}

// DirectML's strides are unsigned: packed, padded, NHWC, column-major and
// 8-D layouts, through the sizes around vector widths.
std::vector<Shape> DmlShapes(Sampler& s) {
  std::vector<Shape> out;
  for (int64_t n : kVectorSizes) {
    out.push_back(Shape{{n}, {}});
    out.push_back(Padded({3, n}, {0, s.Between(1, 5)}));
    const std::vector<int64_t> nchw = {1, s.Pick<int64_t>({1, 2, 3, 4, 5, 16}), 2, n};
    out.push_back(Shape{nchw, rt_test::StoredStrides(nchw, {0, 2, 3, 1}, 1, {})});
    out.push_back(Shape{{n, 3}, rt_test::StoredStrides({n, 3}, {1, 0}, 1, {})});
  }
  out.push_back(Shape{{2, 1, 3, 1, 2, 3, 1, 5}, {}});
  out.push_back(Shape{{3, 3, 20, 71}, {}});
  return out;
}

TEST(GuardPages, DirectMLExecuteRandomGenerator) {
  rt_test::ForEachSupportedTarget([&](const randtensor::TargetInfo& target) {
    const rt_guard::ChildOutcome out = rt_guard::RunIsolated([&](CaseLog& log) {
      Sampler s(SeedOf("directml", target.name));
      for (const Shape& shape : DmlShapes(s)) {
        for (uint64_t extra : {0, 4, 60}) {
          for (Edge edge : {Edge::kTrailing, Edge::kLeading}) {
            const StoreMode stores =
                s.Pick<StoreMode>({StoreMode::kRegular, StoreMode::kStreaming, StoreMode::kAuto});
            GuardCase c = DrawCase(s, shape, stores, edge);
            c.fill.element_offset = 0;  // DirectML has none
            c.gap_bytes = edge == Edge::kTrailing ? extra : 0;
            RunDmlCase(c, extra, log);
          }
        }
      }
    });
    NoteCases(out, target.name);
    if (out.ran_to_end()) {
      EXPECT_EQ(out.cases, 6 * (4 * kVectorSizes.size() + 2));
    }
  });
}

// ------------------------------------------------------------- the harness itself

// The guard pages and the fork must turn a stray access into a failure that
// names the case, not a pass and not a dead test binary.
TEST(GuardPages, HarnessCatchesStrayAccesses) {
  const auto stray_write_after = [](CaseLog& log) {
    log.Begin("write one word past a trailing-flush span");
    GuardPageBuffer b(64, Edge::kTrailing, 0);
    volatile uint32_t* p = b.span() + 16;
    *p = 0;
  };
  const auto stray_read_before = [](CaseLog& log) {
    log.Begin("read one word before a leading-flush span");
    GuardPageBuffer b(64, Edge::kLeading, 0);
    volatile uint32_t* p = b.span() - 1;
    log.Check(::testing::AssertionFailure() << "read " << *p);
  };
  const auto write_into_gap = [](CaseLog& log) {
    log.Begin("write into the gap between span and guard");
    GuardedTensor t(Shape{{4}, {}}, Edge::kTrailing, 4);
    const std::vector<uint32_t> untouched = t.buffer.Pristine();
    t.buffer.span()[4] = 0;
    log.Check(t.buffer.Holds(untouched, t.origin()));
  };
  for (const auto& body : {+stray_write_after, +stray_read_before}) {
    const rt_guard::ChildOutcome out = rt_guard::RunInChild(body);
    EXPECT_EQ(out.signal, SIGSEGV) << out.current;
    EXPECT_EQ(out.cases, 1u);
    EXPECT_NE(out.current.find("flush span"), std::string::npos) << out.current;
  }
  const rt_guard::ChildOutcome gap = rt_guard::RunInChild(write_into_gap);
  EXPECT_EQ(gap.signal, 0);
  EXPECT_EQ(gap.failures, 1u);
  EXPECT_NE(gap.messages.find("guard/padding word"), std::string::npos) << gap.messages;
}

}  // namespace
