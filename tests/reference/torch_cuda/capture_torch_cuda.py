"""Records PyTorch's CUDA random tensors for check_order.py (runs on a GPU host; needs
only torch and NumPy, not the reference model).

    python3 tests/reference/torch_cuda/capture_torch_cuda.py OUTDIR     # ~1 minute or less

Writes OUTDIR/torch_cuda_order.json (environment, one record per call),
OUTDIR/torch_headers.tgz (the installed torch's distribution headers) and
OUTDIR/torch_cuda_order.npz (for call i: c{i}_idx element indices, c{i}_val their bit
patterns, c{i}_mask for dropout). Every element of tensors with at most FULL elements is
stored; bigger ones store a sample (the first and last 8, +-2 around every multiple of
the launch's G up to 24 of them, 96 pseudo-random) plus the SHA-256 of all their bytes.
Total a few hundred KiB.

Chains (each call records the generator's (seed, offset) before and after):
  A  default CUDA generator, set_rng_state(20240601, 0): every kind, dtype and size
     (1, 3, 4, 5, 1000; G-1, G, G+1, U*G-1, U*G, U*G+1, 2*U*G+5 with G = 256 * SMs *
     (maxThreadsPerSM // 256); 3,000,001 and 2^22), so its later calls run at large
     offsets;
  B  default generator at seed 0xDEADBEEFCAFEF00D, offset 4 * (2^32 - 3): counters
     that carry from word 0 into word 1, and dropout followed by rand (dropout's
     vectorized kernel reads past its reservation, ORDER.md section 6);
  C  an explicit torch.Generator(device="cuda") seeded with manual_seed(12345);
  D  torch.manual_seed(7) then torch.rand(3).
"""
import hashlib
import json
import os
import platform
import random
import struct
import sys
import time

import numpy as np

try:  # plan() and sample() are also used without torch (order_selftest.py's dry run)
    import torch
    import torch.nn.functional as F
except ImportError:
    torch = F = None

FULL = 1024
DEV = "cuda"
UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
if torch is not None:
    DT = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16, "bfloat16": torch.bfloat16,
          "int64": torch.int64, "int32": torch.int32, "int16": torch.int16, "int8": torch.int8,
          "uint8": torch.uint8, "bool": torch.bool}
    IVIEW = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


# ------------------------------------------------------------ generator state --
def state_of(gen):
    s = (torch.cuda.get_rng_state() if gen is None else gen.get_state()).numpy().tobytes()
    seed, off = struct.unpack("<Qq", s[:16])
    return [seed, off]


def set_state(gen, seed, off):
    t = torch.tensor(list(struct.pack("<Qq", seed, off)), dtype=torch.uint8)
    if gen is None:
        torch.cuda.set_rng_state(t)
    else:
        gen.set_state(t)


def bits(t):
    """Bit patterns of a tensor's elements as unsigned NumPy integers of its width."""
    t = t.detach().contiguous()
    if t.dtype == torch.bool:
        t = t.to(torch.uint8)
    a = t.cpu()
    size = a.element_size()
    if a.dtype != IVIEW[size]:
        a = a.view(IVIEW[size])
    return a.numpy().view(UNSIGNED[size])


def sample(n, g):
    if n <= FULL:
        return np.arange(n, dtype=np.int64)
    s = set(range(8)) | set(range(n - 8, n))
    b, k = g, 0
    while b < n and k < 24:
        s |= {i for i in range(b - 2, b + 3) if 0 <= i < n}
        b += g
        k += 1
    rng = random.Random(n)
    s |= {rng.randrange(n) for _ in range(96)}
    return np.array(sorted(s), dtype=np.int64)


def dropout_input(n, dtype):
    """x[e] = ((37 e mod 255) - 127) / 8: exact in every floating type (check_order.py
    rebuilds it)."""
    i = torch.arange(n, device=DEV, dtype=torch.int64)
    return ((i * 37) % 255 - 127).to(DT[dtype]) / 8


