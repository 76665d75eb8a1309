// The run driver of every generate kind, bits included (the identity
// converter): elements of any converter C (src/convert/) from the stream,
// converted in registers right after the Philox rounds. It knows no
// distribution: it asks C for its element type, words per element
// (kWords), vectors per call (kGroup) and how it wants its words
// (ConverterDefaults), and calls it. Included only through
// foreach_target.h, hence the toggle guard.
//
// How words reach a converter: GenerateConverted converts each batch of
// Philox blocks in registers right after the rounds, once it is transposed
// to stream order, and stores only the elements (converters with long math,
// kAfterGroup, take their words from the bits kind's run through L1
// instead: ConvertRunFromWords); a run's last,
// partial vector of blocks is converted whole into L1 and its first elements
// copied, and the few elements before its first block boundary go through a
// fixed 4 KiB L1 chunk of words (GenerateChunked). Tests feed chosen words
// through ConvertWords, the same vector code.

#if defined(RANDTENSOR_SRC_RUN_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_RUN_INL_H_
#undef RANDTENSOR_SRC_RUN_INL_H_
#else
#define RANDTENSOR_SRC_RUN_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwy/highway.h"
#include "src/capabilities-inl.h"
#include "src/convert/bits-inl.h"
#include "src/convert/common-inl.h"
#include "src/generate-inl.h"
#include "src/kernels.h"
#include "src/move-inl.h"
#include "src/params.h"
#include "src/philox-inl.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {
namespace convert {

// Words that converting n elements of C reads: kWords n, except that a last
// odd element of a pair converter (n odd) reads its whole pair where an
// element has two words (float64 normals: four words), and reads the
// missing word as zero where it has one (float normals).
template <class C>
constexpr uint64_t WordsRead(uint64_t n) {
  return C::kPairs && C::kWords == 2 ? 2 * C::kWords * ((n + 1) / 2) : C::kWords * n;
}

// Words [0, WordsRead(n)) -> n elements of C at out: element i reads words
// [w i, w i + w) (pairs their whole pair's). A partial last group is
// converted from a zero-padded copy into scratch and copied out, so the same
// code computes every element. k: what C::WithConstants made. Out of line:
// its callers (chunks, the carry vector, tests) share one copy.
template <class C, class K>
HWY_NOINLINE void ConvertTyped(const K& constants, const uint32_t* words, uint64_t n,
                             typename C::Type* out) {
  const K k = constants;  // as in ConvertRun
  using T = typename C::Type;
  constexpr int kW = C::kWords;
  const DW dw;
#if HWY_TARGET == HWY_SCALAR
  // One word per vector: element-wise one-word converters take vectors of
  // one lane; the others convert an element (a pair) at a time (Scalar).
  constexpr uint64_t kStep = C::kPairs ? 2 : 1;
  const auto unit = [&](const uint32_t* from, T* to) {
    if constexpr (kW == 1 && !C::kPairs) {
      C::Vectors(k, to, false, hn::Set(dw, from[0]));
    } else {
      C::Scalar(k, from, to);
    }
  };
#else
  constexpr size_t kGroup = C::kGroup;
  static_assert(kGroup == 1 || kGroup == 2, "groups of one or two vectors");
  const size_t N = hn::Lanes(dw);
  const uint64_t kStep = kGroup * N / kW;  // elements
  const auto unit = [&](const uint32_t* from, T* to) __attribute__((always_inline)) {
    if constexpr (kGroup == 1) {
      C::Vectors(k, to, false, hn::LoadU(dw, from));
    } else {
      C::Vectors(k, to, false, hn::LoadU(dw, from), hn::LoadU(dw, from + N));
    }
  };
#endif
  uint64_t i = 0;
  for (; i + kStep <= n; i += kStep) unit(words + kW * i, out + i);
  if (i < n) {
    HWY_ALIGN uint32_t padded[4 * hn::MaxLanes(dw)] = {};
    HWY_ALIGN T scratch[4 * hn::MaxLanes(dw)];
    const uint64_t left = n - i;
    std::memcpy(padded, words + kW * i, WordsRead<C>(left) * 4);
    unit(padded, scratch);
    std::memcpy(out + i, scratch, left * sizeof(T));
  }
}

// ConvertFn of C: its parameters out of the fill's, then ConvertTyped (or
// the Variant's, chosen as GenerateConverted chooses it).
template <class C>
void ConvertWords(const detail::KindParams& params, const uint32_t* words, uint64_t n, void* dst) {
  const typename C::Params& p = detail::ParamsOf<typename C::Params>(params);
  if constexpr (!std::is_void<typename C::Variant>::value) {
    if (C::UseVariant(p)) return ConvertWords<typename C::Variant>(params, words, n, dst);
  }
  C::WithConstants(p, [&](const auto& k) {
    ConvertTyped<C>(k, words, n, static_cast<typename C::Type*>(dst));
  });
}

// Whole Philox blocks [block, block + n) by the reference, one at a time:
// for the few words where a vector of blocks does not pay or cannot run.
inline void ReferenceBlocks(const detail::KernelArgs& s, uint64_t block, uint64_t n,
                            uint32_t* out) {
  const PhiloxKey key{{s.keys.k0[0], s.keys.k1[0]}};
  for (uint64_t i = 0; i < n; ++i) {
    const PhiloxBlock b = philox::Block(s.start.Plus(block + i), key);
    std::memcpy(out + 4 * i, b.v, sizeof(b.v));
  }
}

// The words of whole blocks [block, block + n) to out: the bits kind's
// run (GenerateConverted<Bits>), compiled in kernels_bits.cc only
// (RANDTENSOR_BITS_UNIT), so the library holds one copy per target; the
// other units call it through this declaration.
void BlockWords(const detail::KernelArgs& s, uint64_t block, uint64_t n, uint32_t* out);

// Elements [first, first + count) of C into dst: chunks of whole Philox
// blocks' words into a fixed 4 KiB L1 buffer (BlockWords), converted by
// ConvertTyped. Element i reads words [w i, w i + w); for a pair converter
// element i belongs to pair i / 2, whose words start at 2 w (i / 2), so
// chunks start at even elements and a chunk's odd start is converted and
// skipped. GenerateConverted uses it for the pieces of a run that are not
// whole vectors of Philox blocks.
template <class C>
void GenerateChunked(const detail::KernelArgs& s, const typename C::Params& p, uint64_t first,
                     uint64_t count, void* dst) {
  using T = typename C::Type;
  constexpr int kWords = C::kWords;
  constexpr bool kPairs = C::kPairs;
  constexpr uint64_t kChunk = 1024 / kWords;  // elements (even)
  HWY_ALIGN uint32_t words[kChunk * kWords + 4];  // + the words before the first in its block
  T scratch[kPairs ? kChunk : 1];
  T* out = static_cast<T*>(dst);
  uint64_t start = kPairs ? first & ~uint64_t{1} : first;
  uint64_t skip = first - start;
  C::WithConstants(p, [&](const auto& k) {
    while (count != 0) {
      const uint64_t want = skip + count;
      const uint64_t n = want >= kChunk ? kChunk : kPairs ? (want + 1) & ~uint64_t{1} : want;
      const uint64_t word = kWords * start;
      BlockWords(s, word / 4, (word % 4 + kWords * n + 3) / 4, words);
      const uint32_t* from = words + word % 4;
      const uint64_t take = n - skip < count ? n - skip : count;
      if (kPairs) {
        ConvertTyped<C>(k, from, n, scratch);
        std::memcpy(out, scratch + skip, take * sizeof(T));
      } else {
        ConvertTyped<C>(k, from, n, out);
      }
      out += take;
      count -= take;
      start += n;
      skip = 0;
    }
  });
}

// A cursor over rows of `row_len` elements whose starts lie `row_step`
// elements apart (one endless row by default): the next element's row and
// its index in that row.
template <typename T>
struct RowPlaces {
  T* row;
  uint64_t row_len;
  ptrdiff_t row_step;
  uint64_t col;  // < row_len

