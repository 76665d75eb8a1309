"""Records what PyTorch CUDA returns for the distributions randtensor's torch
backend adds (exponential_, cauchy_, log_normal_, geometric_, bernoulli_ with
a tensor p) and for the three random_ overloads, so that CI can check the
backend's order="torch_cuda" values against a real GPU.

    python3 tests/reference/torch_backend/record_distributions.py --out DIR

Runs on a CUDA machine with stock torch 2.x (no randtensor needed); writes
DIR/distributions.npz (the values' bits, per case) and DIR/distributions.json
(the cases, the generator offset after each, the GPU and torch version).
`--dry-run` runs the same calls on the CPU (to test this script without a GPU).
"""
import argparse
import json
import os

import numpy as np
import torch

SEED = 20261127
N = 4099  # not a multiple of 4: the last Philox block is partly used
UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
SIGNED = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def cases():
    """(name, dtype name, function of (n, device))."""
    floats = ("float32", "float64", "float16", "bfloat16")
    out = []
    for dt in floats:
        out += [
            ("exponential_", dt, lambda n, d, t: torch.empty(n, dtype=t, device=d).exponential_(1.5)),
            ("cauchy_", dt, lambda n, d, t: torch.empty(n, dtype=t, device=d).cauchy_(0.5, 2.0)),
            ("log_normal_", dt, lambda n, d, t: torch.empty(n, dtype=t, device=d).log_normal_(0.25, 0.5)),
            ("geometric_", dt, lambda n, d, t: torch.empty(n, dtype=t, device=d).geometric_(0.2)),
        ]
    for dt in ("int64", "int32", "uint8"):
        out.append(("geometric_", dt,
                     lambda n, d, t: torch.empty(n, dtype=t, device=d).geometric_(0.2)))
    for dt in ("float32", "float64", "bool", "uint8"):
        out.append(("bernoulli_tensor", dt, lambda n, d, t: torch.empty(n, dtype=t, device=d)
                    .bernoulli_(torch.linspace(0, 1, n, device=d))))
    for dt in ("int64", "int32", "int16", "int8", "uint8", "bool", "float32", "float64",
               "float16", "bfloat16"):
        out.append(("random_", dt, lambda n, d, t: torch.empty(n, dtype=t, device=d).random_()))
    for dt in ("int64", "float64", "float32", "bfloat16"):
        out.append(("random_full64", dt,
                    lambda n, d, t: torch.empty(n, dtype=t, device=d).random_(-(2 ** 63), None)))
    for dt in ("int64", "int32", "float32"):
        out.append(("random_to", dt, lambda n, d, t: torch.empty(n, dtype=t, device=d).random_(77)))
    return out


def bits(t):
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bool:
        t = t.to(torch.uint8)
    if t.dtype != SIGNED[t.element_size()]:
        t = t.view(SIGNED[t.element_size()])
    return t.numpy().view(UNSIGNED[t.element_size()])


def offset_of(device):
    if device == "cuda":
        state = torch.cuda.get_rng_state().numpy().tobytes()
        return int.from_bytes(state[8:16], "little")
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--dry-run", action="store_true", help="run on the CPU")
    args = parser.parse_args()
    device = "cpu" if args.dry_run else "cuda"
    os.makedirs(args.out, exist_ok=True)
    arrays, records = {}, []
    for k, (name, dt, fn) in enumerate(cases()):
        torch.manual_seed(SEED + k)
        value = fn(N, device, getattr(torch, dt))
        if device == "cuda":
            torch.cuda.synchronize()
        arrays[f"c{k}"] = bits(value)
        records.append({"id": k, "op": name, "dtype": dt, "n": N, "seed": SEED + k,
                        "offset_after": offset_of(device)})
    env = {"torch": torch.__version__, "device": device}
    if device == "cuda":
        props = torch.cuda.get_device_properties(0)
        env.update(name=props.name, sm_count=props.multi_processor_count,
                   threads_per_sm=props.max_threads_per_multi_processor)
    np.savez_compressed(os.path.join(args.out, "distributions.npz"), **arrays)
    with open(os.path.join(args.out, "distributions.json"), "w") as f:
        json.dump({"env": env, "command": "python3 tests/reference/torch_backend/"
                   "record_distributions.py --out DIR", "cases": records}, f, indent=1)
    print(f"{len(records)} cases on {env.get('name', device)} (torch {torch.__version__})")


if __name__ == "__main__":
    main()
