"""Captures PyTorch's CUDA transforms where each element is ONE thread's first value.

For n <= 256 * grid (grid = min(ceil(n/256), SMs * maxThreadsPerSM/256)), PyTorch's
grid-stride distribution kernel (aten/src/ATen/native/cuda/DistributionTemplates.h)
gives element li to thread li, call 0, lane 0, and that thread ran
curand_init(seed, li, offset). With a fresh generator the offset is 0, so element li
is element 0 of the stream of (seed, subsequence li, offset 0): that is what
compare.py checks against the reference (transforms only; lane 0 only).

    python3 torch_capture.py OUT.npz
"""
import sys

import numpy as np
import torch

SEED = 20240601
N = 4096


def gen():
    g = torch.Generator(device="cuda")
    g.manual_seed(SEED)
    return g


def bits_of(t):
    t = t.cpu()
    if t.dtype in (torch.float16, torch.bfloat16):
        return t.view(torch.int16).numpy().astype(np.uint16)
    if t.dtype == torch.float32:
        return t.view(torch.int32).numpy().astype(np.uint32)
    if t.dtype == torch.float64:
        return t.view(torch.int64).numpy().astype(np.uint64)
    if t.dtype == torch.bool:
        return t.numpy().astype(np.uint8)
    return t.numpy()


def main(path):
    dev = "cuda"
    props = torch.cuda.get_device_properties(0)
    assert N <= 256 * props.multi_processor_count * (props.max_threads_per_multi_processor // 256)
    out = {}
    fl = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64}
    for name, dt in fl.items():
        out[f"uniform_0_1_{name}"] = bits_of(torch.empty(N, dtype=dt, device=dev).uniform_(0, 1, generator=gen()))
        out[f"uniform_m3.7_11.3_{name}"] = bits_of(
            torch.empty(N, dtype=dt, device=dev).uniform_(-3.7, 11.3, generator=gen()))
        out[f"uniform_0.1_0.2_{name}"] = bits_of(
            torch.empty(N, dtype=dt, device=dev).uniform_(0.1, 0.2, generator=gen()))
        out[f"normal_0_1_{name}"] = bits_of(torch.empty(N, dtype=dt, device=dev).normal_(0, 1, generator=gen()))
        out[f"normal_0.3_2.5_{name}"] = bits_of(
            torch.empty(N, dtype=dt, device=dev).normal_(0.3, 2.5, generator=gen()))
    for name, dt in {"u8": torch.uint8, "bool": torch.bool, "i32": torch.int32, "i64": torch.int64,
                     "f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
                     "f64": torch.float64}.items():
        out[f"bernoulli_0.3_{name}"] = bits_of(torch.empty(N, dtype=dt, device=dev).bernoulli_(0.3, generator=gen()))
    ints = [
        ("i64", torch.int64, 0, 2**31), ("i64", torch.int64, 0, 2**28), ("i64", torch.int64, 0, 2**28 - 1),
        ("i64", torch.int64, -5, 2**40), ("i64", torch.int64, -(2**62), 2**62),
        ("i32", torch.int32, 0, 2**28 - 1), ("i32", torch.int32, -100, 2**30), ("i32", torch.int32, 3, 1000),
        ("f32", torch.float32, 0, 2**24), ("f32", torch.float32, 0, 1000),
        ("f64", torch.float64, 0, 2**40), ("f64", torch.float64, -7, 1000),
        ("u8", torch.uint8, 0, 200), ("f16", torch.float16, 0, 2000), ("bf16", torch.bfloat16, 0, 200),
    ]
    for name, dt, lo, hi in ints:
        t = torch.empty(N, dtype=dt, device=dev).random_(lo, hi, generator=gen())
        out[f"integers_{lo}_{hi}_{name}"] = bits_of(t)
    out["meta"] = np.array([f"torch {torch.__version__} cuda {torch.version.cuda} "
                            f"device {props.name} SMs {props.multi_processor_count} seed {SEED} n {N}"])
    np.savez_compressed(path, **out)
    print("torch capture:", len(out) - 1, "arrays;", out["meta"][0])


if __name__ == "__main__":
    main(sys.argv[1])
