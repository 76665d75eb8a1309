// Where a torch CPU generator stands in randtensor's stream, in torch.cuda's
// terms: (seed, offset), the key being the generator's seed and offset / 4
// the Philox counter, so that torch.manual_seed(s) starts the CPU where a CUDA
// generator seeded with s starts.
//
// The offset lives inside the generator's own state, in the slot where
// CPUGeneratorImpl caches the second double of a Box-Muller pair, as a NaN
// whose payload is offset / 4 (a cached normal is never NaN). So everything
// torch already does with a generator's state does it with the offset too:
// manual_seed() and seed() reset it to 0, get_state()/set_state() (hence
// torch.get_rng_state, set_rng_state, fork_rng) save and restore it, clone()
// copies it, and each torch.Generator has its own. The only torch CPU kernels
// that read that slot (_standard_gamma, _sample_dirichlet: ops.cc) are
// wrapped so that they neither see the offset nor lose it, and uninstall()
// empties the slot of every generator that holds one (ForgetOffsets). A
// state saved while installed and restored after uninstall() brings the
// offset back into a slot that PyTorch's normal_ of fewer than 16 elements
// reads: restore such states while installed (docs/torch.md).
#ifndef RANDTENSOR_TORCH_STREAM_POSITION_H_
#define RANDTENSOR_TORCH_STREAM_POSITION_H_

#include <ATen/CPUGeneratorImpl.h>

#include <cstdint>

namespace randtensor_torch {

// Offsets count stream words in multiples of 4, as torch.cuda's do; the slot
// holds offset / 4 below 2^50.
inline constexpr uint64_t kOffsetLimit = uint64_t{1} << 52;

// The generator's offset: 0 when the slot holds no offset (a fresh or
// reseeded generator, or a normal sample torch itself cached). The caller
// holds gen->mutex_.
uint64_t ReadOffset(at::CPUGeneratorImpl* gen);

// Stores `offset` (a multiple of 4 below kOffsetLimit; TORCH_CHECKed).
void WriteOffset(at::CPUGeneratorImpl* gen, uint64_t offset);

// Whether the slot holds an offset (the gamma wrappers' test).
bool HoldsOffset(at::CPUGeneratorImpl* gen);

// Empties the slot of every live generator that holds an offset (uninstall):
// PyTorch's own normal_ reads that slot as a cached normal sample.
void ForgetOffsets();

}  // namespace randtensor_torch

#endif  // RANDTENSOR_TORCH_STREAM_POSITION_H_