  explicit RowPlaces(T* start, uint64_t len = ~uint64_t{0}, ptrdiff_t step = 0,
                     uint64_t column = 0)
      : row(start), row_len(len), row_step(step), col(column) {}
  // Moves n elements on.
  void Skip(uint64_t n) {
    const uint64_t to = col + n;
    row += static_cast<ptrdiff_t>(to / row_len) * row_step;
    col = to % row_len;
  }
  // Copies n elements from `from` to the next places, row by row.
  void Put(const T* from, uint64_t n) {
    while (n != 0) {
      const uint64_t k = std::min(n, row_len - col);
      std::memcpy(row + col, from, k * sizeof(T));
      from += k;
      n -= k;
      col += k;
      if (col == row_len) {
        row += row_step;
        col = 0;
      }
    }
  }
#if RANDTENSOR_PLACES_PIECES
  // The place of the next n elements (n <= row_len), which may cross the
  // row end, and moves n on: Placing::kCrossing's cursor, one step per
  // word vector, with no branch (a row end falls on a different word
  // vector each time).
  HWY_INLINE RowCrossing<T> Crossing(uint64_t n) {
    const uint64_t left = row_len - col;  // >= 1
    const RowCrossing<T> p{row + col, row + (row_step - static_cast<ptrdiff_t>(left)),
                           static_cast<size_t>(left)};
    const bool wrap = n >= left;
    col = wrap ? col + n - row_len : col + n;
    row += wrap ? row_step : 0;
    return p;
  }
#endif
};

#if HWY_TARGET != HWY_SCALAR
// No head makes the output vector-aligned at a Philox block boundary.
constexpr uint64_t kNoAlignedHead = ~uint64_t{0};

// Bytes of converted elements GenerateConverted realigns in L1 per step,
// at most (one group of kBatches vectors is at most 3 KiB on AVX-512).
constexpr size_t kConvertStageBytes = 4096;

// The fewest elements h such that out + h is vector-aligned and first + h is
// a Philox block boundary (a multiple of kPerBlock): from there whole vectors
// of blocks convert and store non-temporally straight from registers.
// Candidates are the elements to the next vector boundary plus whole vectors
// of elements (E = kVectorBytes / sizeof(T)); their stream residues mod
// kPerBlock repeat within kPerBlock candidates, so none further can succeed.
// Solvable exactly when the address in elements and the stream position
// agree modulo gcd(E, kPerBlock) (= kPerBlock on AVX-512 and AVX2): where
// stream element 0 would lie, out - first * sizeof(T), is aligned to a
// block's elements (kPerBlock * sizeof(T) bytes). So a float32, float16 or
// float64 tensor from element 0 at 16 bytes past a 64-byte boundary (NumPy's
// large arrays) is solvable; a uint8 one at 1 byte past, a float32 one at 4
// and a one-word int64 one at 16 are not (they take the stage).
template <typename T, uint64_t kPerBlock>
HWY_INLINE uint64_t AlignedHead(uint64_t first, const T* out) {
  const uint64_t e = kVectorBytes / sizeof(T);
  uint64_t h = (kVectorBytes - reinterpret_cast<uintptr_t>(out) % kVectorBytes) % kVectorBytes /
               sizeof(T);  // out is element-aligned (PlanFill checks)
  for (uint64_t k = 0; k < kPerBlock; ++k, h += e) {
    if ((first + h) % kPerBlock == 0) return h;
  }
  return kNoAlignedHead;
}

// The one vector of blocks from `block` whose counter word 0 carries (once
// per 2^32 blocks) to `to`: its blocks by the reference, converted as a
// vector. A function of its own, out of the run's loop, so that its code
// and buffer take no registers from the loop (AVX2 has 16).
template <class C, class K>
HWY_NOINLINE void CarryVector(const detail::KernelArgs& s, const K& k, uint64_t block,
                              typename C::Type* to) {
  HWY_ALIGN uint32_t words[4 * hn::MaxLanes(DState())];
  ReferenceBlocks(s, block, BlocksPerVector(), words);
  ConvertTyped<C>(k, words, (4 / C::kWords) * BlocksPerVector(), to);
}

// Words that ConvertRunFromWords takes from BlockWords at a time: 8 KiB,
// in L1 beside the elements; a group of vectors of blocks or more on every
// target (30 vectors of blocks on AVX-512, 6 on 2048-bit SVE).
constexpr size_t kAfterGroupWords = 2048;
static_assert(kAfterGroupWords >= kBatches * 4 * hn::MaxLanes(DState()),
              "a group of vectors of blocks' words");

constexpr size_t kOut = size_t{1} << kLog2LanesPerChunk;  // word vectors per vector of blocks

// One vector of Philox blocks' words in stream order at `words` (kOut
// word vectors) converted to `out` (a place, or the rows' cursor).
template <class C, class K, class Out>
HWY_INLINE void ConvertBlockVector(const K& k, const uint32_t* words, Out out, bool nt) {
  const DW dw;
  const size_t N = hn::Lanes(dw);
  if constexpr (kOut == 4) {
    C::Vectors(k, out, nt, hn::Load(dw, words), hn::Load(dw, words + N),
               hn::Load(dw, words + 2 * N), hn::Load(dw, words + 3 * N));
  } else {
    C::Vectors(k, out, nt, hn::Load(dw, words), hn::Load(dw, words + N));
  }
}

// n vectors of Philox blocks' words in stream order at `words` (kOut word
// vectors each, as BlockWords makes them) converted to `to`, one vector of
// blocks after another (vector b to to[b]): for the converters with long
// math (C::kAfterGroup), whose vector code is then compiled once per kind
// and target, in a loop, instead of once per batch of every group size.
template <class C, class K>
HWY_NOINLINE void ConvertBlockVectors(const K& constants, const uint32_t* words, size_t n,
                                      typename C::Type* const* to, bool nt) {
  const K k = constants;  // as in ConvertTyped
  const size_t words_per_vector = kOut * hn::Lanes(DW());
  for (size_t b = 0; b < n; ++b) {
    ConvertBlockVector<C>(k, words + b * words_per_vector, to[b], nt);
  }
}

// Whether each word vector of C may go to a place of its own: C converts a
// word vector on its own, in the rounds, to N / kWords elements (kGroup 1,
// neither kFromBlocks nor kAfterGroup). Then rows shorter than a vector of
// blocks, whole hardware vectors long (rows of 16 or 32 floats on AVX-512),
// are placed straight from registers too (GenerateRows).
template <class C>
constexpr bool kPlacesEachVector = C::kGroup == 1 && !C::kFromBlocks && !C::kAfterGroup;

// Where a run's vectors of blocks go: one after another from `row`, or in
// rows (RowPlaces) of the writer's padded tensors (GenerateRows), so that a
// group of vectors in flight spans row boundaries instead of each row
// starting its own run. A vector wholly inside a row is stored there
// straight from registers; where the target does not place pieces of
// vectors (kCrossesRows), one that crosses a row's end (rows that are not
// whole vectors, none shorter than a vector) is converted into L1 (Spill)
// and copied out in its two pieces after the next group (EndGroup), when
// its stores have long reached L1: right after its own group, the copy's
// loads would wait for the group's stores to drain, since they cannot take
// their bytes from stores of other sizes in flight. So a row end costs a
// short copy, not a restarted run.
template <typename T>
struct VectorPlaces : RowPlaces<T> {
  // Vectors that cross a row end, each converted into a slot of `elements`
  // (room for two groups: the current one's and the last one's), with the
  // row and column of its first element; by group parity.
  struct Spill {
    T* elements;
    T* from[2][kBatches];
    T* row[2][kBatches];
    uint64_t col[2][kBatches];
    size_t count[2] = {0, 0};
  };

