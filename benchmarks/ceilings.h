// Ceilings measured in the same run as randtensor, so results read as ratios
// on shared, noisy machines:
//   - FillStreaming: the memory ceiling, non-temporal stores of non-zero data
//     (zeros are special-cased by some memory systems, so never zeros);
//   - FillRegular: the same with ordinary stores (each line is read first);
//   - ReferencePhilox: the compute floor, a hand-written 16-lane AVX-512
//     Philox4x32-10 with 8 interleaved batches (structure of arrays, permuted
//     lanes, even/odd multiplies merged with masked shuffles, hoisted keys),
//     with regular stores and with streaming stores (ReferencePhiloxStreaming);
//   - Random123Loop: the scalar baseline most users would write.
// Each fills [begin, end) of a uint32 buffer; the caller splits work across
// threads.
#ifndef RANDTENSOR_BENCHMARKS_CEILINGS_H_
#define RANDTENSOR_BENCHMARKS_CEILINGS_H_

#include <cstddef>
#include <cstdint>

namespace randtensor_bench {

bool HasAvx512();

void FillStreaming(uint32_t* dst, size_t n, uint32_t value);
void FillRegular(uint32_t* dst, size_t n, uint32_t value);

// Philox blocks [block, block + n / 4) with key (k0, k1), counter words 1-3
// zero; n a multiple of 512 (8 batches of 16 blocks). Requires HasAvx512().
void ReferencePhilox(uint32_t* dst, size_t n, uint64_t block, uint32_t k0, uint32_t k1);

// ReferencePhilox with streaming stores: the compute floor for outputs larger
// than the caches. `dst` must be 64-byte aligned.
void ReferencePhiloxStreaming(uint32_t* dst, size_t n, uint64_t block, uint32_t k0,
                              uint32_t k1);

// The AVX2 and SSE floors: hand-written kernels of the design randtensor uses
// on those targets (one block per 64-bit lane, 6 batches), regular stores.
void ReferencePhiloxAvx2(uint32_t* dst, size_t n, uint64_t block, uint32_t k0, uint32_t k1);
void ReferencePhiloxSse4(uint32_t* dst, size_t n, uint64_t block, uint32_t k0, uint32_t k1);

// The same stream through Random123's philox4x32 one block at a time.
void Random123Loop(uint32_t* dst, size_t n, uint64_t block, uint32_t k0, uint32_t k1);

}  // namespace randtensor_bench

#endif  // RANDTENSOR_BENCHMARKS_CEILINGS_H_
