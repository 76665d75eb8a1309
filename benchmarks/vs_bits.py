#!/usr/bin/env python3
"""Reads randtensor_bench JSON of dist/ rows and prints their vs_bits ratios.

    vs_bits.py row LABEL FILE...     one line: LABEL, then TARGET/KIND/threads:T RATIO
                                     of every row whose kind matches --kinds
    vs_bits.py table FILE...         one line per kind and thread count: the
                                     range of its ratios over the files

Used by benchmarks/device_vs_bits.sh (the device calls' A/B rounds and
every-kind passes). "vs_bits" is the benchmark's paired ratio to the uint32
fill of the same element count.
"""
import argparse
import collections
import json
import re


def rows(files):
    for f in files:
        for x in json.load(open(f))["benchmarks"]:
            if "vs_bits" in x:
                name = x["name"].split("/")  # dist/TARGET/KIND/SIZE/threads:T/...
                yield name[1], name[2], name[4], x["vs_bits"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("row", "table"))
    ap.add_argument("args", nargs="+")
    ap.add_argument("--kinds", default="normal", help="regex on the kind (row mode)")
    a = ap.parse_args()
    if a.mode == "row":
        out = [a.args[0]]
        for target, kind, threads, ratio in rows(a.args[1:]):
            if re.search(a.kinds, kind):
                out.append("%s/%s/%s %.3f" % (target, kind, threads, ratio))
        print("  ".join(out))
    else:
        ranges = collections.defaultdict(list)
        for _, kind, threads, ratio in rows(a.args):
            ranges["%s %s" % (kind, threads)].append(ratio)
        for k in sorted(ranges):
            print("%-30s %.3f-%.3f" % (k, min(ranges[k]), max(ranges[k])))


if __name__ == "__main__":
    main()
