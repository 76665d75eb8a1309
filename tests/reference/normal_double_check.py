#!/usr/bin/env python3
"""Measures how far randtensor's float64 normals are from the exact formula.

    PYTHONPATH=build-test/python python3 tests/reference/normal_double_check.py [pairs] [seed]

SPEC.md section 8 promises every float64 normal within 4 ulp (or 2^-50
absolute) of Box-Muller evaluated exactly on the same double u and v. This
draws `pairs` pairs of the stream of `seed` through randtensor.normal (every
compiled target the CPU runs, which must agree bit for bit), adds pairs of
edge words (u = 1 and the words next to it, the smallest u, v at the
quadrant boundaries), evaluates each pair with mpmath at 200 bits
(distributions.box_muller_d, written apart from the kernels) and prints the
largest error in ulps of the exact value, and in absolute terms below 1.
Exits 1 if any value breaks SPEC.md's bound. Not part of the test suite (a
minute for 10^5 pairs); the suite checks fewer values against the same
bound (test_reference.py).
"""
import os
import sys
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import distributions as d  # noqa: E402
import randtensor  # noqa: E402


def normals_on_every_target(pairs, seed):
    """The float64 normals of `pairs` pairs on every supported target, checked equal."""
    first = None
    for t in randtensor.targets():
        if not t["supported"]:
            continue
        randtensor.set_target(t["name"])
        z = randtensor.normal(2 * pairs, dtype="float64", seed=seed)
        if first is None:
            first = z
        elif not np.array_equal(z.view(np.uint64), first.view(np.uint64)):
            sys.exit("target %s differs from the first target" % t["name"])
    randtensor.set_target("auto")
    return first


def main():
    pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 2026
    z = normals_on_every_target(pairs, seed)
    w = randtensor.generate(4 * pairs, seed=seed).astype(np.uint64)
    worst_ulp, worst_abs, worst_at = 0.0, Fraction(0), None
    bad = 0
    for p in range(pairs):
        a, b, c, dd = (int(x) for x in w[4 * p: 4 * p + 4])
        exact = d.box_muller_d(a, b, c, dd)
        for lane in range(2):
            got = float(z[2 * p + lane])
            u = d.ulp_diff(got, exact[lane], d.F64)
            if u > worst_ulp:
                worst_ulp, worst_at = u, (p, lane)
            if abs(exact[lane]) < 1:
                worst_abs = max(worst_abs, d.abs_diff(got, exact[lane]))
            if not d.within_normal_tolerance(got, exact[lane], d.F64):
                bad += 1
    print("%d pairs of seed %d: largest error %.4f ulp (pair %d, %s), %.3g absolute below 1; "
          "%d beyond SPEC's 4 ulp / 2^-50"
          % (pairs, seed, float(worst_ulp), worst_at[0], ("sin", "cos")[worst_at[1]],
             float(worst_abs), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
