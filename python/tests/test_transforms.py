"""exponential, cauchy, lognormal and geometric (docs/SPEC.md section 8.1)
through the Python module, against the independent reference model
(tests/reference/distributions.py: the exact formulas, mpmath): every element
within the bound the spec states, the output state, views, and errors that
name the parameter and write nothing."""
import math
import os
import sys
from fractions import Fraction

import numpy as np
import pytest

import randtensor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "reference"))
reference = pytest.importorskip("distributions")  # needs python3-mpmath

STATE = [0x12345678, 0x9ABCDEF0, 0x0F1E2D3C, 0x4B5A6978, 42, 7]
BITS_VIEW = {"float32": np.uint32, "float16": np.uint16, "bfloat16": np.uint16,
             "uint8": np.uint8, "int32": np.uint32, "int64": np.uint64, "float64": np.uint64}
FLOATS = ("float32", "float16", "bfloat16", "float64")


def bits(array, dtype):
    return np.ascontiguousarray(array).view(BITS_VIEW[dtype]).ravel()


def ulps_apart(got_bits, want_bits, dtype):
    """|got - want| in ulps of want (both bit patterns of dtype, finite)."""
    g, w = reference.value(int(got_bits), dtype), reference.value(int(want_bits), dtype)
    return float(abs(g - w) / reference.ulp(w, dtype))


def check_within(dist, dtype, params, got, n, offset, ulps, absolute=lambda v: 0):
    """Every element within `ulps` ulp of the reference's correctly rounded value
    (plus `absolute(value)`, Cauchy's cancellation term)."""
    want, _ = reference.fill(STATE, offset, n, dist, params, dtype)
    for i, (g, w) in enumerate(zip(bits(got, dtype), want)):
        if int(g) == w:
            continue
        diff = abs(reference.value(int(g), dtype) - reference.value(w, dtype))
        allowed = ulps * reference.ulp(reference.value(w, dtype), dtype) + absolute(w)
        assert diff <= allowed, (dist, dtype, i, hex(int(g)), hex(w))


# The spec's bounds against the exact value, plus the reference's own rounding of it
# (half an ulp): float32 exponential 1/2 + 2^-26 -> 1, the narrow types 1 -> 1.5 (one
# ulp either way suffices: the values are integers of ulps), float64 2 -> 2.5.
BOUND = {"float32": 1, "float16": 1, "bfloat16": 1, "float64": 2}


@pytest.mark.parametrize("dtype", FLOATS)
def test_exponential_within_the_bound(dtype):
    got = randtensor.exponential(300, lambd=1.5, dtype=dtype, state=STATE, offset=5)
    check_within("exponential", dtype, (1.5,), got, 300, 5, BOUND[dtype])


@pytest.mark.parametrize("dtype", FLOATS)
def test_cauchy_within_the_bound(dtype):
    got = randtensor.cauchy(300, median=0.5, sigma=2.0, dtype=dtype, state=STATE, offset=2)

    def cancellation(w):  # 2^-50 |sigma tan a| = 2^-50 |value - median|
        return abs(reference.value(w, dtype) - Fraction(1, 2)) / 2**50
    check_within("cauchy", dtype, (0.5, 2.0), got, 300, 2, 1, cancellation)


@pytest.mark.parametrize("dtype", FLOATS)
def test_lognormal_is_exp_of_the_normal(dtype):
    """Within 1 ulp of exp(x), x the normal of the same words (the library's own,
    whose bound section 8 states): exp taken by Python's math in double."""
    acc = "float64" if dtype == "float64" else "float32"
    x = randtensor.normal(301, mean=0.25, std=0.5, dtype=acc, state=STATE, offset=3)
    got = randtensor.lognormal(301, mean=0.25, std=0.5, dtype=dtype, state=STATE, offset=3)
    for i, (g, xv) in enumerate(zip(bits(got, dtype), x.tolist())):
        e = Fraction(math.exp(xv))
        gv = reference.value(int(g), dtype)
        slack = e * Fraction(1, 2**51)  # math.exp's own error, within 1 ulp of double
        assert abs(gv - e) <= reference.ulp(e, dtype) + slack, (dtype, i, xv)


