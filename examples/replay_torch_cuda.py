# Python: PyTorch's CUDA random tensors, bit for bit, on the CPU.
import numpy as np

from randtensor.replay import torch_cuda

# Recorded on an H100 (tests/reference/torch_cuda/recorded): torch.manual_seed(20240601),
# calls that left the Philox offset at 12, then torch.rand(5, device="cuda"):
x, philox_offset = torch_cuda.rand(5, seed=20240601, philox_offset=12)
assert x.view(np.uint32).tolist() == [1042627649, 1065075869, 1057816812, 1059979085, 1053383278]
assert philox_offset == 16

# Above 40960 elements the order depends on the GPU: name it, or give its geometry.
g = torch_cuda.Generator(seed=20240601, gpu="h100-sxm")
noise = g.randn((512, 512))                               # torch.randn(..., device="cuda")
out, mask = g.dropout(np.ones(4096, np.float32), p=0.1)   # F.dropout(x, 0.1) on the GPU
print(noise[0, :3], mask.mean(), g.philox_offset)
