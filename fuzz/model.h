// What the fuzzer expects, computed without randtensor's own code.
//
// Values come from the tests' one oracle, tests/oracle.h (Random123's Philox
// from librandom123-dev, 128-bit counter arithmetic done by the compiler's
// unsigned __int128), which the C and C++ tests share; layouts are measured in
// 128-bit integers and checked for overlap by brute force (a bitmap of the
// span) when no nesting argument settles it. Each rule cites SPEC.md or the
// public headers, and a model verdict is one of:
//   kValid    the contract says the call must succeed
//   kInvalid  the contract says it must be rejected (why says which rule)
//   kEither   the contract leaves it open (either answer is checked for its
//             effects: a success must have written exactly the right bytes)
#ifndef RANDTENSOR_FUZZ_MODEL_H_
#define RANDTENSOR_FUZZ_MODEL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tests/oracle.h"

namespace rt_fuzz {

using u128 = rt_oracle_u128;
__extension__ typedef __int128 i128;

enum Verdict { kValid = 0, kEither = 1, kInvalid = 2 };

struct Judgement {
  Verdict verdict = kValid;
  const char* why = "";

  // Keeps the strongest finding: kInvalid beats kEither beats kValid.
  void Note(Verdict v, const char* reason) {
    if (v > verdict) {
      verdict = v;
      why = reason;
    }
  }
};

// ------------------------------------------------------------------ values

// oracle.h for one state, caching the last block (the fuzzer asks for the
// elements of a layout in order).
class Oracle {
 public:
  explicit Oracle(const uint32_t state[6]) { std::memcpy(state_, state, sizeof(state_)); }

  // Stream element `index` (128-bit: element_offset + e may pass 2^64).
  uint32_t Value(u128 index) {
    const u128 block = index >> 2;
    if (!cached_ || block != block_) {
      rt_oracle_block_of(state_, index, words_);
      block_ = block;
      cached_ = true;
    }
    return words_[static_cast<int>(index & 3)];
  }

  // SPEC.md section 3: the output state after `elements` stream elements.
  void OutState(u128 elements, uint32_t out[6]) const { rt_oracle_advance(state_, elements, out); }

