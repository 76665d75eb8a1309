/* Filling a DLPack tensor (DLTensor, the exchange format of PyTorch, JAX,
 * CuPy, NumPy's __dlpack__): C and C++ entry points.
 *
 * Accepted: CPU memory (kDLCPU, or kDLCUDAHost / kDLCUDAManaged, which the
 * CPU can address), dtype kDLUInt with 32 bits and 1 lane, ndim 0 to 8. The
 * tensor's strides (in elements; NULL means compact row-major) and byte_offset
 * are honoured; element (0, ..., 0) is at data + byte_offset. Other devices
 * and data types are rejected with a message naming the field and value.
 * DLPack carries no buffer length: the buffer is taken to be exactly the span
 * of the tensor's elements, as the DLPack contract implies. An empty tensor
 * (a zero in shape) writes nothing, so its data and byte_offset are not
 * checked (producers leave them arbitrary); the state still advances.
 *
 * Needs <dlpack/dlpack.h> (Debian: libdlpack-dev).
 */
#ifndef RANDTENSOR_DLPACK_H_
#define RANDTENSOR_DLPACK_H_

#include <dlpack/dlpack.h>

#include "randtensor/randtensor.h"

#ifdef __cplusplus
extern "C" {
#endif

RANDTENSOR_API randtensor_status randtensor_fill_dltensor(const DLTensor* tensor,
                                                          const uint32_t in_state[6],
                                                          uint32_t out_state[6],
                                                          const randtensor_fill_options* options);

#ifdef __cplusplus
}  /* extern "C" */

#include "randtensor/fill.h"

namespace randtensor {

RANDTENSOR_API Status FillDLTensor(const DLTensor& tensor, const PhiloxState& in_state,
                                   PhiloxState* out_state,
                                   const FillOptions& options = FillOptions()) noexcept;

}  // namespace randtensor
#endif

#endif /* RANDTENSOR_DLPACK_H_ */
