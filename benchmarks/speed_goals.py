#!/usr/bin/env python3
"""The speed issue's goals (issue 16), each a ratio taken inside one run,
over several runs: prints every run's ratios and their range.

    benchmarks/speed_goals.py --bench build/benchmarks/randtensor_bench \\
        [--cli build/tools/randtensor] [--runs 3] [--json-out runs.json]

Goals and what they are read from (T = all hardware threads):
  256 KiB, 1 thread, AVX-512   fill/AVX3/packed/256KiB/threads:1 / ceiling/reference/256KiB/threads:1
  AVX2, 256 KiB, 1 thread      fill/AVX2/packed/256KiB/threads:1 / ceiling/reference-avx2/256KiB/threads:1
  1 GiB, all threads           fill/<best>/packed/1GiB/threads:T / ceiling/stream/1GiB/threads:T
  4 MiB, T threads vs 1        scaling/hot/4MiB/tasks:auto (workers spinning between calls;
                               the cold row, workers asleep before each call, is printed too)
  16-element call              `randtensor generate --sizes 16 --repeat 1000000` (ns per call:
                               16 / Gelem/s), bits and uniform float32, one thread
Each run is one benchmark process (its rows run back to back), so a ratio
compares rates measured seconds apart on the same machine state; the runs
are separate processes, so the range shows how much the machine moved.
"""
import argparse
import json
import os
import re
import statistics
import subprocess


def bench_run(bench, threads):
    names = [
        "fill/AVX3/packed/256KiB/threads:1", "ceiling/reference/256KiB/threads:1",
        "fill/AVX2/packed/256KiB/threads:1", "ceiling/reference-avx2/256KiB/threads:1",
        f"fill/AVX3/packed/1GiB/threads:{threads}", f"fill/AVX2/packed/1GiB/threads:{threads}",
        f"ceiling/stream/1GiB/threads:{threads}",
    ]
    pattern = "^(" + "|".join(names) + \
        f"|scaling/(hot|cold)/4MiB/tasks:auto/threads:(1|{threads}))/"
    env = dict(os.environ, RANDTENSOR_BENCH_THREADS=f"1,{threads}")
    out = subprocess.run([bench, f"--benchmark_filter={pattern}", "--benchmark_min_time=0.3",
                          "--benchmark_format=json"], check=True, capture_output=True,
                         text=True, env=env).stdout
    rows = {}
    for b in json.loads(out)["benchmarks"]:
        name = re.sub(r"(/iterations:\d+)?/(real|manual)_time$", "", b["name"])
        # scaling/ rows: calls per second of the median call (the same
        # element count at every thread count); the rest: bytes per second.
        rows[name] = 1e6 / b["median_us"] if "median_us" in b else b["bytes_per_second"]
    return rows


def cli_ns(cli, dist):
    out = subprocess.run([cli, "generate", "--sizes", "16", "--dist", dist, "--threads", "1",
                          "--repeat", "1000000"], check=True, capture_output=True,
                         text=True).stdout
    return 16 / float(re.search(r"Gelem/s: ([0-9.]+)", out).group(1))


def goals(rows, threads):
    g = {}
    def ratio(key, a, b):
        if a in rows and b in rows:
            g[key] = rows[a] / rows[b]
    ratio("AVX3 256 KiB / floor kernel (goal 1.3)", "fill/AVX3/packed/256KiB/threads:1",
          "ceiling/reference/256KiB/threads:1")
    ratio("AVX2 256 KiB / its floor kernel (goal 1.2)", "fill/AVX2/packed/256KiB/threads:1",
          "ceiling/reference-avx2/256KiB/threads:1")
    best = "AVX3" if f"fill/AVX3/packed/1GiB/threads:{threads}" in rows else "AVX2"
    ratio(f"1 GiB {threads} threads / streaming fill (goal 0.9 here, 0.7 Xeon)",
          f"fill/{best}/packed/1GiB/threads:{threads}", f"ceiling/stream/1GiB/threads:{threads}")
    for mode in ("hot", "cold"):
        ratio(f"4 MiB {threads} threads / 1 thread, {mode} (goal: 6 on 16, 1.7 on 2)",
              f"scaling/{mode}/4MiB/tasks:auto/threads:{threads}",
              f"scaling/{mode}/4MiB/tasks:auto/threads:1")
    return g


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bench", required=True)
    p.add_argument("--cli")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--json-out")
    a = p.parse_args()
    runs = []
    for r in range(a.runs):
        rows = bench_run(a.bench, a.threads)
        g = goals(rows, a.threads)
        if a.cli:
            for dist in ("bits", "uniform"):
                g[f"16-element call, {dist}, ns (goal <= 100)"] = cli_ns(a.cli, dist)
        runs.append({"rows": rows, "goals": g})
        print(f"run {r + 1}: " + "; ".join(f"{k}: {v:.2f}" for k, v in g.items()), flush=True)
    print(f"\n{os.cpu_count()} CPUs, {a.runs} runs: median [min-max]")
    for key in runs[0]["goals"]:
        v = [run["goals"][key] for run in runs if key in run["goals"]]
        print(f"  {key:62s} {statistics.median(v):7.2f} [{min(v):.2f}-{max(v):.2f}]")
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump(runs, f, indent=1)


if __name__ == "__main__":
    main()
