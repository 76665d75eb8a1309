#!/usr/bin/env python3
"""Compares Google Benchmark JSON of two builds run alternately (A/B).

    ab_compare.py PREFIX      reads PREFIX-old-<round>.json and PREFIX-new-<round>.json

For every benchmark: the range over the rounds of each build, as GB/s, the
paired ratio (vs_packed) or the time. Used for the refactor A/B in RESULTS.md:
each round runs the old and the new randtensor_bench one after the other with
the same --benchmark_filter, so both see the same host state.
"""
import collections
import glob
import json
import sys


def main():
    prefix = sys.argv[1]
    res = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in sorted(glob.glob(prefix + "-*.json")):
        build = f.split("-")[-2]
        for b in json.load(open(f))["benchmarks"]:
            if b.get("run_type") == "aggregate":
                continue
            if "vs_packed" in b:
                val, unit = b["vs_packed"], "÷packed"
            elif "bytes_per_second" in b:
                val, unit = b["bytes_per_second"] / 1e9, "GB/s"
            else:
                val, unit = b["real_time"], b["time_unit"]
            res[b["name"]][build].append(val)
            res[b["name"]]["unit"] = unit
    for name, d in res.items():
        o, w = d["old"], d["new"]
        print(f"{name:55s} {d['unit']:7s} old {min(o):7.3f}-{max(o):7.3f}  new {min(w):7.3f}-{max(w):7.3f}")


if __name__ == "__main__":
    main()
