#!/usr/bin/env python3
"""Runs randtensor_bench and prints one table: GB/s and the ratio to a ceiling
measured in the same run (machines are shared and noisy, so only ratios taken
side by side mean much).

    benchmarks/report.py --bench build/benchmarks/randtensor_bench          # default set
    benchmarks/report.py --bench ... --full                                 # everything
    benchmarks/report.py --json-in results.json                             # re-render

Ratios:
  fill packed, <= 256 KiB   / ceiling/reference (the compute floor: hand-written AVX-512)
  fill packed, >= 64 MiB    / ceiling/stream (the memory ceiling: streaming-store fill)
  fill other layouts        / fill packed of the same target, size and threads
  ceiling/reference         / ceiling/stream;  other ceilings likewise
Rates are medians over repetitions, in GB/s (1e9 bytes of elements per second).
"""
import argparse
import json
import os
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
        name = b["run_name"].replace("/real_time", "")
        if "bytes_per_second" in b:
            result[name] = ("GB/s", b["bytes_per_second"] / 1e9)
        else:
            scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
            result[name] = ("ns/call", b["real_time"] * scale)
    return result


def ceiling_for(name, rates):
    parts = name.split("/")
    if parts[0] == "fill":
        _, target, layout, size, threads = parts
        if layout != "packed":
            return f"fill/{target}/packed/{size}/{threads}"
        small = size.endswith("KiB")
        ref = f"ceiling/reference/{size}/{threads}"
        return ref if small and ref in rates else f"ceiling/stream/{size}/{threads}"
    if parts[0] == "ceiling" and parts[1] != "stream":
        return f"ceiling/stream/{parts[2]}/{parts[3]}"
    return None


def table(rates, machine):
    lines = [f"Machine: {machine}", "",
             "| benchmark | rate | relative to | ratio |",
             "|---|---:|---|---:|"]
    for name in sorted(rates, key=sort_key):
        unit, value = rates[name]
        base = ceiling_for(name, rates)
        ratio = ""
        if base in rates and rates[base][1] > 0:
            ratio = f"{value / rates[base][1]:.2f}"
        lines.append(f"| {name} | {value:.2f} {unit} | {base if ratio else ''} | {ratio} |")
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
               f"(as Google Benchmark reads it), {ctx.get('date', '')}, host {os.uname().nodename}")
    print(table(medians(data), machine))


if __name__ == "__main__":
    main()
