#!/usr/bin/env python3
"""Writes tests/data/distributions.txt: expected outputs of the distributions
that randtensor implements, computed by the independent reference model
(distributions.py, the `pytorch` variant that the H100 confirmed).

    python3 tests/reference/make_distribution_cases.py > tests/data/distributions.txt
    python3 tests/reference/make_distribution_cases.py --transforms > tests/data/transforms.txt

Two kinds of record, read by tests/distributions_test.cc:

  fill NAME DTYPE DIST A B  S0 S1 S2 S3 S4 S5  OFFSET N -> V0 V1 ... ; T0 .. T5
      elements OFFSET .. OFFSET+N-1 of a fill from state S (hex words), output
      bit patterns V (hex), output state T.
  convert NAME DTYPE DIST A B -> W:V W:V ...
      the element that stream word W (hex) becomes (hex bits): edge words no
      seed reaches on purpose (0, 2^32 - 1, the 128 words that round to 1.0f,
      float16/bfloat16 rounding ties, float16 subnormals).

DIST is uniform (A = low, B = high), normal (A = mean, B = std), bernoulli
(A = p, B unused = 0) or integers (A = low, B = high, integers). Normal values
are the exact Box-Muller formula (mpmath) rounded to float, then fma(z, std,
mean): randtensor's own log/sin/cos may differ from them by an ulp (SPEC.md
section 8's tolerance); the test allows that for normals only. Floats are written with repr(), which
round-trips a double exactly.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import distributions as D  # noqa: E402

STATES = [
    [0, 0, 0, 0, 0, 0],
    [0xFFFFFFF0, 0xFFFFFFFF, 0xFFFFFFFF, 0, 0xDEADBEEF, 0xCAFEF00D],  # carries
    [0x12345678, 0x9ABCDEF0, 0x0F1E2D3C, 0x4B5A6978, 42, 7],
]

# (name, dtype, dist, a, b)
CASES = [
    ("u_f32_01", "float32", "uniform", 0.0, 1.0),
    ("u_f32_neg", "float32", "uniform", -3.7, 11.3),
    ("u_f32_tiny", "float32", "uniform", 1e-30, 3e-30),
    ("u_f16_01", "float16", "uniform", 0.0, 1.0),
    ("u_f16_odd", "float16", "uniform", -3.7, 11.3),
    ("u_bf16_01", "bfloat16", "uniform", 0.0, 1.0),
    ("u_bf16_narrow", "bfloat16", "uniform", 0.1, 0.2),
    # The flip's edges (uniform_flip_interval): R rounded up, so the largest
    # words give more than H and the flipped words end before 2^32 - 1; no
    # word reaching H; H = 0, where float16 elements that round to -0 equal
    # H and flip (PyTorch compares values).
    ("u_f32_past_h", "float32", "uniform", -1.0, 1.0000003576278687),
    ("u_f16_past_h", "float16", "uniform", -1.0, 1.0029296875),
    ("u_bf16_past_h", "bfloat16", "uniform", -1.0, 1.0234375),
    ("u_f32_no_flip", "float32", "uniform", -3.5762786865234374e-08, 1.0),
    ("u_f32_zero_top", "float32", "uniform", -1.0, 0.0),
    ("u_f16_neg_zero", "float16", "uniform", -9.5367431640625e-07, 0.0),
    # uniform(0, 2^k), which the kernels make with one multiply-add of float(x)
    # for k in [-93, 127] (kernels.h unit_scale), at both ends, and 2^-94,
    # just outside, where t reaches float subnormals.
    ("u_f32_pow2_small", "float32", "uniform", 0.0, 2.0**-93),
    ("u_f32_pow2_large", "float32", "uniform", 0.0, 2.0**127),
    ("u_f32_pow2_subnormal", "float32", "uniform", 0.0, 2.0**-94),
    ("u_f16_pow2", "float16", "uniform", 0.0, 4.0),
    ("u_bf16_pow2", "bfloat16", "uniform", 0.0, 0.25),
    # bfloat16 values near zero: the AVX-512 kernels' pack (which reads float
    # subnormals as zero) is refused for these (fill.cc, bf16_pack), so the
    # subnormal results below must come out of the integer rounding: R =
    # 2^-100 (t subnormal for u < 2^-26, and for every edge word below 2^6),
    # and a subnormal L (the flipped words give L itself).
    ("u_bf16_subnormal", "bfloat16", "uniform", 0.0, 2.0**-100),
    ("u_bf16_low_subnormal", "bfloat16", "uniform", -(2.0**-130), 1.0),
    ("n_f32", "float32", "normal", 0.0, 1.0),
    ("n_f32_ms", "float32", "normal", 3.0, 0.5),
    ("n_f16", "float16", "normal", 0.0, 1.0),
    ("n_bf16", "bfloat16", "normal", -1.0, 2.0),
    ("n_f64", "float64", "normal", 0.0, 1.0),
    ("n_f64_ms", "float64", "normal", 10.0, 0.5),
    ("b_u8", "uint8", "bernoulli", 0.3, 0),
    ("b_bool", "bool", "bernoulli", 0.5, 0),
    ("b_i32", "int32", "bernoulli", 0.9, 0),
    ("b_f32", "float32", "bernoulli", 0.25, 0),
    ("b_f16", "float16", "bernoulli", 0.75, 0),
    ("b_bf16", "bfloat16", "bernoulli", 0.125, 0),
    ("b_p0", "float32", "bernoulli", 0.0, 0),
    ("b_p1", "uint8", "bernoulli", 1.0, 0),
    ("i_i32", "int32", "integers", -100, 1000),
    ("i_i32_one", "int32", "integers", 5, 6),
    ("i_u32", "uint32", "integers", 3000000000, 3000000007),
    ("i_i64", "int64", "integers", -(2**40), -(2**40) + 12345),
    ("i_f32", "float32", "integers", -(2**24), -(2**24) + 2**25),
    ("i_f64", "float64", "integers", 2**52, 2**52 + 2**28 - 1),
    ("u_f64_01", "float64", "uniform", 0.0, 1.0),
    ("u_f64_neg", "float64", "uniform", -3.7, 11.3),
    ("b_f64", "float64", "bernoulli", 0.3, 0),
    ("iw_i32", "int32", "integers", 0, 2**31),
    ("iw_i32_neg", "int32", "integers", -(2**31), 2**31 - 1),
    ("iw_u32", "uint32", "integers", 0, 2**32),
    ("iw_i64", "int64", "integers", -(2**40), 2**40),
    ("iw_i64_full", "int64", "integers", -(2**63), 2**63 - 1),
    ("iw_f64", "float64", "integers", -(2**52), 2**52),
]

# docs/SPEC.md section 8.1's transforms, written with --transforms to
# tests/data/transforms.txt (read by tests/transforms_test.cc, which allows each
# its stated bound): exponential (A = lambda), cauchy (A = median, B = sigma),
# log_normal (A = mean, B = std), geometric (A = p). The parameters of the H100
# recording (tests/reference/torch_backend/record_distributions.py) and others:
# p = 0.5 (q = 1/2: u = 2^-k gives the integer ratio k exactly), small p with
# large integers, a uint8 p near its limit.
TRANSFORM_CASES = [
    ("e_f32", "float32", "exponential", 1.5, 0),
    ("e_f32_big", "float32", "exponential", 1e30, 0),
    ("e_f16", "float16", "exponential", 1.0, 0),
    ("e_bf16", "bfloat16", "exponential", 0.25, 0),
    ("e_f64", "float64", "exponential", 1.5, 0),
    ("c_f32", "float32", "cauchy", 0.5, 2.0),
    ("c_f16", "float16", "cauchy", 0.0, 1.0),
    ("c_bf16", "bfloat16", "cauchy", -3.0, 0.125),
    ("c_f64", "float64", "cauchy", 0.5, 2.0),
    ("ln_f32", "float32", "log_normal", 0.25, 0.5),
    ("ln_f16", "float16", "log_normal", 0.0, 1.0),
    ("ln_bf16", "bfloat16", "log_normal", 1.0, 2.0),
    ("ln_f64", "float64", "log_normal", 0.25, 0.5),
    ("g_f32", "float32", "geometric", 0.2, 0),
    ("g_f32_half", "float32", "geometric", 0.5, 0),
    ("g_f16", "float16", "geometric", 0.001, 0),
    ("g_bf16", "bfloat16", "geometric", 0.3, 0),
    ("g_f64", "float64", "geometric", 0.2, 0),
    ("g_i32", "int32", "geometric", 1e-6, 0),
    ("g_i64", "int64", "geometric", 1e-7, 0),
    ("g_u8", "uint8", "geometric", 0.09, 0),
]


def bits_width(dtype):
    return {"float32": 8, "float16": 4, "bfloat16": 4, "uint8": 2, "bool": 2, "int32": 8,
            "uint32": 8, "int64": 16, "float64": 16}[dtype]


def params(dist, a, b):
    return (a,) if dist in ("bernoulli", "exponential", "geometric") else (a, b)


def hexw(v, dtype):
    return format(v, "x")


def edge_words():
    words = [0, 1, 2, 3, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF]
    words += [2**32 - k for k in range(1, 132)]  # the 128 that give 1.0f, and neighbours
    words += [1 << k for k in range(10, 19)]  # float16 subnormals for uniform(0, 1)
    # u = x * 2^-32 for x >= 2^31 (x a multiple of 2^8): float16 ties when the
    # float mantissa ends in 0x1000, bfloat16 ties when it ends in 0x8000.
    for m in (0x801000, 0x803000, 0xABC000 | 0x1000, 0x808000, 0x818000, 0xFFF000):
        words.append((m << 8) & 0xFFFFFFFF)
    return sorted(set(words))


def main():
    out = sys.stdout
    transforms = "--transforms" in sys.argv[1:]
    out.write("# Generated by tests/reference/make_distribution_cases.py%s from the reference\n"
              % (" --transforms" if transforms else ""))
    out.write("# model (tests/reference/distributions.py, variant pytorch). Do not edit.\n")
    for name, dtype, dist, a, b in (TRANSFORM_CASES if transforms else CASES):
        p = params(dist, a, b)
        for si, state in enumerate(STATES):
            for offset, n in ((0, 37), (3, 70)):
                vals, st = D.fill(state, offset, n, dist, p, dtype)
                head = f"fill {name}_s{si}_k{offset} {dtype} {dist} {a!r} {b!r} " + \
                    " ".join(format(w, "x") for w in state) + f" {offset} {n}"
                out.write(head + "\n  -> " + " ".join(format(v, "x") for v in vals) +
                          "\n  ; " + " ".join(format(w, "x") for w in st) + "\n")
        if dist in ("normal", "log_normal") or D.word_count(dist, dtype, p) == 2:
            continue  # pairs of words; the fills above cover them
        words = edge_words()
        if dist == "uniform":  # each side of both ends of the flipped words
            first, end = D.uniform_flip_interval(a, b, dtype)
            words = sorted(set(words) | {w for e in (first, end) for w in (e - 1, e)
                                         if 0 <= w < 2**32})
        pairs = []
        for w in words:
            vals, _ = D.fill_words([w], dist, p, dtype)
            pairs.append(f"{w:x}:{vals[0]:x}")
        out.write(f"convert {name} {dtype} {dist} {a!r} {b!r}\n  -> ")
        for i in range(0, len(pairs), 8):
            out.write((" " if i else "") + " ".join(pairs[i:i + 8]) + "\n")
            if i + 8 < len(pairs):
                out.write("    ")


if __name__ == "__main__":
    main()