  using RowPlaces<T>::RowPlaces;
  Spill* spill = nullptr;  // only for rows that are not whole vectors
  size_t half = 0;         // the current group's parity

  // The place of the group's vector `slot` (per_vector elements). Without
  // kSpill, rows are whole vectors, and a row end costs no branch: it falls
  // on a different slot of each group unless the rows are whole groups, so
  // a branch on it would be mispredicted at almost every row end, and each
  // misprediction throws away the next group's rounds in flight
  // (docs/kernel-speed.md, "How the kernel reaches its bound"). The spills'
  // loop branches: the copy of each piece (Place) branches on its size
  // anyway.
  template <bool kSpill>
  HWY_INLINE T* Next(uint64_t per_vector, size_t slot) {
    T* const at = this->row + this->col;
    const uint64_t end = this->col + per_vector;
    if constexpr (!kSpill) {
      // All ones where this vector ends its row.
      const uint64_t wrap = uint64_t{0} - static_cast<uint64_t>(end == this->row_len);
      this->row += static_cast<ptrdiff_t>(static_cast<uint64_t>(this->row_step) & wrap);
      this->col = end & ~wrap;
      return at;
    }
    if (HWY_LIKELY(end < this->row_len)) {
      this->col = end;
      return at;
    }
    if (end == this->row_len) {
      this->row += this->row_step;
      this->col = 0;
      return at;
    }
    // Crosses the row end: its slot noted with its place. Inline, as
    // Place: no call in the run's loop (CopyPiece).
    T* const into = spill->elements + (half * kBatches + slot) * per_vector;
    const size_t i = spill->count[half]++;
    spill->from[half][i] = into;
    spill->row[half][i] = this->row;
    spill->col[half][i] = this->col;
    this->col = end - this->row_len;
    this->row += this->row_step;
    return into;
  }
  // After each group: the last group's spilled vectors to their places;
  // the next group takes their slots.
  HWY_INLINE void EndGroup(uint64_t per_vector) {
    half ^= 1;
    Place(half, per_vector);
  }
  // At the run's end: every spilled vector to its place.
  HWY_INLINE void Finish(uint64_t per_vector) {
    Place(0, per_vector);
    Place(1, per_vector);
  }
  // The spilled vectors of parity h to their places, each in two pieces.
  HWY_INLINE void Place(size_t h, uint64_t per_vector) {
    const size_t bytes = per_vector * sizeof(T);
    for (size_t i = 0; i < spill->count[h]; ++i) {
      const uint8_t* from = reinterpret_cast<const uint8_t*>(spill->from[h][i]);
      T* const row = spill->row[h][i];
      const uint64_t col = spill->col[h][i];
      const size_t first = (this->row_len - col) * sizeof(T);  // < bytes
      CopyPiece(from, first, reinterpret_cast<uint8_t*>(row + col));
      CopyPiece(from + first, bytes - first, reinterpret_cast<uint8_t*>(row + this->row_step));
    }
    spill->count[h] = 0;
  }
};

// Where each word vector of a vector of blocks goes, from the vector's
// place (ConvertRun's `split`): rows that a vector of blocks holds whole,
// `row` elements each (a whole number of word vectors), `row_step` apart.
struct SplitPlaces {
  uint64_t row = 0;
  ptrdiff_t row_step = 0;
  ptrdiff_t offset[kOut] = {};  // elements from the vector's place
};
inline SplitPlaces SplitPlacesOf(uint64_t row, ptrdiff_t row_step, uint64_t per_word_vector) {
  SplitPlaces p;
  p.row = row;
  p.row_step = row_step;
  for (size_t i = 0; i < kOut; ++i) {
    const uint64_t e = i * per_word_vector;
    p.offset[i] = static_cast<ptrdiff_t>(e / row) * row_step + static_cast<ptrdiff_t>(e % row);
  }
  return p;
}

// How a run (ConvertRun) places its vectors of blocks, each way a loop of
// its own, so that no loop carries another's bookkeeping in its registers:
// - kInOrder: one after another from `to`, or in rows of whole vectors.
// - kSpills: rows that are not whole vectors; a vector that crosses a row
//   end goes through L1 (VectorPlaces::Spill).
// - kSplit: rows that each vector of blocks holds whole, of whole word
//   vectors; each word vector stored at its offset (SplitPlaces).
// - kCrossing: rows of at least a word vector that vectors cross, where
//   the target places C's elements in pieces (kCrossesRows): each store
//   into its row, in two masked stores or two pieces copied through L1
//   where it crosses the row end (RowCrossing, StreamCrossings).
enum class Placing { kInOrder, kSpills, kSplit, kCrossing };

// Whether C's rows that vectors cross go through kCrossing (else kSpills):
// where the target stores the pieces of a vector of C's elements into two
// rows (RowCrossing): masked stores, or copies through L1 of elements of 2
// bytes and more, and of bytes where RANDTENSOR_COPIED_BYTE_CROSSINGS (a
// word vector of bytes, 8 of them on AVX2, is too little work there for a
// cursor step of its own: docs/kernel-speed.md). Every converter's stores
// can take their places from the rows' cursor: each word vector converted
// on its own takes a word vector's place (kPlacesEachVector), and the
// other converters store each result vector once, in stream order
// (StreamCrossings: those that take a vector of blocks whole,
// C::kFromBlocks; the long math, from words in L1; word vectors converted
// together, as AVX-512's bfloat16 pairs).
template <class C>
constexpr bool kCrossesRows =
    RANDTENSOR_MASKED_STORES ||
    (RANDTENSOR_COPIED_CROSSINGS &&
     (sizeof(typename C::Type) >= 2 || RANDTENSOR_COPIED_BYTE_CROSSINGS));

template <class C, bool nt, Placing kPlacing = Placing::kInOrder>
HWY_NOINLINE void ConvertRun(const detail::KernelArgs& s, const typename C::Params& fill_params,
                             uint64_t block, uint64_t n, VectorPlaces<typename C::Type> to,
                             SplitPlaces split_places = SplitPlaces());

// Whether C's runs take their words from the bits kind's run
// (ConvertRunFromWords): long math (C::kAfterGroup), unless the target has
// C take the Philox state itself (C::kFromBlocks).
template <class C>
constexpr bool kFromWords = C::kAfterGroup && !C::kFromBlocks;

#if RANDTENSOR_PLACES_PIECES
// ConvertBlockVectors for Placing::kCrossing: the n vectors' stores each
// take their place from the rows' cursor `to` (StreamCrossings), which
// moves on by their elements; the cursor is a local copy here, so that its
// steps stay in registers.
template <class C, class K>
HWY_NOINLINE void ConvertCrossingVectors(const K& constants, const uint32_t* words, size_t n,
                                         VectorPlaces<typename C::Type>* to) {
  const K k = constants;  // as in ConvertTyped
  VectorPlaces<typename C::Type> cursor = *to;
  const size_t words_per_vector = kOut * hn::Lanes(DW());
  for (size_t b = 0; b < n; ++b) {
    ConvertBlockVector<C>(k, words + b * words_per_vector,
                          StreamCrossings<VectorPlaces<typename C::Type>>{&cursor}, false);
  }
  *to = cursor;
}
#endif

// ConvertRun's loop for kFromWords<C>: the words wait in L1 anyway, so
// they come from the bits kind's run (BlockWords, one copy per target),
// 8 KiB at a time, and this loop compiles no Philox rounds of its own:
// rounds of their own, once per kind, store mode, placing and group size,
// would be most of these units' compile. Places as ConvertRunWith
// (kInOrder or kSpills, a group of vectors at a time; kCrossing, each
// store from the rows' cursor, a chunk at a time).
template <class C, bool nt, Placing kPlacing, class K>
HWY_INLINE void ConvertRunFromWords(const detail::KernelArgs& s, const K& k, uint64_t block,
                                    uint64_t n, VectorPlaces<typename C::Type>& to) {
  using T = typename C::Type;
  constexpr bool spill = kPlacing == Placing::kSpills;
  constexpr bool cross = kPlacing == Placing::kCrossing;
  static_assert(kPlacing == Placing::kInOrder || spill || cross,
                "long math: in order, spills or crossing");
  static_assert(!cross || (kCrossesRows<C> && !nt), "crossing rows: plain stores");
  const size_t nb = BlocksPerVector();
  const uint64_t per_vector = nb * (4 / C::kWords);  // elements per state vector
  const uint64_t words_per_vector = 4 * nb;
  // Vectors of blocks per call: whole groups, which BlockWords makes
  // fastest (a group's batches in flight together).
  const uint64_t chunk = kAfterGroupWords / words_per_vector / kBatches * kBatches;
  HWY_ALIGN uint32_t words[kAfterGroupWords];
  while (n != 0) {
    const uint64_t m = std::min<uint64_t>(n, chunk);
    BlockWords(s, block, m * nb, words);
    if constexpr (cross) {
#if RANDTENSOR_PLACES_PIECES
      ConvertCrossingVectors<C>(k, words, m, &to);
#endif
      block += m * nb;
      n -= m;
      continue;
    }
    for (uint64_t done = 0; done < m; done += kBatches) {
      const size_t g = static_cast<size_t>(std::min<uint64_t>(kBatches, m - done));
      T* place[kBatches];
      for (size_t b = 0; b < g; ++b) place[b] = to.template Next<spill>(per_vector, b);
      ConvertBlockVectors<C>(k, words + done * words_per_vector, g, place, nt);
      if constexpr (spill) to.EndGroup(per_vector);
    }
    block += m * nb;
    n -= m;
  }
  if constexpr (spill) to.Finish(per_vector);
}

// ConvertRun's loop, with the converter's constants k (made from params).
template <class C, bool nt, Placing kPlacing, class K>
HWY_INLINE void ConvertRunWith(const detail::KernelArgs& s, const typename C::Params& params,
                               const K& k, uint64_t block, uint64_t n,
                               VectorPlaces<typename C::Type>& to, const SplitPlaces& split_places) {
  using T = typename C::Type;
  constexpr uint64_t kPerBlock = 4 / C::kWords;  // elements
  constexpr bool spill = kPlacing == Placing::kSpills;
  constexpr bool split = kPlacing == Placing::kSplit;
  constexpr bool cross = kPlacing == Placing::kCrossing;
  static_assert(kOut % C::kGroup == 0, "a batch holds whole converter groups");
  static_assert(!split || (kPlacesEachVector<C> && !nt),
                "split places: word vectors on their own, plain stores");
  static_assert(!cross || (kCrossesRows<C> && !nt),
                "crossing rows: a target that places pieces, plain stores");
  static_assert(!kFromWords<C>, "long math: ConvertRunFromWords");
  const size_t nb = BlocksPerVector();
  const uint64_t per_vector = nb * kPerBlock;  // elements per state vector
  // Split: each word vector's offset from its vector's place, in registers.
  ptrdiff_t offset[kOut];
  for (size_t i = 0; i < kOut; ++i) offset[i] = split ? split_places.offset[i] : 0;
  // Split: vectors of blocks made one after another at `from` to their places.
  const auto place_split = [&](const T* from, uint64_t vectors) {
    RowPlaces<T>(to.row, split_places.row, split_places.row_step).Put(from, vectors * per_vector);
    to.Skip(vectors * per_vector);  // to.col stays 0: whole vectors of blocks
  };
  while (n != 0) {
    const Counter128 c = s.start.Plus(block);
    uint64_t m = std::min<uint64_t>(n, BlocksBeforeCarry(c) / nb);  // whole vectors
    if (m == 0) {
      if constexpr (split || cross) {
        HWY_ALIGN T one[4 * hn::MaxLanes(DState())];
        CarryVector<C>(s, k, block, one);
        if constexpr (split) {
          place_split(one, 1);
        } else {
          to.Put(one, per_vector);
        }
      } else {
        CarryVector<C>(s, k, block, to.template Next<spill>(per_vector, 0));
      }
      if constexpr (spill) to.EndGroup(per_vector);
      m = 1;
    } else {
      UniformRun run(c, s.keys);
      VU64 even, odd;  // the run's products (UniformRun::Load)
      run.Load(&even, &odd);
      // Batch x's words in block order (LastRound with InPlace) to dst.
      const auto convert = [&](Batch x, auto dst) __attribute__((always_inline)) {
        if constexpr (kOut == 4) {
          C::Vectors(k, dst, nt, WordOf(x, 0), WordOf(x, 1), WordOf(x, 2), WordOf(x, 3));
        } else {
          C::Vectors(k, dst, nt, WordOf(x, 0), WordOf(x, 1));
        }
      };
      const auto batches = [&](auto group) __attribute__((always_inline)) {
        T* place[decltype(group)::value];
        if constexpr (!cross) {
          for (size_t b = 0; b < decltype(group)::value; ++b) {
            place[b] = to.template Next<spill>(per_vector, b);
          }
        }
        WithBatches<decltype(group)::value>([&](auto... x) __attribute__((always_inline)) {
          run.Next<philox::kRounds - 1>(s.keys, &even, &odd, x...);
          if constexpr (C::kFromBlocks) {
            Round(s.keys.k0[philox::kRounds - 1], s.keys.k1[philox::kRounds - 1], x...);
            ForEachBatch(
                [&](Batch y, size_t b) __attribute__((always_inline)) {
                  if constexpr (cross) {
#if RANDTENSOR_PLACES_PIECES
                    C::Blocks(k, y.x0, y.x1, y.x2, y.x3, StreamCrossings<VectorPlaces<T>>{&to},
                              nt);
#endif
                  } else {
                    C::Blocks(k, y.x0, y.x1, y.x2, y.x3, place[b], nt);
                  }
                },
                x...);
          } else {
            LastRound(
                s.keys,
                [&](Batch y, size_t b, size_t i, VW t) __attribute__((always_inline)) {
                  if constexpr (cross) {
#if RANDTENSOR_PLACES_PIECES
                    if constexpr (C::kGroup == 1) {
                      C::Vectors(k, to.Crossing(per_vector / kOut), nt, t);  // a word vector's
                    } else {
                      // Word vectors converted together (AVX-512's bfloat16
                      // pairs): once the batch's words are in place, each
                      // result vector's store from the rows' cursor.
                      InPlace()(y, b, i, t);
                      if (i + 1 == kOut) convert(y, StreamCrossings<VectorPlaces<T>>{&to});
                    }
#endif
                    return;
                  }
                  T* const dst = place[b];
                  if constexpr (split) {
                    C::Vectors(k, dst + offset[i], nt, t);
                  } else if constexpr (C::kGroup == 1) {
                    // Each vector as soon as it is made (as its words would
                    // be stored): none waits in a register.
                    C::Vectors(k, dst + i * (hn::Lanes(DW()) / C::kWords), nt, t);
                  } else {
                    InPlace()(y, b, i, t);
                    if (i + 1 == kOut) convert(y, dst);
                  }
                },
                x...);
          }
        });
        if constexpr (spill) to.EndGroup(per_vector);
      };
      uint64_t done = 0;
      for (; done + kBatches <= m; done += kBatches) {
        batches(std::integral_constant<size_t, kBatches>());
      }
      if constexpr (spill) {
        // Fewer vectors than a group: converted whole into L1 by the loop
        // without spills (compiled anyway) and copied to their places, so
        // that this loop compiles the converter for one group size only
        // (the spills' loop was a third of a kernel unit's compile).
        if (done < m) {
          to.Finish(per_vector);
          T* const l1 = to.spill->elements;
          ConvertRun<C, false>(s, params, block + done * nb, m - done, VectorPlaces<T>(l1));
          to.Put(l1, (m - done) * per_vector);
        }
      } else if constexpr (split || cross) {
        // As the spills' loop, fewer vectors than a group through L1 (the
        // kInOrder loop), so that this loop, too, compiles the converter
        // for one group size only.
        if (done < m) {
          HWY_ALIGN T l1[kBatches * 4 * hn::MaxLanes(DState())];
          ConvertRun<C, false>(s, params, block + done * nb, m - done, VectorPlaces<T>(l1));
          if constexpr (split) {
            place_split(l1, m - done);
          } else {
            to.Put(l1, (m - done) * per_vector);
          }
        }
      } else {
        for (; done < m; ++done) batches(std::integral_constant<size_t, 1>());
      }
    }
    block += m * nb;
    n -= m;
  }
  if constexpr (spill) to.Finish(per_vector);
}

// Vectors of Philox blocks [block, block + n nb) converted to their places
// `to` (one after another, or in rows: VectorPlaces); `nt`:
// non-temporal stores straight from registers (`to` aligned to the vector
// size; a template parameter, so that the stores' choice is made once per
// run, not once per store). Rounds (UniformRun, LastRound): 0 and 1 from
// uniform counter words, computed once per run, 9 fused with the transpose
// that hands the words in stream order to C::Vectors (C::kFromBlocks: round
// 9 plain, the state's order to C::Blocks). Groups of kBatches vectors and
// single ones for the rest: two instantiations of the converter's vector
// code per kind and target, not one per group size. Out of line, so that
// GenerateConverted's four uses share one copy: the conversions make the
// kernel units the build's longest compiles, and a call per run costs
// nothing measurable. kPlacing: how the vectors go to their places, each
// way a loop of its own (Placing); the loops other than kInOrder convert
// whole groups only, and the last vectors through L1 (kInOrder's loop).
// kSplit: `to` steps a vector's rows at a time. The converter's constants
// (C::WithConstants) are made here, once per call, so that they are this
// function's locals, which the stores cannot alias, and stay in registers.
template <class C, bool nt, Placing kPlacing>
HWY_NOINLINE void ConvertRun(const detail::KernelArgs& s, const typename C::Params& fill_params,
                             uint64_t block, uint64_t n, VectorPlaces<typename C::Type> to,
                             SplitPlaces split_places) {
  const typename C::Params params = fill_params;  // as GenerateConverted's copy
  C::WithConstants(params, [&](const auto& k) __attribute__((always_inline)) {
    if constexpr (kFromWords<C>) {
      ConvertRunFromWords<C, nt, kPlacing>(s, k, block, n, to);
    } else {
      ConvertRunWith<C, nt, kPlacing>(s, params, k, block, n, to, split_places);
    }
  });
}
#endif

// Elements [first, first + count) of C into dst (GenerateFn), converted in
// registers right after the Philox rounds: each batch's blocks are
// transposed to stream order (as for bits) and handed to C::Vectors instead
// of being stored. A Philox block holds whole elements and whole pairs
// (4 / w elements), so whole vectors of blocks convert on their own; the
// run's last, partial vector converts whole into the stage, and the
// elements before its first block boundary go through GenerateChunked.
// With `nontemporal`, elements are stored non-temporally: straight from
// registers after a head that makes the output vector-aligned at a block
// boundary (AlignedHead), else through a small L1 stage that realigns them.
template <class C>
void GenerateConverted(const detail::KernelArgs& s, uint64_t first, uint64_t count, void* dst,
                       bool nontemporal) {
  const typename C::Params& fill_params = detail::ParamsOf<typename C::Params>(s.params);
  if constexpr (!std::is_void<typename C::Variant>::value) {
    // Decided once per call, so that each loop is compiled for one converter.
    if (C::UseVariant(fill_params)) {
      return GenerateConverted<typename C::Variant>(s, first, count, dst, nontemporal);
    }
  }
#if HWY_TARGET == HWY_SCALAR
  (void)nontemporal;
  GenerateChunked<C>(s, fill_params, first, count, dst);
#else
  using T = typename C::Type;
  constexpr uint64_t kPerBlock = 4 / C::kWords;  // elements
  // A copy the stores cannot alias: through s.params, every float store
  // made the compiler reload the constants.
  const typename C::Params params = fill_params;
  T* out = static_cast<T*>(dst);
  // Elements before the first Philox block boundary (or, non-temporal,
  // before the first vector-aligned one); kNoAlignedHead: through the stage.
  uint64_t head = std::min<uint64_t>(count, (kPerBlock - first % kPerBlock) % kPerBlock);
  if (nontemporal) {
    head = AlignedHead<T, kPerBlock>(first, out);
    if (head != kNoAlignedHead && head > count) head = kNoAlignedHead;
  }
  const bool staged = head == kNoAlignedHead;
  // The unaligned bytes are stored non-temporally too (plain stores that
  // miss stall non-temporal ones behind them; see move-inl.h): through L1,
  // then NonTemporalCopyBytes.
  HWY_ALIGN uint8_t stage[kConvertStageBytes + 2 * kVectorBytes];
  if (head != 0 && !staged) {
    if (nontemporal) {
      // head < kPerBlock vectors of bytes: fits the stage.
      GenerateChunked<C>(s, params, first, head, stage);
      NonTemporalCopyBytes(stage, head * sizeof(T), reinterpret_cast<uint8_t*>(out));
    } else {
      GenerateChunked<C>(s, params, first, head, out);
    }
    first += head, count -= head, out += head;
  }
  const size_t nb = BlocksPerVector();
  const uint64_t per_vector = nb * kPerBlock;  // elements per state vector
  // With `staged`, the elements to the first block boundary go through the
  // stage below, and the vectors start after them.
  const uint64_t lead =
      staged ? std::min<uint64_t>(count, (kPerBlock - first % kPerBlock) % kPerBlock) : 0;
  uint64_t vectors = (count - lead) / per_vector;
  uint64_t block = (first + lead) / kPerBlock;  // the next vector's first block
  const auto convert_run = [&](uint64_t n, T* to, bool nt) __attribute__((always_inline)) {
    if (nt) {
      ConvertRun<C, true>(s, params, block, n, VectorPlaces<T>(to));
    } else {
      ConvertRun<C, false>(s, params, block, n, VectorPlaces<T>(to));
    }
    block += n * nb;
  };
  if (!staged) {
    // Every non-temporal store is a whole vector (or a half or quarter of
    // one) at a multiple of its own size from the aligned `out`.
    convert_run(vectors, out, nontemporal);
    out += vectors * per_vector;
    count -= vectors * per_vector;
    if (count != 0) {
      // The last, partial vector of blocks: converted whole into the
      // stage, its first elements copied (plainly, as the head). Any fill
      // smaller than a vector of blocks (64 elements on AVX-512) comes
      // here: one fused vector costs it less than the words through L1 and
      // a second pass (GenerateChunked).
      convert_run(1, reinterpret_cast<T*>(stage), false);
      std::memcpy(out, stage, count * sizeof(T));
    }
    return;
  }
  // The stream position and the address disagree (AlignedHead): elements
  // are converted into the stage behind the bytes still owed from the last
  // step, then stored non-temporally from it in whole vectors to aligned
  // addresses; the leftover (less than a vector) waits for the next step,
  // so no line is split between steps. A step is one group of kBatches
  // vectors, as many stores as the aligned path issues at once, so the
  // stores overlap the next rounds as they do there; a larger step keeps
  // finished lines in L1 while the rounds run instead of storing them, and
  // copying a whole stage out afterwards would read every byte twice and
  // store the partial words of 1- and 2-byte types plainly in mid-run.
  // Bytes of partial 4-byte words at the run's two ends are stored plainly
  // by NonTemporalCopyBytes (neighbours share those words).
  const hn::ScalableTag<uint8_t> d8;
  const size_t V = hn::Lanes(d8);  // divides kVectorBytes
  uint8_t* to = reinterpret_cast<uint8_t*>(out);
  size_t owed = 0;  // bytes at stage[0, owed): not yet stored, due at `to`
  const auto flush = [&](bool last) {
    size_t done = (kVectorBytes - reinterpret_cast<uintptr_t>(to) % kVectorBytes) % kVectorBytes;
    if (done > owed) {
      if (!last) return;  // not yet up to the first aligned address
      done = owed;
    }
    NonTemporalCopyBytes(stage, done, to);  // up to the first aligned address
    for (; done + V <= owed; done += V) hn::Stream(hn::LoadU(d8, stage + done), d8, to + done);
    if (last) {
      NonTemporalCopyBytes(stage + done, owed - done, to + done);
      done = owed;
    }
    std::memmove(stage, stage + done, owed - done);  // < kVectorBytes
    to += done;
    owed -= done;
  };
  if (lead != 0) {
    GenerateChunked<C>(s, params, first, lead, stage);
    owed = lead * sizeof(T);
  }
  first += lead + vectors * per_vector;
  count -= lead + vectors * per_vector;
  const uint64_t step = std::max<uint64_t>(
      1, std::min<uint64_t>(kBatches, kConvertStageBytes / (per_vector * sizeof(T))));
  while (vectors != 0) {
    const uint64_t n = std::min(vectors, step);
    convert_run(n, reinterpret_cast<T*>(stage + owed), false);  // owed: whole elements
    owed += n * per_vector * sizeof(T);
    flush(false);
    vectors -= n;
  }
  // The run's last elements (fewer than a vector of blocks' worth): one
  // vector converted whole behind them (the stage has room: owed is less
  // than a vector), only they counted.
  if (count != 0) {
    convert_run(1, reinterpret_cast<T*>(stage + owed), false);
    owed += count * sizeof(T);
  }
  flush(true);
#endif
}

// Elements per vector of Philox blocks (GenerateKernels::vector_elements):
// the scalar target has no vectors.
template <class C>
uint64_t VectorElements() {
#if HWY_TARGET == HWY_SCALAR
  return 1;
#else
  return BlocksPerVector() * (4 / C::kWords);
#endif
}

// Elements per group of kBatches vectors of blocks
// (GenerateKernels::group_elements): ConvertRun's loop makes whole groups
// with their rounds interleaved and the rest one vector at a time.
template <class C>
uint64_t GroupElements() {
#if HWY_TARGET == HWY_SCALAR
  return 1;
#else
  return kBatches * VectorElements<C>();
#endif
}

// Elements per word vector where each has a place of its own
// (GenerateKernels::split_elements), else 0.
template <class C>
uint64_t SplitElements() {
#if HWY_TARGET == HWY_SCALAR
  return 0;
#else
  return kPlacesEachVector<C> ? VectorElements<C>() / kOut : 0;
#endif
}

// The shortest rows that vectors may cross and still be placed from
// registers (GenerateKernels::cross_elements): a word vector's elements,
// where C's rows go through Placing::kCrossing (kCrossesRows); else 0.
// Bytes copied in pieces (RANDTENSOR_COPIED_BYTE_CROSSINGS): a group of
// vectors, as for spills (SpillElements); a crossing in every shorter row
// cost more than staging them (docs/kernel-speed.md).
template <class C>
uint64_t CrossElements() {
#if HWY_TARGET == HWY_SCALAR
  return 0;
#else
  if (!kCrossesRows<C>) return 0;
  if (sizeof(typename C::Type) == 1 && RANDTENSOR_COPIED_BYTE_CROSSINGS) {
    return GroupElements<C>();
  }
  return VectorElements<C>() / kOut;
#endif
}

// The shortest rows that vectors may cross and still go through `rows`
// with C's crossing vectors spilled through L1 (GenerateKernels::
// spill_elements), where C's rows are not crossed from registers
// (kCrossesRows: NEON, and AVX2's bytes); shorter rows are staged. A group
// of vectors (GroupElements), at most about one spill per group: spills
// every vector or two cost more than staging (docs/kernel-speed.md, "How
// the kernel reaches its bound"). None on SSE4, which crosses the rows of
// every kind (of bytes from a group of vectors long: CrossElements).
template <class C>
uint64_t SpillElements() {
#if HWY_TARGET == HWY_SCALAR || !RANDTENSOR_FMA
  return 0;  // SCALAR takes any rows through `rows`; SSE4 crosses or stages them
#else
  return kCrossesRows<C> ? 0 : GroupElements<C>();
#endif
}

// Rows (GenerateRowsFn): `rows` runs of `row` elements, consecutive in the
// stream from `first`, run r at dst + r * row_stride elements, as one run
// of vectors of blocks (ConvertRun with VectorPlaces), so that no row
// restarts the run and short rows keep a whole group of vectors in flight:
// where the target places pieces of C's elements (masked stores, or
// copies through L1 on AVX2 and SSE4: kCrossesRows), each store goes into
// its row or rows from registers (Placing::kCrossing); elsewhere vectors
// inside a row are stored straight from registers and the few that cross
// a row end go through L1 (VectorPlaces::Spill). As in
// GenerateConverted, the vector holding the elements before the first block
// boundary and the run's last, partial vector are converted whole into L1
// and only their elements copied. Non-temporal stores straight from
// registers need every vector inside a row and aligned: rows of whole
// vectors from a block boundary, vector-aligned; other non-temporal rows
// are declined (nothing written, false) and the writer streams them a row
// at a time. The scalar target takes any rows, in chunks of elements
// through L1 (GenerateChunked), its stores plain as its runs' are.
template <class C>
bool GenerateRows(const detail::KernelArgs& s, uint64_t first, uint64_t row, uint64_t rows,
                  void* dst, int64_t row_stride, bool nontemporal) {
  const typename C::Params& params = detail::ParamsOf<typename C::Params>(s.params);
  if constexpr (!std::is_void<typename C::Variant>::value) {
    if (C::UseVariant(params)) {
      return GenerateRows<typename C::Variant>(s, first, row, rows, dst, row_stride, nontemporal);
    }
  }
  using T = typename C::Type;
  if (row == 0) return false;
  uint64_t count = rows * row;
  // Elements in chunks through L1 (GenerateChunked), copied row by row.
  const auto through_l1 = [&] {
    constexpr uint64_t kChunk = 1024;  // elements
    T chunk[kChunk];
    RowPlaces<T> places(static_cast<T*>(dst), row, static_cast<ptrdiff_t>(row_stride));
    for (uint64_t done = 0; done < count;) {
      const uint64_t n = std::min(kChunk, count - done);
      GenerateChunked<C>(s, params, first + done, n, chunk);
      places.Put(chunk, n);
      done += n;
    }
    return true;
  };
#if HWY_TARGET == HWY_SCALAR
  (void)nontemporal;
  return through_l1();
#else
  constexpr uint64_t kPerBlock = 4 / C::kWords;
  const size_t nb = BlocksPerVector();
  const uint64_t per_vector = nb * kPerBlock;
  if (nontemporal && (first % kPerBlock != 0 || row % per_vector != 0 ||
                      reinterpret_cast<uintptr_t>(dst) % kVectorBytes != 0 ||
                      static_cast<uint64_t>(row_stride) * sizeof(T) % kVectorBytes != 0)) {
    return false;
  }
  // Rows shorter than a vector: placed straight from registers where each
  // vector of blocks holds whole rows of whole word vectors (kSplit), or,
  // where C's crossed rows go word vector by word vector (kCrossing), rows
  // of at least a word vector; others (the writer stages them unless
  // vectors are wider than its shortest rows in place) through L1: vectors
  // may cross several.
  const uint64_t per_word_vector = per_vector / kOut;
  const bool split = kPlacesEachVector<C> && row < per_vector && per_vector % row == 0 &&
                     row % per_word_vector == 0 && first % kPerBlock == 0 && !nontemporal;
  if (row < per_vector && !split && !(kCrossesRows<C> && row >= per_word_vector)) {
    return through_l1();
  }
  // Two groups of vectors, and a vector of bytes that CopyPiece may read.
  HWY_ALIGN T elements[2 * kBatches * 4 * hn::MaxLanes(DState()) + kVectorBytes / sizeof(T)];
  typename VectorPlaces<T>::Spill spill;
  spill.elements = elements;
  VectorPlaces<T> places(static_cast<T*>(dst), row, static_cast<ptrdiff_t>(row_stride));
  places.spill = &spill;
  uint64_t block = first / kPerBlock;
  const uint64_t skip = first % kPerBlock;
  if (skip != 0) {
    ConvertRun<C, false>(s, params, block, 1, VectorPlaces<T>(elements));
    const uint64_t head = std::min(count, per_vector - skip);
    places.Put(elements + skip, head);
    count -= head;
    block += nb;
  }
  const uint64_t vectors = count / per_vector;
  if (split) {
    // A vector of blocks' rows at a time.
    const VectorPlaces<T> rows_of_vectors(
        static_cast<T*>(dst), per_vector,
        static_cast<ptrdiff_t>(per_vector / row) * static_cast<ptrdiff_t>(row_stride));
    if constexpr (kPlacesEachVector<C>) {
      ConvertRun<C, false, Placing::kSplit>(s, params, block, vectors, rows_of_vectors,
                                            SplitPlacesOf(row, row_stride, per_word_vector));
    }
  } else if (nontemporal) {
    ConvertRun<C, true>(s, params, block, vectors, places);
  } else if (skip == 0 && row % per_vector == 0) {
    ConvertRun<C, false>(s, params, block, vectors, places);  // no vector crosses a row end
  } else if (vectors != 0) {
    constexpr Placing kCrossed = kCrossesRows<C> ? Placing::kCrossing : Placing::kSpills;
    ConvertRun<C, false, kCrossed>(s, params, block, vectors, places);
  }
  count -= vectors * per_vector;
  if (count != 0) {
    places.Skip(vectors * per_vector);  // ConvertRun moved a copy
    ConvertRun<C, false>(s, params, block + vectors * nb, 1, VectorPlaces<T>(elements));
    places.Put(elements, count);
  }
  return true;
#endif
}

#ifdef RANDTENSOR_BITS_UNIT
void BlockWords(const detail::KernelArgs& s, uint64_t block, uint64_t n, uint32_t* out) {
#if HWY_TARGET == HWY_SCALAR
  ReferenceBlocks(s, block, n, out);
#else
  GenerateConverted<Bits>(s, 4 * block, 4 * n, out, false);
#endif
}
#endif

}  // namespace convert
}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#endif  // RANDTENSOR_SRC_RUN_INL_H_ toggle guard
