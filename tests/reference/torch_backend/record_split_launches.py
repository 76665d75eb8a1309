"""Records what PyTorch CUDA returns for tensors past 2^31 - 1 bytes, which
it launches as several 32-bit-indexed parts (TensorIterator's
with_32bit_indexing), so that CI can check order="torch_cuda" on them.

    python3 tests/reference/torch_backend/record_split_launches.py --out DIR

Runs on a CUDA machine with stock torch 2.x and about 8 GiB of GPU memory (no
randtensor needed); writes DIR/split_launches.json: per case the SHA-256 of
the values' bytes, the values at sample_indices (around the parts' edges and
spread over the tensor: normals are compared within a bound, not by bytes),
the generator offset after the call, and the GPU and torch version. `--dry-run` runs the same calls on the CPU (to test this script).
"""
import argparse
import hashlib
import json
import os
import struct

import torch

SEED = 20261127

# (name, dtype, elements): each is 2^31 bytes or a little more, so PyTorch
# launches it in two parts, the first floor(n / 2) elements first.
CASES = [
    ("uniform_", "float32", (1 << 29) + (1 << 20) + 3),
    ("normal_", "float64", (1 << 28) + 5),
    ("uniform_", "float16", (1 << 30) + 7),
]
DT = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16}


def fill(buffer, name, dtype, n):
    """The case's tensor as a view of one byte buffer (allocated and touched
    once), drawn as torch.rand / torch.randn draw (uniform_(0, 1), normal_(0, 1))."""
    x = buffer[: n * torch.empty(0, dtype=DT[dtype]).element_size()].view(DT[dtype])
    return x.uniform_(0, 1) if name == "uniform_" else x.normal_(0, 1)


def sha256(x):
    """SHA-256 of a tensor's bytes (copied to the CPU, not again in Python)."""
    return hashlib.sha256(memoryview(x.cpu().view(torch.uint8).numpy())).hexdigest()


def sample_indices(n):
    """Both ends of the tensor and of its halves, and 256 indices between."""
    h = n // 2
    edges = list(range(8)) + list(range(h - 8, h + 8)) + list(range(n - 8, n))
    return edges + [(i * 2654435761) % n for i in range(256)]


def offset(device):
    if device == "cpu":
        return None
    seed, off = struct.unpack("<QQ", torch.cuda.get_rng_state().numpy().tobytes()[:16])
    return off


def main():
    args = parse_args()
    device = "cpu" if args.dry_run else "cuda"
    largest = max(n * torch.empty(0, dtype=DT[d]).element_size() for _, d, n in CASES)
    buffer = torch.empty(largest, dtype=torch.uint8, device=device)
    records = []
    for name, dtype, n in CASES:
        torch.manual_seed(SEED)
        x = fill(buffer, name, dtype, n)
        samples = x[torch.tensor(sample_indices(n), device=device)].double().cpu().tolist()
        records.append({"op": name, "dtype": dtype, "n": n, "sha256": sha256(x),
                        "samples": [v.hex() for v in samples], "offset_after": offset(device)})
    write_recording(args.out, "split_launches.json", SEED, records, args.dry_run)


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--dry-run", action="store_true")
    return parser.parse_args()


def write_recording(out, name, seed, records, dry_run):
    """OUT/NAME: the cases and the environment (torch, seed, and the GPU's
    name and geometry, which the replay needs)."""
    env = {"torch": torch.__version__, "seed": seed}
    if not dry_run:
        props = torch.cuda.get_device_properties(0)
        env.update(gpu=props.name, sm_count=props.multi_processor_count,
                   threads_per_sm=props.max_threads_per_multi_processor)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, name), "w") as f:
        json.dump({"env": env, "cases": records}, f, indent=1)


if __name__ == "__main__":
    main()
