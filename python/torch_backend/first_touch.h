// Page faults of fresh memory: PyTorch allocates a tensor and the fill is the
// first to touch it, so its page faults are the fill's cost (one per 4 KiB
// page, often slower than generating the values). Transparent huge pages,
// where the kernel grants them on request, take one fault per 2 MiB. Whether
// that is faster depends on the host (a hypervisor may back huge pages
// slowly; docs/torch.md, "Speed of the backend"), so it is the user's choice:
// install(huge_pages=True). A fill on one thread instead asks the kernel to
// fault its pages in up front (MADV_POPULATE_WRITE, Linux 5.14+): one call
// instead of a trap per page; with more threads, each faults its own part
// in parallel as it writes.
#ifndef RANDTENSOR_TORCH_FIRST_TOUCH_H_
#define RANDTENSOR_TORCH_FIRST_TOUCH_H_

#include <cstddef>

namespace randtensor_torch {

void SetHugePages(bool ask);

// Before a fill of `bytes` at `data` (16 MiB or more) on `threads` threads:
// asks for huge pages over its 2 MiB-aligned part when SetHugePages(true),
// and on one thread has its whole pages faulted in. Advice only: memory in
// place is unchanged, values never depend on it, and a kernel without the
// advice ignores it.
void PrepareFirstTouch(void* data, size_t bytes, unsigned threads);

}  // namespace randtensor_torch

#endif  // RANDTENSOR_TORCH_FIRST_TOUCH_H_
