#!/usr/bin/env python3
"""Draws the figures of benchmarks/RESULTS.md from the raw benchmark output
kept in benchmarks/results/, with Debian's python3-matplotlib:

    python3 benchmarks/plot.py [--out docs/figures]

- threads.svg: packed 1 GiB fills against thread count beside the memory
  ceiling (the streaming fill) and the floor kernel, on the VM and the Xeon
  (randtensor_bench JSON: THREAD_RUNS below).
- frameworks.svg: randtensor's speed-up over NumPy and stock PyTorch per
  operation (compare_frameworks.py's table on the VM and
  torch_backend_bench.py's on the Xeon, as they printed them).

The SVGs carry no date and fixed element ids, so the same input gives the
same files.
"""
import argparse
import glob
import json
import os
import re
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
# (glob of randtensor_bench JSON files, one per run; panel title). A file of
# aggregates (--benchmark_repetitions) counts as one run, read at its median.
THREAD_RUNS = [
    ("vm/threads-*.json", "VM: 2 vCPUs, AMD EPYC (Zen 4)"),
    ("xeon/threads-*.json", "Xeon: 16 vCPUs"),
]
FRAMEWORKS_VM = "vm/frameworks.txt"
BACKEND_XEON = "xeon/torch-backend.txt"
# Later runs of some cases, as RESULTS.md's table takes them: (file, cases).
BACKEND_XEON_LATER = ("xeon/torch-backend-small-calls.txt", r"\(16( elements)?\)$|^build ")

SERIES = [  # (benchmark name prefix, label, line style)
    ("fill/AVX3/packed/1GiB", "randtensor, packed 1 GiB", "-"),
    ("ceiling/stream/1GiB", "streaming fill (memory ceiling)", "--"),
    ("ceiling/reference-stream/1GiB", "floor kernel, streaming stores", ":"),
]


def read_thread_runs(pattern):
    """{series prefix: {threads: [GB/s per run]}} from one host's runs."""
    files = sorted(glob.glob(os.path.join(RESULTS, pattern)))
    if not files:
        raise SystemExit(f"plot.py: no {pattern} under {RESULTS}")
    rates = {prefix: {} for prefix, _, _ in SERIES}
    for path in files:
        with open(path) as f:
            benchmarks = json.load(f)["benchmarks"]
        aggregates = all(b.get("run_type") == "aggregate" for b in benchmarks)
        for bench in benchmarks:
            m = re.match(r"(.*)/threads:(\d+)", bench["name"])
            wanted = bench.get("aggregate_name") == "median" if aggregates else (
                bench.get("run_type") != "aggregate")
            if m and m.group(1) in rates and wanted:
                rates[m.group(1)].setdefault(int(m.group(2)), []).append(
                    bench["bytes_per_second"] / 1e9)
    return rates, len(files)


def plot_threads(out_dir):
    fig, axes = plt.subplots(1, len(THREAD_RUNS), figsize=(10, 4.2))
    for ax, (pattern, title) in zip(axes, THREAD_RUNS):
        rates, runs = read_thread_runs(pattern)
        for prefix, label, style in SERIES:
            points = sorted(rates[prefix].items())
            threads = [t for t, _ in points]
            med = [statistics.median(v) for _, v in points]
            low = [m - min(v) for m, (_, v) in zip(med, points)]
            high = [max(v) - m for m, (_, v) in zip(med, points)]
            ax.errorbar(threads, med, yerr=[low, high], linestyle=style, marker="o",
                        markersize=4, capsize=3, label=label)
        ax.set_xscale("log", base=2)
        ax.set_xticks(threads)
        ax.set_xticklabels([str(t) for t in threads])
        ax.set_xlabel("threads")
        ax.set_ylabel("GB/s written (median, bars: range)")
        ax.set_ylim(bottom=0)
        ax.set_title(f"{title}, {runs} run{'s' if runs > 1 else ''}", fontsize=10)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8, loc="lower right")
    fig.suptitle("uint32 fill rate against thread count, beside the memory ceiling", fontsize=11)
    fig.tight_layout()
    save(fig, out_dir, "threads.svg")


