"""Unchanged PyTorch code with and without randtensor.torch.install().

    python3 benchmarks/torch_backend_bench.py [--threads N] [--rounds R] [--params M]

Each case runs stock PyTorch and then the installed backend, alternating, R
rounds in one process, and prints per case the stock time, randtensor's
time and their ratio as min-max over the rounds. What is timed is what a
user's program sees: allocation and first touch of fresh memory included
(the model is built in a fresh process each time, into memory never touched).

Cases: building a model of about M million parameters (nn.Linear(2048,
2048) layers, kaiming-uniform weights and uniform biases: torch's own
nn.init); torch.rand, torch.randn and F.dropout in training of 16, 2^20
and 2^26 elements (per call: the median of many calls for the small ones).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import randtensor.torch as rt


def build_model(layers):
    return nn.Sequential(*[nn.Linear(2048, 2048) for _ in range(layers)])


# A model is built once per program, into memory the process has never
# touched: each build runs in a process of its own, timed there.
BUILD = """
import sys, time, torch, torch.nn as nn
import randtensor.torch as rt
layers, threads, install, order, gpu = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4], sys.argv[5]
if threads: torch.set_num_threads(threads)
if install: rt.install(order=order, gpu=None if gpu == "-" else gpu, huge_pages=sys.argv[6] == "1")
start = time.perf_counter()
model = nn.Sequential(*[nn.Linear(2048, 2048) for _ in range(layers)])
print(time.perf_counter() - start)
"""


def build_in_fresh_process(layers, threads, install, order, gpu, huge_pages):
    run = subprocess.run([sys.executable, "-c", BUILD, str(layers), str(threads or 0),
                          "1" if install else "0", order, gpu or "-", "1" if huge_pages else "0"],
                         capture_output=True, text=True, check=True, env=os.environ)
    return float(run.stdout.split()[-1])


def timed(fn, repeat):
    """Median seconds per call over `repeat` calls (one call when repeat is 1)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cases(params_m):
    x1m = torch.ones(1 << 20)
    x64m = torch.ones(1 << 26)
    x16 = torch.ones(16)
    return [
        ("rand(16)", lambda: torch.rand(16), 2000),
        ("randn(16)", lambda: torch.randn(16), 2000),
        ("F.dropout(16 elements)", lambda: F.dropout(x16, 0.1, training=True), 2000),
        ("rand(2^20)", lambda: torch.rand(1 << 20), 20),
        ("randn(2^20)", lambda: torch.randn(1 << 20), 20),
        ("F.dropout(2^20 elements)", lambda: F.dropout(x1m, 0.1, training=True), 20),
        ("rand(2^26)", lambda: torch.rand(1 << 26), 3),
        ("randn(2^26)", lambda: torch.randn(1 << 26), 3),
        ("F.dropout(2^26 elements)", lambda: F.dropout(x64m, 0.1, training=True), 3),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=None,
                        help="torch.set_num_threads (default: torch's default)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--params", type=float, default=100.0,
                        help="model size in millions of parameters (default 100)")
    parser.add_argument("--order", default="stream", choices=("stream", "torch_cuda"))
    parser.add_argument("--gpu", default=None, help="torch_cuda's GPU preset")
    parser.add_argument("--huge-pages", action="store_true",
                        help="install(huge_pages=True): fresh memory faulted in 2 MiB pages")
    parser.add_argument("--only", default="", help="run the cases whose name contains this")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, order {args.order}, "
          f"huge pages {'on' if args.huge_pages else 'off'}, "
          f"{args.rounds} rounds (stock, randtensor alternating)")
    print(f"{'case':58s} {'stock':>18s} {'randtensor':>18s} {'speedup':>12s}")
    layers = max(1, round(args.params * 1e6 / (2048 * 2048 + 2048)))
    model = (f"build {layers} x Linear(2048, 2048) ({layers * (2048 * 2048 + 2048) / 1e6:.0f} M "
             "params), fresh process")
    for name, fn, repeat in [(model, None, 1)] + cases(args.params):
        if args.only not in name:
            continue
        stock, ours = [], []
        for _ in range(args.rounds):
            if fn is None:
                stock.append(build_in_fresh_process(layers, args.threads, False, args.order,
                                                    args.gpu, args.huge_pages))
                ours.append(build_in_fresh_process(layers, args.threads, True, args.order, args.gpu,
                                                   args.huge_pages))
                continue
            rt.uninstall()
            stock.append(timed(fn, repeat))
            rt.install(order=args.order, gpu=args.gpu, huge_pages=args.huge_pages)
            ours.append(timed(fn, repeat))
        rt.uninstall()
        ratios = [s / o for s, o in zip(stock, ours)]

        def span(values, scale, unit):
            return f"{min(values) * scale:.3g}-{max(values) * scale:.3g} {unit}"

        unit, scale = ("us", 1e6) if repeat > 100 else ("ms", 1e3)
        print(f"{name:58s} {span(stock, scale, unit):>18s} {span(ours, scale, unit):>18s} "
              f"{min(ratios):5.2f}-{max(ratios):.2f}x")


if __name__ == "__main__":
    main()
