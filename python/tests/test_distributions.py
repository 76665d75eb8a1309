"""Distributions through the Python module, against the independent reference
model (tests/reference/distributions.py, which an H100 confirmed): new arrays,
in-place fills of views (transposed, sliced, negatively strided), DLPack
producers, bfloat16 as uint16 bit patterns, and errors that write nothing."""
import os
import sys

import numpy as np
import pytest

import randtensor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "reference"))
reference = pytest.importorskip("distributions")  # needs python3-mpmath

STATE = [0x12345678, 0x9ABCDEF0, 0x0F1E2D3C, 0x4B5A6978, 42, 7]
BITS_VIEW = {"float32": np.uint32, "float16": np.uint16, "bfloat16": np.uint16,
             "uint8": np.uint8, "bool": np.uint8, "int32": np.uint32, "int64": np.uint64,
             "float64": np.uint64, "uint32": np.uint32}
CASES = [
    ("uniform", "float32", {"low": -3.7, "high": 11.3}, (-3.7, 11.3)),
    ("uniform", "float16", {"low": -3.7, "high": 11.3}, (-3.7, 11.3)),
    ("uniform", "bfloat16", {"low": 0.1, "high": 0.2}, (0.1, 0.2)),
    ("bernoulli", "uint8", {"p": 0.3}, (0.3,)),
    ("bernoulli", "bool", {"p": 0.6}, (0.6,)),
    ("bernoulli", "int32", {"p": 0.9}, (0.9,)),
    ("bernoulli", "float16", {"p": 0.75}, (0.75,)),
    ("integers", "int32", {"low": -100, "high": 1000}, (-100, 1000)),
    ("integers", "int64", {"low": -(2 ** 40), "high": -(2 ** 40) + 12345}, (-(2 ** 40), -(2 ** 40) + 12345)),
    ("integers", "float64", {"low": 0, "high": 7}, (0, 7)),
    ("uniform", "float64", {"low": -3.7, "high": 11.3}, (-3.7, 11.3)),
    ("bernoulli", "float64", {"p": 0.3}, (0.3,)),
    ("integers", "int32", {"low": -(2 ** 31), "high": 2 ** 31 - 1}, (-(2 ** 31), 2 ** 31 - 1)),
    ("integers", "int64", {"low": -(2 ** 62), "high": 2 ** 62}, (-(2 ** 62), 2 ** 62)),
]


def expected(dist, dtype, params, n, offset=0):
    values, state = reference.fill(STATE, offset, n, dist, params, dtype)
    return np.array(values, dtype=BITS_VIEW[dtype]), list(state)


def bits(array, dtype):
    return np.ascontiguousarray(array).view(BITS_VIEW[dtype]).ravel()


@pytest.mark.parametrize("dist,dtype,kwargs,params", CASES)
def test_new_arrays_equal_the_reference(dist, dtype, kwargs, params):
    make = {"uniform": randtensor.uniform, "bernoulli": randtensor.bernoulli,
            "integers": randtensor.integers}[dist]
    a = make((3, 11), dtype=dtype, state=STATE, offset=4, **kwargs)
    assert a.shape == (3, 11)
    assert a.dtype == (np.uint16 if dtype == "bfloat16" else np.dtype(dtype))
    want, _ = expected(dist, dtype, params, 33, offset=4)
    assert (bits(a, dtype) == want).all()


@pytest.mark.parametrize("dist,dtype,kwargs,params", CASES)
def test_views_hold_the_same_logical_tensor(dist, dtype, kwargs, params):
    want, want_state = expected(dist, dtype, params, 6 * 7)
    np_dtype = np.uint16 if dtype == "bfloat16" else np.dtype(dtype)
    for make_view in (lambda m: m[:, ::-1][:6, :7],      # negative strides
                      lambda m: m.T[:6, :7],             # transposed
                      lambda m: m[::2, 1::2][:6, :7]):   # sliced with gaps
        memory = np.zeros((16, 16), np_dtype)
        view = make_view(memory)
        untouched = memory.copy()
        state = randtensor.fill(view, state=STATE, dist=dist, bfloat16=(dtype == "bfloat16"),
                                **kwargs)
        assert list(state) == want_state
        assert (bits(view, dtype) == want).all()
        mask = np.ones(memory.shape, bool)
        make_view(mask)[...] = False
        assert (memory[mask] == untouched[mask]).all()  # nothing outside the view