def read_frameworks_vm():
    """[(label, threads, median, low, high)] from compare_frameworks.py's table."""
    rows = []
    row = re.compile(r"^\s*(\d+)\s+(\S+) f32\s+(numpy|torch)\s+(\S+).*?"
                     r"(\S+) \[(\S+)-(\S+)\]\s*$")
    with open(os.path.join(RESULTS, FRAMEWORKS_VM)) as f:
        for line in f:
            m = row.match(line)
            if m:
                threads, dist, framework, call = m.group(1, 2, 3, 4)
                call = call.split("(")[0]
                label = f"{dist}: " + (f"NumPy {call}" if framework == "numpy" else call)
                rows.append((label, int(threads), *(float(x) for x in m.group(5, 6, 7))))
    return rows


def read_backend_xeon():
    """[(case, threads, midpoint, low, high)]: BACKEND_XEON's rows, with the
    cases BACKEND_XEON_LATER names taken from its file instead."""
    later_file, later_cases = BACKEND_XEON_LATER
    later = {}  # (case, threads) -> (low, high) over every run of the file
    for case, threads, _, low, high in read_backend_table(later_file):
        if re.search(later_cases, case):
            lo, hi = later.get((case, threads), (low, high))
            later[(case, threads)] = (min(lo, low), max(hi, high))
    rows = []
    for case, threads, mid, low, high in read_backend_table(BACKEND_XEON):
        if (case, threads) in later:
            low, high = later[(case, threads)]
            mid = (low * high) ** 0.5
        rows.append((case, threads, mid, low, high))
    return rows


def read_backend_table(name):
    """[(case, threads, midpoint, low, high)] from torch_backend_bench.py's tables."""
    rows, threads = [], None
    header = re.compile(r"^torch \S+, (\d+) threads, order stream, huge pages off")
    row = re.compile(r"^(\S.*?)\s{2,}\S+ \w+\s+\S+ \w+\s+(\S+)-(\S+)x$")
    with open(os.path.join(RESULTS, name)) as f:
        for line in f:
            h = header.match(line)
            if h:
                threads = int(h.group(1))
                continue
            m = row.match(line.rstrip())
            if m and threads:
                low, high = float(m.group(2)), float(m.group(3))
                case = m.group(1).replace(" (101 M params), fresh process", "")
                rows.append((case, threads, (low * high) ** 0.5, low, high))
            elif line.startswith("=="):
                threads = None
    return rows


def bars(ax, rows, thread_counts, title):
    labels = list(dict.fromkeys(r[0] for r in rows))
    height = 0.8 / len(thread_counts)
    for i, threads in enumerate(thread_counts):
        sel = {r[0]: r for r in rows if r[1] == threads}
        ys = [j + i * height for j, label in enumerate(labels) if label in sel]
        mids = [sel[label][2] for label in labels if label in sel]
        err = [[sel[label][2] - sel[label][3] for label in labels if label in sel],
               [sel[label][4] - sel[label][2] for label in labels if label in sel]]
        ax.barh(ys, mids, height=height, xerr=err, capsize=2,
                label=f"{threads} thread{'s' if threads > 1 else ''}")
    ax.set_yticks([j + height * (len(thread_counts) - 1) / 2 for j in range(len(labels))])
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.axvline(1, color="black", linewidth=0.8)
    ax.set_xlabel("speed-up of randtensor (log scale; bars: range)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")


def plot_frameworks(out_dir):
    fig, axes = plt.subplots(1, 2, figsize=(12, 5))
    bars(axes[0], read_frameworks_vm(), [1, 2],
         "VM: randtensor against NumPy 1.24 and torch 1.13,\n"
         "float32, 16 Mi elements (compare_frameworks.py)")
    bars(axes[1], read_backend_xeon(), [1, 16],
         "Xeon: PyTorch 2.11 calls with randtensor.torch.install()\n"
         "against stock (torch_backend_bench.py)")
    fig.tight_layout()
    save(fig, out_dir, "frameworks.svg")


def save(fig, out_dir, name):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, name)
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)
    print("wrote", path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(HERE, "..", "docs", "figures"))
    args = parser.parse_args()
    plt.rcParams["svg.hashsalt"] = "randtensor"
    plot_threads(args.out)
    plot_frameworks(args.out)


if __name__ == "__main__":
    main()
