#!/usr/bin/env python3
"""Per distribution row, vs_bits (the ratio to the uint32 fill of the same
element count, taken fill by fill) of dist-new-*.json against dist-base-*.json:
min-max over the runs, and the median of the new ones.

    python3 summarize.py [DIR]
"""
import collections
import glob
import json
import os
import statistics
import sys

d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
res = collections.defaultdict(list)
for v in ("new", "base"):
    for f in sorted(glob.glob(os.path.join(d, f"dist-{v}-*.json"))):
        for b in json.load(open(f))["benchmarks"]:
            if b.get("run_type") == "iteration":
                n = b["name"].split("/", 1)[1].replace("/manual_time", "")
                res[(n, v)].append(b["vs_bits"])
for n in sorted({k[0] for k in res}, key=lambda n: (n.split("/")[0], "65536Ki" in n, n)):
    new, base = res[(n, "new")], res[(n, "base")]
    print(f"{n:47s} base {min(base):.2f}-{max(base):.2f}  new {min(new):.2f}-{max(new):.2f}"
          f" (median {statistics.median(new):.2f})")
