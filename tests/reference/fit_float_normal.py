#!/usr/bin/env python3
"""Fits the polynomials of randtensor's float Box-Muller (src/math-inl.h):
kLogQ (log) and kSinS (sine), as C++ float literals, highest degree first.

    /usr/bin/python3 tests/reference/fit_float_normal.py [log|sin]   (mpmath; ~30 s)

Each is fit for the relative error it leaves in what the kernel needs, not
for the polynomial's own error:

  log: -log(1 - t) = t + t^2 P(t), t = 1 - f on (1 - sqrt 2, 1 - sqrt(1/2)]
       (u = f 2^e, NegLogFloat). P's error d moves -log u by t^2 d, so the
       weight is t^2 / |log u| at the smallest |log u| a t can have: e = 0
       (|log u| = -log(1 - t)) for t >= 0, e = -1 (log 2 - log(1 - t)) for
       t < 0 (f > 1 needs e <= -1: u <= 1). kLogQ holds Q(x) = -P(-x), the
       coefficients of log(1 + x) = x + x^2 Q(x), x = f - 1: the kernel negates
       the even ones back.
  sin: sin r = r + r^3 S(r^2) on |r| <= pi/4 + 2e-6 (SinCosFloat's range);
       weight r^2 / (sin r / r).

The weighted minimax is approximated by iteratively reweighted least squares
on Chebyshev nodes; then the coefficients are rounded to float one at a time,
lowest degree first, the others refit after each. Prints the largest
weighted error (in units of 2^-24, relative to -log u or sin r) before and
after rounding, on a 4001-point grid. normal_float_check.cc then measures
the whole computation (these errors plus every rounding) exhaustively.
"""
import struct
import sys

import mpmath as mp

mp.mp.dps = 40


def to_float(x):
    return mp.mpf(struct.unpack("f", struct.pack("f", float(x)))[0])


def c_literal(x):
    m = float.hex(float(x))  # '0x1.767eb40000000p-4' -> '0x1.767eb4p-4f'
    sign = "-" if m.startswith("-") else ""
    mant, exp = m.lstrip("-").split("p")
    mant = mant.rstrip("0")
    if mant.endswith("."):
        mant += "0"
    digits = mant.split(".")[1]
    return f"{sign}{mant}{'0' * (6 - len(digits))}p{exp}f"


def weighted_fit(xs, f, w, deg, fixed, iters=40):
    free = [j for j in range(deg + 1) if j not in fixed]
    ws = [mp.mpf(1)] * len(xs)
    for _ in range(iters):
        a = mp.matrix(len(xs), len(free))
        b = mp.matrix(len(xs), 1)
        for i, x in enumerate(xs):
            ww = mp.sqrt(ws[i]) * w(x)
            for k, j in enumerate(free):
                a[i, k] = ww * x**j
            b[i] = ww * (f(x) - sum(v * x**j for j, v in fixed.items()))
        sol = mp.lu_solve(a.T * a, a.T * b)
        coef = dict(fixed)
        coef.update({j: sol[k] for k, j in enumerate(free)})
        errs = [abs(sum(coef[j] * x**j for j in range(deg + 1)) - f(x)) * w(x) for x in xs]
        top = max(errs)
        ws = [ws[i] * (errs[i] / top) ** 0.5 + mp.mpf(10) ** -40 for i in range(len(xs))]
    return coef, top


def fit(lo, hi, f, w, deg, nodes=300):
    xs = [lo + (hi - lo) * (1 - mp.cos(mp.pi * (i + 0.5) / nodes)) / 2 for i in range(nodes)]
    coef, top = weighted_fit(xs, f, w, deg, {})
    print(f"  before rounding: {float(top * 2**24):.4f} 2^-24")
    fixed = {}
    for j in range(deg + 1):
        fixed[j] = to_float(coef[j])
        if len(fixed) <= deg:
            coef, _ = weighted_fit(xs, f, w, deg, fixed, iters=25)
    grid = [lo + (hi - lo) * i / 4000 for i in range(4001)]
    top = max(abs(sum(fixed[j] * x**j for j in range(deg + 1)) - f(x)) * w(x) for x in grid)
    print(f"  rounded to float: {float(top * 2**24):.4f} 2^-24")
    return fixed


def log_p(t):
    return mp.mpf(1) / 2 if t == 0 else (-mp.log(1 - t) - t) / t**2


def log_weight(t):
    if t == 0:
        return mp.mpf(0)
    log_u = -mp.log(1 - t) if t > 0 else mp.log(2) - mp.log(1 - t)
    return t**2 / log_u


def sin_s(x):
    if x == 0:
        return mp.mpf(-1) / 6
    r = mp.sqrt(x)
    return (mp.sin(r) - r) / r**3


def sin_weight(x):
    if x == 0:
        return mp.mpf(0)
    r = mp.sqrt(x)
    return x / (mp.sin(r) / r)


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    if which in ("all", "log"):
        deg = 7
        print(f"kLogQ, degree {deg}:")
        p = fit(1 - mp.sqrt(2), 1 - mp.sqrt(mp.mpf(1) / 2), log_p, log_weight, deg)
        q = [-p[i] if i % 2 == 0 else p[i] for i in range(deg + 1)]  # Q(x) = -P(-x)
        print("  {" + ", ".join(c_literal(q[i]) for i in reversed(range(deg + 1))) + "}")
    if which in ("all", "sin"):
        deg = 2
        r = mp.pi / 4 + mp.mpf("2e-6")
        print(f"kSinS, degree {deg}:")
        s = fit(mp.mpf(0), r**2, sin_s, sin_weight, deg)
        print("  {" + ", ".join(c_literal(s[i]) for i in reversed(range(deg + 1))) + "}")


if __name__ == "__main__":
    main()
