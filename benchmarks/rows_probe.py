#!/usr/bin/env python3
"""Padded rows against the packed tensor, by tensor size and row stride.

Fills a packed (rows x cols) uint32 array and the same sizes as a view of
a (rows x stride) array alternately, one thread, and prints the median of
the per-fill ratios of their rates (padded over packed): where the
randtensor_bench `rows/` rows fall short, this separates what the kernel
adds per row (a small tensor, in L1) from what the memory side does (the
same rows in L2 and beyond), and whether the row stride matters.

  PYTHONPATH=build/python RANDTENSOR_TARGET=AVX2 taskset -c 1 \\
    python3 benchmarks/rows_probe.py --rows 16,64,256,1024,4096 --strides 264,272,320

Each call goes through Python (about a microsecond), which the small tensors
feel most: their ratios lean towards 1.
"""
import argparse
import statistics
import time

import numpy as np

import randtensor


def ratio(rows, cols, stride, fills):
    packed = np.empty((rows, cols), np.uint32)
    padded = np.empty((rows, stride), np.uint32)[:, :cols]
    ratios = []
    for _ in range(fills):
        t0 = time.perf_counter_ns()
        randtensor.fill(packed, seed=1, threads=1)
        t1 = time.perf_counter_ns()
        randtensor.fill(padded, seed=1, threads=1)
        t2 = time.perf_counter_ns()
        ratios.append((t1 - t0) / (t2 - t1))
    return statistics.median(ratios)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="16,64,256,1024,4096")
    parser.add_argument("--cols", type=int, default=256)
    parser.add_argument("--strides", default="264,272,288,320,384")
    parser.add_argument("--elements", type=int, default=100_000_000,
                        help="elements filled per (rows, stride) cell, each tensor")
    args = parser.parse_args()
    print("rows cols stride KiB padded/packed")
    for rows in (int(r) for r in args.rows.split(",")):
        fills = max(200, args.elements // (rows * args.cols))
        for stride in (int(s) for s in args.strides.split(",")):
            r = ratio(rows, args.cols, stride, fills)
            print(f"{rows} {args.cols} {stride} {rows * args.cols * 4 // 1024} {r:.3f}", flush=True)


if __name__ == "__main__":
    main()