@pytest.mark.parametrize("dtype,p", [("float32", 0.2), ("float16", 0.001), ("bfloat16", 0.3),
                                     ("float64", 0.2), ("int64", 1e-7), ("int32", 1e-6),
                                     ("uint8", 0.09), ("int64", 0.5)])
def test_geometric_equals_the_exact_ceiling(dtype, p):
    got = randtensor.geometric(400, p, dtype=dtype, state=STATE, offset=1)
    want, _ = reference.fill(STATE, 1, 400, "geometric", (p,), dtype)
    assert (bits(got, dtype) == np.array(want, dtype=BITS_VIEW[dtype])).all()


@pytest.mark.parametrize("make,words", [
    (lambda **k: randtensor.exponential(7, dtype="float32", **k), 1),
    (lambda **k: randtensor.exponential(7, dtype="float64", **k), 2),
    (lambda **k: randtensor.cauchy(7, dtype="float16", **k), 1),
    (lambda **k: randtensor.lognormal(7, dtype="float64", **k), 2),
    (lambda **k: randtensor.geometric(7, 0.5, dtype="uint8", **k), 1),
])
def test_output_state_counts_the_words(make, words):
    _, state = make(state=STATE, offset=2, return_state=True)
    assert state[0] == STATE[0] + -(-(2 + 7) * words // 4)


def test_views_hold_the_same_logical_tensor():
    want = randtensor.cauchy(42, state=STATE).reshape(6, 7)
    memory = np.zeros((16, 16), np.float32)
    randtensor.fill(memory.T[:6, :7], state=STATE, dist="cauchy")
    assert (memory.T[:6, :7] == want).all()
    memory2 = np.zeros((16, 16), np.int64)
    view = memory2[::2, ::-1][:6, :7]
    randtensor.fill(view, state=STATE, dist="geometric", p=0.25)
    assert (view == randtensor.geometric((6, 7), 0.25, state=STATE)).all()


@pytest.mark.parametrize("call,pattern", [
    (lambda: randtensor.exponential(4, lambd=0.0), r"distribution.lambda = 0"),
    (lambda: randtensor.exponential(4, lambd=-1.5), r"distribution.lambda = -1.5"),
    (lambda: randtensor.exponential(4, lambd=float("nan")), r"distribution.lambda = nan"),
    (lambda: randtensor.cauchy(4, sigma=0.0), r"distribution.sigma = 0"),
    (lambda: randtensor.cauchy(4, median=float("nan")), r"distribution.median = nan"),
    (lambda: randtensor.lognormal(4, std=0.0), r"distribution.std = 0"),
    (lambda: randtensor.lognormal(4, mean=float("inf")), r"distribution.mean = inf"),
    (lambda: randtensor.geometric(4, 1.0), r"distribution.p = 1"),
    (lambda: randtensor.geometric(4, 0.0), r"distribution.p = 0"),
    (lambda: randtensor.geometric(4, 1e-12, dtype="float32"), r"distribution.p = 1e-12"),
    (lambda: randtensor.geometric(4, 0.05, dtype="uint8"), r"distribution.p = 0.05.*uint8"),
    (lambda: randtensor.exponential(4, dtype="int32"), r"int32 cannot hold.*exponential"),
    (lambda: randtensor.geometric(4, 0.5, dtype="bool"), r"bool cannot hold.*geometric"),
])
def test_bad_parameters_raise_by_name(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call()


def test_a_refused_fill_writes_nothing_and_infinities_are_ieee():
    array = np.full(8, 7.0, np.float32)
    with pytest.raises(ValueError, match=r"distribution.sigma = -1"):
        randtensor.fill(array, dist="cauchy", sigma=-1.0, seed=1)
    assert (array == 7.0).all()
    with pytest.raises(ValueError, match=r"lambd does not apply"):
        randtensor.fill(array, dist="cauchy", lambd=2.0)
    assert (array == 7.0).all()
    # lambda = inf: -log(u) / inf = +0; median = inf: inf
    assert (bits(randtensor.exponential(9, lambd=float("inf"), seed=3), "float32") == 0).all()
    assert (randtensor.cauchy(9, median=float("inf"), seed=3) == np.inf).all()
    # geometric: u = 1 (the 128 largest words) gives -0.0 in the floating types
    assert randtensor.geometric(40, 0.5, dtype="float32", seed=0).min() >= 0
