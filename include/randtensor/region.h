// Regions of a global tensor (SPEC.md section 10): fill only the box
// start[d] <= index[d] < start[d] + sizes[d] of a global tensor of
// `global_sizes`, with exactly the values the whole global fill gives those
// elements, into a local buffer of its own layout. Disjoint regions that
// cover the global tensor therefore make the same tensor bit for bit,
// however it is cut across threads, processes or machines.
//
// With FillOptions::region set, TensorDesc::sizes are the region's sizes
// (its rank is the global rank) and the strides the local buffer's. The cost
// is proportional to the region (any element is reached in O(1)), and the
// output state is the global fill's: C + ceil((offset + global N) * w / 4).
#ifndef RANDTENSOR_REGION_H_
#define RANDTENSOR_REGION_H_

#include <cstdint>

namespace randtensor {

struct Region {
  int32_t rank = 0;                     // must equal TensorDesc::rank
  const int64_t* global_sizes = nullptr;  // `rank` sizes of the global tensor
  const int64_t* start = nullptr;         // `rank` indices of the region's first element
};

}  // namespace randtensor

#endif  // RANDTENSOR_REGION_H_
