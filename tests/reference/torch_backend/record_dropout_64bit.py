"""Records PyTorch CUDA's dropout of tensors of more than 2^31 - 1 elements,
which it runs with 64-bit indexing (Dropout.cu: launcher<uint64_t>), so that
CI can check order="torch_cuda" on them.

    python3 tests/reference/torch_backend/record_dropout_64bit.py --out DIR

Runs on a CUDA machine with stock torch 2.x and about 12 GiB of GPU memory
(no randtensor needed); writes DIR/dropout_64bit.json: per case the SHA-256
of the mask's bytes, the output at sample_indices, the generator offset
after the call, and the GPU and torch version. `--dry-run` runs the same
calls on the CPU (to test this script; in float32 where the CPU's stock
dropout has no float16).
"""
import torch
import torch.nn.functional as F

import record_split_launches as split  # the recording's environment, SHA-256, offset

SEED = 20261127
P = 0.25

# (name, elements, input): float16 ones past 2^31 - 1 elements. A count that
# 8 divides takes the vectorized kernel (8 halves per load); an odd count
# takes the one-element kernel, here over an expanded scalar (stride 0),
# which keeps the input to 2 bytes.
CASES = [
    ("vectorized", (1 << 31) + 8, "contiguous"),
    ("one_element", (1 << 31) + 1, "expanded"),
]


def source(n, kind, device, dtype=torch.float16):
    """The case's input: ones, contiguous or a scalar expanded to n."""
    if kind == "contiguous":
        return torch.ones(n, dtype=dtype, device=device)
    return torch.ones(1, dtype=dtype, device=device).expand(n)


def sample_indices(n):
    """Both ends and 256 indices between."""
    return list(range(8)) + list(range(n - 8, n)) + [(i * 2654435761) % n for i in range(256)]


def run(name, n, kind, device, dtype=torch.float16):
    """F.dropout(x, P) in training, as a model's step calls it: the output's
    samples and the mask (output != 0: the input is all ones)."""
    torch.manual_seed(SEED)
    out = F.dropout(source(n, kind, device, dtype), P, training=True)
    idx = torch.tensor(sample_indices(n), device=device)
    record = {"case": name, "n": n, "input": kind, "p": P,
              "samples": out[idx].double().cpu().tolist(), "offset_after": split.offset(device)}
    record["mask_sha256"] = split.sha256(out != 0)
    return record


def main():
    args = split.parse_args()
    device = "cpu" if args.dry_run else "cuda"
    dtype = torch.float32 if args.dry_run else torch.float16
    records = [run(name, n, kind, device, dtype) for name, n, kind in CASES]
    split.write_recording(args.out, "dropout_64bit.json", SEED, records, args.dry_run)


if __name__ == "__main__":
    main()
