// Layout validation, the overlap proof and the canonical form (see layout.h).
//
// Offsets are computed in 128-bit integers (a GCC/Clang extension) so that no
// product or sum of 64-bit sizes and strides can overflow before it is checked.

#include "src/layout.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace randtensor {
namespace detail {
namespace {

__extension__ typedef __int128 i128;  // GCC and Clang
constexpr i128 kInt64Max = INT64_MAX;
constexpr i128 kInt64Min = INT64_MIN;

// Floor and ceiling of a / b for b > 0.
i128 FloorDiv(i128 a, i128 b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
i128 CeilDiv(i128 a, i128 b) { return -FloorDiv(-a, b); }

int64_t Gcd(int64_t a, int64_t b) {
  while (b != 0) {
    const int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Decides whether two distinct elements share an address: whether some
// nonzero delta with |delta[d]| <= size[d] - 1 has sum delta[d] * stride[d] = 0.
// That is a bounded knapsack problem, so the search is exact but capped; the
// usual layouts (packed, padded, permuted) are decided in `rank` steps because
// each stride exceeds the reach of all smaller ones.
class OverlapSearch {
 public:
  enum Result { kDisjoint, kShared, kUndecided };

  // Dimensions of size > 1 only; strides nonzero.
  OverlapSearch(int n, const int64_t* sizes, const int64_t* strides) : n_(n) {
    // Insertion sort by |stride| (at most 8 dimensions).
    int order[kMaxRank];
    for (int i = 0; i < n; ++i) {
      int j = i;
      for (; j > 0 && Abs(strides[order[j - 1]]) > Abs(strides[i]); --j) order[j] = order[j - 1];
      order[j] = i;
    }
    i128 reach = 0;
    int64_t g = 0;
    for (int k = 0; k < n; ++k) {
      dim_[k] = order[k];
      size_[k] = sizes[order[k]];
      stride_[k] = Abs(strides[order[k]]);
      sign_[k] = strides[order[k]] < 0 ? -1 : 1;
      reach_[k] = reach;  // most |sum| that dimensions below k can add
      delta_[k] = 0;
      reach += static_cast<i128>(stride_[k]) * (size_[k] - 1);
      g = Gcd(stride_[k], g);
      gcd_[k] = g;
    }
  }

  Result Run() {
    // Usual layouts (packed, padded, permuted): every stride exceeds the
    // reach of all smaller ones, which proves disjointness without a search
    // (and without its 128-bit divisions, which dominate small fills).
    bool nested = true;
    for (int k = 0; k < n_ && nested; ++k) nested = stride_[k] > reach_[k];
    if (nested) return kDisjoint;
    return Solve(n_ - 1, 0, false) ? kShared : (budget_ < 0 ? kUndecided : kDisjoint);
  }

  // Two elements that share an address (valid after Run() == kShared), as
  // indices per original dimension.
  void Witness(int64_t* a, int64_t* b, int rank) const {
    for (int d = 0; d < rank; ++d) a[d] = b[d] = 0;
    for (int k = 0; k < n_; ++k) {
      const int64_t delta = delta_[k] * sign_[k];
      a[dim_[k]] = delta < 0 ? -delta : 0;
      b[dim_[k]] = delta < 0 ? 0 : delta;
    }
  }

 private:
  static int64_t Abs(int64_t v) { return v < 0 ? -v : v; }  // v != INT64_MIN here

  // Is there delta[0..k] with sum delta[j] * stride[j] == target (nonzero
  // overall)? The first nonzero delta from the top is taken positive, which
  // skips the mirror image of every solution.
  bool Solve(int k, i128 target, bool nonzero) {
    if (--budget_ < 0) return false;
    if (k < 0) return target == 0 && nonzero;
    if (target % gcd_[k] != 0) return false;
    i128 lo = CeilDiv(target - reach_[k], stride_[k]);
    i128 hi = FloorDiv(target + reach_[k], stride_[k]);
    lo = std::max<i128>(lo, nonzero ? -(size_[k] - 1) : 0);
    hi = std::min<i128>(hi, size_[k] - 1);
    for (i128 delta = lo; delta <= hi; ++delta) {
      delta_[k] = static_cast<int64_t>(delta);
      if (Solve(k - 1, target - delta * stride_[k], nonzero || delta != 0)) return true;
      if (budget_ < 0) return false;
    }
    delta_[k] = 0;
    return false;
  }

  // Only the first n_ entries of each array are ever read.
  int n_;
  long budget_ = 1 << 20;  // search nodes before giving up
  int dim_[kMaxRank];
  int64_t size_[kMaxRank];
  int64_t stride_[kMaxRank];
  int sign_[kMaxRank];
  i128 reach_[kMaxRank];
  int64_t gcd_[kMaxRank];
  int64_t delta_[kMaxRank];
};

// "(1,0,2)" for an index tuple, into buf.
void FormatIndex(const int64_t* idx, int rank, char* buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (int d = 0; d < rank && used + 1 < cap; ++d) {
    used += std::snprintf(buf + used, cap - used, "%s%lld", d == 0 ? "(" : ",",
                          static_cast<long long>(idx[d]));
  }
  if (used + 1 < cap) std::snprintf(buf + used, cap - used, "%s", rank == 0 ? "()" : ")");
}

// Drops dimensions of size 1 and merges each dimension into the next inner one
// where both its memory and its stream stride chain (see Layout).
void Canonicalize(int rank, const int64_t* sizes, const int64_t* strides,
                  const uint64_t* stream_strides, Layout* out) {
  int n = 0;
  int64_t live_sizes[kMaxRank], live_strides[kMaxRank];
  uint64_t live_stream[kMaxRank];
  for (int d = 0; d < rank; ++d) {
    if (sizes[d] == 1) continue;  // contributes no offset
    live_sizes[n] = sizes[d];
    live_strides[n] = strides[d];
    live_stream[n] = stream_strides[d];
    ++n;
  }
  if (n == 0) {  // a single element
    out->rank = 1;
    out->sizes[0] = 1;
    out->strides[0] = 1;
    out->stream_strides[0] = 1;
    out->stream_contiguous = true;
    return;
  }
  // Merge from the inside out: dimension d joins d+1 when stepping d equals
  // walking all of d+1, in memory and in the stream.
  int m = n - 1;  // index of the current innermost merged dimension, built downwards
  int64_t merged_sizes[kMaxRank], merged_strides[kMaxRank];
  uint64_t merged_stream[kMaxRank];
  merged_sizes[m] = live_sizes[n - 1];
  merged_strides[m] = live_strides[n - 1];
  merged_stream[m] = live_stream[n - 1];
  for (int d = n - 2; d >= 0; --d) {
    const i128 walk = static_cast<i128>(merged_sizes[m]) * merged_strides[m];
    const i128 stream_walk = static_cast<i128>(merged_sizes[m]) * merged_stream[m];
    if (walk == live_strides[d] && stream_walk == live_stream[d]) {
      merged_sizes[m] *= live_sizes[d];  // fits: bounded by the element count
    } else {
      --m;
      merged_sizes[m] = live_sizes[d];
      merged_strides[m] = live_strides[d];
      merged_stream[m] = live_stream[d];
    }
  }
  out->rank = n - m;
  i128 row_major = 1;
  out->stream_contiguous = true;
  for (int d = out->rank - 1; d >= 0; --d) {
    out->sizes[d] = merged_sizes[m + d];
    out->strides[d] = merged_strides[m + d];
    out->stream_strides[d] = merged_stream[m + d];
    out->stream_contiguous &= static_cast<i128>(out->stream_strides[d]) == row_major;
    row_major *= out->sizes[d];
  }
}

}  // namespace

Status AnalyzeLayout(int64_t rank, const int64_t* sizes, const int64_t* strides,
                     int element_size, const FieldNames& names, Layout* layout,
                     const uint64_t* given_stream_strides) noexcept {
  if (rank < 0 || rank > kMaxRank) {
    return Status::Error(StatusCode::kUnsupported, "%s = %lld is outside 0 to %d", names.rank,
                         static_cast<long long>(rank), kMaxRank);
  }
  if (rank > 0 && sizes == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "%s is null but %s = %lld", names.sizes,
                         names.rank, static_cast<long long>(rank));
  }
  Layout& out = *layout;  // callers discard it on error
  out.count = 0;
  out.low = out.high = 0;
  out.min_bytes = 0;
  out.rank = 1;
  // Element count; an empty tensor is valid and has no offsets to check.
  i128 count = 1;
  bool empty = false;
  for (int d = 0; d < rank; ++d) {
    if (sizes[d] < 0) {
      return Status::Error(StatusCode::kInvalidArgument, "%s[%d] = %lld is negative",
                           names.sizes, d, static_cast<long long>(sizes[d]));
    }
    if (sizes[d] == 0) empty = true;
  }
  for (int d = 0; d < rank && !empty; ++d) {
    count *= sizes[d];
    if (count > kInt64Max) {
      return Status::Error(StatusCode::kOverflow,
                           "%s[%d] = %lld makes the element count overflow 63 bits",
                           names.sizes, d, static_cast<long long>(sizes[d]));
    }
  }
  out.count = empty ? 0 : static_cast<uint64_t>(count);

  if (strides == nullptr && !empty && given_stream_strides == nullptr) {
    // Packed row-major: disjoint by construction and one run in memory, so
    // the overlap proof and the merging below have nothing to do. This is
    // most of the cost of a small fill, so it gets its own path.
    out.low = 0;
    out.high = static_cast<int64_t>(count) - 1;
    const i128 raw_bytes = count * element_size;
    if (raw_bytes > static_cast<i128>(UINT64_MAX - 3)) {
      return Status::Error(StatusCode::kOverflow,
                           "%s and %s span %lld..%lld elements: more bytes than 64 bits hold",
                           names.sizes, names.strides, 0LL, static_cast<long long>(out.high));
    }
    out.min_bytes = (static_cast<uint64_t>(raw_bytes) + 3) & ~uint64_t{3};
    out.sizes[0] = static_cast<int64_t>(count);
    out.strides[0] = 1;
    out.stream_strides[0] = 1;
    out.stream_contiguous = true;
    return Status();
  }
  int64_t packed[kMaxRank];
  if (strides == nullptr) {
    int64_t step = 1;
    for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
      packed[d] = step;
      step *= empty ? 1 : sizes[d];  // fits: bounded by the element count
    }
    strides = packed;
  }
  if (empty) {  // nothing to place: rank 1, size 0
    out.sizes[0] = 0;
    out.strides[0] = 1;
    out.stream_strides[0] = 1;
    out.stream_contiguous = true;
    return Status();
  }

  // Span of offsets, each term checked before it can overflow 64 bits.
  i128 low = 0, high = 0;
  int64_t live_sizes[kMaxRank], live_strides[kMaxRank];
  int live = 0;
  for (int d = 0; d < rank; ++d) {
    if (sizes[d] == 1) continue;
    if (strides[d] == 0) {
      return Status::Error(StatusCode::kOverlap,
                           "%s[%d] = 0 on a dimension of size %lld: its elements would share "
                           "an address",
                           names.strides, d, static_cast<long long>(sizes[d]));
    }
    const i128 extent = static_cast<i128>(strides[d]) * (sizes[d] - 1);
    (extent < 0 ? low : high) += extent;
    if (strides[d] == INT64_MIN || low < kInt64Min || high > kInt64Max) {
      return Status::Error(StatusCode::kOverflow,
                           "%s[%d] = %lld with %s[%d] = %lld puts element offsets outside the "
                           "signed 64-bit range",
                           names.strides, d, static_cast<long long>(strides[d]), names.sizes,
                           d, static_cast<long long>(sizes[d]));
    }
    live_sizes[live] = sizes[d];
    live_strides[live] = strides[d];
    ++live;
  }
  // Rounded up to 4 with a mask: 128-bit division would be a library call.
  const i128 raw_bytes = (high - low + 1) * element_size;
  if (raw_bytes > static_cast<i128>(UINT64_MAX - 3)) {
    return Status::Error(StatusCode::kOverflow,
                         "%s and %s span %lld..%lld elements: more bytes than 64 bits hold",
                         names.sizes, names.strides, static_cast<long long>(low),
                         static_cast<long long>(high));
  }

  OverlapSearch search(live, live_sizes, live_strides);
  const OverlapSearch::Result overlap = search.Run();
  if (overlap != OverlapSearch::kDisjoint) {
    char stride_list[8 * 21 + 2] = "";  // eight int64s, commas, braces
    size_t used = 0;
    for (int d = 0; d < rank && used + 1 < sizeof(stride_list); ++d) {
      used += std::snprintf(stride_list + used, sizeof(stride_list) - used, "%s%lld",
                            d == 0 ? "{" : ",", static_cast<long long>(strides[d]));
    }
    if (used + 1 < sizeof(stride_list)) {
      std::snprintf(stride_list + used, sizeof(stride_list) - used, "}");
    }
    if (overlap == OverlapSearch::kUndecided) {  // no overlap found, none ruled out
      return Status::Error(StatusCode::kUnsupported,
                           "%s = %s: cannot prove that no two elements share an address "
                           "(the layout is too irregular to check exhaustively)",
                           names.strides, stride_list);
    }
    // Map the witness (over dimensions of size > 1) back to full indices.
    int64_t a_live[kMaxRank], b_live[kMaxRank], a[kMaxRank] = {}, b[kMaxRank] = {};
    search.Witness(a_live, b_live, live);
    for (int d = 0, k = 0; d < rank; ++d) {
      if (sizes[d] == 1) continue;
      a[d] = a_live[k];
      b[d] = b_live[k];
      ++k;
    }
    char ia[64], ib[64];
    FormatIndex(a, static_cast<int>(rank), ia, sizeof(ia));
    FormatIndex(b, static_cast<int>(rank), ib, sizeof(ib));
    return Status::Error(StatusCode::kOverlap,
                         "%s = %s: elements %s and %s would share an address", names.strides,
                         stride_list, ia, ib);
  }

  out.low = static_cast<int64_t>(low);
  out.high = static_cast<int64_t>(high);
  out.min_bytes = (static_cast<uint64_t>(raw_bytes) + 3) & ~uint64_t{3};
  // A whole tensor: element idx is stream element sum idx[d] * (row-major
  // logical stride of d).
  uint64_t stream_strides[kMaxRank];
  uint64_t step = 1;
  for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
    stream_strides[d] = given_stream_strides != nullptr ? given_stream_strides[d] : step;
    step *= static_cast<uint64_t>(sizes[d]);  // fits: bounded by the element count
  }
  Canonicalize(static_cast<int>(rank), sizes, strides, stream_strides, &out);
  return Status();
}

}  // namespace detail
}  // namespace randtensor