 private:
  uint32_t state_[6];
  bool cached_ = false;
  u128 block_ = 0;
  uint32_t words_[4] = {};
};

// ----------------------------------------------------------------- layouts

// Spans and element counts up to this are checked for overlap by brute force.
constexpr uint64_t kBruteForceLimit = uint64_t{1} << 20;

struct LayoutModel {
  Judgement j;
  bool empty = false;      // a size is 0
  bool counted = false;    // rank and sizes valid: count is meaningful
  u128 count = 0;
  bool span_ok = false;    // low/high/min_bytes are meaningful (non-empty, fits 64 bits)
  i128 low = 0, high = 0;  // element offsets relative to element (0, ..., 0)
  uint64_t min_bytes = 0;  // 0 for an empty tensor
  bool nested = false;     // disjointness follows from nesting alone
  int rank = 0;
  int64_t sizes[8] = {};
  int64_t strides[8] = {};  // effective strides (packed when none were given)
};

// Decides overlap exactly by marking every element's offset in a bitmap.
// Returns true if two elements share an offset.
inline bool BruteForceOverlap(const LayoutModel& m) {
  const uint64_t span = static_cast<uint64_t>(m.high - m.low + 1);
  std::vector<uint64_t> bits((span + 63) / 64);
  int64_t idx[8] = {};
  int64_t offset = 0;
  for (u128 e = 0; e < m.count; ++e) {
    const uint64_t at = static_cast<uint64_t>(offset - static_cast<int64_t>(m.low));
    if (bits[at / 64] & (uint64_t{1} << (at % 64))) return true;
    bits[at / 64] |= uint64_t{1} << (at % 64);
    for (int d = m.rank - 1; d >= 0; --d) {  // odometer, last dimension fastest
      if (++idx[d] < m.sizes[d]) {
        offset += m.strides[d];
        break;
      }
      offset -= (m.sizes[d] - 1) * m.strides[d];
      idx[d] = 0;
    }
  }
  return false;
}

// SPEC.md section 4 and fill.h, for 4-byte elements. Ranks below `min_rank`
// (native 0, DirectML 1) or above 8 are invalid.
inline LayoutModel ModelLayout(int64_t rank, int64_t min_rank, const int64_t* sizes,
                               const int64_t* strides) {
  LayoutModel m;
  if (rank < min_rank || rank > 8) {
    m.j.Note(kInvalid, "rank outside the allowed range");
    return m;
  }
  m.rank = static_cast<int>(rank);
  if (rank > 0 && sizes == nullptr) {
    m.j.Note(kInvalid, "sizes null");
    return m;
  }
  for (int d = 0; d < m.rank; ++d) {
    if (sizes[d] < 0) {
      m.j.Note(kInvalid, "negative size");
      return m;
    }
    if (sizes[d] == 0) m.empty = true;
    m.sizes[d] = sizes[d];
  }
  m.counted = true;
  if (m.empty) {
    m.count = 0;
    m.min_bytes = 0;
    // fill.h: an empty tensor is a no-op; whether its strides are still
    // checked is not specified.
    if (strides != nullptr) m.j.Note(kEither, "empty tensor with explicit strides");
    return m;
  }
  u128 count = 1;
  for (int d = 0; d < m.rank; ++d) {
    count *= static_cast<u128>(sizes[d]);
    if (count > (u128{1} << 64)) count = u128{1} << 64;  // saturate: far past any limit
  }
  m.count = count;
  // A disjoint layout of N elements spans at least N elements: N * 4 bytes
  // must fit in 64 bits (MinBufferBytes fails on overflow).
  if (count * 4 > UINT64_MAX) {
    m.j.Note(kInvalid, "element count too large for a 64-bit byte span");
    return m;
  }
  if (strides == nullptr) {
    int64_t step = 1;
    for (int d = m.rank - 1; d >= 0; --d) {
      m.strides[d] = step;
      step *= m.sizes[d];  // fits: count <= 2^62
    }
  } else {
    for (int d = 0; d < m.rank; ++d) m.strides[d] = strides[d];
  }
  // Dimensions of size 1 contribute index 0 only: their stride is irrelevant.
  i128 low = 0, high = 0;
  for (int d = 0; d < m.rank; ++d) {
    if (m.sizes[d] == 1) continue;
    if (m.strides[d] == 0) {
      m.j.Note(kInvalid, "stride 0 on a dimension of size > 1");
      return m;
    }
    const i128 extent = static_cast<i128>(m.strides[d]) * (m.sizes[d] - 1);  // |.| < 2^125
    (extent < 0 ? low : high) += extent;
  }
  const i128 raw = (high - low + 1) * 4;
  if (raw > static_cast<i128>(UINT64_MAX)) {
    m.j.Note(kInvalid, "byte span does not fit in 64 bits");
    return m;
  }
  m.span_ok = true;
  m.low = low;
  m.high = high;
  m.min_bytes = static_cast<uint64_t>(raw);  // already a multiple of 4

  // Nested: sorted by |stride|, each exceeds the reach of all smaller ones.
  int live[8], n = 0;
  for (int d = 0; d < m.rank; ++d) {
    if (m.sizes[d] > 1) live[n++] = d;
  }
  auto mag = [&](int d) -> u128 {
    return m.strides[d] < 0 ? u128(0) - u128(static_cast<i128>(m.strides[d])) : u128(m.strides[d]);
  };
  std::sort(live, live + n, [&](int a, int b) { return mag(a) < mag(b); });
  u128 reach = 0;
  m.nested = true;
  for (int k = 0; k < n; ++k) {
    if (mag(live[k]) <= reach) m.nested = false;
    reach += mag(live[k]) * static_cast<u128>(m.sizes[live[k]] - 1);
  }
  if (!m.nested) {
    const uint64_t span = static_cast<uint64_t>(high - low + 1);
    if (span <= kBruteForceLimit && m.count <= kBruteForceLimit) {
      if (BruteForceOverlap(m)) m.j.Note(kInvalid, "two elements share an address");
    } else {
      m.j.Note(kEither, "overlap not decided by the model (too large to brute-force)");
    }
  }
  return m;
}

// DMLCalcBufferTensorSize (SPEC.md section 4): returns false when the call
// must fail; DirectML's formula measures the span only (no overlap rule).
inline bool ModelCalcBufferTensorSize(int32_t data_type, uint32_t dims, const uint32_t* sizes,
                                      const uint32_t* strides, uint64_t* bytes) {
  int element_size = 0;
  switch (data_type) {
    case 1: case 3: case 6: element_size = 4; break;   // FLOAT32, UINT32, INT32
    case 2: case 4: case 7: element_size = 2; break;   // FLOAT16, UINT16, INT16
    case 5: case 8: element_size = 1; break;           // UINT8, INT8
    case 9: case 10: case 11: element_size = 8; break; // FLOAT64, UINT64, INT64
    default: return false;
  }
  if (dims < 1 || dims > 8 || sizes == nullptr) return false;
  u128 span = 1;
  for (uint32_t d = 0; d < dims; ++d) {
    if (sizes[d] == 0) return false;
    span = strides == nullptr ? span * sizes[d] : span + u128{sizes[d] - 1} * strides[d];
  }
  // 8 dims of 2^32: < 2^256 would overflow u128 only in the packed product:
  // 2^32^8 = 2^256. Recompute the packed product with saturation.
  if (strides == nullptr) {
    span = 1;
    for (uint32_t d = 0; d < dims; ++d) {
      span *= sizes[d];
      if (span > (u128{1} << 70)) span = u128{1} << 70;
    }
  }
  const u128 raw = span * static_cast<u128>(element_size);
  const u128 rounded = (raw + 3) / 4 * 4;
  if (rounded > UINT64_MAX) return false;
  *bytes = static_cast<uint64_t>(rounded);
  return true;
}

}  // namespace rt_fuzz

#endif  // RANDTENSOR_FUZZ_MODEL_H_
