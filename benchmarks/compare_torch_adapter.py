#!/usr/bin/env python3
"""randtensor.torch's in-place fills next to PyTorch's own CPU ops, in one
run, on 1 thread and on all threads (issue 15).

    PYTHONPATH=build/python python3 benchmarks/compare_torch_adapter.py \\
        [--mib 64] [--repeat 7] [--threads 1,4] [--json out.json] [--capi LIB]

--capi build/librandtensor.so makes the same fills through the C API
(torch_capi.py) where randtensor's module cannot be loaded (another Python).

Rows: (thread count, dtype, distribution). Each times, into the same
preallocated CPU tensor of --mib MiB (float32: 16 Mi elements at 64 MiB,
bfloat16: 32 Mi):

  torch       t.uniform_(), t.normal_(), t.bernoulli_(0.5)
  randtensor  randtensor.torch.uniform_(t), normal_(t), bernoulli_(t, 0.5)
              (through DLPack, zero copy; the adapter's threads follow
              torch.get_num_threads(), so both get torch.set_num_threads(T))

Every repetition times one torch call and one randtensor call back to back
(which goes first alternates), so both see the same machine state; the ratio
torch seconds / randtensor seconds is taken per repetition. Printed: the
median and the range (min-max) over the repetitions, never the best alone.
Goals (issue 15): >= 5x torch on float32, >= 10x on bfloat16.

The values differ (torch's CPU generator is mt19937; randtensor gives
torch.cuda's transforms on Philox); this is about speed only.
"""
import argparse
import json
import os
import sys
import time

import torch

from side_by_side import cpu_name, fmt, summary

P = 0.5  # bernoulli's p


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def paired(theirs, ours, repeat):
    """`repeat` back-to-back timings of each, the first of a pair alternating."""
    theirs()  # warm-up: page faults, thread pools, lazy initialization
    ours()
    t_theirs, t_ours = [], []
    for r in range(repeat):
        first, second = (theirs, ours) if r % 2 == 0 else (ours, theirs)
        a, b = timed(first), timed(second)
        t_theirs.append(a if r % 2 == 0 else b)
        t_ours.append(b if r % 2 == 0 else a)
    return t_theirs, t_ours


def calls(t, rt):
    """(distribution, torch's call, randtensor's call) on tensor t; rt is
    randtensor.torch or a torch_capi.CapiTorch."""
    g = rt.Generator(seed=1)
    return [
        ("uniform", lambda: t.uniform_(), lambda: rt.uniform_(t, generator=g)),
        ("normal", lambda: t.normal_(), lambda: rt.normal_(t, generator=g)),
        (f"bernoulli({P})", lambda: t.bernoulli_(P), lambda: rt.bernoulli_(t, P, generator=g)),
    ]


def measure(mib, repeat, thread_counts, rt):
    rows = []
    for threads in thread_counts:
        torch.set_num_threads(threads)
        for dtype in (torch.float32, torch.bfloat16):
            itemsize = torch.empty(0, dtype=dtype).element_size()  # torch 1.13: no dtype.itemsize
            t = torch.empty(mib * (1 << 20) // itemsize, dtype=dtype)
            for dist, theirs, ours in calls(t, rt):
                t_theirs, t_ours = paired(theirs, ours, repeat)
                rows.append({
                    "threads": threads, "torch_threads": torch.get_num_threads(),
                    "dtype": str(dtype).replace("torch.", ""), "distribution": dist,
                    "elements": t.numel(),
                    "torch_gb_s": summary([mib * 1.048576e-3 / s for s in t_theirs]),
                    "randtensor_gb_s": summary([mib * 1.048576e-3 / s for s in t_ours]),
                    "ratio": summary([a / b for a, b in zip(t_theirs, t_ours)]),
                    "torch_seconds": t_theirs, "randtensor_seconds": t_ours,
                })
    return rows


def report(rows, mib, repeat, default_threads, version, target):
    print(f"{cpu_name()}; {os.cpu_count()} logical CPUs; randtensor {version} "
          f"target {target}; torch {torch.__version__} (CPU, default "
          f"intra-op threads {default_threads})")
    print(f"{mib} MiB tensors, {repeat} paired repetitions per row: median [min-max]. "
          "thr: torch.set_num_threads (randtensor.torch follows it). GB/s = bytes written.")
    header = (f"{'thr':>3} {'dtype':<9} {'distribution':<15} {'torch GB/s':>22} "
              f"{'randtensor GB/s':>22} {'torch s / randtensor s':>24}")
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['threads']:>3} {r['dtype']:<9} {r['distribution']:<15} "
              f"{fmt(r['torch_gb_s'], 1, 2):>22} {fmt(r['randtensor_gb_s'], 1, 2):>22} "
              f"{fmt(r['ratio'], 1, 1):>24}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mib", type=int, default=64, help="tensor size in MiB (default 64)")
    ap.add_argument("--repeat", type=int, default=7, help="timed repetitions per row")
    ap.add_argument("--threads", default=None,
                    help="comma-separated thread counts (default: 1 and all logical CPUs)")
    ap.add_argument("--json", default=None, help="also write the results to this file")
    ap.add_argument("--capi", default=None, metavar="LIB",
                    help="fill through librandtensor's C API at LIB instead of the module")
    args = ap.parse_args()
    if args.capi:
        from torch_capi import CapiTorch
        rt = CapiTorch(args.capi)
        version, target = f"C API ({args.capi})", rt.target
    else:
        import randtensor
        import randtensor.torch
        rt = randtensor.torch
        version, target = randtensor.__version__, randtensor.active_target()
    thread_counts = (sorted({int(t) for t in args.threads.split(",")}) if args.threads
                     else sorted({1, os.cpu_count() or 1}))
    default_threads = torch.get_num_threads()
    rows = measure(args.mib, args.repeat, thread_counts, rt)
    torch.set_num_threads(default_threads)
    report(rows, args.mib, args.repeat, default_threads, version, target)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"mib": args.mib, "repeat": args.repeat, "cpu": cpu_name(),
                       "logical_cpus": os.cpu_count(), "torch": torch.__version__,
                       "randtensor": version, "randtensor_target": target,
                       "python": sys.version.split()[0], "rows": rows}, f, indent=1)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