# ------------------------------------------------------------------ one call --
def run_call(c, gen):
    api, n, dt, p = c["api"], c["n"], DT[c["dtype"]], c["params"]
    kw = {} if gen is None else {"generator": gen}
    mask = None
    if api == "rand":
        out = torch.rand(n, dtype=dt, device=DEV, **kw)
    elif api == "uniform_":
        out = torch.empty(n, dtype=dt, device=DEV).uniform_(p["low"], p["high"], **kw)
    elif api == "randn":
        out = torch.randn(n, dtype=dt, device=DEV, **kw)
    elif api == "normal_":
        out = torch.empty(n, dtype=dt, device=DEV).normal_(p["mean"], p["std"], **kw)
    elif api == "bernoulli_":
        out = torch.empty(n, dtype=dt, device=DEV).bernoulli_(p["p"], **kw)
    elif api == "randint":
        out = torch.randint(p["low"], p["high"], (n,), dtype=dt, device=DEV, **kw)
    elif api == "random_from_to":
        out = torch.empty(n, dtype=dt, device=DEV).random_(p["low"], p["high"], **kw)
    elif api == "random_":
        out = torch.empty(n, dtype=dt, device=DEV).random_(**kw)
    elif api == "random_full64":
        out = torch.empty(n, dtype=dt, device=DEV).random_(-(2**63), None, **kw)
    elif api in ("native_dropout", "F.dropout", "F.dropout_inplace"):
        assert gen is None, "dropout uses the default CUDA generator"
        x = dropout_input(n, c["dtype"])
        if api == "native_dropout":
            out, mask = torch.ops.aten.native_dropout.default(x, p["p"], True)
        elif api == "F.dropout":
            out = F.dropout(x, p["p"], training=True)
        else:
            out = F.dropout(x, p["p"], training=True, inplace=True)
    else:
        raise ValueError(api)
    torch.cuda.synchronize()
    return out, mask