def test_dlpack_producers_get_the_same_values():
    want, _ = expected("uniform", "float32", (-3.7, 11.3), 20)
    array = np.zeros(20, np.float32)
    assert hasattr(array, "__dlpack__")

    class Producer:  # only the protocol: no ndarray path
        def __dlpack__(self, stream=None):
            return array.__dlpack__()

    randtensor.fill(Producer(), state=STATE, dist="uniform", low=-3.7, high=11.3)
    assert (array.view(np.uint32) == want).all()


@pytest.mark.parametrize("call,error,pattern", [
    (lambda: randtensor.uniform(4, low=2, high=1), ValueError, r"distribution.low = 2"),
    (lambda: randtensor.bernoulli(4, p=1.5), ValueError, r"distribution.p = 1.5"),
    (lambda: randtensor.uniform(4, dtype="int32"), ValueError, r"int32 cannot hold.*uniform"),
    (lambda: randtensor.uniform(4, dtype="float8"), TypeError, r"float8"),
    (lambda: randtensor.integers(4, 0, 2 ** 40, dtype="int32"), ValueError, r"int32 holds"),
    (lambda: randtensor.normal(4, std=-1.0), ValueError, r"distribution.std = -1"),
    (lambda: randtensor.normal(4, dtype="int32"), ValueError, r"int32 cannot hold.*normal"),
])
def test_bad_parameters_raise_by_name(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


def test_a_refused_fill_writes_nothing():
    array = np.full(8, 7.0, np.float32)
    with pytest.raises(ValueError, match=r"distribution.p = -0.5"):
        randtensor.fill(array, dist="bernoulli", p=-0.5, seed=1)
    assert (array == 7.0).all()
    with pytest.raises(ValueError, match=r"p does not apply"):
        randtensor.fill(array, dist="uniform", p=0.5)
    assert (array == 7.0).all()


def test_normals_are_within_the_promised_ulps_of_the_exact_formula():
    """SPEC.md section 8: every float32 normal within 2 ulp (or 2^-22) of the
    Box-Muller formula evaluated exactly (mpmath) on the same u and v."""
    n = 4000
    got = randtensor.normal(n, state=STATE, offset=1)
    detail = reference.normal_detail(STATE, 1, n, 0.0, 1.0, "float32")
    worst = 0.0
    for value, (z_exact, _, _) in zip(got.tolist(), detail):
        assert reference.within_normal_tolerance(value, z_exact, "float32"), (value, z_exact)
        worst = max(worst, reference.ulp_diff(value, z_exact, "float32"))
    assert worst <= 1.0  # in practice: the exact value rounded once


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_normal_with_mean_and_std_matches_the_reference(dtype):
    a = randtensor.normal(64, mean=3.0, std=0.5, dtype=dtype, state=STATE)
    want, _ = expected("normal", dtype, (3.0, 0.5), 64)
    ordered = bits(a, dtype).astype(np.int64)
    assert (np.abs(ordered - want.astype(np.int64)) <= 1).all()  # positive values: bits ordered


def test_float64_normals_are_within_the_promised_ulps_of_the_exact_formula():
    """SPEC.md section 8: every float64 normal within 4 ulp (or 2^-50) of the
    double Box-Muller formula evaluated exactly (mpmath) on the same u and v."""
    n = 2000
    got = randtensor.normal(n, dtype="float64", state=STATE, offset=3)
    detail = reference.normal_detail(STATE, 3, n, 0.0, 1.0, "float64")
    worst = 0.0
    for value, (z_exact, _, _) in zip(got.tolist(), detail):
        assert reference.within_normal_tolerance(value, z_exact, "float64"), (value, z_exact)
        worst = max(worst, reference.ulp_diff(value, z_exact, "float64"))
    assert worst <= 4.0
