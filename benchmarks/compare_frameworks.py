#!/usr/bin/env python3
"""randtensor's distributions next to NumPy's (and PyTorch CPU's, when
importable) in the same run: elements per second, median of several calls,
and the ratio randtensor / other at the same thread count.

    PYTHONPATH=build/python python3 benchmarks/compare_frameworks.py [--n N] [--repeat R]

NumPy's Generator is single-threaded, so it is compared with randtensor on
one thread (and shown against randtensor on all threads for reference).
OPENBLAS_* variables do not matter here (no BLAS involved).
"""
import argparse
import os
import statistics
import time

import numpy as np

import randtensor


def rate(fn, n, repeat):
    fn()  # warm-up: page faults, thread start-up
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return n / statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 24)  # 64 MiB of float32
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    n, r = args.n, args.repeat
    a = np.empty(n, np.float32)
    b = np.empty(n, np.uint8)
    rng = np.random.Generator(np.random.PCG64(1))
    all_threads = randtensor.default_threads()
    rows = []

    def ours(threads, **kw):
        return rate(lambda: randtensor.fill(a if kw.get("dist") != "bernoulli" else b, seed=1,
                                            threads=threads, **kw), n, r)

    cases = [
        ("uniform float32", dict(dist="uniform"),
         lambda: rng.random(out=a, dtype=np.float32)),
        ("normal float32", dict(dist="normal"),
         lambda: rng.standard_normal(out=a, dtype=np.float32)),
        ("bernoulli uint8 p=0.3", dict(dist="bernoulli", p=0.3),
         lambda: np.less(rng.random(out=a, dtype=np.float32), 0.3, out=b.view(np.bool_))),
    ]
    for name, kw, numpy_fn in cases:
        theirs = rate(numpy_fn, n, r)
        one = ours(1, **kw)
        every = ours(all_threads, **kw)
        rows.append((name, "numpy 1 thread", theirs, one, every))
    try:
        import torch
        for threads in sorted({1, all_threads}):
            torch.set_num_threads(threads)
            t = torch.empty(n, dtype=torch.float32)
            for name, kw, fn in [("uniform float32", dict(dist="uniform"), lambda: t.uniform_()),
                                 ("normal float32", dict(dist="normal"), lambda: t.normal_()),
                                 ("bernoulli float32 p=0.3", dict(dist="bernoulli", p=0.3),
                                  lambda: t.bernoulli_(0.3))]:
                theirs = rate(fn, n, r)
                target = a if kw["dist"] != "bernoulli" else a
                mine = rate(lambda: randtensor.fill(target, seed=1, threads=threads, **kw), n, r)
                rows.append((name, f"torch {threads} threads", theirs, mine, mine))
    except ImportError:
        print("(PyTorch not importable: python3-torch not installed; NumPy only)")
    print(f"n = {n}, {all_threads} hardware threads, target {randtensor.active_target()}")
    print(f"{'distribution':26} {'against':18} {'theirs Gelem/s':>14} {'ours 1 thr':>11} "
          f"{'ours all':>9} {'ratio (same threads)':>21}")
    for name, who, theirs, one, every in rows:
        print(f"{name:26} {who:18} {theirs / 1e9:14.3f} {one / 1e9:11.3f} {every / 1e9:9.3f} "
              f"{one / theirs:21.2f}")


if __name__ == "__main__":
    main()