# ---------------------------------------------------------------- the plan --
def plan(gmax):
    G = gmax
    small = [1, 3, 4, 5, 1000]
    thr4 = [G - 1, G, G + 1, 4 * G - 1, 4 * G, 4 * G + 1, 8 * G + 5]
    thr2 = [G - 1, G, G + 1, 2 * G - 1, 2 * G, 2 * G + 1, 4 * G + 5]
    big = [3_000_001, 1 << 22]
    A = []

    def add(kind, dtype, api, sizes, **params):
        for n in sizes:
            A.append({"kind": kind, "dtype": dtype, "api": api, "n": n, "params": params})

    add("uniform", "float32", "rand", small + thr4 + big)
    for dt in ("float16", "bfloat16"):
        add("uniform", dt, "rand", [1, 5, 1000, G + 1, 4 * G + 1, 3_000_001])
    add("uniform", "float64", "rand", small + thr2 + [3_000_001])
    for dt in ("float32", "float16", "bfloat16", "float64"):
        add("uniform", dt, "uniform_", [1000, 4 * G + 1], low=-3.7, high=11.3)
    add("normal", "float32", "randn", small + thr4 + [3_000_001])
    add("normal", "float64", "randn", small + thr2)
    for dt in ("float16", "bfloat16"):
        add("normal", dt, "randn", [5, 1000, G + 1, 4 * G + 1])
    add("normal", "float32", "normal_", [1000, 4 * G + 3], mean=0.3, std=2.5)
    for dt in ("float32", "float64", "float16", "bfloat16", "uint8", "bool", "int32", "int64"):
        add("bernoulli", dt, "bernoulli_", [1000, G + 1, 4 * G + 1], p=0.3)
    add("random_from_to", "int64", "randint", small + thr4, low=0, high=1000)
    add("random_from_to", "int64", "randint", small + thr2, low=0, high=2**31)
    for dt, lo, hi, sizes in [("int32", -100, 2**30, [1000, 2 * G + 1]), ("int32", 0, 2**28 - 1, [1000, 4 * G + 1]),
                              ("int64", 0, 2**28, [1000, 2 * G + 1]), ("int64", -5, 2**40, [2 * G + 1]),
                              ("float32", 0, 2**24, [1000, 4 * G + 1]), ("float16", 0, 2000, [4 * G + 1]),
                              ("bfloat16", 0, 200, [4 * G + 1]), ("float64", -7, 1000, [4 * G + 1]),
                              ("float64", 0, 2**40, [2 * G + 1]), ("uint8", 0, 200, [1000]), ("bool", 0, 2, [1000]),
                              ("int64", -(2**62), 2**62, [1000])]:
        add("random_from_to", dt, "random_from_to", sizes, low=lo, high=hi)
    for dt in ("int64", "float64"):
        add("random", dt, "random_", [1000, 2 * G + 1])
    for dt in ("int32", "float32", "float16", "bfloat16", "uint8", "int8", "int16", "bool"):
        add("random", dt, "random_", [1000, 4 * G + 1])
    add("random_full64", "int64", "random_full64", [1000, 2 * G + 1])
    add("random_full64", "float32", "random_full64", [1000])
    add("dropout", "float32", "native_dropout", [1000, 1002, 1001, 4 * G + 4, 4 * G + 2, 4 * G + 1, 3_000_000], p=0.3)
    add("dropout", "float16", "native_dropout", [1000, 1004, 1002, 1001, 8 * G + 8, 8 * G + 4, 8 * G + 16], p=0.3)
    add("dropout", "bfloat16", "native_dropout", [1000, 8 * G + 8], p=0.3)
    add("dropout", "float64", "native_dropout", [1000, 1001, 4 * G + 2], p=0.3)
    add("dropout", "float32", "native_dropout", [1000], p=0.5)
    add("dropout", "float32", "F.dropout", [1000], p=0.3)
    add("dropout", "float16", "F.dropout", [1000], p=0.3)
    add("dropout_inplace", "float32", "F.dropout_inplace", [1000], p=0.3)

    B = []
    for n in (5, G + 1, 4 * G + 1, 8 * G + 1, 8 * G + 1):
        B.append({"kind": "uniform", "dtype": "float32", "api": "rand", "n": n, "params": {}})
    B.append({"kind": "normal", "dtype": "float64", "api": "randn", "n": 2 * G + 1, "params": {}})
    B.append({"kind": "random_from_to", "dtype": "int64", "api": "randint", "n": 2 * G + 1,
              "params": {"low": 0, "high": 2**31}})
    B.append({"kind": "dropout", "dtype": "float32", "api": "native_dropout", "n": 4 * G + 2, "params": {"p": 0.3}})
    B.append({"kind": "uniform", "dtype": "float32", "api": "rand", "n": G, "params": {}})
    B.append({"kind": "dropout", "dtype": "float16", "api": "native_dropout", "n": 1000, "params": {"p": 0.3}})
    B.append({"kind": "uniform", "dtype": "float16", "api": "rand", "n": 1000, "params": {}})
    B.append({"kind": "bernoulli", "dtype": "float64", "api": "bernoulli_", "n": 2 * G + 1, "params": {"p": 0.3}})

    C = [{"kind": "uniform", "dtype": "float32", "api": "rand", "n": 1000, "params": {}},
         {"kind": "normal", "dtype": "float32", "api": "randn", "n": 1000, "params": {}},
         {"kind": "random_from_to", "dtype": "int64", "api": "randint", "n": 1000, "params": {"low": 0, "high": 1000}},
         {"kind": "bernoulli", "dtype": "float32", "api": "bernoulli_", "n": 1000, "params": {"p": 0.3}}]
    D = [{"kind": "uniform", "dtype": "float32", "api": "rand", "n": 3, "params": {}}]
    return [("A", A, ("set", 20240601, 0)), ("B", B, ("set", 0xDEADBEEFCAFEF00D, 4 * (2**32 - 3))),
            ("C", C, ("generator", 12345)), ("D", D, ("manual_seed", 7))]


