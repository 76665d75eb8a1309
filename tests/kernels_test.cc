// Every kernel of the kernel list (src/kernel_list.h) on every compiled target
// this CPU supports, called directly: sizes below, at and above the vector
// width, every start within a Philox block, aligned and unaligned outputs,
// regular and non-temporal stores. Expected values come from the independent
// oracle (oracle.h: Random123) for generate kernels and from plain loops for
// move kernels; guard bytes around every output must stay untouched.
//
// Links the static library for its internal kernel tables (src/kernels.h).

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "oracle.h"
#include "target_sweep.h"
#include "randtensor/philox.h"
#include "src/kernel_list.h"
#include "src/kernels.h"
#include "hwy/targets.h"

namespace randtensor {
namespace {

using detail::GenerateKind;
using detail::KernelTable;

constexpr uint8_t kGuard = 0xA5;
constexpr uint32_t kState[6] = {0xfffffff0u, 0x12345678u, 0xffffffffu, 7u, 0xdeadbeefu,
                                0xcafef00du};

// Every compiled table whose target this CPU runs (and the sweep includes).
std::vector<const KernelTable*> SupportedTables() {
  int count = 0;
  const KernelTable* all = detail::CompiledKernels(&count);
  std::vector<const KernelTable*> out;
  for (int i = 0; i < count; ++i) {
    if (rt_test::SweepsTable(all[i])) out.push_back(&all[i]);
  }
  return out;
}

detail::KernelArgs ArgsOf(const uint32_t state[6]) {
  PhiloxState s;
  std::memcpy(s.words, state, sizeof(s.words));
  return detail::KernelArgs{s.counter(), detail::RoundKeys(s.key())};
}

// Counts around a vector width of `lanes` 32-bit words: 0 .. 3 vectors plus
// a few, and one long run with many groups.
std::vector<uint64_t> CountsAround(int lanes) {
  std::vector<uint64_t> counts;
  for (uint64_t n = 0; n <= static_cast<uint64_t>(12 * lanes + 5); ++n) counts.push_back(n);
  counts.push_back(static_cast<uint64_t>(97 * lanes + 3));
  return counts;
}

// Constants of each kind's distribution (plausible, not special): uniform
// [-2, 3) with float16 bounds, normal(0.25, 2), p = 0.5, integers [-5, 995)
// (one word) and [-7, -7 + 2^40 + 7) (two words); bits has none. The
// distribution is the kind's name up to its type.
detail::KindParams MakeParams(GenerateKind kind) {
  const std::string name = detail::KindName(kind);
  const auto is = [&](const char* prefix) { return name.rfind(prefix, 0) == 0; };
  if (is("kUniform")) {
    detail::UniformParams p;
    p.low_f = -2.0f;
    p.range_f = 5.0f;
    p.flip_first = 0xFFFFFF80u;  // the words whose u32 is 1.0f (t = 3 = H in float32)
    p.flip_count = 128;
    p.low_d = -2.0;
    p.high_d = 3.0;
    p.range_d = 5.0;
    return p;
  }
  if (is("kNormal")) {
    detail::NormalParams p;
    p.mean_d = 0.25;
    p.std_d = 2.0;
    return p;
  }
  if (is("kBernoulli")) {
    detail::BernoulliParams p;
    p.p_words = detail::BernoulliWords(0.5f);
    p.p_d = 0.5;
    p.one = is("kBernoulliFloat32")    ? 0x3F800000u  // the bits of 1 (fill.cc)
            : is("kBernoulliFloat16")  ? 0x3C00u
            : is("kBernoulliBfloat16") ? 0x3F80u
                                       : 1u;
    return p;
  }
  if (is("kIntegers")) {
    detail::IntegersParams p;
    detail::SetIntegerRange(&p, 1000);
    p.low = -5;
    p.range64 = (uint64_t{1} << 40) + 7;
    return p;
  }
  return detail::KindParams();
}

// MakeParams(kind), made once per kind: the checks below ask for it per
// element.
const detail::KindParams& SomeParams(GenerateKind kind) {
  static const std::vector<detail::KindParams> all = [] {
    std::vector<detail::KindParams> params;
    for (int k = 0; k < detail::kGenerateKinds; ++k) {
      params.push_back(MakeParams(static_cast<GenerateKind>(k)));
    }
    return params;
  }();
  return all[static_cast<size_t>(kind)];
}

// Stream element e of kState (the oracle): the checks read it in order.
uint32_t OracleWord(uint64_t e) {
  static rt_oracle_cursor oracle = rt_oracle_cursor_start(kState);
  return rt_oracle_cursor_element(&oracle, e);
}

// Whether every byte of [begin, end) is still the guard byte.
bool Untouched(const uint8_t* begin, const uint8_t* end) {
  for (const uint8_t* p = begin; p < end; ++p) {
    if (*p != kGuard) return false;
  }
  return true;
}

// Expected element i of `kind` as bytes: bits from the oracle (Random123);
// other kinds convert the oracle's word with the kernel's own convert
// function, whose values tests/distributions_test.cc checks against the
// reference model. So this test is about the generate kernel's runs, chunks,
// offsets and tails, not about the conversion.
// Normals read word pairs: element i from words 2 floor(i/2) and the next.
void ExpectedElement(const KernelTable& table, GenerateKind kind, uint64_t i, uint8_t* out) {
  const uint32_t w = OracleWord(i);
  if (kind == GenerateKind::kBitsUint32) {
    std::memcpy(out, &w, 4);
    return;
  }
  if (kind == GenerateKind::kNormalFloat32 || kind == GenerateKind::kNormalFloat16 ||
      kind == GenerateKind::kNormalBfloat16 || kind == GenerateKind::kLogNormalFloat32 ||
      kind == GenerateKind::kLogNormalFloat16 || kind == GenerateKind::kLogNormalBfloat16) {
    const uint32_t pair[2] = {OracleWord(i & ~uint64_t{1}),
                              OracleWord(i | 1)};
    uint8_t both[16];
    table.Generate(kind).convert(SomeParams(kind), pair, 2, both);
    const size_t size = static_cast<size_t>(detail::ElementBytes(kind));
    std::memcpy(out, both + (i & 1) * size, size);
    return;
  }
  if (kind == GenerateKind::kNormalFloat64 ||
      kind == GenerateKind::kLogNormalFloat64) {  // pair i / 2: words 4 (i / 2) .. + 3
    uint32_t quad[4];
    for (uint64_t j = 0; j < 4; ++j) quad[j] = OracleWord(4 * (i / 2) + j);
    double both[2];
    table.Generate(kind).convert(SomeParams(kind), quad, 2, both);
    std::memcpy(out, &both[i & 1], 8);
    return;
  }
  if (detail::WordsPerElement(kind) == 2) {  // words 2i and 2i + 1
    const uint32_t pair[2] = {OracleWord(2 * i), OracleWord(2 * i + 1)};
    table.Generate(kind).convert(SomeParams(kind), pair, 1, out);
    return;
  }
  table.Generate(kind).convert(SomeParams(kind), &w, 1, out);
}

TEST(Kernels, TheListDescribesEveryKind) {
  for (int k = 0; k < detail::kGenerateKinds; ++k) {
    const auto kind = static_cast<GenerateKind>(k);
    EXPECT_GT(detail::ElementBytes(kind), 0) << k;
    EXPECT_TRUE(detail::WordsPerElement(kind) == 1 || detail::WordsPerElement(kind) == 2) << k;
  }
  EXPECT_FALSE(SupportedTables().empty());
}

TEST(Kernels, GenerateContiguousEqualsTheOracle) {
  for (const KernelTable* table : SupportedTables()) {
    detail::KernelArgs args = ArgsOf(kState);
    for (int k = 0; k < detail::kGenerateKinds; ++k) {
      const auto kind = static_cast<GenerateKind>(k);
      args.params = SomeParams(kind);
      const size_t size = static_cast<size_t>(detail::ElementBytes(kind));
      const detail::GenerateKernels& gen = table->Generate(kind);
      ASSERT_NE(gen.contiguous, nullptr) << table->name;
      ASSERT_NE(gen.convert, nullptr) << table->name;
      for (const uint64_t count : CountsAround(table->lanes)) {
        for (uint64_t first = 0; first < 6; ++first) {
          for (const bool nontemporal : {false, true}) {
            for (const size_t misalign : {size_t{0}, size}) {  // vector-aligned or not
              const size_t guard = 64;
              std::vector<uint8_t> buf(guard + misalign + count * size + guard + 64, kGuard);
              // 64-byte aligned start of the output area, then `misalign`.
              uint8_t* base = buf.data() + guard;
              base += (64 - reinterpret_cast<uintptr_t>(base) % 64) % 64;
              uint8_t* dst = base + misalign;
              gen.contiguous(args, first, count, dst, nontemporal);
              detail::NonTemporalFence();
              uint8_t want[8];
              for (uint64_t i = 0; i < count; ++i) {
                ExpectedElement(*table, kind, first + i, want);
                ASSERT_EQ(std::memcmp(dst + i * size, want, size), 0)
                    << table->name << " kind " << k << " count " << count << " first " << first
                    << " nontemporal " << nontemporal << " misalign " << misalign << " element "
                    << i;
              }
              ASSERT_TRUE(Untouched(buf.data(), dst)) << table->name;
              ASSERT_TRUE(Untouched(dst + count * size, buf.data() + buf.size()))
                  << table->name << " wrote past the end, count " << count;
            }
          }
        }
      }
    }
  }
}

// Streaming stores into outputs at every element-aligned byte offset from a
// 64-byte boundary (the writer hands any address to the kernel: NumPy's large
// arrays start 16 bytes past one), from several stream positions, over runs
// long enough for several groups of vectors: the same bytes as regular
// stores, and not one byte outside the run. Covers both ways a converted
// kind streams a misaligned run: a head up to an aligned block boundary,
// and the L1 stage where the address and the stream position disagree.
TEST(Kernels, MisalignedStreamingEqualsRegularStores) {
  for (const KernelTable* table : SupportedTables()) {
    detail::KernelArgs args = ArgsOf(kState);
    // 6 groups of 6 vectors of 64 elements on AVX-512, plus a ragged end;
    // and a run shorter than one vector.
    const uint64_t counts[2] = {static_cast<uint64_t>(6 * 6 * 4 * table->lanes + 45),
                                static_cast<uint64_t>(table->lanes + 3)};
    for (int k = 0; k < detail::kGenerateKinds; ++k) {
      const auto kind = static_cast<GenerateKind>(k);
      args.params = SomeParams(kind);
      const size_t size = static_cast<size_t>(detail::ElementBytes(kind));
      const detail::GenerateKernels& gen = table->Generate(kind);
      for (const uint64_t count : counts) {
        for (const uint64_t first : {uint64_t{0}, uint64_t{1}, uint64_t{2}, uint64_t{3},
                                     uint64_t{6}, uint64_t{1001}}) {
          for (size_t offset = 0; offset < 64; offset += size) {
            const size_t guard = 64;
            std::vector<uint8_t> bufs[2];
            uint8_t* dsts[2];
            for (int nontemporal = 0; nontemporal < 2; ++nontemporal) {
              std::vector<uint8_t>& buf = bufs[nontemporal];
              buf.assign(guard + 64 + offset + count * size + guard, kGuard);
              uint8_t* base = buf.data() + guard;
              base += (64 - reinterpret_cast<uintptr_t>(base) % 64) % 64;
              dsts[nontemporal] = base + offset;
              gen.contiguous(args, first, count, dsts[nontemporal], nontemporal != 0);
              detail::NonTemporalFence();
            }
            const auto where = [&] {
              return std::string(table->name) + " kind " + std::to_string(k) + " count " +
                     std::to_string(count) + " first " + std::to_string(first) + " offset " +
                     std::to_string(offset);
            };
            ASSERT_EQ(std::memcmp(dsts[1], dsts[0], count * size), 0) << where();
            for (int i = 0; i < 2; ++i) {
              ASSERT_TRUE(Untouched(bufs[i].data(), dsts[i])) << where() << " wrote before the start";
              ASSERT_TRUE(Untouched(dsts[i] + count * size, bufs[i].data() + bufs[i].size()))
                  << where() << " wrote past the end";
            }
          }
        }
      }
    }
  }
}

TEST(Kernels, GenerateColumnsEqualsTheOracleWhereDeclared) {
  int declared = 0;
  for (const KernelTable* table : SupportedTables()) {
    const detail::KernelArgs args = ArgsOf(kState);
    for (int k = 0; k < detail::kGenerateKinds; ++k) {
      const auto kind = static_cast<GenerateKind>(k);
      const detail::GenerateKernels& gen = table->Generate(kind);
      if (gen.column_lanes == 0) {
        EXPECT_EQ(gen.columns, nullptr) << table->name;
        continue;
      }
      ++declared;
      ASSERT_NE(gen.columns, nullptr) << table->name;
      const size_t size = static_cast<size_t>(detail::ElementBytes(kind));
      const size_t lanes = gen.column_lanes;
      for (const size_t rows : {lanes, 2 * lanes, 3 * lanes}) {
        for (const size_t cols : {size_t{1}, size_t{3}, size_t{4}, size_t{5}, size_t{17}}) {
          for (const uint64_t step : {uint64_t{64}, uint64_t{100}, uint64_t{4 * 1000}}) {
            for (const bool nontemporal : {false, true}) {
              const uint64_t first = 8;
              ASSERT_TRUE(detail::ColumnsFit(gen, first, step, rows));
              const int64_t stride_l = static_cast<int64_t>(rows + 16);  // padded columns
              std::vector<uint8_t> buf((cols * stride_l + 64) * size, kGuard);
              uint8_t* dst = buf.data() + (64 - reinterpret_cast<uintptr_t>(buf.data()) % 64) % 64;
              gen.columns(args, first, step, rows, cols, dst, stride_l, nontemporal);
              detail::NonTemporalFence();
              uint8_t want[8];
              for (size_t l = 0; l < cols; ++l) {
                for (size_t m = 0; m < rows; ++m) {
                  ExpectedElement(*table, kind, first + m * step + l, want);
                  ASSERT_EQ(std::memcmp(dst + (l * stride_l + m) * size, want, size), 0)
                      << table->name << " rows " << rows << " cols " << cols << " step " << step;
                }
                for (size_t m = rows; m < static_cast<size_t>(stride_l) && l + 1 < cols; ++m) {
                  ASSERT_EQ(dst[(l * stride_l + m) * size], kGuard) << "padding written";
                }
              }
            }
          }
        }
      }
    }
  }
  // AVX-512 declares a column kernel for bits; elsewhere none may be declared.
  if ((hwy::SupportedTargets() & HWY_AVX3) != 0) {
    EXPECT_GT(declared, 0);
  }
}

// Move kernels of every size against plain loops.
template <typename T>
void CheckMoveKernels(const KernelTable& table) {
  const detail::MoveKernels& move = table.Move(sizeof(T));
  const size_t max_n = static_cast<size_t>(12 * table.lanes + 7);
  std::vector<T> src(4096);  // covers every tile below (rows * pitch) and copy
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<T>(0x9E3779B97F4A7C15ull * (i + 1));
  for (size_t n = 0; n <= max_n; ++n) {
    for (const size_t shift : {size_t{0}, size_t{1}, size_t{3}}) {
      // copy, regular and streamed: the elements, and not one byte more.
      for (const bool nontemporal : {false, true}) {
        std::vector<T> dst(n + shift + 16, static_cast<T>(kGuard * 0x0101010101010101ull));
        const std::vector<T> before = dst;
        move.copy(src.data() + shift, n, dst.data() + shift, nontemporal);
        detail::NonTemporalFence();
        for (size_t i = 0; i < dst.size(); ++i) {
          const T want = i >= shift && i < shift + n ? src[i] : before[i];
          ASSERT_EQ(dst[i], want) << table.name << " copy size " << sizeof(T) << " n " << n
                                  << " shift " << shift << " nontemporal " << nontemporal;
        }
      }
      // scatter with stride 3 and -2.
      for (const int64_t stride : {int64_t{3}, int64_t{-2}}) {
        const size_t span = n * 3 + 8;
        std::vector<T> dst(2 * span, 0);
        T* origin = dst.data() + span;
        move.scatter(src.data() + shift, n, origin, stride);
        std::vector<T> want(2 * span, 0);
        for (size_t k = 0; k < n; ++k) want[span + static_cast<int64_t>(k) * stride] = src[shift + k];
        ASSERT_EQ(dst, want) << table.name << " scatter size " << sizeof(T) << " n " << n;
      }
    }
  }
  // copy_rows: packed rows of n elements to rows `step` apart (padded,
  // reversed), every row length from one element to past two vectors; the
  // padding between rows keeps its bytes.
  for (size_t n = 1; n <= max_n; ++n) {
    for (const int64_t pad : {int64_t{0}, int64_t{1}, int64_t{5}}) {
      for (const bool reversed : {false, true}) {
        const size_t rows = 3;
        const int64_t step = (reversed ? -1 : 1) * (static_cast<int64_t>(n) + pad);
        const size_t span = rows * (n + static_cast<size_t>(pad)) + 8;
        std::vector<T> dst(2 * span, static_cast<T>(kGuard * 0x0101010101010101ull));
        std::vector<T> want = dst;
        T* origin = dst.data() + span;
        move.copy_rows(src.data() + 1, n, rows, origin, step);
        for (size_t r = 0; r < rows; ++r) {
          for (size_t k = 0; k < n; ++k) {
            want[span + static_cast<int64_t>(r) * step + static_cast<int64_t>(k)] =
                src[1 + r * n + k];
          }
        }
        ASSERT_EQ(dst, want) << table.name << " copy_rows size " << sizeof(T) << " n " << n
                             << " step " << step;
      }
    }
  }
  // Tiles: rows x cols from a pitched stage, forward and reversed.
  for (const size_t rows : {size_t{1}, size_t{2}, size_t{3}, size_t{4}, size_t{16}, size_t{32}}) {
    for (const size_t cols : {size_t{1}, size_t{4}, size_t{7}, size_t{33}}) {
      for (const int64_t stride_l : {static_cast<int64_t>(rows), static_cast<int64_t>(rows + 5),
                                     static_cast<int64_t>(rows + 16)}) {
        const size_t pitch = cols + 2;
        for (const bool nontemporal : {false, true}) {
          std::vector<T> dst(cols * static_cast<size_t>(stride_l) + 64, 0);
          T* out = dst.data() + (64 - reinterpret_cast<uintptr_t>(dst.data()) % 64) % 64 / sizeof(T);
          const size_t at = static_cast<size_t>(out - dst.data());
          move.write_tile(src.data(), pitch, rows, cols, out, stride_l, nontemporal);
          detail::NonTemporalFence();
          std::vector<T> want(dst.size(), 0);
          for (size_t l = 0; l < cols; ++l) {
            for (size_t m = 0; m < rows; ++m) want[at + l * stride_l + m] = src[m * pitch + l];
          }
          ASSERT_EQ(dst, want) << table.name << " tile size " << sizeof(T) << " rows " << rows
                               << " cols " << cols << " stride " << stride_l;
        }
        std::vector<T> dst(cols * static_cast<size_t>(stride_l) + rows, 0);
        T* out = dst.data() + rows - 1;  // element (m = 0, l = 0); m runs downwards
        move.write_tile_reversed(src.data(), pitch, rows, cols, out, stride_l);
        std::vector<T> want(dst.size(), 0);
        for (size_t l = 0; l < cols; ++l) {
          for (size_t m = 0; m < rows; ++m) want[rows - 1 + l * stride_l - m] = src[m * pitch + l];
        }
        ASSERT_EQ(dst, want) << table.name << " reversed tile size " << sizeof(T);
      }
    }
  }
}

TEST(Kernels, MoveKernelsOfEverySizeEqualPlainLoops) {
  for (const KernelTable* table : SupportedTables()) {
#define RANDTENSOR_CHECK_MOVE(bytes, type) CheckMoveKernels<type>(*table);
    RANDTENSOR_MOVE_SIZES(RANDTENSOR_CHECK_MOVE)
#undef RANDTENSOR_CHECK_MOVE
  }
}

}  // namespace
}  // namespace randtensor
