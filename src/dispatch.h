// The one place that decides which compiled kernel table fills use.
#ifndef RANDTENSOR_SRC_DISPATCH_H_
#define RANDTENSOR_SRC_DISPATCH_H_

#include "randtensor/status.h"
#include "src/kernels.h"

namespace randtensor {
namespace detail {

// The kernels fills use now: the widest the CPU supports, unless
// RANDTENSOR_TARGET or SetTarget() forced another. Fails when the forced name
// was unknown or unsupported (never a silent fallback).
Status ActiveKernels(const KernelTable** table) noexcept;

}  // namespace detail
}  // namespace randtensor

#endif  // RANDTENSOR_SRC_DISPATCH_H_
