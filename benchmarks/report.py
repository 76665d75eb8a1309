#!/usr/bin/env python3
"""Runs randtensor_bench and prints one table: GB/s and the ratio to a ceiling
measured in the same run (machines are shared and noisy, so only ratios taken
side by side mean much).

    benchmarks/report.py --bench build/benchmarks/randtensor_bench          # default set
    benchmarks/report.py --bench ... --full                                 # everything
    benchmarks/report.py --json-in results.json                             # re-render

Ratios, each against a rate of the same size and thread count:
  ÷ stream fill        the memory ceiling: a streaming-store fill of non-zero data
  ÷ reference kernel   the compute floor: a hand-written Philox of the target's
                       width (AVX-512: regular stores up to 256 KiB, streaming
                       above; AVX2 and SSE4 their own; SCALAR: Random123's loop)
  ÷ packed             the same target's packed fill (for the other layouts);
                       for paired/ rows, the median of ratios taken fill by fill
                       (packed, then the layout, alternately: see BM_Paired)
Rates are medians over repetitions, in GB/s (1e9 bytes of elements per second).
"""
import argparse
import json
import re
import subprocess
import sys

DEFAULT_REPETITIONS = 5


def widest_target(bench):
    out = subprocess.run([bench, "--benchmark_list_tests"], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():  # registered widest target first
        m = re.match(r"fill/([^/]+)/", line)
        if m:
            return m.group(1)
    sys.exit("no fill benchmarks registered")


def default_filter(bench):
    top = widest_target(bench)
    parts = [
        f"fill/{top}/",                                   # every layout, size, thread count
        f"paired/{top}/",                                 # layouts vs packed, fill by fill
        r"fill/[^/]+/packed/(256KiB/threads:1|1GiB)",     # every target: floor and memory
        "ceiling/",
        "overhead/",
    ]
    return "|".join(parts)


def run(bench, filt, repetitions, min_time):
    cmd = [bench, f"--benchmark_filter={filt}", "--benchmark_format=json",
           f"--benchmark_repetitions={repetitions}",
           "--benchmark_report_aggregates_only=true",
           f"--benchmark_min_time={min_time}"]
    print("running:", " ".join(cmd), file=sys.stderr)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def medians(data):
    """name (without /real_time and aggregate suffix) -> median GB/s or ns."""
    result = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name", "median") != "median":
            continue
        name = b["run_name"].replace("/real_time", "").replace("/manual_time", "")
        if "vs_packed" in b:  # paired: the layout's rate and its own ratio
            result[name] = ("GB/s", b["bytes_per_second"] / 1e9, b["vs_packed"])
        elif "bytes_per_second" in b:
            result[name] = ("GB/s", b["bytes_per_second"] / 1e9)
        else:
            scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
            result[name] = ("ns/call", b["real_time"] * scale)
    return result


def baselines(name):
    """The rates `name` is compared with: (stream fill, reference kernel, packed)."""
    parts = name.split("/")
    if parts[0] not in ("fill", "ceiling", "paired") or len(parts) < 4:
        return (None, None, None)
    size, threads = parts[-2], parts[-1]
    stream = f"ceiling/stream/{size}/{threads}"
    # The compute floor: the hand-written kernel for the target's width
    # (AVX-512: with streaming stores where the output outgrows the caches,
    # as randtensor's own choice does; SCALAR: Random123's scalar loop).
    kind = {"AVX2": "reference-avx2", "SSE4": "reference-sse4", "SSSE3": "reference-sse4",
            "SCALAR": "random123"}.get(parts[1] if parts[0] != "ceiling" else "",
                                       "reference" if size.endswith("KiB") else "reference-stream")
    floor = f"ceiling/{kind}/{size}/{threads}"
    packed = None
    if parts[0] == "fill" and parts[2] != "packed":
        packed = f"fill/{parts[1]}/packed/{size}/{threads}"
    if name in (stream, floor):
        return (stream if name != stream else None, None, None)
    return (stream, floor, packed)


def table(rates, machine):
    lines = [f"Machine: {machine}", "",
             "| benchmark | rate | ÷ stream fill | ÷ reference kernel | ÷ packed |",
             "|---|---:|---:|---:|---:|"]

    def ratio(value, base):
        if base is None or base not in rates or rates[base][1] <= 0:
            return ""
        return f"{value / rates[base][1]:.2f}"

    for name in sorted(rates, key=sort_key):
        unit, value = rates[name][:2]
        cells = [ratio(value, b) for b in baselines(name)]
        if len(rates[name]) > 2:  # paired: the ratio measured fill by fill
            cells[2] = f"{rates[name][2]:.2f} (paired)"
        lines.append(f"| {name} | {value:.2f} {unit} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def sort_key(name):
    size_order = {"1KiB": 0, "256KiB": 1, "64MiB": 2, "1GiB": 3}
    parts = name.split("/")
    size = next((size_order[p] for p in parts if p in size_order), -1)
    return (parts[0], parts[1] if len(parts) > 1 else "", size, name)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default="build/benchmarks/randtensor_bench")
    ap.add_argument("--filter", help="Google Benchmark filter (default: a curated set)")
    ap.add_argument("--full", action="store_true", help="every registered benchmark")
    ap.add_argument("--repetitions", type=int, default=DEFAULT_REPETITIONS)
    ap.add_argument("--min-time", type=float, default=0.2)
    ap.add_argument("--json-in", help="render a saved --json-out file instead of running")
    ap.add_argument("--json-out", help="also save the raw Google Benchmark JSON here")
    args = ap.parse_args()

    if args.json_in:
        with open(args.json_in) as f:
            data = json.load(f)
    else:
        filt = ".*" if args.full else (args.filter or default_filter(args.bench))
        data = run(args.bench, filt, args.repetitions, args.min_time)
        if args.json_out:
            with open(args.json_out, "w") as f:
                json.dump(data, f)
    ctx = data.get("context", {})
    machine = (f"{ctx.get('num_cpus', '?')} CPUs at {ctx.get('mhz_per_cpu', '?')} MHz "
               f"(as Google Benchmark reads it), {ctx.get('date', '')}, host {ctx.get('host_name', '?')}")
    print(table(medians(data), machine))


if __name__ == "__main__":
    main()