HEADERS = ["ATen/native/cuda/DistributionTemplates.h", "ATen/native/DistributionTemplates.h",
           "ATen/core/TransformationHelper.h", "ATen/core/DistributionsHelper.h",
           "ATen/cuda/CUDAGeneratorImpl.h", "ATen/cuda/PhiloxUtils.cuh", "ATen/cuda/detail/PhiloxCudaStateRaw.cuh",
           "ATen/native/cuda/MemoryAccess.cuh"]


def save_headers(outdir, env):
    """The installed torch's headers behind ORDER.md (Dropout.cu itself is not shipped;
    MemoryAccess.cuh tells whether can_vectorize_up_to returns 8 on CUDA)."""
    import re
    import tarfile
    inc = os.path.join(os.path.dirname(torch.__file__), "include")
    found = []
    with tarfile.open(os.path.join(outdir, "torch_headers.tgz"), "w:gz") as tf:
        for h in HEADERS:
            path = os.path.join(inc, h)
            if os.path.exists(path):
                tf.add(path, arcname=h)
                found.append(h)
    env["headers_saved"] = found
    ma = os.path.join(inc, "ATen/native/cuda/MemoryAccess.cuh")
    if os.path.exists(ma):
        text = open(ma).read()
        env["memoryaccess_cuda_vec8"] = bool(re.search(r"#else\s*\n\s*if \(address % vec8_alignment == 0\)", text))


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    props = torch.cuda.get_device_properties(0)
    sm = props.multi_processor_count
    tps = props.max_threads_per_multi_processor
    gmax = 256 * sm * (tps // 256)
    env = {"torch": torch.__version__, "torch_git": getattr(torch.version, "git_version", None),
           "cuda": torch.version.cuda, "device": props.name, "sm_count": sm, "threads_per_sm": tps,
           "G_max": gmax, "capability": list(torch.cuda.get_device_capability(0)),
           "python": platform.python_version(), "numpy": np.__version__,
           "command": "python3 tests/reference/torch_cuda/capture_torch_cuda.py " + outdir,
           "date_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "full_limit": FULL}
    try:
        save_headers(outdir, env)
    except Exception as exc:  # headers are provenance only
        env["headers_error"] = repr(exc)
    print(json.dumps(env))
    arrays, calls = {}, []
    t0 = time.time()
    for chain, steps, init in plan(gmax):
        gen = None
        if init[0] == "set":
            set_state(None, init[1], init[2])
        elif init[0] == "generator":
            gen = torch.Generator(device=DEV)
            gen.manual_seed(init[1])
        else:
            torch.manual_seed(init[1])
        for c in steps:
            before = state_of(gen)
            out, mask = run_call(c, gen)
            after = state_of(gen)
            v = bits(out)
            gsz = 256 * min((c["n"] + 255) // 256, sm * (tps // 256))
            idx = sample(c["n"], gsz)
            i = len(calls)
            arrays[f"c{i}_idx"] = idx
            arrays[f"c{i}_val"] = v[idx]
            rec = dict(c, id=i, chain=chain, generator="explicit" if gen is not None else "default",
                       state_before=before, state_after=after, stored=int(idx.size),
                       sha256=hashlib.sha256(v.tobytes()).hexdigest(), value_bytes=int(v.dtype.itemsize))
            if mask is not None:
                m = bits(mask)
                arrays[f"c{i}_mask"] = m[idx]
                rec["mask_sha256"] = hashlib.sha256(m.tobytes()).hexdigest()
                rec["mask_ones"] = int(m.sum())
            calls.append(rec)
            del out, mask
    env["seconds"] = round(time.time() - t0, 2)
    with open(os.path.join(outdir, "torch_cuda_order.json"), "w") as f:
        json.dump({"env": env, "calls": calls}, f, indent=0)
    np.savez_compressed(os.path.join(outdir, "torch_cuda_order.npz"), **arrays)
    size = sum(os.path.getsize(os.path.join(outdir, x)) for x in os.listdir(outdir))
    print(f"{len(calls)} calls, {size} bytes, {env['seconds']} s")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", "/tmp/torch_cuda_order"))
